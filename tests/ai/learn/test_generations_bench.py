"""bench/generations.py's orchestration (expert iteration) with a stand-in
trainer and model spec: generation k's self-play records train generation k+1, which is
rated against generation k and generation 0 with intervals; JSON and PNG written; a
second run with the same work folder reuses what was done."""
import importlib.util
import json
import os
import sys

import numpy as np
import pytest

from gallerist import engine

from gallerist.ai.selfplay.records import read_manifest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "generations.py")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("generations_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_each_generation_trains_on_the_previous_bots_records_and_is_rated_against_it_and_gen0(
        bench, tmp_path) -> None:
    """Generation k+1's trainer gets the records of generation k's bot; its bot plays
    seat-paired matches against generation k and generation 0; the JSON has the rating
    differences with intervals around them, and the pool ratings put generation 0 at 0."""
    calls = []

    def trainer(data_dirs, out, **options):
        manifest = read_manifest(data_dirs[0])
        calls.append((manifest["spec"], manifest["games"], out, options))
        with open(out, "wb") as fh:
            fh.write(b"stand-in model")
        return {"epochs": options["epochs"], "best_epoch": 1, "metrics": {"loss": 0.5}, "history": [1, 2]}

    def model_spec(model, iterations):
        # a distinct real bot per generation: the stand-in "model" changes the budget
        gen = int(os.path.basename(model).split("_")[1].split(".")[0])
        return f"mcts:iterations={iterations + 5 * gen}"

    out, work = tmp_path / "out", tmp_path / "work"
    results = bench.run_generations(generations=2, games=2, arena_games=2, iterations=10, players=2,
                                    workers=1, out=str(out), work=str(work), seed=3,
                                    train_options={"epochs": 2}, trainer=trainer,
                                    model_spec=model_spec, log=lambda _: None)
    assert [c[0] for c in calls] == ["mcts:iterations=10", "mcts:iterations=15"]
    assert [c[1] for c in calls] == [2, 2] and all(c[3] == {"epochs": 2} for c in calls)
    rows = results["generations"]
    assert [r["spec"] for r in rows] == ["mcts:iterations=10", "mcts:iterations=15", "mcts:iterations=20"]
    for r in rows[1:]:
        for key in ("vs_previous", "vs_gen0"):
            match = r[key]
            assert match["games"] == 2
            assert match["ci"][0] < match["elo"] < match["ci"][1]
        assert r["train"] == {"epochs": 2, "best_epoch": 1, "metrics": {"loss": 0.5}}
    assert rows[2]["vs_gen0"]["records"] != rows[2]["vs_previous"]["records"]
    assert rows[0]["pool"]["elo"] == 0.0
    assert all(r["pool"]["ci"][0] <= r["pool"]["elo"] <= r["pool"]["ci"][1] for r in rows)
    saved = json.loads((out / "generations.json").read_text())
    assert saved["generations"][2]["vs_previous"]["elo"] == pytest.approx(rows[2]["vs_previous"]["elo"])
    assert (out / "generations.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    calls.clear()
    again = bench.run_generations(generations=2, games=2, arena_games=2, iterations=10, players=2,
                                  workers=1, out=str(out), work=str(work), seed=3,
                                  train_options={"epochs": 2}, trainer=trainer,
                                  model_spec=model_spec, log=lambda _: None)
    assert calls == [], "trained models are reused"
    assert again["generations"][2]["vs_gen0"]["elo"] == pytest.approx(rows[2]["vs_gen0"]["elo"])


def test_the_default_trainer_trains_generation_1_on_generation_0s_records(bench, tmp_path) -> None:
    """With the real trainer (ai.learn.train.train, run in a child interpreter), generation 1
    is a model file trained on generation 0's self-play, with its model card; the match
    is played by a stand-in bot spec (the model evaluator is not part of this test)."""
    out, work = tmp_path / "out", tmp_path / "work"
    results = bench.run_generations(
        generations=1, games=3, arena_games=2, iterations=10, players=2, workers=1,
        out=str(out), work=str(work), train_options={"epochs": 1, "hidden": [8], "progress": False},
        model_spec=lambda model, iterations: f"mcts:iterations={iterations + 5}", log=lambda _: None)
    gen1 = results["generations"][1]
    with np.load(gen1["model"], allow_pickle=False) as model:
        assert str(model["format"]) == "gallerist-model"
        assert int(model["observation_size"]) == engine.OBSERVATION_SIZE
        assert model["trunk_w0"].shape == (engine.OBSERVATION_SIZE, 8)
    assert gen1["train"]["best_epoch"] in (0, 1) and "brier" in json.dumps(gen1["train"]["validation"]).lower()
    assert "history" not in gen1["train"]
    card = json.loads((work / "gen_1.card.json").read_text())
    assert card["data"][0]["dir"] == str(work / "selfplay-gen0") and card["data"][0]["games"] == 3
    assert card["data"][0]["spec"] == "mcts:iterations=10"
    assert gen1["vs_gen0"]["games"] == 2
