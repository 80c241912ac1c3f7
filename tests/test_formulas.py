"""The fight's formulas exist once (bellum.formulas): the rules, the solvers and the
kernels all call them, and nothing else draws the jitter or the window by hand."""

from __future__ import annotations

import ast
from pathlib import Path

from bellum.dice import ServerRandom
from bellum.formulas import (
    JITTERS,
    WINDOW_BASE,
    WINDOW_CHOICES,
    WINDOW_MAX,
    WINDOW_MIN,
    chance_probability,
    jitter,
    odds,
    window_survival,
)

SRC = Path(__file__).resolve().parents[1] / "src" / "bellum"


def test_the_formulas_are_the_servers() -> None:
    assert (odds(0, 5), odds(5, 0), odds(1, 3)) == (0.0, 1.0, 0.25)
    assert JITTERS == (-0.05, -0.04, -0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03, 0.04, 0.05)
    assert (jitter(0.02, -0.05), jitter(0.98, 0.05), jitter(0.5, 0.01)) == (0.1, 1.0, 0.51)
    assert (WINDOW_MIN, WINDOW_MAX) == (9, 51)
    assert window_survival(WINDOW_MIN) == 1.0 and window_survival(WINDOW_MAX) == 1 / 43
    dice = ServerRandom(7)
    lengths = {WINDOW_BASE + dice.roll(WINDOW_CHOICES) + 1 for _ in range(5000)}
    assert lengths == set(range(WINDOW_MIN, WINDOW_MAX + 1))
    assert chance_probability(0.5) == 0.5 and chance_probability(1e-12) == 2**-32


def test_no_other_module_draws_the_jitter_or_the_window() -> None:
    """``roll(11)`` and ``roll(43)`` are the formulas' draws; written out anywhere else,
    they would be a second copy of the fight to keep in step."""
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "roll"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                assert node.args[0].value not in (11, 43), f"{path}:{node.lineno}"
