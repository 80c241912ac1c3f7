"""The world database in SQLite (docs/store.md).

:mod:`.store` opens databases, runs transactions and reads the history;
:mod:`.codec` turns world objects, dump tables and history records into rows
and back; :mod:`.schema` holds the append-only migrations.
"""

from bellum.empire.io.sqlite.codec import CommandRecord, ServerEntry
from bellum.empire.io.sqlite.schema import SCHEMA_VERSION
from bellum.empire.io.sqlite.store import Session, Store

__all__ = ["SCHEMA_VERSION", "CommandRecord", "ServerEntry", "Session", "Store"]
