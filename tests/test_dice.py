"""The server random source against the spec's reference (§0.1, Appendix B.4)."""

from __future__ import annotations

import math
import random

import pytest

from bellum.dice import ServerRandom, first_draws


def reference_rng(seed: int) -> random.Random:
    mt = [seed & 0xFFFFFFFF]
    for i in range(1, 624):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
    r = random.Random()
    r.setstate((3, (*mt, 624), None))
    return r


def test_first_outputs_of_mt19937_seed_5489() -> None:
    # The reference MT19937 with its default seed 5489 starts with these outputs.
    d = ServerRandom(5489)
    assert [d.u32() for _ in range(3)] == [3499211612, 581869302, 3890346734]


@pytest.mark.parametrize("seed", [0, 1, 2, 12345, 2**32 - 1])
def test_matches_reference_seeding(seed: int) -> None:
    d = ServerRandom(seed)
    r = reference_rng(seed)
    assert [d.u32() for _ in range(1000)] == [r.getrandbits(32) for _ in range(1000)]


def test_roll0_uses_masked_rejection() -> None:
    d = ServerRandom(7)
    r = reference_rng(7)
    for n in (1, 2, 3, 11, 43, 100, 1000):
        for _ in range(50):
            while True:
                v = r.getrandbits(32) & ((1 << (n - 1).bit_length()) - 1)
                if v < n:
                    break
            assert d.roll0(n) == v


def test_chance_always_consumes_one_draw() -> None:
    d = ServerRandom(3)
    assert d.chance(1.5) is True
    assert d.chance(-1.0) is False
    assert d.draws == 2


def test_roundavg_consumes_a_draw_even_for_integers() -> None:
    d = ServerRandom(1)
    assert d.roundavg(-1.0) == -1
    assert d.roundavg(4.0) == 4
    assert d.draws == 2


def test_roundavg_rounds_up_with_the_fraction() -> None:
    d = ServerRandom(99)
    ups = sum(d.roundavg(2.25) - 2 for _ in range(40000))
    # Binomial(40000, 0.25): sd = 86.6; 5 sd gives a deterministic pass at this seed
    # and would catch any real bias in the rounding.
    assert abs(ups - 10000) < 5 * math.sqrt(40000 * 0.25 * 0.75)


def test_damage_without_amount_draws_nothing() -> None:
    d = ServerRandom(1)
    assert d.damage(0, 50) == 0
    assert d.draws == 0
    assert 0 <= d.damage(80, 25) <= 80


def test_b4_vector_a_fight_line() -> None:
    """The B.4 reference: two roundavg(-1.0), then the §6.2 loop, 150 vs 40 (x2)."""
    d = ServerRandom(1)
    d.roundavg(-1.0)
    d.roundavg(-1.0)
    att, dfd = 150, 40

    def odds(o: float, x: float) -> float:
        return 0.0 if o <= 0 else 1.0 if x <= 0 else o / (o + x)

    def jitter(p: float) -> float:
        p += (d.roll(11) - 6) / 100.0
        return 0.1 if p < 0 else min(p, 1.0)

    p = jitter(odds(att, 2 * dfd))
    countdown = 7 + d.roll(43)
    out = []
    while dfd > 0 and att > 0:
        if d.chance(p):
            out.append("!")
            dfd -= 1
        else:
            out.append("@")
            att -= 1
        if countdown <= 0:
            countdown = 7 + d.roll(43)
            p = jitter(odds(att, 2 * dfd))
        else:
            countdown -= 1
    assert "".join(out) == "!@!!!!!!!!!@!@!!@!!!!!@!!!!!@!!@!@@!!!@@!@!!!!@!!!@!!!"


def test_first_draws_of_many_seeds_at_once() -> None:
    """The vectorised first output agrees with the generator itself, across the seed
    space and where it wraps at 2**32."""
    for lo in (0, 5489, 1 << 31, (1 << 32) - 3):
        got = first_draws(lo, 5)
        assert [int(v) for v in got] == [ServerRandom((lo + k) % (1 << 32)).u32() for k in range(5)]
