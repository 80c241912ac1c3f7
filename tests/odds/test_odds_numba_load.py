"""What loading a compiled kernel costs a process: numba, not SciPy's linear algebra."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bellum.odds._common import numba_importable, numba_wanted

pytestmark = pytest.mark.skipif(
    not (numba_wanted() and numba_importable() is None),
    reason="numba is not installed (the [fast] extra) or BELLUM_NO_NUMBA is set",
)

FIGHT = (
    "import sys\n"
    "import numpy as np\n"
    "from bellum.odds import Side\n"
    "from bellum.odds.exact import server_exact\n"
    "ends, pruned = server_exact(Side.troops(150), Side.troops(70, 2.0), backend='numba')\n"
    "print(float(ends.attacker_wins.sum()), 'scipy.linalg' in sys.modules)\n"
)


def run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_a_kernel_loads_without_scipys_linear_algebra() -> None:
    """numba's array maths imports ``scipy.linalg`` to probe for BLAS when the first kernel
    loads (0.15 s of CPU); the kernels use no BLAS, so the probe is skipped, and the
    fight is the same as with the probe."""
    wins, imported = run(FIGHT)
    assert imported == "False"
    probed = FIGHT.replace("import numpy as np\n", "import numpy as np\nimport scipy.linalg\n")
    again, imported = run(probed)
    assert imported == "True" and again == wins


def test_scipys_linear_algebra_still_imports_after_the_kernel() -> None:
    """The module hidden from numba's probe is back: SciPy imports whole afterwards."""
    code = (
        FIGHT + "import scipy.linalg.cython_blas, scipy.linalg\nprint(scipy.linalg.norm([3, 4]))\n"
    )
    *_, norm = run(code)
    assert norm == "5.0"
