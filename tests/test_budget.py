"""Long jobs are estimated first and refused in one line when they would run for minutes."""

from __future__ import annotations

import pytest

from bellum.budget import MAX_JOB_SECONDS, check_repeats, timed
from bellum.errors import CommandError


def test_a_job_within_the_limit_runs() -> None:
    check_repeats("--runs", 100, MAX_JOB_SECONDS / 100, "run it")
    value, seconds = timed(lambda: 42)
    assert value == 42 and seconds >= 0


def test_a_job_past_the_limit_is_refused_with_the_size_that_fits() -> None:
    with pytest.raises(CommandError) as err:
        check_repeats("--resolver-runs", 100_000, 0.012, "play the attack")
    assert str(err.value) == (
        "--resolver-runs 100000 would play the attack for about 1,200 s (12.0 ms each;"
        " limit 60 s): use --resolver-runs 5000 or fewer"
    )
