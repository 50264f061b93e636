"""The strength ladder (ai.arena.ladder, `gallerist ladder`): seat-paired games between
near rungs, keyed by pair and seed so that a run continues where the records stop and a new
rung plays only its own games; ratings anchored at random = 0."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gallerist.ai.arena.ladder import (ANCHOR, RUNGS, LadderError, ladder_games, ladder_ratings,
                                       missing_games, run_ladder, rungs_named)
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
    argv = [sys.executable, "-m", "gallerist.server", "ladder", "--rungs", "random,greedy",
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
