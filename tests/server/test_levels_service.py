"""An AI opponent through the service: SuggestMoves with a level names the move that
opponent plays (`chosen`), so a whole game against a level is one call per decision; a
level out of range is INVALID_ARGUMENT naming the range."""
from __future__ import annotations

import grpc
import pytest

from gallerist.client import hint_request
from gallerist.client import HintClient
from gallerist.v1 import hints_pb2


def test_every_final_hint_says_which_move_its_bot_plays(client: HintClient, demo) -> None:
    """Any bot: `chosen` is the first move; a level's is one of its ranked moves,
    the same again for the same request and seed."""
    plain = client.suggest(hint_request(demo, bot="greedy", max_moves=3))
    assert plain.chosen.action == plain.moves[0].action
    request = hint_request(demo, bot="level:1", seed=11)
    first, again = client.suggest(request), client.suggest(request)
    assert first.chosen.action in [m.action for m in first.moves]
    assert first.chosen == again.chosen
    assert first.resolved_bot_spec.startswith("level:level=1,")


def test_a_whole_game_against_a_level_through_the_service(client: HintClient) -> None:
    """Seat 1 is level 1: each of its decisions is one SuggestMoves call whose `chosen`
    move is applied; seat 0 plays the first legal move; chance by a seed. The game ends."""
    state = client.new_game(players=2, seed=5).state
    level_moves = 0
    for step in range(3000):
        legal = client.legal_actions(state)
        if legal.position.kind == hints_pb2.POSITION_KIND_TERMINAL:
            break
        if legal.position.kind == hints_pb2.POSITION_KIND_CHANCE:
            state = client.apply_action(state, chance_seed=step).state
            continue
        if legal.position.player == 1:
            reply = client.suggest(hint_request(state, bot="level:1", seed=step, max_moves=1))
            assert reply.chosen.action in [a.action for a in legal.actions]
            action = reply.chosen.action
            level_moves += 1
        else:
            action = legal.actions[0].action
        state = client.apply_action(state, action=action).state
    else:
        pytest.fail("the game did not end within 3000 actions")
    assert level_moves > 20
    assert len(legal.position.winners) >= 1


@pytest.mark.parametrize("spec, words", [
    ("level:9", "level 1..8"),
    ("level:0", "level 1..8"),
    ("level:elo=99999", "elo must be a rating"),
    ("level:elo=-5", "elo must be a rating"),
])
def test_a_level_or_elo_out_of_range_is_invalid_argument(client: HintClient, demo, spec: str,
                                                         words: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        client.suggest(hint_request(demo, bot=spec))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "bot_spec" in err.value.details() and words in err.value.details()


def test_a_remote_level_plays_the_move_the_service_chose(service, demo) -> None:
    """remote:HOST:PORT,bot=level:1 plays the service's `chosen` move, not its first."""
    from gallerist.ai.bots.spec import make_bot

    picks = set()
    for seed in range(12):
        bot = make_bot(f"remote:localhost:{service.port},bot=level:1", seed=seed)
        a = bot.analyze(demo)
        assert a.chosen is not None and bot.choose(demo) in [m.action for m in a.moves]
        picks.add(a.chosen)
    assert len(picks) > 1


def test_analyze_game_ends_with_each_seat_s_strength(client: HintClient) -> None:
    """AnalyzeGame of a two-player game: the last AnalyzedPosition carries a strength
    for each analyzed seat (Elo on the ladder's scale, a 95% interval around it, the
    nearest level), the ones before none."""
    from pathlib import Path

    record = (Path(__file__).resolve().parents[1] / "data" / "analyze_game.jsonl"
              ).read_text().splitlines()[0]
    request = hints_pb2.AnalyzeGameRequest(record=record, bot_spec="mcts", seats=[0, 1],
                                           budget=hints_pb2.Budget(iterations=20))
    out = list(client.analyze_game(request, timeout=120))
    assert all(not p.strength for p in out[:-1])
    last = out[-1].strength
    assert [s.seat for s in last] == [0, 1]
    for s in last:
        assert s.elo_low < s.elo < s.elo_high and 1 <= s.level <= 8


def test_analyze_prints_each_seat_s_strength(tmp_path) -> None:
    """gallerist analyze of a two-player game says how each seat played on the ladder's
    scale, and the summary line keeps it."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    record = Path(__file__).resolve().parents[1] / "data" / "analyze_game.jsonl"
    out = tmp_path / "a.jsonl"
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "analyze", str(record),
                           "--iterations", "20", "--workers", "2", "--out", str(out),
                           "--no-progress"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "seat 0 played like level" in done.stdout and "95% CI" in done.stdout
    summary = json.loads(out.read_text().splitlines()[-1])
    for seat in summary["players"]:
        low, high = seat["strength"]["ci"]
        assert low < seat["strength"]["elo"] < high
