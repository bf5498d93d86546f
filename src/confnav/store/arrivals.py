"""Decisions that arrived: each fetch of a venue, and the papers it found decided that were pending when the
store last had them (a mixin of SqlStore), so that `confnav venues` and the venue page can say what a fetch
decided."""

from __future__ import annotations

from collections.abc import Sequence

from confnav.model import DecisionsArrived
from confnav.store.connection import Connection


class ArrivalTables:
    """Keep a fetch's arrived decisions (inside the ingest's transaction) and its run; read each venue's latest."""

    conn: Connection

    def put_arrivals(self, venue: str, fetched: str, decided: Sequence[tuple[str, str, str]]) -> None:
        """Keep (paper id, label before, label now) of papers a fetch found decided (call inside a transaction)."""
        self.conn.executemany(
            "INSERT INTO decisions_arrived (venue, fetched, paper_id, previous, decision) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (venue, fetched, paper_id) DO UPDATE SET decision = excluded.decision",
            [(venue, fetched, paper_id, before, after) for paper_id, before, after in decided],
        )

    def put_fetch_run(self, venue: str, fetched: str) -> None:
        """Record that a fetch of the venue ended at `fetched` (call inside a transaction)."""
        self.conn.execute(
            "INSERT INTO fetch_runs (venue, fetched) VALUES (?, ?) ON CONFLICT (venue, fetched) DO NOTHING",
            (venue, fetched),
        )

    def decisions_arrived(self, venue: str | None = None) -> dict[str, DecisionsArrived]:
        """Per fetched venue (or only `venue`): its latest fetch and the decisions it brought, by paper id."""
        where, params = ("WHERE venue = ?", (venue,)) if venue else ("", ())
        runs: dict[str, list[str]] = {}
        for name, fetched in self.conn.execute(
            f"SELECT venue, fetched FROM fetch_runs {where} ORDER BY venue, fetched DESC", params
        ):
            if len(runs.setdefault(name, [])) < 2:
                runs[name].append(fetched)
        found: dict[str, DecisionsArrived] = {}
        for name, (latest, *before) in runs.items():
            rows = self.conn.execute(
                "SELECT a.paper_id, COALESCE(p.title, a.paper_id), a.decision FROM decisions_arrived a"
                " LEFT JOIN papers p ON p.venue = a.venue AND p.id = a.paper_id"
                " WHERE a.venue = ? AND a.fetched = ? ORDER BY a.decision, a.paper_id",
                (name, latest),
            ).fetchall()
            papers = tuple((str(i), str(t), str(d)) for i, t, d in rows)
            found[name] = DecisionsArrived(name, latest, before[0] if before else None, papers)
        return found
