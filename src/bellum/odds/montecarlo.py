"""Monte Carlo estimates of a fight's end-state distribution.

Two kinds:

* :func:`monte_carlo` - fast, vectorised over runs with numpy (or a numba loop
  when the ``[fast]`` extra is installed).  One integer seed feeds a
  ``numpy.random.SeedSequence``; batch ``i`` draws from its ``i``-th spawned
  child, so a seed, a model and a run schedule replay the same numbers.  It
  samples the same model as the exact solvers, not the server's draw stream.
* :func:`server_fight` / :func:`server_reference` - plain Python, driven by
  :class:`bellum.dice.ServerRandom` draw for draw like the 4.4.1 loop of spec
  §6.2 (it reproduces the Appendix B.1 line).  Slow; it exists to validate the
  exact server solver against the real draw sequence.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from bellum.dice import ServerRandom, seed_sequence
from bellum.errors import InputError
from bellum.formulas import (
    JITTER_CHOICES,
    WINDOW_BASE,
    WINDOW_CHOICES,
    WINDOW_MAX,
    WINDOW_MIN,
    jitter,
    jitter_offset,
    odds,
)
from bellum.odds import _kernels
from bellum.odds._common import FloatArray, jittered_probability
from bellum.odds.exact import resolve_backend
from bellum.odds.limits import DEFAULT_MAX_RUNS, Model
from bellum.odds.result import FightEndStates, IntArray
from bellum.odds.side import Side

#: Runs per batch; target-error mode checks the standard error between batches.
BATCH_RUNS = 20_000
#: Runs when neither a run count nor a target error is given.
DEFAULT_RUNS = 100_000


@dataclass(frozen=True)
class MonteCarloRun:
    """Counts of end states from ``runs`` simulated fights and what produced them."""

    end_states: FightEndStates
    runs: int
    seed: int
    steps: int
    standard_error: float
    cap_reached: bool
    #: The runs stopped at ``max_seconds`` before reaching their count or target error.
    time_limit_reached: bool = False


class TooSlow(InputError):
    """The first batch's speed puts the whole estimate above ``max_seconds``."""

    def __init__(self, seconds: float, fits: int, measured_runs: int, measured: float) -> None:
        super().__init__(
            f"Monte Carlo of this fight would take about {seconds:,.0f} s at the speed of"
            f" its first {measured_runs} runs ({measured:.2g} s)"
        )
        self.seconds = seconds
        self.fits = fits


def standard_error(wins: float, runs: int) -> float:
    """Binomial standard error of an estimated probability ``wins / runs``."""
    if runs <= 0:
        return math.inf
    p = wins / runs
    return math.sqrt(max(p * (1.0 - p), 0.0) / runs)


def monte_carlo(
    att: Side,
    dfd: Side,
    *,
    model: Model = "server",
    runs: int | None = None,
    target_error: float | None = None,
    max_runs: int = DEFAULT_MAX_RUNS,
    seed: int | None = None,
    backend: Literal["auto", "numpy", "numba"] = "auto",
    max_seconds: float | None = None,
    progress: Callable[[float], None] | None = None,
) -> MonteCarloRun:
    """Simulate fights: ``runs`` of them, or batches until the standard error of
    P(attacker wins) is at most ``target_error`` (at most ``max_runs``).

    In target-error mode at least two batches run before the standard error
    is trusted, so a lopsided fight that shows no loss in the first batch
    does not stop early on a standard error of 0.

    With ``max_seconds`` the clock is watched, since a machine may be slower or
    busier than any estimate made before the start: when the first batch's speed
    puts the whole job above it, :class:`TooSlow` is raised at once; when a later
    batch ends past it, the runs stop there (``time_limit_reached``).
    ``progress`` is told the fraction done after each batch (in target-error
    mode, of the runs the standard error so far says are needed).
    """
    if runs is not None and target_error is not None:
        raise InputError("give either a run count or a target error, not both", field="runs")
    if runs is not None and runs < 1:
        raise InputError(f"the number of runs must be at least 1 (got {runs})", field="runs")
    if target_error is not None and not target_error > 0:
        raise InputError(
            f"the target error must be positive (got {target_error})", field="target_error"
        )
    if max_runs < 1:
        raise InputError(f"the run cap must be at least 1 (got {max_runs})", field="max_runs")
    if runs is None and target_error is None:
        runs = DEFAULT_RUNS
    used_seed, ss = seed_sequence(seed)
    use_numba = resolve_backend(backend) == "numba"
    batch = _batch_function(model, use_numba)
    att_c = np.zeros(att.rounds, dtype=np.int64)
    def_c = np.zeros(dfd.rounds, dtype=np.int64)
    done = 0
    steps = 0
    cap_reached = timed_out = False
    start = time.perf_counter()
    while True:
        if runs is not None:
            want = min(BATCH_RUNS, runs - done)
        else:
            want = min(BATCH_RUNS, max_runs - done)
        (child,) = ss.spawn(1)
        rng = np.random.Generator(np.random.PCG64(child))
        steps += batch(att.strength, dfd.strength, want, rng, att_c, def_c)
        done += want
        se = standard_error(float(att_c.sum()), done)
        if progress is not None:
            wins = float(att_c.sum()) / done
            total = runs if runs is not None else _runs_for(wins, target_error, max_runs)
            progress(done / max(total, done))
        if runs is not None:
            if done >= runs:
                break
        elif target_error is not None and done >= 2 * BATCH_RUNS and se <= target_error:
            break
        elif done >= max_runs:
            cap_reached = target_error is not None and se > target_error
            break
        if max_seconds is not None:
            elapsed = time.perf_counter() - start
            if done == want:  # the first batch
                wins = float(att_c.sum()) / done
                total = runs if runs is not None else _runs_for(wins, target_error, max_runs)
                if elapsed / done * total > max_seconds:
                    fits = math.floor(max_seconds * done / elapsed) if elapsed > 0 else total
                    raise TooSlow(elapsed / done * total, fits, done, elapsed)
            elif elapsed > max_seconds:
                timed_out = True
                break
    return MonteCarloRun(
        FightEndStates(att_c / done, def_c / done),
        done,
        used_seed,
        steps,
        se,
        cap_reached,
        timed_out,
    )


def _runs_for(p: float, target_error: float | None, max_runs: int) -> int:
    """Runs needed for a standard error of ``target_error`` at P(win) ``p`` (two batches
    at least, ``max_runs`` at most)."""
    assert target_error is not None
    return min(max_runs, max(2 * BATCH_RUNS, math.ceil(p * (1 - p) / target_error**2)))


Batch = Callable[..., int]


def _batch_function(model: Model, use_numba: bool) -> Batch:
    server = model == "server"
    kernel = _kernels.compiled("mc_loops") if use_numba else _numpy_batch

    def run(
        sa: FloatArray,
        sd: FloatArray,
        n: int,
        rng: np.random.Generator,
        att_c: IntArray,
        def_c: IntArray,
    ) -> int:
        return int(kernel(sa, sd, n, rng, att_c, def_c, server))

    return run


def _numpy_batch(
    sa: FloatArray,
    sd: FloatArray,
    n: int,
    rng: np.random.Generator,
    att_c: IntArray,
    def_c: IntArray,
    server: bool,
) -> int:
    """``n`` runs of one fight, one numpy pass per round (:func:`_rounds`)."""
    a, d = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    return _rounds(sa, sd, a, d, sa.size - 1, sd.size - 1, rng, server, att_c, def_c)


def many_fights(
    pairs: list[tuple[FloatArray, FloatArray]], runs: int, rng: np.random.Generator, server: bool
) -> list[tuple[FloatArray, FloatArray]]:
    """``runs`` fights of every pair of chains at once, one numpy pass per round for all.

    Each pair is two strength arrays as :class:`Side` has them (the last one 0);
    returns, per pair, the fractions of runs the attacker won by its rounds lost
    and the defender won by its rounds lost.  The chains are laid end to end, so
    many small fights pay numpy's per-call overhead once per round, not once per fight.
    """
    sas = [sa for sa, _ in pairs]
    sds = [sd for _, sd in pairs]
    la = np.array([x.size for x in sas], dtype=np.int64)
    ld = np.array([x.size for x in sds], dtype=np.int64)
    base_a = np.concatenate([[0], np.cumsum(la)[:-1]]).astype(np.int64)
    base_d = np.concatenate([[0], np.cumsum(ld)[:-1]]).astype(np.int64)
    flat_a, flat_d = np.concatenate(sas), np.concatenate(sds)
    fight = np.repeat(np.arange(len(pairs)), runs)
    a, d = base_a[fight], base_d[fight]
    ka, kd = a + la[fight] - 1, d + ld[fight] - 1
    att_c = np.zeros(flat_a.size, dtype=np.int64)
    def_c = np.zeros(flat_d.size, dtype=np.int64)
    _rounds(flat_a, flat_d, a, d, ka, kd, rng, server, att_c, def_c)
    spans = zip(base_a.tolist(), la.tolist(), base_d.tolist(), ld.tolist(), strict=True)
    return [(att_c[i : i + n - 1] / runs, def_c[j : j + m - 1] / runs) for i, n, j, m in spans]


def _rounds(
    sa: FloatArray,
    sd: FloatArray,
    a: IntArray,
    d: IntArray,
    ka: IntArray | int,
    kd: IntArray | int,
    rng: np.random.Generator,
    server: bool,
    att_c: IntArray,
    def_c: IntArray,
) -> int:
    """Play runs to their end, one numpy pass per round over the runs still fighting.

    Run ``i`` is at index ``a[i]`` of ``sa`` and ``d[i]`` of ``sd`` and is over at
    ``ka[i]`` (the attacker beaten) or ``kd[i]`` (the defender beaten), or at ``ka`` and
    ``kd`` for every run when they are numbers (one fight: no arrays to filter each
    round); ``a`` and ``d`` are moved in place.  The ends are counted into ``att_c``
    (the attacker won, by its index) and ``def_c``.
    Per-casualty runs recompute their probability every round; server runs keep a
    frozen probability and the rounds left in their window, and draw a new window
    (jitter and length) when it runs out.  Returns the rounds played by all runs.
    """
    p = np.zeros(a.size)
    left = np.zeros(a.size, dtype=np.int64)
    steps = 0
    while a.size:
        if server:
            new = np.flatnonzero(left == 0)
            if new.size:
                s = sa[a[new]]
                odds = s / (s + sd[d[new]])
                pick = rng.integers(0, JITTER_CHOICES, size=new.size)
                p[new] = jittered_probability(odds, pick)
                left[new] = rng.integers(WINDOW_MIN, WINDOW_MAX + 1, size=new.size)
            left -= 1
        else:
            s = sa[a]
            p = s / (s + sd[d])
        hit = rng.random(a.size) < p
        d += hit
        a += ~hit
        steps += a.size
        won, lost = d == kd, a == ka
        over = won | lost
        if over.any():
            att_c += np.bincount(a[won], minlength=att_c.size)
            def_c += np.bincount(d[lost], minlength=def_c.size)
            going = ~over
            a, d, p, left = a[going], d[going], p[going], left[going]
            if isinstance(ka, np.ndarray):
                ka = ka[going]
            if isinstance(kd, np.ndarray):
                kd = kd[going]
    return steps


def server_fight(rng: ServerRandom, att: Side, dfd: Side) -> tuple[str, int, int]:
    """One fight exactly as the 4.4.1 loop draws it (spec §6.2).

    Returns the ``!``/``@`` line and the rounds each side lost.  Draw order:
    ``roll(11)`` then ``roll(43)`` before the loop, one ``chance`` per round,
    and at a re-evaluation ``roll(43)`` then ``roll(11)`` - also after the last
    round, as the server does.
    """
    sa, sd = att.strength, dfd.strength
    a = d = 0

    def redraw(o: float, x: float) -> float:
        return jitter(odds(o, x), jitter_offset(rng.roll(JITTER_CHOICES)))

    p = redraw(float(sa[0]), float(sd[0]))
    countdown = WINDOW_BASE + rng.roll(WINDOW_CHOICES)
    out: list[str] = []
    success = sd[0] == 0
    while not success and sa[a] > 0:
        if rng.chance(p):
            out.append("!")
            d += 1
            success = sd[d] == 0
        else:
            out.append("@")
            a += 1
        if countdown <= 0:
            countdown = WINDOW_BASE + rng.roll(WINDOW_CHOICES)
            p = redraw(float(sa[a]), float(sd[d]))
        else:
            countdown -= 1
    return "".join(out), a, d


def server_reference(att: Side, dfd: Side, runs: int, seed: int) -> MonteCarloRun:
    """``runs`` fights of :func:`server_fight` on one ``ServerRandom(seed)`` stream."""
    rng = ServerRandom(seed)
    att_c = np.zeros(att.rounds, dtype=np.int64)
    def_c = np.zeros(dfd.rounds, dtype=np.int64)
    steps = 0
    for _ in range(runs):
        _, a, d = server_fight(rng, att, dfd)
        steps += a + d
        if d == dfd.rounds:
            att_c[a] += 1
        else:
            def_c[d] += 1
    se = standard_error(float(att_c.sum()), runs)
    return MonteCarloRun(FightEndStates(att_c / runs, def_c / runs), runs, seed, steps, se, False)
