"""The compiled reader (engine/_fastread.pyx) against the reference reader (serialize.py).

`state_from_proto` trusts the compiled reader's "valid" and asks the reference reader
only for the message of a rejection. So the two must accept exactly the same messages
(a state the reference rejects must never reach the engine through the fast path), and
an accepted state must be byte-identical (history included) to the reference's. These
tests compare them on every kind of valid position and on the fuzz corpora of
test_serialize: random JSON mutations, proto fields set to any value of their type, and
pending tasks of every kind.
"""
from __future__ import annotations

import random

import pytest
from test_serialize import (
    CORPUS,
    GAMES,
    _base,
    _fuzz_pool,
    _game,
    _json_mutants,
    _mutate_proto,
    _stack_mutation,
)

import engine
from engine import serialize as S
from engine.errors import InvalidStateError
from proto.gallerist.v1 import state_pb2 as pb

READER = S._FAST_READER


def _reference(msg: pb.GameState) -> engine.GameState | None:
    try:
        return S._read_reference(msg)
    except InvalidStateError:
        return None


def _agree(msg: pb.GameState, context: object) -> bool:
    """Both readers give the same verdict and, on acceptance, the same state. Returns
    whether the message was accepted."""
    fast, ref = READER.read(msg), _reference(msg)
    assert (fast is None) == (ref is None), (context, "fast" if fast else "reference",
                                             "accepted alone")
    if fast is None or ref is None:
        return False
    assert fast.state_bytes() == ref.state_bytes(), context
    assert fast.history == ref.history, context
    return True


@pytest.mark.parametrize("num_players,seed", GAMES)
def test_valid_positions_read_identically(num_players, seed):
    """Every sampled position of seeded random games (solo and 2-4 players, setup to
    the end), and each player's view of it, is accepted by the compiled reader with the
    reference's exact bytes and history."""
    for state in _game(num_players, seed):
        for s in [state] + [state.view(p) for p in range(num_players)]:
            msg = s.to_proto()
            got = READER.read(msg)
            assert got is not None, s.to_json()[:200]
            assert got.state_bytes() == s.state_bytes()
            assert got.history == s.history
            assert _agree(msg, "valid")


@pytest.mark.parametrize("name,mutate,needle", CORPUS, ids=[c[0] for c in CORPUS])
def test_broken_states_are_rejected_by_both(name, mutate, needle):
    """Each hand-made broken state of test_serialize's corpus (one rule or range each)
    is rejected by the compiled reader too, and from_proto still names the field."""
    d = _base()
    mutate(d)
    msg = pb.GameState()
    try:
        S.json_format.ParseDict(d, msg)
    except Exception:  # noqa: BLE001 - not expressible as a message: JSON-only case
        return
    assert READER.read(msg) is None, name
    with pytest.raises(InvalidStateError):
        engine.GameState.from_proto(msg)


def test_json_mutations_agree():
    """Random mutations of JSON states (values of every type, deleted keys, list
    elements duplicated or dropped) that still parse as messages: same verdict."""
    rng = random.Random(5)
    accepted = compared = 0
    for case, d in _json_mutants(rng, 1500, [1, 1, 2]):
        msg = pb.GameState()
        try:
            S.json_format.ParseDict(d, msg)
        except Exception:  # noqa: BLE001 - rejected before any reader runs
            continue
        compared += 1
        accepted += _agree(msg, case)
    assert compared > 500 and accepted > 50, (compared, accepted)


def test_proto_mutations_agree():
    """Any scalar of any message set to any value of its proto type (what a gRPC
    client can send), or an optional field cleared: same verdict."""
    rng = random.Random(11)
    pool = [engine.GameState.from_json(t).to_proto() for t in _fuzz_pool()]
    ints = [0, 1, 2, 3, 4, 5, 6, 7, 8, 19, 20, 21, 31, 35, 36, 49, 127, 128, 255, 2 ** 31 - 1]
    accepted = 0
    for case in range(3000):
        msg = pb.GameState()
        msg.CopyFrom(rng.choice(pool))
        for _ in range(rng.choice([1, 1, 2])):
            _mutate_proto(msg, rng, ints)
        accepted += _agree(msg, case)
    assert accepted > 100, accepted


def test_task_stack_mutations_agree():
    """Tasks of every kind with in-range arguments put on top, in place of the top or
    anywhere in real stacks (the consistency rules of the stack): same verdict."""
    rng = random.Random(13)
    pool = [s.to_proto() for t in _fuzz_pool()
            if not (s := engine.GameState.from_json(t)).is_terminal()]
    accepted = 0
    for case in range(3000):
        accepted += _agree(_stack_mutation(rng.choice(pool), rng), case)
    assert accepted > 100, accepted


def test_reader_is_built_from_the_serialize_table():
    """The compiled reader takes its task table from serialize.py (one source): every
    accepted kind, its player rule and argument ranges."""
    table = {k: (k not in S._NO_PLAYER_KINDS, S._ARG_RANGES.get(S._KIND_NAME[k], (None,) * 3))
             for k in S._ACCEPTED_KINDS}
    with pytest.raises(ValueError, match="task kind"):
        type(READER)(S.SCHEMA_VERSION, 10, 10, {99: (True, (None, None, None))})
    strict = type(READER)(S.SCHEMA_VERSION, 0, engine.NUM_DISTINCT_ACTIONS, table)
    state = _game(2, 11)[5]
    assert state.history and strict.read(state.to_proto()) is None   # max_history = 0
    assert READER.read(state.to_proto()) is not None
