"""The Empire server's text dump syntax: reading and writing tables verbatim.

``empdump -x`` writes the game state as human-readable tables (``config
<table>``, a column header line, one line per record, ``/config``); the
``xdump`` command writes the machine-readable form (``XDUMP <table>
<timestamp>``, records, ``/<count>``).  This module only knows the syntax:
it splits a dump into tables and records without interpreting them, and
keeps every line as it was read, so that writing an unchanged dump back
gives the same bytes.  What the records mean is :mod:`bellum.empire.io.xdump.mapping`'s
business.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from bellum.errors import InputError
from bellum.numbers import shown, to_int


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


#: Columns of every game-state table that ``empdump`` writes (Empire 4.4),
#: in its order.  ``name(N)`` columns are array elements.
KNOWN_COLUMNS: dict[str, tuple[str, ...]] = {
    "sect": _words(
        "owner xloc yloc des effic mobil off loyal terr0 terr1 terr2 terr3 dterr xdist ydist"
        " avail elev work coastal newdes min gold fert ocontent uran oldown civil milit shell"
        " gun petrol iron dust bar food oil lcm hcm uw rad c_dist m_dist s_dist g_dist p_dist"
        " i_dist d_dist b_dist f_dist o_dist l_dist h_dist u_dist r_dist c_del m_del s_del"
        " g_del p_del i_del d_del b_del f_del o_del l_del h_del u_del r_del mines pstage ptime"
        " che che_target fallout access road rail dfense"
    ),
    "ship": _words(
        "uid owner xloc yloc type effic mobil off tech opx opy mission radius fleet civil"
        " milit shell gun petrol iron dust bar food oil lcm hcm uw rad pstage ptime access"
        " name xbuilt ybuilt builder rflags rpath"
    ),
    "plane": _words(
        "uid owner xloc yloc type effic mobil off tech opx opy mission radius wing range"
        " harden ship land flags access theta"
    ),
    "land": _words(
        "uid owner xloc yloc type effic mobil off tech opx opy mission radius army ship harden"
        " retreat rflags rpath civil milit shell gun petrol iron dust bar food oil lcm hcm uw"
        " rad pstage ptime land access"
    ),
    "nuke": _words(
        "uid owner xloc yloc type effic mobil off tech opx opy mission radius stockpile plane"
    ),
    "news": _words("actor action victim times duration time"),
    "trade": _words("uid owner type unitid price maxbidder markettime xloc yloc"),
    "nat": _words(
        "cnum stat flags cname passwd ip userid xcap ycap xorg yorg update tgms ann timeused"
        " btu access milreserve money login logout newstim annotim tech research education"
        " happiness"
    ),
    "relat": ("uid", "relations"),
    "contact": ("uid", "contacts"),
    "reject": ("uid", "rejects"),
    "loan": _words("uid loaner loanee status irate ldur amtpaid amtdue lastpay duedate"),
    "commodity": _words("uid owner type amount price maxbidder markettime xbuy ybuy xsell ysell"),
    "lost": _words("timestamp owner type id x y"),
    "realm": _words("cnum realm xl xh yl yh"),
    "game": _words("upd_disable down turn tick rt"),
    # Not in empdump: the xdump command's view of a player's own nation.
    "country": _words(
        "cnum flags ip userid xcap ycap update tgms ann timeused btu access milreserve money"
        " login logout newstim annotim tech research education happiness"
    ),
}
#: Columns only a deity sees (the server leaves them out of a player's xdump).
DEITY_COLUMNS: dict[str, frozenset[str]] = {
    "sect": frozenset(_words("loyal dterr elev mines pstage ptime che che_target")),
    "ship": frozenset(_words("pstage ptime xbuilt ybuilt builder")),
    "land": frozenset(_words("pstage ptime")),
    "nat": frozenset(KNOWN_COLUMNS["nat"]) - {"cnum", "stat", "cname"},
    "trade": frozenset(_words("xloc yloc")),
    "contact": frozenset({"contacts"}),
    "commodity": frozenset(_words("xbuy ybuy xsell ysell")),
    "game": frozenset(_words("tick rt")),
}
#: Tables whose columns are the game's configuration keys: taken as they come.
FREE_COLUMNS = ("version",)
#: Array columns (``name(0) name(1) ...``) and how many elements the server has.
ARRAY_COLUMNS = {"relations": 99, "contacts": 99, "rejects": 99}

#: Fields that run to a closing character: strings and symbol sets.
_CLOSING = {'"': '"', "(": ")"}
_COLUMN_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)(?:\((\d+)\))?$")
_NUMBER_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_IDENT_RE = re.compile(r"^[A-Za-z][^\"#()<>= \t\n]*$")


@dataclass
class Record:
    """One record: its line as read (without the newline), its fields and line number."""

    line: str
    fields: list[str]
    lineno: int


@dataclass
class Table:
    """One table of a dump, with every line it was written with."""

    name: str
    human: bool
    header: str
    columns: list[str]
    column_line: str | None
    records: list[Record] = field(default_factory=list)
    footer: str = "/config"
    before: str = ""
    header_lineno: int = 0

    def index(self, column: str) -> int:
        """The field position of ``column``, or -1 if this dump lacks it."""
        try:
            return self.columns.index(column)
        except ValueError:
            return -1

    def text(self) -> str:
        """The table as it is written, records re-joined from their fields if edited."""
        lines = [self.header]
        if self.column_line is not None:
            lines.append(self.column_line)
        lines += [r.line for r in self.records]
        lines.append(self.footer)
        return self.before + "".join(line + "\n" for line in lines)


@dataclass
class Dump:
    """A whole dump: its tables in file order and whatever trails the last one."""

    source: str
    tables: list[Table] = field(default_factory=list)
    tail: str = ""

    def table(self, name: str) -> Table | None:
        for t in self.tables:
            if t.name == name:
                return t
        return None

    def text(self) -> str:
        return "".join(t.text() for t in self.tables) + self.tail


def split_fields(line: str, where: str) -> list[str]:
    """The fields of a record line: numbers, ``"strings"``, symbols and ``(symbol sets)``.

    Fields are kept as written (strings with their quotes and escapes), so an
    untouched field is written back unchanged.
    """
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch in " \t":
            i += 1
            continue
        if ch == "#":
            break
        if ch in _CLOSING:
            j = line.find(_CLOSING[ch], i + 1)
            if j < 0:
                what = "unterminated string" if ch == '"' else "unmatched '('"
                raise InputError(f"{where}: {what} in field {len(out) + 1}")
            out.append(line[i : j + 1])
            i = j + 1
        else:
            j = i
            while j < n and line[j] not in " \t#":
                j += 1
            out.append(line[i:j])
            i = j
        if i < n and line[i] not in " \t#":
            raise InputError(f"{where}: bad field separator after field {len(out)}")
    return out


def unquote(text: str, where: str) -> str | None:
    """A string field's value (``nil`` is ``None``); octal escapes decoded."""
    if text == "nil":
        return None
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise InputError(f"{where}: expected a string, got {text}")
    return unescape(text[1:-1], where)


def unescape(body: str, where: str) -> str:
    """Text with the dump's octal escapes decoded; the escaped bytes are UTF-8 (else Latin-1)."""
    out, i = bytearray(), 0
    while i < len(body):
        if body[i] == "\\":
            code = body[i + 1 : i + 4]
            if len(code) != 3 or any(c not in "01234567" for c in code) or int(code, 8) > 255:
                raise InputError(f"{where}: invalid escape sequence in {body}")
            out.append(int(code, 8))
            i += 4
        else:
            out += body[i].encode()
            i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return out.decode("latin-1")  # an old game's bytes: keep them readable


def escape(value: str) -> str:
    """``value`` with blanks, quotes, backslashes and non-ASCII bytes (UTF-8) escaped."""
    return "".join(
        chr(b) if 33 <= b <= 126 and b not in b'"\\' else f"\\{b:03o}" for b in value.encode()
    )


def quote(value: str | None) -> str:
    """``value`` as a dump string (``None`` is ``nil``)."""
    return "nil" if value is None else f'"{escape(value)}"'


def _check_columns(name: str, columns: list[str], where: str) -> None:
    """Known tables need their known columns, but for those only a deity sees."""
    free = name in FREE_COLUMNS
    known = () if free else KNOWN_COLUMNS[name]
    seen: set[str] = set()
    for col in columns:
        m = _COLUMN_RE.match(col)
        if not m:
            raise InputError(f"{where}: malformed column header '{col}'")
        base, idx = m.group(1), m.group(2)
        if not free and base not in known:
            raise InputError(f"{where}: table {name} has no column '{base}'")
        if (idx is None) != (base not in ARRAY_COLUMNS):
            problem = "needs an index" if idx is None else "takes no index"
            raise InputError(f"{where}: column '{base}' {problem}")
        if col in seen:
            raise InputError(f"{where}: column '{col}' appears twice")
        seen.add(col)
    if free:
        return
    if columns[0] != known[0]:
        raise InputError(f"{where}: the first column of table {name} must be '{known[0]}'")
    hidden = DEITY_COLUMNS.get(name, frozenset())
    for base in known:
        if base not in ARRAY_COLUMNS and base not in seen and base not in hidden:
            raise InputError(f"{where}: table {name} lacks column '{base}'")


def _machine_columns(name: str) -> list[str]:
    cols: list[str] = []
    for base in KNOWN_COLUMNS[name]:
        if base in ARRAY_COLUMNS:
            cols += [f"{base}({i})" for i in range(ARRAY_COLUMNS[base])]
        else:
            cols.append(base)
    return cols


def parse_dump(text: str, source: str) -> Dump:
    """Split dump ``text`` into tables; a malformed line is a one-line :class:`InputError`
    naming ``source`` and the line number."""
    if "\x00" in text:
        raise InputError(f"{source}: not a text file")
    lines = text.split("\n")
    complete = text.endswith("\n") or text == ""
    if complete:
        lines.pop()
    dump = Dump(source)
    pending = ""
    i = 0

    def where(k: int) -> str:
        return f"{source}:{k + 1}"

    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if stripped == "" or stripped.startswith("#"):
            pending += raw + "\n"
            i += 1
            continue
        name, human = _header(stripped.split(), dump, where(i))
        header_at = i
        i += 1
        if human:
            if i >= len(lines):
                raise InputError(f"{where(i)}: unexpected end of file in table {name}")
            column_line: str | None = lines[i]
            columns = lines[i].split()
            if columns and columns[-1] == "...":
                raise InputError(f"{where(i)}: tables split into parts are not supported")
            _check_columns(name, columns, where(i))
            i += 1
        else:
            column_line, columns = None, _machine_columns(name)
        table = Table(name, human, raw, columns, column_line, before=pending)
        table.header_lineno = header_at + 1
        pending = ""
        i = _read_records(lines, i, table, where)
        dump.tables.append(table)
    if not complete and lines:
        raise InputError(f"{source}:{len(lines)}: no newline at the end (truncated?)")
    dump.tail = pending
    return dump


def _header(words: list[str], dump: Dump, where: str) -> tuple[str, bool]:
    """A table's name, and whether it is the human-readable kind (``config``)."""
    if words[0] == "config" and len(words) == 2:
        human = True
    elif words[0] == "XDUMP" and len(words) == 3 and to_int(words[2], signed=True) is not None:
        human = False
    else:
        raise InputError(f"{where}: expected a table header ('config <table>')")
    name = words[1]
    if name not in KNOWN_COLUMNS and not (human and name in FREE_COLUMNS):
        raise InputError(f"{where}: unknown table '{name}'")
    if dump.table(name) is not None:
        raise InputError(f"{where}: table '{name}' appears twice")
    return name, human


def _read_records(lines: list[str], i: int, table: Table, where: Callable[[int], str]) -> int:
    """The table's records from line ``i`` up to its footer; the line after the footer."""
    name, columns = table.name, table.columns
    while True:
        if i >= len(lines):
            raise InputError(f"{where(i)}: unexpected end of file in table {name}")
        line = lines[i]
        if line.startswith("/"):
            _check_footer(line.strip(), table, where(i))
            table.footer = line
            return i + 1
        if line.strip() == "" or line.strip().startswith("#"):
            raise InputError(f"{where(i)}: blank lines inside a table are not supported")
        fields = split_fields(line, where(i))
        if len(fields) != len(columns):
            raise InputError(
                f"{where(i)}: table {name} expects {len(columns)} fields, got {len(fields)}"
            )
        for k, f in enumerate(fields):
            if not (_NUMBER_RE.match(f) or f.startswith(('"', "(")) or _IDENT_RE.match(f)):
                raise InputError(f"{where(i)}: malformed field {k + 1} ({columns[k]}): {f}")
        table.records.append(Record(line, fields, i + 1))
        i += 1


def _check_footer(footer: str, table: Table, where: str) -> None:
    if table.human:
        if footer != "/config":
            raise InputError(f"{where}: malformed table footer '{footer}'")
        return
    count = to_int(footer[1:])
    if count is None:
        raise InputError(f"{where}: malformed table footer '{shown(footer)}'")
    if count != len(table.records):
        raise InputError(f"{where}: footer says {count} records, read {len(table.records)}")


def format_float(x: float) -> str:
    """A float as the server's dumps write it (C's ``%#g``)."""
    return format(x, "#g")
