"""Every bad request is INVALID_ARGUMENT with a message naming the field and the problem;
a missing or wrong token is UNAUTHENTICATED."""
from __future__ import annotations

import grpc
import pytest

from gallerist import engine
from gallerist.v1 import hints_pb2
from gallerist.client import HintClient, hint_request
from gallerist.server import Limits
from server_testlib import chance_state, expect_status, running_server, terminal_state

BAD = grpc.StatusCode.INVALID_ARGUMENT


def _mutated(state: engine.GameState, edit) -> hints_pb2.HintRequest:  # type: ignore[no-untyped-def]
    msg = state.to_proto()
    edit(msg)
    return hint_request(msg, bot="greedy")


@pytest.mark.parametrize("edit,fragments", [
    (lambda m: setattr(m.players[0], "money", 100000),
     ["state.players[0].money", "100000", "0..9999"]),
    (lambda m: setattr(m, "schema_version", 7), ["state.schema_version", "7"]),
    (lambda m: setattr(m, "num_players", 9), ["state.num_players", "1..4"]),
    (lambda m: m.players.pop(), ["state.players", "entries"]),
    (lambda m: m.ClearField("turn"), ["state.turn", "missing"]),
    (lambda m: setattr(m.artists[3], "fame", 25), ["state.artists[3]"]),
    (lambda m: m.history.append(9999), ["state.history", "9999"]),
    (lambda m: setattr(m.bag, "vip", m.bag.vip + 1), ["state", "vip"]),
])
def test_malformed_or_inconsistent_state(client: HintClient, demo: engine.GameState, edit,  # type: ignore[no-untyped-def]
                                         fragments: list[str]) -> None:
    """A state out of range or inconsistent names the state field at fault."""
    expect_status(BAD, lambda: client.suggest(_mutated(demo, edit)), *fragments)


def test_missing_state(client: HintClient) -> None:
    """A request without a state says the state is missing, for every rpc taking one."""
    expect_status(BAD, lambda: client.suggest(hints_pb2.HintRequest()), "state: missing")
    expect_status(BAD, lambda: client.stub.LegalActions(hints_pb2.LegalActionsRequest()),
                  "state: missing")
    expect_status(BAD, lambda: client.stub.ApplyAction(
        hints_pb2.ApplyActionRequest(action=1)), "state: missing")


def test_hint_at_chance_event_or_end(client: HintClient) -> None:
    """Hints need a decision point: chance events and finished games are refused."""
    expect_status(BAD, lambda: client.suggest(hint_request(chance_state(), bot="greedy")),
                  "state:", "chance event")
    expect_status(BAD, lambda: client.suggest(hint_request(terminal_state(), bot="greedy")),
                  "state:", "game is over")


@pytest.mark.parametrize("spec,fragments", [
    ("alphazero", ["bot_spec", "unknown bot 'alphazero'", "offers mcts, expectimax"]),
    # bots the server does not offer: one reaching other hosts, one without budgets
    ("remote:evil.example:443,bot=mcts", ["bot_spec", "unknown bot 'remote'"]),
    ("openspiel-mcts", ["bot_spec", "unknown bot 'openspiel-mcts'"]),
    ("mcts:bogus=1", ["bot_spec", "unknown option 'bogus'"]),
    ("mcts:iterations=lots", ["bot_spec", "iterations", "expected int"]),
    ("mcts:iterations", ["bot_spec", "needs a value"]),
    ("mcts:iterations=10000000", ["bot_spec", "iterations=10000000", "limit of 200000"]),
    ("mcts:threads=64", ["bot_spec", "threads=64", "limit"]),
    ("mcts:max_nodes=900000000", ["bot_spec", "max_nodes", "limit"]),
    ("mcts:c=nan", ["bot_spec", "finite"]),
    ("mcts:rollout=smart", ["bot_spec", "rollout"]),
    ("mcts:margin_scale=0", ["bot_spec", "margin_scale", "> 0"]),
    ("expectimax:depth=40", ["bot_spec", "depth=40", "limit of 6"]),
    ("expectimax:tt_bits=26", ["bot_spec", "tt_bits=26", "limit of 20"]),
    ("expectimax:win_temperature=0", ["bot_spec", "win_temperature", "> 0"]),
    ("greedy:playouts=5000", ["bot_spec", "playouts=5000", "limit of 1000"]),
    ("expectimax:playouts=0", ["bot_spec", "playouts=0", "calibrated=false"]),
    ("expectimax:chance_width=0", ["bot_spec", "chance_width"]),
    ("greedy:time_ms=-5", ["bot_spec", "greedy"]),
    ("", ["bot_spec", "non-empty"]),
    ("mcts:" + "x" * 300, ["bot_spec", "characters"]),
])
def test_unknown_bot_or_option(client: HintClient, demo: engine.GameState, spec: str,
                               fragments: list[str]) -> None:
    """Unknown bots and options, bad values and values above the limits are named."""
    request = hint_request(demo)
    request.bot_spec = spec
    expect_status(BAD, lambda: client.suggest(request), *fragments)


def test_unknown_bot_kind(client: HintClient, demo: engine.GameState) -> None:
    """A BotKind number the server does not know is named."""
    request = hint_request(demo)
    request.bot_kind = 42   # type: ignore[assignment]
    expect_status(BAD, lambda: client.suggest(request), "bot_kind", "42")


@pytest.mark.parametrize("budget,fragments", [
    ({"iterations": 200_001}, ["budget.iterations", "200001", "limit of 200000"]),
    ({"time_ms": 60_000}, ["budget.time_ms", "60000", "limit of 10000 ms"]),
    ({"depth": 7}, ["budget.depth", "limit of 6"]),
])
def test_budget_above_limits(client: HintClient, demo: engine.GameState,
                             budget: dict[str, int], fragments: list[str]) -> None:
    """A budget above the server's limit names the field and the limit, for both
    search rpcs."""
    expect_status(BAD, lambda: client.suggest(hint_request(demo, **budget)), *fragments)
    expect_status(BAD, lambda: client.analyze_stream(hint_request(demo, **budget)), *fragments)


def test_budget_limits_are_configurable(demo: engine.GameState) -> None:
    """A server started with other limits enforces those."""
    with running_server(workers=1, limits=Limits(max_iterations=500)) as server:
        with HintClient(f"localhost:{server.port}") as c:
            expect_status(BAD, lambda: c.suggest(hint_request(demo, iterations=501)),
                          "budget.iterations", "limit of 500")
            assert c.suggest(hint_request(demo, iterations=500)).stats.iterations == 500


def test_bad_seed_interval_and_perspective(client: HintClient, demo: engine.GameState) -> None:
    """Seeds beyond 2^63-1, report intervals out of range and perspectives that are not
    the seat to move are named."""
    expect_status(BAD, lambda: client.suggest(hint_request(demo, seed=2**64 - 1)), "seed")
    expect_status(BAD, lambda: client.analyze_stream(
        hint_request(demo, report_interval_ms=5)), "report_interval_ms", "20..10000")
    expect_status(BAD, lambda: client.suggest(hint_request(demo, perspective=1)),
                  "perspective", "not the player to move")
    expect_status(BAD, lambda: client.suggest(hint_request(demo, perspective=5)),
                  "perspective", "outside 0..1")


def test_mover_cards_hidden(client: HintClient, demo: engine.GameState) -> None:
    """A state hiding the mover's own cards is refused, naming the card."""
    other = 1 - demo.current_player
    expect_status(BAD, lambda: client.suggest(hint_request(demo.view(other))),
                  f"state.players[{demo.current_player}].curator", "HIDDEN")


def test_undecodable_request_bytes(client: HintClient) -> None:
    """Bytes that are not a message of the request type are INVALID_ARGUMENT (not
    gRPC's INTERNAL)."""
    for method in ("SuggestMoves", "NewGame", "LegalActions", "ApplyAction"):
        raw = client.channel.unary_unary(f"/gallerist.v1.GalleristAI/{method}")
        expect_status(BAD, lambda: raw(b"\x0a\xff\xff\xff\xff\x0f"), "request:", "not a valid")
    raw_stream = client.channel.unary_stream("/gallerist.v1.GalleristAI/AnalyzeStream")
    expect_status(BAD, lambda: raw_stream(b"\xff"), "request:")


def test_illegal_action(client: HintClient, demo: engine.GameState) -> None:
    """ApplyAction: an illegal action says why and lists the legal ones; ids out of
    range, unknown notation and a missing action are named."""
    msg = demo.to_proto()
    illegal = next(a for a in range(engine.NUM_DISTINCT_ACTIONS) if a not in demo.legal_actions())
    details = expect_status(BAD, lambda: client.apply_action(msg, action=illegal),
                            "action: ", "is not legal now", "legal:")
    assert all(demo.action_to_string(a) in details for a in demo.legal_actions())
    expect_status(BAD, lambda: client.apply_action(msg, action=100000), "action: ",
                  "outside 0..182")
    expect_status(BAD, lambda: client.apply_action(msg, notation="move:moon"), "notation",
                  "unknown action notation")
    expect_status(BAD, lambda: client.apply_action(msg, notation="m" * 5000), "notation",
                  "characters")
    expect_status(BAD, lambda: client.apply_action(msg),
                  "action: missing: set action, notation or chance_seed")
    expect_status(BAD, lambda: client.apply_action(msg, chance_seed=1), "chance_seed",
                  "not at a chance event")
    end = terminal_state().to_proto()
    expect_status(BAD, lambda: client.apply_action(end, action=0), "action: ", "game is over")
    chance = chance_state()
    expect_status(BAD, lambda: client.apply_action(chance.to_proto(), chance_seed=2**63),
                  "chance_seed", "2^63")


def test_new_game_bad_arguments(client: HintClient) -> None:
    """NewGame names a bad player count or seed."""
    expect_status(BAD, lambda: client.new_game(players=5), "num_players", "1..4")
    expect_status(BAD, lambda: client.new_game(seed=2**63), "seed")


def test_token_required(demo: engine.GameState) -> None:
    """With a token configured, calls without it or with a wrong one are
    UNAUTHENTICATED; with it they work; health checks need none."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    with running_server(workers=1, token="s3cret") as server:
        address = f"localhost:{server.port}"
        for token in (None, "wrong", "s3cret "):
            with HintClient(address, token=token) as c:
                expect_status(grpc.StatusCode.UNAUTHENTICATED, lambda: c.new_game(),
                              "authorization")
                expect_status(grpc.StatusCode.UNAUTHENTICATED,
                              lambda: c.analyze_stream(hint_request(demo, bot="greedy")),
                              "authorization")
                health = health_pb2_grpc.HealthStub(c.channel)
                assert health.Check(health_pb2.HealthCheckRequest()).status == \
                    health_pb2.HealthCheckResponse.SERVING
        with HintClient(address, token="s3cret") as c:
            assert c.new_game().state.num_players == 2
            assert list(c.analyze_stream(hint_request(demo, bot="greedy")))[-1].final


def test_live_game_without_a_turn_left_is_named(client: HintClient) -> None:
    """A new game with its end triggered and 0 turns left (R-END-1: a live game has at
    least its current turn left) is INVALID_ARGUMENT naming state.game_end.turns_left for
    LegalActions, ApplyAction and hints, never INTERNAL."""
    state = client.new_game(players=2, seed=1).state
    state.game_end.triggered = True
    fragments = ("state.game_end.turns_left", "is 0 but the game is not over")
    expect_status(BAD, lambda: client.legal_actions(state), *fragments)
    expect_status(BAD, lambda: client.apply_action(state, action=0), *fragments)
    expect_status(BAD, lambda: client.suggest(hint_request(state, bot="greedy")), *fragments)


def test_apply_action_with_the_end_triggered_is_never_internal(client: HintClient) -> None:
    """The end triggered at several points of a game with every turn count 0..2n-1, then
    the first legal action applied each step: 0 turns left is INVALID_ARGUMENT naming
    game_end.turns_left, any other count plays to the final scoring; never INTERNAL."""
    start = client.new_game(players=2, seed=1).state
    for ply in (0, 7, 30):
        for turns_left in range(4):
            state = type(start)()
            state.CopyFrom(start)
            for _ in range(ply):
                state = client.apply_action(
                    state, action=client.legal_actions(state).actions[0].action).state
            state.game_end.triggered, state.game_end.turns_left = True, turns_left
            for _ in range(200):
                try:
                    actions = client.legal_actions(state).actions
                    if not actions:
                        break
                    state = client.apply_action(state, action=actions[0].action).state
                except grpc.RpcError as e:
                    where = f"ply {ply}, turns_left {turns_left}: {e.code().name}: {e.details()}"
                    assert turns_left == 0 and e.code() == BAD, where
                    assert "game_end.turns_left" in (e.details() or ""), where
                    break
            else:
                raise AssertionError(f"ply {ply}, turns_left {turns_left}: no end in 200 steps")
            assert state.game_end.over or turns_left == 0, (ply, turns_left)
