"""The strength ladder (ai.arena.ladder, `gallerist ladder`): seat-paired games between
near rungs, keyed by pair and seed so that a run continues where the records stop and a new
rung plays only its own games; ratings anchored at random = 0."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from gallerist.ai.arena.ladder import (ANCHOR, LEVEL_TIES, RUNGS, LadderError, ladder_games,
                                       ladder_ratings, level_games, level_rungs, missing_games,
                                       run_ladder, run_plan, rungs_named, solo_games,
                                       solo_results, table_games)
from gallerist.ai.bots.levels import LEVELS
from gallerist.ai.arena.records import read_records

SMALL = ["random", "mcts-10", "greedy"]


def test_games_are_seat_paired_between_near_rungs() -> None:
    rungs = rungs_named(SMALL)
    plan = ladder_games(rungs, 4, seed=0)
    pairs = {frozenset(g.seats) for g in plan}
    assert len(plan) == 3 * 4 and len(pairs) == 3   # reach 2: every pair of three rungs
    for g in plan:   # each setup seed is played in both seatings
        assert sum(1 for h in plan if h.seed == g.seed and h.seats == g.seats[::-1]) == 1
    five = ladder_games(rungs_named([r.name for r in RUNGS[:5]]), 2)
    assert {frozenset(g.seats) for g in five} == {
        frozenset((RUNGS[i].spec, RUNGS[j].spec)) for i in range(5) for j in (i + 1, i + 2) if j < 5}


def test_a_pair_s_games_do_not_depend_on_the_other_rungs() -> None:
    """Adding a rung adds games; the games already planned keep their seeds."""
    before = {(g.seed, g.seats) for g in ladder_games(rungs_named(SMALL[:2]), 4)}
    after = {(g.seed, g.seats) for g in ladder_games(rungs_named(SMALL), 4)}
    assert before < after


@pytest.mark.parametrize("bad, message", [
    (3, "even number"), (0, "even number"), (True, "even number")])
def test_bad_counts_and_rungs_are_refused(bad, message) -> None:
    with pytest.raises(LadderError, match=message):
        ladder_games(rungs_named(SMALL), bad)
    with pytest.raises(LadderError, match="unknown rung 'mcts-7'; known: random"):
        rungs_named(["random", "mcts-7"])


def test_a_run_continues_and_a_new_rung_plays_only_its_games(tmp_path: Path) -> None:
    records = tmp_path / "ladder.jsonl"
    first = run_ladder(rungs_named(SMALL[:2]), games_per_pair=2, records_path=str(records))
    assert len(first) == 2 and len(read_records(str(records))) == 2
    again = run_ladder(rungs_named(SMALL[:2]), games_per_pair=2, records_path=str(records))
    assert len(again) == 2 and len(read_records(str(records))) == 2   # nothing played again
    grown = run_ladder(rungs_named(SMALL), games_per_pair=2, records_path=str(records))
    assert len(grown) == 6 and len(read_records(str(records))) == 6   # only greedy's 4 games
    assert missing_games(ladder_games(rungs_named(SMALL), 2), grown) == []
    rated = ladder_ratings(rungs_named(SMALL), grown)
    assert [x.rung.name for x in rated] == SMALL
    anchor = next(x for x in rated if x.rung.name == ANCHOR)
    assert anchor.elo == 0 and all(x.ci[0] <= x.elo <= x.ci[1] for x in rated)
    assert all(x.games == 4 for x in rated)


def test_the_command_writes_the_table_json_and_picture(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "gallerist.cli", "ladder", "--rungs", "random,greedy",
            "--games-per-pair", "2", "--no-progress", "--records", str(tmp_path / "g.jsonl"),
            "--out", str(tmp_path / "l.json"), "--png", str(tmp_path / "l.png")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "random fixed at 0 Elo" in done.stdout and "greedy" in done.stdout
    report = json.loads((tmp_path / "l.json").read_text())
    assert report["anchor"] == "random" and {r["rung"] for r in report["rungs"]} == {"random", "greedy"}
    assert (tmp_path / "l.png").stat().st_size > 1000
    bad = subprocess.run(argv[:4] + ["--rungs", "random,nope"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "unknown rung 'nope'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_reach_one_plays_neighbours_only_and_the_ratings_use_every_game(tmp_path: Path) -> None:
    """A --reach 1 run adds games between neighbours; the ratings count the earlier
    games of longer reach too."""
    rungs = rungs_named(SMALL)
    near = ladder_games(rungs, 2, reach=1)
    assert {frozenset(g.seats) for g in near} == {frozenset((rungs[0].spec, rungs[1].spec)),
                                                  frozenset((rungs[1].spec, rungs[2].spec))}
    records = tmp_path / "ladder.jsonl"
    run_ladder(rungs, games_per_pair=2, records_path=str(records))          # reach 2: 6 games
    grown = run_ladder(rungs, games_per_pair=4, records_path=str(records), reach=1)
    assert len(grown) == 10   # 4 more between neighbours, and the far pair's 2 still counted
    with pytest.raises(LadderError, match="reach must be an integer 1..15"):
        ladder_games(rungs, 2, reach=0)


def test_tables_of_three_or_four_play_every_rotation_of_neighbouring_rungs() -> None:
    rungs = rungs_named(["random", "mcts-10", "greedy", "mcts-30"])
    three = table_games(rungs, 3, 6)
    groups = {frozenset(g.seats) for g in three}
    assert groups == {frozenset(r.spec for r in rungs[:3]), frozenset(r.spec for r in rungs[1:])}
    for g in three:   # each setup is played with every seat taking every bot once
        rotations = [h.seats for h in three if h.seed == g.seed]
        assert len(rotations) == 3 and all(len(set(col)) == 3 for col in zip(*rotations))
    assert len(table_games(rungs, 4, 8)) == 8
    with pytest.raises(LadderError, match="multiple of 4"):
        table_games(rungs, 4, 6)


def test_a_three_player_ladder_rates_finishing_orders_and_solo_gives_mean_money(
        tmp_path: Path) -> None:
    rungs = rungs_named(["random", "greedy", "mcts-10"])
    records = run_plan(table_games(rungs, 3, 3), rungs, records_path=str(tmp_path / "t.jsonl"))
    assert len(records) == 3 and all(len(r.bots) == 3 for r in records)
    rated = ladder_ratings(rungs, records)
    assert {x.rung.name for x in rated} == {"random", "greedy", "mcts-10"}
    assert next(x for x in rated if x.rung.name == "random").elo == 0
    solo = run_plan(solo_games(rungs, 2), rungs, records_path=str(tmp_path / "s.jsonl"))
    means = solo_results(rungs, solo)
    assert [x.games for x in means] == [2, 2, 2]
    for x in means:
        money = [r.money[0] for r in solo if r.bots[0] == x.rung.spec]
        assert x.mean == sum(money) / 2 and x.ci[0] <= x.mean <= x.ci[1]


def test_the_levels_meet_the_next_level_and_their_tied_rungs() -> None:
    """Each level plays the next level and the ladder rungs tied to it; a level's games
    are keyed by its settings' spec, so re-tuning a level plays it anew."""
    levels = level_rungs()
    assert [r.name for r in levels] == [f"level-{n}" for n in range(1, len(LEVELS) + 1)]
    assert levels[0].spec == LEVELS[0].spec(calibrated=False)
    plan = level_games(levels, list(RUNGS), 4, 2)
    pairs = {frozenset(g.seats) for g in plan}
    for low, high in zip(levels, levels[1:]):
        assert sum(1 for g in plan if frozenset(g.seats) == {low.spec, high.spec}) == 4
    by_name = {r.name: r for r in RUNGS}
    for n, tied in LEVEL_TIES.items():
        for name in tied:
            assert frozenset((levels[n - 1].spec, by_name[name].spec)) in pairs
    assert len(plan) == 4 * (len(levels) - 1) + 2 * sum(len(t) for t in LEVEL_TIES.values())
    with pytest.raises(LadderError, match="levels are 1..8, got '9'"):
        level_rungs(["9"])


def test_the_command_plays_three_players_and_solo(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "gallerist.cli", "ladder", "--rungs", "random,greedy,mcts-10",
            "--no-progress"]
    three = subprocess.run(base + ["--players", "3", "--games-per-pair", "3"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)
    assert three.returncode == 0, three.stderr
    assert "ladder, 3 players" in three.stdout
    assert json.loads((tmp_path / "ladder-3p.json").read_text())["players"] == 3
    solo = subprocess.run(base + ["--players", "1", "--games-per-pair", "2"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert solo.returncode == 0, solo.stderr
    assert "solo against Lacerda" in solo.stdout
    report = json.loads((tmp_path / "ladder-solo.json").read_text())
    assert {r["rung"] for r in report["rungs"]} == {"random", "greedy", "mcts-10"}
    assert all("mean_money" in r for r in report["rungs"])
    bad = subprocess.run(base + ["--players", "3", "--levels"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "rated at 2 players" in bad.stderr


def test_the_command_rates_levels_and_writes_their_file(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "ladder", "--rungs",
                           "random,greedy", "--levels", "1,2", "--games-per-pair", "2",
                           "--tie-games", "2", "--no-progress"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    levels = json.loads((tmp_path / "levels.json").read_text())["levels"]
    assert [x["level"] for x in levels] == [1, 2]
    assert levels[0]["iterations"] == LEVELS[0].iterations and levels[0]["games"] > 0


def test_measure_rates_any_bot_on_the_ladder_s_scale(tmp_path: Path) -> None:
    """--measure SPEC --against A,B: the bot plays seat-paired games against those rungs
    and gets a row of its own; a bad spec or no --against is one line, status 2."""
    base = [sys.executable, "-m", "gallerist.cli", "ladder", "--rungs", "random,greedy",
            "--games-per-pair", "2", "--no-progress"]
    done = subprocess.run(base + ["--measure", "level:1", "--against", "random,greedy"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {r["rung"]: r for r in json.loads((tmp_path / "ladder.json").read_text())["rungs"]}
    assert rows["level:1"]["family"] == "measured" and rows["level:1"]["games"] == 4
    for extra, words in ((["--measure", "level:44", "--against", "greedy"], "level 1..8, got 44"),
                         (["--measure", "level:4"], "needs --against")):
        bad = subprocess.run(base + extra, cwd=tmp_path, capture_output=True, text=True,
                             timeout=120)
        assert bad.returncode == 2 and words in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1


def test_uct_equivalent_interpolates_elo_against_log_iterations() -> None:
    """The plain-UCT iterations of a rating: log-linear between the rungs around it and
    beyond the ends from the last two rungs; the notes say what a doubling is worth."""
    from gallerist.ai.arena.ladder import RungRating, ladder_notes, uct_equivalent

    by = {r.name: r for r in RUNGS}
    rated = [RungRating(by["mcts-100"], 800.0, (0, 0), 10), RungRating(by["mcts-300"], 1000.0, (0, 0), 10),
             RungRating(by["mcts-1000"], 1200.0, (0, 0), 10),
             RungRating(by["default-1000"], 1100.0, (0, 0), 10)]
    assert uct_equivalent(rated, 1000.0) == pytest.approx(300.0)
    mid = uct_equivalent(rated, 1100.0)
    assert mid == pytest.approx(2 ** ((math.log2(300) + math.log2(1000)) / 2))
    assert uct_equivalent(rated, 1400.0) > 1000 and uct_equivalent(rated, 700.0) < 100
    notes = ladder_notes(rated)
    assert any(n.startswith("mcts: Elo per doubling") for n in notes)
    assert any("plays like plain UCT at about 548 iterations" in n for n in notes)


def test_the_ladder_plays_on_ray_as_on_local_workers(tmp_path: Path) -> None:
    """--backend ray: the same games (keys) as local workers, and the same results, since
    each game is seeded by its setup and seats."""
    rungs = rungs_named(["random", "greedy"])
    plan = ladder_games(rungs, 2)
    local = run_plan(plan, rungs, records_path=str(tmp_path / "l.jsonl"), workers=2)
    ray = run_plan(plan, rungs, records_path=str(tmp_path / "r.jsonl"), workers=2, backend="ray")
    key = lambda r: (r.seed, tuple(r.bots))   # noqa: E731
    assert {key(r): r.money for r in ray} == {key(r): r.money for r in local}
    with pytest.raises(LadderError, match="unknown backend 'dask'"):
        run_plan(plan, rungs, records_path=str(tmp_path / "x.jsonl"), backend="dask")
