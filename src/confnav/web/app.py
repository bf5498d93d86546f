"""The local web app: pages and the JSON API over one store, safe by default (loopback, CSP, limits)."""

from __future__ import annotations

import logging
import secrets
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from confnav.errors import ConfnavError, NotFoundError
from confnav.search.engine import Searcher
from confnav.store import SqliteStore
from confnav.web.api import router as api_router
from confnav.web.pages import router as page_router
from confnav.web.state import AppState, WriteForbidden

STATIC = Path(__file__).parent / "static"
MAX_BODY = 64 * 1024
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
log = logging.getLogger("confnav.web")


def create_app(db: Path, token: str | None = None) -> FastAPI:
    """The app over the store at `db`; `token`, when given, is required for every write."""
    store = SqliteStore(db)
    app = FastAPI(
        title="confnav", description="A local navigator for conference papers.", version="0.1.0",
        docs_url=None, redoc_url=None,  # their pages load assets from a CDN; /openapi.json is served
    )  # fmt: skip
    app.state.confnav = AppState(store, Searcher(store), token)

    @app.middleware("http")
    async def guard(request: Request, call_next):  # type: ignore[no-untyped-def]
        length = request.headers.get("content-length")
        if length and (not length.isdigit() or int(length) > MAX_BODY):
            return JSONResponse({"error": f"request body over {MAX_BODY // 1024} KiB"}, status_code=413)
        if len(str(request.url)) > 8192:
            return JSONResponse({"error": "request URL too long"}, status_code=414)
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=404)

    @app.exception_handler(WriteForbidden)
    async def forbidden(request: Request, exc: WriteForbidden) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=403)

    @app.exception_handler(ConfnavError)
    async def bad_request(request: Request, exc: ConfnavError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return JSONResponse({"error": problems}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s", request.url.path)
        return JSONResponse({"error": "internal error (see the server log)"}, status_code=500)

    app.include_router(api_router)
    app.include_router(page_router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def serve(db: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn; off loopback, writes need a token printed here."""
    import uvicorn

    loopback = host in ("127.0.0.1", "localhost", "::1")
    token = None if loopback else secrets.token_urlsafe(16)
    app = create_app(db, token)
    print(f"confnav is serving {db} at http://{host}:{port}/", flush=True)
    if token:
        print(f"writes (reading lists) need the header X-Confnav-Token: {token}", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
