"""Terminal conventions shared by every command group.

One place decides whether output is coloured, so ``bellum odds`` and ``bellum panzer``
cannot drift apart on the ``NO_COLOR`` convention again.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO


def use_color(stream: TextIO | None = None) -> bool:
    """Colour only on a terminal, and not when ``NO_COLOR`` is set to a non-empty value.

    no-color.org: "when present and not an empty string" NO_COLOR disables colour, so an
    empty ``NO_COLOR=`` leaves it on.
    """
    out = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR", ""):
        return False
    try:
        return out.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


#: Control characters a terminal would act on, bar the line feed, the tab and the bell
#: (which the server itself sends before its loudest news): a server could move the
#: cursor or rewrite lines with them.
_UNSAFE = re.compile("[\x00-\x06\x08\x0b-\x1f\x7f-\x9f]")


def safe_text(text: str) -> str:
    """``text`` for a terminal: control characters other than the line feed, the tab and
    the bell shown as ``\\xNN`` escapes."""
    return _UNSAFE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
