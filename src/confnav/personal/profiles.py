"""Import a researcher's library into a profile: entries matched to stored papers by id, DOI, arXiv id or
title; the rest kept as the profile's own texts. Also export a profile back to a library format."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from confnav.errors import NotFoundError
from confnav.model import Paper, title_key
from confnav.personal.formats import Entry, Parsed, ids_in, read_library
from confnav.store.profiles import ProfileItem
from confnav.store.protocols import PaperReader, ProfileStore

DEFAULT_PROFILE = "me"


class ProfilePapers(PaperReader, ProfileStore, Protocol):
    """What profiles need of a store: papers to match and the profile tables."""


@dataclass
class ImportReport:
    """What an import did: entries matched to stored papers, kept as own texts, and those skipped with why."""

    profile: str
    matched: int = 0
    own: int = 0
    added: int = 0
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "matched": self.matched,
            "own": self.own,
            "added": self.added,
            "problems": self.problems,
        }


class PaperIndex:
    """Stored papers by id, DOI, arXiv id and normalised title, to match library entries against."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self.by_key: dict[str, Paper] = {}
        for paper in papers:
            found = ids_in(*paper.links.values())
            keys = [
                paper.id.lower(),
                *(f"{k}:{v.lower()}" for k, v in found.items()),
                f"title:{title_key(paper.title)}",
            ]
            for key in keys:
                self.by_key.setdefault(key, paper)

    def match(self, entry: Entry) -> Paper | None:
        ids = entry.identifiers()
        keys = [f"{k}:{v.lower()}" for k, v in ids.items() if k != "id"]
        keys += [v.lower() for k, v in ids.items() if k in ("id", "openreview")]
        if entry.title:
            keys.append(f"title:{title_key(entry.title)}")
        return next((self.by_key[k] for k in keys if k in self.by_key), None)


def import_library(store: ProfilePapers, paths: Sequence[Path], profile: str = DEFAULT_PROFILE) -> ImportReport:
    """Read every file first (a file that is no library stops the import with nothing written), then match its
    entries and add them to the profile; unreadable or unmatched id-only entries are reported per line."""
    return import_entries(store, [(path.name, read_library(path)) for path in paths], profile)


def import_entries(store: ProfilePapers, sources: Sequence[tuple[str, Parsed]], profile: str) -> ImportReport:
    """Entries read from named sources (files, or a person's papers from a live service) matched to stored papers
    by id, DOI, arXiv id or title; the rest with a title kept as own texts, all added in one write."""
    index = PaperIndex(store.iter_papers())
    report = ImportReport(profile)
    items: list[ProfileItem] = []
    for source, library in sources:
        report.problems += library.problems
        for entry in library.entries:
            paper = index.match(entry)
            data: dict[str, object] = {**entry.identifiers(), "source": source}
            if paper is not None:
                report.matched += 1
                items.append(ProfileItem(paper.title, None, paper.year or None, paper.venue, paper.id, data))
            elif entry.title:
                report.own += 1
                data["fields"] = {k: v for k, v in entry.fields.items() if isinstance(v, str | int | float | list)}
                items.append(ProfileItem(entry.title, entry.abstract, entry.year, None, None, data))
            else:
                named = ", ".join(f"{k} {v}" for k, v in entry.identifiers().items())
                report.problems.append(f"{source}: line {entry.line}: no paper in the store with {named}")
    report.added = store.add_profile_items(profile, items)
    return report


def mark(store: ProfilePapers, profile: str, paper_ids: Sequence[str], how: str) -> list[Paper]:
    """Like or dislike stored papers (ids in any case, or OpenReview links); every one is checked before any is
    marked."""
    papers = [store.profile_paper(ref) for ref in paper_ids]  # NotFoundError names an unknown id; nothing marked
    return [store.mark_paper(profile, paper.id, how, paper.venue) for paper in papers]


def _authors(store: ProfilePapers, item: ProfileItem) -> list[str]:
    if item.paper_id:
        try:
            return [a.name for a in store.get_paper(item.paper_id, item.venue).authors]
        except NotFoundError:
            return []
    names = item.data.get("fields", {}).get("author")
    if isinstance(names, str):
        return [n.strip() for n in re.split(r"\s+and\s+", names) if n.strip()]
    return []


def _bib_value(text: str) -> str:
    return text.replace("{", "(").replace("}", ")")


def export_profile(store: ProfilePapers, profile: str, fmt: str) -> str:
    """The profile's items and the papers it liked, noted or tagged, as BibTeX, RIS or CSL-JSON; notes go to
    BibTeX `note`, RIS `N1`, CSL `note`, tags to `keywords`, `KW`, `keyword`."""
    items = store.profile_items(profile)
    notes, tags = store.profile_notes(profile), store.profile_tags(profile)
    have = {(i.venue, i.paper_id) for i in items}
    liked = [(venue, paper_id) for venue, paper_id, how in store.profile_marks(profile) if how == "like"]
    for venue, paper_id in [*liked, *notes, *tags]:
        if (venue, paper_id) not in have:
            have.add((venue, paper_id))
            paper = store.get_paper(paper_id, venue)
            items.append(ProfileItem(paper.title, None, paper.year or None, venue, paper_id, {}))
    records = []
    for n, item in enumerate(items, start=1):
        url = f"https://openreview.net/forum?id={item.data['openreview']}" if item.data.get("openreview") else None
        key = (item.venue or "", item.paper_id or "")
        records.append((n, item, _authors(store, item), url, notes.get(key, ""), tags.get(key, [])))
    if fmt == "csl-json":
        return json.dumps(
            [
                {
                    "id": item.paper_id or f"item{n}",
                    "type": "paper-conference" if item.paper_id else "article",
                    "title": item.title,
                    **({"author": [{"literal": a} for a in authors]} if authors else {}),
                    **({"issued": {"date-parts": [[item.year]]}} if item.year else {}),
                    **({"abstract": item.abstract} if item.abstract else {}),
                    **({"DOI": item.data["doi"]} if item.data.get("doi") else {}),
                    **({"URL": url} if url else {}),
                    **({"note": note} if note else {}),
                    **({"keyword": ", ".join(tagged)} if tagged else {}),
                }
                for n, item, authors, url, note, tagged in records
            ],
            indent=2,
            ensure_ascii=False,
        )
    out = []
    for n, item, authors, url, note, tagged in records:
        fields = {
            "title": item.title,
            "author": " and ".join(authors),
            "year": str(item.year or ""),
            "abstract": item.abstract or "",
            "doi": item.data.get("doi", ""),
            "eprint": item.data.get("arxiv", ""),
            "url": url or "",
            "note": note,
            "keywords": ", ".join(tagged),
        }
        fields = {k: v for k, v in fields.items() if v}
        if fmt == "ris":
            names = {"title": "TI", "year": "PY", "abstract": "AB", "doi": "DO", "url": "UR", "note": "N1"}
            lines = ["TY  - CPAPER" if item.paper_id else "TY  - GEN"]
            lines += [f"AU  - {a}" for a in authors]
            lines += [f"{names[k]}  - {' '.join(v.split())}" for k, v in fields.items() if k in names]
            lines += [f"KW  - {' '.join(t.split())}" for t in tagged]
            out.append("\n".join([*lines, "ER  - ", ""]))
        else:
            cite = re.sub(r"\W", "", item.paper_id or "") or f"item{n}"
            body = ",\n".join(f"  {k} = {{{_bib_value(' '.join(v.split()))}}}" for k, v in fields.items())
            out.append(f"@{'inproceedings' if item.paper_id else 'misc'}{{{cite},\n{body}\n}}\n")
    return "\n".join(out)
