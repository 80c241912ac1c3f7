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


def write_atomic(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Replace the file at ``path`` by ``text`` atomically (see the module notes)."""
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
        if not mode & stat.S_IWUSR:
            raise InputError(f"{shown}: cannot write: the file is read-only")
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"{shown}: cannot write: no folder {folder}")
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
