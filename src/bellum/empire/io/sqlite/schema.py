"""The store's SQLite schema and its migrations.

Every schema change is a new entry at the end of :data:`MIGRATIONS`, never
an edit of an old one: a database records the version it is at in
``schema_version``, and opening it runs the migrations it lacks, in one
transaction.  A database from a newer bellum (a version this code does not
know) is refused rather than guessed at.
"""

from __future__ import annotations

import sqlite3

#: Version 1: the world's objects, the imported dump's records, and command history.
_V1 = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE object (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE dump_table (
    seq INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    human INTEGER NOT NULL,
    header TEXT NOT NULL,
    column_line TEXT,
    columns TEXT NOT NULL,
    footer TEXT NOT NULL,
    before TEXT NOT NULL
);
CREATE TABLE dump_record (
    tbl INTEGER NOT NULL REFERENCES dump_table (seq),
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (tbl, seq)
) WITHOUT ROWID;
CREATE TABLE command (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    name TEXT NOT NULL,
    args TEXT NOT NULL,
    country INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    answers TEXT NOT NULL,
    options TEXT NOT NULL,
    version TEXT NOT NULL,
    outcome TEXT NOT NULL,
    result TEXT NOT NULL,
    events TEXT NOT NULL,
    transcript TEXT NOT NULL
);
CREATE TABLE change (
    command INTEGER NOT NULL REFERENCES command (id),
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    before TEXT,
    after TEXT,
    PRIMARY KEY (command, kind, key)
) WITHOUT ROWID;
INSERT INTO schema_version (version) VALUES (1);
"""

#: Version 2: a command's keyword arguments and rule profile; changes found by object.
_V2 = """
ALTER TABLE command ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';
ALTER TABLE command ADD COLUMN profile TEXT NOT NULL DEFAULT 'stock';
CREATE INDEX change_by_object ON change (kind, key);
UPDATE schema_version SET version = 2;
"""

#: Version 3: the order as the player typed it (``attack 2,0 y y n n``), which replay
#: parses; older rows keep ``name``/``args``/``extra`` and are read from those.
_V3 = """
ALTER TABLE command ADD COLUMN order_text TEXT;
UPDATE schema_version SET version = 3;
"""

#: Version 4: entries from a live game (``bellum empire sync``, orders played on a
#: server) name the server they came from; a sync has no order (``order_text`` null).
#: Bellum's own orders keep ``server`` null.
_V4 = """
ALTER TABLE command ADD COLUMN server TEXT;
UPDATE schema_version SET version = 4;
"""

#: Version 5: the turn planner's solved odds (``bellum empire plan``), by the version of
#: the world they were solved on (a digest of its objects) and the plan solved.
_V5 = """
CREATE TABLE curve (
    version TEXT NOT NULL,
    key TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (version, key)
) WITHOUT ROWID;
UPDATE schema_version SET version = 5;
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V5)
SCHEMA_VERSION = len(MIGRATIONS)


def version_of(conn: sqlite3.Connection) -> int:
    """The schema version of an open database; 0 for an empty one."""
    has = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()[0]
    if not has:
        return 0
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection, current: int, target: int = SCHEMA_VERSION) -> None:
    """Run the migrations after ``current`` up to ``target``; the caller holds a write
    transaction, so a failed migration leaves the database as it was."""
    for sql in MIGRATIONS[current:target]:
        for statement in sql.split(";"):
            if statement.strip():
                conn.execute(statement)
