"""bench/value_scale.py (how the learned value improves with the number of
self-play games) on synthetic learnable records: nested subsets of growing size, one fixed
held-out set, the larger subset's network forecasts better than the constant, the report
is written, and sizes that do not fit the data are refused by name."""
from __future__ import annotations

import importlib.util
import json
import os

import pytest

from test_train import write_records

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "value_scale.py")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("value_scale_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_networks_on_more_games_are_scored_on_the_same_held_out_games(bench, tmp_path):
    records = write_records(tmp_path / "run", games=160, per_shard=40, seed=3)
    out, png = tmp_path / "scale.json", tmp_path / "scale.png"
    assert bench.main([str(records), "--held-out", "40", "--sizes", "12,120",
                       "--value-target", "outcome", "--hidden", "8", "--epochs", "15", "--lr", "0.01",
                       "--rounds", "20", "--ridge", "10", "--out", str(out), "--png", str(png)]) == 0
    report = json.loads(out.read_text())
    sizes = report["sizes"]
    assert [r["games"] for r in sizes] == [12, 120]
    assert sizes[0]["positions"] < sizes[1]["positions"]
    assert report["held_out_games"] == 40 and report["held_out_positions"] > 0
    constant = report["references"]["constant"]["brier"]
    assert constant == pytest.approx(0.25)
    # the synthetic games' outcomes are visible in the observation: enough games learn them
    assert sizes[1]["brier"] < constant - 0.03
    assert all(r["low"] <= r["brier"] <= r["high"] for r in sizes)
    assert sizes[1]["ridge"]["brier"] < constant - 0.03   # a linear forecast learns them too
    assert png.stat().st_size > 0


def test_sizes_that_do_not_fit_the_data_are_refused(bench, tmp_path, capsys):
    records = write_records(tmp_path / "run", games=30, per_shard=10)
    with pytest.raises(SystemExit):
        bench.main([str(records), "--held-out", "20", "--sizes", "20"])
    assert "--held-out 20 plus the largest size 20 do not fit" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main([str(records), "--sizes", "ten"])
    assert "--sizes must be comma-separated integers" in capsys.readouterr().err
