"""The compiled writer (engine/_fastwrite.pyx) against the reference writer (serialize.py).

`state_to_proto` parses the compiled writer's wire bytes with protobuf. The message must
equal, field for field (presence of optional fields and submessages included), the one
the reference writer builds, on every kind of position; and a value the schema cannot
hold must still fail as the reference fails.
"""
from __future__ import annotations

import pytest
from test_serialize import GAMES, _game

from engine import serialize as S
from engine._fastwrite import encode
from engine.state import GameState
from proto.gallerist.v1 import state_pb2 as pb


@pytest.mark.parametrize("num_players,seed", GAMES)
def test_messages_equal_the_reference(num_players, seed):
    """Every sampled position of seeded random games (solo and 2-4 players, setup to the
    end) and each player's view: the same message as the reference writer, the same
    canonical bytes, and it reads back to the same state."""
    for state in _game(num_players, seed):
        for s in [state] + [state.view(p) for p in range(num_players)]:
            data = encode(s)
            assert data is not None
            fast, ref = pb.GameState.FromString(data), S._write_reference(s)
            assert fast == ref
            for field in ("turn", "game_end", "intermediate_scoring", "kicked_out", "lacerda",
                          "promotion_tokens", "bag", "plaza"):
                assert fast.HasField(field) == ref.HasField(field), field
            assert (fast.SerializeToString(deterministic=True)
                    == ref.SerializeToString(deterministic=True))
            assert S.state_to_proto(s) == ref
            back = GameState.from_proto(fast)
            assert back.state_bytes() == s.state_bytes() and back.history == s.history


def test_long_history_and_json_text():
    """A whole game's history (lengths beyond one varint byte), and the canonical JSON
    text, which is made from the message, are unchanged."""
    end = _game(4, 13)[-1]
    assert len(end.history) > 400
    assert pb.GameState.FromString(encode(end)).history == end.history
    ref = S._write_reference(end)
    assert S.state_to_json(end) == S.json.dumps(
        S.json_format.MessageToDict(ref, always_print_fields_with_no_presence=True),
        sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def test_values_the_schema_cannot_hold_fail_as_before():
    """A negative number in an unsigned field (the engine never makes one): the compiled
    writer declines and the reference writer raises, as it always did."""
    raw = _game(2, 11)[3]._raw()
    raw["players"][0]["money"] = -1
    state = GameState._from_raw(raw)
    assert encode(state) is None
    with pytest.raises(ValueError):
        S.state_to_proto(state)


def test_schema_version_matches():
    """The compiled writer's schema version is serialize.py's."""
    assert pb.GameState.FromString(encode(_game(2, 12)[0])).schema_version == S.SCHEMA_VERSION
