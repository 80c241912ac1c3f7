"""The curves on a Dask cluster: a LocalCluster on loopback gives the local pool's figures.

Dask is an optional extra (``bellum[dask]``, in the dev extra), so without it the test
skips and says why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from planworlds import front

from bellum.empire.io.sqlite.store import Store
from bellum.empire.plan.candidates import candidates, forces
from bellum.empire.plan.curves import DaskPool, LocalPool, solve_points
from bellum.empire.rules import Rules
from bellum.errors import CommandError
from clirunner import bellum

distributed = pytest.importorskip("distributed", reason="Dask is not installed (bellum[dask])")


@pytest.fixture(scope="module")
def cluster() -> object:
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        processes=True,
    ) as c:
        yield c


def test_dask_gives_the_local_figures(cluster: object) -> None:
    world = front(5)
    plans = [f.plan for f in forces(candidates(world, 1, Rules.of(world.options)), 2)]
    assert len(plans) > 8  # more than one chunk, so both workers get some
    local, _ = solve_points(world, 1, plans, seed=3, pool=LocalPool(1))
    with distributed.Client(cluster) as client:
        remote, solved = solve_points(world, 1, plans, seed=3, pool=DaskPool(client))
    assert solved == len(plans)
    assert remote == local


def test_plan_dask_address(cluster: object, tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    Store.create(db, front(5)).close()
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    ran = bellum("empire", "plan", "--db", str(db), "--as", "1", "--dask", address, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "bellum empire attack" in ran.stdout


def test_unreachable_scheduler_is_one_error() -> None:
    world = front(5)
    plans = [f.plan for f in forces(candidates(world, 1, Rules.of(world.options)), 1)]
    with pytest.raises(CommandError, match="cannot reach the Dask scheduler"):
        solve_points(world, 1, plans, seed=1, pool=DaskPool("tcp://127.0.0.1:9", timeout=1.0))
