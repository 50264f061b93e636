"""The compiled state reader (engine/_reader.pyx), `state_from_proto`'s only reader.

Every valid position reads back byte-identical (history included); every broken one is
rejected with an InvalidStateError that starts with a field path. The fuzz corpora of
test_serialize (random JSON mutations, proto fields set to any value of their type,
pending tasks of every kind) check that a mutation is either rejected so, or accepted
and then round-trips to identical bytes and passes the engine's invariants; never a
crash, never the catch-all message.
"""
from __future__ import annotations

import random
import re

import pytest
from test_serialize import (
    CORPUS,
    GAMES,
    _base,
    _fuzz_pool,
    _game,
    _golden,
    _json_mutants,
    _mutate_proto,
    _stack_mutation,
)

from gallerist import engine
from gallerist.engine import serialize as S
from gallerist.engine._reader import read_state
from gallerist.engine.errors import InvalidStateError
from gallerist.v1 import state_pb2 as pb

#: A field path of the schema (``players[0].money``, ``tasks[3].a``, ``state``, or the
#: component totals' ``bag|plaza|...vip``), then the problem.
FIELD_PATH = re.compile(r"^[a-z_0-9]+(\[\d+\])?([.|][a-z_0-9]+(\[\]|\[\d+\])?)*: \S")


def _verdict(msg: pb.GameState, context: object) -> bool:
    """Read a (mutated) message: False if rejected naming a field, True if accepted,
    round-tripping to identical bytes and passing the engine's invariants."""
    try:
        state = read_state(msg)
    except InvalidStateError as exc:
        assert FIELD_PATH.match(str(exc)), (context, str(exc))
        return False
    assert state._invariant_code() == 0, context
    back = read_state(state.to_proto())
    assert back.state_bytes() == state.state_bytes() and back.history == state.history, context
    assert (state.to_proto().SerializeToString(deterministic=True)
            == back.to_proto().SerializeToString(deterministic=True)), context
    return True


@pytest.mark.parametrize("num_players,seed", GAMES)
def test_valid_positions_read_identically(num_players, seed):
    """Every sampled position of seeded random games (solo and 2-4 players, setup to
    the end), and each player's view of it, reads back with its exact bytes and history."""
    for state in _game(num_players, seed):
        for s in [state] + [state.view(p) for p in range(num_players)]:
            got = read_state(s.to_proto())
            assert got.state_bytes() == s.state_bytes(), s.to_json()[:200]
            assert got.history == s.history


def test_recorded_states_read_back():
    """The recorded states of tests/data/codec_golden.json (a rich decision, a finished
    4-player game, a solo view, a chance event) read and write back to the same text."""
    for name, text in _golden()["states"].items():
        assert engine.GameState.from_json(text).to_json() == text, name


@pytest.mark.parametrize("name,mutate,needle", CORPUS, ids=[c[0] for c in CORPUS])
def test_broken_states_are_rejected_as_messages(name, mutate, needle):
    """Each hand-made broken state of test_serialize's corpus, sent as a message (not
    JSON), is rejected with the recorded message."""
    d = _base()
    mutate(d)
    msg = pb.GameState()
    try:
        S.json_format.ParseDict(d, msg)
    except Exception:  # noqa: BLE001 - not expressible as a message: JSON-only case
        return
    with pytest.raises(InvalidStateError) as info:
        engine.GameState.from_proto(msg)
    assert str(info.value) == _golden()["messages"][name]


def test_json_mutations_are_rejected_or_round_trip():
    """Random mutations of JSON states (values of every type, deleted keys, list
    elements duplicated or dropped) that still parse as messages."""
    rng = random.Random(5)
    accepted = compared = 0
    for case, d in _json_mutants(rng, 1500, [1, 1, 2]):
        msg = pb.GameState()
        try:
            S.json_format.ParseDict(d, msg)
        except Exception:  # noqa: BLE001 - rejected before the reader runs
            continue
        compared += 1
        accepted += _verdict(msg, case)
    assert compared > 500 and accepted > 50, (compared, accepted)


def test_proto_mutations_are_rejected_or_round_trip():
    """Any scalar of any message set to any value of its proto type (what a gRPC
    client can send), or an optional field cleared."""
    rng = random.Random(11)
    pool = [engine.GameState.from_json(t).to_proto() for t in _fuzz_pool()]
    ints = [0, 1, 2, 3, 4, 5, 6, 7, 8, 19, 20, 21, 31, 35, 36, 49, 127, 128, 255, 2 ** 31 - 1]
    accepted = 0
    for case in range(3000):
        msg = pb.GameState()
        msg.CopyFrom(rng.choice(pool))
        for _ in range(rng.choice([1, 1, 2])):
            _mutate_proto(msg, rng, ints)
        accepted += _verdict(msg, case)
    assert accepted > 100, accepted


def test_task_stack_mutations_are_rejected_or_round_trip():
    """Tasks of every kind with in-range arguments put on top, in place of the top or
    anywhere in real stacks (the consistency rules of the stack)."""
    rng = random.Random(13)
    pool = [s.to_proto() for t in _fuzz_pool()
            if not (s := engine.GameState.from_json(t)).is_terminal()]
    accepted = 0
    for case in range(3000):
        accepted += _verdict(_stack_mutation(rng.choice(pool), rng), case)
    assert accepted > 100, accepted


def test_history_limits():
    """The history is checked element by element (the index is named) and in length."""
    state = _game(2, 11)[5]
    msg = state.to_proto()
    msg.history.append(engine.NUM_DISTINCT_ACTIONS)
    with pytest.raises(InvalidStateError, match=rf"^history\[{len(state.history)}\]: "
                       rf"{engine.NUM_DISTINCT_ACTIONS} is outside 0\.\.182 \(action\)$"):
        read_state(msg)
    msg.history[:] = [0] * (engine.MAX_GAME_LENGTH + 1)
    with pytest.raises(InvalidStateError, match=r"^history: has \d+ entries, expected 0\.\.\d+$"):
        read_state(msg)
