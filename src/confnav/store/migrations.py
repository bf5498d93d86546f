"""Versioned schema of the SQLite store, and the runner both backends use: each applied step is recorded in
`schema_migrations`.

The steps below are released history and stay as written; the schema they build is declared in schema.py (a
test holds them equal). A new step takes its SQL from the declaration, e.g. `schema.ddl("sqlite", (table,))`,
and PostgreSQL's matching step `schema.ddl("postgres", (table,))`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from datetime import UTC, datetime

from confnav.errors import ConfnavError
from confnav.keys import UNDECOMPOSED
from confnav.store import schema
from confnav.store.connection import Connection

JOBS_TABLE = """
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            venue TEXT NOT NULL,
            state TEXT NOT NULL,
            message TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            updated TEXT NOT NULL
        );
        CREATE INDEX jobs_by_venue ON jobs(kind, venue, state)
        """

PROFILES_STEP = "researcher profiles: their papers (matched or their own texts) and liked or disliked papers"
PROFILE_TABLES = tuple(schema.BY_NAME[name] for name in ("profiles", "profile_items", "profile_marks"))
NEWS_STEP = "profile notes, tags and reading lists; watches and the news they found after each ingest"
NEWS_TABLES = tuple(
    schema.BY_NAME[name] for name in ("profile_notes", "profile_tags", "profile_lists", "watches", "news_items")
)
SESSIONS_STEP = "a venue's programme: sessions with their times and rooms, and the papers presented in each"
SESSION_TABLES = tuple(schema.BY_NAME[name] for name in ("sessions", "session_papers"))
PROFILE_KEYS_STEP = "profile secrets for shared servers: a hash per profile, never the secret itself"
PROFILE_KEY_TABLES = (schema.BY_NAME["profile_keys"],)
REVIEWS_STEP = "review histories: every version of a review's rating and confidence, with the source's time"
REVIEW_TABLES = (schema.BY_NAME["review_versions"],)
RELEASED_REVIEW_TABLES = (  # as step 15 made it: keyed by review, with a second index by paper
    replace(
        REVIEW_TABLES[0],
        key=("venue", "review_id", "modified"),
        indexes=(schema.Index("review_versions_by_paper", ("venue", "paper_id")),),
        clustered=False,
    ),
)
REVIEWS_COMPACT_STEP = "review histories kept in the order of venue, paper, review and time, with no second index"


def rebuilt(backend: schema.Backend, table: schema.Table) -> str:
    """A step that rebuilds a table to its declaration, keeping its rows (in the order of its new key)."""
    columns, kept = ", ".join(table.column_names), f"{table.name}_kept"
    return ";\n".join(
        [
            f"CREATE TEMPORARY TABLE {kept} AS SELECT {columns} FROM {table.name}",
            f"DROP TABLE {table.name}",
            schema.ddl(backend, (table,)),
            f"INSERT INTO {table.name} ({columns}) SELECT {columns} FROM {kept} ORDER BY {', '.join(table.key)}",
            f"DROP TABLE {kept}",
        ]
    )


JOB_LEASES_STEP = "job leases: a running job whose process ended without a word is seen as stopped once its lease ends"
JOB_LEASE_COLUMNS = (schema.BY_NAME["jobs"], ("lease",))
REVIEW_TEXTS_STEP = "what reviewers said: each review's and meta-review's text fields as last fetched"
REVIEW_TEXT_TABLES = (schema.BY_NAME["review_texts"],)
ARRIVALS_STEP = "decisions that arrived: each fetch of a venue, and the pending papers it found decided"
ARRIVAL_TABLES = tuple(schema.BY_NAME[name] for name in ("fetch_runs", "decisions_arrived"))
PAPER_CHANGES_STEP = "each paper's generation of its last change, so that the keyword index adds only changed papers"
PAPER_RATINGS_STEP = "each paper's ratings beside its JSON, so that a venue's rating scale is read without its papers"
NAME_LETTERS_STEP = "authors' name keys without the letters Unicode does not decompose (Søgaard as Sogaard)"


def name_letters() -> str:
    """The stored author name keys as `keys.name_key` makes them now (the same SQL on both backends)."""
    folded = "name_key"
    for letter, plain in UNDECOMPOSED.items():
        folded = f"replace({folded}, '{letter}', '{plain}')"
    return f"UPDATE paper_authors SET name_key = {folded} WHERE name_key <> {folded}"


def paper_changes(backend: schema.Backend) -> str:
    """The column and index recording when each paper last changed."""
    papers = schema.BY_NAME["papers"]
    return (
        schema.added_columns(backend, papers, ("changed",))
        + ";\n"
        + schema.added_indexes(backend, papers, ("papers_by_change",))
    )


MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "papers, authors, keywords, source records, full-text index",
        """
        CREATE TABLE venues (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            conference TEXT NOT NULL,
            year INTEGER NOT NULL
        );
        CREATE TABLE papers (
            pk INTEGER PRIMARY KEY,
            venue TEXT NOT NULL REFERENCES venues(id),
            id TEXT NOT NULL,
            title TEXT NOT NULL,
            abstract TEXT,
            decision TEXT NOT NULL,
            rating_mean REAL,
            data TEXT NOT NULL,
            UNIQUE (venue, id)
        );
        CREATE INDEX papers_by_id ON papers(id);
        CREATE INDEX papers_by_decision ON papers(venue, decision);
        CREATE TABLE paper_authors (
            paper_pk INTEGER NOT NULL REFERENCES papers(pk) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL,
            affiliation TEXT,
            PRIMARY KEY (paper_pk, position)
        );
        CREATE INDEX paper_authors_by_key ON paper_authors(name_key);
        CREATE TABLE paper_keywords (
            paper_pk INTEGER NOT NULL REFERENCES papers(pk) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            keyword TEXT NOT NULL,
            keyword_key TEXT NOT NULL,
            PRIMARY KEY (paper_pk, position)
        );
        CREATE INDEX paper_keywords_by_key ON paper_keywords(keyword_key);
        CREATE TABLE source_records (
            venue TEXT NOT NULL,
            paper_id TEXT NOT NULL,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
            line INTEGER,
            record INTEGER,
            data TEXT NOT NULL,
            PRIMARY KEY (venue, paper_id, source)
        );
        CREATE VIRTUAL TABLE papers_fts USING fts5(
            title, abstract, keywords, authors,
            tokenize = 'unicode61 remove_diacritics 2'
        );
        """,
    ),
    (
        2,
        "store generation, paper embeddings, search caches",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO meta (key, value) VALUES ('generation', 0);
        CREATE TABLE embeddings (
            paper_pk INTEGER NOT NULL REFERENCES papers(pk) ON DELETE CASCADE,
            model TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model, paper_pk)
        );
        CREATE TABLE caches (
            name TEXT PRIMARY KEY,
            generation INTEGER NOT NULL,
            data BLOB NOT NULL
        );
        """,
    ),
    (
        3,
        "themes, paper theme assignments and 2D map positions",
        """
        CREATE TABLE topic_runs (
            venue TEXT PRIMARY KEY REFERENCES venues(id),
            generation INTEGER NOT NULL,
            model TEXT NOT NULL,
            data TEXT NOT NULL
        );
        CREATE TABLE themes (
            venue TEXT NOT NULL REFERENCES venues(id),
            id TEXT NOT NULL,
            level INTEGER NOT NULL,
            parent TEXT,
            label TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (venue, id)
        );
        CREATE TABLE paper_themes (
            paper_pk INTEGER PRIMARY KEY REFERENCES papers(pk) ON DELETE CASCADE,
            venue TEXT NOT NULL,
            theme TEXT NOT NULL,
            subtheme TEXT,
            confidence REAL NOT NULL,
            low_confidence INTEGER NOT NULL,
            x REAL NOT NULL,
            y REAL NOT NULL
        );
        CREATE INDEX paper_themes_by_theme ON paper_themes(venue, theme);
        """,
    ),
    (
        4,
        "external signals (citations, mentions) supplied by the user",
        """
        CREATE TABLE external_signals (
            venue TEXT NOT NULL REFERENCES venues(id),
            paper_id TEXT NOT NULL,
            name TEXT NOT NULL,
            value REAL NOT NULL,
            source TEXT NOT NULL,
            PRIMARY KEY (venue, paper_id, name)
        );
        """,
    ),
    (
        5,
        "a counter of changes to stored embeddings, for search caches",
        """
        INSERT INTO meta (key, value) VALUES ('vectors', 0);
        """,
    ),
    (
        6,
        "named reading lists",
        """
        CREATE TABLE reading_lists (name TEXT PRIMARY KEY, created TEXT NOT NULL);
        CREATE TABLE reading_list_papers (
            list TEXT NOT NULL REFERENCES reading_lists(name) ON DELETE CASCADE,
            venue TEXT NOT NULL,
            paper_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (list, venue, paper_id)
        );
        """,
    ),
    (
        7,
        "open decisions (outcome, kind, tier), tracks, author profile ids, the user's decision table",
        """
        ALTER TABLE papers ADD COLUMN outcome TEXT NOT NULL DEFAULT 'unknown';
        ALTER TABLE papers ADD COLUMN tier INTEGER NOT NULL DEFAULT 30;
        ALTER TABLE papers ADD COLUMN track TEXT;
        UPDATE papers SET
            outcome = CASE decision WHEN 'oral' THEN 'accepted' WHEN 'spotlight' THEN 'accepted'
                WHEN 'poster' THEN 'accepted' WHEN 'reject' THEN 'not-accepted' WHEN 'withdrawn' THEN 'not-accepted'
                WHEN 'desk-reject' THEN 'not-accepted' ELSE 'unknown' END,
            tier = CASE decision WHEN 'oral' THEN 0 WHEN 'spotlight' THEN 1 WHEN 'poster' THEN 2
                WHEN 'reject' THEN 40 WHEN 'withdrawn' THEN 41 WHEN 'desk-reject' THEN 42 ELSE 30 END;
        CREATE INDEX papers_by_outcome ON papers(venue, outcome);
        ALTER TABLE paper_authors ADD COLUMN profile TEXT;
        CREATE INDEX paper_authors_by_profile ON paper_authors(profile);
        CREATE TABLE decision_overrides (
            scope TEXT NOT NULL,
            label TEXT NOT NULL,
            outcome TEXT NOT NULL,
            kind TEXT NOT NULL,
            PRIMARY KEY (scope, label)
        );
        """,
    ),
    (
        8,
        "drop the FTS5 table: keyword search has its own BM25F index (search/keyword.py) and nothing read it",
        """
        DROP TABLE IF EXISTS papers_fts;
        """,
    ),
    (
        9,
        "background jobs (topic builds started from the web app), visible to every worker",
        JOBS_TABLE,
    ),
    (
        10,
        "each paper's institutions as a paper-level list (not paired with authors), filled from stored papers",
        """
        CREATE TABLE paper_places (
            paper_pk INTEGER NOT NULL REFERENCES papers(pk) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            place TEXT NOT NULL,
            PRIMARY KEY (paper_pk, position)
        );
        CREATE INDEX paper_places_by_place ON paper_places(place);
        INSERT INTO paper_places (paper_pk, position, place)
            SELECT p.pk, j.key, j.value FROM papers p, json_each(p.data, CASE
                WHEN json_array_length(p.data, '$.institutions') > 0 THEN '$.institutions' ELSE '$.affiliations' END) j
            WHERE trim(j.value) <> '';
        INSERT INTO paper_places (paper_pk, position, place)
            SELECT p.pk, j.key, json_extract(j.value, '$.affiliation') FROM papers p, json_each(p.data, '$.authors') j
            WHERE json_array_length(p.data, '$.institutions') = 0 AND json_array_length(p.data, '$.affiliations') = 0
                AND trim(COALESCE(json_extract(j.value, '$.affiliation'), '')) <> ''
        """,
    ),
    (11, PROFILES_STEP, schema.ddl("sqlite", PROFILE_TABLES)),
    (12, NEWS_STEP, schema.ddl("sqlite", NEWS_TABLES)),
    (13, SESSIONS_STEP, schema.ddl("sqlite", SESSION_TABLES)),
    (14, PROFILE_KEYS_STEP, schema.ddl("sqlite", PROFILE_KEY_TABLES)),
    (15, REVIEWS_STEP, schema.ddl("sqlite", RELEASED_REVIEW_TABLES)),
    (16, JOB_LEASES_STEP, schema.added_columns("sqlite", *JOB_LEASE_COLUMNS)),
    (17, REVIEW_TEXTS_STEP, schema.ddl("sqlite", REVIEW_TEXT_TABLES)),
    (18, REVIEWS_COMPACT_STEP, rebuilt("sqlite", REVIEW_TABLES[0])),
    (19, ARRIVALS_STEP, schema.ddl("sqlite", ARRIVAL_TABLES)),
    (20, PAPER_CHANGES_STEP, paper_changes("sqlite")),
    (
        21,
        PAPER_RATINGS_STEP,
        schema.added_columns("sqlite", schema.BY_NAME["papers"], ("ratings",))
        + ";\nUPDATE papers SET ratings = json_extract(data, '$.ratings')"
        " WHERE CASE WHEN json_valid(data) THEN json_array_length(data, '$.ratings') > 0 ELSE 0 END",
    ),
    (22, NAME_LETTERS_STEP, name_letters()),
]

SCHEMA_VERSION = MIGRATIONS[-1][0]


Migration = tuple[int, str, str]
VERSIONS_TABLE = "schema_migrations"  # every confnav store has had it from its first step


def not_a_store(tables: Collection[str]) -> str | None:
    """Why a database with these tables is not a confnav store, in words (None when it is one: it records its
    schema steps), so that another program's database is refused rather than migrated."""
    if VERSIONS_TABLE in tables:
        return None
    if not tables:
        return "a database with no tables"
    shown = sorted(tables)
    more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
    return f"no {VERSIONS_TABLE} table: it holds another program's tables ({', '.join(shown[:3])}{more})"


def migrate(
    conn: Connection, migrations: list[Migration] = MIGRATIONS, begin: str = "BEGIN IMMEDIATE", lock: str | None = None
) -> list[int]:
    """Apply the migrations this database lacks, each in its own transaction; return their versions.

    `lock`, when given, is run first in each transaction (PostgreSQL: an advisory lock), so that several
    processes opening one new database apply each migration once.
    """
    latest = migrations[-1][0]
    try:  # an up-to-date store is only read: every web request thread opens its own connection
        applied_before = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    except Exception:  # noqa: BLE001 - no such table yet; the error type is the driver's
        applied_before = set()
    if {version for version, _, _ in migrations} <= applied_before and max(applied_before) <= latest:
        return []
    conn.execute(begin)
    try:
        if lock:
            conn.execute(lock)
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations"
            " (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    newer = [v for v in done if v > latest]
    if newer:
        raise ConfnavError(f"store schema version {max(newer)} is newer than this confnav ({latest}); upgrade confnav")
    applied = []
    for version, name, sql in migrations:
        if version in done:
            continue
        conn.execute(begin)
        try:
            if lock:
                conn.execute(lock)
            if conn.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)).fetchone():
                conn.execute("COMMIT")  # another process applied it meanwhile
                continue
            for statement in (s.strip() for s in sql.split(";")):
                if statement:
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, datetime.now(UTC).isoformat(timespec="seconds")),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied
