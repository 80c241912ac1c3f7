"""Reading a game's tables with ``xdump``, as the human-readable dump bellum imports.

The server writes ``xdump`` output for machines: the fields in the order of
the table's meta-data, symbols as numbers, and only what the account may see.
A client must hard-code neither the order nor the numbers (``doc/xdump`` in the
server's source): it reads the meta-data (``xdump meta TABLE``) and the symbol
tables, and this module uses them to write each table the way ``empdump -x``
does (a column line, symbols by name).  The result goes through the same
:func:`bellum.empire.io.xdump.mapping.dump_to_world` as a dump file: one mapping from
dumps to worlds.

Every request is one ``xdump`` command, which reads and changes nothing.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass

from bellum.client.errors import RemoteProtocolError
from bellum.client.session import Session
from bellum.empire.io.xdump.syntax import KNOWN_COLUMNS, quote, split_fields, unquote
from bellum.numbers import shown, to_int

log = logging.getLogger("bellum.client")

#: What a sync reads: the game-state tables, the account's own nation, and the
#: game's configuration (its size and rule options).
SYNC_TABLES = (*KNOWN_COLUMNS, "version")
#: Columns never kept: a deity's ``nat`` table holds every country's password.
SECRET_COLUMNS = {("nat", "passwd")}
#: What a secret column reads instead.
BLANKED = '""'
#: The longest array column a server may declare (4.4.1's longest has 99 elements).
MAX_ARRAY = 1000


@dataclass(frozen=True)
class Column:
    """One field of a table's meta-data: its name, whether it is a symbol set, its
    array length (0 for a scalar) and the table its values refer to (-1: none)."""

    name: str
    bits: bool
    length: int
    table: int

    def headers(self) -> list[str]:
        if self.length:
            return [f"{self.name}({i})" for i in range(self.length)]
        return [self.name]


class XdumpReader:
    """Reads tables through one session, learning meta-data and symbols on the way."""

    @classmethod
    def of(cls, session: Session) -> XdumpReader:
        """The session's own reader: what it learns (meta-data and symbols, which do not
        change while a session lasts) serves every later read through the session."""
        reader = _READERS.get(session)
        if reader is None:
            reader = _READERS[session] = cls(session)
        return reader

    def __init__(self, session: Session) -> None:
        self.session = session
        self.commands = 0
        self._meta: dict[str, list[Column] | None] = {}
        self._symbols: dict[int, dict[int, str] | None] = {}
        self._names: dict[int, str] = {}
        self._field_order: dict[str, int] = {}
        self._bits_flag = 0
        #: Why the server refused the last request (its output).
        self.refusal = ""
        #: The tables :meth:`read` could not read, with the server's reason.
        self.refused: dict[str, str] = {}
        #: The server's clock (seconds since 1970) in the header of each table read.
        self.stamps: dict[str, int] = {}

    def start(self) -> None:
        """Read the meta-meta-data (how meta-data is laid out) and the table of tables."""
        rows = self.records("meta", "meta")
        if rows is None:
            raise RemoteProtocolError(f"{self.session.address}: the server has no xdump meta")
        try:
            self._field_order = {unquote(r[0], "meta") or "": i for i, r in enumerate(rows)}
            flags_table = self._number(self._field(rows[self._field_order["flags"]], "table"))
            tables = self.records("table", "*")
            self._names = {self._number(r[0]): unquote(r[1], "table") or "" for r in tables or []}
        except (KeyError, IndexError):
            raise self._malformed("meta") from None
        flag_names = self.symbols(flags_table) or {}
        self._bits_flag = next((v for v, n in flag_names.items() if n == "bits"), 0)

    def _field(self, row: list[str], name: str) -> str:
        return row[self._field_order[name]]

    def _number(self, text: str, most: int | None = None) -> int:
        """A number the server sent in its meta-data (a hostile server may send anything)."""
        n = to_int(text, signed=True)
        if n is None or (most is not None and n > most):
            raise RemoteProtocolError(
                f"{self.session.address}: xdump meta-data: '{shown(text)}' where a number"
                + ("" if most is None else f" up to {most}")
                + " belongs"
            )
        return n

    def _malformed(self, what: str) -> RemoteProtocolError:
        return RemoteProtocolError(f"{self.session.address}: xdump {what}: malformed meta-data")

    def records(self, *args: str) -> list[list[str]] | None:
        """The records of ``xdump ARGS``; ``None`` if the server refused (its reason is logged)."""
        out = self.session.command(" ".join(["xdump", *args]))
        self.commands += 1
        lines = out.text().splitlines()
        if not lines or not lines[0].startswith("XDUMP "):
            log.debug("xdump %s refused: %s", " ".join(args), " / ".join(lines))
            self.refusal = " ".join(lines).strip() or "no output"
            return None
        stamp = to_int(lines[0].split()[-1]) if len(lines[0].split()) == 3 else None
        if stamp is not None and args and args[0] != "meta":
            self.stamps[args[0]] = stamp
        footer = lines[-1] if len(lines) > 1 else ""
        rows = [split_fields(line, "xdump") for line in lines[1:-1]]
        if footer != f"/{len(rows)}":
            raise RemoteProtocolError(
                f"{self.session.address}: xdump {' '.join(args)}: footer {footer!r}"
                f" after {len(rows)} records"
            )
        return rows

    def meta(self, table: str) -> list[Column] | None:
        """The columns of ``table`` this account sees, in the server's order."""
        if table not in self._meta:
            rows = self.records("meta", table)
            try:
                self._meta[table] = (
                    None
                    if rows is None
                    else [
                        Column(
                            unquote(self._field(r, "name"), table) or "",
                            bool(self._number(self._field(r, "flags")) & self._bits_flag),
                            self._number(self._field(r, "len"), MAX_ARRAY),
                            self._number(self._field(r, "table")),
                        )
                        for r in rows
                    ]
                )
            except (KeyError, IndexError):
                raise self._malformed(f"meta {table}") from None
        return self._meta[table]

    def symbols(self, table_id: int) -> dict[int, str] | None:
        """Value to name, if table ``table_id`` is a symbol table (fields ``value``, ``name``)."""
        if table_id not in self._symbols:
            name = self._names.get(table_id, str(table_id))
            columns = self.meta(name)
            symbols = None
            if columns is not None and [c.name for c in columns] == ["value", "name"]:
                rows = self.records(name, "*") or []
                try:
                    symbols = {self._number(r[0]): unquote(r[1], name) or "" for r in rows}
                except IndexError:
                    raise self._malformed(name) from None
            self._symbols[table_id] = symbols
        return self._symbols[table_id]

    def read(self, tables: tuple[str, ...] = SYNC_TABLES) -> str:
        """``tables`` as one human-readable dump; those refused are left out (:attr:`refused`)."""
        if not self._field_order:
            self.start()
        self.refused = {}
        parts = []
        for table in tables:
            self.refusal = ""
            text = self.human(table)
            if text is None:
                self.refused[table] = self.refusal
            else:
                parts.append(text)
        return "".join(parts)

    def human(self, table: str) -> str | None:
        """``table`` in the human-readable dump form, or ``None`` if the account may not read it."""
        columns = self.meta(table)
        if columns is None:
            return None
        rows = self.records(table, "*")
        if rows is None:
            return None
        expected = sum(max(c.length, 1) for c in columns)
        decoders: list[tuple[bool, dict[int, str] | None]] = []
        for c in columns:
            names = self.symbols(c.table) if c.table >= 0 else None
            decoders += [(c.bits, names)] * max(c.length, 1)
        secret = {i for i, c in enumerate(columns) if (table, c.name) in SECRET_COLUMNS}
        positions = [i for i, c in enumerate(columns) for _ in range(max(c.length, 1))]
        lines = [f"config {table}", " ".join(h for c in columns for h in c.headers())]
        for row in rows:
            if len(row) != expected:
                raise RemoteProtocolError(
                    f"{self.session.address}: xdump {table}: {len(row)} fields, meta-data says"
                    f" {expected}"
                )
            lines.append(
                " ".join(
                    BLANKED if at in secret else _symbolic(v, bits, n)
                    for v, (bits, n), at in zip(row, decoders, positions, strict=True)
                )
            )
        lines.append("/config")
        return "".join(line + "\n" for line in lines)


#: Each session's reader (:meth:`XdumpReader.of`), dropped with the session.
_READERS: weakref.WeakKeyDictionary[Session, XdumpReader] = weakref.WeakKeyDictionary()


def _symbolic(value: str, bits: bool, names: dict[int, str] | None) -> str:
    """A number as its symbol (a set of symbols for bits), as ``empdump -x`` writes it."""
    n = None if names is None else to_int(value, signed=True)
    if names is None or n is None:
        return value
    if bits:
        return "(" + " ".join(_escape(names.get(b, str(b))) for b in _bits(n)) + ")"
    return _escape(names[n]) if n in names else value


def _bits(n: int) -> list[int]:
    return [1 << i for i in range(n.bit_length()) if n >> i & 1]


def _escape(name: str) -> str:
    """A symbol name with blanks and other odd characters as octal escapes."""
    return quote(name)[1:-1]
