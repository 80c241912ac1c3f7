"""``fight_odds``: choose a method, run it, and package an :class:`OddsResult`.

Method choice follows Wesnoth's attack predictor: exact unless the fight is
too big to solve quickly, then Monte Carlo; both can be forced.  The measure
of size is the number of lattice states ``A·D`` (A, D = rounds each side can
lose), compared with a per-model threshold:

============== =================== ====================
model          with numba          numpy only
============== =================== ====================
per-casualty   4·10⁸ states        4·10⁸ states
server         5·10⁶ states        2.5·10⁵ states
============== =================== ====================

Each is about a few seconds of work on a 2-core machine (see
``benchmarks/run.py``).

With ``backend="auto"`` numba (the ``[fast]`` extra) is used only where it
pays for loading its compiled code (a few tenths of a second): exact
solutions from :data:`NUMBA_FROM_STATES` states and server-model Monte Carlo
from :data:`NUMBA_FROM_STEPS` expected casualty-steps.  Per-casualty Monte
Carlo always runs in numpy under ``auto``: the compiled loop is no faster
than numpy's vectorised one, so loading numba would only add time.

A forced exact solution is refused when it needs more memory than
``max_memory`` or more than 100 times the threshold's work; a Monte Carlo
estimate is refused when :func:`mc_seconds` puts it above
:data:`MAX_MC_SECONDS` (so a huge fight fails in one line at once instead of
running for minutes), and again after its first batch when the speed measured
there puts it above (a busy or slow machine); a run that slows down later stops
at the limit with a note.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Literal

import numpy as np

from bellum.errors import InputError
from bellum.odds._common import numba_importable, numba_wanted
from bellum.odds.exact import (
    per_casualty_exact,
    per_casualty_tau,
    resolve_backend,
    server_exact,
    server_tau,
)
from bellum.odds.limits import (
    DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_RUNS,
    METHODS,
    MODELS,
    Method,
    Model,
)
from bellum.odds.montecarlo import (
    BATCH_RUNS,
    DEFAULT_RUNS,
    TooSlow,
    monte_carlo,
)
from bellum.odds.result import (
    ATTACKER,
    ATTACKER_WINS,
    DEFENDER,
    DEFENDER_WINS,
    FightEndStates,
    LossDistribution,
    OddsResult,
)
from bellum.odds.side import Side

Backend = Literal["auto", "numpy", "numba"]

#: Largest ``A·D`` solved exactly when the method is ``auto``: (numba, numpy).
EXACT_LIMITS: dict[str, tuple[float, float]] = {
    "per-casualty": (4e8, 4e8),
    "server": (5e6, 2.5e5),
}
#: Smallest ``A·D`` for which ``backend="auto"`` uses numba in an exact solver.
NUMBA_FROM_STATES: dict[str, float] = {"per-casualty": 2e8, "server": 1.5e5}
#: Smallest expected number of casualty-steps for which Monte Carlo uses numba.
NUMBA_FROM_STEPS: dict[str, float] = {"per-casualty": math.inf, "server": 5e7}
#: A forced exact solution may take at most this many times the auto limit.
FORCED_FACTOR = 100
#: Monte Carlo cost on a 2-core machine: one simulated casualty, and one numpy pass (a
#: round) over a batch of runs, whatever the number of runs still fighting in it.
MC_SECONDS_PER_STEP = 1e-8
MC_SECONDS_PER_PASS = 3e-5
#: Longest Monte Carlo estimate started without being asked to change the options.
MAX_MC_SECONDS = 60.0


def exact_memory(att: Side, dfd: Side, model: Model) -> int:
    """Bytes an exact solver needs beyond the sides themselves (an estimate)."""
    if model == "per-casualty":
        return 8 * (4 * (att.rounds + 1) + dfd.rounds + 1)
    # Two rings of 52 diagonals (numpy) and a chunk's triangles (52 x 53 x 320).
    return 8 * (104 * (att.rounds + 52) + att.rounds + dfd.rounds + 52 * 53 * 320)


def choose_method(att: Side, dfd: Side, model: Model, backend: Backend = "auto") -> str:
    """``exact`` or ``monte-carlo`` for ``method="auto"`` (see the module table)."""
    return "exact" if att.rounds * dfd.rounds <= _exact_limit(model, backend) else "monte-carlo"


def _exact_limit(model: Model, backend: Backend) -> float:
    """The auto threshold for the backend that would run (without importing numba)."""
    fast = backend == "numba" or (backend == "auto" and numba_wanted())
    return EXACT_LIMITS[model][0 if fast else 1]


def choose_backend(
    backend: Backend, model: Model, att: Side, dfd: Side, exact: bool, runs: int
) -> Literal["numpy", "numba"]:
    """The backend a job runs on: numba for big jobs when available, else numpy."""
    if backend != "auto":
        return resolve_backend(backend)
    if not numba_wanted():
        return "numpy"
    if exact:
        big = att.rounds * dfd.rounds >= NUMBA_FROM_STATES[model]
    else:
        big = runs * (att.rounds + dfd.rounds) / 2 >= NUMBA_FROM_STEPS[model]
    # A numba that fails to import (say, too old for this numpy) is skipped.
    return "numba" if big and numba_importable() is None else "numpy"


def fight_odds(
    att: Side,
    dfd: Side,
    model: Model = "server",
    method: Method = "auto",
    *,
    runs: int | None = None,
    target_error: float | None = None,
    max_runs: int = DEFAULT_MAX_RUNS,
    seed: int | None = None,
    backend: Backend = "auto",
    max_memory: int = DEFAULT_MAX_MEMORY,
    prune: bool = True,
    progress: Callable[[float], None] | None = None,
) -> OddsResult:
    """The outcome distribution of ``att`` fighting ``dfd`` under ``model``.

    ``method="auto"`` solves exactly unless the fight exceeds
    :data:`EXACT_LIMITS`; giving ``runs`` or ``target_error`` with ``auto``
    also selects Monte Carlo.  An exact solution drops states of negligible
    probability (at most 1e-12 in all, reported as ``pruned_mass``);
    ``prune=False`` keeps every state that has not underflowed to 0.  Raises
    :class:`~bellum.errors.InputError` naming the option for contradictory options and
    :class:`~bellum.errors.InputError` for a fight that cannot be solved exactly
    within ``max_memory``.  ``progress`` hears the fraction done of a Monte Carlo.
    """
    if model not in MODELS:
        raise InputError(
            f"unknown model {model!r}: choose one of {', '.join(MODELS)}", field="model"
        )
    if method not in METHODS:
        raise InputError(
            f"unknown method {method!r}: choose one of {', '.join(METHODS)}", field="method"
        )
    if method == "exact" and (runs is not None or target_error is not None):
        raise InputError(
            "runs and target error apply to Monte Carlo, not to an exact solution", field="method"
        )
    chosen: str = method
    if method == "auto":
        if runs is not None or target_error is not None:
            chosen = "monte-carlo"
        else:
            chosen = choose_method(att, dfd, model, backend)
            if chosen == "exact" and exact_memory(att, dfd, model) > max_memory:
                chosen = "monte-carlo"
    start = time.perf_counter()
    if chosen == "exact":
        _check_exact_size(att, dfd, model, backend, max_memory)
        used = choose_backend(backend, model, att, dfd, True, 0)
        if model == "server":
            tau = server_tau(att, dfd) if prune else 0.0
            states, pruned = server_exact(att, dfd, tau=tau, backend=used)
        else:
            tau = per_casualty_tau(att, dfd) if prune else 0.0
            states, pruned = per_casualty_exact(att, dfd, tau=tau, backend=used)
        return _result(
            att,
            dfd,
            states,
            method="exact",
            model=model,
            pruned_mass=pruned,
            seconds=time.perf_counter() - start,
            details={"backend": used, "prune_threshold": tau},
        )
    if target_error is not None and target_error > 0:
        # Worst case p = 1/2 needs 1/(4 E²) runs; at least two batches run.
        worst = max(2 * BATCH_RUNS, math.ceil(0.25 / target_error**2))
        expected_runs = min(max_runs, worst)
        change = "loosen --target-error or lower --max-runs"
    else:
        expected_runs = runs if runs is not None else DEFAULT_RUNS
        change = "lower --runs"
    used = choose_backend(backend, model, att, dfd, False, expected_runs)
    _check_mc_size(att, dfd, expected_runs, used, change)
    try:
        mc = monte_carlo(
            att,
            dfd,
            model=model,
            runs=runs,
            target_error=target_error,
            max_runs=max_runs,
            seed=seed,
            backend=used,
            max_seconds=MAX_MC_SECONDS,
            progress=progress,
        )
    except TooSlow as slow:
        raise InputError(
            f"{slow} on this machine (limit {MAX_MC_SECONDS:g} s): {change}"
            f" (about {slow.fits} runs fit)"
        ) from None
    notes: tuple[str, ...] = ()
    if mc.cap_reached:
        notes = (
            f"standard error {mc.standard_error:.2g} is still above the target "
            f"{target_error:g} after the cap of {mc.runs} runs: raise --max-runs "
            "or accept a larger --target-error",
        )
    if mc.time_limit_reached:
        notes = (
            f"stopped at the {MAX_MC_SECONDS:g} s limit after {mc.runs} runs (standard error"
            f" {mc.standard_error:.2g}): the machine ran slower than its first runs promised",
        )
    return _result(
        att,
        dfd,
        mc.end_states,
        method="monte-carlo",
        model=model,
        seed=mc.seed,
        runs=mc.runs,
        standard_error=mc.standard_error,
        seconds=time.perf_counter() - start,
        notes=notes,
        details={"backend": used, "casualty_steps": mc.steps},
    )


def expected_steps(att: Side, dfd: Side) -> float:
    """Casualties one simulated fight is expected to take, from the opening odds.

    With the attacker winning a round with probability ``p``, the defender is beaten after
    about ``D / p`` rounds and the attacker after ``A / (1 - p)``: the fight lasts about the
    shorter of the two (``2·A`` for an even fight), never less than ``min(A, D)``.
    """
    a, d = att.rounds, dfd.rounds
    p = att.initial_strength / (att.initial_strength + dfd.initial_strength)
    steps = min(d / p if p > 0 else math.inf, a / (1 - p) if p < 1 else math.inf)
    return float(min(max(steps, min(a, d)), a + d - 1))


def mc_seconds(att: Side, dfd: Side, runs: int, backend: str) -> float:
    """Rough run time of ``runs`` simulated fights (see the ``MC_SECONDS_*`` constants).

    numpy pays one pass per round for every batch, however few runs are left in it; the
    compiled numba loop has no such overhead.
    """
    steps = expected_steps(att, dfd)
    seconds = runs * steps * MC_SECONDS_PER_STEP
    if backend == "numpy":
        seconds += math.ceil(runs / BATCH_RUNS) * steps * MC_SECONDS_PER_PASS
    return seconds


def _check_mc_size(att: Side, dfd: Side, runs: int, backend: str, change: str) -> None:
    """Refuse, in one line, a Monte Carlo estimate that would run for minutes."""
    seconds = mc_seconds(att, dfd, runs, backend)
    if seconds <= MAX_MC_SECONDS:
        return
    steps = expected_steps(att, dfd)
    # The most runs within the limit (one pass overhead per batch, counted generously).
    per_run = steps * MC_SECONDS_PER_STEP
    fixed = 0.0
    if backend == "numpy":
        per_run += steps * MC_SECONDS_PER_PASS / BATCH_RUNS
        fixed = steps * MC_SECONDS_PER_PASS
    fits = max(0, math.floor((MAX_MC_SECONDS - fixed) / per_run))
    if fits:
        advice = f"{change} (about {fits} runs fit)"
    else:
        advice = "even one run is too long: fight fewer troops"
        if backend == "numpy":
            advice += " or install bellum[fast] (numba)"
    raise InputError(
        f"Monte Carlo of this fight would take about {seconds:,.0f} s ({runs} runs of about "
        f"{steps:.3g} casualties each, {backend}; limit {MAX_MC_SECONDS:g} s): {advice}"
    )


def _check_exact_size(
    att: Side, dfd: Side, model: Model, backend: Backend, max_memory: int
) -> None:
    need = exact_memory(att, dfd, model)
    if need > max_memory:
        raise InputError(
            f"an exact {model} solution of this fight needs about {need / 2**20:.0f} MB, "
            f"more than the {max_memory / 2**20:.0f} MB allowed: raise --max-memory "
            "or use --monte-carlo"
        )
    limit = _exact_limit(model, backend)
    states = att.rounds * dfd.rounds
    if states > FORCED_FACTOR * limit:
        raise InputError(
            f"an exact {model} solution of a {att.rounds}x{dfd.rounds} fight would take "
            f"hours ({states:.3g} states, limit {FORCED_FACTOR * limit:.3g}): use --monte-carlo"
        )


def _result(
    att: Side,
    dfd: Side,
    states: FightEndStates,
    *,
    method: str,
    model: str,
    seed: int | None = None,
    runs: int | None = None,
    standard_error: float | None = None,
    pruned_mass: float | None = None,
    seconds: float,
    notes: tuple[str, ...] = (),
    details: dict[str, object],
) -> OddsResult:
    """Turn the joint end states into outcomes and casualty distributions."""
    ka, kd = att.rounds, dfd.rounds
    # Clipped: rounding can push a sure win a few ulp above 1.
    p_att = min(1.0, float(states.attacker_wins.sum()))
    p_def = min(1.0, float(states.defender_wins.sum()))
    att_loss = LossDistribution.from_weights(
        att.casualties, np.concatenate([states.attacker_wins, [p_def]])
    )
    def_loss = LossDistribution.from_weights(
        dfd.casualties, np.concatenate([states.defender_wins, [p_att]])
    )
    info: dict[str, object] = {
        "attacker_strength": att.initial_strength,
        "defender_strength": dfd.initial_strength,
        "attacker_rounds": ka,
        "defender_rounds": kd,
        **details,
    }
    return OddsResult(
        outcomes={ATTACKER_WINS: p_att, DEFENDER_WINS: p_def},
        losses={ATTACKER: att_loss, DEFENDER: def_loss},
        method=method,
        model=model,
        seed=seed,
        runs=runs,
        standard_error=standard_error,
        pruned_mass=pruned_mass,
        seconds=seconds,
        notes=notes,
        end_states=states,
        details=info,
    )
