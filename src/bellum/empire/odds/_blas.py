"""One BLAS thread for the solver's many small matrix products.

The exact solver multiplies thousands of matrices of about 100 x 500.  At
that size OpenBLAS's threads cost far more than they save, and on a busy
2-core machine they make a product 50 times slower.  numpy does not expose
the thread count, so :func:`one_thread` sets it through OpenBLAS's own C
function, as threadpoolctl does, and restores it afterwards; where no
OpenBLAS is found it does nothing.
"""

from __future__ import annotations

import ctypes
import glob
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

_NAMES = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),
)


@cache
def _openblas() -> tuple[Any, Any] | None:
    import numpy

    here = os.path.dirname(numpy.__file__)
    for path in sorted(glob.glob(os.path.join(here, os.pardir, "numpy.libs", "*openblas*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get, put in _NAMES:
            if hasattr(lib, get) and hasattr(lib, put):
                return getattr(lib, get), getattr(lib, put)
    return None


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the body with OpenBLAS on one thread (when it can be found)."""
    fns = _openblas()
    if fns is None:
        yield
        return
    get, put = fns
    before = int(get())
    put(1)
    try:
        yield
    finally:
        put(before)
