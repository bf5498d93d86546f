"""The store's schema, declared once: tables, columns in portable types, keys and indexes, from which each
backend renders its DDL (how a table is declared and rendered: declaration.py).

The migration histories already released (migrations.py, postgres_schema.py) stay as they were written; a
test checks that each still builds exactly this declaration, and new schema steps take their SQL from it.
"""

from __future__ import annotations

from confnav.store.declaration import Backend, Column, Index, Table
from confnav.store.declaration import added_columns as added_columns  # what migrations render from the tables
from confnav.store.declaration import added_indexes as added_indexes
from confnav.store.declaration import stored_uncompressed as stored_uncompressed


def _c(name: str, type_: str = "text", **options: object) -> Column:
    return Column(name, type_, **options)  # type: ignore[arg-type]


def _paper_key(**options: object) -> Column:
    return _c("paper_pk", "bigint", references="papers(pk)", cascade=True, **options)


# Parents before children (the order a store copy writes them).
TABLES: tuple[Table, ...] = (
    Table("meta", (_c("key"), _c("value", "bigint")), ("key",)),
    Table("venues", (_c("id"), _c("name"), _c("conference"), _c("year", "int")), ("id",)),
    Table(
        "papers",
        (
            _c("pk", "rowkey"),
            _c("venue", references="venues(id)"),
            _c("id"),
            _c("title"),
            _c("abstract", null=True),
            _c("decision"),
            _c("rating_mean", "real", null=True),
            _c("data", uncompressed=True),
            _c("outcome", default="'unknown'"),
            _c("tier", "int", default="30"),
            _c("track", null=True),
            _c("changed", "bigint", default="0"),  # the store generation its text last changed at
            _c("ratings", null=True),  # its ratings as a JSON list (None without): a venue's scale, read in place
        ),
        ("pk",),
        unique=(("venue", "id"),),
        indexes=(
            Index("papers_by_id", ("id",)),
            Index("papers_by_decision", ("venue", "decision")),
            Index("papers_by_outcome", ("venue", "outcome")),
            Index("papers_by_change", ("changed",)),
        ),
    ),
    Table(
        "paper_authors",
        (
            _paper_key(),
            _c("position", "int"),
            _c("name"),
            _c("name_key"),
            _c("affiliation", null=True),
            _c("profile", null=True),
        ),
        ("paper_pk", "position"),
        indexes=(
            Index("paper_authors_by_key", ("name_key",)),
            Index("paper_authors_by_profile", ("profile",)),
            Index("paper_authors_tokens", ("name_key",), postgres_only="gin (string_to_array(name_key, ' '))"),
        ),
    ),
    Table(
        "paper_keywords",
        (_paper_key(), _c("position", "int"), _c("keyword"), _c("keyword_key")),
        ("paper_pk", "position"),
        indexes=(Index("paper_keywords_by_key", ("keyword_key",)),),
    ),
    Table(
        "paper_places",
        (_paper_key(), _c("position", "int"), _c("place")),
        ("paper_pk", "position"),
        indexes=(Index("paper_places_by_place", ("place",)),),
    ),
    Table(
        "source_records",
        (
            _c("venue"),
            _c("paper_id"),
            _c("source"),
            _c("kind"),
            _c("line", "int", null=True),
            _c("record", "int", null=True),
            _c("data", uncompressed=True),
        ),
        ("venue", "paper_id", "source"),
    ),
    Table("decision_overrides", (_c("scope"), _c("label"), _c("outcome"), _c("kind")), ("scope", "label")),
    Table(
        "embeddings",
        (_paper_key(), _c("model"), _c("text_hash"), _c("vector", "vector")),
        ("model", "paper_pk"),
    ),
    Table("caches", (_c("name"), _c("generation", "bigint"), _c("data", "bytes")), ("name",)),
    Table(
        "topic_runs",
        (_c("venue", references="venues(id)"), _c("generation", "bigint"), _c("model"), _c("data")),
        ("venue",),
    ),
    Table(
        "themes",
        (
            _c("venue", references="venues(id)"),
            _c("id"),
            _c("level", "int"),
            _c("parent", null=True),
            _c("label"),
            _c("data"),
        ),
        ("venue", "id"),
    ),
    Table(
        "paper_themes",
        (
            _paper_key(),
            _c("venue"),
            _c("theme"),
            _c("subtheme", null=True),
            _c("confidence", "real"),
            _c("low_confidence", "int"),
            _c("x", "real"),
            _c("y", "real"),
        ),
        ("paper_pk",),
        indexes=(Index("paper_themes_by_theme", ("venue", "theme")),),
    ),
    Table(
        "external_signals",
        (_c("venue", references="venues(id)"), _c("paper_id"), _c("name"), _c("value", "real"), _c("source")),
        ("venue", "paper_id", "name"),
    ),
    Table("reading_lists", (_c("name"), _c("created")), ("name",)),
    Table(
        "reading_list_papers",
        (
            _c("list", references="reading_lists(name)", cascade=True),
            _c("venue"),
            _c("paper_id"),
            _c("position", "int"),
        ),
        ("list", "venue", "paper_id"),
    ),
    Table("profiles", (_c("name"), _c("created")), ("name",)),
    Table(
        "profile_items",
        (
            _c("profile", references="profiles(name)", cascade=True),
            _c("position", "int"),
            _c("venue", null=True),  # with paper_id: the stored paper the entry matched; NULL: the profile's own text
            _c("paper_id", null=True),
            _c("title"),
            _c("abstract", null=True),
            _c("year", "int", null=True),
            _c("data"),  # the entry's identifiers and bibliographic fields, as JSON
        ),
        ("profile", "position"),
    ),
    Table(
        "profile_marks",
        (
            _c("profile", references="profiles(name)", cascade=True),
            _c("venue"),
            _c("paper_id"),
            _c("mark"),  # "like" or "dislike"
            _c("created"),
        ),
        ("profile", "venue", "paper_id"),
    ),
    Table(
        "profile_notes",
        (
            _c("profile", references="profiles(name)", cascade=True),
            _c("venue"),
            _c("paper_id"),
            _c("note"),  # the profile's note on the paper (a later note replaces it)
            _c("created"),
        ),
        ("profile", "venue", "paper_id"),
    ),
    Table(
        "profile_tags",
        (
            _c("profile", references="profiles(name)", cascade=True),
            _c("venue"),
            _c("paper_id"),
            _c("tag"),
            _c("created"),
        ),
        ("profile", "venue", "paper_id", "tag"),
    ),
    Table(
        "profile_lists",  # the profile a reading list belongs to; a list without a row is the default profile's
        (
            _c("list", references="reading_lists(name)", cascade=True),
            _c("profile", references="profiles(name)", cascade=True),
        ),
        ("list",),
    ),
    Table(
        "watches",
        (
            _c("id"),
            _c("profile", references="profiles(name)", cascade=True),
            _c("kind"),  # "query", "author" or "theme"
            _c("value"),
            _c("venue", null=True),  # only papers of this venue (a theme watch always has one)
            _c("created"),
        ),
        ("id",),
        indexes=(Index("watches_by_profile", ("profile",)),),
    ),
    Table(
        "news_items",
        (
            _c("id"),  # a UUID: the Atom entry's id
            _c("watch", references="watches(id)", cascade=True),
            _c("profile"),
            _c("venue"),
            _c("paper_id"),
            _c("title"),  # the paper's title when the news was found
            _c("kind"),  # what changed: "new", "reviews", "ratings", "decision" ('+'-joined)
            _c("summary"),
            _c("created"),
        ),
        ("id",),
        indexes=(Index("news_by_profile", ("profile", "created")),),
    ),
    Table(
        "sessions",
        (
            _c("venue", references="venues(id)"),
            _c("id"),
            _c("name"),
            _c("starts", null=True),  # ISO 8601 with its UTC offset; NULL: the source gives no time
            _c("ends", null=True),
            _c("timezone", null=True),  # the zone name the source gave (`America/Vancouver`), if any
            _c("room", null=True),
            _c("link", null=True),
            _c("source"),  # the schedule file it came from, or "paper list" for the papers' own session fields
        ),
        ("venue", "id"),
    ),
    Table(
        "session_papers",
        (_c("venue"), _c("session"), _c("paper_id"), _c("position", "int")),
        ("venue", "session", "paper_id"),
        indexes=(Index("session_papers_by_paper", ("venue", "paper_id")),),
    ),
    Table(
        "profile_keys",  # a profile's secret on a shared server: only its hash is kept
        (
            _c("profile", references="profiles(name)", cascade=True),
            _c("hash"),  # "sha256:" and the hex digest of the secret
            _c("created"),
        ),
        ("profile",),
    ),
    Table(
        "review_versions",  # every version of a review a fetch saw or read from its edits
        (
            _c("venue", references="venues(id)"),
            _c("paper_id"),
            _c("review_id"),
            _c("reviewer"),  # the review's signature (an anonymous reviewer id)
            _c("modified", "bigint"),  # the source's time of this version (tmdate of the edit or note), ms
            _c("rating", "real", null=True),
            _c("confidence", "real", null=True),
            _c("origin"),  # "edits" or "fetch"
            _c("recorded"),  # when this store first saw it (ISO 8601, UTC)
        ),
        ("venue", "paper_id", "review_id", "modified"),  # a venue's, a paper's, a review's versions: one range
        clustered=True,
    ),
    Table(
        "review_texts",  # what each review, meta-review or decision comment says, as last fetched
        (
            _c("venue", references="venues(id)"),
            _c("paper_id"),
            _c("review_id"),
            _c("reviewer"),  # the note's signature (an anonymous reviewer id, an area chair, the program chairs)
            _c("kind"),  # "meta-review", "decision" or "review"
            _c("modified", "bigint"),  # the source's time of the text kept (tmdate of the note), ms
            _c("fields"),  # the note's text fields in the source's order, as a JSON list of [name, text]
            _c("recorded"),  # when this store last wrote it (ISO 8601, UTC)
        ),
        ("venue", "review_id"),
        indexes=(Index("review_texts_by_paper", ("venue", "paper_id")),),
    ),
    Table(
        "fetch_runs",  # each fetch of a venue, so that "since the last fetch" has a date
        (_c("venue", references="venues(id)"), _c("fetched")),  # fetched: ISO 8601, UTC
        ("venue", "fetched"),
    ),
    Table(
        "decisions_arrived",  # the papers a fetch found decided that were pending when the store last had them
        (
            _c("venue", references="venues(id)"),
            _c("fetched"),  # the fetch that found the decision (fetch_runs.fetched)
            _c("paper_id"),
            _c("previous"),  # the label before ("" for none)
            _c("decision"),  # the label the fetch brought
        ),
        ("venue", "fetched", "paper_id"),
    ),
    Table(
        "jobs",
        (
            _c("id"),
            _c("kind"),
            _c("venue"),
            _c("state"),
            _c("message", default="''"),
            _c("created"),
            _c("updated"),
            _c("lease", default="''"),  # a running job's lease runs to then (ISO 8601, UTC): renewed while it runs
        ),
        ("id",),
        indexes=(Index("jobs_by_venue", ("kind", "venue", "state")),),
        copied=False,  # a background job belongs to the server that ran it
    ),
)
BY_NAME = {table.name: table for table in TABLES}


def ddl(backend: Backend, tables: tuple[Table, ...] = TABLES) -> str:
    """The statements creating these tables in the backend's DDL, `;`-separated as a migration step's SQL."""
    vectors = any(c.type == "vector" for table in tables for c in table.columns)
    prelude = ["CREATE EXTENSION IF NOT EXISTS vector"] if backend == "postgres" and vectors else []
    return ";\n".join(prelude + [s for table in tables for s in table.statements(backend)])
