"""The strength ladder: fixed rungs (random, greedy, expectimax by depth, MCTS and the
default bot by iterations), seat-paired two-player games between rungs close in strength,
and Bradley-Terry ratings on one scale anchored at `ANCHOR` = 0 Elo. Budgets are counted
in iterations, so the ladder does not depend on the machine's speed. Each game is keyed
by its pair of rungs and its seed alone: a run given the records of an earlier one plays
only the games still missing, and a new rung only the games that involve it."""
from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gallerist.ai.arena.ratings import Rating, ratings
from gallerist.ai.arena.records import GameRecord, read_records
from gallerist.ai.arena.tournament import GameSpec, run_local, run_ray
from gallerist.engine.errors import GalleristError

__all__ = ["ANCHOR", "LEVEL_TIES", "LadderError", "RUNGS", "Rung", "RungRating", "SoloRung",
           "TABLE_RUNGS", "doubling_elo", "format_ladder", "format_solo", "ladder_games",
           "ladder_ratings", "level_games", "level_rungs", "measured_games", "missing_games", "plot_ladder",
           "run_ladder", "run_plan", "rungs_named", "solo_games", "solo_results", "table_games",
           "adjacent_differences", "ladder_notes", "uct_equivalent"]


class LadderError(GalleristError, ValueError):
    """A bad rung, count or records file; the message names it."""


@dataclass(frozen=True)
class Rung:
    """One rung: its name, its bot family, its budget (iterations; expectimax: depth;
    0 for bots without one) and the bot spec it plays."""

    name: str
    family: str
    budget: int
    spec: str


def _mcts(family: str, iterations: int, prior: str) -> Rung:
    return Rung(f"{family}-{iterations}", family, iterations,
                f"mcts:iterations={iterations},prior={prior},threads=1,calibrated=false")


#: The rungs, weakest first as far as known before measuring (the order only chooses
#: which rungs meet; the ratings come from the games).
RUNGS: tuple[Rung, ...] = (
    Rung("random", "random", 0, "random:playouts=0,calibrated=false"),
    _mcts("mcts", 10, "none"),
    Rung("greedy", "greedy", 0, "greedy:playouts=0,calibrated=false"),
    _mcts("default", 10, "auto"),
    _mcts("mcts", 30, "none"),
    Rung("expectimax-1", "expectimax", 1, "expectimax:depth=1,playouts=0,calibrated=false"),
    _mcts("default", 30, "auto"),
    _mcts("mcts", 100, "none"),
    Rung("expectimax-2", "expectimax", 2, "expectimax:depth=2,playouts=0,calibrated=false"),
    _mcts("default", 100, "auto"),
    _mcts("mcts", 300, "none"),
    _mcts("default", 300, "auto"),
    _mcts("mcts", 1000, "none"),
    _mcts("default", 1000, "auto"),
    _mcts("mcts", 3000, "none"),
)
#: The rung fixed at 0 Elo.
ANCHOR = "random"
#: Each rung meets the next this many rungs above it.
REACH = 2


def rungs_named(names: Iterable[str] | None) -> list[Rung]:
    """The rungs of `names` in ladder order (None: all).

    Raises:
        LadderError: an unknown name, naming the known ones.
    """
    if names is None:
        return list(RUNGS)
    wanted = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    known = {r.name: r for r in RUNGS}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise LadderError(f"unknown rung {unknown[0]!r}; known: {', '.join(known)}")
    return [r for r in RUNGS if r.name in wanted]


def _pair_seed(base: int, a: str, b: str, k: int) -> int:
    """The setup seed of the k-th seed of the pair (a, b): fixed by the pair's names, not
    by which other rungs are on the ladder."""
    digest = hashlib.sha256(f"{base}/{min(a, b)}/{max(a, b)}/{k}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


def _group_seed(base: int, names: Sequence[str], k: int) -> int:
    """The k-th setup seed of a group of rungs (a solo rung, or 3-4 rungs at a table)."""
    key = "/".join([str(base), f"{len(names)}p" if len(names) != 1 else "solo", *sorted(names), str(k)])
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 2


#: The rungs of the 3- and 4-player ladders: at those counts the default bot has no
#: prior everywhere (4 players: it is UCT), so plain UCT carries the budgets.
TABLE_RUNGS = ("random", "greedy", "mcts-10", "mcts-30", "expectimax-2", "mcts-100",
               "mcts-300", "mcts-1000")


def table_games(rungs: Sequence[Rung], players: int, games_per_group: int,
                seed: int = 0) -> list[GameSpec]:
    """3-4 player games: every `players` consecutive rungs at one table, on
    `games_per_group` // players setups, each in every rotation of the seats."""
    if not 3 <= players <= 4:
        raise LadderError(f"tables have 3 or 4 players, got {players!r}")
    if games_per_group % players:
        raise LadderError(f"games per table must be a multiple of {players} (every rotation "
                          f"of the seats), got {games_per_group}")
    if len(rungs) < players:
        raise LadderError(f"a {players}-player ladder needs at least {players} rungs")
    out: list[GameSpec] = []
    for i in range(len(rungs) - players + 1):
        group = [r.spec for r in rungs[i:i + players]]
        names = [r.name for r in rungs[i:i + players]]
        for k in range(games_per_group // players):
            s = _group_seed(seed, names, k)
            for turn in range(players):
                seats = tuple(group[turn:] + group[:turn])
                out.append(GameSpec(index=len(out), seed=s, seats=seats))
    return out


def solo_games(rungs: Sequence[Rung], games: int, seed: int = 0) -> list[GameSpec]:
    """Solo games (against Lacerda): `games` setups for every rung."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= 100_000:
        raise LadderError(f"solo games per rung must be 1..100000, got {games!r}")
    out: list[GameSpec] = []
    for r in rungs:
        for k in range(games):
            out.append(GameSpec(index=len(out), seed=_group_seed(seed, [r.name], k), seats=(r.spec,)))
    return out


def ladder_games(rungs: Sequence[Rung], games_per_pair: int, seed: int = 0,
                 reach: int = REACH) -> list[GameSpec]:
    """Every game of the ladder: each rung against the next `reach` rungs, on
    `games_per_pair` // 2 setup seeds, both seatings of each (seat-paired)."""
    if isinstance(reach, bool) or not isinstance(reach, int) or not 1 <= reach <= len(RUNGS):
        raise LadderError(f"reach must be an integer 1..{len(RUNGS)}, got {reach!r}")
    if isinstance(games_per_pair, bool) or not isinstance(games_per_pair, int) or not (
            2 <= games_per_pair <= 100_000) or games_per_pair % 2:
        raise LadderError(f"games per pair must be an even number 2..100000, got {games_per_pair!r}")
    out: list[GameSpec] = []
    for i, low in enumerate(rungs):
        for high in rungs[i + 1:i + 1 + reach]:
            for k in range(games_per_pair // 2):
                s = _pair_seed(seed, low.name, high.name, k)
                for seats in ((low.spec, high.spec), (high.spec, low.spec)):
                    out.append(GameSpec(index=len(out), seed=s, seats=seats))
    return out


def _key(seed: int, seats: Sequence[str]) -> tuple[int, tuple[str, ...]]:
    return seed, tuple(seats)


def level_rungs(numbers: Iterable[str] | None = None) -> list[Rung]:
    """The levels (ai.bots.levels; `numbers`: only these, None: all) as rungs "level-N"
    whose budget is their iterations, each playing its setting's spec (a level re-tuned
    is a new rung: its old games are not counted for it).

    Raises:
        LadderError: a number that is not a level, naming the levels.
    """
    from gallerist.ai.bots.levels import LEVELS

    wanted = range(1, len(LEVELS) + 1)
    if numbers is not None:
        texts = [t.strip() for t in numbers if t.strip()]
        bad = [t for t in texts if not (t.isdigit() and 1 <= int(t) <= len(LEVELS))]
        if bad or not texts:
            raise LadderError(f"levels are 1..{len(LEVELS)}, got {bad[0] if bad else 'none'!r}")
        wanted = sorted({int(t) for t in texts})
    return [Rung(f"level-{n}", "level", LEVELS[n - 1].iterations,
                 LEVELS[n - 1].spec(calibrated=False)) for n in wanted]


#: The ladder rungs each level meets besides the next level: the two nearest it in
#: rating, which tie the levels to the ladder's scale.
LEVEL_TIES: dict[int, tuple[str, ...]] = {
    1: ("random", "greedy"), 2: ("greedy", "mcts-10"), 3: ("mcts-10", "mcts-30"),
    4: ("default-10", "mcts-100"), 5: ("mcts-30", "mcts-100"),
    6: ("default-100", "mcts-300"), 7: ("mcts-300", "default-300"),
    8: ("default-300", "mcts-1000"),
}


def level_games(levels: Sequence[Rung], rungs: Sequence[Rung], games_per_pair: int,
                tie_games: int, seed: int = 0) -> list[GameSpec]:
    """The games of `levels` (`level_rungs`): each against the next of them
    (`games_per_pair`) and against those of its `LEVEL_TIES` rungs that are among `rungs`
    (`tie_games`), seat-paired and keyed like the ladder's."""
    by_name = {r.name: r for r in rungs}
    out: list[GameSpec] = []
    for low, high in zip(levels, levels[1:]):
        out += ladder_games([low, high], games_per_pair, seed, reach=1)
    for level in levels:
        for name in LEVEL_TIES.get(int(level.name.split("-")[1]), ()):
            if name in by_name:
                out += ladder_games([by_name[name], level], tie_games, seed, reach=1)
    return [GameSpec(index=i, seed=g.seed, seats=g.seats) for i, g in enumerate(out)]


def measured_games(spec: str, against: Sequence[Rung], games_per_rung: int,
                   seed: int = 0) -> tuple[Rung, list[GameSpec]]:
    """A bot of any spec as a rung of its own ("measured"), playing seat-paired games
    against each of `against`, to be rated on the ladder's scale with its games."""
    from gallerist.ai.bots.spec import make_bot

    try:
        make_bot(spec)
    except (ValueError, TypeError) as exc:
        raise LadderError(f"--measure: {exc}") from None
    rung = Rung(spec, "measured", 0, spec)
    out: list[GameSpec] = []
    for other in against:
        out += ladder_games([other, rung], games_per_rung, seed, reach=1)
    return rung, [GameSpec(index=i, seed=g.seed, seats=g.seats) for i, g in enumerate(out)]


def missing_games(plan: Sequence[GameSpec], records: Iterable[GameRecord]) -> list[GameSpec]:
    """The games of `plan` that `records` do not hold yet."""
    done = {_key(r.seed, r.bots) for r in records if r.complete}
    return [g for g in plan if _key(g.seed, g.seats) not in done]


def run_ladder(rungs: Sequence[Rung], *, games_per_pair: int, records_path: str,
               workers: int = 1, seed: int = 0, reach: int = REACH, backend: str = "local",
               ray_address: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> list[GameRecord]:
    """Play the ladder's missing games, appending each finished game to `records_path`
    (Ctrl-C keeps every finished one), and return every record of a game between two of
    `rungs` (the plan's and any earlier run's, e.g. one with a longer reach)."""
    return run_plan(ladder_games(rungs, games_per_pair, seed, reach), rungs,
                    records_path=records_path, workers=workers, backend=backend,
                    ray_address=ray_address, progress=progress)


def run_plan(plan: Sequence[GameSpec], rungs: Sequence[Rung], *, records_path: str,
             workers: int = 1, backend: str = "local", ray_address: str | None = None,
             progress: Callable[[int, int], None] | None = None) -> list[GameRecord]:
    """Play the games of `plan` that `records_path` does not hold yet (appending each)
    on local processes or Ray (`backend`), and return every record of a game between
    two of `rungs`."""
    if backend not in ("local", "ray"):
        raise LadderError(f"unknown backend {backend!r}: use 'local' or 'ray'")
    have = read_records(records_path) if os.path.exists(records_path) else []
    todo = missing_games(plan, have)
    done = len(plan) - len(todo)
    if progress:
        progress(done, len(plan))
    with open(records_path, "a", encoding="utf-8") as fh:
        games = (run_local(todo, workers) if backend == "local"
                 else run_ray(todo, workers, ray_address))
        for record in games:
            fh.write(record.to_json() + "\n")
            fh.flush()
            have.append(record)
            done += 1
            if progress:
                progress(done, len(plan))
    specs = {r.spec for r in rungs}
    return [r for r in have if r.complete and all(b in specs for b in r.bots)]


@dataclass(frozen=True)
class RungRating:
    """A rung's rating on the anchored scale, its 95% interval and its games."""

    rung: Rung
    elo: float
    ci: tuple[float, float]
    games: int


def ladder_ratings(rungs: Sequence[Rung], records: Sequence[GameRecord],
                   anchor: str = ANCHOR) -> list[RungRating]:
    """Bradley-Terry ratings of the rungs that played, `anchor` fixed at 0 (each interval
    that of the difference to it), in ladder order."""
    by_spec = {r.spec: r for r in rungs}
    results = [r.result() for r in records if all(b in by_spec for b in r.bots)]
    played = [r for r in rungs if any(r.spec in res.bots for res in results)]
    if not played:
        return []
    names = {r.name: r for r in played}
    fixed = names[anchor].spec if anchor in names else None
    rated: dict[str, Rating] = {x.bot: x for x in ratings(results, [r.spec for r in played],
                                                          anchor=fixed)}
    counts = {r.spec: sum(r.spec in res.bots for res in results) for r in played}
    return [RungRating(r, rated[r.spec].elo, rated[r.spec].ci, counts[r.spec]) for r in played]


@dataclass(frozen=True)
class SoloRung:
    """A rung's solo result: mean final money against Lacerda, its 95% interval, games."""

    rung: Rung
    mean: float
    ci: tuple[float, float]
    games: int


def solo_results(rungs: Sequence[Rung], records: Sequence[GameRecord]) -> list[SoloRung]:
    """Each rung's mean money in its solo games (Student's t interval), in ladder order."""
    from gallerist.ai.arena.ratings import solo_summary

    by_spec = {r.spec: r for r in rungs}
    summary = {s.bot: s for s in solo_summary([r.result() for r in records
                                                if len(r.bots) == 1 and r.bots[0] in by_spec])}
    return [SoloRung(r, summary[r.spec].mean_score,
                     summary[r.spec].mean_ci or (summary[r.spec].mean_score,) * 2,
                     summary[r.spec].games) for r in rungs if r.spec in summary]


def format_solo(rated: Sequence[SoloRung]) -> str:
    """The solo ladder as a text table, best first."""
    lines = ["ladder, solo against Lacerda (mean final money, $; 95% intervals)",
             f"{'rung':<16}{'family':<12}{'budget':>8}{'mean $':>8}   {'95% interval':<18}{'games':>6}"]
    for x in sorted(rated, key=lambda x: -x.mean):
        lines.append(f"{x.rung.name:<16}{x.rung.family:<12}{x.rung.budget:>8}{x.mean:>8.1f}   "
                     f"{x.ci[0]:>6.1f} to {x.ci[1]:<8.1f}{x.games:>6}")
    return "\n".join(lines)


def format_ladder(rated: Sequence[RungRating], anchor: str = ANCHOR, players: int = 2) -> str:
    """The ladder as a text table, strongest first."""
    fixed = (f"{anchor} fixed at 0 Elo" if any(x.rung.name == anchor for x in rated)
             else "mean 0 Elo")
    w = max([16] + [len(x.rung.name) + 2 for x in rated])
    lines = [f"ladder, {players} players ({fixed}; 95% intervals)",
             f"{'rung':<{w}}{'family':<12}{'budget':>8}{'Elo':>8}   {'95% interval':<18}{'games':>6}"]
    for x in sorted(rated, key=lambda x: -x.elo):
        lines.append(f"{x.rung.name:<{w}}{x.rung.family:<12}{x.rung.budget:>8}{x.elo:>8.0f}   "
                     f"{x.ci[0]:>6.0f} to {x.ci[1]:<8.0f}{x.games:>6}")
    return "\n".join(lines)


def plot_ladder(rated: Sequence[RungRating] | Sequence[SoloRung], path: str,
                anchor: str = ANCHOR, players: int = 2) -> None:
    """Elo (solo: mean money) against budget on a log axis, one line per family with a
    budget (the others as horizontal lines), the levels beside, written as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = sorted((int(x.rung.name.split("-")[1]), x) for x in rated if x.rung.family == "level")
    rated = [x for x in rated if x.rung.family != "level"]
    if levels:
        fig, (ax, lx) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [3, 2]})
        ys = [x.elo for _, x in levels]
        lx.errorbar([n for n, _ in levels], ys, marker="o", capsize=3,
                    yerr=[[y - x.ci[0] for (_, x), y in zip(levels, ys)],
                          [x.ci[1] - y for (_, x), y in zip(levels, ys)]])
        lx.set_xlabel("level")
        lx.set_ylabel(f"Elo ({anchor} = 0)")
        lx.set_title("The levels")
        lx.grid(True, alpha=0.3)
    else:
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
    def value(x: Any) -> float:
        return x.mean if isinstance(x, SoloRung) else x.elo

    families = dict.fromkeys(x.rung.family for x in rated)
    for family in families:
        pts = sorted((x for x in rated if x.rung.family == family), key=lambda x: x.rung.budget)
        if pts[0].rung.budget > 0 and family != "expectimax":
            xs = [x.rung.budget for x in pts]
            ys = [value(x) for x in pts]
            err = [[y - x.ci[0] for x, y in zip(pts, ys)], [x.ci[1] - y for x, y in zip(pts, ys)]]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=f"{family} (iterations)")
        else:
            for x in pts:
                ax.axhline(value(x), linestyle=":", linewidth=1, color="grey")
                ax.annotate(x.rung.name, (1, value(x)), xycoords=("axes fraction", "data"),
                            ha="right", va="bottom", fontsize=8, color="dimgrey")
    ax.set_xscale("log")
    ax.set_xlabel("search budget (iterations)")
    solo = bool(rated) and isinstance(rated[0], SoloRung)
    ax.set_ylabel("mean final money, $ (solo)" if solo else
                  f"Elo ({anchor} = 0)" if any(x.rung.name == anchor for x in rated) else "Elo")
    ax.set_title("The strength ladder, " + ("solo" if solo else f"{players} players"))
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def doubling_elo(rated: Sequence[RungRating], family: str) -> list[tuple[int, int, float]]:
    """(budget, next budget, Elo per doubling of iterations between them) along `family`."""
    pts = sorted((x for x in rated if x.rung.family == family and x.rung.budget > 0),
                 key=lambda x: x.rung.budget)
    return [(a.rung.budget, b.rung.budget, (b.elo - a.elo) / math.log2(b.rung.budget / a.rung.budget))
            for a, b in zip(pts, pts[1:])]


def uct_equivalent(rated: Sequence[RungRating], elo: float, family: str = "mcts") -> float | None:
    """The iterations at which `family` reaches `elo`: its ladder interpolated in Elo
    against log2(iterations), extrapolated from its last two rungs beyond its ends;
    None with fewer than two of its rungs."""
    pts = sorted(((x.rung.budget, x.elo) for x in rated
                  if x.rung.family == family and x.rung.budget > 0))
    if len(pts) < 2:
        return None
    logs = [(math.log2(b), e) for b, e in pts]
    for (x0, e0), (x1, e1) in zip(logs, logs[1:]):
        if min(e0, e1) <= elo <= max(e0, e1) and e1 != e0:
            return float(2 ** (x0 + (elo - e0) * (x1 - x0) / (e1 - e0)))
    (x0, e0), (x1, e1) = logs[:2] if elo < logs[0][1] else logs[-2:]
    if e1 == e0:
        return None
    return float(2 ** (x0 + (elo - e0) * (x1 - x0) / (e1 - e0)))


def ladder_notes(rated: Sequence[RungRating]) -> list[str]:
    """What the ladder says in words: the Elo a doubling of iterations is worth along
    each family, and how many plain-UCT iterations the default bot at its default
    budget (default-1000) plays like."""
    out = []
    for family in ("mcts", "default"):
        steps = doubling_elo(rated, family)
        if steps:
            out.append(f"{family}: Elo per doubling of iterations " + ", ".join(
                f"{a}->{b}: {e:+.0f}" for a, b, e in steps))
    top = next((x for x in rated if x.rung.name == "default-1000"), None)
    if top is not None:
        same = uct_equivalent(rated, top.elo)
        if same is not None:
            out.append(f"the default bot at its default budget (1,000 iterations, {top.elo:,.0f} "
                       f"Elo) plays like plain UCT at about {same:,.0f} iterations: its prior "
                       f"is worth {same / 1000:.1f}x the iterations")
    return out


def adjacent_differences(rungs: Sequence[Rung], records: Sequence[GameRecord],
                         chain: Sequence[Rung]) -> list[tuple[Rung, Rung, float, tuple[float, float]]]:
    """For each neighbour pair (a, b) of `chain` (e.g. the levels), b's rating less a's
    and the 95% profile-likelihood interval of that difference, from every game between
    `rungs` (a fixed in turn at 0)."""
    specs = [r.spec for r in rungs]
    wanted = set(specs)
    results = [r.result() for r in records if all(b in wanted for b in r.bots)]
    out = []
    for a, b in zip(chain, chain[1:]):
        rated = {x.bot: x for x in ratings(results, specs, anchor=a.spec)}
        out.append((a, b, rated[b.spec].elo, rated[b.spec].ci))
    return out
