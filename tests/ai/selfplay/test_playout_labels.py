"""Playout labels of self-play records (ai/selfplay/labels.py): the ``playout_win``
column that `gallerist selfplay --playouts N` records and `gallerist label` adds to
existing shards, and `gallerist train --value-target playouts`, which trains the win head
on it. The labels are seeded per decision and played from the deciding player's view, so
they never depend on the other seats' hidden cards, on the worker count or on whether
they were computed while playing or afterwards.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from gallerist import engine
from gallerist.ai.selfplay import labels as pl
from gallerist.ai.selfplay import run as selfplay
from gallerist.ai.selfplay.records import COLUMNS, OPTIONAL, PLAYOUTS_KEY
from gallerist.ai.review.games import replay_selfplay
from gallerist.ai.selfplay.run import SelfplayError, read_manifest, run_selfplay
from gallerist.cli.main import main

MCTS = "mcts:iterations=20"


def shards(out: Path) -> dict[str, np.ndarray]:
    """Every shard array of a run, concatenated in shard order."""
    files = [selfplay.read_shard(out / s["file"]) for s in read_manifest(out)["shards"]]
    return {k: np.concatenate([f[k] for f in files]) for k in files[0]}


@pytest.fixture(scope="module")
def unlabelled(tmp_path_factory) -> Path:
    """3 greedy 2-player games, one per shard, without labels."""
    out = tmp_path_factory.mktemp("sp") / "plain"
    run_selfplay("greedy", players=2, games=3, out=out, seed=21, games_per_shard=1)
    return out


@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> Path:
    """The same games with 12 playouts a position recorded while playing."""
    out = tmp_path_factory.mktemp("sp") / "labelled"
    run_selfplay("greedy", players=2, games=3, out=out, seed=21, games_per_shard=1, playouts=12)
    return out


def mid_game(players: int = 2, seed: int = 4, decisions: int = 40) -> tuple[engine.GameState, int]:
    """A position of a greedy self-play game after `decisions` decisions, and the seat
    to move."""
    from gallerist.ai.arena.play import play_game
    from gallerist.ai.bots.spec import make_bot
    states: list[engine.GameState] = []

    def keep(state: engine.GameState, player: int, action: int) -> None:
        if player != engine.CHANCE and len(states) < decisions:
            states.append(state.copy())

    play_game([make_bot("greedy", seed=s) for s in range(players)], seed=seed, on_action=keep)
    return states[-1], states[-1].current_player


def test_the_column_is_in_the_one_layout_and_optional() -> None:
    """The records layout (ai.selfplay.records) holds the column (float32, one value per tensor seat) and lists it
    among the columns older records lack."""
    assert COLUMNS["playout_win"] == (np.float32, (4,))
    assert "playout_win" in OPTIONAL


def test_a_label_is_the_playout_share_from_the_deciders_view_in_tensor_seat_order() -> None:
    """label_position: the mean win shares of playout_shares on the decider's view,
    rotated own seat first, absent seats 0, summing to 1; the same seed gives the same
    label and another seed (almost surely) another."""
    from gallerist.ai.search._rollout import playout_shares
    state, player = mid_game(players=3)
    label = pl.label_position(state, player, 40, seed=5)
    shares, played = playout_shares(state.view(player), player, 40, 0.0, 5)
    assert played == 40
    np.testing.assert_allclose(label[:3], [shares[(player + k) % 3] for k in range(3)], atol=1e-6)
    assert label[3] == 0 and abs(label.sum() - 1) < 1e-5
    np.testing.assert_array_equal(label, pl.label_position(state, player, 40, seed=5))
    assert not np.array_equal(label, pl.label_position(state, player, 40, seed=6))


def test_a_label_never_reads_the_hidden_cards_of_other_seats() -> None:
    """The other seats' Curator and Art Dealer cards resampled (another deal, the same
    view): the label is the same, number for number."""
    state, player = mid_game()
    label = pl.label_position(state, player, 60, seed=9)
    other, changed = 1 - player, 0
    for k in range(4):
        resampled = state.resample_hidden(player, seed=100 + k)
        changed += not np.array_equal(resampled.observation(other), state.observation(other))
        np.testing.assert_array_equal(pl.label_position(resampled, player, 60, seed=9), label)
    assert changed, "the resampling dealt the other seat its own cards every time"


def test_labels_recorded_while_playing_equal_labels_added_later(unlabelled, labelled, tmp_path) -> None:
    """`selfplay --playouts 12` and `label --playouts 12` on the same run without labels
    give the same shards byte for byte (the label seed is the game's seed and the
    decision's index), with 1 or 2 label workers; the manifest's sha256 stays right."""
    for workers in (1, 2):
        copy = tmp_path / f"w{workers}"
        shutil.copytree(unlabelled, copy)
        run = pl.label_directory(copy, 12, workers=workers)
        assert (run.shards_labelled, run.shards_kept, run.interrupted) == (3, 0, False)
        a, b = shards(labelled), shards(copy)
        assert set(a) == set(b) and "playout_win" in a
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        m = read_manifest(copy)
        assert m[PLAYOUTS_KEY] == 12
        assert [s["sha256"] for s in m["shards"]] == [s["sha256"] for s in read_manifest(labelled)["shards"]]
        selfplay.open_existing(copy)   # every checksum verified


def test_labels_of_the_recorded_games_match_a_replay(labelled) -> None:
    """Each row's label is label_position of the replayed position before that decision
    with label_seed(game seed, decision index)."""
    rows = shards(labelled)
    mine = rows["game"] == 1
    seed = selfplay.game_seed(21, 1)
    seen = 0
    for state, i in replay_selfplay(2, seed, rows["action"][mine].tolist(), rows["player"][mine].tolist()):
        if i % 25 == 0:
            p = int(rows["player"][mine][i])
            np.testing.assert_array_equal(rows["playout_win"][mine][i],
                                          pl.label_position(state, p, 12, pl.label_seed(seed, i)))
            seen += 1
    assert seen >= 3


def test_labels_are_the_same_on_ray(labelled, tmp_path) -> None:
    """Recorded on Ray tasks, the labels equal those of local processes."""
    out = tmp_path / "ray"
    run_selfplay("greedy", players=2, games=2, out=out, seed=21, games_per_shard=1, playouts=12,
                 workers=2, backend="ray")
    a, b = shards(labelled), shards(out)
    n = len(b["playout_win"])
    np.testing.assert_array_equal(a["playout_win"][:n], b["playout_win"])


def test_labelling_resumes_after_ctrl_c_and_keeps_labelled_shards(unlabelled, labelled, tmp_path, monkeypatch) -> None:
    """Ctrl-C while labelling the second shard keeps the first (labelled, its sha256 in
    the manifest) and leaves the rest as they were; running again labels only the rest
    and the result equals an uninterrupted run."""
    out = tmp_path / "resume"
    shutil.copytree(unlabelled, out)
    real = pl._label_task

    def task(t):
        if t[0] == 1:
            raise KeyboardInterrupt
        return real(t)

    monkeypatch.setattr(pl, "_label_task", task)
    stopped = pl.label_directory(out, 12)
    assert stopped.interrupted and stopped.shards_labelled == 1
    m = read_manifest(out)
    assert [s.get(PLAYOUTS_KEY) for s in m["shards"]] == [12, None, None]
    selfplay.open_existing(out)
    monkeypatch.setattr(pl, "_label_task", real)
    done = pl.label_directory(out, 12)
    assert (done.shards_labelled, done.shards_kept) == (2, 1)
    np.testing.assert_array_equal(shards(out)["playout_win"], shards(labelled)["playout_win"])


def test_selfplay_continues_a_labelled_directory_with_its_playouts(tmp_path) -> None:
    """A directory labelled by `gallerist label` gets labelled shards when self-play
    extends it (the manifest's playouts); another --playouts is refused naming it and
    saying how to relabel."""
    out = tmp_path / "sp"
    run_selfplay("greedy", players=2, games=1, out=out, seed=3, games_per_shard=1)
    pl.label_directory(out, 6)
    run_selfplay("greedy", players=2, games=2, out=out, seed=3)
    m = read_manifest(out)
    assert [s[PLAYOUTS_KEY] for s in m["shards"]] == [6, 6]
    assert np.isfinite(shards(out)["playout_win"]).all()
    with pytest.raises(SelfplayError, match=r"playouts 6, not 9; label it first: gallerist label"):
        run_selfplay("greedy", players=2, games=3, out=out, seed=3, playouts=9)
    with pytest.raises(SelfplayError, match="playouts must be an integer"):
        run_selfplay("greedy", players=2, games=3, out=out, seed=3, playouts=-1)


@pytest.mark.parametrize("argv, status, message", [
    (["label", "{d}", "--playouts", "0"], 2, "error: argument --playouts: 0 is outside 1..1000000"),
    (["label", "{d}", "--playouts", "many"], 2, "error: argument --playouts: 'many' is not an integer"),
    (["label", "{d}", "--workers", "0"], 2, "error: argument --workers: 0 is outside 1..256"),
    (["label", "{missing}"], 2, "no manifest.json (not a self-play directory)"),
    (["label", "{file}"], 2, "a file, not a self-play directory: give the directory"),
    (["label", "{changed}"], 2, "sha256 differs from the manifest's"),
    (["selfplay", "greedy", "--games", "1", "--out", "{new}", "--playouts", "x"], 2,
     "error: argument --playouts: 'x' is not an integer"),
])
def test_bad_input_is_a_one_line_error(argv, status, message, unlabelled, tmp_path,
                                       capsys) -> None:
    """Bad numbers (usage errors, exit 2), a folder that is not a self-play directory and a
    shard changed after its run: one error line naming the option or the file."""
    changed = tmp_path / "changed"
    shutil.copytree(unlabelled, changed)
    with open(changed / "shard-00001.npz", "ab") as fh:
        fh.write(b"x")
    a_file = tmp_path / "game.json"
    a_file.write_text("{}")
    paths = {"d": unlabelled, "missing": tmp_path / "nothing", "changed": changed,
             "new": tmp_path / "new", "file": a_file}
    try:
        code = main([a.format(**paths) for a in argv])
    except SystemExit as exc:   # argparse's usage error
        code = exc.code
    assert code == status
    err = [line for line in capsys.readouterr().err.splitlines() if "error: " in line]
    assert len(err) == 1 and message in err[0], err


def test_the_cli_labels_and_reports(unlabelled, tmp_path, capsys) -> None:
    """`gallerist label DIR --playouts N` labels every shard and says so; again, it
    keeps them."""
    out = tmp_path / "cli"
    shutil.copytree(unlabelled, out)
    assert main(["label", str(out), "--playouts", "4", "--no-progress"]) == 0
    assert "3 shards labelled with 4 playouts a position" in capsys.readouterr().out
    assert main(["label", str(out), "--playouts", "4", "--no-progress"]) == 0
    assert "0 shards labelled with 4 playouts a position (0 positions" in capsys.readouterr().out
    assert json.loads((out / "manifest.json").read_text())[PLAYOUTS_KEY] == 4


def test_the_cli_counts_one_playout_in_the_singular(unlabelled, tmp_path, capsys) -> None:
    """`--playouts 1`: "1 playout a position", not "1 playouts"."""
    out = tmp_path / "cli"
    shutil.copytree(unlabelled, out)
    assert main(["label", str(out), "--playouts", "1", "--no-progress"]) == 0
    assert "3 shards labelled with 1 playout a position (" in capsys.readouterr().out


def test_a_playout_label_column_of_the_wrong_shape_is_refused_naming_it(labelled, tmp_path) -> None:
    """The trainer's reader checks the column like every other (dtype and row shape)."""
    from gallerist.ai.learn.data import load_records
    from gallerist.ai.selfplay.records import SelfplayError
    out = tmp_path / "bad"
    shutil.copytree(labelled, out)
    m = read_manifest(out)
    entry = m["shards"][0]
    arrays = selfplay.read_shard(out / entry["file"])
    arrays["playout_win"] = arrays["playout_win"][:, :2]
    entry.update(selfplay.write_arrays(out / entry["file"], arrays))
    selfplay.write_manifest(out, m)
    with pytest.raises(SelfplayError, match=r"playout_win is float32 of shape \(\d+, 2\)"):
        load_records([out])
    assert np.isfinite(load_records([labelled]).arrays["playout_win"]).all()


def test_value_target_playouts_mixes_the_outcome_with_the_labels() -> None:
    """value_target "playouts", weight w: the win target is (1 - w) * outcome + w *
    playout_win (outcome alone where a row has none); the money target stays the
    search's mix; "outcome" leaves the outcome alone."""
    from gallerist.ai.learn import train as tr
    from gallerist.ai.learn.data import Dataset
    z = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], np.float32)
    lab = np.array([[0.2, 0.8, 0, 0], [np.nan] * 4], np.float32)
    q = np.array([[0.6, 0.4, 0, 0], [0.5, 0.5, 0, 0]], np.float32)
    money = np.array([[80, 60, 0, 0], [70, 90, 0, 0]], np.float32)
    qm = np.array([[100, 50, 0, 0], [np.nan] * 4], np.float32)

    def data() -> Dataset:
        return Dataset({"win_share": z.copy(), "root_win": q, "playout_win": lab,
                        "final_money": money.copy(), "root_money": qm,
                        "obs": np.zeros((2, 1), np.float32)}, 1, 1, 183)

    d = data()
    tr.value_targets(d, 0.75, "playouts")
    np.testing.assert_allclose(d.arrays["target_win"], [[0.4, 0.6, 0, 0], z[1]], atol=1e-6)
    np.testing.assert_allclose(d.arrays["target_money"][0], [95, 52.5, 0, 0], atol=1e-4)
    d = data()
    tr.value_targets(d, 0.75, "outcome")
    assert "target_win" not in d.arrays and "target_money" not in d.arrays


def test_the_value_target_option_is_checked_naming_it(unlabelled, tmp_path, capsys) -> None:
    """An unknown --value-target, and --value-target playouts on records without
    labels: one line naming the option (and the command that adds the labels)."""
    assert main(["train", str(unlabelled), "--out", str(tmp_path / "m.npz"),
                 "--value-target", "playout"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --value-target 'playout': expected one of outcome, search, playouts"]
    assert main(["train", str(unlabelled), "--out", str(tmp_path / "m.npz"),
                 "--value-target", "playouts", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--value-target playouts" in err[0] and "gallerist label" in err[0], err


def test_end_to_end_labelled_selfplay_trains_a_model_the_search_uses(tmp_path, capsys) -> None:
    """selfplay --playouts -> train --value-target playouts -> mcts:eval=model, in well
    under a minute: the card scores the net against the labels, and the search runs."""
    t0 = time.perf_counter()
    out, model = tmp_path / "sp", tmp_path / "m.npz"
    assert main(["selfplay", MCTS, "--games", "3", "--out", str(out), "--playouts", "8",
                 "--seed", "5", "--no-progress"]) == 0
    assert main(["train", str(out), "--out", str(model), "--value-target", "playouts",
                 "--search-weight", "1", "--hidden", "16", "--epochs", "3", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "against the playout labels: Brier" in said
    card = json.loads((tmp_path / "m.card.json").read_text())
    labels = card["validation"]["win"]["playouts"]
    assert labels["positions"] == card["split"]["validation"]["positions"]
    assert 0 <= labels["brier_against_labels"] < 0.25
    assert card["hyperparameters"]["value_target"] == "playouts"
    from gallerist.ai import make_bot
    bot = make_bot(f"mcts:eval=model,calibrated=false,iterations=50,model={model}", seed=1)
    state = engine.new_game(num_players=2, seed=3)
    assert bot.choose(state.view(state.current_player)) in state.legal_actions()
    assert time.perf_counter() - t0 < 60
