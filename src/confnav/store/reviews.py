"""Review histories kept in the store: every version of each review's rating and confidence (a mixin of SqlStore).

A version is keyed by venue, review and the source's time of it, so recording the same version twice (a fetch
run again, a snapshot ingested anew) adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from confnav.model import ReviewVersion
from confnav.store.connection import Connection

_COLUMNS = "venue, paper_id, review_id, reviewer, modified, rating, confidence, origin"


class ReviewTables:
    """Add review versions and read a venue's history."""

    conn: Connection

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
                    for v in new.values()
                ],
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

    def history_venues(self) -> set[str]:
        """The venues whose reviews have a stored history."""
        return {row[0] for row in self.conn.execute("SELECT DISTINCT venue FROM review_versions")}
