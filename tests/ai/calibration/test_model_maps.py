"""Calibration maps of a model's value search (ai.calibration.model_maps): kept beside the
model file and checked against its sha256; `mcts:eval=model` reports its numbers through
them (kind "model"), and without them it asks for them by name; bench/calibration.py's
`model` step fits them on the training half and scores the held-out half."""
from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys

import pytest

from gallerist import ai, engine
from gallerist.ai.calibration.maps import PACKAGED, Calibration, CalibrationError, SeatMap
from gallerist.ai.calibration.model_maps import (
    KIND, load_model_maps, model_maps_for, side_path, write_model_maps,
)
from gallerist.ai.net.model_file import random_arrays, save_model
from gallerist.ai.selfplay.records import sha256_file

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
GAMES = os.path.join(ROOT, "bench", "data", "calibration", "games.jsonl.gz")
MAPS = {2: SeatMap(win=(0.8, 0.1, 0.05, 0.02, -0.1, 0.0), money=(20.0, 0.8, -10.0, 0.1)),
        3: SeatMap(win=(0.5, 0.0, 0.0, 0.0, -0.1, 0.02), money=(10.0, 0.9, 0.0, 0.0))}


@pytest.fixture()
def tiny(tmp_path):
    """A tiny random model file with a win head (trunk 16 x 8)."""
    path = str(tmp_path / "tiny.npz")
    save_model(path, random_arrays((16, 8), seed=7), {"note": "random, for tests"})
    return path


def first_decision(players=2, seed=5):
    s = engine.new_game(num_players=players, seed=seed)
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    return s


def test_maps_beside_the_model_read_back_as_written(tiny):
    path = write_model_maps(tiny, sha256_file(tiny), MAPS, {"note": "test"})
    assert path == side_path(tiny) and path.name == "tiny.calibration.json"
    assert load_model_maps(tiny, sha256_file(tiny)) == MAPS
    assert model_maps_for(tiny) == MAPS


def test_a_calibrated_value_search_reports_through_the_models_maps(tiny):
    """The calibrated numbers are the kind-"model" maps applied to the very raw numbers
    the same search reports with calibrated=false."""
    write_model_maps(tiny, sha256_file(tiny), MAPS, {})
    spec = f"mcts:eval=model,prior=model,iterations=60,reuse=false,model={tiny}"
    state = first_decision()
    cooked = ai.make_bot(spec, seed=3).analyze(state)
    raw = ai.make_bot(spec + ",calibrated=false", seed=3).analyze(state)
    cal = Calibration.default().with_maps(KIND, MAPS)
    t = cal.stage(2, state.turn_number)
    checked = 0
    for c, r in zip(cooked.moves, raw.moves):
        assert c.action == r.action and c.visits == r.visits
        if not r.visits:
            continue
        money, win = cal.calibrate(KIND, 2, t, state.current_player, r.expected_money,
                                   r.win_probabilities)
        assert c.expected_money == pytest.approx(_within(money, r))
        assert c.win_probabilities == pytest.approx(win)
        assert sum(c.win_probabilities) == pytest.approx(1.0)
        checked += 1
    assert checked >= 2
    assert ai.make_bot(spec).move_kind(cooked.moves[0]) == KIND


def test_without_maps_the_bot_names_the_file_and_the_command(tiny):
    with pytest.raises(CalibrationError, match=r"tiny.npz has no calibration maps "
                       r"\(tiny.calibration.json is missing\): fit them with 'python "
                       r"bench/calibration.py model --model .*tiny.npz', or add calibrated=false"):
        ai.make_bot(f"mcts:eval=model,model={tiny}")
    ai.make_bot(f"mcts:eval=model,calibrated=false,model={tiny}")   # raw numbers: no maps needed


def test_maps_of_another_model_file_are_refused(tiny):
    write_model_maps(tiny, "0" * 64, MAPS, {})
    with pytest.raises(CalibrationError, match="model_sha256: the maps were fitted for another "
                                               "model file"):
        ai.make_bot(f"mcts:eval=model,model={tiny}")


@pytest.mark.parametrize("change,field", [
    (lambda d: d["maps"]["model"]["2"]["win"].update(a1="x"),
     "maps.model.2.win.a1: must be a finite number"),
    (lambda d: d["maps"]["model"].update({"5": d["maps"]["model"]["2"]}),
     "maps.model.5: is not a player count"),
    (lambda d: d.update(format="other"), "format: must be"),
    (lambda d: d["maps"]["model"]["2"].pop("money"), "maps.model.2.money: must be an object"),
    (lambda d: d.update(maps=[]), "maps: must map kinds"),
])
def test_a_malformed_maps_file_names_the_field(tiny, change, field):
    write_model_maps(tiny, sha256_file(tiny), MAPS, {})
    data = json.loads(side_path(tiny).read_text())
    change(data)
    side_path(tiny).write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=field):
        ai.make_bot(f"mcts:eval=model,model={tiny}")


def test_a_player_count_without_a_map_is_refused_by_name(tiny):
    write_model_maps(tiny, sha256_file(tiny), {2: MAPS[2]}, {})
    bot = ai.make_bot(f"mcts:eval=model,prior=model,iterations=20,model={tiny}")
    with pytest.raises(CalibrationError, match="no map of kind model for 4 players: add "
                                               "calibrated=false"):
        bot.analyze(first_decision(players=4))


def _small_data(folder, games_per_half=2):
    """A calibration data folder of a few real 2-player games (both halves) and the
    packaged maps."""
    rows = []
    with gzip.open(GAMES, "rt") as fh:
        for line in fh:
            row = json.loads(line)
            if row["players"] == 2 and row["game"] < 2 * games_per_half:
                rows.append(row)
    assert len(rows) == 2 * games_per_half
    with gzip.open(folder / "games.jsonl.gz", "wt") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    shutil.copyfile(PACKAGED, folder / "calibration.json")


def test_the_bench_step_fits_on_the_training_half_and_scores_the_held_out_half(tiny, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    _small_data(data)
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "calibration.py"), "model",
                           "--model", tiny, "--data", str(data), "--time-ms", "5",
                           "--workers", "1", "--quick"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    maps = load_model_maps(tiny, sha256_file(tiny))
    assert set(maps) == {2} and maps[2].win is not None
    report = json.loads(next(data.glob("report-model-*.json")).read_text())
    evals = [json.loads(line) for line in gzip.open(next(data.glob("evals-model-*.jsonl.gz")), "rt")]
    held = [r for r in evals if r["game"] % 2 == 1]
    assert {r["kind"] for r in evals} == {KIND} and 0 < len(held) < len(evals)
    mine = report["players"]["2"]["bots"]["value 5 ms"]
    assert mine["calibrated"]["positions"] == len(held)
    assert 0 <= mine["calibrated"]["brier"]["value"] <= 1
    assert "Brier" in done.stdout
    # the maps now serve the calibrated search
    ai.make_bot(f"mcts:eval=model,iterations=10,model={tiny}").analyze(first_decision())


def test_the_bench_step_refuses_a_player_count_without_games(tiny, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    _small_data(data, games_per_half=1)
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "calibration.py"), "model",
                           "--model", tiny, "--data", str(data), "--players", "3",
                           "--time-ms", "5", "--workers", "1"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode != 0
    assert "--players: no training games of 3 players" in done.stderr


def test_a_file_keeps_each_kinds_maps_and_reads_the_first_form(tiny):
    """Kinds "model" and "mix" live side by side in one file; a file of the first form
    (maps of kind "model" only) still reads."""
    sha = sha256_file(tiny)
    write_model_maps(tiny, sha, MAPS, {"note": "value"})
    write_model_maps(tiny, sha, {2: MAPS[2]}, {"note": "mix"}, "mix")
    assert load_model_maps(tiny, sha) == MAPS
    assert load_model_maps(tiny, sha, "mix") == {2: MAPS[2]}
    data = json.loads(side_path(tiny).read_text())
    assert data["info"] == {"model": {"note": "value"}, "mix": {"note": "mix"}}
    first = {"format": "gallerist-model-calibration/1", "model_sha256": sha,
             "maps": data["maps"]["model"], "info": {}}
    side_path(tiny).write_text(json.dumps(first))
    assert load_model_maps(tiny, sha) == MAPS
    with pytest.raises(CalibrationError, match=r"no calibration maps of kind mix \(tiny."
                       r"calibration.json holds model\): fit them with 'python bench/"
                       r"calibration.py model --model .*tiny.npz --eval mix'"):
        load_model_maps(tiny, sha, "mix")


def test_maps_of_another_model_are_not_kept_when_a_kind_is_written(tiny):
    write_model_maps(tiny, "0" * 64, MAPS, {})
    write_model_maps(tiny, sha256_file(tiny), {2: MAPS[2]}, {}, "mix")
    assert set(json.loads(side_path(tiny).read_text())["maps"]) == {"mix"}


def test_a_calibrated_mixed_leaf_reports_through_the_models_mix_maps(tiny):
    """eval=mix's calibrated numbers are the kind-"mix" maps applied to its raw numbers;
    without them the bot names the command that fits them."""
    spec = f"mcts:eval=mix,prior=model,iterations=60,reuse=false,model={tiny}"
    with pytest.raises(CalibrationError, match="--eval mix"):
        ai.make_bot(spec)
    write_model_maps(tiny, sha256_file(tiny), MAPS, {}, "mix")
    state = first_decision()
    cooked = ai.make_bot(spec, seed=3).analyze(state)
    raw = ai.make_bot(spec + ",calibrated=false", seed=3).analyze(state)
    cal = Calibration.default().with_maps("mix", MAPS)
    t = cal.stage(2, state.turn_number)
    visited = [(c, r) for c, r in zip(cooked.moves, raw.moves) if r.visits]
    assert len(visited) >= 2
    for c, r in visited:
        money, win = cal.calibrate("mix", 2, t, state.current_player, r.expected_money,
                                   r.win_probabilities)
        assert c.expected_money == pytest.approx(_within(money, r))
        assert c.win_probabilities == pytest.approx(win)
    assert ai.make_bot(spec).move_kind(cooked.moves[0], 2) == "mix"


def test_the_bench_step_fits_the_mixed_leaf_beside_the_value_maps(tiny, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    _small_data(data, games_per_half=1)
    write_model_maps(tiny, sha256_file(tiny), MAPS, {})
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "calibration.py"), "model",
                           "--model", tiny, "--eval", "mix", "--data", str(data),
                           "--time-ms", "5", "--workers", "1", "--quick"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert load_model_maps(tiny, sha256_file(tiny)) == MAPS      # the value's maps kept
    assert set(load_model_maps(tiny, sha256_file(tiny), "mix")) == {2}
    evals = [json.loads(line) for line in gzip.open(next(data.glob("evals-mix-*.jsonl.gz")), "rt")]
    assert {r["kind"] for r in evals} == {"mix"}
    report = json.loads(next(data.glob("report-mix-*.json")).read_text())
    assert report["kind"] == "mix" and "mix 5 ms" in report["players"]["2"]["bots"]


def _within(money, raw_move):
    """A calibrated number kept within the outcomes the search saw after the move."""
    if not raw_move.money_low:
        return money
    return [min(max(x, lo), hi) for x, lo, hi in zip(money, raw_move.money_low,
                                                     raw_move.money_high)]
