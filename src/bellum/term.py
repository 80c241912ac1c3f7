"""Terminal conventions shared by every command group.

One place decides whether output is coloured, so ``bellum odds`` and ``bellum panzer``
cannot drift apart on the ``NO_COLOR`` convention again.
"""

from __future__ import annotations

import os
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
