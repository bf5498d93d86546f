"""What each operation of the web app may answer, declared in one place: the error answers (`ERRORS`), those every
request can get (`EVERY_REQUEST`, given to every router), a route's JSON body or download with its own error
answers (`answers`, `download_answers`, `page_answers`); `openapi_of` generates the description from them."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, Response

from confnav.limits import MAX_BODY, MAX_HEADERS
from confnav.web.bodies import ErrorBody

Responses = dict[int | str, dict[str, Any]]
ERRORS: dict[int, str] = {
    400: "bad input, named in one line: a value the library refuses (an unknown mode, sort, format or query field,"
    " …), or a NUL character (0x00) anywhere in the request",
    403: "a write refused: the server is read-only, or needs its start-up token (header X-Confnav-Token)",
    404: "nothing of that name or id (paper, venue, institution, list, profile, job), or a profile's secret wrong",
    408: "the request line and headers were not sent within 10 s: the connection is closed",
    409: "a venue's themes are not built yet: POST /api/jobs starts their build",
    413: f"request body over {MAX_BODY // 1024} KiB",
    414: "request URL too long",
    421: "this server does not answer for that Host (see 'confnav serve --allow-host')",
    422: "a parameter or body field of the wrong type or out of its range",
    431: f"request headers over {MAX_HEADERS // 1024} KiB",
    502: "an outside service (OpenReview, Semantic Scholar) could not be reached or refused: the message names it",
    503: "the store is busy with another writer: try again after the Retry-After seconds",
}
# by the server or the Guard, before any route: JSON, or the error page for a page's GET (`page_answers`)
REFUSED_EARLY = (400, 408, 413, 414, 421, 431)
WRITE = (403, 503)  # every write: the server's write check, and a store busy with another writer
ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}
TEXT = {"schema": {"type": "string"}}
CSL_JSON = {"schema": {"type": "array", "items": {"type": "object"}, "description": "CSL-JSON items, one per paper"}}


def failures(*codes: int, pages: Collection[int] = ()) -> Responses:
    """Error answers: `ErrorBody` as JSON for `codes` (and for the Guard's refusals), an HTML error page for `pages`
    (a code answered both ways: either)."""
    found: Responses = {}
    for code in sorted({*codes, *pages}):
        content: dict[str, Any] = {}
        if code in codes or code in REFUSED_EARLY:
            content["application/json"] = {"schema": ERROR_REF}
        if code in pages:
            content["text/html"] = TEXT
        found[code] = {"description": ERRORS[code], "content": content}
    return found


EVERY_REQUEST = failures(*REFUSED_EARLY)


def answers(body: Any, *codes: int, status: int = 200) -> dict[str, Any]:
    """A route's keyword arguments: it answers `body` (a model, or a list of one) as JSON with `status`, else the
    errors `codes`. The model describes the body the route builds; the route's own answer is sent unchanged."""
    return {"status_code": status, "response_model": None, "responses": {status: {"model": body}, **failures(*codes)}}


def download_answers(*media_types: str, codes: Collection[int] = (), pages: Collection[int] = ()) -> dict[str, Any]:
    """A download route's keyword arguments: a file in one of `media_types`, else the errors (JSON or pages)."""
    content = {media_type: CSL_JSON if media_type.endswith("csl+json") else TEXT for media_type in media_types}
    success = {"description": "a file to save", "content": content}
    return {
        "response_class": Response,
        "response_model": None,
        "responses": {200: success, **failures(*codes, pages=pages)},
    }


def page_answers(*codes: int, pages: Collection[int] = (), by_link: bool = False) -> dict[str, Any]:
    """An HTML page route's keyword arguments: the page, else error pages (`pages`) or JSON errors (`codes`);
    a page opened `by_link` (a profile's capability link, `?key=`) sends the browser on to itself without it."""
    found = failures(*codes, pages=(*pages, *REFUSED_EARLY))  # the Guard refuses a page's GET with its error page
    if by_link:
        found[303] = {"description": "opened by a profile's link: the same page without its key, kept in cookies"}
    return {"response_class": HTMLResponse, "responses": found}


def openapi_of(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI description, with a validation error (422) described as the app sends it (the `ErrorBody`,
    or the error page of a page route), not as FastAPI's own error list. Generated once."""
    if app.openapi_schema is None:
        described = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        schemas = described.setdefault("components", {}).setdefault("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            schemas.pop(name, None)
        schemas["ErrorBody"] = ErrorBody.model_json_schema()
        for operation in (op for path in described["paths"].values() for op in path.values()):
            if "422" in operation["responses"]:
                page = "text/html" in operation["responses"].get("200", {}).get("content", {})
                operation["responses"]["422"] = failures(pages=[422])[422] if page else failures(422)[422]
        app.openapi_schema = described
    return app.openapi_schema
