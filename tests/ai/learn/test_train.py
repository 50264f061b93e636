"""`gallerist train` and `ai.learn.train`: training on self-play records in the
formats.md layout lowers the loss, the split is by game, fixed seeds give the same model,
the exported model file follows the model file contract and its forward pass is
`jax_forward`'s, and bad input gets a one-line error.

The records here are synthetic but learnable, with the engine's observation size: each
game has hidden seat strengths, the observation shows them (own seat first) with noise, the strongest seat wins and money
grows with strength, and the policy target is the legal id a fixed linear map of the
observation ranks first.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gallerist import engine
from gallerist.ai.learn import train as tr
from gallerist.ai.learn.data import load_records, split_by_game
from gallerist.ai.selfplay.records import SelfplayError
from gallerist.cli.main import main

SIZE, ACTIONS, VERSION = (engine.OBSERVATION_SIZE, engine.NUM_DISTINCT_ACTIONS,
                          engine.OBSERVATION_VERSION)
#: The synthetic observations are zero but for their first SIGNAL entries (real ones are
#: sparse too).
SIGNAL = 16
TINY = {"hidden": (8,), "epochs": 8, "batch": 64, "lr": 0.01, "progress": False}
DTYPES = {"obs": np.float32, "policy": np.float32, "legal": np.bool_, "action": np.int16,
          "player": np.int8, "num_players": np.int8, "turn": np.int16, "game": np.int32,
          "final_money": np.float32, "win_share": np.float32}


def write_records(folder: Path, *, games: int = 40, players: int = 2, seed: int = 0,
                  per_shard: int = 10, size: int = SIZE, observation_version: int = VERSION
                  ) -> Path:
    """A self-play directory in the formats.md layout (manifest + shards) of learnable
    synthetic games."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ranker = np.zeros((size, ACTIONS), np.float32)
    ranker[:SIGNAL] = np.random.default_rng(99).normal(size=(SIGNAL, ACTIONS))
    shards = []
    for first in range(0, games, per_shard):
        rows: dict[str, list] = {k: [] for k in DTYPES}
        for game in range(first, min(games, first + per_shard)):
            strength = rng.normal(size=players)
            winner = int(np.argmax(strength))
            money = 60 + 25 * strength
            for turn in range(int(rng.integers(6, 12))):
                player = turn % players
                seats = [(player + k) % players for k in range(players)]
                obs = np.zeros(size, np.float32)
                obs[:SIGNAL] = 0.3 * rng.normal(size=SIGNAL)
                obs[:players] += strength[seats]
                legal = rng.random(ACTIONS) < 0.08
                legal[turn] = True
                target = np.zeros(ACTIONS, np.float32)
                best = int(np.flatnonzero(legal)[np.argmax((obs @ ranker)[legal])])
                target[best] = 1.0
                share, final = np.zeros(4, np.float32), np.zeros(4, np.float32)
                share[:players] = [float(s == winner) for s in seats]
                final[:players] = money[seats]
                for key, value in (("obs", obs), ("policy", target), ("legal", legal),
                                   ("action", best), ("player", player),
                                   ("num_players", players), ("turn", turn), ("game", game),
                                   ("final_money", final), ("win_share", share)):
                    rows[key].append(value)
        arrays = {k: np.asarray(v, DTYPES[k]) for k, v in rows.items()}
        name = f"shard-{len(shards):05d}.npz"
        np.savez_compressed(folder / name, **arrays)
        shards.append({"file": name, "first_game": first, "games": len(set(rows["game"])),
                       "positions": len(arrays["obs"]),
                       "sha256": hashlib.sha256((folder / name).read_bytes()).hexdigest()})
    manifest = {"format": "gallerist-selfplay", "format_version": 1, "spec": "synthetic",
                "players": players, "seed": seed, "observation_version": observation_version,
                "observation_size": size, "num_actions": ACTIONS, "games_per_shard": per_shard,
                "shards": shards, "games": games}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return write_records(tmp_path_factory.mktemp("records") / "run")


@pytest.fixture(scope="module")
def trained(records, tmp_path_factory):
    out = tmp_path_factory.mktemp("model") / "model.npz"
    card = tr.train([records], out, **TINY)
    return out, card


def numpy_forward(arrays, obs):
    """The model file's network as the contract states it, in NumPy."""
    h = obs.astype(np.float64)
    for i in range(int(arrays["num_layers"])):
        h = np.maximum(h @ arrays[f"trunk_w{i}"] + arrays[f"trunk_b{i}"], 0.0)
    return tuple(h @ arrays[f"{k}_w"] + arrays[f"{k}_b"] for k in ("win", "money", "policy"))


def test_training_lowers_the_validation_loss_of_every_head(trained):
    """The best epoch's validation loss is below the untrained network's (epoch 0), for
    the total and for each head."""
    _, card = trained
    start, best = card["history"][0]["validation"], card["validation"]["loss"]
    assert card["best_epoch"] >= 1
    for head in ("total", "win", "money", "policy"):
        assert best[head] < start[head], head


def test_the_exported_weights_are_the_best_epochs(trained, records):
    """Early stopping keeps the best epoch's parameters: the model file's weights score the
    validation loss recorded for the best epoch (not the last one)."""
    out, card = trained
    _, val = split_by_game(load_records([records]), TINY.get("val_fraction", 0.1), card["seed"])
    with np.load(out, allow_pickle=False) as npz:
        weights = {k: npz[k] for k in npz.files if k.startswith(("trunk_", "win_", "money_",
                                                                 "policy_"))}
    got = tr._evaluate(weights, val, 64, card["hyperparameters"]["money_scale"], (1.0, 1.0))
    want = card["validation"]["loss"]
    for head in ("win", "money", "policy"):
        assert got[head] == pytest.approx(want[head], rel=1e-5), head


def test_early_stopping_stops_after_patience_epochs_without_improvement(records, tmp_path):
    """With a learning rate that overfits, training stops `patience` epochs after the best
    validation loss, before the epoch limit."""
    card = tr.train([records], tmp_path / "m.npz",
                    **{**TINY, "lr": 0.05, "epochs": 200, "patience": 2})
    assert card["stopped_early"]
    assert card["epochs_run"] == card["best_epoch"] + 2 < 200
    losses = [h["validation"]["total"] for h in card["history"]]
    assert min(losses) == losses[card["best_epoch"]]


def test_ctrl_c_keeps_the_best_epoch_so_far(records, tmp_path, monkeypatch, capsys):
    """Ctrl-C during training writes the model of the best epoch so far, says so in the
    card, and the command exits 130."""
    real, calls = tr._step, []
    train, _ = split_by_game(load_records([records]), 0.1, 0)
    per_epoch = -(-len(train) // 64)

    def step(*args):
        calls.append(1)
        if len(calls) > 2 * per_epoch:          # in epoch 3
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(tr, "_step", step)
    out = tmp_path / "stopped.npz"
    status = main(["train", str(records), "--out", str(out), "--hidden", "8", "--batch", "64",
                   "--no-progress"])
    card = json.loads(tr.side_paths(out)[0].read_text())
    assert status == 130 and out.is_file()
    assert card["interrupted"] and not card["stopped_early"]
    assert card["epochs_run"] == 2 and card["best_epoch"] <= 2
    assert "interrupted after epoch 2" in capsys.readouterr().err


def test_the_split_is_by_game_and_follows_the_seed(records):
    """No game has positions in both halves, every position is in one, about val_fraction
    of the games are held out, and the seed chooses which."""
    data = load_records([records])
    train, val = split_by_game(data, 0.25, seed=3)
    tg, vg = set(train.arrays["group"]), set(val.arrays["group"])
    assert not tg & vg
    assert len(train) + len(val) == len(data)
    assert len(vg) == 10 and len(tg) == 30
    again = split_by_game(data, 0.25, seed=3)[1]
    other = split_by_game(data, 0.25, seed=4)[1]
    assert set(again.arrays["group"]) == vg
    assert set(other.arrays["group"]) != vg


def test_games_of_different_directories_are_different_games(tmp_path):
    """Game 0 of one run and game 0 of another are two games (run indices restart)."""
    a = write_records(tmp_path / "a", games=3, seed=1)
    b = write_records(tmp_path / "b", games=3, seed=2)
    data = load_records([a, b])
    assert data.games == 6
    assert [s["games"] for s in data.sources] == [3, 3]
    for seed in range(5):
        train, val = split_by_game(data, 0.5, seed)
        assert not set(train.arrays["group"]) & set(val.arrays["group"])


def test_val_games_last_holds_out_only_the_last_directorys_games(tmp_path):
    """val_games=last: the held-out games all come from the last directory (new to a
    model trained on the others), as many as val_fraction asks of all the games, at most
    that directory's; an unknown choice is refused by name."""
    a = write_records(tmp_path / "a", games=6, seed=1)
    b = write_records(tmp_path / "b", games=4, seed=2)
    data = load_records([a, b])
    last = set(range(6, 10))   # the groups are numbered directory after directory
    for seed in range(4):
        train, val = split_by_game(data, 0.2, seed, last_only=True)
        held = set(val.arrays["group"].tolist())
        assert held <= last and len(held) == 2
        assert not held & set(train.arrays["group"].tolist())
        assert len(train) + len(val) == len(data)
    _, val = split_by_game(data, 0.9, 0, last_only=True)
    assert set(val.arrays["group"].tolist()) == last
    with pytest.raises(tr.TrainingError, match="val_games 'newest': expected one of all, last"):
        tr.train([a, b], tmp_path / "m.npz", **{**TINY, "val_games": "newest"})


def test_same_seed_same_weights(records, tmp_path, trained):
    """Training twice with the same seed writes the same weights; another seed others;
    --weight-decay shrinks them."""
    out, _ = trained
    again = tr.train([records], tmp_path / "again.npz", **TINY)
    other = tr.train([records], tmp_path / "other.npz", **{**TINY, "seed": 1})
    with np.load(out) as a, np.load(tmp_path / "again.npz") as b, \
            np.load(tmp_path / "other.npz") as c:
        names = [k for k in a.files if a[k].dtype == np.float32 and a[k].ndim]
        assert names
        for k in names:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        assert any(not np.array_equal(a[k], c[k]) for k in names)
    decayed = tr.train([records], tmp_path / "decayed.npz", **{**TINY, "weight_decay": 0.5})
    with np.load(out) as a, np.load(tmp_path / "decayed.npz") as d:
        # decoupled weight decay shrinks the weights (the same seed, data and batches)
        assert np.abs(d["trunk_w0"]).sum() < np.abs(a["trunk_w0"]).sum()
    assert decayed["hyperparameters"]["optimiser"] == "adamw"
    assert again["history"] == trained[1]["history"]
    assert other["split"]["seed"] == 1


def test_the_model_file_follows_the_contract(trained):
    """Keys, dtypes and shapes of the model file contract: header fields, an L-layer
    trunk from observation_size, 4-seat win and money heads, a 183-id policy head."""
    out, card = trained
    with np.load(out, allow_pickle=False) as npz:
        a = {k: npz[k] for k in npz.files}
    assert str(a["format"]) == "gallerist-model" and int(a["format_version"]) == 1
    assert int(a["observation_size"]) == SIZE and int(a["num_actions"]) == ACTIONS
    assert int(a["observation_version"]) == VERSION
    assert float(a["money_scale"]) == 100.0 and int(a["num_layers"]) == 1
    assert a["trunk_w0"].shape == (SIZE, 8) and a["trunk_b0"].shape == (8,)
    for head, width in (("win", 4), ("money", 4), ("policy", ACTIONS)):
        assert a[f"{head}_w"].shape == (8, width) and a[f"{head}_b"].shape == (width,)
    assert all(v.dtype == np.float32 for k, v in a.items() if k[-2:] in ("w0", "b0", "_w", "_b"))
    meta = json.loads(str(a["metadata"]))
    assert meta["best_epoch"] == card["best_epoch"] and "history" not in meta


def test_the_model_files_forward_equals_jax_forward(trained):
    """The network the model file describes (NumPy, from the contract) gives jax_forward's
    outputs to 1e-5 on random observations."""
    out, _ = trained
    with np.load(out, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    obs = np.random.default_rng(5).normal(size=(64, SIZE)).astype(np.float32)
    for want, got in zip(numpy_forward(arrays, obs), tr.jax_forward(arrays, obs)):
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5, rtol=1e-5)


def test_card_and_curves_are_written_next_to_the_model(trained, records):
    """MODEL.card.json holds the data, the split, the per-head metrics, the
    hyper-parameters, seed and versions; MODEL.curves.png is a PNG."""
    out, card = trained
    card_path, curves = tr.side_paths(out)
    assert json.loads(card_path.read_text()) == json.loads(json.dumps(card))
    assert curves.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert card["data"][0]["dir"] == str(records) and card["data"][0]["games"] == 40
    split = card["split"]
    assert split["train"]["games"] + split["validation"]["games"] == 40
    assert split["train"]["positions"] + split["validation"]["positions"] == card["data"][0]["positions"]
    v = card["validation"]
    assert 0 <= v["win"]["brier"] <= 1 and v["win"]["log_loss"] > 0
    assert v["money"]["mae_dollars"] > 0 and 0 <= v["policy"]["top1_agreement"] <= 1
    assert v["policy"]["cross_entropy"] == pytest.approx(v["loss"]["policy"], rel=1e-4)
    assert card["hyperparameters"]["hidden"] == [8] and card["seed"] == 0
    assert card["versions"]["jax"] and card["versions"]["optax"] and card["wall_time_s"] > 0


def test_losses_ignore_absent_seats_and_illegal_ids():
    """The win loss only sees the present seats (solo: zero), the policy loss only the
    legal ids: changing the logits of the others changes nothing."""
    import jax.numpy as jnp

    params = tr.init_params(tr.jax.random.key(0), SIGNAL, ACTIONS, (4,))
    rng = np.random.default_rng(0)
    legal = np.zeros((2, ACTIONS), bool)
    legal[:, [3, 7]] = True
    policy = np.zeros((2, ACTIONS), np.float32)
    policy[:, 3] = 1
    batch = {"obs": jnp.asarray(rng.normal(size=(2, SIGNAL)), jnp.float32),
             "present": jnp.asarray([[True, False, False, False], [True, True, False, False]]),
             "win_share": jnp.asarray([[1, 0, 0, 0], [0, 1, 0, 0]], jnp.float32),
             "money": jnp.asarray([[0.5, 0, 0, 0], [0.4, 0.6, 0, 0]], jnp.float32),
             "policy": jnp.asarray(policy), "legal": jnp.asarray(legal)}
    losses = tr.jax.jit(tr.row_losses)
    base = losses(params, batch)
    assert float(base["win"][0]) == 0.0 and float(base["win"][1]) > 0
    moved = dict(params)
    moved["win_b"] = params["win_b"].at[2:].add(5.0)      # absent seats of both rows
    moved["money_b"] = params["money_b"].at[2:].add(5.0)
    moved["policy_b"] = params["policy_b"].at[10:].add(5.0)  # illegal ids
    after = losses(moved, batch)
    for head in ("win", "money", "policy"):
        np.testing.assert_allclose(np.asarray(after[head]), np.asarray(base[head]), rtol=1e-6)


def test_players_keeps_only_games_of_that_many_players(tmp_path):
    """--players N trains on the N-player games of the directories only."""
    two = write_records(tmp_path / "two", games=4, players=2)
    three = write_records(tmp_path / "three", games=5, players=3, seed=1)
    data = load_records([two, three], players=3)
    assert data.games == 5 and set(data.arrays["num_players"]) == {3}
    assert [s["games"] for s in data.sources] == [0, 5]


def _cli(argv, capsys):
    status = main(["train", *map(str, argv), "--no-progress"])
    err = capsys.readouterr().err
    return status, err


def test_the_cli_trains_and_reports(records, tmp_path, capsys):
    """`gallerist train DATA --out M.npz` writes the model, card and curves and prints a
    summary naming them."""
    out = tmp_path / "cli.npz"
    status = main(["train", str(records), "--out", str(out), "--hidden", "8", "--epochs", "2",
                   "--batch", "64", "--no-progress"])
    printed = capsys.readouterr().out
    assert status == 0
    assert out.is_file() and tr.side_paths(out)[0].is_file() and tr.side_paths(out)[1].is_file()
    assert str(out) in printed and "best epoch" in printed


def _bad_manifest(tmp_path, field, value):
    folder = write_records(tmp_path / f"bad-{field}", games=3)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest[field] = value
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.mark.parametrize("case", ["missing dir", "not a selfplay dir", "other size",
                                  "other version", "not the engine's layout", "no shards", "no such players",
                                  "one game", "missing shard", "changed shard", "bad dtype",
                                  "bad hidden", "bad linear value",
                                  "bad val fraction"])
def test_bad_input_is_a_one_line_error(case, records, tmp_path, capsys):
    """Each bad input is refused with exit status 2 and one line naming the directory,
    file or option and the problem, before any training."""
    out = tmp_path / "m.npz"
    extra: list[str] = []
    if case == "missing dir":
        data, named = [tmp_path / "nope"], "no such directory"
    elif case == "not a selfplay dir":
        (tmp_path / "plain").mkdir()
        data, named = [tmp_path / "plain"], "no manifest.json"
    elif case == "other size":
        other = write_records(tmp_path / "wide", games=3, size=SIZE + 1)
        data, named = [records, other], f"{other}: observation_size {SIZE + 1} differs"
    elif case == "other version":
        other = write_records(tmp_path / "v2", games=3, observation_version=VERSION + 1)
        data, named = [records, other], f"{other}: observation_version {VERSION + 1} differs"
    elif case == "not the engine's layout":
        other = write_records(tmp_path / "old", games=3, size=SIZE - 1)
        data, named = [other], f"{other}: observation_size {SIZE - 1}, this engine's is {SIZE}"
    elif case == "no shards":
        data, named = [_bad_manifest(tmp_path, "shards", [])], "no positions"
    elif case == "no such players":
        data, named, extra = [records], "no positions of 4-player games", ["--players", "4"]
    elif case == "one game":
        data, named = [write_records(tmp_path / "one", games=1)], "at least 2"
    elif case == "missing shard":
        folder = write_records(tmp_path / "gone", games=3)
        (folder / "shard-00000.npz").unlink()
        data, named = [folder], "shard-00000.npz: listed in the manifest but missing"
    elif case == "changed shard":
        folder = write_records(tmp_path / "changed", games=3)
        np.savez_compressed(folder / "shard-00000.npz", obs=np.zeros((1, SIZE), np.float32))
        data, named = [folder], "shard-00000.npz: sha256 differs from the manifest's"
    elif case == "bad dtype":
        folder = write_records(tmp_path / "dtype", games=3)
        with np.load(folder / "shard-00000.npz") as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays["obs"] = arrays["obs"].astype(np.float64)
        np.savez_compressed(folder / "shard-00000.npz", **arrays)
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["shards"][0]["sha256"] = hashlib.sha256(
            (folder / "shard-00000.npz").read_bytes()).hexdigest()
        (folder / "manifest.json").write_text(json.dumps(manifest))
        data, named = [folder], "obs is float64"
    elif case == "bad hidden":
        data, named, extra = [records], "--hidden '8,x'", ["--hidden", "8,x"]
    elif case == "bad linear value":
        data, named, extra = [records], "--linear-value -1.0: expected a penalty", ["--linear-value", "-1"]
    else:
        data, named, extra = [records], "--val-fraction 1.5: expected a share", ["--val-fraction", "1.5"]
    status, err = _cli([*data, "--out", out, *extra], capsys)
    assert status == 2
    lines = err.strip().splitlines()
    assert named in lines[-1]
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert not out.exists()


def test_library_options_are_checked():
    """train() names a bad option: unknown, out of range, bad hidden widths."""
    for options, named in (({"epochs": 0}, "epochs 0"), ({"hidden": "0"}, "hidden '0'"),
                           ({"colour": 1}, "colour is not an option"),
                           ({"lr": float("nan")}, "lr nan"), ({"players": 5}, "players 5"),
                           ({"weight_decay": -1.0}, "weight_decay -1.0")):
        with pytest.raises(tr.TrainingError) as err:
            tr.train(["unused"], "unused.npz", **options)
        assert str(err.value).startswith(named)
    with pytest.raises(SelfplayError, match="no data directory"):
        load_records([])


def test_without_jax_the_cli_says_how_to_install(records, tmp_path):
    """Without JAX, `gallerist train` exits 1 with one line telling how to install it."""
    code = ("import sys; sys.modules['jax'] = None; from gallerist.cli.main import main; "
            f"sys.exit(main(['train', {str(records)!r}, '--out', {str(tmp_path / 'm.npz')!r}]))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1, run.stderr
    assert run.stderr.strip().splitlines() == [
        'error: gallerist train needs JAX and optax (jax is not installed): '
        'pip install -e ".[train]"']


def test_value_targets_mix_the_outcome_with_the_search_estimate_where_there_is_one() -> None:
    """search_weight w: the value targets are (1 - w) * outcome + w * the bot's root
    estimate on rows that hold one, the outcome alone on rows without (NaN: greedy,
    random, older records); the outcome itself is kept for the metrics."""
    from gallerist.ai.learn.data import Dataset
    z = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], np.float32)
    q = np.array([[0.6, 0.4, 0, 0], [np.nan] * 4], np.float32)
    money = np.array([[80, 60, 0, 0], [70, 90, 0, 0]], np.float32)
    qm = np.array([[100, 50, 0, 0], [np.nan] * 4], np.float32)
    data = Dataset({"win_share": z.copy(), "root_win": q, "final_money": money.copy(),
                    "root_money": qm, "obs": np.zeros((2, 1), np.float32)}, 1, 1, 183)
    tr.value_targets(data, 0.25)
    np.testing.assert_allclose(data.arrays["target_win"][0], [0.9, 0.1, 0, 0], atol=1e-6)
    np.testing.assert_allclose(data.arrays["target_win"][1], z[1])
    np.testing.assert_allclose(data.arrays["target_money"][0], [85, 57.5, 0, 0], atol=1e-4)
    np.testing.assert_allclose(data.arrays["target_money"][1], money[1])
    np.testing.assert_array_equal(data.arrays["win_share"], z)
    with pytest.raises(ValueError, match="search_weight"):
        tr.check_options({"search_weight": 1.5})


def test_policy_temperature_sharpens_the_visit_shares_toward_the_most_visited_move() -> None:
    """policy_temperature T: the policy targets are visit shares ** (1 / T), renormalised;
    1 keeps them, 0 keeps the most visited moves alone (ties shared); a row without visits
    stays as it is; the option is checked by name."""
    from gallerist.ai.learn.data import Dataset

    def targets(temperature: float) -> np.ndarray:
        p = np.array([[0.5, 0.3, 0.2, 0], [0.4, 0.4, 0.2, 0], [0, 0, 0, 0]], np.float32)
        data = Dataset({"policy": p, "obs": np.zeros((3, 1), np.float32)}, 1, 1, 4)
        tr.policy_targets(data, temperature)
        return data.arrays["policy"]

    np.testing.assert_allclose(targets(1.0)[0], [0.5, 0.3, 0.2, 0])
    np.testing.assert_allclose(targets(0.5)[0], np.array([25, 9, 4, 0]) / 38, atol=1e-6)
    np.testing.assert_allclose(targets(0.0), [[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 0, 0]])
    sharp = targets(0.25)
    assert sharp[0, 0] > 0.8 and sharp.sum(axis=1) == pytest.approx([1, 1, 0])
    for bad in (-1, float("nan"), "hot"):
        with pytest.raises(ValueError, match="policy_temperature"):
            tr.check_options({"policy_temperature": bad})


def test_win_weight_zero_trains_the_policy_alone(records, tmp_path) -> None:
    """win_weight 0: the win-share loss leaves the total (the policy and money losses
    still fall); the option is checked by name."""
    card = tr.train([records], tmp_path / "p.npz", **{**TINY, "win_weight": 0.0})
    first, best = card["history"][0], card["history"][card["best_epoch"]]
    for part in ("train", "validation"):
        assert first[part]["total"] == pytest.approx(
            first[part]["money"] + first[part]["policy"], rel=1e-5)
    assert best["validation"]["policy"] < first["validation"]["policy"]
    assert card["hyperparameters"]["win_weight"] == 0.0
    with pytest.raises(ValueError, match="win_weight"):
        tr.check_options({"win_weight": -1})


def test_linear_value_makes_the_value_heads_linear_in_the_observation(records, tmp_path) -> None:
    """linear_value > 0: the model file is format 2, its value is x @ skip + bias alone
    (the network's win_w and money_w are zero), its policy the network's; the fitted
    win forecast beats the constant on the held-out games (the synthetic outcome is a
    linear function of the observation); the card names the penalty, the search loads
    it as a value (win_weight 0 is then no refusal); the option is checked by name."""
    from gallerist.ai.net.model_file import load_model
    from gallerist.ai.net.packaged import load_evaluator

    out = tmp_path / "linear.npz"
    card = tr.train([records], out, **{**TINY, "win_weight": 0.0, "linear_value": 10.0})
    model = load_model(str(out))
    assert model.win_skip is not None and model.money_skip is not None
    assert not model.win_w.any() and not model.money_w.any()
    with np.load(out, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    assert int(arrays["format_version"]) == 2
    obs = np.random.default_rng(6).normal(size=(32, SIZE)).astype(np.float32)
    win, money, _ = model.raw(obs)
    np.testing.assert_allclose(win, obs @ model.win_skip + model.win_b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(money, obs @ model.money_skip + model.money_b, rtol=1e-4, atol=1e-4)
    for want, got in zip(model.raw(obs), tr.jax_forward(arrays, obs)):
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5, rtol=1e-5)
    v = card["validation"]["win"]
    assert v["brier"] < v["brier_constant"]
    assert card["hyperparameters"]["linear_value"] == 10.0
    assert card["linear_value"]["penalty"] == 10.0 and card["linear_value"]["win_fit"]["iterations"] > 0
    assert load_evaluator(str(out), value=True) is not None
    for bad in (-1, float("inf"), "strong", True):
        with pytest.raises(ValueError, match="linear_value"):
            tr.check_options({"linear_value": bad})


def test_linear_value_fits_are_penalised_and_respect_absent_seats() -> None:
    """ai.learn.linear_value: a stronger penalty gives smaller weights; seats absent from every
    row get zero weights; 3-seat rows are a softmax over 3 seats (a seat's weights are fitted
    to its own outcome)."""
    from gallerist.ai.learn.linear_value import fit_linear_value

    rng = np.random.default_rng(3)
    n, d = 600, 12
    x = rng.normal(size=(n, d)).astype(np.float32)
    players = np.full(n, 3, np.int8)
    logits = np.stack([x[:, 0], x[:, 1], x[:, 2]], 1) * 2
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    winner = np.array([rng.choice(3, p=row) for row in p])
    share = np.zeros((n, 4), np.float32)
    share[np.arange(n), winner] = 1
    money = np.zeros((n, 4), np.float32)
    money[:, :3] = 50 + 10 * x[:, :3]
    arrays = {"obs": x, "num_players": players, "win_share": share, "final_money": money}
    weak, _ = fit_linear_value(arrays, 0.1, 100.0)
    strong, _ = fit_linear_value(arrays, 1000.0, 100.0)
    assert np.abs(strong["win_skip"]).sum() < np.abs(weak["win_skip"]).sum()
    assert not weak["win_skip"][:, 3].any() and not weak["money_skip"][:, 3].any()
    for k in range(3):      # seat k's logit leans on feature k
        assert np.argmax(weak["win_skip"][:3, k] - weak["win_skip"][:3].mean(1)) == k
    np.testing.assert_allclose(weak["money_skip"][:3, :3], 0.1 * np.eye(3), atol=0.01)
    with pytest.raises(ValueError, match="penalty"):
        fit_linear_value(arrays, 0.0, 100.0)


def test_init_starts_from_a_model_s_weights(records, tmp_path, trained):
    """--init: the training's first weights are the model's (epoch 0's losses are the
    model's own, not a random network's); other widths are refused naming init."""
    out, card = trained
    init = tr.train([records], tmp_path / "init.npz", **{**TINY, "init": str(out)})
    assert init["history"][0]["validation"]["total"] != card["history"][0]["validation"]["total"]
    assert init["history"][0]["validation"]["total"] == pytest.approx(
        min(h["validation"]["total"] for h in card["history"]), rel=0.05)
    with pytest.raises(tr.TrainingError, match="init .*hidden widths"):
        tr.train([records], tmp_path / "wide.npz", **{**TINY, "hidden": "16", "init": str(out)})
