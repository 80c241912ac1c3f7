"""Reading and writing user files safely: bounded reads, and all of a write or nothing.

Reading (:func:`read_input`): only regular files are read - a FIFO would
block forever and ``/dev/zero`` never ends - and at most
:data:`MAX_INPUT_BYTES`, so a wrong path fails in one line instead of
eating the machine's memory.

Writing (:func:`write_atomic`): every file bellum writes for a user (worlds,
scenarios, dumps, plots) goes to a temporary file beside the target, is
flushed to disk, takes the target's permissions and replaces it in one
rename.  A symbolic link is written through (the link stays a link), a
read-only file or anything that is not a regular file is refused, and an
existing file that is not of the :class:`Kind` being written (a note, a
database) is only replaced when the caller passes ``force``.  Every failure
is one :class:`~bellum.errors.InputError` line naming the file.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bellum.errors import InputError

DEFAULT_MODE = 0o644
#: The most bytes bellum reads from one input file (a world, scenario, dump or
#: econfig).  The largest world bellum accepts takes a few megabytes as TOML.
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: How much of an existing file is looked at to tell what kind of file it is.
SNIFF_BYTES = 4096
SQLITE_MAGIC = b"SQLite format 3\x00"


def _what_is(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def check_regular(path: str | os.PathLike[str], what: str = "file") -> None:
    """Refuse ``path`` unless it is a regular file (or a link to one); ``stat`` never blocks."""
    p = Path(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        raise InputError(f"{p}: no such {what}") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{p}: {_what_is(info.st_mode)}, not a {what}")


def read_input(
    path: str | os.PathLike[str],
    what: str = "file",
    limit: int = MAX_INPUT_BYTES,
    *,
    pipes: bool = False,
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    The file is opened without blocking and checked on the open descriptor, so
    a FIFO or device given by mistake (or swapped in) is refused, not read.
    With ``pipes`` a pipe is read too (``<(pass show game)`` for a secret): up to
    ``limit`` bytes, and a named FIFO nobody writes to reads as empty, never hangs.
    """
    p = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise InputError(f"{p}: no such {what}") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        pipe = pipes and stat.S_ISFIFO(info.st_mode)
        if not stat.S_ISREG(info.st_mode) and not pipe:
            raise InputError(f"{p}: {_what_is(info.st_mode)}, not a {what}")
        if info.st_size > limit:
            raise _too_big(p, what, limit)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise _too_big(p, what, limit)
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """The TOML document ``text``; every problem is one :class:`InputError` naming ``where``.

    Besides syntax errors, Python's reader raises a bare ``ValueError`` for an
    integer of more than 4,300 digits and ``RecursionError`` for arrays or
    tables nested some hundreds deep; both are refused here like any bad TOML.
    """
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: malformed TOML: {exc}") from None
    except ValueError:
        raise InputError(f"{where}: malformed TOML: a number with too many digits") from None
    except RecursionError:
        raise InputError(f"{where}: malformed TOML: arrays or tables nested too deep") from None


def _too_big(p: Path, what: str, limit: int) -> InputError:
    return InputError(
        f"{p}: too big for a {what} (bellum reads at most {limit // (1024 * 1024)} MB)"
    )


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same path, a link to it, or a hard link."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where they would be
        return os.path.realpath(a) == os.path.realpath(b)


# -- kinds of files --------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A kind of file bellum writes, and how to recognise one that already exists."""

    noun: str
    recognise: Callable[[bytes], bool]


def _text_lines(head: bytes) -> list[str]:
    text = head.decode("utf-8", errors="replace")
    return [line.strip() for line in text.splitlines()[:200]]


_TOML_TABLE = re.compile(r"^\[\[?\s*([A-Za-z_.\"-]+)\s*\]\]?")


def _toml_tables(head: bytes) -> set[str]:
    found = set()
    for line in _text_lines(head):
        m = _TOML_TABLE.match(line)
        if m:
            found.add(m.group(1).split(".")[0].strip('"'))
        elif line.startswith("schema_version"):
            found.add("schema_version")
    return found


def _is_world(head: bytes) -> bool:
    tables = _toml_tables(head)
    scenario = {"map", "units", "parameter_data"}
    world = {"world", "nation", "sector", "ship", "unit", "plane", "options", "schema_version"}
    return bool(tables & world) and not tables & scenario


def _is_scenario(head: bytes) -> bool:
    return bool(_toml_tables(head) & {"map", "units", "parameter_data"})


def _is_dump(head: bytes) -> bool:
    for line in _text_lines(head):
        if line and not line.startswith("#"):
            return line.startswith(("config ", "XDUMP "))
    return False


_IMAGE_MAGIC = (b"\x89PNG", b"%PDF", b"%!PS", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*", b"RIFF")


def _is_image(head: bytes) -> bool:
    return head.startswith(_IMAGE_MAGIC) or b"<svg" in head[:SNIFF_BYTES]


WORLD = Kind("bellum world file", _is_world)
SCENARIO = Kind("Panzer scenario", _is_scenario)
DUMP = Kind("Empire dump", _is_dump)
IMAGE = Kind("image", _is_image)


def _looks_like(head: bytes) -> str:
    if head.startswith(SQLITE_MAGIC):
        return " (it is an SQLite database)"
    for kind in (WORLD, SCENARIO, DUMP, IMAGE):
        if kind.recognise(head):
            return f" (it is {'an' if kind.noun[0] in 'aeiouE' else 'a'} {kind.noun})"
    return ""


def check_overwrite(path: str | os.PathLike[str], kind: Kind, force: bool = False) -> None:
    """Refuse to replace an existing, non-empty file at ``path`` that is not a ``kind``
    (unless ``force``): a mistyped ``--out`` must not eat a database or a note."""
    if force:
        return
    p = Path(path)
    try:
        if not p.is_file() or p.stat().st_size == 0:
            return
        with p.open("rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return  # the write itself reports what is wrong with the file
    if not kind.recognise(head):
        raise InputError(
            f"{p}: exists and is not {'an' if kind.noun[0] in 'aeiouE' else 'a'} {kind.noun}"
            f"{_looks_like(head)}; not overwritten (use --force to replace it)"
        )


# -- writing ---------------------------------------------------------------------


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return DEFAULT_MODE & ~mask


def check_writable(
    path: str | os.PathLike[str], kind: Kind | None = None, force: bool = False
) -> None:
    """Raise the :class:`~bellum.errors.InputError` :func:`write_atomic` would raise for
    ``path``, writing nothing: a command checks its output before its work, so a file it
    cannot write is refused in one line before anything is printed."""
    _destination(path, kind, force)


def _destination(
    path: str | os.PathLike[str], kind: Kind | None = None, force: bool = False
) -> tuple[Path, Path, int]:
    """The name as given, the file written (a link's target) and the mode it will have;
    an existing file of another ``kind`` is kept unless ``force``."""
    shown = Path(path)
    if not str(path):
        raise InputError("an empty file name was given")
    target = shown.resolve() if shown.is_symlink() else shown
    try:
        info = target.stat()
    except FileNotFoundError:
        mode = _umask_mode()
    except OSError as exc:
        raise InputError(f"{shown}: cannot write: {exc.strerror}") from None
    else:
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown}: cannot write: {_what_is(info.st_mode)}, not a regular file")
        mode = stat.S_IMODE(info.st_mode)
        if not mode & stat.S_IWUSR or not os.access(target, os.W_OK):
            raise InputError(f"{shown}: cannot write: the file is read-only")
        if kind is not None:
            check_overwrite(target, kind, force)
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"{shown}: cannot write: no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{shown}: cannot write: the folder {folder} is read-only")
    return shown, target, mode


def write_atomic(
    path: str | os.PathLike[str],
    text: str | bytes,
    encoding: str = "utf-8",
    *,
    kind: Kind | None = None,
    force: bool = False,
) -> None:
    """Replace the file at ``path`` by ``text`` atomically (see the module notes).

    ``kind`` names what is written; an existing file of another kind is kept
    unless ``force``.
    """
    import tempfile  # here: only a command that writes a file pays for it

    shown, target, mode = _destination(path, kind, force)
    folder = target.parent
    data = text.encode(encoding) if isinstance(text, str) else text
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"{shown}: cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):  # the error that stopped the write is the one
            Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"{shown}: cannot write: {exc.strerror}") from None
        raise
