"""Review histories kept in the store: every version of each review's rating and confidence, and the last text of
each review (a mixin of SqlStore).

A version is keyed by venue, review and the source's time of it, so recording the same version twice (a fetch
run again, a snapshot ingested anew) adds nothing; a text is keyed by venue and review, a newer one replacing it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from confnav.model import ReviewText, ReviewVersion
from confnav.store.connection import Connection

_COLUMNS = "venue, paper_id, review_id, reviewer, modified, rating, confidence, origin"
_TEXT_COLUMNS = "venue, paper_id, review_id, reviewer, kind, modified, fields"


class ReviewTables:
    """Add review versions and texts; read a venue's history and a paper's reviews."""

    conn: Connection
    count_change: Callable[[str], None]  # the store's change counters (derived.py): cached answers see new texts

    def add_review_versions(self, versions: Iterable[ReviewVersion]) -> int:
        """Keep the versions not yet stored, inside the caller's transaction; how many were new."""
        by_venue: dict[str, list[ReviewVersion]] = {}
        for version in versions:
            by_venue.setdefault(version.venue, []).append(version)
        recorded = datetime.now(UTC).isoformat(timespec="seconds")
        added = 0
        for venue, given in by_venue.items():
            known = {
                (row[0], int(row[1]))
                for row in self.conn.execute(
                    "SELECT review_id, modified FROM review_versions WHERE venue = ?", (venue,)
                )
            }
            new = {(v.review_id, v.modified): v for v in given if (v.review_id, v.modified) not in known}
            self.conn.executemany(
                f"INSERT INTO review_versions ({_COLUMNS}, recorded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        v.venue,
                        v.paper_id,
                        v.review_id,
                        v.reviewer,
                        v.modified,
                        v.rating,
                        v.confidence,
                        v.origin,
                        recorded,
                    )
                    for v in sorted(new.values(), key=lambda v: (v.paper_id, v.review_id, v.modified))
                ],  # in the key's order: the table's pages filled as they are written
            )
            added += len(new)
        return added

    def review_versions(self, venue: str, paper_id: str | None = None) -> list[ReviewVersion]:
        """Every stored version of the venue's reviews (of one paper when given), by paper, review and time."""
        where, params = ("venue = ? AND paper_id = ?", (venue, paper_id)) if paper_id else ("venue = ?", (venue,))
        rows = self.conn.execute(
            f"SELECT {_COLUMNS} FROM review_versions WHERE {where} ORDER BY paper_id, review_id, modified", params
        )
        return [ReviewVersion(row[0], row[1], row[2], row[3], int(row[4]), row[5], row[6], row[7]) for row in rows]

    def review_ratings(
        self, venue: str, paper_id: str | None = None, start: int | None = None, end: int | None = None
    ) -> list[tuple[str, str, str, int, float | None]]:
        """(paper, review, reviewer, time, rating) of each stored version of the venue's reviews (of one paper when
        given; from `start` to `end` when given, ms), by paper, review and time: a venue's history as plain rows."""
        where, params = "venue = ?", list[str | int]([venue])
        for clause, value in (("paper_id = ?", paper_id), ("modified >= ?", start), ("modified <= ?", end)):
            if value is not None:
                where, params = f"{where} AND {clause}", [*params, value]
        sql = "SELECT paper_id, review_id, reviewer, modified, rating FROM review_versions"
        return self.conn.execute(f"{sql} WHERE {where} ORDER BY paper_id, review_id, modified", params).fetchall()

    def put_review_texts(self, texts: Iterable[ReviewText]) -> int:
        """Keep each text new to the store or newer than the stored one (a review edited since), inside the
        caller's transaction; how many were written."""
        by_venue: dict[str, dict[str, ReviewText]] = {}
        for text in texts:
            given = by_venue.setdefault(text.venue, {})
            if text.review_id not in given or given[text.review_id].modified < text.modified:
                given[text.review_id] = text
        recorded = datetime.now(UTC).isoformat(timespec="seconds")
        written = 0
        for venue, given in by_venue.items():
            known = {
                row[0]: int(row[1])
                for row in self.conn.execute("SELECT review_id, modified FROM review_texts WHERE venue = ?", (venue,))
            }
            changed = [t for t in given.values() if t.review_id not in known or known[t.review_id] < t.modified]
            self.conn.executemany(
                f"INSERT INTO review_texts ({_TEXT_COLUMNS}, recorded) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(venue, review_id) DO UPDATE SET paper_id = excluded.paper_id,"
                " reviewer = excluded.reviewer, kind = excluded.kind, modified = excluded.modified,"
                " fields = excluded.fields, recorded = excluded.recorded",
                [
                    (t.venue, t.paper_id, t.review_id, t.reviewer, t.kind, t.modified, _fields_json(t), recorded)
                    for t in changed
                ],
            )
            written += len(changed)
        if written:
            self.count_change("review-texts")
        return written

    def review_texts(self, venue: str, paper_id: str) -> list[ReviewText]:
        """The stored texts of one paper's reviews, meta-review and decision comment, by time."""
        rows = self.conn.execute(
            f"SELECT {_TEXT_COLUMNS} FROM review_texts WHERE venue = ? AND paper_id = ? ORDER BY modified, review_id",
            (venue, paper_id),
        )
        return [ReviewText(row[0], row[1], row[2], row[3], row[4], int(row[5]), _fields_of(row[6])) for row in rows]

    def history_venues(self) -> set[str]:
        """The venues whose reviews have a stored history."""
        return {row[0] for row in self.conn.execute("SELECT DISTINCT venue FROM review_versions")}


def _fields_of(stored: str) -> tuple[tuple[str, str], ...]:
    return tuple((str(name), str(text)) for name, text in json.loads(stored))


def _fields_json(text: ReviewText) -> str:
    return json.dumps([list(field) for field in text.fields], ensure_ascii=False)
