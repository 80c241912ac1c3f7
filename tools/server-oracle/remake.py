"""Record vectors again from what they say they are (world, seed, command, answers, about).

    python remake.py [NAME ...]

Without names every tests/vectors/*.toml is played again on the real server;
a vector whose recording changed shows up in ``git diff``.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parents[1] / "tests" / "vectors"


def main(names: list[str]) -> None:
    paths = [VECTORS / f"{n}.toml" for n in names] or sorted(VECTORS.glob("*.toml"))
    for path in paths:
        v = tomllib.loads(path.read_text())
        subprocess.run(
            [
                sys.executable,
                str(HERE / "mkvector.py"),
                path.stem,
                v["world"],
                str(v["seed"]),
                v["command"],
                *v["answers"],
                "--about",
                v["about"],
            ],
            check=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
