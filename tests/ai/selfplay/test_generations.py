"""The generation loop (`gallerist generations`): a generation is self-play, a candidate
trained from the best, a seat-paired gate and a promotion; the state file keeps every
finished generation and a later run goes on from it; bad settings are refused by name."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gallerist.ai.selfplay import generations as loop
from gallerist.ai.selfplay.generations import LoopConfig, gate_spec, run_generations
from gallerist.ai.selfplay.records import SelfplayError

TINY = dict(games=10, gate_games=4, gate_iterations=8, fast_iterations=4, full_iterations=8)


def _copy_trainer(data_dirs: list[str], out: str, options: dict[str, Any]) -> bool:
    """A stand-in for training: the candidate is the model it starts from."""
    shutil.copyfile(options["init"], out)
    return True


def test_generations_run_keep_their_state_and_continue(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Two generations, then one more in a second run after the directory moved: each row
    has its self-play games, the window it was trained on and its gate; the best is the
    last promoted; the games played add up; the ladder's picture is written."""
    monkeypatch.setattr(loop, "_train", _copy_trainer)
    cfg = LoopConfig(**TINY, window=2, gate_threshold=0.0)   # every candidate promoted
    first = run_generations(tmp_path / "a", cfg, hours=1, generations=2, workers=1,
                            log=lambda _: None)
    assert (first.finished, first.stopped) == (2, "generations")
    shutil.move(tmp_path / "a", tmp_path / "b")   # the directory moves: it goes on there
    tmp_path = tmp_path / "b"
    second = run_generations(tmp_path, cfg, hours=1, generations=1, workers=1, log=lambda _: None)
    state = json.loads((tmp_path / "generations.json").read_text())
    assert second.finished == 1 and len(state["generations"]) == 4
    rows = state["generations"]
    assert [r["generation"] for r in rows] == [0, 1, 2, 3]
    assert state["best"] == 3 and all(r["promoted"] for r in rows)
    assert rows[3]["trained_on"] == [f"games/gen-{j:03d}" for j in (2, 3)]   # in the directory
    assert rows[3]["model"] == "models/gen-003.npz" and (tmp_path / rows[3]["model"]).is_file()
    assert rows[3]["games_played"] == 3 * TINY["games"] == state["games_played"]
    assert rows[2]["gate"]["games"] == TINY["gate_games"]
    assert rows[3]["elo"] == pytest.approx(rows[2]["elo"] + rows[3]["gate"]["elo"])
    assert (tmp_path / "generations.png").stat().st_size > 1000


def test_a_candidate_below_the_gate_is_not_promoted(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """With a gate no candidate can pass (a share above every possible one), the best
    stays generation 0 and the next generation's self-play is generation 0's."""
    monkeypatch.setattr(loop, "_train", _copy_trainer)
    cfg = LoopConfig(**TINY, gate_threshold=1.01)
    run_generations(tmp_path, cfg, hours=1, generations=2, workers=1, log=lambda _: None)
    state = json.loads((tmp_path / "generations.json").read_text())
    assert state["best"] == 0
    for row in state["generations"][1:]:
        assert not row["promoted"] and "elo" not in row and row["parent"] == 0


def test_a_run_with_another_seed_is_refused(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A directory goes on only with the seed (and player count) it was started with."""
    monkeypatch.setattr(loop, "_train", _copy_trainer)
    run_generations(tmp_path, LoopConfig(**TINY), hours=1, generations=1, log=lambda _: None)
    with pytest.raises(SelfplayError, match="--seed 5: this run was started with 0"):
        run_generations(tmp_path, LoopConfig(**TINY, seed=5), hours=1, generations=1,
                        log=lambda _: None)


def test_the_gate_plays_a_policy_only_model_by_its_money_head() -> None:
    """The packaged prior (no trained win head) plays its gate with margin_weight=1, which
    the mcts bot accepts; a bot that needs the win head still refuses it."""
    from gallerist import ai
    from gallerist.ai.net.packaged import auto_prior_files

    prior = auto_prior_files()[2]
    spec = gate_spec(prior, 8)
    assert spec.endswith("margin_weight=1")
    ai.make_bot(spec, seed=0)
    with pytest.raises(Exception, match="win head was not trained"):
        ai.make_bot(spec.removesuffix(",margin_weight=1"), seed=0)


@pytest.mark.parametrize("argv,message", [
    (["--gate", "1.5"], "--gate: 1.5 is outside (0, 1]"),
    (["--hours", "-1"], "--hours: -1 hours is outside (0, 8760]"),
    (["--train", "epochs"], "--train: 'epochs': expected KEY=VALUE"),
    (["--train", "bogus=1"], "--train bogus: is not an option"),
    (["--start", "missing.npz"], "--start missing.npz: no such file"),
])
def test_bad_settings_are_refused_naming_the_option(tmp_path: Path, argv: list[str],
                                                    message: str) -> None:
    """One line naming the option, exit 2, before anything runs."""
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "generations", "--out",
                           str(tmp_path / "g"), *argv], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_gate_threshold_elo_matches_the_two_player_share() -> None:
    """A 53% win share at 2 players is +20.9 Elo; 50% is 0."""
    assert loop.threshold_elo(0.53) == pytest.approx(20.87, abs=0.01)
    assert loop.threshold_elo(0.5) == 0.0


@pytest.mark.parametrize("players, gate, promoted", [
    (2, {"win_rate": 0.54, "elo": 28.0}, True),
    (2, {"win_rate": 0.52, "elo": 14.0}, False),
    # at 3 players a seat's fair share is 1/3: a 46% share of the candidate's seats is a
    # large win, and the promotion follows the finishing orders' Elo, not the share
    (3, {"win_rate": 0.46, "elo": 239.0}, True),
    (3, {"win_rate": 0.36, "elo": 15.0}, False),
    (4, {"win_rate": 0.30, "elo": 25.0}, True),
])
def test_promotion_at_every_player_count(players: int, gate: dict[str, float],
                                         promoted: bool) -> None:
    """At 2 players the gate's win share decides; at 3 and 4 the Bradley-Terry Elo on the
    finishing orders does, against the Elo of the same threshold."""
    assert loop.promotes(gate, players, 0.53) is promoted


def test_three_player_gate_seats_the_candidate_once(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """At 3 players the gate seats the candidate in one seat of three, every seat rotated."""
    from gallerist.ai.arena import tournament

    seen: dict[str, Any] = {}

    def fake(bots: list[str], **kwargs: Any) -> Any:
        seen["plan"] = tournament.schedule(bots, kwargs["players"], 6, 0)
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "run_tournament", fake)
    cfg = LoopConfig(players=3, gate_games=6)
    model = str(Path(loop.__file__).parents[1] / "models" / "default-3p.npz")
    copy = str(tmp_path / "candidate.npz")
    shutil.copyfile(model, copy)
    with pytest.raises(KeyboardInterrupt):
        loop._gate(copy, model, cfg, 1, tmp_path / "g.jsonl", 1, "local")
    candidate = loop.gate_spec(copy, cfg.gate_iterations)
    plans = seen["plan"]
    assert all(sum(seat == candidate for seat in game.seats) == 1 for game in plans)
    assert {game.seats.index(candidate) for game in plans} == {0, 1, 2}


def test_the_solo_gate_pairs_the_money_on_the_same_setups(tmp_path: Path) -> None:
    """Solo, the gate is the candidate's money against the best's on the same seeds: its
    mean gain with a 95% interval; promoted only when the interval is above zero."""
    from gallerist.ai.arena.records import GameRecord

    def game(bot: str, seed: int, money: int) -> GameRecord:
        return GameRecord(game=seed, seed=seed, bots=[bot], actions=[], money=[money],
                          returns=[1.0], scores=[{"money": money}], seconds=0.1)
    records = [game("new", k, 150 + k % 3 + 5) for k in range(20)] + \
        [game("old", k, 150 + k % 3) for k in range(20)]
    gate = loop._solo_gate(records, "new", "old", tmp_path / "g.jsonl")
    assert gate["pairs"] == 20 and gate["elo"] == pytest.approx(5.0)
    assert gate["unit"] == "$ a game" and gate["elo_ci"][0] > 0
    assert loop.promotes(gate, 1, 0.53)
    assert not loop.promotes({**gate, "elo_ci": [-1.0, 9.0]}, 1, 0.53)


def test_four_players_need_a_start_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No model is packaged for 4 players: the loop asks for --start, naming one."""
    from gallerist.cli.main import main
    assert main(["generations", "--out", str(tmp_path / "g4"), "--players", "4"]) == 2
    assert "give --start MODEL" in capsys.readouterr().err
