"""Links a source gives for a paper: its OpenReview forum and PDF, a DOI, web addresses however written (Markdown
links, several in one field, addresses without their scheme), and what each link is (code on a code host, a
project page, a listing of implementations, a video …), read the same way by every reader."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from confnav.model import RESOURCE_KINDS

ID_CHARS = re.compile(r"[^A-Za-z0-9._~-]+")  # what cannot travel in a URL path or a citation key


def openreview_links(paper_id: str) -> dict[str, str]:
    """Forum and PDF links of an OpenReview id."""
    return {
        "forum": f"https://openreview.net/forum?id={paper_id}",
        "pdf": f"https://openreview.net/pdf?id={paper_id}",
    }


_OPENREVIEW_ID = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([A-Za-z0-9_\-]+)")


def openreview_id(url: str) -> str | None:
    """The forum id in an OpenReview URL, else None."""
    match = _OPENREVIEW_ID.search(url or "")
    return match.group(1) if match else None


_WEB_URL = re.compile(r"^https?://[^\s/]+\.\S*$", re.I)
_SPACE = re.compile(r"\s")
_DOI = re.compile(r"10\.\d{4,9}/\S+$")


def web_url(value: str | None) -> str | None:
    """An absolute http(s) URL, or None for anything else (relative paths, `javascript:`, blanks, spaces inside)."""
    text = (value or "").strip()
    # Spaces are refused before the pattern runs: with them it would backtrack over every dot of a hostile host.
    return text if text and not _SPACE.search(text) and _WEB_URL.match(text) else None


def doi_url(value: str | None) -> str | None:
    """`https://doi.org/…` for a DOI given bare or as a URL (its last word, searched alone to stay linear)."""
    words = (value or "").rsplit(None, 1)
    match = _DOI.search(words[-1]) if words else None
    return f"https://doi.org/{match.group(0)}" if match else None


# A URL written as a Markdown link (`[![github](icon.svg) owner/repo](https://github.com/owner/repo)`).
_MARKDOWN_LINK = re.compile(r"\]\((\S+?)\)")
# A web address given without its scheme (`github.com/owner/repo`), taken as https for the links that come with
# a paper (code, project, video, slides, poster), where sources often drop it.
# `git@github.com:owner/repo.git` (a clone address) is read as the repository's page.
_BARE_HOST = re.compile(r"^(?:git@)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?:[:/](\S*))?$", re.I)
_URL_SEPARATORS = re.compile(r"[\s;,|]+")
# Field and column names that hold such links, lower case without punctuation or a trailing `url`/`link`,
# by the link name they become (docs/ingest.md lists them).
RESOURCE_FIELDS = {
    **dict.fromkeys(("github", "gitlab", "code", "coderepo", "repo", "repository", "sourcecode", "git"), "code"),
    **dict.fromkeys(("implementation", "codeavailability", "githubrepo", "software"), "code"),
    **dict.fromkeys(("project", "projectpage", "projectsite", "projectwebsite", "projecthomepage"), "project"),
    **dict.fromkeys(("video", "videos", "youtube", "recording", "talk", "presentationvideo"), "video"),
    **dict.fromkeys(("slides", "slide", "slidedeck", "presentationslides"), "slides"),
    **dict.fromkeys(("poster", "posterpdf", "posterimage"), "poster"),
    **dict.fromkeys(("supp", "supplement", "supplementary", "supplementarymaterial"), "supplement"),
}
_FIELD_SUFFIX = re.compile(r"(?:url|urls|link|links|href)$")


def resource_kind(field_name: str) -> str | None:
    """The link a field or column holds (`github_url` → code, `Project Page` → project), else None."""
    key = re.sub(r"[^a-z]", "", field_name.lower())
    return RESOURCE_FIELDS.get(key) or RESOURCE_FIELDS.get(_FIELD_SUFFIX.sub("", key))


def resource_fields(names: Iterable[str]) -> dict[str, str]:
    """Of a record's field names, those holding a paper's code, project, video, slides, poster or supplement
    links, each with its link name (the first field of a link name wins where several hold it)."""
    return {name: kind for name in names if isinstance(name, str) and (kind := resource_kind(name))}


def resource_links(record: Mapping[str, Any]) -> dict[str, str]:
    """A record's code, project, video, slides, poster and supplement links, from whichever of its fields hold
    them (see RESOURCE_FIELDS); of several URLs, the first of each name (see link_name)."""
    links: dict[str, str] = {}
    for name, kind in resource_fields(record).items():
        value = record[name]
        if isinstance(value, list):
            value = " ".join(v for v in value if isinstance(v, str))
        if kind not in links and isinstance(value, str):
            for url in link_urls(value, True, kind):
                links.setdefault(link_name(kind, url), url)
    return links


# Where code is kept: a code field's address elsewhere is a page about the paper, not its code.
_CODE_HOST = re.compile(
    r"(?:www\.)?(?:github\.com|gitlab\.[a-z.]+|bitbucket\.org|codeberg\.org|sourceforge\.net|huggingface\.co"
    r"|gitee\.com|code\.google\.com|gist\.github\.com|anonymous\.4open\.science|git\.[\w.\-]+)",
    re.I,
)
_LISTINGS = re.compile(r"(?:[\w\-]+\.)?paperswithcode\.com", re.I)  # lists others' implementations of a paper


def link_name(name: str, url: str) -> str:
    """The name a link is kept under: a code field's link is `code` on a code host (GitHub, GitLab, Hugging Face,
    an institution's git server), `implementations` on Papers with Code (a listing of implementations, not the
    authors' code), else `project` (a project page given as the code's address, a `github.io` site)."""
    if name != "code":
        return name
    host = url.split("://", 1)[-1].split("/", 1)[0].split("@")[-1].split(":")[0]
    if _LISTINGS.fullmatch(host):
        return "implementations"
    return "code" if _CODE_HOST.fullmatch(host) else "project"


def _bare_url(text: str, kind: str) -> str | None:
    """An address given without its scheme as an https URL; a code link must name a path (a repository)."""
    match = _BARE_HOST.match(text)
    if not match or (kind == "code" and not match.group(2)):
        return None
    path = match.group(2) or ""
    path = path[:-4] if text.startswith("git@") and path.endswith(".git") else path
    return web_url(f"https://{match.group(1)}/{path}")


def link_urls(value: str | None, bare_hosts: bool = False, kind: str = "") -> list[str]:
    """The absolute http(s) URLs a source's field holds, in order: its Markdown links' targets, else the field as
    a URL or its parts separated by spaces, `;`, `,` or `|`, or with `bare_hosts` addresses without their scheme
    (`github.com/a/b`, `git@github.com:a/b.git`) for a link of this `kind`."""
    text = (value or "").strip()
    found: list[str] = []
    for part in _MARKDOWN_LINK.findall(text) or [text, *_URL_SEPARATORS.split(text)[:8]]:
        url = web_url(part) or (_bare_url(part, kind) if bare_hosts else None)
        if url and url not in found:
            found.append(url)
    return found


def link_url(value: str | None, bare_hosts: bool = False, kind: str = "") -> str | None:
    """The first URL a source's field holds (see link_urls); None when it holds none."""
    return next(iter(link_urls(value, bare_hosts, kind)), None)


def links_from(urls: Mapping[str, str | None]) -> dict[str, str]:
    """Links by name from a source's URL fields; OpenReview URLs become `forum` and `pdf` whatever field held them."""
    links: dict[str, str] = {}
    for name, value in urls.items():
        found = [doi_url(value)] if name == "doi" else link_urls(value, name in RESOURCE_KINDS, name)[:1]
        found = link_urls(value, True, name) if name == "code" else found  # each URL of code under its own name
        for url in (u for u in found if u):
            if forum := openreview_id(url):
                links.setdefault("forum", f"https://openreview.net/forum?id={forum}")
                links.setdefault("pdf", f"https://openreview.net/pdf?id={forum}")
            else:
                links.setdefault(link_name(name, url), url)
    return links


def url_id(url: str | None) -> str | None:
    """A stable id from a paper's URL: an OpenReview forum id, else the last path segment without its extension."""
    if not url:
        return None
    if forum := openreview_id(url):
        return forum
    path = re.sub(r"[?#].*$", "", url.split("://", 1)[-1]).rstrip("/")
    segment = path.rsplit("/", 1)[-1] if "/" in path else ""
    segment = re.sub(r"\.(pdf|html?|php)$", "", segment, flags=re.I)
    cleaned = ID_CHARS.sub("-", segment).strip("-.")
    return cleaned or None
