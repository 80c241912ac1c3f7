"""The allocation: which targets to attack, at which force, from which sources.

This is weapon–target assignment with separable curves.  Each target has
*options*: one fully specified attack each (a force level and the sources
that send it), with its value to the planner (prize × P(success) minus the
cost of the expected losses) and the resources it uses: mil and mobility
of a sector, BTUs, and each land unit, ship and plane (capacity 1, so used
once).  The plan takes at most one option per target and stays within every
resource's capacity:

    maximise   Σ value(o) · x(o)
    subject to Σ_{o of t} x(o) ≤ 1                      for every target t
               Σ_o uses(o, r) · x(o) ≤ capacity(r)      for every resource r
               x(o) ∈ {0, 1}

solved as a mixed-integer program by HiGHS (``scipy.optimize.milp``), which
reports the optimality gap it proved.  :func:`greedy` is the baseline a
player would use by hand; :func:`solve` runs both, so every plan says how
much better than greedy it is.

The second objective, ``count``, takes as many targets as possible among
the options with P(success) ≥ ``min_p``; among the plans that take that
many, it keeps the one of highest value (a second solve with the count
fixed).
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from bellum.errors import InputError

Objective = Literal["value", "count"]

#: The relative optimality gap HiGHS stops at by default (the issue asks for ≤ 1 %).
DEFAULT_GAP = 1e-4
#: Seconds HiGHS may spend before it returns its best plan and the gap it proved.
DEFAULT_TIME_LIMIT = 30.0


@dataclass(frozen=True)
class Option:
    """One way to take one target: its value and the resources it uses.

    ``uses`` maps a resource name (``mil:3,1``, ``mob:3,1``, ``unit:7``,
    ``ship:2``, ``plane:5``, ``btu``) to the amount used; a resource missing
    from the problem's capacities has capacity 1.
    """

    target: str
    value: float
    uses: Mapping[str, float] = field(default_factory=dict)
    p: float = 1.0
    label: str = ""


@dataclass(frozen=True)
class Problem:
    """Options for every target and the capacity of every shared resource."""

    options: Sequence[Option]
    capacity: Mapping[str, float] = field(default_factory=dict)

    def cap(self, resource: str) -> float:
        return self.capacity.get(resource, 1.0)

    def feasible(self, chosen: Sequence[int]) -> bool:
        """Whether the options ``chosen`` (indices) form a plan: one per target, within
        every capacity (a tolerance of 1e-9 absorbs rounding)."""
        targets = [self.options[i].target for i in chosen]
        if len(set(targets)) != len(targets):
            return False
        used: dict[str, float] = {}
        for i in chosen:
            for r, n in self.options[i].uses.items():
                used[r] = used.get(r, 0.0) + n
        return all(n <= self.cap(r) + 1e-9 for r, n in used.items())

    def value(self, chosen: Sequence[int]) -> float:
        return float(sum(self.options[i].value for i in chosen))


@dataclass(frozen=True)
class Allocation:
    """A plan: the options chosen (indices into the problem's options) and how it was found.

    ``bound`` is the best value any plan could reach that the solver proved
    (the plan's own value for an exhaustive method, ``None`` for greedy);
    ``gap`` is ``(bound - value) / max(|bound|, 1)``.
    """

    chosen: tuple[int, ...]
    value: float
    method: str
    seconds: float
    bound: float | None = None
    status: str = "optimal"

    @property
    def gap(self) -> float | None:
        if self.bound is None:
            return None
        return max(0.0, self.bound - self.value) / max(abs(self.bound), 1.0)


def _eligible(problem: Problem, objective: Objective, min_p: float) -> list[int]:
    """Options worth considering: positive value, or P ≥ ``min_p`` when counting."""
    if objective == "count":
        return [i for i, o in enumerate(problem.options) if o.p >= min_p]
    return [i for i, o in enumerate(problem.options) if o.value > 0]


def greedy(problem: Problem, objective: Objective = "value", min_p: float = 0.0) -> Allocation:
    """The hand-made plan: best option first, while it fits.

    For ``value`` the options go by value, highest first.  For ``count`` they
    go by the share of the scarcest resource they use, smallest first (so the
    cheap targets are all taken), then by value.
    """
    start = time.perf_counter()
    idx = _eligible(problem, objective, min_p)
    if objective == "count":

        def footprint(i: int) -> float:
            uses = problem.options[i].uses
            return max((n / problem.cap(r) for r, n in uses.items() if n > 0), default=0.0)

        idx.sort(key=lambda i: (footprint(i), -problem.options[i].value, i))
    else:
        idx.sort(key=lambda i: (-problem.options[i].value, i))
    chosen: list[int] = []
    taken: set[str] = set()
    used: dict[str, float] = {}
    for i in idx:
        o = problem.options[i]
        if o.target in taken:
            continue
        if any(used.get(r, 0.0) + n > problem.cap(r) + 1e-9 for r, n in o.uses.items()):
            continue
        chosen.append(i)
        taken.add(o.target)
        for r, n in o.uses.items():
            used[r] = used.get(r, 0.0) + n
    chosen.sort()
    seconds = time.perf_counter() - start
    return Allocation(tuple(chosen), problem.value(chosen), "greedy", seconds, None, "heuristic")


def solve(
    problem: Problem,
    objective: Objective = "value",
    min_p: float = 0.0,
    *,
    gap: float = DEFAULT_GAP,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> Allocation:
    """The best plan by HiGHS's branch and bound, within ``gap`` of the optimum.

    The greedy plan is never beaten by its own optimum: if the solver stops
    on its time limit with a worse plan than greedy's, greedy's is returned
    (with the solver's bound, so the gap stays honest).
    """
    if not 0 <= gap < 1 or not math.isfinite(time_limit) or time_limit <= 0:
        raise InputError("the optimality gap must be in [0, 1) and the time limit positive")
    start = time.perf_counter()
    base = greedy(problem, objective, min_p)
    idx = _eligible(problem, objective, min_p)
    if not idx:
        return Allocation((), 0.0, "milp (HiGHS)", time.perf_counter() - start, 0.0)
    if objective == "count":
        counted = _milp(problem, idx, [1.0] * len(idx), None, gap=0.0, time_limit=time_limit)
        most = round(-counted.fun) if counted.x is not None else len(base.chosen)
        weights = [problem.options[i].value for i in idx]
        res = _milp(problem, idx, weights, most, gap=gap, time_limit=time_limit)
    else:
        res = _milp(problem, idx, [problem.options[i].value for i in idx], None,
                    gap=gap, time_limit=time_limit)  # fmt: skip
    seconds = time.perf_counter() - start
    status = "optimal" if res.status == 0 else "time limit" if res.status == 1 else "failed"
    bound = -float(res.mip_dual_bound) if res.mip_dual_bound is not None else None
    if res.x is None:
        return Allocation(base.chosen, base.value, "greedy (solver failed)", seconds, bound, status)
    chosen = tuple(i for i, x in zip(idx, res.x, strict=True) if x > 0.5)
    value = problem.value(chosen)
    if objective == "value" and value < base.value:
        method = "greedy (solver stopped)"
        return Allocation(base.chosen, base.value, method, seconds, bound, status)
    return Allocation(chosen, value, "milp (HiGHS)", seconds, bound, status)


def _import_solver() -> None:
    with suppress(ImportError):  # the allocation's own import will say so
        for name in ("scipy.optimize", "scipy.sparse"):
            importlib.import_module(name)


_warming: threading.Thread | None = None
#: Plans run side by side (the web page's threads) start one import between them.
_warm_lock = threading.Lock()


def warm() -> threading.Thread | None:
    """Import the solver (``scipy.optimize``: about 0.4 s) in a background thread, so
    that the first :func:`solve` does not wait for it (the planner starts it once its
    pool's workers are screening).  Returns the thread, or ``None`` when the solver is
    imported (or being imported) already."""
    global _warming
    with _warm_lock:
        if "scipy.optimize" in sys.modules or (_warming is not None and _warming.is_alive()):
            return None
        _warming = threading.Thread(target=_import_solver, name="import-highs", daemon=True)
        _warming.start()
        return _warming


def _settle() -> None:
    """Before a fork, let the import finish: the child would inherit the locks of the
    modules being imported, held by a thread it does not have (a worker that then
    imported one of them would wait forever).  The lock: :func:`warm` names the thread
    before it starts it, and a thread not started yet is not alive."""
    with _warm_lock:
        thread = _warming
    if thread is not None and thread.is_alive() and thread is not threading.current_thread():
        thread.join()


os.register_at_fork(before=_settle)


def _milp(
    problem: Problem,
    idx: list[int],
    weights: list[float],
    count: int | None,
    *,
    gap: float,
    time_limit: float,
) -> Any:
    """One HiGHS solve over the options ``idx`` (maximise Σ weight · x); with ``count``
    the plan must take exactly that many targets."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_array

    targets = sorted({problem.options[i].target for i in idx})
    resources = sorted({r for i in idx for r in problem.options[i].uses})
    row = {t: k for k, t in enumerate(targets)}
    row.update({r: len(targets) + k for k, r in enumerate(resources)})
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for col, i in enumerate(idx):
        o = problem.options[i]
        rows.append(row[o.target])
        cols.append(col)
        vals.append(1.0)
        for r, n in o.uses.items():
            if n:
                rows.append(row[r])
                cols.append(col)
                vals.append(float(n))
    shape = (len(targets) + len(resources), len(idx))
    a = coo_array((vals, (rows, cols)), shape=shape).tocsr()
    upper = np.array([1.0] * len(targets) + [problem.cap(r) for r in resources])
    constraints = [LinearConstraint(a, -np.inf, upper)]
    if count is not None:
        constraints.append(LinearConstraint(np.ones((1, len(idx))), count, count))
    with _quiet_stdout():
        return milp(
            c=-np.asarray(weights, dtype=float),
            constraints=constraints,
            integrality=np.ones(len(idx)),
            bounds=Bounds(0, 1),
            options={"mip_rel_gap": gap, "time_limit": time_limit, "disp": False},
        )


@contextmanager
def _quiet_stdout() -> Iterator[None]:
    """The process's standard output shut while HiGHS solves: its MIP solver prints a debug
    line there now and then whatever ``disp`` says (``HighsMipSolverData::
    transformNewIntegerFeasibleSolution``, on the 256x128 benchmark), which would break
    ``bellum empire plan --json``."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


__all__ = [
    "DEFAULT_GAP",
    "Allocation",
    "Objective",
    "Option",
    "Problem",
    "greedy",
    "solve",
    "warm",
]
