"""Same paper or a conflict: where a record giving an id meets the records that id already has (earlier in its
file, in another file of the run, or in the store), one rule says whether they describe one paper."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from difflib import SequenceMatcher

from confnav.model import is_placeholder_title, name_key, title_key
from confnav.sources.base import SourceRecord

TYPO_SIMILARITY = 0.9  # titles this alike, character by character, differ by a typo or punctuation, not a paper


def _authors(record: SourceRecord) -> set[str]:
    names = record.fields.get("authors") or []
    return {key for a in names if isinstance(a, dict) and (key := name_key(str(a.get("name") or "")))}


def same_paper(new: SourceRecord, known: SourceRecord) -> bool:
    """Whether two records giving one id describe one paper: their titles agree (or nearly, or one only holds a
    place); else not when they name two tracks (track files numbering their papers alike); else when they name the
    same people (one author list within the other, or at least half the names of both: a paper retitled by its
    authors, not a colleague's), or come from different formats and one names no author (submissions beside the
    final list, whose titles may have changed since)."""
    new_title, known_title = str(new.fields.get("title") or ""), str(known.fields.get("title") or "")
    if is_placeholder_title(new_title) or is_placeholder_title(known_title):
        return True
    new_key, known_key = title_key(new_title), title_key(known_title)
    if new_key == known_key or SequenceMatcher(None, new_key, known_key).ratio() >= TYPO_SIMILARITY:
        return True
    tracks = {title_key(str(r.fields.get("track") or "")) for r in (new, known)}
    if len(tracks) == 2 and "" not in tracks:
        return False
    new_authors, known_authors = _authors(new), _authors(known)
    if new_authors and known_authors:  # the same people: one list within the other, or most names of both
        shared = new_authors & known_authors
        return shared in (new_authors, known_authors) or 2 * len(shared) >= len(new_authors | known_authors)
    return new.kind != known.kind


def keep_apart(
    records: Iterable[SourceRecord], stored: Mapping[str, list[SourceRecord]], paths: Mapping[str, str]
) -> None:
    """Give a record whose id already belongs to another paper (see `same_paper`) the id `ID~hash` of its title,
    with a warning, whether that paper came earlier in its file, in another file of this run, or from the store.

    A stored record of the record's own file is not compared: the file's new record replaces it. `paths` maps
    each source to the path its warnings name."""
    known: dict[str, list[SourceRecord]] = defaultdict(list)
    for paper_id, recs in stored.items():
        known[paper_id].extend(r for r in recs if r.fields.get("title"))
    run: set[int] = set()
    for rec in records:
        if rec.id is None or not (title := str(rec.fields.get("title") or "")):
            continue
        others = [k for k in known.get(rec.id, []) if id(k) in run or k.source != rec.source]
        clash = next((k for k in others if not same_paper(rec, k)), None)
        if clash is not None:
            where = "" if clash.source == rec.source else f" in {clash.file_name}"
            message = f"id {rec.id!r} is another paper's too{where}; kept apart"
            rec.warn(paths.get(rec.source, rec.source), message, "id")
            rec.id = f"{rec.id}~{hashlib.sha1(title_key(title).encode()).hexdigest()[:6]}"
        known[rec.id].append(rec)
        run.add(id(rec))
