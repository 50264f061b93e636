"""The JSON of a state checked field by field against the schema before protobuf reads it,
so that a wrong value is named by its full path with list indices (``players[0].money``)
and the problem in words (``expected a whole number, got 'banana'``). What passes here is
then read by protobuf's JSON mapping, which stays the authority."""
from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from gallerist.engine.errors import InvalidStateError

__all__ = ["check_json_fields"]

_F = FieldDescriptor
#: The integer types: (lowest, highest).
_RANGES = {
    _F.TYPE_INT32: (-(1 << 31), (1 << 31) - 1), _F.TYPE_SINT32: (-(1 << 31), (1 << 31) - 1),
    _F.TYPE_SFIXED32: (-(1 << 31), (1 << 31) - 1), _F.TYPE_UINT32: (0, (1 << 32) - 1),
    _F.TYPE_FIXED32: (0, (1 << 32) - 1), _F.TYPE_INT64: (-(1 << 63), (1 << 63) - 1),
    _F.TYPE_SINT64: (-(1 << 63), (1 << 63) - 1), _F.TYPE_SFIXED64: (-(1 << 63), (1 << 63) - 1),
    _F.TYPE_UINT64: (0, (1 << 64) - 1), _F.TYPE_FIXED64: (0, (1 << 64) - 1),
}


def check_json_fields(obj: dict[str, Any], descriptor: Descriptor, path: str = "") -> None:
    """Check every field of the JSON object `obj` against the message `descriptor`.

    Raises:
        InvalidStateError: "<path>: <problem>", e.g. "players[0].money: expected a whole
            number, got 'banana'".
    """
    by_name = {f.json_name: f for f in descriptor.fields} | {f.name: f for f in descriptor.fields}
    for key, value in obj.items():
        where = f"{path}.{key}" if path else key
        field = by_name.get(key)
        if field is None:
            raise InvalidStateError(f"{where}: unknown field")
        if value is None:
            continue   # protobuf's JSON mapping: null is the field's default
        if _repeated(field):
            if not isinstance(value, list):
                raise InvalidStateError(f"{where}: expected a list, got {_shown(value)}")
            for i, item in enumerate(value):
                if item is None:
                    raise InvalidStateError(f"{where}[{i}]: null is not allowed in a list")
                _check_value(item, field, f"{where}[{i}]")
        else:
            _check_value(value, field, where)


def _repeated(field: FieldDescriptor) -> bool:
    if hasattr(field, "is_repeated"):   # protobuf 5.28 and later
        return bool(field.is_repeated)
    return field.label == _F.LABEL_REPEATED


def _check_value(value: Any, field: FieldDescriptor, where: str) -> None:
    kind = field.type
    if kind == _F.TYPE_MESSAGE:
        if not isinstance(value, dict):
            raise InvalidStateError(f"{where}: expected an object, got {_shown(value)}")
        check_json_fields(value, field.message_type, where)
    elif kind in _RANGES:
        number = _whole_number(value)
        if number is None:
            raise InvalidStateError(f"{where}: expected a whole number, got {_shown(value)}")
        low, high = _RANGES[kind]
        if not low <= number <= high:
            raise InvalidStateError(f"{where}: {number} is out of range (expected a whole "
                                    f"number from {low} to {high})")
    elif kind == _F.TYPE_BOOL:
        if not isinstance(value, bool):
            raise InvalidStateError(f"{where}: expected true or false, got {_shown(value)}")
    elif kind == _F.TYPE_ENUM:
        names = [v.name for v in field.enum_type.values]
        expected = (f"one of {', '.join(names)}" if len(names) <= 8 else
                    f"a {field.enum_type.name} name or number")
        if isinstance(value, str) and _whole_number(value) is None:
            if value not in names:
                raise InvalidStateError(f"{where}: unknown value {value!r} (expected {expected})")
        elif _whole_number(value) is None:   # a number's meaning is the reader's to check
            raise InvalidStateError(f"{where}: expected {expected}, got {_shown(value)}")
    elif kind == _F.TYPE_STRING and not isinstance(value, str):
        raise InvalidStateError(f"{where}: expected a string, got {_shown(value)}")


def _whole_number(value: Any) -> int | None:
    """`value` as an integer where protobuf's JSON mapping reads it as one, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _shown(value: Any) -> str:
    """A value as a message shows it: short, with its JSON type when not a scalar."""
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    if isinstance(value, float) and not value == value:
        return "NaN"
    if isinstance(value, float) and abs(value) == float("inf"):
        return "infinity" if value > 0 else "-infinity"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
