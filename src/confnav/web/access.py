"""Which profile a request may read and change: the one check every profile route makes.

Locally (served on loopback) the profile is the one named (in the path, `?profile=` or the profile cookie), else
the default `me`, and no secret is asked. On a shared server (reachable from other machines, see `create_app`)
a profile opens only with its own secret, given as `?key=SECRET` (a capability link; a page turns it into an
HttpOnly, SameSite=Strict cookie) or that cookie; a wrong or missing key, an unknown profile and a profile without
a secret are all answered the same 404, so that nobody learns which names exist.

Any route that reads or writes a profile's data (its items, marks, notes, recommendations, its feed) starts with

    name = profile_access(request, profile)  # NotFoundError (404) unless this request may open it

e.g. an Atom feed a feed reader fetches as `/feeds/alice.atom?key=SECRET`:

    @router.get("/feeds/{profile:text}.atom")
    def feed(request: Request, profile: str) -> Response:
        name = profile_access(request, profile)
        ...

Every reading list is a profile's: the one it was given to (`confnav profile list`, or the profile that made it
from a page), else the default profile's. On a shared server it is listed, read, exported and changed only with
that profile's secret (`list_access`, `visible_lists`), and a list made there is the maker's (`new_list_owner`).

Writes also pass `AppState.writing` first (the server's read-only setting and write token). Rotating a profile's
secret (`POST /api/profiles/{name}/secret`, `confnav profile secret NAME --rotate`) closes every old link and feed.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from fastapi import Request, Response

from confnav.errors import ConfnavError, NotFoundError, excerpt
from confnav.personal import DEFAULT_PROFILE
from confnav.personal.access import verify_secret
from confnav.web.state import state_of

PROFILE_COOKIE = "confnav_profile"  # the chosen profile's name (not a secret)
KEY_COOKIE = "confnav_key"  # the chosen profile's secret, on a shared server
COOKIE_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie
MAX_NAME = 60
_UNLISTABLE = re.compile(r"[^\w .-]")  # characters a reading list's name cannot hold


def is_shared(request: Request) -> bool:
    return state_of(request).shared


def chosen_profile(request: Request, named: str | None = None) -> str:
    """The profile a request means: `named`, else `?profile=`, else the profile cookie, else `me` locally (on a
    shared server '' : there is no default profile there). Nothing is checked here."""
    name = named or request.query_params.get("profile") or unquote(request.cookies.get(PROFILE_COOKIE, ""))
    name = name.strip()[:MAX_NAME]
    return name or ("" if is_shared(request) else DEFAULT_PROFILE)


def given_key(request: Request) -> str | None:
    """The secret a request carries: `?key=` first (a capability link, a feed URL), else the key cookie."""
    return request.query_params.get("key") or request.cookies.get(KEY_COOKIE) or None


def profile_access(request: Request, named: str | None = None) -> str:
    """The name of the profile this request may read and change (see the module's text), else NotFoundError."""
    name = chosen_profile(request, named)
    if not is_shared(request):
        return name
    if not name:
        raise NotFoundError("no profile chosen: open your profile's link, or create a profile on the For you page")
    if not verify_secret(state_of(request).store, name, given_key(request)):
        raise NotFoundError(f"no profile {excerpt(name)} opens with this key: open the profile's link (…?key=…) again")
    return name


def opened_profile(request: Request) -> str | None:
    """The profile this request opens with its secret on a shared server (None: none), the chosen one locally."""
    name = chosen_profile(request)
    if not is_shared(request):
        return name
    return name if name and verify_secret(state_of(request).store, name, given_key(request)) else None


def visible_lists(request: Request) -> list[tuple[str, int]]:
    """The reading lists (name, size) this request may see: on a shared server its own profile's only."""
    store = state_of(request).store
    lists = store.reading_lists()
    if not is_shared(request):
        return lists
    owners, opened = store.list_owners(), opened_profile(request)
    return [(name, n) for name, n in lists if opened is not None and owners.get(name, DEFAULT_PROFILE) == opened]


def list_access(request: Request, name: str) -> str:
    """`name`, if this request may read and change that reading list; else the same 404 as an unknown list."""
    if is_shared(request):
        owner = state_of(request).store.list_owners().get(name.strip(), DEFAULT_PROFILE)
        if owner != opened_profile(request):
            raise NotFoundError(f"no reading list named {excerpt(name)}")
    return name


def default_list(request: Request) -> str:
    """The list "+ reading list" adds to: "to read", on a shared server the opened profile's own "to read"."""
    opened = opened_profile(request) if is_shared(request) else None
    return ("to read - " + _UNLISTABLE.sub("_", opened))[:60].strip() if opened else "to read"


def new_list_owner(request: Request, name: str) -> str | None:
    """The profile a reading list made by this request belongs to: on a shared server the opened one (a list name
    another profile holds is refused), locally None (the default profile's, as from the CLI)."""
    if not is_shared(request):
        return None
    opened = opened_profile(request)
    if opened is None:
        raise NotFoundError("no profile opened: open your profile's link to keep reading lists")
    store = state_of(request).store
    if name.strip() in dict(store.reading_lists()) and store.list_owners().get(name.strip(), DEFAULT_PROFILE) != opened:
        raise ConfnavError(f"the reading list name {name.strip()!r} is taken: choose another")
    return opened


def remember(request: Request, response: Response, name: str, secret: str | None = None) -> None:
    """Keep the chosen profile (and on a shared server its secret) in HttpOnly, SameSite=Strict cookies."""
    secure = request.url.scheme == "https"
    options = {"max_age": COOKIE_AGE, "path": "/", "httponly": True, "samesite": "strict", "secure": secure}
    response.set_cookie(PROFILE_COOKIE, quote(name, safe=""), **options)  # type: ignore[arg-type]
    if secret is not None:
        response.set_cookie(KEY_COOKIE, secret, **options)  # type: ignore[arg-type]


def capability_link(name: str, secret: str) -> str:
    """The link that opens a profile in a browser (and sets its cookies)."""
    return f"/for-you?profile={quote(name, safe='')}&key={quote(secret, safe='')}"
