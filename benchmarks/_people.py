"""Researchers who published at an earlier and a later venue of the shared data, and a store where the later
venue has no author names (so only content can find their papers): the data of benchmarks/recommend_eval.py
(earlier venues up to ICLR 2020, later ICLR 2021) and of benchmarks/fit_taste.py (up to 2018, later ICLR 2020)."""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from _util import DATA


@dataclass(frozen=True)
class Split:
    """Earlier venues (venue id -> paperlists file: the profiles are built from these papers) and a later one
    (its paperlists file gives statuses and authors; it is stored without authors, with its other files)."""

    earlier: dict[str, Path]
    later: str
    later_list: Path
    later_files: tuple[Path, ...] = ()  # the later venue's other files (an `authors` column is removed)


EARLIER = {
    "iclr2018": DATA / "paperlists" / "iclr2018.json",
    "neurips2018": DATA / "paperlists" / "nips2018.json",
    "iclr2020": DATA / "iclr2020" / "paperlists-iclr2020.json",
}
# Other files of an earlier venue, ingested with its paper list: the abstracts of ICLR 2020's accepted papers
# (its paper list has none), so that a profile holds what a researcher's library would.
ABSTRACTS = {"iclr2020": (DATA / "miniconf" / "iclr2020" / "papers.csv",)}
EVALUATED = Split(
    EARLIER,
    "iclr2021",
    DATA / "iclr2021" / "paperlists-iclr2021.json",
    (DATA / "iclr2021" / "paperlist.tsv", DATA / "iclr2021" / "ratings.tsv"),
)
FITTED = Split(
    {k: EARLIER[k] for k in ("iclr2018", "neurips2018")}, "iclr2020", EARLIER["iclr2020"], ABSTRACTS["iclr2020"]
)
LATER = EVALUATED.later
AUTHOR_FIELDS = ("author", "authorids", "aff", "aff_domain", "position", "email", "author_site")
ACCEPTED = ("Oral", "Spotlight", "Poster", "Talk")


def name_key(name: str) -> str:
    """A person's name folded for matching across venues: accents, case, spaces and punctuation dropped."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z]", "", folded)


def _authors(record: dict[str, object]) -> list[tuple[str, str | None]]:
    """(name key, OpenReview profile id or None) of each author of a paperlists record."""
    names = [n.strip() for n in str(record.get("author") or "").split(";")]
    ids = [i.strip() for i in str(record.get("authorids") or "").split(";")]
    found = []
    for i, name in enumerate(names):
        if name:
            profile = ids[i] if i < len(ids) and ids[i].startswith("~") else None
            found.append((name_key(name), profile))
    return found


@dataclass
class Person:
    """One researcher: their earlier papers (venue, id) and their accepted later papers (ids)."""

    key: str
    earlier: list[tuple[str, str]] = field(default_factory=list)
    later: list[str] = field(default_factory=list)


def people(split: Split = EVALUATED) -> list[Person]:
    """Everyone with an earlier paper and an accepted later one, matched by OpenReview profile id where both
    venues give one, else by normalised name; sorted by key."""
    found: dict[str, Person] = {}
    profile_of_name: dict[str, str] = {}
    shared: set[str] = set()  # names two later profiles share: whose earlier papers they are is unknown
    later = json.loads(split.later_list.read_text(encoding="utf-8"))
    for record in later:
        if record.get("status") not in ACCEPTED:
            continue
        for key, profile in _authors(record):
            person = found.setdefault(profile or key, Person(profile or key))
            if record["id"] not in person.later:
                person.later.append(record["id"])
            if profile and profile_of_name.setdefault(key, profile) != profile:
                shared.add(key)
    earlier: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for venue, path in split.earlier.items():
        for record in json.loads(path.read_text(encoding="utf-8")):
            if not record.get("id"):
                continue
            for key, profile in _authors(record):
                if key in shared:
                    continue
                who = profile if profile and profile in found else profile_of_name.get(key, key)
                earlier[who].append((venue, str(record["id"])))
    chosen = []
    for who, person in sorted(found.items()):
        if earlier.get(who):
            person.earlier = sorted(set(earlier[who]))
            chosen.append(person)
    return chosen


def anonymous_later(folder: Path, split: Split) -> list[Path]:
    """The later venue's files with every author field of its paper list removed."""
    records = json.loads(split.later_list.read_text(encoding="utf-8"))
    for record in records:
        for name in AUTHOR_FIELDS:
            record.pop(name, None)
    path = folder / split.later_list.name
    path.write_text(json.dumps(records), encoding="utf-8")
    return [*(_without_authors(folder, file) for file in split.later_files), path]


def _without_authors(folder: Path, file: Path) -> Path:
    """A CSV file with its `authors` column dropped (written under `folder`, in a folder of the same name as the
    file's, which names its venue); any other file as it is."""
    if file.suffix != ".csv":
        return file
    with file.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or "authors" not in rows[0]:
        return file
    copy = folder / file.parent.name / file.name
    copy.parent.mkdir(exist_ok=True)
    with copy.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, [name for name in rows[0] if name != "authors"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return copy


def build_store(folder: Path, split: Split = EVALUATED) -> Path:
    """The earlier venues (with authors) and the later one (without), indexed with the default semantic model;
    built once and kept in `folder` for reruns."""
    from confnav.embed import choose_embedder
    from confnav.index import build_index
    from confnav.ingest import ingest
    from confnav.store import SqliteStore

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "people.db"
    done = folder / "people.done"
    if done.exists() and path.exists():
        return path
    path.unlink(missing_ok=True)
    with SqliteStore(path) as store:
        for venue, file in split.earlier.items():
            ingest(store, [file, *ABSTRACTS.get(venue, ())])
        ingest(store, anonymous_later(folder, split))
        embedder, notice = choose_embedder()
        if notice:
            raise SystemExit(f"the semantic model is needed: {notice}")
        build_index(store, embedder)
    done.write_text("ok\n", encoding="utf-8")
    return path
