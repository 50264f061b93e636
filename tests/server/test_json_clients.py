"""The schema as clients in other languages see it: JSON names, renamed fields.

protobufjs (under @grpc/proto-loader) names a field by its own camelCase of the proto name,
which leaves an underscore before a digit alone, while protobuf's JSON mapping drops it:
where the two differ, a JSON state is silently stripped by a JavaScript client.
"""
from __future__ import annotations

import json
import re
from typing import Any

import grpc
import pytest

from gallerist import engine
from gallerist.server import GalleristServer
from gallerist.v1 import hints_pb2, state_pb2


def _protobufjs_name(name: str) -> str:
    """protobufjs's util.camelCase: an underscore before a lower-case letter goes."""
    return name[:1] + re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name[1:])


def _fields(file: object) -> list[tuple[str, str, str]]:
    out = []
    todo = list(file.message_types_by_name.values())  # type: ignore[attr-defined]
    while todo:
        message = todo.pop()
        todo.extend(message.nested_types)
        out += [(message.full_name, f.name, f.json_name) for f in message.fields]
    return out


@pytest.mark.parametrize("file", [state_pb2.DESCRIPTOR, hints_pb2.DESCRIPTOR],
                         ids=["state.proto", "hints.proto"])
def test_json_name_is_the_name_protobufjs_uses(file: object) -> None:
    """Every field's JSON name (protobuf's JSON mapping, what `gallerist new` writes) is
    the name protobufjs gives it, so a JavaScript client keeps every field of a state."""
    fields = _fields(file)
    assert fields
    differ = [(m, name, js) for m, name, js in fields if _protobufjs_name(name) != js]
    assert differ == []


def _with_old_level_names(text: str, key: str = "promotionTokens") -> str:
    obj = json.loads(text)
    tokens = obj.pop("promotionTokens")
    obj[key] = {f"level_{k[-1]}": v for k, v in tokens.items()}
    return json.dumps(obj)


def test_old_promotion_token_names_still_read() -> None:
    """A state saved with PromotionTokens' old field names level_1..level_5 (the proto
    field names before the rename) reads to the same state."""
    state = engine.new_game(2, seed=4)
    state.apply(state.legal_actions()[0])
    text = state.to_json()
    assert '"level1":' in text and "level_" not in text
    for key in ("promotionTokens", "promotion_tokens"):
        old = _with_old_level_names(text, key)
        assert '"level_5":' in old
        assert engine.GameState.from_json(old).to_json() == text


def test_old_and_new_promotion_token_name_together_is_refused() -> None:
    """level_1 and level1 in one object are the same field given twice: refused."""
    obj = json.loads(engine.new_game(2, seed=4).to_json())
    obj["promotionTokens"]["level_1"] = 4
    with pytest.raises(engine.InvalidStateError, match="duplicate key 'level_1'"):
        engine.GameState.from_json(json.dumps(obj))


def test_bad_value_under_an_old_name_names_the_field() -> None:
    """A wrong count under an old name is reported under the field's name."""
    obj = json.loads(_with_old_level_names(engine.new_game(2, seed=4).to_json()))
    obj["promotionTokens"]["level_2"] = 3
    with pytest.raises(engine.InvalidStateError, match=r"^promotion_tokens\.level2: 3 in the"):
        engine.GameState.from_json(json.dumps(obj))


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def test_apply_action_field_2_is_the_action_on_the_wire(service: GalleristServer,
                                                         demo: engine.GameState) -> None:
    """ApplyActionRequest.action kept field number 2 of the former action_id: a client
    built on the old name (its bytes written here by hand) still plays its move."""
    action = demo.legal_actions()[0]
    state = demo.to_proto().SerializeToString()
    raw = b"\x0a" + _varint(len(state)) + state + b"\x10" + _varint(action)
    with grpc.insecure_channel(f"localhost:{service.port}") as channel:
        call: Any = channel.unary_unary(
            "/gallerist.v1.GalleristAI/ApplyAction",
            response_deserializer=hints_pb2.ApplyActionResponse.FromString)
        response = call(raw, timeout=10)
    assert response.action == action
    assert response.notation == demo.action_to_string(action)
    assert list(response.state.history) == [*demo.to_proto().history, action]

