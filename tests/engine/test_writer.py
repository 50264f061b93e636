"""The compiled state writer (engine/_writer.pyx), `state_to_proto`'s only writer.

`state_to_proto` parses the writer's wire bytes with protobuf. They must be protobuf's
own canonical encoding of the message (fields in order, packed numbers, zeros left out,
optional fields and submessages present as the schema says), read back to the same
state, and give the recorded JSON texts of tests/data/codec_golden.json.
"""
from __future__ import annotations

import json

import pytest
from test_serialize import GAMES, _base_json, _game, _golden

from gallerist.engine import serialize as S
from gallerist.engine._writer import write_state
from gallerist.engine.state import GameState
from gallerist.v1 import state_pb2 as pb


@pytest.mark.parametrize("num_players,seed", GAMES)
def test_bytes_are_canonical_and_read_back(num_players, seed):
    """Every sampled position of seeded random games (solo and 2-4 players, setup to the
    end) and each player's view: canonical bytes, every submessage present, and it reads
    back to the same state."""
    for state in _game(num_players, seed):
        for s in [state] + [state.view(p) for p in range(num_players)]:
            data = write_state(s)
            msg = pb.GameState.FromString(data)
            assert msg.SerializeToString(deterministic=True) == data
            for field in ("turn", "game_end", "intermediate_scoring", "kicked_out", "lacerda",
                          "promotion_tokens", "bag", "plaza", "box_office", "ticket_discards"):
                assert msg.HasField(field), field
            assert all(p.HasField("final_score") and p.HasField("assistants")
                       for p in msg.players)
            assert len(msg.market) == 21 and len(msg.artists) == 8
            assert S.state_to_proto(s) == msg
            back = GameState.from_proto(msg)
            assert back.state_bytes() == s.state_bytes() and back.history == s.history


def test_recorded_json_texts():
    """The recorded positions (a rich 3-player decision, a finished 4-player game, a
    solo view, a chance event) are written as the recorded canonical JSON texts."""
    golden = _golden()["states"]
    assert golden["rich 3-player decision"] == _base_json()
    assert golden["4-player game over"] == _game(4, 13)[-1].to_json()
    assert golden["solo mid-game, player 0's view"] == _game(1, 12)[12].view(0).to_json()
    chance = next(s for s in _game(2, 11) if s.is_chance())
    assert golden["2-player chance event"] == chance.to_json()


def test_long_history_and_json_text():
    """A whole game's history (lengths beyond one varint byte), and the canonical JSON
    text, which is made from the message, are unchanged."""
    end = _game(4, 13)[-1]
    assert len(end.history) > 400
    msg = pb.GameState.FromString(write_state(end))
    assert msg.history == end.history
    assert S.state_to_json(end) == json.dumps(
        S.json_format.MessageToDict(msg, always_print_fields_with_no_presence=True),
        sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def test_values_the_schema_cannot_hold_fail():
    """A negative number in an unsigned field (the engine never makes one) is a
    ValueError, as it always was."""
    raw = _game(2, 11)[3]._raw()
    raw["players"][0]["money"] = -1
    state = GameState._from_raw(raw)
    with pytest.raises(ValueError, match="negative"):
        write_state(state)
    with pytest.raises(ValueError):
        S.state_to_proto(state)


def test_schema_version_matches():
    """The writer's schema version is the one the reader requires."""
    assert pb.GameState.FromString(write_state(_game(2, 12)[0])).schema_version == S.SCHEMA_VERSION
