"""Import a researcher's library into a profile: entries matched to stored papers by id, DOI, arXiv, OpenReview
or ACL Anthology id, or title (of two stored papers of one title, the one the entry's ids, year and venue agree
with); the rest kept as the profile's own texts. Also export a profile back to a library format."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from confnav.errors import ConfnavError, NotFoundError
from confnav.export import PROCEEDINGS, export_papers
from confnav.export.fields import note_of
from confnav.model import Author, Paper, Venue, fold, title_key
from confnav.personal.formats import Entry, Parsed, ids_in, latex_text, read_library
from confnav.store.profiles import ProfileItem
from confnav.store.protocols import PaperReader, ProfileStore

DEFAULT_PROFILE = "me"
ID_NAMES = {"acl": "ACL Anthology id"}  # how a problem names an id kind (the others by their own name)


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
    """Stored papers by id, DOI, arXiv, OpenReview and ACL Anthology id and normalised title, to match library
    entries against; papers sharing a key (one title at two venues) are told apart by what the entry says."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self.by_key: dict[str, list[tuple[Paper, dict[str, str]]]] = {}
        for paper in papers:
            found = ids_in(*paper.links.values(), paper.id)  # an id that is an Anthology id names it too
            keys = [
                paper.id.lower(),
                *(f"{k}:{v.lower()}" for k, v in found.items()),
                f"title:{title_key(paper.title)}",
            ]
            if (decoded := latex_text(paper.title)) != paper.title:  # `$\alpha$VIL` as a library reads it: `αVIL`
                keys.append(f"title:{title_key(decoded)}")
            for key in dict.fromkeys(keys):
                self.by_key.setdefault(key, []).append((paper, found))

    def match(self, entry: Entry) -> Paper | None:
        """The stored paper an entry names: by DOI, arXiv, OpenReview or ACL Anthology id, by paper id (exact,
        else as a one-word title), else by title; of several, the one whose ids, year and venue agree most."""
        ids = entry.identifiers()
        keys = [f"{k}:{v.lower()}" for k, v in ids.items() if k != "id"]
        keys += [v.lower() for k, v in ids.items() if k in ("id", "openreview")]
        keys += [f"title:{title_key(v)}" for k, v in ids.items() if k == "id"]
        if entry.title:
            keys.append(f"title:{title_key(entry.title)}")
        found = next((self.by_key[k] for k in keys if k in self.by_key), None)
        if found is None:
            return None
        venue = " ".join(str(v) for k in VENUE_FIELDS for v in _values(entry.fields.get(k)))
        return max(found, key=lambda held: _agreement(entry, venue, *held))[0]  # the first stored of equals


# Where a library names the venue of a work: BibTeX, RIS, CSL-JSON and Semantic Scholar fields.
VENUE_FIELDS: tuple[str, ...] = ("booktitle", "journal", "series", "eventtitle", "venue", "T2", "JO", "JF", "BT")
VENUE_FIELDS += ("T3", "container-title", "event", "event-title", "collection-title")


def _values(value: object) -> list[object]:
    return value if isinstance(value, list) else [value] if value else []


def _agreement(entry: Entry, venue: str, paper: Paper, ids: dict[str, str]) -> int:
    """How far a stored paper agrees with an entry: each id of a kind both have (+2 same, -2 other), the year
    (+1 same, -1 other) and the venue the entry names (+1)."""
    score = sum((2 if ids[k].lower() == v.lower() else -2) for k, v in entry.identifiers().items() if k in ids)
    if entry.identifiers().get("id", "").lower() == paper.id.lower():
        score += 2
    if entry.year and paper.year:
        score += 1 if entry.year == paper.year else -1
    return score + (1 if venue and names_venue(venue, paper.venue) else 0)


def names_venue(text: str, venue: str) -> bool:
    """Whether a library's venue text names a stored venue's conference: its short name as a word (`EMNLP`,
    `ICLR 2020`) or its proceedings' title (`Conference on Empirical Methods in Natural Language Processing`)."""
    try:
        conference = Venue.parse(venue).conference
    except ValueError:
        return False
    folded = f" {fold(text)} "
    proceedings = fold(PROCEEDINGS.get(conference, ""))
    return f" {conference} " in folded or bool(proceedings and proceedings in folded)


def import_library(store: ProfilePapers, paths: Sequence[Path], profile: str = DEFAULT_PROFILE) -> ImportReport:
    """Read every file first (a file that is no library stops the import with nothing written), then match its
    entries and add them to the profile; unreadable or unmatched id-only entries are reported per line."""
    return import_entries(store, [(path.name, read_library(path)) for path in paths], profile)


def import_entries(store: ProfilePapers, sources: Sequence[tuple[str, Parsed]], profile: str) -> ImportReport:
    """Entries read from named sources (files, or a person's papers from a live service) matched to stored papers
    by id, DOI, arXiv id or title; the rest with a title kept as own texts; a matched paper's note (where the
    profile has none on it) and tags as the library gives them; all added in one write."""
    index = PaperIndex(store.iter_papers())
    report = ImportReport(profile)
    items: list[ProfileItem] = []
    annotated: list[tuple[Paper, Entry, str]] = []
    for source, library in sources:
        report.problems += library.problems
        for entry in library.entries:
            paper = index.match(entry)
            data: dict[str, object] = {**entry.identifiers(), "source": source}
            if paper is not None:
                report.matched += 1
                items.append(ProfileItem(paper.title, None, paper.year or None, paper.venue, paper.id, data))
                if entry.notes or entry.tags:
                    annotated.append((paper, entry, source))
            elif entry.title:
                report.own += 1
                data["fields"] = {k: v for k, v in entry.fields.items() if isinstance(v, str | int | float | list)}
                items.append(ProfileItem(entry.title, entry.abstract, entry.year, None, None, data))
            elif named := ", ".join(f"{ID_NAMES.get(k, k)} {v}" for k, v in entry.identifiers().items()):
                report.problems.append(f"{source}: line {entry.line}: no paper in the store with {named}, skipped")
            else:
                report.problems.append(f"{source}: line {entry.line}: an entry with neither a title nor an id, skipped")
    with store.transaction():
        report.added = store.add_profile_items(profile, items)
        _annotate(store, profile, annotated, report)
    return report


def _annotate(
    store: ProfilePapers, profile: str, annotated: list[tuple[Paper, Entry, str]], report: ImportReport
) -> None:
    """Keep each matched entry's note (not the one an export derives from the data, "Submitted to …"; never over
    a note the profile has) and its tags; a tag the profile cannot keep is reported with its entry's line."""
    noted = store.profile_notes(profile)
    for paper, entry, source in annotated:
        note = " ".join(n for n in entry.notes if n != note_of(paper))
        if note and (paper.venue, paper.id) not in noted:
            store.note_paper(profile, paper.id, note, paper.venue)
            noted[(paper.venue, paper.id)] = note
        for tag in entry.tags:
            try:
                store.tag_paper(profile, paper.id, tag, paper.venue)
            except ConfnavError as exc:
                report.problems.append(f"{source}: line {entry.line}: {exc}, not kept")


def mark(store: ProfilePapers, profile: str, paper_ids: Sequence[str], how: str) -> list[Paper]:
    """Like or dislike stored papers (ids in any case, or OpenReview links); every one is checked before any is
    marked."""
    papers = [store.profile_paper(ref) for ref in paper_ids]  # NotFoundError names an unknown id; nothing marked
    return [store.mark_paper(profile, paper.id, how, paper.venue) for paper in papers]


def own_authors(fields: dict[str, object]) -> list[str]:
    """The authors of an own text as its library gave them: BibTeX `author` ("A and B", TeX decoded), RIS `AU`
    or `A1` lines, or CSL `author` names ({family, given} or {literal})."""
    names = fields.get("author")
    if isinstance(names, str):
        return [n.strip() for n in re.split(r"\s+and\s+", latex_text(names)) if n.strip()]
    if isinstance(names, list) and all(isinstance(n, dict) for n in names):
        parts = [n.get("literal") or ", ".join(str(n[k]) for k in ("family", "given") if n.get(k)) for n in names]
        return [str(p) for p in parts if p]
    for tag in ("AU", "A1"):
        found = fields.get(tag)
        if found:
            return [str(n) for n in (found if isinstance(found, list) else [found])]
    return []


def _own_paper(item: ProfileItem) -> Paper:
    """An own text as a paper of no venue, for export: its authors, year, abstract and its ids as links."""
    ids, fields = item.data, item.data.get("fields", {})
    links = {
        "forum": f"https://openreview.net/forum?id={ids['openreview']}" if ids.get("openreview") else "",
        "abstract": f"https://arxiv.org/abs/{ids['arxiv']}" if ids.get("arxiv") else "",
        "doi": f"https://doi.org/{ids['doi']}" if ids.get("doi") else "",
    }
    authors = [Author(name) for name in own_authors(fields if isinstance(fields, dict) else {})]
    kept = {k: v for k, v in links.items() if v}
    return Paper("", "", item.title, item.abstract, authors, links=kept, year=item.year or 0)


def export_profile(store: ProfilePapers, profile: str, fmt: str) -> str:
    """The profile's items and the papers it liked, noted or tagged, in a citation format (as `confnav export`
    writes papers); its notes go to each entry's note, its tags are the entry's keywords."""
    items = store.profile_items(profile)
    notes, tags = store.profile_notes(profile), store.profile_tags(profile)
    liked = [(venue, paper_id) for venue, paper_id, how in store.profile_marks(profile) if how == "like"]
    held = [(i.venue, i.paper_id) for i in items if i.paper_id and i.venue]
    papers: list[Paper] = []
    for venue, paper_id in dict.fromkeys([*held, *liked, *notes, *tags]):  # each stored paper once, in order
        try:
            papers.append(store.get_paper(paper_id, venue))
        except NotFoundError:  # a paper since removed from the store: nothing to export of it
            continue
    papers += [_own_paper(i) for i in items if not (i.paper_id and i.venue)]
    said = [notes.get((p.venue, p.id), "") for p in papers]
    tagged = [replace(p, keywords=tags.get((p.venue, p.id), [])) for p in papers]
    return export_papers(tagged, fmt, said)
