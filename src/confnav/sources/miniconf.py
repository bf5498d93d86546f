"""Paper lists of MiniConf virtual-conference sites (`papers.csv`, `main_papers.csv`, …): a `UID` column, and
authors, keywords and sessions as `|`-separated lists.

Every paper on such a site was accepted: its decision is the site's `paper_type` (Long, Short, TACL, demo, …),
else the kind its UID names (`findings.12` → Findings), else "Accepted". The site's `track` is a subject area.
"""

from __future__ import annotations

import re
from pathlib import Path

from confnav.model import SESSION_SEPARATOR
from confnav.sources.base import ReadItem, SourceRecord
from confnav.sources.links import links_from
from confnav.sources.tabular import CsvReader
from confnav.sources.values import split_list

_UID_KIND = re.compile(r"^([A-Za-z]+)[.\-_]\w+$")
_KINDS = {"findings": "Findings", "demo": "Demo", "tacl": "TACL", "cl": "CL", "srw": "Student Research Workshop"}
MINICONF_COLUMNS = {"uid", "title", "authors"}


class MiniconfReader(CsvReader):
    """A MiniConf site's paper CSV, read like any CSV list, with its own list separator and columns."""

    format = "miniconf"
    names_unread = False
    header_row = True

    def __init__(self) -> None:
        super().__init__()

    def sniff(self, path: Path, text: str) -> bool:
        header = text.split("\n", 1)[0].strip().lower()
        columns = [c.strip().strip('"') for c in header.split(",")]
        return bool(columns) and columns[0] == "uid" and set(columns) >= MINICONF_COLUMNS

    def record(self, path: Path, record: SourceRecord, row: dict[str, str], mapping: dict[str, str]) -> ReadItem:
        item = super().record(path, record, row, mapping)
        return self._miniconf(item, {k.strip().lower(): v for k, v in row.items()}) if item is record else item

    def _miniconf(self, record: SourceRecord, row: dict[str, str]) -> SourceRecord:
        fields = record.fields
        if "keywords" in row:  # an empty cell too (SourceRecord)
            fields["keywords"] = split_list(row["keywords"] or "", "|;")
        if area := fields.pop("track", None):
            fields["primary_area"] = area
        kind = _UID_KIND.match(record.id or "")
        paper_type = row.get("paper_type", "").strip()
        fields["decision"] = paper_type or (_KINDS.get(kind.group(1).lower(), "Accepted") if kind else "Accepted")
        if sessions := split_list(row.get("sessions", ""), "|"):
            fields["session"] = f" {SESSION_SEPARATOR} ".join(sessions)
        if demo := links_from({"demo": row.get("demo_url")}):
            fields["links"] = fields.get("links", {}) | demo
        return record
