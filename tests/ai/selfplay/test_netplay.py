"""Net-guided self-play (ai/selfplay/netplay.py, `gallerist netplay`) and its compact
records (ai/selfplay/compact.py): the positions replayed from a record are the positions
played, the targets are the search's within the quantisation step, the records are the
same on one or two workers and across a resumed run, and bad options are one-line errors."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gallerist.ai.learn.data import load_records
from gallerist.ai.net.model_file import random_arrays, save_model
from gallerist.ai.selfplay import compact, netplay
from gallerist.cli.main import main

FAST, FULL = 3, 8   # at most 8 visited moves: the top 8 keep every visit


@pytest.fixture
def value_model(tmp_path: Path) -> str:
    """A small random network with a value (no win_weight 0 in its card)."""
    path = tmp_path / "value.npz"
    save_model(str(path), random_arrays((16, 8), seed=3), {"note": "random, for tests"})
    return str(path)


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Every search's (iterations, player, observation, legal ids, root children)."""
    calls: list[tuple] = []
    real = netplay._search

    def search(eng, state, player, seed, iterations):   # type: ignore[no-untyped-def]
        action, children = real(eng, state, player, seed, iterations)
        calls.append((iterations, player, state.observation(player).copy(),
                      sorted(state.legal_actions()), children))
        return action, children

    monkeypatch.setattr(netplay, "_search", search)
    return calls


@pytest.mark.parametrize("players", [2, 3])
def test_replayed_positions_equal_the_played_ones_and_targets_within_a_step(
        tmp_path: Path, value_model: str, monkeypatch: pytest.MonkeyPatch, players: int) -> None:
    calls = _spy(monkeypatch)
    run = netplay.run_netplay(players=players, games=2, out=tmp_path / "np", model=value_model,
                              seed=11, fast_iterations=FAST, full_iterations=FULL,
                              full_fraction=0.5)
    assert run.games == 2 and not run.interrupted
    full = [c for c in calls if c[0] == FULL]
    assert len(full) == run.targets > 0 and len(calls) > len(full)
    data = load_records([tmp_path / "np"])
    a = data.arrays
    assert len(data) == len(full) and data.games == 2
    for row, (_, player, obs, legal, children) in enumerate(full):
        np.testing.assert_array_equal(a["obs"][row], obs)
        assert sorted(np.flatnonzero(a["legal"][row])) == legal
        visits = {k: c[0] for k, c in children.items() if c[0]}
        total = sum(visits.values())
        exact = np.zeros(compact.NUM_ACTIONS)
        exact[list(visits)] = [v / total for v in visits.values()]
        np.testing.assert_allclose(a["policy"][row], exact / exact.sum(), atol=0.03)
        seats = (player + np.arange(players)) % players
        money = np.sum([children[k][2] for k in visits], axis=0) / total
        win = np.sum([children[k][3] for k in visits], axis=0) / total
        assert np.abs(a["root_money"][row, :players] - money[seats]).max() <= compact.MONEY_STEP / 2 + 1e-4
        assert np.abs(a["root_win"][row, :players] - win[seats]).max() <= compact.WIN_STEP / 2 + 1e-6
    # the stored shares themselves, before renormalising: within half a step
    games = compact.split_games(compact.read_shard(tmp_path / "np" / "shard-00000.npz"))
    shares = np.concatenate([compact.decode_targets(g)["shares"] for g in games])
    for row, (*_, children) in enumerate(full):
        total = sum(c[0] for c in children.values())
        for k, c in children.items():
            assert abs(shares[row, k] - c[0] / total) <= compact.SHARE_STEP / 2 + 1e-9
    assert (a["win_share"][:, :players].sum(axis=1) == pytest.approx(1.0))
    assert np.isnan(a["playout_win"]).all()


def test_policy_only_model_values_by_money_and_records_no_win(tmp_path: Path) -> None:
    """The packaged 2-player prior's win head was never trained: its leaf value is the
    money head (margin weight 1) and the records hold no root win (read as NaN)."""
    run = netplay.run_netplay(players=2, games=1, out=tmp_path / "np", seed=3,
                              fast_iterations=FAST, full_iterations=FULL, full_fraction=0.3)
    manifest = json.loads((tmp_path / "np" / "manifest.json").read_text())
    assert manifest["options"]["value"] == "money" and manifest["options"]["margin_weight"] == 1.0
    assert manifest["model"].endswith("default.npz") and len(manifest["model_sha256"]) == 64
    assert "root_win" not in compact.read_shard(tmp_path / "np" / "shard-00000.npz")
    a = load_records([tmp_path / "np"]).arrays
    assert len(a["obs"]) == run.targets and np.isnan(a["root_win"][:, :2]).all()


def test_two_workers_and_a_resumed_run_write_the_same_games(tmp_path: Path, value_model: str) -> None:
    opts = dict(players=2, model=value_model, seed=40, fast_iterations=FAST,
                full_iterations=FULL, full_fraction=0.25, games_per_shard=2)
    netplay.run_netplay(games=3, out=tmp_path / "one", **opts)
    netplay.run_netplay(games=1, out=tmp_path / "two", workers=2, **opts)   # a short shard
    run = netplay.run_netplay(games=3, out=tmp_path / "two", workers=2,
                              **{**opts, "games_per_shard": None})
    assert run.played == 2 and run.games == 3

    def games(d: Path) -> list[dict[str, np.ndarray]]:
        m = json.loads((d / "manifest.json").read_text())
        assert [s["games"] for s in m["shards"]] == [2, 1]
        return [g for s in m["shards"] for g in compact.split_games(compact.read_shard(d / s["file"]))]

    for x, y in zip(games(tmp_path / "one"), games(tmp_path / "two"), strict=True):
        assert x.keys() == y.keys()
        for k in x:
            np.testing.assert_array_equal(x[k], y[k])


@pytest.mark.parametrize("argv, says", [
    (["--players", "4"], "--players 4: no packaged model"),
    (["--full-fraction", "1.5"], "argument --full-fraction: 1.5 is outside 0..1"),
    (["--full-iterations", "0"], "argument --full-iterations: 0 is outside 1..100000"),
    (["--model", "missing.npz"], "--model"),
])
def test_bad_options_are_one_line_errors_naming_them(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     argv: list[str], says: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(["netplay", "--games", "1", "--out", str(tmp_path / "np"), *argv]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert says in err[-1] and "Traceback" not in "\n".join(err)


def test_a_directory_of_other_options_is_refused(tmp_path: Path, value_model: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "np")
    base = ["netplay", "--games", "1", "--out", out, "--model", value_model, "--no-progress",
            "--fast-iterations", "2", "--full-iterations", "4"]
    assert main(base) == 0
    assert main([*base[:-1], "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "options" in err and len(err.splitlines()) == 1


def test_the_same_seed_gives_the_same_shard_on_ray(tmp_path: Path, value_model: str) -> None:
    opts = dict(players=2, games=2, model=value_model, seed=21, fast_iterations=FAST,
                full_iterations=FULL)
    netplay.run_netplay(out=tmp_path / "local", **opts)
    netplay.run_netplay(out=tmp_path / "ray", workers=2, backend="ray", **opts)
    a = compact.read_shard(tmp_path / "local" / "shard-00000.npz")
    b = compact.read_shard(tmp_path / "ray" / "shard-00000.npz")
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_ctrl_c_keeps_the_finished_games_and_the_next_run_completes_them(
        tmp_path: Path, value_model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    opts = dict(players=2, model=value_model, seed=60, fast_iterations=FAST,
                full_iterations=FULL, games_per_shard=3)
    netplay.run_netplay(games=4, out=tmp_path / "straight", **opts)
    real = netplay.play_netplay_game

    def stop_at_game_2(game):   # type: ignore[no-untyped-def]
        if game.index == 2:
            raise KeyboardInterrupt
        return real(game)

    monkeypatch.setattr(netplay, "play_netplay_game", stop_at_game_2)
    run = netplay.run_netplay(games=4, out=tmp_path / "stopped", **opts)
    assert run.interrupted and run.games == 2 and run.played == 2
    monkeypatch.setattr(netplay, "play_netplay_game", real)
    run = netplay.run_netplay(games=4, out=tmp_path / "stopped", **opts)
    assert run.games == 4 and run.played == 2
    a, b = (load_records([tmp_path / d]).arrays for d in ("straight", "stopped"))
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
