"""The local web app: pages and the JSON API over one store, safe by default (loopback, CSP, limits)."""

from __future__ import annotations

import gc
import logging
import re
import secrets
import socket
import sys
import time
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from pathlib import Path

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from confnav.errors import ConfnavError, NotFoundError, StoreBusyError, excerpt
from confnav.limits import MAX_BODY, MAX_HEADERS, MAX_URL
from confnav.malloc_arenas import bound_malloc_arenas
from confnav.navigator import Navigator, check_steps
from confnav.search.engine import Searcher
from confnav.settings import Settings
from confnav.store import describe
from confnav.topics.facts import TopicsNotReady
from confnav.web.answers import EVERY_REQUEST, openapi_of
from confnav.web.api import router as api_router
from confnav.web.ask import router as ask_router
from confnav.web.feeds import router as feed_router
from confnav.web.history import router as history_router
from confnav.web.news import router as news_router
from confnav.web.pages import page, templates
from confnav.web.pages import router as page_router
from confnav.web.personal import router as personal_router
from confnav.web.plan_page import router as plan_router
from confnav.web.protocol import ABSOLUTE_TARGET, head_as_get
from confnav.web.rebuttal import router as rebuttal_router
from confnav.web.report_pages import router as report_router
from confnav.web.segments import routed_path
from confnav.web.state import LOOPBACK_HOSTS, AppState, ThreadStores, WriteForbidden

STATIC = Path(__file__).parent / "static"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
SAFETY_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
)
RAW_SAFETY_HEADERS = [(k.lower().encode(), v.encode()) for k, v in SAFETY_HEADERS]
BODY_METHODS = {b"POST", b"PUT", b"PATCH", b"DELETE"}
# A NUL character is no text (ingest refuses it too) and PostgreSQL cannot hold or look one up: refused in the
# path, the query, the cookies (percent-encoded) and a body (raw, or as the JSON escape `\u0000`).
NUL_TEXT = "the request holds a NUL character (0x00), which is not text"
NUL_ESCAPE = re.compile(rb"(?:^|[^\\])(?:\\\\)*\\u0000")
HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9.])?|\[?[0-9A-Fa-f.]*:[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\]?")
REQUEST_THREADS = 8  # per worker process; each holds one database connection
# Seconds a busy thread keeps the interpreter lock while another waits (Python's default 0.005): a request thread
# back from a query waits for it, so shorter turns answer cached requests sooner (1,356 → 1,879 requests/s).
SWITCH_INTERVAL = 0.001
log = logging.getLogger("confnav.web")


def create_app(
    db: Path | str,
    token: str | None = None,
    read_only: bool = False,
    allowed_hosts: Collection[str] | None = LOOPBACK_HOSTS,
    settings: Settings | None = None,
    shared: bool | None = None,
) -> FastAPI:
    """The app over the store at `db` (a file or a postgresql:// URL); `token`, when given, is required for
    every write, and a `read_only` app refuses them all. Requests naming another Host than `allowed_hosts`
    (None: any) are refused, so a web page whose name resolves to this machine cannot use it. A `shared` app
    (by default: one answering for any other name than loopback's, directly or behind a proxy) opens each
    profile only with its secret. The app's one `Navigator` holds `settings` (None: the defaults, not the
    environment's; `serve` passes the CLI's)."""
    settings = (settings or Settings()).replace(
        db=str(db),
        write_token=token,
        allowed_hosts=None if allowed_hosts is None else tuple(sorted(allowed_hosts)),
    )
    check_steps(settings)  # a wrong step name fails before the store is opened
    stores = ThreadStores(db, read_only=read_only, settings=settings)
    navigator = Navigator(stores.settings, stores)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Handlers run in a pool of threads, each with its own connection (kept answers come from the event loop).
        anyio.to_thread.current_default_thread_limiter().total_tokens = REQUEST_THREADS
        stores.watch_state()
        yield
        app.state.confnav.searcher.close()  # a reload in progress reads with a connection closed here
        app.state.confnav.refresher.close()
        stores.close()

    app = FastAPI(
        title="confnav",
        description="A local navigator for conference papers.",
        version="0.1.0",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,  # docs pages load assets from a CDN; /openapi.json is served
    )
    if shared is None:
        shared = answers_others(allowed_hosts)
    app.state.confnav = AppState(stores, Searcher(stores), token, read_only, db, shared=shared, root=navigator)

    @app.exception_handler(TopicsNotReady)
    async def not_ready(request: Request, exc: TopicsNotReady) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=409)

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError) -> Response:
        return _not_found(request, str(exc))

    @app.exception_handler(StoreBusyError)
    async def busy(request: Request, exc: StoreBusyError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=503, headers={"Retry-After": "5"})

    @app.exception_handler(WriteForbidden)
    async def forbidden(request: Request, exc: WriteForbidden) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=403)

    @app.exception_handler(ConfnavError)
    async def bad_request(request: Request, exc: ConfnavError) -> Response:
        return _refused(request, 400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        if getattr(request.scope.get("route"), "response_class", None) is HTMLResponse:  # a page: for a browser
            return page(request, "error.html", 422, message=problems)
        return JSONResponse({"error": problems}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:  # no route for the address (a page's path may not hold a line break)
            return _not_found(request, f"no page at {request.url.path!r}")
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s", request.url.path)
        return JSONResponse({"error": "internal error (see the server log)"}, status_code=500)

    routers = (api_router, personal_router, page_router, feed_router, plan_router, history_router, ask_router)
    for router in (*routers, rebuttal_router, news_router, report_router):
        app.include_router(router, responses=EVERY_REQUEST)  # the Guard's refusals, described on every operation
    app.openapi = lambda: openapi_of(app)  # type: ignore[method-assign]
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(Guard, allowed_hosts=allowed_hosts)
    return app


def _not_found(request: Request, message: str) -> Response:
    """A 404: the JSON error body under /api/, the error page anywhere else."""
    return _refused(request, 404, message)


def _refused(request: Request, status: int, message: str) -> Response:
    """An error answer: the JSON error body under /api/, the error page anywhere else (a page's bad venue name is
    told on a page, as its unknown venue is)."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    return page(request, "error.html", status, message=message)


class Guard:
    """Plain ASGI middleware (far cheaper per request than Starlette's BaseHTTPMiddleware): the Host check,
    size limits where the bytes arrive (headers, URL, bodies with or without a length), safety headers."""

    def __init__(self, app: ASGIApp, allowed_hosts: Collection[str] | None = LOOPBACK_HOSTS) -> None:
        self.app = app
        self.allowed_hosts = None if allowed_hosts is None else {_host_name(h.encode()) for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        state = scope.setdefault("state", {})
        state["arrived"] = time.perf_counter()  # a write's Server-Timing counts from here (web/state.py)
        problem = self._problem(scope)
        if problem is None and _has_body(scope):
            receive, problem = await _read_body(receive)
        if problem:  # and close: a client still sending its body gets the answer now, and the rest is not read
            refusal = _refusal(scope, *problem)
            return await refusal(scope, receive, send)
        scope["path"] = routed_path(scope)  # an encoded `/` stays in its segment (see web/segments.py)
        scope, send = head_as_get(scope, send)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                timing = [(b"server-timing", state["server_timing"].encode())] if "server_timing" in state else []
                message["headers"] = [*message.get("headers", []), *RAW_SAFETY_HEADERS, *timing]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _problem(self, scope: Scope) -> tuple[int, str] | None:
        """What is wrong with the request line and headers, as (status, message), if anything."""
        headers = scope["headers"]
        if sum(len(name) + len(value) for name, value in headers) > MAX_HEADERS:
            return 431, f"request headers over {MAX_HEADERS // 1024} KiB"
        named = dict(headers)
        if self.allowed_hosts is not None and _host_name(named.get(b"host", b"")) not in self.allowed_hosts:
            return 421, "this server does not answer for that Host (see 'confnav serve --allow-host')"
        if sum(name == b"host" for name, _ in headers) > 1:  # which one a proxy or the app reads would differ
            return 421, "a request names one Host, in one Host header"
        if ABSOLUTE_TARGET in scope.get("extensions", {}) or not _path_target(scope):
            return 421, "this server takes a path (/…) as the request target, not a full URL"
        length = named.get(b"content-length", b"")
        if length and (not length.isdigit() or int(length) > MAX_BODY):
            return 413, f"request body over {MAX_BODY // 1024} KiB"
        if len(scope.get("raw_path") or scope["path"]) + len(scope["query_string"]) > MAX_URL:
            return 414, "request URL too long"
        if "\x00" in scope["path"] or b"%00" in scope["query_string"] + named.get(b"cookie", b""):
            return 400, NUL_TEXT
        return None


def _refusal(scope: Scope, status: int, message: str) -> Response:
    """The Guard's answer, before any route: the JSON error body under /api/ (and to any request but a browser's
    GET), the error page for a page (`_refused`'s rule; the page names no profile, as none was read)."""
    headers = {**dict(SAFETY_HEADERS), "Connection": "close"}
    if scope["method"] in ("GET", "HEAD") and not scope["path"].startswith("/api/"):
        shown = templates.get_template("error.html").render(message=message, profile=None, default_list="")
        return HTMLResponse(shown, status, headers)
    return JSONResponse({"error": message}, status, headers)


def _path_target(scope: Scope) -> bool:
    """Whether the request target is a path (origin form), as a parser that keeps an absolute URL whole shows it."""
    raw = scope.get("raw_path") or scope["path"].encode()
    return bool(raw.startswith((b"/", b"*")))


def _host_name(header: bytes) -> str:
    """The name in a Host header (or an allowed name), without its port or a final dot: `[::1]:8000` → `::1`,
    `Localhost.:80` → `localhost`."""
    host = header.decode("latin-1").strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return (host.rsplit(":", 1)[0] if host.count(":") == 1 else host).rstrip(".")


def _has_body(scope: Scope) -> bool:
    """A request with a body, announced (a length) or not (chunked: its size is only known as it arrives)."""
    headers = dict(scope["headers"])
    if b"content-length" in headers:
        return headers[b"content-length"] != b"0"
    return b"transfer-encoding" in headers or scope["method"].encode() in BODY_METHODS


async def _read_body(receive: Receive) -> tuple[Receive, tuple[int, str] | None]:
    """Read a body up to MAX_BODY (413 past it, reading no further; 400 if it holds a NUL character, raw or as a
    JSON escape) and replay it to the app."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        size += len(message.get("body", b""))
        if size > MAX_BODY:
            return receive, (413, f"request body over {MAX_BODY // 1024} KiB")
        if not message.get("more_body", False):
            break

    body = b"".join(m.get("body", b"") for m in messages)
    if b"\x00" in body or NUL_ESCAPE.search(body):
        return receive, (400, NUL_TEXT)

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return replay, None


def app_from_environment() -> FastAPI:
    """The app each worker process of `serve --workers N` builds, from the settings its parent handed over in a
    private file (the token and a database password never appear on a command line)."""
    settings = Settings.for_worker()
    bound_malloc_arenas()  # before the request threads start
    app = create_app(settings.db, settings.write_token, settings.read_only, settings.allowed_hosts, settings)
    _warm(app)
    return app


def serve(
    db: Path | str,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    read_only: bool = False,
    allow_hosts: Collection[str] = (),
    settings: Settings | None = None,
) -> None:
    """Run the app with uvicorn (in `workers` processes), warmed up first; shared (off loopback or answering for
    other names), writes need a token.
    `settings` (None: the defaults) are handed to each worker."""
    import uvicorn

    from confnav.web.protocol import server_settings

    hosts = allowed_hosts(host, allow_hosts)
    listening = _listen(host, port)
    token = secrets.token_urlsafe(16) if answers_others(hosts) and not read_only else None  # behind a proxy too
    mode = " (read-only)" if read_only else ""
    if workers > 1:
        listening.close()  # each worker binds the port itself
        handed = (settings or Settings()).replace(
            db=str(db),
            write_token=token,
            read_only=read_only,
            allowed_hosts=None if hosts is None else tuple(sorted(hosts)),
        )
        with handed.handed_to_workers():
            print(
                f"confnav is serving {describe(db)}{mode} at http://{host}:{port}/ with {workers} workers", flush=True
            )
            _print_token(token)
            uvicorn.run(
                "confnav.web.app:app_from_environment",
                factory=True,
                host=host,
                port=port,
                workers=workers,
                **server_settings(),
            )
        return
    bound_malloc_arenas()  # before the request threads start
    app = create_app(db, token, read_only, hosts, settings)
    _warm(app)
    print(f"confnav is serving {describe(db)}{mode} at http://{host}:{port}/", flush=True)
    _print_token(token)
    uvicorn.Server(uvicorn.Config(app, **server_settings())).run(sockets=[listening])


def answers_others(hosts: Collection[str] | None) -> bool:
    """Whether a server answering for these Host names (None: any) is shared: reached by other names than
    loopback's, directly or through a reverse proxy on this machine."""
    return hosts is None or not {h.lower() for h in hosts} <= LOOPBACK_HOSTS


def allowed_hosts(host: str, extra: Collection[str] = ()) -> set[str] | None:
    """The Host names a server bound to `host` answers for: loopback names on loopback, the address itself
    on another, any on a wildcard address (0.0.0.0, ::) unless names are given; plus `extra`, each a bare
    name or address (a scheme, port or path would never match a Host header: refused here, not ignored)."""
    for name in extra:
        if not HOST_NAME.fullmatch(name):
            raise ConfnavError(f"--allow-host {excerpt(name)}: give a host name or IP address alone, e.g. laptop.local")
    if host in LOOPBACK_HOSTS:
        return {*LOOPBACK_HOSTS, *extra}
    if host in ("0.0.0.0", "::", ""):
        return {*extra} if extra else None
    return {host, *extra}


def _warm(app: FastAPI) -> None:
    """Load what search needs now, then exempt what is loaded from garbage collection: a full collection over
    the modules and the corpus would otherwise pause a request now and then (about 0.1 s at 500,000 papers).
    BLAS runs on one thread: a query's product is small, and a second thread waiting for a core busy with other
    requests made it 0.06 ms → about 10 ms. Threads take turns with the interpreter lock more often (see
    SWITCH_INTERVAL)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
    sys.setswitchinterval(SWITCH_INTERVAL)
    app.state.confnav.searcher.warm()
    gc.collect()
    gc.freeze()


def _print_token(token: str | None) -> None:
    if token:
        print(f"writes (reading lists, theme builds) need the header X-Confnav-Token: {token}", flush=True)


def _listen(host: str, port: int) -> socket.socket:
    """The bound socket, or one clear line when the address is taken or not ours."""
    listening = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        reason = exc.strerror or exc
        raise ConfnavError(f"cannot listen on {host}:{port} ({reason}): choose another --port or --host") from None
    return listening
