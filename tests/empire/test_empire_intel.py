"""Reading the server's information commands into observations, merging them, and the
rounding each report hides the truth behind (docs/fog.md)."""

from __future__ import annotations

from bellum.empire.geometry import Geometry
from bellum.empire.intel.model import Observation, Seen, merge, merge_all
from bellum.empire.intel.reports import (
    Sighting,
    coastwatch_report,
    estimate_report,
    look_report,
    report_report,
    rounded,
    spy_report,
)
from bellum.empire.tables import stock

GEO = Geometry(32, 16)
OWNERS = {"1": 1, "2": 2, "POGO": 0}

# What a 4.4.1 test server printed for country 1 of the live tests' FRONTS, with 1's
# infantry at 0,0, 2's artillery and a Sopwith Camel at 2,0 and 2's highway 1,1.
LOOKOUT = """\
2 (#2) highway 100% efficient with approx 10 mil @ 6,4
2 (#2) cs   cargo ship (#2) @ 12,-4
"""
LLOOKOUT = """\
2 (#2) art  artillery #2 (approx 20 mil) @ 2,0
2 (#2) f1   Sopwith Camel #0 @ 2,0
Your airfield 100% efficient with 100 mil @ 0,0
2 (#2) highway 100% efficient with approx 40 mil @ 2,0
2 (#2) highway 100% efficient with approx 10 mil @ 1,1
POGO (#0) wilderness 0% efficient @ -1,1
"""
SPY = """\
SPY report
Tue Dec  1 18:21:21 2026
                 old sct rd  rl  def
   sect   de own own eff eff eff eff  civ  mil  shl gun  pet food bars
   2,0    +    2   2 100   0   1   0    0   40    0   0    0    0    0
Enemy (2) unit in 2,0:  art  artillery #2 (eff 90, mil 30, tech 38)
Enemy (2) plane in 2,0: f1   Sopwith Camel #0
   4,0    ff   2   2  80   0   1  10    0   30   40  10    0    0    0
Enemy (2) unit in 4,0:  inf  infantry #5
"""
COASTWATCH = """\
- = [ Coastwatch report for 1 ] = -
  Country            Ship          Location
            2 (#  2) cs   cargo ship (#2) @ 12,-4
"""
REPORT = """\
Tue Dec  1 18:21:21 2026
 #    name                tech      research   education   happiness  status
 1     1                100.00        0.00        0.00        0.00    Active
 2     2                90 - 110      n/a         n/a         n/a     Active
 3     Gaul                >= 200     n/a         n/a         n/a     Active
 4     4                   0 - 20     n/a         n/a         n/a     Active
 5     5                  n/a         n/a         n/a         n/a     Active
"""


def sighting(source: str, turn: int = 3) -> Sighting:
    return Sighting(1, turn, 1000, source, GEO, stock())


def by_key(obs: list[Observation]) -> dict[str, Observation]:
    return {o.key: o for o in obs}


def test_rounding_is_the_servers_roundintby() -> None:
    # roundintby(n, m) = (n + m/2) / m * m: 35..44 show as 40, 0..4 as 0, 10..29 as 20
    assert rounded(40, 10) == (35, 44) and rounded(0, 10) == (0, 4)
    assert (
        rounded(20, 20) == (10, 29) and rounded(25, 25) == (13, 37) and rounded(90, 5) == (88, 92)
    )
    for m in (5, 10, 20, 25, 50):
        for n in range(0, 300):
            shown = (n + m // 2) // m * m
            lo, hi = rounded(shown, m)
            assert lo <= n <= hi


def test_look_report_reads_sectors_units_planes_and_ships() -> None:
    seen = by_key(look_report(LLOOKOUT + LOOKOUT, sighting("llookout")))
    assert "sector 0,0" not in seen  # the country's own: the sync has it exactly
    hw = seen["sector 2,0"].fields
    assert hw["owner"].value == 2 and hw["type"].value == "highway"
    assert (hw["mil"].value, hw["mil"].lo, hw["mil"].hi, hw["mil"].how) == (40, 35, 44,
                                                                             "rounded to 10")  # fmt: skip
    assert (hw["eff"].lo, hw["eff"].hi) == (95, 104)
    assert hw["civ"].exact and hw["civ"].value == 0  # no civ in the line: none there
    wild = seen[f"sector {GEO.norm(-1, 1)[0]},1"].fields
    assert wild["owner"].value == 0 and wild["mil"].value == 0 and wild["mil"].exact
    art = seen["unit 2"].fields
    assert (art["type"].value, art["owner"].value, art["at"].value) == ("art", 2, "2,0")
    assert (art["mil"].lo, art["mil"].hi) == (10, 29)
    assert seen["plane 0"].fields["type"].value == "f1"
    ship = seen["ship 2"].fields
    assert (ship["type"].value, ship["at"].value) == ("cs", f"12,{GEO.norm(0, -4)[1]}")
    assert all(s.turn == 3 and s.source == "llookout" for o in seen.values()
               for s in o.fields.values())  # fmt: skip


def test_a_looks_approx_0_mil_is_1_to_4() -> None:
    """``look_at_sect`` prints mil only when there are some: "approx 0" is 1..4, not 0."""
    line = "2 (#2) harbor 100% efficient with approx 0 civ with approx 0 mil @ 4,0\n"
    seen = by_key(look_report(line, sighting("lookout")))["sector 4,0"].fields
    assert (seen["mil"].lo, seen["mil"].hi) == (1, 4) and (seen["civ"].lo, seen["civ"].hi) == (1, 4)


def test_coastwatch_reads_the_ships() -> None:
    (ship,) = coastwatch_report(COASTWATCH, sighting("coastwatch"))
    assert ship.key == "ship 2" and ship.fields["owner"].value == 2


def test_spy_report_reads_the_table_and_the_units() -> None:
    seen = by_key(spy_report(SPY, sighting("spy"), OWNERS))
    fort = seen["sector 4,0"].fields
    assert fort["type"].value == "fortress" and fort["owner"].value == 2
    assert (fort["gun"].lo, fort["gun"].hi) == (5, 14)  # 5..14 guns show as 10
    assert (fort["shell"].lo, fort["shell"].hi) == (35, 44)
    assert (fort["defense"].lo, fort["defense"].hi) == (5, 14)
    assert fort["rail"].exact and fort["rail"].value == 1
    art = seen["unit 2"].fields
    assert (art["eff"].lo, art["eff"].hi) == (88, 92) and (art["mil"].lo, art["mil"].hi) == (25, 34)
    assert (art["tech"].lo, art["tech"].hi) == (18, 57)
    assert set(seen["unit 5"].fields) == {"type", "owner", "at"}  # seen, nothing more
    assert seen["plane 0"].fields["type"].value == "f1"


def test_report_reads_the_tech_bands() -> None:
    seen = by_key(report_report(REPORT, sighting("report")))
    assert "nation 1" not in seen and "nation 5" not in seen
    two = seen["nation 2"].fields["tech"]
    assert (two.lo, two.hi, two.how) == (90, 111, "band")
    assert (seen["nation 3"].fields["tech"].lo, seen["nation 3"].fields["tech"].hi) == (200, None)
    assert (seen["nation 4"].fields["tech"].lo, seen["nation 4"].fields["tech"].hi) == (0, 21)


def test_the_attacks_estimate_is_an_observation() -> None:
    text = "2,0 is a 100% 2 highway with approximately 40 military.\nNumber of mil ..."
    (o,) = estimate_report(text, sighting("attack"), OWNERS)
    assert o.key == "sector 2,0" and o.fields["owner"].value == 2
    assert (o.fields["mil"].lo, o.fields["mil"].hi) == (35, 44)
    named = "4,0 is a 40% POGO light manufacturing with approximately 0 military."
    (o,) = estimate_report(named, sighting("attack"), OWNERS)
    assert o.fields["type"].value == "light manufacturing" and o.fields["owner"].value == 0


def test_merging_keeps_the_freshest_sighting_of_each_field() -> None:
    old = Observation("sector", "2,0", {"mil": Seen(40, 5, 0, "spy", 35, 44, "rounded to 10"),
                                        "gun": Seen(10, 5, 0, "spy", 5, 14, "rounded to 10")})  # fmt: skip
    older = Observation("sector", "2,0", {"mil": Seen(90, 2, 0, "llookout", 85, 94, "x"),
                                          "eff": Seen(100, 2, 0, "llookout")})  # fmt: skip
    newer = Observation("sector", "2,0", {"mil": Seen(60, 6, 0, "attack", 55, 64, "x")})
    m = merge(old, older)
    assert m.fields["mil"].value == 40 and m.fields["eff"].value == 100  # older: only news
    m = merge(m, newer)
    assert m.fields["mil"].value == 60 and m.fields["gun"].value == 10
    assert m.last_seen == (6, 0)
    both = merge_all({old.key: old}, [older, newer])
    assert both[old.key] == m
