"""Writing user files safely: all of it or nothing, where the user expects it.

Every file bellum writes for a user (worlds, scenarios, dumps) goes through
:func:`write_atomic`: the text goes to a temporary file beside the target,
is flushed to disk, takes the target's permissions and replaces it in one
rename.  A symbolic link is written through (the link stays a link), a
read-only file or anything that is not a regular file is refused, and every
failure is one :class:`~bellum.errors.InputError` line naming the file.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from bellum.errors import InputError

DEFAULT_MODE = 0o644


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return DEFAULT_MODE & ~mask


def check_readable(path: str | os.PathLike[str]) -> None:
    """Refuse, as one :class:`~bellum.errors.InputError` naming ``path`` as given, a
    device (``/dev/null``, a terminal) or a socket: reading one gives nothing or waits
    for ever.  Regular files and pipes (``--world <(...)``) pass; a missing file is left
    to the reader, which names it in its own words."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise InputError(f"{os.fspath(path)}: not a regular file")


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise the :class:`~bellum.errors.InputError` :func:`write_atomic` would raise for
    ``path``, writing nothing: a command checks its output before its work, so a file it
    cannot write is refused in one line before anything is printed."""
    _destination(path)


def _destination(path: str | os.PathLike[str]) -> tuple[Path, Path, int]:
    """The name as given, the file written (a link's target) and the mode it will have."""
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
            raise InputError(f"{shown}: cannot write: not a regular file")
        mode = stat.S_IMODE(info.st_mode)
        if not mode & stat.S_IWUSR or not os.access(target, os.W_OK):
            raise InputError(f"{shown}: cannot write: the file is read-only")
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"{shown}: cannot write: no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{shown}: cannot write: the folder {folder} is read-only")
    return shown, target, mode


def write_atomic(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Replace the file at ``path`` by ``text`` atomically (see the module notes)."""
    shown, target, mode = _destination(path)
    folder = target.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"{shown}: cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"{shown}: cannot write: {exc.strerror}") from None
        raise
