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
        assert DaskPool(client).workers() == 2  # the planner refines one option per worker
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


class _Counting:
    """A Dask client that counts the worlds scattered through it."""

    def __init__(self, client: object) -> None:
        self.client = client
        self.scattered = 0

    def scatter(self, *args: object, **kw: object) -> object:
        self.scattered += 1
        return self.client.scatter(*args, **kw)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.client, name)


def test_a_world_is_scattered_once_for_every_round(cluster: object) -> None:
    """A plan solves in rounds: the world goes to the workers once, not once a round."""
    world = front(5)
    plans = [f.plan for f in forces(candidates(world, 1, Rules.of(world.options)), 2)]
    with distributed.Client(cluster) as client:
        counting = _Counting(client)
        pool = DaskPool(counting)
        first, _ = solve_points(world, 1, plans[:4], seed=3, pool=pool)
        second, _ = solve_points(world, 1, plans[4:8], seed=3, pool=pool)
        assert counting.scattered == 1
        pool.close()
    local, _ = solve_points(world, 1, plans[:8], seed=3, pool=LocalPool(1))
    assert first + second == local
