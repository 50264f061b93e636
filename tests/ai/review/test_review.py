"""Game analysis (`ai.review.analysis`, `ai.review.games`): labels by threshold, a planted mistake
found at the default budget, the played move always evaluated, the analysis lines, and
the games it reads (records, move lists) with errors naming the move."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gallerist import ai, engine
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.ai.review.analysis import (
    BIGGEST_MISTAKES,
    PLAYED_SHARE,
    THRESHOLDS,
    analyze_game,
    analyze_position,
    biggest_mistakes,
    header_line,
    label_for,
    position_line,
    summary_line,
)
from gallerist.ai.review.games import GameInputError, game_from_moves, read_game
from gallerist.engine.actions import string_to_action
from gallerist.cli.commands.analyze import DEFAULT_TIME_MS

DATA = Path(__file__).resolve().parents[2] / "data"
#: A 2-player game (greedy vs MCTS) stopped at move 155, where seat 1 must choose the
#: International Market's action; the file plays "action:A" (take a reputation tile)
#: where the game played "action:B": MCTS (about 0.23 win probability lost, at any
#: budget) and expectimax depth 3 (about 0.2) agree that A throws the game away.
PLANTED = DATA / "planted_mistake.json"
PLANTED_PLY = 155


def _search(bot, state):  # type: ignore[no-untyped-def]
    return lambda budget, moves: bot.analyze(state, budget, moves=moves)


def test_labels_follow_the_documented_thresholds() -> None:
    """A loss >= 0.05 is an inaccuracy, >= 0.10 a mistake, >= 0.20 a blunder (solo $5,
    $10, $20); below, no label."""
    assert THRESHOLDS == {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}
    cases = [(0.0, None), (0.049, None), (0.05, "inaccuracy"), (0.099, "inaccuracy"),
             (0.10, "mistake"), (0.2, "blunder"), (0.9, "blunder")]
    for loss, label in cases:
        assert label_for(loss, 2) == label
    assert label_for(4.9, 1) is None and label_for(12.0, 1) == "mistake"
    assert label_for(0.3, 1) is None   # solo losses are $, not probabilities


@pytest.mark.parametrize("seed", [1, 2])
def test_planted_mistake_is_a_mistake_or_blunder_at_the_default_budget(seed: int) -> None:
    """The planted International Market action (see PLANTED) is labelled mistake or
    blunder by MCTS at `gallerist analyze`'s default budget; the move the game really
    played there is not labelled."""
    game = read_game(str(PLANTED))
    state = game.state_at(PLANTED_PLY)
    budget = Budget(time_ms=DEFAULT_TIME_MS)
    bot = ai.make_bot("mcts", seed=seed)
    bad = analyze_position(state, game.actions[PLANTED_PLY], _search(bot, state), budget,
                           ply=PLANTED_PLY)
    assert bad.played.notation == "action:A" and bad.best.notation == "action:B"
    assert bad.label in ("mistake", "blunder"), bad.loss
    good = analyze_position(state, string_to_action("action:B"),
                            _search(ai.make_bot("mcts", seed=seed), state), budget)
    assert good.label is None and good.loss == 0.0


def test_played_move_barely_visited_gets_its_own_search() -> None:
    """A played move the search gave (almost) no visits is evaluated by a second search
    with only it at the root, on PLAYED_SHARE of the budget; the loss compares the two."""
    game = read_game(str(PLANTED))
    state = game.state_at(PLANTED_PLY - 1)   # 7 moves; MCTS favours move:IM
    calls: list[tuple[Budget, list[int] | None]] = []
    bot = ai.make_bot("mcts", seed=1)

    def search(budget: Budget, moves: list[int] | None) -> Analysis:
        calls.append((budget, moves))
        return bot.analyze(state, budget, moves=moves)

    main = ai.make_bot("mcts", seed=1).analyze(state, {"iterations": 400})
    least = min(main.moves, key=lambda m: m.visits)
    review = analyze_position(state, least.action, search, Budget(iterations=400))
    assert review.searches == 2
    assert calls[1] == (Budget(iterations=int(400 * PLAYED_SHARE)), [least.action])
    assert review.played.action == least.action and review.played.visits == 100
    expected = review.best.win_probability - review.played.win_probability
    assert review.loss == pytest.approx(max(0.0, expected))


def test_best_move_played_costs_nothing_and_one_search() -> None:
    """Playing the search's own best move: loss 0, no label, no second search."""
    game = read_game(str(PLANTED))
    state = game.state_at(PLANTED_PLY)
    best = ai.make_bot("expectimax:depth=1", seed=0).analyze(state).best.action
    review = analyze_position(state, best, _search(ai.make_bot("expectimax:depth=1"), state),
                              Budget())
    assert (review.loss, review.label, review.searches) == (0.0, None, 1)


def test_solo_loss_is_in_money() -> None:
    """Solo there is no win probability: the loss is the best move's expected money minus
    the played move's (>= 0), and the header's unit says $."""
    s = engine.new_game(num_players=1, seed=2)
    bot = ai.make_bot("expectimax:depth=1")
    a = bot.analyze(s)
    worst = a.moves[-1]
    review = analyze_position(s, worst.action, _search(ai.make_bot("expectimax:depth=1"), s),
                              Budget())
    assert review.best.win_probability is None
    assert review.loss == pytest.approx(a.best.expected_money[0] - worst.expected_money[0])
    game = game_from_moves(2, 1, [])
    assert header_line(game, source="x", bot="b", budget=Budget(time_ms=5))["thresholds"]["unit"] == "$ (solo)"


def test_analysis_lines_follow_the_format() -> None:
    """header / position / summary lines carry the fields of the analyzed-game format,
    the state in protobuf's JSON mapping (it reads back), root numbers summing to 1."""
    game = read_game(str(PLANTED))
    state = game.state_at(PLANTED_PLY)
    review = analyze_position(state, game.actions[PLANTED_PLY],
                              _search(ai.make_bot("mcts", seed=1), state), Budget(iterations=300),
                              ply=PLANTED_PLY)
    line = position_line(review, max_moves=1)
    assert line["type"] == "position" and line["ply"] == PLANTED_PLY and line["player"] == 1
    assert engine.GameState.from_json(json.dumps(line["state"])).to_json() == state.to_json()
    assert sum(line["root"]["win_probabilities"]) == pytest.approx(1.0)
    for key in ("played", "best"):
        assert set(line[key]) == {"action", "move", "description", "win_probability",
                                  "expected_money", "explanation"}
    assert all("explanation" not in m for m in line["moves"])
    assert line["played"]["move"] == "action:A" and len(line["moves"]) == 1
    assert line["played"]["description"] == engine.describe_move(state.view(1),
                                                                 game.actions[PLANTED_PLY])
    assert line["label"] in (None, "inaccuracy", "mistake", "blunder") and line["loss"] >= 0
    head = header_line(game, source="p.json", bot="mcts", budget=Budget(time_ms=200))
    assert head["format"] == "gallerist-analysis" and head["format_version"] == 1
    assert head["setup"] == {"seed": game.seed, "players": 2} and head["time_ms"] == 200
    assert head["thresholds"] == {**THRESHOLDS, "unit": "win probability"}
    summary = summary_line(game, [line], [0, 1], complete=False)
    assert summary["complete"] is False
    assert summary["players"][1]["decisions"] == 1
    assert summary["players"][1]["average_loss"] == line["loss"]
    assert summary["players"][0] == {"seat": 0, "name": game.names[0], "decisions": 0,
                                     "average_loss": 0.0,
                                     "counts": {"inaccuracy": 0, "mistake": 0, "blunder": 0},
                                     "strength": None, "biggest_mistakes": []}


def test_analyze_game_in_parallel_matches_one_worker() -> None:
    """Positions get their own seeded bots: two workers give the same lines as one (in
    another order), one per decision of the chosen seats."""
    rng_state = engine.new_game(num_players=2, seed=5)
    bot = ai.make_bot("greedy", seed=3)
    moves = []
    while len(moves) < 30:
        if rng_state.is_chance():
            a = rng_state.chance_outcomes()[0][0]
        else:
            a = bot.choose(rng_state)
        rng_state.apply(a)
        moves.append(a)
    game = game_from_moves(5, 2, moves)
    one = list(analyze_game(game, "mcts", Budget(iterations=60), seats=[1], workers=1, seed=4))
    two = list(analyze_game(game, "mcts", Budget(iterations=60), seats=[1], workers=2, seed=4))
    assert sorted(one, key=lambda x: x["ply"]) == sorted(two, key=lambda x: x["ply"])
    assert [x["ply"] for x in one] == [ply for ply, seat in game.decisions([1])]
    assert all(x["player"] == 1 for x in one)


def test_read_game_record_and_move_list(tmp_path: Path) -> None:
    """A records file (JSON Lines) gives its game by number; a move list (ids or
    notation, chance outcomes included) gives the same actions."""
    record = read_game(str(DATA / "analyze_game.jsonl"), game=0)
    assert record.game == 0 and record.players == 2 and len(record.names) == 2
    listed = tmp_path / "moves.json"
    notation = [engine.actions.action_to_string(a) for a in record.actions[:50]]
    listed.write_text(json.dumps({"seed": record.seed, "players": 2,
                                  "moves": notation[:25] + record.actions[25:50]}))
    game = read_game(str(listed))
    assert game.actions == record.actions[:50] and game.game is None
    assert game.names == ["P0", "P1"]


@pytest.mark.parametrize("content, fragment", [
    ({"seed": 1, "players": 2, "moves": ["start:AC", "bogus"]}, "moves[1]: unknown action notation 'bogus'"),
    ({"seed": 1, "players": 2, "moves": [0, 0]}, "moves[1]: start:SO is illegal"),
    ({"seed": 1, "players": 7, "moves": []}, "players: 7 is not 1..4"),
    ({"seed": 1, "moves": [], "extra": 1}, "unknown field(s) extra"),
    ({"seed": -1, "moves": []}, "seed: -1"),
])
def test_bad_move_lists_name_the_problem(tmp_path: Path, content: dict, fragment: str) -> None:  # type: ignore[type-arg]
    """An unknown or illegal move is named with its index; bad setup fields by name."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(GameInputError) as info:
        read_game(str(path))
    assert fragment in str(info.value)


def test_bad_record_files_name_the_line_or_game(tmp_path: Path) -> None:
    """A line that is not a record, or a game number not in the file, is named."""
    path = tmp_path / "r.jsonl"
    path.write_text((DATA / "analyze_game.jsonl").read_text() + "{\"x\": 1}\n")
    with pytest.raises(GameInputError, match=r"r.jsonl:2: not a game record"):
        read_game(str(path))
    with pytest.raises(GameInputError, match="no game 9"):
        read_game(str(DATA / "analyze_game.jsonl"), game=9)


def test_moves_after_the_end_are_refused() -> None:
    """A move list that goes on after the game ended names the first extra move."""
    record = read_game(str(DATA / "analyze_game.jsonl"), game=0)
    end = engine.new_game(num_players=2, seed=record.seed)
    for a in record.actions:
        end.apply(a)
    if not end.is_terminal():
        pytest.fail("the test record should be a finished game")
    with pytest.raises(GameInputError, match=rf"moves\[{len(record.actions)}\].*already over"):
        game_from_moves(record.seed, 2, record.actions + [0])


def test_move_info_json_fields() -> None:
    """`played`/`best` give win_probability null in solo (MoveInfo without one), and the
    move in words from the position's words (empty when it has none)."""
    m = MoveInfo(action=0, notation="start:SO", expected_money=[10.0])
    from gallerist.ai.review.analysis import _move_json
    assert _move_json(m, {0: "Start at the Sales Office"}) == {
        "action": 0, "move": "start:SO", "description": "Start at the Sales Office",
        "win_probability": None, "expected_money": [10.0]}
    assert _move_json(m, {})["description"] == ""


def _short_game(moves: int = 40, seed: int = 5) -> object:
    """The first `moves` moves of a game the greedy bot plays against itself (setup `seed`)."""
    state = engine.new_game(num_players=2, seed=seed)
    bot = ai.make_bot("greedy", seed=3)
    actions = []
    while len(actions) < moves:
        a = state.chance_outcomes()[0][0] if state.is_chance() else bot.choose(state)
        state.apply(a)
        actions.append(a)
    return game_from_moves(seed, 2, actions)


_REASON = {"kind", "subject", "before", "after", "words"}


def _check_explanation(e: dict, other: int | None) -> None:  # type: ignore[type-arg]
    """An explanation object of the analysis format, against the move `other`."""
    assert set(e) == {"words", "now", "scoring", "line", "versus"}
    assert isinstance(e["words"], str) and e["words"]
    for r in e["now"] + e["scoring"]:
        assert set(r) == _REASON and r["before"] != r["after"] and r["words"]
    assert all(r["kind"] == "scoring" for r in e["scoring"])
    assert all(isinstance(step, str) and step for step in e["line"])
    if other is None:
        return
    v = e["versus"]
    assert set(v) == {"action", "description", "win_probability", "expected_money",
                      "differences", "words"}
    assert v["action"] == other and v["description"] and v["words"] in e["words"]
    assert all(set(r) == _REASON for r in v["differences"])


def test_analyzed_lines_explain_played_and_best_and_the_summary_lists_the_biggest_mistakes() -> None:
    """`analyze_game` (worker processes) writes each position's played and best moves
    with their explanations (the played one against the best, the best against the
    played; the best move played: against the next best), JSON objects that survive a
    round trip; the summary's biggest_mistakes are each seat's largest positive losses,
    largest first, at most 5, each with the moves in words, the loss, the label and the
    played move's explanation in one line."""
    game = _short_game()
    lines = sorted(analyze_game(game, "mcts", Budget(iterations=80), workers=2, seed=1),
                   key=lambda x: x["ply"])
    assert [x["ply"] for x in lines] == [ply for ply, _ in game.decisions()]
    assert json.loads(json.dumps(lines)) == lines
    for x in lines:
        played, best = x["played"], x["best"]
        if played["action"] != best["action"]:
            _check_explanation(played["explanation"], best["action"])
            _check_explanation(best["explanation"], played["action"])
        else:
            _check_explanation(best["explanation"], None)
            assert played["explanation"] == best["explanation"]
    summary = summary_line(game, lines, [0, 1], True)
    for seat, entry in zip((0, 1), summary["players"]):
        mine = [x for x in lines if x["player"] == seat and x["loss"] > 0]
        ranked = sorted(mine, key=lambda x: (-x["loss"], x["ply"]))[:BIGGEST_MISTAKES]
        assert ranked, "the short game should have moves that lose something"
        assert [m["ply"] for m in entry["biggest_mistakes"]] == [x["ply"] for x in ranked]
        for m, x in zip(entry["biggest_mistakes"], ranked):
            assert m == {"ply": x["ply"], "played": x["played"]["description"],
                         "played_move": x["played"]["move"], "best": x["best"]["description"],
                         "best_move": x["best"]["move"], "loss": x["loss"], "label": x["label"],
                         "why": x["played"]["explanation"]["words"]}
            assert m["why"] and m["played"] and m["best"]


def test_biggest_mistakes_rank_by_loss_then_ply_and_skip_moves_that_lost_nothing() -> None:
    """biggest_mistakes: the seat's moves only, largest loss first, equal losses in game
    order, at most 5, no move that lost nothing; a line without an explanation gives
    why "" and a move without words its notation."""
    def line(ply: int, player: int, loss: float) -> dict:  # type: ignore[type-arg]
        move = {"action": ply, "move": f"m{ply}", "description": f"move {ply}" if ply % 2 else "",
                "explanation": {"words": f"why {ply}"} if ply != 3 else None}
        return {"ply": ply, "player": player, "loss": loss, "label": None,
                "played": move, "best": {"action": 0, "move": "b", "description": "best"}}

    lines = [line(1, 0, 0.1), line(2, 0, 0.3), line(3, 0, 0.1), line(4, 1, 0.9),
             line(5, 0, 0.0), line(6, 0, 0.05), line(7, 0, 0.2), line(8, 0, 0.01),
             line(9, 0, 0.02)]
    got = biggest_mistakes(lines, 0)
    assert [m["ply"] for m in got] == [2, 7, 1, 3, 6]
    assert got[0]["played"] == "m2" and got[1]["played"] == "move 7"
    assert got[3]["why"] == "" and got[2]["why"] == "why 1"
    assert biggest_mistakes(lines, 1)[0]["ply"] == 4 and biggest_mistakes(lines, 2) == []
