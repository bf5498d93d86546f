"""What every citation format says the same way: the kind of work, its proceedings, names split into family and
given parts, the DOI, and keys unique within one export."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from confnav.model import Outcome, Paper, Venue, fold

Kind = Literal["conference", "journal", "unpublished", "other"]

# The proceedings' own titles of common series (booktitle); other venues use their display name.
PROCEEDINGS = {
    "iclr": "International Conference on Learning Representations",
    "neurips": "Advances in Neural Information Processing Systems",
    "icml": "International Conference on Machine Learning",
    "cvpr": "IEEE/CVF Conference on Computer Vision and Pattern Recognition",
    "iccv": "IEEE/CVF International Conference on Computer Vision",
    "eccv": "European Conference on Computer Vision",
    "acl": "Annual Meeting of the Association for Computational Linguistics",
    "emnlp": "Conference on Empirical Methods in Natural Language Processing",
    "naacl": "Conference of the North American Chapter of the Association for Computational Linguistics",
    "corl": "Conference on Robot Learning",
    "aaai": "AAAI Conference on Artificial Intelligence",
    "ijcai": "International Joint Conference on Artificial Intelligence",
    "aistats": "International Conference on Artificial Intelligence and Statistics",
    "uai": "Conference on Uncertainty in Artificial Intelligence",
    "colt": "Conference on Learning Theory",
    "kdd": "ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
    "www": "The ACM Web Conference",
    "siggraph": "ACM SIGGRAPH Conference Proceedings",
}


def booktitle(paper: Paper) -> str:
    """The proceedings a paper appeared in, by its track: Findings of an ACL conference are their own volume
    ("Findings of the Association for Computational Linguistics: ACL 2022"), a workshop track is its own."""
    try:
        proceedings = PROCEEDINGS.get(Venue.parse(paper.venue).conference, paper.venue_name)
    except ValueError:  # an id that names no conference and year
        proceedings = paper.venue_name
    if paper.decision.kind == "findings":
        return f"Findings of the Association for Computational Linguistics: {paper.venue_name}"
    if paper.decision.outcome is Outcome.WORKSHOP:
        return f"{proceedings}, Workshop Track"
    return proceedings


def is_published(paper: Paper) -> bool:
    """Whether the venue published the paper: accepted, invited to a workshop track, or of unknown decision (a
    list of accepted papers); a rejected or withdrawn paper was only submitted there."""
    return paper.decision.accepted or paper.decision.outcome in (Outcome.UNKNOWN, Outcome.WORKSHOP)


def kind_of(paper: Paper) -> Kind:
    """The kind of work to cite: a conference paper, a journal paper the venue presented (TACL, TOG), an
    unpublished submission, or a work of no stored venue (a person's own text: kept as they gave it)."""
    if not paper.venue:
        return "other"
    if not is_published(paper):
        return "unpublished"
    return "journal" if paper.decision.kind == "journal" else "conference"


def submission_note(paper: Paper) -> str:
    """Where an unpublished paper was submitted, and what became of it."""
    return f"Submitted to {paper.venue_name} ({paper.decision.name})"


def note_of(paper: Paper) -> str:
    """A paper's note: where an unpublished paper was submitted or a journal paper presented. The reader's own
    note goes apart, where reference managers keep a person's notes (BibTeX and CSL `annote`, a RIS `N1` line of
    its own), so that importing the file gives it back as a note."""
    return {"unpublished": submission_note(paper), "journal": f"Presented at {paper.venue_name}"}.get(
        kind_of(paper), ""
    )


def notes_for(papers: list[Paper], notes: Sequence[str] | None) -> list[str]:
    """The reader's note of each paper, in order (none when no notes were given)."""
    return list(notes) if notes is not None else [""] * len(papers)


@dataclass(frozen=True)
class Name:
    """A person's name in the parts citation formats ask for; `family` holds a particle (`van der`) too."""

    family: str
    given: str = ""
    suffix: str = ""


_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}


def split_name(name: str) -> Name:
    """A name as written ("Given von Family", or "Family, Given") split as BibTeX does: the family name is the
    last word with the lower-case words before it; a generational suffix (`Jr.`) is kept apart."""
    if "," in name:
        family, _, given = name.partition(",")
        return Name(" ".join(family.split()), " ".join(given.split()))
    words = name.split()
    suffix = ""
    if len(words) > 2 and words[-1].lower() in _SUFFIXES:
        suffix = words.pop()
    if len(words) < 2:
        return Name(" ".join(words), "", suffix)
    start = next((i for i in range(1, len(words) - 1) if words[i][0].islower()), len(words) - 1)
    return Name(" ".join(words[start:]), " ".join(words[:start]), suffix)


_DOI = re.compile(r"10\.\d{4,9}/\S+$")


def doi(paper: Paper) -> str | None:
    """The paper's DOI, bare (`10.18653/v1/2022.acl-long.1`), from its DOI link."""
    match = _DOI.search(paper.links.get("doi", ""))
    return match.group(0) if match else None


_ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5})", re.I)


def arxiv_id(paper: Paper) -> str | None:
    """The paper's arXiv id (`2010.11929`), from any of its links."""
    return next((m.group(1) for link in paper.links.values() if (m := _ARXIV.search(link))), None)


def bibtex_key(paper: Paper) -> str:
    """A citation key from the first author's family name ("Family, Given" or "Given Family"; the last word of a
    family name with a particle), the year and the title's first long word."""
    family = fold(split_name(paper.authors[0].name).family).split() if paper.authors else []
    last = family[-1] if family else "anon"
    word = next((w for w in fold(paper.title).split() if len(w) > 3), "paper")
    return re.sub(r"[^a-z0-9]", "", f"{last}{paper.year}{word}") or "paper"


def unique_keys(papers: list[Paper]) -> list[str]:
    """One key a paper, in list order: a key two papers share gets `a`, `b`, … appended."""
    keys = [bibtex_key(p) for p in papers]
    shared = {k for k, n in Counter(keys).items() if n > 1}
    seen: dict[str, int] = {}
    unique = []
    for k in keys:
        seen[k] = seen.get(k, 0) + 1
        unique.append(f"{k}{_suffix(seen[k])}" if k in shared else k)
    return unique


def _suffix(n: int) -> str:
    """`a` … `z`, `aa`, `ab`, …: the n-th (1-based) of papers sharing a key."""
    letters = ""
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(97 + rest) + letters
    return letters
