"""bench/calibration.py's fit and report steps on a small synthetic set: the fitted maps
load as a calibration file, and the report's figures are the metrics of the held-out
games only."""
import gzip
import importlib.util
import json
import os
import random
import sys

import pytest

from gallerist.ai.calibration.maps import Calibration
from gallerist.ai.calibration.metrics import brier

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "calibration.py")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("calibration_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _rows():
    """Positions of 40 games per player count, for one 'bot' per kind, whose raw money
    predicts the winner more and more surely as the game goes on."""
    rng = random.Random(3)
    rows, turns = [], {}
    for n in (1, 2, 3, 4):
        for game in range(40):
            final = [rng.randint(60, 160) for _ in range(n)]
            best = max(final)
            win = [1.0 / final.count(best) if m == best else 0.0 for m in final] if n > 1 else []
            turns[f"{n}/{game}"] = 30
            for ply in range(0, 30, 6):
                frac = ply / 30
                money = [frac * m + (1 - frac) * 80 + rng.gauss(0, 8) for m in final]
                for label, kind in (("m", "mcts"), ("e", "expectimax"), ("g", "static")):
                    share = [1.0 / n] * n if n > 1 else []
                    rows.append({"players": n, "game": game, "ply": ply, "mover": ply % n,
                                 "turn": ply, "bot": label, "kind": kind, "money": money,
                                 "win": share, "final_money": final, "final_win": win,
                                 "ms": 1.0, "iterations": 0, "depth": 0})
    return rows, turns


def _write_moves(folder) -> None:
    """A moves.jsonl.gz (bench/calibration_moves.py's rows) for the fit step's move scale."""
    moves = [{"game": 0, "ply": 6, "mover": 0, "turn": 6, "bots": {
        "mcts": {"kind": "mcts", "moves": [[1, 500, [90, 80], [0.6, 0.4]], [2, 300, [80, 85], [0.45, 0.55]]]},
        "expectimax": {"kind": "expectimax", "moves": [[1, 0, [70, 60], []], [2, 0, [60, 70], []]]},
        "greedy": {"kind": "static", "moves": [[1, 0, [70, 60], []], [2, 0, [60, 70], []]]}}}]
    with gzip.open(folder / "moves.jsonl.gz", "wt") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in moves)


def test_fit_then_report_on_the_held_out_half(bench, tmp_path):
    rows, turns = _rows()
    with gzip.open(tmp_path / "evals.jsonl.gz", "wt") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    (tmp_path / "final_turns.json").write_text(json.dumps(turns))
    _write_moves(tmp_path)
    cal = bench.fit_step(str(tmp_path))
    again = Calibration.load(str(tmp_path / "calibration.json"))
    assert again.maps == cal.maps and again.turns[2] == pytest.approx(30)
    assert again.move_scales == cal.move_scales and set(cal.move_scales) == {"expectimax", "static"}
    assert all(v > 0 for v in cal.move_scales.values())
    report = bench.report_step(str(tmp_path), rounds=50)
    two = report["players"]["2"]
    held = [r for r in rows if r["players"] == 2 and r["bot"] == "e" and r["game"] % 2 == 1]
    assert two["bots"]["e"]["calibrated"]["positions"] == len(held)
    p = [cal.calibrate("expectimax", 2, cal.stage(2, r["turn"]), r["mover"], r["money"], None)[1][r["mover"]]
         for r in held]
    assert two["bots"]["e"]["calibrated"]["brier"]["value"] == pytest.approx(brier(p, [r["final_win"][r["mover"]] for r in held]))
    lo, hi = two["bots"]["e"]["calibrated"]["brier"]["lo"], two["bots"]["e"]["calibrated"]["brier"]["hi"]
    assert lo <= two["bots"]["e"]["calibrated"]["brier"]["value"] <= hi
    # money that predicts the winner beats the constant answer once calibrated
    assert two["bots"]["e"]["calibrated"]["brier"]["value"] < two["constant"]["brier"]
    assert "mae_money" in report["players"]["1"]["bots"]["g"]["calibrated"]
    assert set(two["agreement"]) == {"m / e", "m / g", "e / g"}
    assert (tmp_path / "reliability-e.png").stat().st_size > 1000


def test_soft_labels_average_the_real_game_and_its_continuations(bench, tmp_path, monkeypatch):
    """bench/continuations.py's report: a position's label is the mover's mean win share
    over its real game and its continuations; the constant 0.5 is scored on the same."""
    monkeypatch.setitem(sys.modules, "calibration", bench)
    spec = importlib.util.spec_from_file_location(
        "continuations_bench", os.path.join(os.path.dirname(BENCH), "continuations.py"))
    cont = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cont)
    rows, turns = _rows()
    two = [r for r in rows if r["players"] == 2 and r["game"] % 2 == 1 and r["game"] < 6]
    with gzip.open(tmp_path / "evals.jsonl.gz", "wt") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    (tmp_path / "final_turns.json").write_text(json.dumps(turns))
    _write_moves(tmp_path)
    bench.fit_step(str(tmp_path))
    todo = [bench.Position(2, r["game"], r["ply"], r["mover"], tuple(r["final_money"]),
                           tuple(r["final_win"])) for r in two if r["bot"] == "e"]
    # every continuation is won by seat 1
    more = [{"players": 2, "game": p.game, "ply": p.ply, "k": k, "win": [0.0, 1.0]}
            for p in todo for k in range(3)]
    out = cont.report(str(tmp_path), todo, more)
    assert out["positions"] == len(todo) and out["labels_per_position"] == 4.0
    labels = [(p.win[p.mover] + 3 * (1.0 if p.mover == 1 else 0.0)) / 4 for p in todo]
    assert out["constant"] == pytest.approx(brier([0.5] * len(todo), labels))


def test_the_default_bots_rows_name_the_model_file_they_searched_with(bench, tmp_path,
                                                                      monkeypatch):
    """A row of the default bot is kept only if it was computed with the same model file
    at its player count: its setup names that file's sha256, so a new packaged model (or
    $GALLERIST_MODEL) has the rows computed again; other bots' setups do not depend on
    the model."""
    import shutil

    from gallerist.ai.values import Budget
    from gallerist.ai.net.model_file import random_arrays, save_model
    from gallerist.ai.net.packaged import ENV_VAR, PACKAGED, auto_value_files
    from gallerist.ai.selfplay.records import sha256_file

    budget = Budget(time_ms=200)
    default = f"{bench.DEFAULT_BOT},calibrated=false,reuse=false"
    monkeypatch.delenv(ENV_VAR, raising=False)
    bench._default_model_digest.cache_clear()
    packaged = bench.setup(default, budget, 4)   # UCT at 4: named by the default model file
    assert " model=" in packaged and "none" not in packaged
    # the packaged solo and 3-player priors and the 2-player value network are other files
    assert len({bench.setup(default, budget, n) for n in (1, 2, 3, 4)}) == 4
    assert bench.setup(default, budget, 2).endswith(
        " model=" + sha256_file(auto_value_files()[2])[:16])
    assert " model=" not in bench.setup("mcts:calibrated=false,reuse=false", budget, 2)
    copy = tmp_path / "copy.npz"
    shutil.copy(PACKAGED, copy)
    other = tmp_path / "other.npz"
    save_model(str(other), random_arrays((8,), seed=1), {})
    for path, same in ((copy, True), (other, False)):
        monkeypatch.setenv(ENV_VAR, str(path))
        bench._default_model_digest.cache_clear()
        assert (bench.setup(default, budget, 4) == packaged) is same
    bench._default_model_digest.cache_clear()
