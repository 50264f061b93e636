"""The external form of a game state (proto/gallerist/v1/state.proto): protobuf and JSON.

`state_to_proto` / `state_to_json` / `state_to_dict` write a `GameState` in the schema's
terms (named fields, enums, explicit "none"); `state_from_proto` / `state_from_json` read
one back. The round trip is exact: `state_bytes()` and the JSON text are unchanged.

The codec itself is compiled: engine/_writer.pyx writes the message's wire bytes from
the engine struct, and engine/_reader.pyx checks a message (ranges, the consistency
rules, the engine's own invariants) and reads it into the struct. This module adds the
JSON text form (protobuf's canonical JSON mapping) and its parse errors.

Every rejection is an `engine.InvalidStateError` whose message starts with the path of
the offending field in the schema's field names, e.g.
``players[1].exhibited_works[2]: 9 is outside 0..7 (artist slot)``. JSON clients see
the same fields in lowerCamelCase (protobuf's JSON mapping).
"""
from __future__ import annotations

import json
import re
from typing import Any

from google.protobuf import json_format

from gallerist.engine._reader import SCHEMA_VERSION, read_state
from gallerist.engine._writer import write_state
from gallerist.engine.errors import InvalidStateError
from gallerist.engine.json_fields import check_json_fields
from gallerist.engine.state import LACERDA, GameState
from gallerist.v1 import state_pb2 as pb

__all__ = ["LACERDA", "SCHEMA_VERSION", "InvalidStateError", "state_from_json",
           "state_from_proto", "state_to_dict", "state_to_json", "state_to_proto"]

#: Longest JSON text accepted: a full game's history is ~0.3 MB, so this only stops abuse.
MAX_JSON_CHARS = 4 * 1024 * 1024


def state_to_proto(state: GameState) -> pb.GameState:
    """The state in the external schema (history included).

    Args:
        state: any engine state (a full state or a player's view).

    Returns:
        A `gallerist.v1.GameState` message.
    """
    return pb.GameState.FromString(write_state(state))


def state_to_dict(state: GameState) -> dict[str, Any]:
    """The state as the JSON object of `state_to_json` (lowerCamelCase keys, every field)."""
    return json_format.MessageToDict(state_to_proto(state),
                                     always_print_fields_with_no_presence=True)


def state_to_json(state: GameState) -> str:
    """The state as canonical JSON text: protobuf's JSON mapping, every field present
    (default values included; an absent optional field means "none"), keys sorted, no
    whitespace. The same state always gives the same text."""
    return json.dumps(state_to_dict(state), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True)


def state_from_json(text: str | bytes | bytearray) -> GameState:
    """Read and validate a state written by `state_to_json` (or by a client).

    Args:
        text: JSON text in the schema's JSON mapping (lowerCamelCase or proto field
            names; enums by name or number).

    Returns:
        The validated state (history included when given).

    Raises:
        InvalidStateError: for any input that is not a valid state, naming the field
            and the problem. No other exception escapes.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidStateError(f"JSON text is not valid UTF-8: {exc}") from None
    if not isinstance(text, str):
        raise InvalidStateError(f"expected JSON text (str or bytes), got {type(text).__name__}")
    if len(text) > MAX_JSON_CHARS:
        raise InvalidStateError(f"JSON text of {len(text)} characters is longer than the "
                                f"{MAX_JSON_CHARS} accepted")
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except RecursionError:
        raise InvalidStateError("JSON text is nested too deeply") from None
    except (ValueError, TypeError) as exc:
        raise InvalidStateError(f"not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise InvalidStateError(f"JSON text must hold an object, got {type(obj).__name__}")
    _rename_old_fields(obj)
    check_json_fields(obj, pb.GameState.DESCRIPTOR)
    msg = pb.GameState()
    try:
        json_format.ParseDict(obj, msg)
    except RecursionError:
        raise InvalidStateError("JSON text is nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - the parser's error types are not a contract
        raise InvalidStateError(_parse_error_text(exc)) from None
    return state_from_proto(msg)


def state_from_proto(msg: pb.GameState) -> GameState:
    """Validate a `gallerist.v1.GameState` message and build the engine state from it.

    Raises:
        InvalidStateError: for any message that is not a valid state, naming the field
            and the problem. No other exception escapes.
    """
    if not isinstance(msg, pb.GameState):
        raise InvalidStateError(
            f"expected a gallerist.v1.GameState message, got {type(msg).__name__}")
    try:
        return read_state(msg)
    except InvalidStateError:
        raise
    except Exception as exc:  # noqa: BLE001 - a bug here must still not crash a server
        raise InvalidStateError(
            f"state could not be validated ({type(exc).__name__}: {exc})") from exc


#: PromotionTokens' fields `level_1`..`level_5` were renamed `level1`..`level5` in
#: state.proto (so that protobufjs's names are protobuf's JSON names); JSON written with
#: the old names still reads.
_OLD_LEVEL_NAMES = {f"level_{n}": f"level{n}" for n in range(1, 6)}


def _rename_old_fields(obj: dict[str, Any]) -> None:
    """Rename, in place, the promotion token fields spelled the old way."""
    for key in ("promotionTokens", "promotion_tokens"):
        tokens = obj.get(key)
        if isinstance(tokens, dict):
            for old in _OLD_LEVEL_NAMES.keys() & tokens.keys():
                tokens[_OLD_LEVEL_NAMES[old]] = tokens.pop(old)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object hook rejecting a key given twice, also under its two spellings
    (proto name and lowerCamelCase), which the parser would silently merge."""
    out: dict[str, Any] = {}
    spellings: dict[str, str] = {}
    for key, value in pairs:
        norm = key.replace("_", "").lower()
        if norm in spellings:
            raise ValueError(f"duplicate key {key!r} (the same field as {spellings[norm]!r})")
        spellings[norm] = key
        out[key] = value
    return out


_PARSE_STEP = re.compile(r"Failed to parse (\w+) field: ", re.S)
_PARSE_AT = re.compile(r"\s+at \"?GameState\.?([\w.\[\]]*?)\.*\"?\.*(?=\s|$)")
_PARSE_UNKNOWN = re.compile(r"has no field named \"([^\"]*)\"")


def _parse_error_text(exc: Exception) -> str:
    """json_format's message, reshaped to start with the field path."""
    text = str(exc)
    names = []
    while (m := _PARSE_STEP.match(text)) is not None:
        names.append(m.group(1))
        text = text[m.end():]
    text = text.split(" Available Fields", 1)[0]   # drop the schema dump
    at = _PARSE_AT.search(text)
    path = at.group(1) if at and at.group(1) else ".".join(names)
    if at:
        text = text[:at.start()] + text[at.end():]
    unknown = _PARSE_UNKNOWN.search(text)
    if unknown:
        path = f"{path}.{unknown.group(1)}" if path else unknown.group(1)
        text = "unknown field"
    text = " ".join(text.split()).rstrip(".")
    return f"{path or 'GameState'}: {text}"
