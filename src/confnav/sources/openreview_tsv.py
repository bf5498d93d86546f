"""OpenReview-style TSV pair: `paperlist.tsv` (titles, abstracts) and `ratings.tsv` (scores, decisions)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from confnav.errors import InputError, excerpt
from confnav.sources.base import ReadItem, SourceRecord, clean_id, numbered_lines, untitled
from confnav.sources.links import links_from, openreview_id, openreview_links
from confnav.sources.values import parse_score, split_list

PAPERLIST_COLUMNS = ("paper_id", "title")
RATINGS_COLUMNS = ("paper_id", "decision")


def _header(text: str) -> list[str]:
    return text.split("\n", 1)[0].rstrip("\r").split("\t")


def is_ratings_header(columns: list[str]) -> bool:
    return all(c in columns for c in RATINGS_COLUMNS) and any(c.strip().isdigit() for c in columns)


class OpenReviewTsvReader:
    """Both files of the pair; which one a file is comes from its header."""

    format = "openreview-tsv"
    header_row = True

    def sniff(self, path: Path, text: str) -> bool:
        columns = _header(text)
        return len(columns) > 1 and "paper_id" in columns and ("title" in columns or is_ratings_header(columns))

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        lines = numbered_lines(path, text)
        header = next(lines, None)
        if header is None:
            raise InputError(path, "file is empty")
        if isinstance(header, InputError):
            raise header
        columns = [c.strip() for c in header[1].rstrip("\r").split("\t")]
        ratings = is_ratings_header(columns)
        required = RATINGS_COLUMNS if ratings else PAPERLIST_COLUMNS
        missing = [c for c in required if c not in columns]
        if missing:
            raise InputError(path, f"header lacks column(s) {', '.join(missing)}", line=header[0])
        for line in lines:
            if isinstance(line, InputError):
                yield line
                continue
            number, cells = line[0], line[1].rstrip("\r").split("\t")
            if len(cells) != len(columns):
                yield InputError(
                    path, f"expected {len(columns)} tab-separated columns, found {len(cells)}", line=number
                )
                continue
            row = dict(zip(columns, cells, strict=True))
            record = SourceRecord(
                source=path.name, kind=self.format, id=clean_id(row["paper_id"]), fields={}, line=number
            )
            if record.id is None:
                yield record.error(path, "empty paper_id", "paper_id")
                continue
            yield self._ratings(path, record, row, columns) if ratings else self._paper(path, record, row)

    def _paper(self, path: Path, record: SourceRecord, row: dict[str, str]) -> ReadItem:
        title = row["title"].strip()
        if not title:
            return untitled(path, record)
        fields = record.fields
        fields["title"] = title
        if abstract := row.get("abstract", "").strip():
            fields["abstract"] = abstract
        if "keywords" in row:  # an empty cell too: the file says it has none (SourceRecord)
            fields["keywords"] = split_list(row["keywords"], ",")
        link = row.get("link", "").strip()
        same = openreview_id(link) == record.id or not link  # the format's ids are OpenReview forum ids
        fields["links"] = openreview_links(record.id) if same and record.id else links_from({"site": link})
        return record

    def _ratings(self, path: Path, record: SourceRecord, row: dict[str, str], columns: list[str]) -> ReadItem:
        scores: list[float] = []
        for column in (c for c in columns if c.isdigit()):
            cell = row[column].strip()
            if not cell:
                continue
            try:
                scores.append(parse_score(cell))  # out of range (inf included): dropped with a warning later
            except ValueError:
                return record.error(path, f"rating {excerpt(cell)} is not a number", column)
        record.fields["ratings"] = scores
        record.fields["decision"] = row["decision"].strip()
        return record
