"""Are the fog-aware odds calibrated?  Random attacks on a real 4.4.1 server (docs/fog.md).

    python tools/fog_calibration.py --attacks 300 --out build/fog-calibration.jsonl
    python tools/fog_calibration.py --report build/fog-calibration.jsonl \
        --svg docs/fog-reliability.svg
    python tools/fog_calibration.py --rescore build/fog-calibration.jsonl \
        --out build/rescored.jsonl
    python tools/fog_calibration.py --no-play --attacks 100 --seed 3001 --out build/np.jsonl
    python tools/fog_calibration.py --gap build/np.jsonl

For each mid-game (``tools/midgame.py``, one per seed from ``--seed`` on, until
``--attacks`` attacks are recorded):

1. every country draws its ``map`` (as players do, which writes its bmap) and syncs as a
   player with ``--spend-btus --risk-spies`` (its view: what its lookouts and spies saw,
   ``bellum.client.live.sync``);
2. the game is snapshot and the deity reads the whole game;
3. attacks of the five kinds are drawn at random among the legal ones
   (``tools/realistic.py``'s candidates, each question answered with a random share of
   what it allows, each unit offered taken with probability 1/2);
4. for each: the fog-aware P(success) (``bellum.empire.odds.fog.fog_odds`` on the player's
   view), the god's-eye P (``plan_odds`` on the deity's world); then the game is restored
   and the attack played on the server as the player; its outcome is bellum's resolution
   of the same order with the server's seed on the deity's world, kept only where its
   transcript is the server's, line for line.

One JSON line per attack goes to ``--out`` (appended, so a run can be continued).
``--rescore`` reads such a file and recomputes each attack's fog-aware P with today's
priors, on its world made again from its seed (``tools/midgame.py`` is deterministic:
the same seed, the same game and views; kept in ``--worlds`` for the next time),
without playing anything: the god's-eye P and the outcome stay as recorded, so a change
of prior is tried on the recorded attacks in minutes.  ``--report`` reads such a file
and prints the reliability diagram (10 bins, each with the 95 % interval of its
observed frequency under calibration) and the Brier scores, as Markdown for
docs/fog.md; ``--svg`` draws the diagram.

``--no-play`` draws the attacks as above, from the same random numbers (until an attack
the server would refuse: a played run skips it unrecorded, an unplayed one records it, so
the two part ways there), and records each one's fog-aware and god's-eye P without
playing it (the views and the deity's world kept in ``--worlds``); ``--gap`` prints such
a file's E[(f − g)²], the Brier gap without the outcomes' noise where the god's-eye odds
are calibrated (``tools/fog_gap.py`` splits it by the belief's groups of unknowns).
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from empire_server import DEITY, DEITY_PASSWORD, EmpireGame, empire_install
from midgame import Midgame, Mix, make_midgame
from realistic import COMMANDS, Asked, Candidate, candidates

from bellum.client.intel import Gather
from bellum.client.live import LiveGame, read_world, sync
from bellum.client.xdump import XdumpReader
from bellum.empire import run_command
from bellum.empire.odds import plan_odds
from bellum.empire.odds.engine import SUCCESS
from bellum.empire.odds.fog import fog_odds, target_of
from bellum.empire.odds.plan import Plan, PlanPrompter, parse_mil
from bellum.empire.orders import Order
from bellum.empire.service import open_source
from bellum.empire.world import World
from bellum.errors import BellumError

#: The worlds: small enough to set up in seconds, big enough for every kind of fight.
SIZE = {"WORLD_X": 48, "WORLD_Y": 24}
#: Complete worlds the fog odds solve per attack, each with one sampled path to its fight
#: (the variance is the unknowns', not the paths').
DRAWS = 32
#: The god's-eye odds are sampled until their standard error is this small.
GOD_ERROR = 0.02
#: Attacks whose fog-aware P is below or above these are kept only with this chance: they
#: are many (hopeless or certain) and say little; selecting on the prediction leaves the
#: outcome's frequency at each prediction as it was.
EXTREME, KEEP_EXTREME = (0.02, 0.98), 0.3
#: The god's-eye odds' standard error without play (``--no-play``): its variance is taken
#: off the mean squared difference, so a coarser one only adds noise.
OFFLINE_GOD_ERROR = 0.05
#: Attacks drawn per world and command at most (the rest of the world's attacks wait).
PER_WORLD = 14


def log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass
class Attack:
    """One drawn attack: who, the order, and the answers (mil by source, units)."""

    country: int
    name: str
    order: str
    mil: dict[str, int]
    units: list[int]

    def plan(self, world: World) -> Plan:
        """The plan on ``world`` (sources in its coordinates: the player's or absolute)."""
        order = Order.parse(self.order)
        mil = parse_mil(world, self.country, [f"{k}={n}" for k, n in self.mil.items()], order)
        return Plan(order, mil, frozenset(self.units))


def draw_attack(god: World, c: Candidate, rng: random.Random, seed: int) -> Attack | None:
    """Random answers to a legal order's questions: a random share of each source's mil
    (sometimes all, sometimes few), each unit offered with probability 1/2; a paradrop,
    which asks nothing, flies a random few of its transports."""
    if c.order.name == "paradrop":
        lift = c.order.args[0].split("/")
        few = sorted(rng.sample(lift, rng.randint(1, len(lift))), key=int)
        c = Candidate(c.country, Order("paradrop", ("/".join(few), *c.order.args[1:])))
    probe = Asked()
    result = run_command(god.copy(), c.order, country=c.country, seed=seed, prompter=probe)
    if result.outcome.refused or result.outcome.name.lower() == "usage":
        return None
    mil: dict[str, int] = {}
    for p in probe.prompts:
        if p.kind == "mil" and p.most:
            key = "ship" if p.ship is not None else god.fmt(p.at, c.country) if p.at else None
            if key is not None:
                mil[key] = rng.choice([p.most, rng.randint(0, p.most), rng.randint(0, p.most)])
    units = sorted(p.uid for p in probe.prompts if p.kind == "unit" and p.uid is not None
                   and rng.random() < 0.5)  # fmt: skip
    if not any(mil.values()) and not units and c.order.name != "paradrop":
        return None
    return Attack(c.country, god.nations[c.country].name, c.order.text(), mil, units)


@dataclass
class Record:
    """What one attack gave: the two probabilities, the outcome, what the player saw."""

    world: int
    command: str
    country: int
    order: str
    mil: dict[str, int]
    units: list[int]
    p_fog: float | None
    p_god: float
    success: bool
    fresh: bool
    outcome: str
    checked: bool
    inputs: int
    fog_error: str = ""
    #: The seed the server played the attack with.
    seed: int | None = None

    def line(self) -> str:
        return json.dumps(self.__dict__)


def views(game: EmpireGame, made: Midgame, folder: Path) -> dict[int, Path]:
    """Every country's view, synced with its lookouts and spies, by country number."""
    out = {}
    for c in made.countries:
        db = folder / f"view-{c.cnum}.db"
        with game.session(c.name, c.password) as me:
            me.command("map *")  # as a player does: it writes what the country sees on its bmap
            sync(me, db, Gather(spend_btus=True, risk_spies=True))
        out[c.cnum] = db
    return out


def deity_world(game: EmpireGame) -> World:
    with game.session(DEITY, DEITY_PASSWORD) as god:
        return read_world(XdumpReader(god))[0]


def fresh(view: World, country: int, plan: Plan) -> bool:
    """Whether the player saw the target since the last update (its sector, ship or unit)."""
    assert view.fog is not None
    words = plan.order.slots()
    if plan.order.name in ("board", "lboard"):
        o = view.observations.get(f"{'ship' if plan.order.name == 'board' else 'unit'} {words[0]}")
    else:
        xy = target_of(view, country, plan)
        o = view.observations.get(f"sector {xy[0]},{xy[1]}")
    return o is not None and o.last_seen[0] >= view.fog.turn


def play(game: EmpireGame, snapshot: Path, made: Midgame, god: World, a: Attack,
         scratch: Path, shift: int) -> tuple[str, bool, bool, int]:  # fmt: skip
    """Play ``a`` on the game restored from ``snapshot``: its outcome (bellum's resolution
    with the server's seed), whether that was a success, whether bellum's transcript is
    the server's, and the seed.

    A restored server counts its commands from the start again, and in test mode the
    count is the seed: every attack would draw the same dice.  ``shift`` moves the count
    first (``__cmd added``), so that each attack has a seed of its own."""
    game.restore(snapshot)
    with game.session(DEITY, DEITY_PASSWORD) as god_session:
        god_session.command(f"__cmd added -{shift} 0 0")  # the count moves up by shift
    country = made.country(a.country)
    with game.session(country.name, country.password) as me:
        live = LiveGame(me, scratch / "play.db")
        plan = a.plan(live.world)
        done = live.play(a.order, prompter=PlanPrompter(plan))
    seed = done.transcript.seed
    if seed is None:
        raise BellumError("the server's seed is unknown (is it in test mode?)")
    result = run_command(logged_in(god, a.country), a.order, country=a.country, seed=seed,
                         prompter=PlanPrompter(a.plan(god)))  # fmt: skip
    same = result.transcript() == done.transcript.text()
    return result.outcome.value, result.outcome.value in SUCCESS, same, seed


def logged_in(god: World, country: int) -> World:
    """A copy of the deity's world as the server has it when ``country``'s new session
    gives its first command: the login announced the telegrams that came in since the
    country's last session (the other countries' spies, in ``views``), and counts from 0
    again (player.c: ``status()`` runs before the first command, and without NF_INFORM
    prints "You have a new telegram waiting ..." and zeroes ``nat_tgms``; with it, the
    login did so).  Left at the deity's count, bellum would announce them after the
    fight, which the server does not."""
    world = god.copy()
    world.nations[country].tgms = 0
    return world


def drawn_attacks(god: World, rng: random.Random, seed: int, wanted: int,
                  counts: dict[str, int]) -> Iterator[tuple[str, Attack]]:  # fmt: skip
    """A world's attacks in the order the calibration draws them, until ``counts`` (the
    attacks the caller kept, by command) reach ``wanted`` in all; at most
    :data:`PER_WORLD` of a command."""
    found = candidates(god, rng)
    pool = [(name, c) for name in COMMANDS for c in found[name][: PER_WORLD * 3]]
    rng.shuffle(pool)
    for name, c in pool:
        if sum(counts.values()) >= wanted:
            return
        if counts[name] >= PER_WORLD:
            continue
        a = draw_attack(god, c, rng, seed)
        if a is not None:
            yield name, a


def world_attacks(seed: int, rng: random.Random, out: Path, wanted: int, draws: int,
                  offline: Path | None = None) -> int:  # fmt: skip
    """Set up world ``seed``, draw and play its attacks; the number recorded.  With
    ``offline`` (the folder of kept worlds) nothing is played: the attacks are drawn as
    the calibration draws them (the same random numbers), and each records its fog-aware
    and god's-eye P (with the latter's standard error) and no outcome."""
    if offline is not None:
        return offline_attacks(seed, rng, out, wanted, draws, offline)
    game = EmpireGame(empire_install(), dict(SIZE))
    recorded = 0
    folder = Path(tempfile.mkdtemp(prefix="bellum-fogcal-"))
    try:
        made = make_midgame(game, seed=seed, mix=Mix(), progress=lambda line: log(f"  {line}"))
        dbs = views(game, made, folder)
        snapshot = folder / "snapshot"
        game.snapshot(snapshot)
        god = deity_world(game)
        counts = dict.fromkeys(COMMANDS, 0)
        for name, a in drawn_attacks(god, rng, seed, wanted, counts):
            started = time.monotonic()
            with open_source(None, dbs[a.country]) as source:
                view = source.world
            p_fog, inputs, error, is_fresh = None, 0, "", False
            try:
                f = fog_odds(view, a.country, a.plan(view), draws=draws, seed=seed, samples=1)
                p_fog, inputs = f.p_success, len(f.inputs)
                lo, hi = EXTREME
                if not lo <= p_fog <= hi and rng.random() > KEEP_EXTREME:
                    continue
                is_fresh = fresh(view, a.country, a.plan(view))
            except BellumError as exc:
                error = str(exc)
            try:
                p_god = plan_odds(god, a.country, a.plan(god), seed=seed,
                                  target_error=GOD_ERROR).p_success  # fmt: skip
                outcome, success, same, server_seed = play(
                    game, snapshot, made, god, a, folder, rng.randrange(1, 1 << 20)
                )
            except BellumError as exc:
                log(f"  skipped {a.order} as {a.name}: {exc}")
                continue
            counts[name] += 1
            recorded += 1
            r = Record(seed, name, a.country, a.order, a.mil, a.units, p_fog, p_god, success,
                       is_fresh, outcome, same, inputs, error, server_seed)  # fmt: skip
            with out.open("a") as f_out:
                f_out.write(r.line() + "\n")
            shown = "unseen" if p_fog is None else f"{p_fog:.3f}"
            log(f"  {recorded:3} {a.order:<32} {a.name:<9} fog {shown} god {p_god:.3f}"
                f" -> {outcome}{'' if same else ' (transcripts differ)'}"
                f" {time.monotonic() - started:.0f}s")  # fmt: skip
    finally:
        game.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return recorded


def kept_views(seed: int, worlds: Path, *, god: bool = False) -> Path:
    """The folder holding world ``seed``'s views (``view-N.db``) and the deity's world
    as read after them (``god.pickle``), made again from its seed on a test server the
    first time, as :func:`world_attacks` made them.  A folder kept without the deity's
    world serves ``--rescore``, which needs only the views (no server), and is made
    again only for ``god``."""
    folder = worlds / f"w{seed}"
    if (folder / "done").exists() and (not god or (folder / "god.pickle").exists()):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    game = EmpireGame(empire_install(), dict(SIZE))
    try:
        made = make_midgame(game, seed=seed, mix=Mix(), progress=lambda line: log(f"  {line}"))
        views(game, made, folder)
        (folder / "god.pickle").write_bytes(pickle.dumps(deity_world(game)))
    finally:
        game.stop()
    (folder / "done").write_text(f"views of world {seed}\n")
    return folder


def kept_god(folder: Path) -> World:
    world: World = pickle.loads((folder / "god.pickle").read_bytes())
    return world


def offline_attacks(seed: int, rng: random.Random, out: Path, wanted: int, draws: int,
                    worlds: Path) -> int:  # fmt: skip
    """:func:`world_attacks` without a server game after the views: the same attacks
    drawn from the same random numbers (the seed shift a play would take included) up to
    the first the server would have refused (module notes), each
    recorded with its fog-aware P, its god's-eye P to :data:`OFFLINE_GOD_ERROR` and that
    error, and no outcome.  The mean of (fog P − god's P)², less the god's variance, is
    the Brier gap without the outcomes' noise (docs/fog.md)."""
    folder = kept_views(seed, worlds, god=True)
    god = kept_god(folder)
    counts = dict.fromkeys(COMMANDS, 0)
    recorded = 0
    for name, a in drawn_attacks(god, rng, seed, wanted, counts):
        started = time.monotonic()
        with open_source(None, folder / f"view-{a.country}.db") as source:
            view = source.world
        p_fog, is_fresh = None, False
        try:
            p_fog = fog_odds(view, a.country, a.plan(view), draws=draws, seed=seed,
                             samples=1).p_success  # fmt: skip
            lo, hi = EXTREME
            if not lo <= p_fog <= hi and rng.random() > KEEP_EXTREME:
                continue
            is_fresh = fresh(view, a.country, a.plan(view))
        except BellumError:
            pass
        try:
            g = plan_odds(god, a.country, a.plan(god), seed=seed, target_error=OFFLINE_GOD_ERROR)
        except BellumError as exc:
            log(f"  skipped {a.order} as {a.name}: {exc}")
            continue
        rng.randrange(1, 1 << 20)  # the seed shift a play takes: the next draws stay the same
        counts[name] += 1
        recorded += 1
        r = dict(world=seed, command=name, country=a.country, order=a.order, mil=a.mil,
                 units=a.units, p_fog=p_fog, p_god=g.p_success,
                 god_error=g.standard_error or 0.0, fresh=is_fresh)  # fmt: skip
        with out.open("a") as f_out:
            f_out.write(json.dumps(r) + "\n")
        shown = "unseen" if p_fog is None else f"{p_fog:.3f}"
        log(f"  {recorded:3} {a.order:<32} {a.name:<9} fog {shown} god {g.p_success:.3f}"
            f" {time.monotonic() - started:.0f}s")  # fmt: skip
    return recorded


def key(r: dict[str, Any]) -> tuple[int, int, str, int | None]:
    """What tells recorded attacks apart: the world, the attacker, the order and the
    server's seed."""
    return r["world"], r["country"], r["order"], r.get("seed")


#: How a record's outcome is logged (none without play).
OUTCOME = {True: "success", False: "failure"}


def rescore(records: list[dict[str, Any]], out: Path, worlds: Path, draws: int) -> int:
    """Each record again with the fog-aware P of today's priors (same worlds drawn, same
    seeds), appended to ``out``; records already there are skipped.  The number done."""
    done = {key(r) for r in read_records(out)} if out.exists() else set()
    todo = [r for r in records if key(r) not in done]
    for i, r in enumerate(todo, 1):
        folder = kept_views(r["world"], worlds)
        a = Attack(r["country"], "", r["order"], r["mil"], r["units"])
        with open_source(None, folder / f"view-{a.country}.db") as source:
            view = source.world
        new = dict(r, p_fog=None, inputs=0, fog_error="")
        started = time.monotonic()
        try:
            plan = a.plan(view)
            f = fog_odds(view, a.country, plan, draws=draws, seed=r["world"], samples=1)
            new.update(p_fog=f.p_success, inputs=len(f.inputs), fresh=fresh(view, a.country, plan))
        except BellumError as exc:
            new["fog_error"] = str(exc)
        with out.open("a") as f_out:
            f_out.write(json.dumps(new) + "\n")
        was = "unseen" if r["p_fog"] is None else f"{r['p_fog']:.3f}"
        now = "unseen" if new["p_fog"] is None else f"{new['p_fog']:.3f}"
        log(f"  {len(done) + i:3}/{len(records)} {r['world']} {r['order']:<32} fog {was} -> {now}"
            f" god {r['p_god']:.3f} {OUTCOME.get(r.get('success'), '')}"
            f" {time.monotonic() - started:.0f}s")  # fmt: skip
    return len(todo)


# -- the report ------------------------------------------------------------------------


def read_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def poisson_binomial(ps: Sequence[float]) -> list[float]:
    """P(k successes) of independent trials with probabilities ``ps``."""
    dist = [1.0]
    for p in ps:
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return dist


def interval(ps: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """The central ``level`` interval of the observed frequency if the ``ps`` are right."""
    dist = poisson_binomial(ps)
    tail = (1 - level) / 2
    acc, lo = 0.0, 0
    for k, q in enumerate(dist):
        if acc + q > tail:
            lo = k
            break
        acc += q
    acc, hi = 0.0, len(dist) - 1
    for k in range(len(dist) - 1, -1, -1):
        if acc + dist[k] > tail:
            hi = k
            break
        acc += dist[k]
    n = len(ps)
    return lo / n, hi / n


@dataclass
class Bin:
    lo: float
    hi: float
    n: int
    mean_p: float
    observed: float
    low: float
    high: float

    @property
    def inside(self) -> bool:
        return self.low <= self.observed <= self.high


def bins(rows: list[tuple[float, bool]], k: int = 10) -> list[Bin]:
    out = []
    for i in range(k):
        lo, hi = i / k, (i + 1) / k
        inside = [(p, s) for p, s in rows if lo <= p < hi or (i == k - 1 and p == 1.0)]
        if not inside:
            out.append(Bin(lo, hi, 0, math.nan, math.nan, math.nan, math.nan))
            continue
        ps = [p for p, _ in inside]
        low, high = interval(ps)
        out.append(Bin(lo, hi, len(inside), sum(ps) / len(ps),
                       sum(s for _, s in inside) / len(inside), low, high))  # fmt: skip
    return out


def brier(rows: list[tuple[float, bool]]) -> float:
    return sum((p - s) ** 2 for p, s in rows) / len(rows) if rows else math.nan


#: Resamples of the bootstrap interval of the Brier gap (fixed seed: the report is the
#: same each time).
RESAMPLES = 2000


def mean_interval(values: list[float], resamples: int = RESAMPLES) -> tuple[float, float]:
    """The central 95 % of the mean over bootstrap resamples (a fixed seed)."""
    if not values:
        return math.nan, math.nan
    rng = random.Random(0)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]


def gap_interval(rows: list[dict[str, Any]], resamples: int = RESAMPLES) -> tuple[float, float]:
    """The central 95 % of the fog-aware minus god's-eye Brier score over ``resamples``
    bootstrap resamples of the attacks (each attack's pair of squared errors kept
    together, so what the two share, the outcome's dice, cancels)."""
    diffs = [(r["p_fog"] - r["success"]) ** 2 - (r["p_god"] - r["success"]) ** 2 for r in rows]
    return mean_interval(diffs, resamples)


def report(records: list[dict[str, Any]]) -> str:
    """The calibration tables (Markdown) of docs/fog.md."""
    # an outcome counts where the server confirmed it: bellum's transcript is the server's
    usable = [r for r in records if r["p_fog"] is not None and r["checked"]]
    fog = [(r["p_fog"], r["success"]) for r in usable]
    god = [(r["p_god"], r["success"]) for r in usable]
    fresh_rows = [r for r in usable if r["fresh"]]
    kinds = {c: sum(r["command"] == c for r in records) for c in COMMANDS}
    lines = [
        f"{len(records)} attacks on {len({r['world'] for r in records})} worlds"
        f" ({', '.join(f'{n} {c}' for c, n in kinds.items())});"
        f" {sum(r['p_fog'] is None for r in records)} without fog odds (the plan is not one"
        " the player's view allows: a source's mil or the target beyond what it saw);"
        f" {sum(not r['checked'] for r in records)} where bellum's transcript differs from"
        " the server's (left out: the outcome is not confirmed).",
        "",
        "| | attacks | Brier fog-aware | Brier god's-eye | difference |",
        "|---|---|---|---|---|",
    ]
    stale = [r for r in usable if not r["fresh"]]
    for label, rows in (("all", usable), ("target seen since the update", fresh_rows),
                        ("target not seen fresh", stale)):  # fmt: skip
        f = brier([(r["p_fog"], r["success"]) for r in rows])
        g = brier([(r["p_god"], r["success"]) for r in rows])
        lines.append(f"| {label} | {len(rows)} | {f:.4f} | {g:.4f} | {f - g:+.4f} |")
    lines += ["", "| command | attacks | mean P fog-aware | mean P god's-eye | observed |"
              " Brier fog-aware | Brier god's-eye |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    for c in COMMANDS:
        rows = [r for r in usable if r["command"] == c]
        if rows:
            n = len(rows)
            lines.append(
                f"| {c} | {n} | {sum(r['p_fog'] for r in rows) / n:.3f} |"
                f" {sum(r['p_god'] for r in rows) / n:.3f} |"
                f" {sum(r['success'] for r in rows) / n:.3f} |"
                f" {brier([(r['p_fog'], r['success']) for r in rows]):.4f} |"
                f" {brier([(r['p_god'], r['success']) for r in rows]):.4f} |"
            )
    f_fresh = brier([(r["p_fog"], r["success"]) for r in fresh_rows])
    g_fresh = brier([(r["p_god"], r["success"]) for r in fresh_rows])
    outside = [b for b in bins(fog) if b.n and not b.inside]
    low, high = gap_interval(fresh_rows)
    lines += [
        "",
        f"- Target seen fresh: fog-aware Brier within 0.02 of god's-eye:"
        f" {'yes' if abs(f_fresh - g_fresh) <= 0.02 else '**no**'}"
        f" ({f_fresh - g_fresh:+.4f}; 95 % bootstrap interval {low:+.4f} to {high:+.4f}).",
        "- Every bin's observed frequency within its 95 % interval (fog-aware):"
        + (" yes." if not outside else
           f" **no**: {', '.join(f'{b.lo:.1f}-{b.hi:.1f}' for b in outside)}."),
    ]  # fmt: skip
    for label, rows in (("fog-aware", fog), ("god's-eye", god)):
        lines += ["", f"Reliability of the {label} odds (10 bins; the interval is where the"
                  " observed frequency lies 95 % of the time if the odds are right):", "",
                  "| P(success) | attacks | mean P | observed | 95 % interval | inside |",
                  "|---|---|---|---|---|---|"]  # fmt: skip
        for b in bins(rows):
            if b.n == 0:
                lines.append(f"| {b.lo:.1f}-{b.hi:.1f} | 0 | | | | |")
                continue
            bar = "█" * round(20 * b.observed)
            lines.append(
                f"| {b.lo:.1f}-{b.hi:.1f} | {b.n} | {b.mean_p:.3f} | {b.observed:.3f} {bar} |"
                f" {b.low:.3f}-{b.high:.3f} | {'yes' if b.inside else '**no**'} |"
            )
    return "\n".join(lines)


def squared_gaps(rows: list[dict[str, Any]], fog: str = "p_fog") -> list[float]:
    """Each attack's (fog P − god's P)² less the god's variance (the fog P under the key
    ``fog``): where the god's-eye odds are calibrated, its mean is the Brier gap's,
    without the outcomes' noise."""
    return [(r[fog] - r["p_god"]) ** 2 - r.get("god_error", 0.0) ** 2 for r in rows]


def gap_report(records: list[dict[str, Any]]) -> str:
    """E[(f − g)²] of a ``--no-play`` file (Markdown): where the target was seen fresh,
    elsewhere, and each command's share of the fresh one, with mean P of both."""
    usable = [r for r in records if r["p_fog"] is not None]
    fresh_rows = [r for r in usable if r["fresh"]]
    lines = ["| attacks | n | E[(f − g)²] | 95 % bootstrap | mean f | mean g |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    groups = [("all", usable), ("fresh", fresh_rows),
              ("not fresh", [r for r in usable if not r["fresh"]])]  # fmt: skip
    groups += [(f"fresh {c}", [r for r in fresh_rows if r["command"] == c]) for c in COMMANDS]
    for label, rows in groups:
        if not rows:
            continue
        d = squared_gaps(rows)
        lo, hi = mean_interval(d)
        n = len(rows)
        share = f" (share {sum(d) / len(fresh_rows):+.4f})" if label.startswith("fresh ") else ""
        lines.append(f"| {label} | {n} | {sum(d) / n:.4f}{share} | {lo:.4f} to {hi:.4f} |"
                     f" {sum(r['p_fog'] for r in rows) / n:.3f} |"
                     f" {sum(r['p_god'] for r in rows) / n:.3f} |")  # fmt: skip
    return "\n".join(lines)


def svg(records: list[dict[str, Any]]) -> str:
    """The reliability diagram: observed frequency against mean P per bin, both odds."""
    usable = [r for r in records if r["p_fog"] is not None and r["checked"]]
    size, pad = 360, 40
    span = size - 2 * pad

    def at(p: float, q: float) -> tuple[float, float]:
        return pad + p * span, size - pad - q * span

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}"'
             f' font-family="sans-serif" font-size="11">',
             f'<rect x="{pad}" y="{pad}" width="{span}" height="{span}" fill="none"'
             ' stroke="#999"/>',
             f'<line x1="{pad}" y1="{size - pad}" x2="{size - pad}" y2="{pad}" stroke="#bbb"'
             ' stroke-dasharray="4 3"/>']  # fmt: skip
    for key, colour, dx in (("p_fog", "#c0392b", -3), ("p_god", "#2c6fbb", 3)):
        for b in bins([(r[key], r["success"]) for r in usable]):
            if b.n == 0:
                continue
            x, y = at(b.mean_p, b.observed)
            _, y1 = at(b.mean_p, b.low)
            _, y2 = at(b.mean_p, b.high)
            parts.append(f'<line x1="{x + dx:.1f}" y1="{y1:.1f}" x2="{x + dx:.1f}" y2="{y2:.1f}"'
                         f' stroke="{colour}" stroke-opacity=".5"/>')  # fmt: skip
            parts.append(f'<circle cx="{x + dx:.1f}" cy="{y:.1f}" r="{2 + math.sqrt(b.n):.1f}"'
                         f' fill="{colour}" fill-opacity=".7"/>')  # fmt: skip
    parts += [f'<text x="{pad}" y="{size - 12}">predicted P(success) (bin mean)</text>',
              f'<text x="12" y="{pad - 12}">observed frequency</text>',
              f'<text x="{size - pad - 150}" y="{pad + 16}" fill="#c0392b">● fog-aware</text>',
              f'<text x="{size - pad - 150}" y="{pad + 30}" fill="#2c6fbb">● god\'s-eye</text>',
              "</svg>"]  # fmt: skip
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--attacks", type=int, default=300, help="attacks to record in all")
    ap.add_argument("--seed", type=int, default=1, help="the first world's seed")
    ap.add_argument("--out", type=Path, default=Path("build/fog-calibration.jsonl"))
    ap.add_argument("--draws", type=int, default=DRAWS, help="worlds the fog odds solve")
    ap.add_argument("--report", type=Path, help="print the tables of a results file")
    ap.add_argument("--svg", type=Path, help="with --report: draw the diagram there")
    ap.add_argument("--rescore", type=Path, help="recompute the fog-aware P of a results"
                    " file's attacks with today's priors (no server play); to --out")  # fmt: skip
    ap.add_argument("--worlds", type=Path, default=Path("build/fog-worlds"),
                    help="with --rescore or --no-play: where the worlds made are kept")  # fmt: skip
    ap.add_argument(
        "--no-play",
        action="store_true",
        help="draw the attacks as the"
        " calibration does and record both P, without outcomes (no server play)",
    )
    ap.add_argument("--gap", type=Path, help="print the mean squared difference of the"
                    " fog-aware and god's-eye P of a --no-play file")  # fmt: skip
    args = ap.parse_args(argv)
    if args.rescore is not None:
        if args.rescore.resolve() == args.out.resolve():
            ap.error("--rescore needs an --out other than the file it reads")
        records = read_records(args.rescore)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        n = rescore(records, args.out, args.worlds, args.draws)
        log(f"{n} attacks rescored into {args.out}")
        return 0
    if args.gap is not None:
        print(gap_report(read_records(args.gap)))
        return 0
    if args.report is not None:
        records = read_records(args.report)
        print(report(records))
        if args.svg is not None:
            args.svg.write_text(svg(records))
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = len(read_records(args.out)) if args.out.exists() else 0
    seeds: Iterator[int] = iter(range(args.seed, args.seed + 1000))
    while done < args.attacks:
        seed = next(seeds)
        log(f"world {seed}: {done} attacks so far")
        rng = random.Random(seed)
        done += world_attacks(seed, rng, args.out, min(args.attacks - done, PER_WORLD * 5),
                              args.draws, args.worlds if args.no_play else None)  # fmt: skip
    log(f"{done} attacks in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
