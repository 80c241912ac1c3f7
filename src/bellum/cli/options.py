"""Options several command groups share, declared once so they cannot drift apart.

``--seed`` takes 0..2**32-1 everywhere: the range of the server's ``init_genrand``
(Empire and Panzer dice), which numpy's seed sequences (Monte Carlo) accept too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

#: The largest seed: the server's MT19937 is seeded with a 32-bit word.
SEED_MAX = 2**32 - 1

F = TypeVar("F", bound=Callable[..., Any])


def seed_option(help: str = "Seed the random draws (printed when not given).") -> Callable[[F], F]:
    """``--seed N``, 0..2**32-1, ``None`` when not given."""
    return click.option("--seed", type=click.IntRange(0, SEED_MAX), default=None, help=help)


def json_option(help: str = "Print the result as JSON.") -> Callable[[F], F]:
    """``--json``, as the ``as_json`` parameter."""
    return click.option("--json", "as_json", is_flag=True, help=help)


__all__ = ["SEED_MAX", "json_option", "seed_option"]
