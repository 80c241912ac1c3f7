"""Helpers shared by the exact solvers and Monte Carlo: numba, the jitter in bulk.

The fight's formulas themselves (the odds, the jitter, the windows, the exact
probability of ``chance``) are in :mod:`bellum.formulas`, one copy for the rules,
the solvers and the kernels.
"""

from __future__ import annotations

import importlib.util
import math
import os
from functools import cache

import numpy as np
import numpy.typing as npt

from bellum.formulas import JITTERS, TWO32

FloatArray = npt.NDArray[np.float64]


def numba_wanted() -> bool:
    """Whether numba may be used: installed and not disabled by ``BELLUM_NO_NUMBA``."""
    if os.environ.get("BELLUM_NO_NUMBA", "") not in ("", "0"):
        return False
    # find_spec does not import numba, which alone takes a noticeable fraction of a second.
    return importlib.util.find_spec("numba") is not None


@cache
def numba_importable() -> str | None:
    """``None`` if numba imports, else why not (an old numba rejects a new numpy).
    Imported here first, numba skips its probe for SciPy's BLAS (:func:`_skip_blas_probe`)."""
    try:
        import numba  # noqa: F401
    except ImportError as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    _skip_blas_probe()
    return None


def _skip_blas_probe() -> None:
    """Import numba's array maths without its probe for SciPy's BLAS.

    When its first kernel loads, even from the disk cache, numba imports
    ``numba.np.arraymath``, which imports ``scipy.linalg`` to learn whether BLAS is
    there, for the one product ``np.correlate`` and ``np.convolve`` use, which the
    kernels never call: numba's import and its array maths took 0.16 + 0.20 s of CPU,
    0.16 + 0.05 without the probe.  With that module hidden while it imports, numba
    takes its own loop for that product; its linear algebra still imports SciPy when
    used.  Done only where nothing could be importing SciPy at the same moment: its
    linear algebra not imported yet, and no other thread (a planner's background import
    of HiGHS) that could meet the hidden module.
    """
    import sys
    import threading

    blas = "scipy.linalg.cython_blas"
    if (
        "numba.np.arraymath" in sys.modules
        or "scipy.linalg" in sys.modules
        or threading.active_count() > 1
    ):
        return
    sys.modules[blas] = None  # type: ignore[assignment]
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules[blas]


#: :data:`~bellum.formulas.JITTERS` as an array, indexed by the jitter chosen (0 to 10).
_JITTERS = np.asarray(JITTERS, dtype=np.float64)


def _chance_probabilities(x: FloatArray) -> FloatArray:
    """``chance_probability`` of :mod:`bellum.formulas` of jittered odds ``x``, in bulk,
    in place (``x`` is a temporary of the caller's).  A negative chance is 0.1, one
    above 1 is 1; then ``x`` ≤ 1, so ``x × 2³²`` (exact) is at most 2³² and needs no
    clamp after its ceiling, and no clamp at 0 before it."""
    negative = x < 0.0
    np.minimum(x, 1.0, out=x)
    x[negative] = 0.1
    x *= TWO32
    np.ceil(x, out=x)
    x /= TWO32
    return x


def jittered_probabilities(odds: FloatArray) -> FloatArray:
    """``chance_probability(jitter(odds, j))`` of :mod:`bellum.formulas` for all 11
    jitters, in bulk.

    Returns an array of shape ``odds.shape + (11,)``; element-for-element the
    same doubles as the formulas (the operations are the same, array-wise; a test
    holds them to it).
    """
    return _chance_probabilities(odds[..., None] + _JITTERS)


def jittered_probability(odds: FloatArray, choice: npt.NDArray[np.int64]) -> FloatArray:
    """:func:`jittered_probabilities` of each of ``odds`` at its jitter ``choice`` (0 to
    10) only, the same doubles (a Monte Carlo round draws one jitter per run, and
    working out the other ten was a twentieth of a plan's time)."""
    x = _JITTERS[choice]
    x += odds
    return _chance_probabilities(x)


def binomial_table(n: int) -> FloatArray:
    """``C(t, h)`` for ``0 <= h <= t <= n`` as doubles (zeros elsewhere)."""
    table = np.zeros((n + 1, n + 1), dtype=np.float64)
    for t in range(n + 1):
        for h in range(t + 1):
            table[t, h] = float(math.comb(t, h))
    return table
