"""A profile's news as an Atom feed (RFC 4287) that ordinary feed readers subscribe to."""

from __future__ import annotations

import os
import uuid
import xml.etree.ElementTree as ET
from collections import defaultdict
from urllib.parse import quote

from confnav.personal.news import NewsPapers, describe, since_time
from confnav.safe_text import safe_link
from confnav.store.news import NewsItem, Watch, now

ATOM = "http://www.w3.org/2005/Atom"
FEED_ITEMS = 200  # the newest items a feed carries; readers keep what they saw before
KIND_NAMES = {"new": "new paper", "reviews": "new reviews", "ratings": "ratings changed", "decision": "decision"}


def feed_id(location: str, profile: str) -> str:
    """The feed's stable id: a name-based UUID of the store and profile (the store's location is not shown), the
    same however a store file's path is written."""
    if "://" not in location and location:
        location = os.path.abspath(location)
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'confnav:{location}:feed:{profile}')}"


def atom_feed(
    store: NewsPapers, profile: str, base_url: str | None = None, limit: int = FEED_ITEMS, since: str | None = None
) -> str:
    """The profile's newest news (from `since` on, as `news --since` reads it) as Atom XML; with `base_url` (the
    web app's), entries link to its paper pages and the feed to itself, else to each paper's own page."""
    items = store.news(profile, since=since_time(since) if since else None, limit=limit)
    watches: dict[str, Watch] = {w.id: w for w in store.watches(profile)}
    base = base_url.rstrip("/") if base_url else None
    links = _paper_links(store, items) if base is None else {}
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    _text(feed, "id", feed_id(getattr(store, "location", ""), profile))
    _text(feed, "title", f"confnav news for {profile}")
    _text(feed, "subtitle", "New papers, reviews, ratings and decisions in what this profile watches")
    _text(feed, "updated", items[0].created if items else now())
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", f"confnav ({profile})")
    ET.SubElement(feed, f"{{{ATOM}}}generator").text = "confnav"
    if base:
        ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=f"{base}/feeds/{quote(profile)}.atom")
    for item in items:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        _text(entry, "id", f"urn:uuid:{item.id}")
        kinds = ", ".join(KIND_NAMES.get(k, k) for k in item.kind.split("+"))
        _text(entry, "title", f"{item.title} ({kinds})")
        _text(entry, "updated", item.created)
        href = f"{base}/paper/{quote(item.paper_id, safe='')}?venue={quote(item.venue)}" if base else links.get(item.id)
        if href:
            ET.SubElement(entry, f"{{{ATOM}}}link", rel="alternate", type="text/html", href=href)
        for kind in item.kind.split("+"):
            ET.SubElement(entry, f"{{{ATOM}}}category", term=kind, label=KIND_NAMES.get(kind, kind))
        watch = watches.get(item.watch)
        because = f" (you watch {describe(watch)})" if watch else ""
        text = f"{item.title} [{item.paper_id} · {item.venue}]: {item.summary}{because}"
        summary = _text(entry, "summary", text)
        summary.set("type", "text")
        content = _text(entry, "content", text)
        content.set("type", "text")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"


def _text(parent: ET.Element, tag: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}")
    element.text = _xml_chars(text)
    return element


def _xml_chars(text: str) -> str:
    """Text without the characters XML 1.0 cannot carry at all (control characters from hostile data)."""
    return "".join(
        c for c in text if c in "\t\n\r" or (" " <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd") or c > "\uffff"
    )


def _paper_links(store: NewsPapers, items: list[NewsItem]) -> dict[str, str]:
    """Each item's paper page (forum, venue page, DOI or PDF), where the stored paper has one."""
    by_venue: dict[str, set[str]] = defaultdict(set)
    for item in items:
        by_venue[item.venue].add(item.paper_id)
    urls = {
        (venue, paper_id): paper.url
        for venue, ids in by_venue.items()
        for paper_id, paper in store.papers_by_id(venue, sorted(ids)).items()
    }
    return {item.id: url for item in items if (url := safe_link(urls.get((item.venue, item.paper_id))))}
