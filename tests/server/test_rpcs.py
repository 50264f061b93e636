"""Every rpc of GalleristAI answers correctly on valid input; same seed, same answer; a
whole game can be played through the service."""
from __future__ import annotations

import random

import grpc
import pytest

from gallerist import engine
from gallerist.engine.actions import action_to_string
from gallerist.v1 import hints_pb2
from gallerist.client import HintClient, hint_request
from gallerist.server.app import GalleristServer
from gallerist.server.demo_state import demo_state
from gallerist.cli.text import format_hint
from server_testlib import chance_state, running_server, terminal_state, wait_until


def _without_timing(response: hints_pb2.HintResponse) -> hints_pb2.HintResponse:
    copy = hints_pb2.HintResponse()
    copy.CopyFrom(response)
    copy.stats.elapsed_ms = 0
    copy.stats.nodes_per_second = 0
    return copy


@pytest.mark.parametrize("bot", ["mcts:iterations=200", "expectimax:depth=2", "greedy", "random"])
def test_suggest_moves_ranks_every_legal_move(client: HintClient, demo: engine.GameState,
                                              bot: str) -> None:
    """SuggestMoves returns each legal move once, with notation and words (as the mover
    sees it), money per seat, a PV starting with the move and legal from the position,
    and root statistics."""
    r = client.suggest(hint_request(demo, bot=bot, seed=3))
    legal = demo.legal_actions()
    words = engine.describe_moves(demo.view(demo.current_player))
    assert r.chosen.description == words[r.chosen.action]
    assert r.final and r.player == demo.current_player
    assert r.bot == bot.split(":")[0]
    assert sorted(m.action for m in r.moves) == legal
    assert r.legal_move_count == len(legal)
    for m in r.moves:
        assert m.notation == action_to_string(m.action)
        assert m.description == words[m.action]
        assert len(m.expected_money) == demo.num_players
        assert 0.0 <= m.win_probability <= 1.0
        assert m.pv[0] == m.action and list(m.pv_notation) == [action_to_string(a) for a in m.pv]
        replay = demo.copy()
        for a in m.pv:   # the plan is playable (chance steps take the listed outcome)
            replay.apply(a)
    assert r.stats.elapsed_ms > 0
    if bot.startswith("mcts"):
        assert r.stats.iterations == 200 == sum(m.visits for m in r.moves)
        assert r.moves[0].visits == max(m.visits for m in r.moves)
        assert r.budget.iterations == 200
    if bot.startswith("expectimax"):
        assert r.stats.depth == 2 and all(m.depth == 2 for m in r.moves)


def test_suggest_moves_max_moves_and_bot_kind(client: HintClient, demo: engine.GameState) -> None:
    """max_moves truncates the ranking (legal_move_count still counts all); bot_kind
    picks a bot with its defaults."""
    request = hint_request(demo, max_moves=1)
    request.bot_kind = hints_pb2.BOT_KIND_GREEDY
    r = client.suggest(request)
    assert r.bot == "greedy" and len(r.moves) == 1
    assert r.legal_move_count == len(demo.legal_actions())


@pytest.mark.parametrize("bot", ["mcts:iterations=100", "greedy"])
def test_legal_move_count_ignores_allow_and_avoid(client: HintClient, demo: engine.GameState,
                                                  bot: str) -> None:
    """allow_moves / avoid_moves restrict the moves searched, not legal_move_count: it
    stays the position's number of legal moves, in SuggestMoves and AnalyzeStream, and
    the CLI's table says how many were not searched."""
    legal = demo.legal_actions()
    assert len(legal) > 2
    for restriction in ({"allow": [str(legal[0])]}, {"avoid": [str(legal[0])]}):
        request = hint_request(demo, bot=bot, seed=1, **restriction)
        r = client.suggest(request)
        searched = 1 if "allow" in restriction else len(legal) - 1
        assert len(r.moves) == searched
        assert r.legal_move_count == len(legal)
        assert (f"{len(legal) - searched} other legal move(s) not searched"
                in format_hint(r, limit=len(legal)))
        assert all(report.legal_move_count == len(legal)
                   for report in client.analyze_stream(request))


@pytest.mark.parametrize("bot", ["greedy:playouts=1000", "random:playouts=1000"])
def test_playouts_end_at_the_deadline_and_free_the_slot(bot: str) -> None:
    """A 20 ms deadline bounds the root playouts of greedy and random (1000 take 40-90 ms
    from a 4-player start): the hint answers or the deadline passes, and the one search
    slot is free again within 20 ms, so the next hint is not refused."""
    state = engine.new_game(4, seed=1)
    with running_server(workers=1) as server, HintClient(f"localhost:{server.port}") as c:
        for _ in range(3):
            try:
                c.suggest(hint_request(state, bot=bot, seed=1), timeout=0.02)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e.details()
            wait_until(lambda: server.slots.in_use == 0, timeout=0.02, every=0.001)
            r = c.suggest(hint_request(state, bot="greedy", seed=2), timeout=5)
            assert r.final and r.moves


def test_suggest_moves_default_bot_and_budget(client: HintClient, demo: engine.GameState) -> None:
    """No bot and an all-zero budget: the server's default bot (MCTS) with its default
    1000 iterations."""
    r = client.suggest(hint_request(demo))
    assert r.bot == "mcts"
    assert r.stats.iterations == 1000 and r.budget.iterations == 1000


def test_suggest_moves_with_perspective_and_hidden_cards(client: HintClient,
                                                         demo: engine.GameState) -> None:
    """With a perspective the server works on that seat's view; a client may send its
    own view (others' cards HIDDEN) and gets the same hint as with the full state."""
    seat = demo.current_player
    full = client.suggest(hint_request(demo, bot="mcts:iterations=150", seed=5, perspective=seat))
    view = client.suggest(hint_request(demo.view(seat), bot="mcts:iterations=150", seed=5,
                                       perspective=seat))
    plain = client.suggest(hint_request(demo.view(seat), bot="mcts:iterations=150", seed=5))
    assert _without_timing(full) == _without_timing(view) == _without_timing(plain)


@pytest.mark.parametrize("bot,budget", [("mcts", {"iterations": 300}),
                                        ("mcts:threads=1,rollout=heuristic,cutoff=20",
                                         {"iterations": 300}),
                                        ("expectimax", {"depth": 3}), ("greedy", {}),
                                        ("random", {})])
def test_same_seed_same_response(client: HintClient, demo: engine.GameState, bot: str,
                                 budget: dict[str, int]) -> None:
    """The same request (seed, state, bot, iteration/depth budget) gives the same
    response, timing aside; another seed may differ but stays valid."""
    first = client.suggest(hint_request(demo, bot=bot, seed=11, **budget))
    second = client.suggest(hint_request(demo, bot=bot, seed=11, **budget))
    assert _without_timing(first) == _without_timing(second)


def test_analyze_stream_partial_reports_then_one_final(client: HintClient,
                                                       demo: engine.GameState) -> None:
    """AnalyzeStream (MCTS, 600 ms, 100 ms interval): several partial reports with
    growing iteration counts and elapsed time, then exactly one final report."""
    reports = list(client.analyze_stream(
        hint_request(demo, bot="mcts", time_ms=600, report_interval_ms=100, max_moves=3),
        timeout=10))
    assert len(reports) >= 3
    assert [r.final for r in reports] == [False] * (len(reports) - 1) + [True]
    iterations = [r.stats.iterations for r in reports]
    assert iterations == sorted(iterations) and iterations[0] > 0
    elapsed = [r.stats.elapsed_ms for r in reports]
    assert elapsed == sorted(elapsed)
    assert 550 <= elapsed[-1] <= 1500
    assert all(0 < len(r.moves) <= 3 for r in reports)


def test_analyze_stream_iteration_budget(client: HintClient, demo: engine.GameState) -> None:
    """An iteration budget ends the stream at exactly that many iterations."""
    reports = list(client.analyze_stream(
        hint_request(demo, bot="mcts", iterations=2000, report_interval_ms=20), timeout=10))
    assert reports[-1].final and reports[-1].stats.iterations == 2000
    assert sum(m.visits for m in reports[-1].moves) == 2000


@pytest.mark.parametrize("bot", ["expectimax:depth=3", "greedy", "random"])
def test_analyze_stream_other_bots_end_with_final(client: HintClient, demo: engine.GameState,
                                                  bot: str) -> None:
    """Bots without anytime reports still stream: at least the final report."""
    reports = list(client.analyze_stream(hint_request(demo, bot=bot, report_interval_ms=20)))
    assert reports and reports[-1].final and sum(r.final for r in reports) == 1
    assert len(reports[-1].moves) == len(demo.legal_actions())


def test_new_game(client: HintClient) -> None:
    """NewGame returns the engine's new game for the seed and its position summary."""
    r = client.new_game(players=3, seed=9)
    assert engine.GameState.from_proto(r.state) == engine.new_game(3, seed=9)
    assert r.position.kind == hints_pb2.POSITION_KIND_DECISION
    assert r.position.HasField("player") and list(r.position.money) == [10, 10, 10]
    assert "start location" in r.position.description
    default = client.new_game(players=0, seed=9)
    assert default.state.num_players == 2


def test_legal_actions_decision_and_chance(client: HintClient, demo: engine.GameState) -> None:
    """LegalActions lists a decision's actions with notation and words (no probabilities)
    and a chance event's outcomes, in words too, with probabilities that sum to 1; a view
    with HIDDEN cards gets the same words."""
    r = client.legal_actions(demo.to_proto())
    assert [a.action for a in r.actions] == demo.legal_actions()
    assert all(a.notation == action_to_string(a.action) and not a.HasField("probability")
               for a in r.actions)
    words = engine.describe_moves(demo)
    assert [a.description for a in r.actions] == list(words.values())
    seen = client.legal_actions(demo.view(demo.current_player).to_proto())
    assert [a.description for a in seen.actions] == list(words.values())
    chance = chance_state(1)
    r = client.legal_actions(chance.to_proto())
    assert r.position.kind == hints_pb2.POSITION_KIND_CHANCE
    expected = chance.chance_outcomes()
    assert [a.action for a in r.actions] == [x for x, _ in expected]
    assert [a.probability for a in r.actions] == pytest.approx([p for _, p in expected])
    assert sum(a.probability for a in r.actions) == pytest.approx(1.0)
    assert all(a.notation.startswith("chance:") for a in r.actions)
    assert [a.description for a in r.actions] == list(engine.describe_moves(chance).values())


def test_legal_actions_terminal(client: HintClient) -> None:
    """At the end there are no actions and the position names the winners."""
    end = terminal_state(2)
    r = client.legal_actions(end.to_proto())
    assert r.position.kind == hints_pb2.POSITION_KIND_TERMINAL and not r.actions
    assert list(r.position.winners) == end.winners()


def test_apply_action_by_id_notation_and_chance_seed(client: HintClient,
                                                     demo: engine.GameState) -> None:
    """ApplyAction by id and by notation give the engine's next state; at a chance event
    a chance seed draws an outcome, the same for the same seed."""
    action = demo.legal_actions()[-1]
    expected = demo.copy()
    expected.apply(action)
    by_id = client.apply_action(demo.to_proto(), action=action)
    by_text = client.apply_action(demo.to_proto(), notation=f"  {action_to_string(action)} ")
    assert by_id.state == by_text.state == expected.to_proto()
    assert by_id.action == action and by_id.notation == action_to_string(action)
    assert by_id.position.actions_played == len(expected.history)
    chance = chance_state(3)
    a = client.apply_action(chance.to_proto(), chance_seed=42)
    b = client.apply_action(chance.to_proto(), chance_seed=42)
    assert a.state == b.state and a.action in [o for o, _ in chance.chance_outcomes()]


def test_whole_game_through_the_service(client: HintClient) -> None:
    """A 2-player game played only through NewGame, SuggestMoves (greedy), LegalActions
    and ApplyAction reaches the end, with winners and final scores."""
    rng = random.Random(5)
    state = client.new_game(players=2, seed=21).state
    kind = hints_pb2.POSITION_KIND_DECISION
    steps = 0
    while kind != hints_pb2.POSITION_KIND_TERMINAL:
        steps += 1
        assert steps <= engine.MAX_GAME_LENGTH
        if kind == hints_pb2.POSITION_KIND_CHANCE:
            if steps % 2:
                r = client.apply_action(state, chance_seed=rng.randrange(1 << 40))
            else:
                outcomes = client.legal_actions(state).actions
                pick = rng.choices(outcomes, weights=[o.probability for o in outcomes])[0]
                r = client.apply_action(state, action=pick.action)
        else:
            hint = client.suggest(hints_pb2.HintRequest(
                state=state, bot_spec="greedy", seed=steps, max_moves=1))
            r = client.apply_action(state, notation=hint.moves[0].notation)
        state, kind = r.state, r.position.kind
    final = engine.GameState.from_proto(state)
    assert final.is_terminal() and r.position.winners == final.winners()
    assert all(p.final_score.total > 0 for p in state.players)


def test_states_the_server_made_skip_validation(service: GalleristServer,
                                                client: HintClient) -> None:
    """A client playing through the service sends back the states NewGame and
    ApplyAction returned: each is served from the state cache (no validation), and the
    answers are those of a validated state."""
    cache = service.servicer.cache
    assert cache is not None
    misses, hits = cache.misses, cache.hits
    state = client.new_game(players=3, seed=33).state
    calls = 0
    for step in range(12):
        if engine.GameState.from_proto(state).is_chance():
            r = client.apply_action(state, chance_seed=step)
            calls += 1
        else:
            hint = client.suggest(hints_pb2.HintRequest(
                state=state, bot_spec="greedy", seed=step, max_moves=1))
            assert hint.moves
            r = client.apply_action(state, action=hint.moves[0].action)
            calls += 2
        state = r.state
    assert cache.misses == misses and cache.hits - hits == calls


def test_solo_game_through_the_service(client: HintClient) -> None:
    """Solo (one player against Lacerda): NewGame with 1 player, ApplyAction runs her
    moves, and SuggestMoves ranks the moves of a solo position for every bot."""
    r = client.new_game(players=1, seed=4)
    assert engine.GameState.from_proto(r.state) == engine.new_game(1, seed=4)
    assert list(r.position.money) == [10] and r.state.lacerda.supply == 10
    state, rng, steps = r.state, random.Random(2), 0
    while not any(loc.lacerda for loc in state.locations):   # until her first move
        steps += 1
        assert steps < 200
        options = client.legal_actions(state).actions
        if r.position.kind == hints_pb2.POSITION_KIND_CHANCE:
            r = client.apply_action(state, chance_seed=rng.randrange(1 << 40))
        else:
            r = client.apply_action(state, action=rng.choice(options).action)
        state = r.state
    solo = demo_state(seed=2, players=1, turns=6)
    assert any(s.lacerda for s in solo.to_proto().market)        # her market assistants
    for bot in ("mcts:iterations=100", "expectimax:depth=2", "greedy"):
        h = client.suggest(hint_request(solo, bot=bot, seed=1))
        assert h.player == 0 and sorted(m.action for m in h.moves) == solo.legal_actions()
        for m in h.moves:
            assert len(m.expected_money) == 1 and not m.HasField("win_probability")
            replay = solo.copy()
            for a in m.pv:
                replay.apply(a)


def test_hints_name_the_resolved_bot_and_its_model(client: HintClient,
                                                   demo: engine.GameState) -> None:
    """The default bot (mcts:prior=auto,eval=auto) says what searched: at 2 players PUCT
    and the mixed leaf with the packaged value network, named with its short sha256, in
    SuggestMoves, every AnalyzeStream report and every AnalyzedPosition; at 4 players UCT,
    a rollout leaf and no model; a bot without a model names none."""
    from gallerist.ai.net.packaged import auto_value_files, model_label
    from gallerist.ai.bots.spec import bot_options, parse_spec
    r = client.suggest(hint_request(demo, iterations=50))
    assert r.bot == "mcts"
    name, options = parse_spec(r.resolved_bot_spec)
    assert name == "mcts" and list(options) == list(bot_options("mcts"))
    assert (options["eval"], options["prior"], options["model"]) == ("mix", "model", "value-2p.npz")
    assert r.model == model_label(auto_value_files()[2])
    stream = list(client.analyze_stream(hint_request(demo, iterations=50)))
    assert {(s.resolved_bot_spec, s.model) for s in stream} == {(r.resolved_bot_spec, r.model)}
    four = client.suggest(hint_request(engine.new_game(4, seed=1), iterations=50))
    assert parse_spec(four.resolved_bot_spec)[1]["prior"] == "none" and four.model == ""
    assert parse_spec(four.resolved_bot_spec)[1]["eval"] == "rollout"
    greedy = client.suggest(hint_request(demo, bot="greedy:playouts=20"))
    assert (greedy.resolved_bot_spec, greedy.model) == ("greedy:calibrated=true,playouts=20", "")
    moves = hints_pb2.GameMoves(num_players=2, seed=1)
    game = engine.new_game(2, seed=1)
    for _ in range(3):
        moves.actions.append(game.legal_actions()[0])
        game.apply(moves.actions[-1])
    analyzed = list(client.analyze_game(hints_pb2.AnalyzeGameRequest(
        game=moves, budget=hints_pb2.Budget(iterations=30)), timeout=60))

    def bot(spec: str) -> dict[str, object]:   # the bot, not its budget
        return {k: v for k, v in parse_spec(spec)[1].items()
                if k not in ("iterations", "time_ms", "depth")}
    assert analyzed and all((bot(p.resolved_bot_spec), p.model) == (bot(r.resolved_bot_spec), r.model)
                            for p in analyzed)
    # each spec says the budget its search applied
    assert options["iterations"] == 50
    assert all(parse_spec(p.resolved_bot_spec)[1]["iterations"] == 30 for p in analyzed)
