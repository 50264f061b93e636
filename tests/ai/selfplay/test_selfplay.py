"""Self-play records (ai/selfplay/run.py, `gallerist selfplay`): the layout of the session's
formats (shapes, dtypes, policy over the legal ids, final money and win share own seat
first), consistent with a replay of each game; resume and extend; refusal of another
run's directory; the same records on local workers and on Ray."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gallerist import engine
from gallerist.ai.selfplay import run as selfplay
from gallerist.ai.bots.base import BaseBot
from gallerist.ai.values import Analysis, MoveInfo
from gallerist.ai.selfplay.run import (NUM_ACTIONS, SelfplayError, game_seed, read_manifest, read_shard,
                                   run_selfplay)
from gallerist.cli.main import main

MCTS = "mcts:iterations=20"


def shards(out: Path) -> dict[str, np.ndarray]:
    """Every shard of a directory, concatenated in manifest order."""
    manifest = read_manifest(out)
    parts = [read_shard(out / s["file"]) for s in manifest["shards"]]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def replay_check(rows: dict[str, np.ndarray], seed: int) -> None:
    """Replay every game of `rows` from its seed (chance drawn as ai.arena.play draws it, the
    decisions from the rows) and check each row and the final money and win share."""
    for g in np.unique(rows["game"]):
        mine = {k: v[rows["game"] == g] for k, v in rows.items()}
        n = int(mine["num_players"][0])
        state = engine.new_game(num_players=n, seed=game_seed(seed, int(g)))
        chance = np.random.default_rng(game_seed(seed, int(g)))
        i = 0
        while not state.is_terminal():
            if state.is_chance():
                outcomes = state.chance_outcomes()
                p = np.array([q for _, q in outcomes])
                state.apply(outcomes[int(chance.choice(len(outcomes), p=p / p.sum()))][0])
                continue
            player = state.current_player
            assert mine["player"][i] == player
            assert mine["turn"][i] == state.turn_number
            legal = np.zeros(NUM_ACTIONS, bool)
            legal[state.legal_actions()] = True
            np.testing.assert_array_equal(mine["legal"][i], legal)
            np.testing.assert_array_equal(mine["obs"][i], state.observation(player))
            np.testing.assert_array_equal(mine["obs"][i], state.view(player).observation(player))
            state.apply(int(mine["action"][i]))
            i += 1
        assert i == len(mine["action"]), "every row is a decision of the replayed game"
        money, winners = state.money(), state.winners()
        for row in range(i):
            player = int(mine["player"][row])
            for k in range(4):
                seat = (player + k) % n
                want_money = money[seat] if k < n else 0.0
                want_share = (1.0 / len(winners) if seat in winners else 0.0) if k < n else 0.0
                assert mine["final_money"][row, k] == pytest.approx(want_money)
                assert mine["win_share"][row, k] == pytest.approx(want_share)


def check_layout(rows: dict[str, np.ndarray]) -> None:
    dtypes = {"obs": np.float32, "policy": np.float32, "legal": np.bool_, "action": np.int16,
              "player": np.int8, "num_players": np.int8, "turn": np.int16, "game": np.int32,
              "final_money": np.float32, "win_share": np.float32, "root_win": np.float32,
              "root_money": np.float32}
    assert set(rows) == set(dtypes)
    p = len(rows["action"])
    for key, dtype in dtypes.items():
        assert rows[key].dtype == dtype, key
        assert rows[key].shape[0] == p, key
    assert rows["obs"].shape == (p, engine.OBSERVATION_SIZE)
    assert rows["policy"].shape == rows["legal"].shape == (p, NUM_ACTIONS)
    assert rows["final_money"].shape == rows["win_share"].shape == (p, 4)
    np.testing.assert_allclose(rows["policy"].sum(axis=1), 1.0, atol=1e-5)
    assert not (rows["policy"] * ~rows["legal"]).any(), "the policy is zero off the legal ids"
    assert rows["legal"][np.arange(p), rows["action"]].all(), "the action played is legal"
    np.testing.assert_allclose(rows["win_share"].sum(axis=1), 1.0, atol=1e-6)
    assert rows["root_win"].shape == rows["root_money"].shape == (p, 4)


def test_mcts_records_follow_the_format_and_replay_to_their_final_money_and_win_shares(tmp_path) -> None:
    """2-player MCTS self-play: every array has the formats' dtype and shape, the policy
    is a distribution over the legal ids whose largest entry is the move played (the most
    visited), and a replay of each game from its seed meets every row and its results."""
    out = tmp_path / "sp"
    run = run_selfplay(MCTS, players=2, games=2, out=out, seed=5)
    assert run.games == 2 and not run.interrupted
    rows = shards(out)
    check_layout(rows)
    p = np.arange(len(rows["action"]))
    assert (rows["policy"][p, rows["action"]] == rows["policy"].max(axis=1)).all()
    assert (rows["policy"].max(axis=1) < 1).any(), "visit shares, not one-hots"
    replay_check(rows, seed=5)
    # the search's own root estimates (the value targets' q): a distribution over the
    # two seats, own seat first, equal to what the bot's analysis reports for that view
    assert np.isfinite(rows["root_win"]).all() and np.isfinite(rows["root_money"]).all()
    np.testing.assert_allclose(rows["root_win"].sum(axis=1), 1.0, atol=1e-5)
    assert (rows["root_win"][:, 2:] == 0).all() and (rows["root_money"][:, 2:] == 0).all()
    assert len(np.unique(rows["root_win"][:, 0])) > 10, "the estimate moves with the position"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "gallerist-selfplay" and manifest["format_version"] == 1
    assert manifest["num_actions"] == 183 and manifest["players"] == 2 and manifest["spec"] == MCTS
    assert manifest["observation_size"] == engine.OBSERVATION_SIZE
    assert manifest["games"] == 2 and sum(s["positions"] for s in manifest["shards"]) == len(p)


@pytest.mark.parametrize("players", [1, 3, 4])
def test_greedy_records_one_hot_policies_and_rotate_results_own_seat_first(tmp_path, players) -> None:
    """A bot without visits records 1 on the move played; with 1, 3 and 4 players the
    final money and win share are in tensor seat order (absent seats zero; solo: the
    player's win share is 1)."""
    out = tmp_path / "sp"
    run_selfplay("greedy", players=players, games=2, out=out, seed=1, games_per_shard=1)
    rows = shards(out)
    check_layout(rows)
    p = np.arange(len(rows["action"]))
    assert (rows["policy"][p, rows["action"]] == 1).all()
    assert (rows["final_money"][:, players:] == 0).all() and (rows["win_share"][:, players:] == 0).all()
    if players == 1:
        assert (rows["win_share"][:, 0] == 1).all()
    assert np.isnan(rows["root_win"][:, :players]).all(), "no analysis, no root estimate"
    replay_check(rows, seed=1)


class VisitsBot(BaseBot):
    """A fake search: every legal action a has a + 1 visits, but the smallest legal id
    none; the best move is the most visited."""

    name = "visits"

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed

    def analyze(self, state, budget=None):
        legal = state.legal_actions()
        moves = [MoveInfo(action=a, notation=str(a), visits=0 if a == legal[0] else a + 1) for a in legal]
        moves.sort(key=lambda m: -m.visits)
        return Analysis(player=state.current_player, bot=self.name, moves=moves)


def test_the_policy_is_the_root_visit_share_of_each_action(tmp_path, monkeypatch) -> None:
    """policy[a] = visits(a) / total visits over the legal ids (the search's MoveInfo
    visits), and 0 for a legal move never visited."""
    monkeypatch.setitem(selfplay_bots(), "visits", VisitsBot)
    out = tmp_path / "sp"
    run_selfplay("visits", players=2, games=1, out=out)
    rows = shards(out)
    check_layout(rows)
    for legal, policy in zip(rows["legal"], rows["policy"]):
        ids = np.flatnonzero(legal)
        visits = np.where(ids == ids[0], 0, ids + 1).astype(np.float64)
        if visits.sum() == 0:      # one legal move, never visited: the one-hot
            assert policy[ids[0]] == 1
            continue
        np.testing.assert_allclose(policy[ids], visits / visits.sum(), rtol=1e-6)


def selfplay_bots() -> dict:
    from gallerist.ai.bots import spec
    return spec.BOTS


def interrupt_at(monkeypatch, index: int):
    """Make game `index` of the next runs raise KeyboardInterrupt (Ctrl-C while it plays,
    on the one local worker); return the real game function."""
    real = selfplay.play_selfplay_game

    def play(game):
        if game.index == index:
            raise KeyboardInterrupt
        return real(game)

    monkeypatch.setattr(selfplay, "play_selfplay_game", play)
    return real


def test_extending_and_resuming_give_the_records_of_one_uninterrupted_run(tmp_path, monkeypatch) -> None:
    """A run stopped by Ctrl-C keeps only complete shards; running again finishes it; a
    larger --games extends it (completing its short last shard): the shards equal those
    of one run straight to the end."""
    whole = tmp_path / "whole"
    run_selfplay("greedy", players=2, games=5, out=whole, seed=3, games_per_shard=2)

    parts = tmp_path / "parts"
    first = run_selfplay("greedy", players=2, games=3, out=parts, seed=3, games_per_shard=2)
    assert [s["games"] for s in first.manifest["shards"]] == [2, 1]

    real = interrupt_at(monkeypatch, 3)
    stopped = run_selfplay("greedy", players=2, games=5, out=parts, seed=3)
    assert stopped.interrupted and stopped.games == 2, "the short shard was reopened, not complete"
    assert read_manifest(parts)["games"] == 2
    (parts / "shard-00001.npz").write_bytes(b"a partial shard from a crash")
    monkeypatch.setattr(selfplay, "play_selfplay_game", real)
    done = run_selfplay("greedy", players=2, games=5, out=parts, seed=3)
    assert done.games == 5 and not done.interrupted and done.played == 3
    a, b = shards(whole), shards(parts)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert [s["file"] for s in read_manifest(parts)["shards"]] == [
        "shard-00000.npz", "shard-00001.npz", "shard-00002.npz"]
    again = run_selfplay("greedy", players=2, games=5, out=parts, seed=3)
    assert again.played == 0 and again.games == 5, "a complete run plays nothing more"


@pytest.mark.parametrize("field, change", [
    ("spec", ["--games", "2"]),
    ("players", ["--players", "3"]),
    ("seed", ["--seed", "9"]),
    ("games_per_shard", ["--games-per-shard", "5"]),
    ("observation_version", None),
])
def test_a_directory_of_another_run_is_refused_naming_the_field(tmp_path, capsys, field, change) -> None:
    """Another spec, player count, seed, shard size or observation version: a one-line
    error naming the field, exit 1, and the directory unchanged."""
    out = tmp_path / "sp"
    assert main(["selfplay", "greedy", "--games", "1", "--out", str(out), "--no-progress"]) == 0
    if change is None:
        manifest = json.loads((out / "manifest.json").read_text())
        manifest[field] = 99
        (out / "manifest.json").write_text(json.dumps(manifest))
        change = []
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    spec = "random" if field == "spec" else "greedy"
    argv = ["selfplay", spec, "--games", "2", "--out", str(out), "--no-progress"]
    status = main(argv + change)
    err = capsys.readouterr().err
    assert status == 2   # bad input: a directory of another run
    assert err.count("\n") == 1 and err.startswith("error: ") and field in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_corrupt_or_missing_shard_is_refused_naming_the_file(tmp_path) -> None:
    """A shard listed in the manifest whose checksum differs, or that is gone, stops a
    resume with a message naming it (its games are not silently replaced)."""
    out = tmp_path / "sp"
    run_selfplay("greedy", players=2, games=2, out=out, games_per_shard=1)
    path = out / "shard-00000.npz"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(SelfplayError, match="shard-00000.npz: sha256"):
        run_selfplay("greedy", players=2, games=3, out=out)
    path.unlink()
    with pytest.raises(SelfplayError, match="shard-00000.npz: missing"):
        run_selfplay("greedy", players=2, games=3, out=out)


@pytest.mark.parametrize("argv, status, message", [
    (["bogus", "--games", "1"], 2, "unknown bot 'bogus'"),
    (["mcts:nope=1", "--games", "1"], 2, "unknown option 'nope'"),
    (["greedy", "--games", "0"], 2, "argument --games: 0 is outside 1..1000000"),
    (["greedy", "--games", "two"], 2, "argument --games: 'two' is not an integer"),
    (["greedy", "--games", "1", "--players", "5"], 2, "argument --players: 5 is outside 1..4"),
    (["greedy", "--games", "1", "--workers", "0"], 2, "argument --workers: 0 is outside 1..256"),
    (["greedy", "--games", "1", "--backend", "spark"], 2, "argument --backend: invalid choice: 'spark'"),
    (["greedy", "--games", "1", "--games-per-shard", "-1"], 2, "argument --games-per-shard: -1"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, argv, status, message) -> None:
    """Bad SPEC, players, games, workers, backend or shard size: one error line naming it
    (the numbers and the backend are usage errors, exit 2), nothing written."""
    out = tmp_path / "sp"
    try:
        code = main(["selfplay", *argv, "--out", str(out)])
    except SystemExit as exc:   # argparse's usage error
        code = exc.code
    assert code == status
    errors = [line for line in capsys.readouterr().err.splitlines() if "error: " in line]
    assert len(errors) == 1 and message in errors[0], errors
    assert not out.exists()


def test_bad_directories_are_one_line_errors(tmp_path, capsys) -> None:
    """--out a file, a folder holding other files, or a corrupt manifest: one line
    naming it, exit 2 (bad input)."""
    a_file = tmp_path / "file"
    a_file.write_text("x")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json")
    for out, message in ((a_file, "is a file"), (other, "not empty"), (broken, "cannot read it")):
        assert main(["selfplay", "greedy", "--games", "1", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err and str(out) in err, err


def test_ctrl_c_keeps_complete_shards_and_says_how_to_resume(tmp_path, capsys, monkeypatch) -> None:
    """Ctrl-C: exit 130, the complete shards kept, and the command that continues."""
    interrupt_at(monkeypatch, 2)
    out = tmp_path / "sp"
    status = main(["selfplay", "greedy", "--games", "4", "--games-per-shard", "1", "--out", str(out),
                   "--no-progress"])
    captured = capsys.readouterr()
    assert status == 130
    assert read_manifest(out)["games"] == 2
    assert "continue with: gallerist selfplay greedy" in captured.err and f"--out {out}" in captured.err


def test_same_seed_gives_the_same_records_on_local_workers_and_on_ray(tmp_path) -> None:
    """The games of a seed are the same on 2 local worker processes and as Ray tasks:
    every shard array is equal."""
    local, ray_dir = tmp_path / "local", tmp_path / "ray"
    run_selfplay(MCTS, players=2, games=2, out=local, seed=11, workers=2, games_per_shard=1)
    run_selfplay(MCTS, players=2, games=2, out=ray_dir, seed=11, workers=2, backend="ray",
                 games_per_shard=1)
    a, b = shards(local), shards(ray_dir)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_training_reads_the_search_estimates_of_the_records(tmp_path) -> None:
    """`gallerist train`'s reader keeps the records' root estimates (root_win,
    root_money: the q of its value targets), finite for an analysing bot and NaN for a
    bot without an analysis."""
    from gallerist.ai.learn.data import load_records
    run_selfplay(MCTS, players=2, games=1, out=tmp_path / "mcts", seed=3)
    run_selfplay("greedy", players=2, games=1, out=tmp_path / "greedy", seed=3)
    mcts, greedy = load_records([tmp_path / "mcts"]), load_records([tmp_path / "greedy"])
    np.testing.assert_array_equal(mcts.arrays["root_win"], shards(tmp_path / "mcts")["root_win"])
    assert np.isfinite(mcts.arrays["root_money"]).all()
    assert np.isnan(greedy.arrays["root_win"][:, :2]).all()


def test_analyze_reads_a_game_of_a_selfplay_directory(tmp_path) -> None:
    """`gallerist analyze DIR --game N` (ai.review.games.read_game): a self-play game is
    its recorded decisions with the chance outcomes dealt again from its seed; the replay
    ends where the game ended (the records' final money), and a game the run does not
    hold is a one-line error naming it."""
    from gallerist.ai.review.games import GameInputError, read_game
    out = tmp_path / "sp"
    run_selfplay("greedy", players=3, games=2, out=out, seed=11, games_per_shard=1)
    rows = shards(out)
    game = read_game(str(out), 1)
    assert game.players == 3 and game.seed == game_seed(11, 1) and game.game == 1
    final = game.state_at(len(game.actions))
    assert final.is_terminal()
    mine = rows["game"] == 1
    assert sum(1 for a in game.actions if a in rows["action"][mine]) >= mine.sum()
    first = int(np.flatnonzero(mine)[0])
    p = int(rows["player"][first])
    assert rows["final_money"][first, 0] == final.money()[p]
    with pytest.raises(GameInputError, match="no game 5"):
        read_game(str(out), 5)


def test_a_run_of_one_game_says_1_game_and_1_shard(tmp_path, capsys) -> None:
    """The summary of one game in one shard is singular: "1 game", "1 shard", not "1 games"."""
    out = tmp_path / "sp"
    assert main(["selfplay", "greedy", "--games", "1", "--out", str(out), "--no-progress"]) == 0
    summary = capsys.readouterr().out
    assert summary.startswith(f"{out}: 1 game, ")
    assert " in 1 shard (1 game played now, " in summary


def test_an_interrupted_run_counts_the_finished_games_it_could_not_keep(tmp_path: Path) -> None:
    """Ctrl-C with games finished in a shard that is not complete: the run says how many
    it could not keep (a shard is written whole), for the command to say so plainly."""
    calls = []

    def stop_after_three(done: int, total: int, positions: int) -> None:
        calls.append(done)
        if len(calls) == 3:
            raise KeyboardInterrupt
    run = selfplay.run_selfplay("greedy", players=2, games=8, out=tmp_path / "sp", seed=5,
                                games_per_shard=100, progress=stop_after_three)
    assert run.interrupted and run.games == 0 and run.played >= 1
    assert run.dropped == run.played   # every finished game was in the one unfinished shard
