"""The store's view of decisions and ratings across venues: the user's decision table, the decision names
papers have, and each venue's rating scale."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import TypeVar

from confnav.decisions import DecisionTable, default_meaning
from confnav.errors import ConfnavError, argument, excerpt
from confnav.model import Decision, Outcome, Paper, RatingScale, is_placeholder_title
from confnav.store.base import StoreCaches
from confnav.store.connection import Connection

T = TypeVar("T")


class DecisionTables:
    """Mixin for SqliteStore; `conn` is the store's connection, `paper_rows` its cached papers."""

    conn: Connection
    rating_values_sql = ""  # a backend's SQL for the distinct (venue, rating) pairs in the papers' JSON
    decision_json_sql = ""  # a backend's SQL for a paper's decision label and kind in its JSON (`data`)

    paper_rows: Callable[..., Iterator[tuple[int, Paper]]]  # provided by SqlStore
    caches: StoreCaches
    generation: Callable[[], int]
    venue_generation: Callable[[str], int]
    venue_generations: Callable[[Sequence[str]], dict[str, int]]

    def _memo(self, key: tuple[object, ...], compute: Callable[[], T]) -> T:
        """A value derived from every paper, computed once per store generation (they are full scans)."""
        memos = self.caches.memos
        generation = self.generation()
        hit = memos.get(key)
        if hit is None or hit[0] != generation:
            hit = memos[key] = (generation, compute())
        return hit[1]  # type: ignore[return-value]

    def decision_table(self) -> DecisionTable:
        """The default decision table with the user's stored overrides."""
        return DecisionTable.from_rows(self.conn.execute("SELECT scope, label, outcome, kind FROM decision_overrides"))

    def paper_decisions(self, venue: str, paper_id: str | None = None) -> dict[str, tuple[str, Decision]]:
        """Each paper's title and decision (of one paper when given), read from the papers' columns and the
        decision in their JSON without loading a paper: what a venue-wide report shows of thousands of papers."""
        sql = f"SELECT id, title, {self.decision_json_sql}, outcome, tier FROM papers WHERE venue = ?"
        params = (venue, paper_id) if paper_id is not None else (venue,)
        rows = self.conn.execute(sql + (" AND id = ?" if paper_id is not None else ""), params)
        table, known = DecisionTable(), dict[tuple[str, str | None, str, int], Decision]()
        found = {}
        for found_id, title, label, kind, outcome, tier in rows:
            decision = known.get((label, kind, outcome, tier))
            if decision is None:  # a bare label (papers written before decisions were open) classified as on load
                decision = table.classify(label) if kind is None else Decision(label, Outcome(outcome), kind, tier)
                known[(label, kind, outcome, tier)] = decision
            found[found_id] = (title, decision)
        return found

    def put_decision_overrides(self, table: DecisionTable) -> None:
        """Replace the stored overrides of every scope `table` names (inside a transaction)."""
        for scope in table.overrides:
            self.conn.execute("DELETE FROM decision_overrides WHERE scope = ?", (scope,))
        self.conn.executemany(
            "INSERT INTO decision_overrides (scope, label, outcome, kind) VALUES (?, ?, ?, ?)", table.rows()
        )

    def decision_counts(self, venue: str) -> list[tuple[Decision, int]]:
        """How many papers of a venue carry each decision, placeholders (`withdraw`, `title`) left out, counted
        from the stored columns without reading a paper (its name, outcome and tier determine every count and rate
        the reports show)."""
        sql = "SELECT decision, outcome, tier, title FROM papers WHERE venue = ? ORDER BY pk"
        rows = self.conn.execute(sql, (venue,))
        counts: dict[tuple[str, str], tuple[int, int]] = {}  # in order of first paper: tier, papers
        for name, outcome, tier, title in rows:
            if not is_placeholder_title(title):
                lowest, n = counts.get((name, outcome), (tier, 0))
                counts[(name, outcome)] = (min(lowest, tier), n + 1)
        return [(Decision(name, Outcome(outcome), name, tier), n) for (name, outcome), (tier, n) in counts.items()]

    def decision_labels(self, venue: str | None = None) -> list[dict[str, object]]:
        """Each venue's decision labels as the sources give them, what they mean, how many papers (placeholder
        records left out, as every count), and whether the meaning is the user's (an override) or the default
        table's."""
        return self._memo(("labels", venue), lambda: self._decision_labels(venue))

    def _decision_labels(self, venue: str | None) -> list[dict[str, object]]:
        counts: dict[tuple[str, str, str, str, str], int] = {}
        tiers: dict[tuple[str, str, str, str, str], int] = {}
        for _, paper in self.paper_rows(venue):
            if paper.placeholder:
                continue
            d = paper.decision
            key = (paper.venue, d.label, d.outcome.value, d.name, d.kind)
            counts[key] = counts.get(key, 0) + 1
            tiers[key] = d.tier
        rows = []
        for key in sorted(counts, key=lambda k: (k[0], tiers[k], -counts[k], k[1])):
            venue_id, label, outcome, name, kind = key
            default = default_meaning(label)
            mine = (default[0].value, default[1]) != (outcome, kind) and outcome != Outcome.OTHER
            rows.append(
                {
                    "venue": venue_id,
                    "label": label,
                    "outcome": outcome,
                    "decision": name,
                    "papers": counts[key],
                    "source": "override" if mine else "default",
                }
            )
        return rows

    def rating_scales(self, venues: Collection[str] | None = None) -> dict[str, RatingScale]:
        """Each venue's rating scale as its data shows it (venues without ratings left out); of these venues only,
        when given, each counted again only after its own papers change (a search after a write shows few)."""
        if venues is None:
            return self._memo(("scales",), self._rating_scales)
        memos, asked = self.caches.memos, sorted(set(venues))
        if not asked:
            return {}
        generations = self.venue_generations(asked)  # one read for all of them, and one for the stale ones
        stale = [v for v in asked if (hit := memos.get(("scale", v))) is None or hit[0] != generations[v]]
        if stale:
            counted = self._rating_scales(stale)
            for venue in stale:
                memos[("scale", venue)] = (generations[venue], counted.get(venue))
        return {v: scale for v in asked if isinstance(scale := memos[("scale", v)][1], RatingScale)}

    def _rating_scales(self, venues: Collection[str] | None = None) -> dict[str, RatingScale]:
        """The scales of these venues (None: of every venue), counted now."""
        if self.rating_values_sql:  # the distinct (venue, rating) pairs, read inside the database
            sql, params = self.rating_values_sql, list(venues or ())
            if venues is not None:
                sql += f" WHERE venue IN ({', '.join('?' * len(params))})"
            found: dict[str, list[float]] = {}
            for name, value in self.conn.execute(sql, params):
                found.setdefault(name, []).append(float(value))
            return {name: RatingScale.of(values) for name, values in found.items()}
        if venues is None:
            return self._rating_scales_in_python()
        return {name: scale for v in venues for name, scale in self._rating_scales_in_python(v).items()}

    def _rating_scales_in_python(self, venue: str | None = None) -> dict[str, RatingScale]:
        ratings: dict[str, list[float]] = {}
        for _, paper in self.paper_rows(venue):
            ratings.setdefault(paper.venue, []).extend(paper.ratings)
        return {name: RatingScale.of(values) for name, values in ratings.items() if values}

    def _check_scales(self) -> None:
        """A rating threshold over several venues only where their scales agree; else say so."""
        scales = self.rating_scales()
        if len({(s.low, s.high) for s in scales.values()}) > 1:
            listed = "; ".join(f"{venue}: {scale.describe()}" for venue, scale in sorted(scales.items()))
            raise ConfnavError(
                f"{argument('min_rating')}: the venues rate on different scales ({listed});"
                f" name one {argument('venue')}"
            )

    def decision_names(self) -> list[str]:
        """Every outcome and decision name the store's papers have, for filters and their errors."""

        def names() -> list[str]:
            rows = self.conn.execute("SELECT DISTINCT outcome, lower(decision) FROM papers").fetchall()
            return sorted({name for row in rows for name in row})

        return self._memo(("names",), names)

    def _check_decision(self, wanted: str) -> None:
        names = self.decision_names()
        if names and wanted not in names:
            raise ConfnavError(f"no paper has the decision {excerpt(wanted)} (in the store: {', '.join(names)})")
