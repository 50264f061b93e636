"""The external form of a game state (proto/gallerist/v1/state.proto) and its validation.

`state_to_proto` / `state_to_json` / `state_to_dict` write a `GameState` in the schema's
terms (named fields, enums, explicit "none"); `state_from_proto` / `state_from_json` read
one back. The round trip is exact: `state_bytes()` and the JSON text are unchanged.

Reading is security-critical: the C rules code does no bounds checks, so a state from
outside reaches `GameState._from_raw` only after every value has been checked, in three
layers:

1. decoding: every field is present, of the right shape and inside its range (both the
   engine's int8/int16 field and its meaning: an artist slot is 0..7, a seat is below
   num_players, a task argument is what that task kind's code indexes with, ...);
2. consistency: what the rules keep true between fields (pieces on locations agree with
   their owners, every contract and reputation tile is in one place, the task stack has
   the shape the engine builds, the component totals of RULES.md §4, ...);
3. the engine itself: the C invariant check, then the position must offer an action or
   a chance outcome (or be over, with no tasks).

Both directions have a compiled fast path with the same behaviour: `state_from_proto`
first runs engine/_fastread.pyx (the three layers above, typed, straight into the engine
struct, no messages) and uses this module's reader only to say why a message was
rejected; `state_to_proto` parses the wire bytes engine/_fastwrite.pyx writes from the
struct. This module's code is the reference for both: a check or field changed here is
changed there too, and tests/engine/test_fastread.py and test_fastwrite.py compare them.

Every rejection is an `engine.InvalidStateError` whose message starts with the path of
the offending field in the schema's field names, e.g.
``players[1].exhibited_works[2]: 9 is outside 0..7 (artist slot)``. JSON clients see
the same fields in lowerCamelCase (protobuf's JSON mapping).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf import json_format

from engine._fastread import Reader as _FastReader
from engine._fastwrite import encode as encode_state
from engine.errors import InvalidStateError
from engine.state import (
    INVARIANT_NAMES,
    MAX_GAME_LENGTH,
    NUM_DISTINCT_ACTIONS,
    TASK_KINDS,
    GameState,
)
from proto.gallerist.v1 import state_pb2 as pb

__all__ = [
    "SCHEMA_VERSION",
    "state_from_json",
    "state_from_proto",
    "state_to_dict",
    "state_to_json",
    "state_to_proto",
]

#: The version written to and required in `GameState.schema_version`.
SCHEMA_VERSION = 1
#: Longest JSON text accepted: a full game's history is ~0.3 MB, so this only stops abuse.
MAX_JSON_CHARS = 4 * 1024 * 1024

# ---------------------------------------------------------------- engine numbers
# Mirrors of engine/data.h and engine/_core.pxd, used for the checks that need them.
# tests/engine/test_serialize.py checks them against the engine's own behaviour.
MAX_TASKS = 32
MAX_PILE = 20
NUM_CONTRACTS = 20
NUM_REP_TILES = 20
MAX_MONEY = 9999            # far above any reachable amount; leaves int16 headroom
MAX_SCORE = 9999
INFLUENCE_MAX = 35
FAME_MAX = 19
MAX_TURNS_PER_PLAYER = 60   # _core.pxd: the game-length safety net
GAL_HOME, GAL_KO = 4, 5
PIECE_GALLERIST, PIECE_ASSISTANT = 0, 1
CS_FACE_UP = 0
COLLECTOR = 2
VISITORS_TOTAL = {1: (10, 10, 8), 2: (10, 10, 8), 3: (12, 12, 10), 4: (14, 14, 12)}  # C§1
TICKETS_PER_COLOUR = {1: 10, 2: 10, 3: 15, 4: 20}                            # C§1
EASELS = {1: 1, 2: 1, 3: 2, 4: 3}                                            # C§13
LACERDA = 4                  # _core.pxd: the owner id of Lacerda's pieces (solo)
LACERDA_ASSISTANTS = 10      # RN §10: her assistants (supply + board)
ASSISTANTS_PER_PLAYER = 10
ARTIST_BONUS_COUNT = 2       # C§3: two tiles of each bonus kind
PROMO_TOKENS = 4             # C§8: per level
TILES_PER_FORM_IN_PLAY = 7   # C§5: 8 per form, one set aside
WORK_VISITORS = (1, 1, 1, 1, 2, 2, 2, 2)   # C§5: visitors placed on a top tile, by kind
# C§3 initial fame and printed promotion level, by [form][colour][variant]
ARTIST_FAME0 = (((3, 5), (7, 10)), ((3, 5), (7, 10)), ((1, 4), (5, 8)), ((1, 4), (5, 8)))
ARTIST_PROMO0 = (((0, 1), (2, 3)),) * 4

COLOURS = ("vip", "investor", "collector")
FORMS = ("painting", "sculpture", "photography", "digital")
SCORE_STEPS = ("majorities", "reputation", "exhibition", "auction", "curator", "dealer",
               "influence", "total")

_K = TASK_KINDS
_KIND_NAME = {v: k for k, v in _K.items()}
_CHANCE_KINDS = frozenset((_K["T_CH_VISITOR"], _K["T_CH_TILE"], _K["T_CH_CONTRACT"]))
_AUTO_FIRST = _K["T_AUTO_FIRST"]
# Kinds the engine pushes without a player (-1): chance events and the setup marker.
_NO_PLAYER_KINDS = _CHANCE_KINDS | {_K["T_BEGIN_GAME"]}
# Kinds this schema version accepts: every pushed kind (DISCARD_LARGEST in solo only).
_ACCEPTED_KINDS = frozenset(v for n, v in _K.items() if n != "T_AUTO_FIRST")

Range = tuple[int, int]
# Task arguments (a, b, c) by kind: the range each one's code uses (see resolve, run_auto
# and state_legal_actions in _core.pyx), or None where the engine always pushes 0.
_ARG_RANGES: dict[str, tuple[Range | None, Range | None, Range | None]] = {
    "T_LEAVE": ((0, 3), None, None),              # location left
    "T_LOC_ACTION": ((0, 3), None, None),         # location
    "T_PAY": ((0, 30), (0, 7), None),             # amount, fame steps to keep
    "T_FAME_STEPS": ((0, 7), (0, FAME_MAX), (0, FAME_MAX)),   # artist, fame, min steps
    "T_TICKET_OR": ((0, 2), (0, 2), None),        # two colours
    "T_BOX_DISCARD": ((0, 2), None, None),        # colour that was short
    "T_VISITOR_PLAZA": ((3, 7), None, None),      # allowed-type mask (3 or 7, see below)
    "T_GALLERY_OUT": ((0, 2), None, None),        # contract slot
    "T_ORIENT": ((0, 2), None, None),             # contract slot
    "T_REP_SPACE": ((0, NUM_REP_TILES - 1), None, None),    # reputation tile
    "T_CONTRACT_SLOT": ((0, NUM_CONTRACTS - 1), None, None),  # contract id
    "T_MARKET": ((0, 1), None, None),             # 0 reputation rows, 1 auction rows
    "T_ASSIST_SRC": ((0, 23), None, None),        # market space 0..20, 21 + contract slot
    "T_TICKET_MOVE": ((0, 3 * max(TICKETS_PER_COLOUR.values())), None, None),  # moves made
    "T_CH_VISITOR": ((0, 2), (0, 3), None),       # destination, form or seat
    "T_CH_TILE": ((0, 3), None, None),            # form
    "T_CH_CONTRACT": ((0, 3), None, None),        # pile
    "T_GAIN_TICKET": ((0, 2), None, None),        # colour
    "T_BUY_FINISH": ((0, 7), (0, 7), (0, 1)),     # artist, work tile kind, 3rd slot filled
    "T_GAIN_INFLUENCE": ((0, INFLUENCE_MAX), None, None),
    "T_MARKET_FINISH": ((0, 20), None, None),     # market space
    "T_CONTRACT_BONUS": ((0, 2), None, None),     # contract slot
    "T_REFILL_PILE": ((0, 3), None, None),        # pile
    "T_PROMOTE_FINISH": ((0, 7), None, None),     # artist
    "T_DISCOVER_FINISH": ((0, 7), None, None),    # artist
}
_ARG_NAMES = ("a", "b", "c")
_CD_TILE = 0
_VISITOR_MASKS = (3, 7)    # VIP or investor; any type


# ================================================================ writing


def state_to_proto(state: GameState) -> pb.GameState:
    """The state in the external schema (history included).

    Args:
        state: any engine state (a full state or a player's view).

    Returns:
        A `gallerist.v1.GameState` message.
    """
    data = encode_state(state)
    if data is not None:
        return pb.GameState.FromString(data)
    return _write_reference(state)


def _write_reference(state: GameState) -> pb.GameState:
    """The reference writer: the message built field by field. `state_to_proto` parses
    the compiled writer's bytes instead (engine/_fastwrite.pyx, the same fields; the
    tests compare the two) and comes here only when that one declines."""
    raw = state._raw()
    n = raw["num_players"]
    msg = pb.GameState(
        schema_version=SCHEMA_VERSION,
        num_players=n,
        turn=pb.Turn(player=raw["turn_player"], number=raw["turn_count"],
                     executive_action_used=bool(raw["ea_used"]),
                     consecutive_passes=raw["passes"]),
        game_end=pb.GameEnd(triggered=bool(raw["end_triggered"]),
                            turns_left=raw["turns_left"], over=bool(raw["terminal"])),
        intermediate_scoring=pb.IntermediateScoring(
            pending=bool(raw["intermediate_pending"]), done=bool(raw["intermediate_done"])),
        tasks=[_task_to_proto(t) for t in raw["tasks"]],
        players=[_player_to_proto(i, p) for i, p in enumerate(raw["players"])],
        bag=pb.Visitors(**_by_colour(raw["bag"])),
        plaza=pb.Visitors(**_by_colour(raw["plaza"])),
        box_office=pb.Tickets(**_by_colour(raw["box"])),
        ticket_discards=pb.Tickets(**_by_colour(raw["discards"])),
        locations=[_location_to_proto(raw, L) for L in range(4)],
        kicked_out=pb.KickedOut(owner=_seat(raw["ko_owner"]), piece=_e(raw["ko_kind"] + 1),
                                location=_e(raw["ko_loc"] + 1), acting=bool(raw["ko_active"]),
                                lacerda=raw["ko_owner"] == LACERDA),
        market=[_market_space_to_proto(raw, r, c) for r in range(7) for c in range(3)],
        artists=[_artist_to_proto(raw, a) for a in range(8)],
        promotion_tokens=pb.PromotionTokens(
            **{f"level_{i}": raw["promo_stock"][i] for i in range(1, 6)}),
        work_stacks=[_stack_to_proto(raw, f) for f in range(4)],
        renowned_works=[_e(f + 1) for f in raw["easel"] if f >= 0],
        contract_deck=[c for c in range(NUM_CONTRACTS) if raw["deck_mask"] >> c & 1],
        contract_piles=[pb.ContractPile(cards=raw["pile"][i][:raw["pile_len"][i]])
                        for i in range(4)],
        lacerda=pb.Lacerda(location=_e(raw["lac_loc"] + 1), supply=raw["lac_supply"],
                           move_due=bool(raw["lac_turn"])),
        history=state.history,
    )
    return msg


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


def _e(v: int) -> Any:
    """An enum number for a message constructor (the stubs type enum fields by class)."""
    return v


def _opt(v: int) -> int | None:
    """An engine value where -1 means none, as an optional proto field."""
    return None if v < 0 else v


def _seat(v: int) -> int | None:
    """An owner field: a seat, or none for -1 and for Lacerda (her own flag says so)."""
    return None if v < 0 or v == LACERDA else v


def _by_colour(v: list[int]) -> dict[str, int]:
    return dict(zip(COLOURS, v))


def _by_form(v: list[int]) -> dict[str, int]:
    return dict(zip(FORMS, v))


def _task_to_proto(t: dict[str, int]) -> pb.PendingTask:
    return pb.PendingTask(kind=_e(t["kind"]), player=_opt(t["player"]), a=t["a"], b=t["b"],
                          c=t["c"])


def _player_to_proto(seat: int, p: dict[str, Any]) -> pb.Player:
    score = p["score"]
    auction = p["auction_work"]
    return pb.Player(
        seat=seat, money=p["money"], influence=p["influence"],
        lobby=pb.Visitors(**_by_colour(p["lobby"])),
        gallery=pb.Visitors(**_by_colour(p["gallery"])),
        tickets=pb.Tickets(**_by_colour(p["tickets"])),
        assistants=pb.Assistants(desks=p["desks"], queue=p["queue"], removed=p["removed"]),
        gallerist=_e(p["gallerist"] + 1),
        commission_artist=_opt(p["commission"]),
        exhibited_works=p["works"][:p["nworks"]],
        start_tile=_opt(p["start_tile"]),
        reputation=[pb.ReputationSpace(bonus=_e(i + 1), tile=_opt(t))
                    for i, t in enumerate(p["rep"])],
        works_acquired=pb.FormCounts(**_by_form(p["acquired"])),
        works_sold=pb.FormCounts(**_by_form(p["sold"])),
        contracts=[pb.ContractSlot(contract=_opt(c),
                                   side=_e(0 if c < 0 else p["contract_state"][k] + 1),
                                   assistant=bool(p["contract_asst"][k]))
                   for k, c in enumerate(p["contract"])],
        curator=_e(_card_to_proto(p["curator"])),
        dealer=_e(_card_to_proto(p["dealer"])),
        final_score=pb.FinalScore(
            **dict(zip(SCORE_STEPS, score)),
            auction_work=_e(auction + 1),
            auction_use=_e(0 if auction < 0 else p["auction_as"] + 1)),
    )


def _card_to_proto(card: int) -> int:
    """Curator/Art Dealer card 0..3 -> C1/D1.., -1 (hidden) -> HIDDEN (the same numbers
    in both enums)."""
    return pb.CURATOR_CARD_HIDDEN if card < 0 else card + pb.CURATOR_CARD_C1


def _location_to_proto(raw: dict[str, Any], L: int) -> pb.LocationSpace:
    owner = raw["loc_owner"][L]
    return pb.LocationSpace(location=_e(L + 1), owner=_seat(owner),
                            piece=_e(raw["loc_kind"][L] + 1), start_tile=_opt(raw["loc_tile"][L]),
                            lacerda=owner == LACERDA)


def _market_space_to_proto(raw: dict[str, Any], r: int, c: int) -> pb.MarketSpace:
    tile = raw["mk_tile"][r][c] if r < 4 else -1
    owner = raw["mk_asst"][r][c]
    return pb.MarketSpace(row=_e(r + 1), column=_e(c + 1), reputation_tile=_opt(tile),
                          assistant_owner=_seat(owner), lacerda=owner == LACERDA)


def _artist_to_proto(raw: dict[str, Any], a: int) -> pb.Artist:
    return pb.Artist(slot=a, form=_e((a >> 1) + 1), colour=_e((a & 1) + 1),
                     variant=raw["ar_variant"][a], discovered=bool(raw["ar_discovered"][a]),
                     fame=raw["ar_fame"][a], promotion=raw["ar_promo"][a],
                     signature_tokens=raw["ar_tokens"][a], bonus=_e(raw["ar_bonus"][a] + 1),
                     collector=bool(raw["ar_collector"][a]))


def _stack_to_proto(raw: dict[str, Any], f: int) -> pb.WorkStack:
    mask = raw["stack_mask"][f]
    return pb.WorkStack(form=_e(f + 1), tiles_below=[k for k in range(8) if mask >> k & 1],
                        top_tile=_opt(raw["stack_top"][f]),
                        top_visitors=pb.Visitors(**_by_colour(raw["top_visitors"][f])))


# ================================================================ reading


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
    state = _FAST_READER.read(msg)
    if state is not None:
        return state
    return _read_reference(msg)


def _read_reference(msg: pb.GameState) -> GameState:
    """The reference reader: every check in Python, raising on the first that fails
    with the field's path. `state_from_proto` reaches it only for a message the compiled
    reader (engine/_fastread.pyx, the same checks) rejected, to say why."""
    try:
        raw, history = _decode_state(msg)
        _check_consistency(raw)
        state = GameState._from_raw(raw, history)
        _check_engine(state, raw)
    except InvalidStateError:
        raise
    except Exception as exc:  # noqa: BLE001 - a bug here must still not crash a server
        raise InvalidStateError(
            f"state could not be validated ({type(exc).__name__}: {exc})") from exc
    return state


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
        path = _join(path, unknown.group(1))
        text = "unknown field"
    text = " ".join(text.split()).rstrip(".")
    return f"{path or 'GameState'}: {text}"


# ---------------------------------------------------------------- decoding helpers


def _fail(path: str, problem: str) -> None:
    raise InvalidStateError(f"{path}: {problem}")


def _check(ok: bool, path: str, problem: str) -> None:
    if not ok:
        _fail(path, problem)


def _rng(v: int, path: str, lo: int, hi: int, what: str = "") -> int:
    if not lo <= v <= hi:
        _fail(path, f"{v} is outside {lo}..{hi}" + (f" ({what})" if what else ""))
    return v


def _need(msg: Any, field: str, path: str) -> Any:
    """A singular message field, which the complete form always holds."""
    if not msg.HasField(field):
        _fail(_join(path, field), "missing")
    return getattr(msg, field)


def _opt_in(msg: Any, field: str, path: str, lo: int, hi: int, what: str = "") -> int:
    """An optional scalar: -1 when absent, else checked against lo..hi."""
    if not msg.HasField(field):
        return -1
    return _rng(getattr(msg, field), _join(path, field), lo, hi, what)


def _enum(v: int, path: str, enum: Any, lo: int, hi: int) -> int:
    """An enum value, allowed in lo..hi (by number); returns the number."""
    if not lo <= v <= hi:
        name = enum.Name(v) if v in enum.values() else str(v)
        allowed = ", ".join(enum.Name(i) for i in range(lo, hi + 1))
        _fail(path, f"{name} is not allowed here (expected one of {allowed})")
    return v


def _len(seq: Any, path: str, lo: int, hi: int | None = None) -> None:
    hi = lo if hi is None else hi
    if not lo <= len(seq) <= hi:
        want = str(lo) if lo == hi else f"{lo}..{hi}"
        _fail(path, f"has {len(seq)} entries, expected {want}")


def _join(path: str, field: str) -> str:
    return f"{path}.{field}" if path else field


def _counts(msg: Any, path: str, names: tuple[str, ...], his: tuple[int, ...]) -> list[int]:
    return [_rng(getattr(msg, name), f"{path}.{name}", 0, hi) for name, hi in zip(names, his)]


# ---------------------------------------------------------------- decoding


def _decode_state(msg: pb.GameState) -> tuple[dict[str, Any], list[int]]:
    """Every field checked for shape and range, then turned into the engine's raw dict."""
    _check(msg.schema_version == SCHEMA_VERSION, "schema_version",
           f"{msg.schema_version} is not a supported version (expected {SCHEMA_VERSION})")
    n = msg.num_players
    _rng(n, "num_players", 1, 4)
    turn = _need(msg, "turn", "")
    end = _need(msg, "game_end", "")
    inter = _need(msg, "intermediate_scoring", "")
    ko = _need(msg, "kicked_out", "")
    lac = _need(msg, "lacerda", "")
    visitors = VISITORS_TOTAL[n]
    tickets = (TICKETS_PER_COLOUR[n],) * 3
    _len(msg.tasks, "tasks", 0, MAX_TASKS)
    _len(msg.players, "players", n)
    raw: dict[str, Any] = {
        "num_players": n,
        "turn_player": _rng(turn.player, "turn.player", 0, n - 1, "seat"),
        "ea_used": int(turn.executive_action_used),
        "end_triggered": int(end.triggered),
        "turns_left": _rng(end.turns_left, "game_end.turns_left", 0, 2 * n - 1),
        "intermediate_pending": int(inter.pending),
        "intermediate_done": int(inter.done),
        "terminal": int(end.over),
        "ko_active": int(ko.acting),
        "passes": _rng(turn.consecutive_passes, "turn.consecutive_passes", 0, 4 * n),
        "turn_count": _rng(turn.number, "turn.number", 0, (MAX_TURNS_PER_PLAYER + 2) * n),
        "num_tasks": len(msg.tasks),
        "tasks": [_decode_task(t, f"tasks[{i}]", n) for i, t in enumerate(msg.tasks)],
        "players": [_decode_player(p, f"players[{i}]", i, n) for i, p in enumerate(msg.players)],
        "bag": _counts(_need(msg, "bag", ""), "bag", COLOURS, visitors),
        "plaza": _counts(_need(msg, "plaza", ""), "plaza", COLOURS, visitors),
        "box": _counts(_need(msg, "box_office", ""), "box_office", COLOURS, tickets),
        "discards": _counts(_need(msg, "ticket_discards", ""), "ticket_discards", COLOURS,
                            tickets),
    }
    _decode_locations(msg, raw, n)
    _decode_kicked_out(ko, raw, n)
    _decode_market(msg, raw, n)
    _decode_artists(msg, raw)
    _decode_stacks(msg, raw, visitors)
    _decode_contracts(msg, raw)
    easels = [_enum(f, f"renowned_works[{i}]", pb.ArtForm, 1, 4) - 1
              for i, f in enumerate(msg.renowned_works)]
    _len(easels, "renowned_works", EASELS[n])
    raw["easel"] = easels + [-1] * (3 - len(easels))
    _decode_lacerda(lac, raw, n)
    _len(msg.history, "history", 0, MAX_GAME_LENGTH)
    for i, a in enumerate(msg.history):
        _rng(a, f"history[{i}]", 0, NUM_DISTINCT_ACTIONS - 1, "action")
    return raw, list(msg.history)


def _decode_lacerda(lac: pb.Lacerda, raw: dict[str, Any], n: int) -> None:
    if n > 1:
        _check(lac.location == 0 and lac.supply == 0 and not lac.move_due, "lacerda",
               "Lacerda's fields are for the solo game and must be empty with 2..4 players")
        raw.update(lac_loc=-1, lac_supply=0, lac_turn=0)
        return
    raw.update(lac_loc=_enum(lac.location, "lacerda.location", pb.Location, 0, 4) - 1,
               lac_supply=_rng(lac.supply, "lacerda.supply", 0, LACERDA_ASSISTANTS),
               lac_turn=int(lac.move_due))


def _decode_owner(msg: Any, field: str, path: str, n: int) -> int:
    """An owner: a seat (optional `field`), or LACERDA when the message's `lacerda` flag
    is set (solo only, `field` then absent), or -1."""
    owner = _opt_in(msg, field, path, 0, n - 1, "seat")
    if not msg.lacerda:
        return owner
    _check(n == 1, f"{path}.lacerda", "Lacerda's pieces exist in the solo game only")
    _check(owner < 0, _join(path, field), "must be absent on Lacerda's piece")
    return LACERDA


def _decode_task(t: pb.PendingTask, path: str, n: int) -> dict[str, int]:
    kind = t.kind
    if kind not in _ACCEPTED_KINDS or (kind == _K["T_DISCARD_LARGEST"] and n != 1):
        name = pb.TaskKind.Name(kind) if kind in pb.TaskKind.values() else str(kind)
        why = "is for the solo game" if kind == _K["T_DISCARD_LARGEST"] else "is not a task kind"
        _fail(f"{path}.kind", f"{name} {why}")
    if kind in _NO_PLAYER_KINDS:
        _check(not t.HasField("player"), f"{path}.player",
               f"{pb.TaskKind.Name(kind)} has no player")
        player = -1
    else:
        _check(t.HasField("player"), f"{path}.player", f"{pb.TaskKind.Name(kind)} needs a player")
        player = _rng(t.player, f"{path}.player", 0, n - 1, "seat")
    ranges = _ARG_RANGES.get(_KIND_NAME[kind], (None, None, None))
    args = []
    for name, value, rng in zip(_ARG_NAMES, (t.a, t.b, t.c), ranges):
        if rng is None:
            _check(value == 0, f"{path}.{name}",
                   f"{value} must be 0 (unused by {pb.TaskKind.Name(kind)})")
        else:
            _rng(value, f"{path}.{name}", *rng)
        args.append(value)
    a, b, _ = args
    if kind == _K["T_VISITOR_PLAZA"]:
        _check(a in _VISITOR_MASKS, f"{path}.a", f"{a} is not 3 (VIP or investor) or 7 (any)")
    elif kind == _K["T_TICKET_OR"]:
        _check(a != b, f"{path}.b", "the two colours must differ")
    elif kind == _K["T_CH_VISITOR"] and a != _CD_TILE:
        _rng(b, f"{path}.b", 0, n - 1, "seat receiving the visitor")
    return {"kind": kind, "player": player, "a": a, "b": b, "c": t.c}


def _decode_player(p: pb.Player, path: str, seat: int, n: int) -> dict[str, Any]:
    _check(p.seat == seat, f"{path}.seat", f"{p.seat} differs from its index {seat}")
    visitors = VISITORS_TOTAL[n]
    tickets = (TICKETS_PER_COLOUR[n],) * 3
    assistants = _need(p, "assistants", path)
    works = list(p.exhibited_works)
    _len(works, f"{path}.exhibited_works", 0, 4)
    for i, a in enumerate(works):
        _rng(a, f"{path}.exhibited_works[{i}]", 0, 7, "artist slot")
    _len(p.reputation, f"{path}.reputation", 6)
    rep = []
    for i, space in enumerate(p.reputation):
        _enum(space.bonus, f"{path}.reputation[{i}].bonus", pb.ReputationBonus, i + 1, i + 1)
        rep.append(_opt_in(space, "tile", f"{path}.reputation[{i}]", 0, NUM_REP_TILES - 1,
                           "reputation tile"))
    contract, side, asst = _decode_contract_slots(p, path)
    acquired = _counts(_need(p, "works_acquired", path), f"{path}.works_acquired", FORMS,
                       (TILES_PER_FORM_IN_PLAY,) * 4)
    sold = _counts(_need(p, "works_sold", path), f"{path}.works_sold", FORMS,
                   (TILES_PER_FORM_IN_PLAY,) * 4)
    score, auction_work, auction_as = _decode_final_score(_need(p, "final_score", path), path)
    return {
        "money": _rng(p.money, f"{path}.money", 0, MAX_MONEY, "$"),
        "influence": _rng(p.influence, f"{path}.influence", 0, INFLUENCE_MAX),
        "lobby": _counts(_need(p, "lobby", path), f"{path}.lobby", COLOURS, visitors),
        "gallery": _counts(_need(p, "gallery", path), f"{path}.gallery", COLOURS, visitors),
        "tickets": _counts(_need(p, "tickets", path), f"{path}.tickets", COLOURS, tickets),
        "desks": _rng(assistants.desks, f"{path}.assistants.desks", 0, 4),
        "queue": _rng(assistants.queue, f"{path}.assistants.queue", 0, 8),
        "removed": _rng(assistants.removed, f"{path}.assistants.removed", 0,
                        ASSISTANTS_PER_PLAYER),
        "gallerist": _enum(p.gallerist, f"{path}.gallerist", pb.GalleristPlace, 1, 6) - 1,
        "commission": _opt_in(p, "commission_artist", path, 0, 7, "artist slot"),
        "nworks": len(works),
        "works": works + [-1] * (4 - len(works)),
        "start_tile": _opt_in(p, "start_tile", path, 0, NUM_REP_TILES - 1, "reputation tile"),
        "rep": rep,
        "acquired": acquired,
        "sold": sold,
        "contract": contract,
        "contract_state": side,
        "contract_asst": asst,
        "curator": _decode_card(p.curator, f"{path}.curator", pb.CuratorCard),
        "dealer": _decode_card(p.dealer, f"{path}.dealer", pb.DealerCard),
        "auction_work": auction_work,
        "auction_as": auction_as,
        "score": score,
    }


def _decode_contract_slots(p: pb.Player, path: str) -> tuple[list[int], list[int], list[int]]:
    _len(p.contracts, f"{path}.contracts", 3)
    contract, side, asst = [], [], []
    for k, slot in enumerate(p.contracts):
        sp = f"{path}.contracts[{k}]"
        card = _opt_in(slot, "contract", sp, 0, NUM_CONTRACTS - 1, "contract id")
        if card < 0:
            # an empty slot was never filled, so the engine still has its zeroed fields
            _enum(slot.side, f"{sp}.side", pb.ContractSide, 0, 0)
            _check(not slot.assistant, f"{sp}.assistant", "an empty slot has no assistant")
            side.append(CS_FACE_UP)
        else:
            side.append(_enum(slot.side, f"{sp}.side", pb.ContractSide, 1, 3) - 1)
        contract.append(card)
        asst.append(int(slot.assistant))
    return contract, side, asst


def _decode_card(v: int, path: str, enum: Any) -> int:
    _enum(v, path, enum, 1, 5)
    return -1 if v == 1 else v - 2


def _decode_final_score(s: pb.FinalScore, path: str) -> tuple[list[int], int, int]:
    sp = f"{path}.final_score"
    score = [_rng(getattr(s, step), f"{sp}.{step}", 0, MAX_SCORE, "$") for step in SCORE_STEPS]
    work = _enum(s.auction_work, f"{sp}.auction_work", pb.ArtForm, 0, 4) - 1
    if work < 0:
        _enum(s.auction_use, f"{sp}.auction_use", pb.AuctionUse, 0, 0)
        return score, -1, 0
    return score, work, _enum(s.auction_use, f"{sp}.auction_use", pb.AuctionUse, 1, 2) - 1


def _decode_locations(msg: pb.GameState, raw: dict[str, Any], n: int) -> None:
    _len(msg.locations, "locations", 4)
    owner, kind, tile = [], [], []
    for L, loc in enumerate(msg.locations):
        path = f"locations[{L}]"
        _enum(loc.location, f"{path}.location", pb.Location, L + 1, L + 1)
        owner.append(_decode_owner(loc, "owner", path, n))
        kind.append(_enum(loc.piece, f"{path}.piece", pb.PieceKind, 1, 2) - 1)
        tile.append(_opt_in(loc, "start_tile", path, 0, NUM_REP_TILES - 1, "reputation tile"))
    raw.update(loc_owner=owner, loc_kind=kind, loc_tile=tile)


def _decode_kicked_out(ko: pb.KickedOut, raw: dict[str, Any], n: int) -> None:
    owner = _decode_owner(ko, "owner", "kicked_out", n)
    kind = _enum(ko.piece, "kicked_out.piece", pb.PieceKind, 1, 2) - 1
    if owner < 0:
        _enum(ko.location, "kicked_out.location", pb.Location, 0, 0)
    else:
        _enum(ko.location, "kicked_out.location", pb.Location, 1, 4)
    raw.update(ko_owner=owner, ko_kind=kind, ko_loc=ko.location - 1)


def _decode_market(msg: pb.GameState, raw: dict[str, Any], n: int) -> None:
    _len(msg.market, "market", 21)
    tiles = [[-1] * 3 for _ in range(4)]
    assts = [[-1] * 3 for _ in range(7)]
    for i, space in enumerate(msg.market):
        path = f"market[{i}]"
        r, c = divmod(i, 3)
        _enum(space.row, f"{path}.row", pb.MarketRow, r + 1, r + 1)
        _enum(space.column, f"{path}.column", pb.MarketColumn, c + 1, c + 1)
        tile = _opt_in(space, "reputation_tile", path, 0, NUM_REP_TILES - 1, "reputation tile")
        _check(r < 4 or tile < 0, f"{path}.reputation_tile", "auction rows hold no tile")
        if r < 4:
            tiles[r][c] = tile
        assts[r][c] = _decode_owner(space, "assistant_owner", path, n)
        _check(assts[r][c] != LACERDA or tile < 0, f"{path}.reputation_tile",
               "Lacerda's assistant discarded the tile of its space (RN §10)")
        if n <= 2 and c == 1:   # R-MKT-1: the middle column is unused
            _check(tile < 0 and assts[r][c] < 0, path,
                   "column II is unused with 2 players and must be empty")
    raw.update(mk_tile=tiles, mk_asst=assts)


def _decode_artists(msg: pb.GameState, raw: dict[str, Any]) -> None:
    _len(msg.artists, "artists", 8)
    fields: dict[str, list[int]] = {k: [] for k in (
        "ar_variant", "ar_discovered", "ar_fame", "ar_promo", "ar_tokens", "ar_bonus",
        "ar_collector")}
    for a, art in enumerate(msg.artists):
        path = f"artists[{a}]"
        _check(art.slot == a, f"{path}.slot", f"{art.slot} differs from its index {a}")
        _enum(art.form, f"{path}.form", pb.ArtForm, (a >> 1) + 1, (a >> 1) + 1)
        _enum(art.colour, f"{path}.colour", pb.ArtistColour, (a & 1) + 1, (a & 1) + 1)
        fields["ar_variant"].append(_rng(art.variant, f"{path}.variant", 0, 1))
        fields["ar_discovered"].append(int(art.discovered))
        fields["ar_fame"].append(_rng(art.fame, f"{path}.fame", 1, FAME_MAX))
        fields["ar_promo"].append(_rng(art.promotion, f"{path}.promotion", 0, 5))
        fields["ar_tokens"].append(_rng(art.signature_tokens, f"{path}.signature_tokens", 0, 2))
        fields["ar_bonus"].append(_enum(art.bonus, f"{path}.bonus", pb.ArtistBonus, 0, 5) - 1)
        fields["ar_collector"].append(int(art.collector))
    raw.update(fields)
    tokens = _need(msg, "promotion_tokens", "")
    raw["promo_stock"] = [0] + [
        _rng(getattr(tokens, f"level_{i}"), f"promotion_tokens.level_{i}", 0, PROMO_TOKENS)
        for i in range(1, 6)]


def _decode_stacks(msg: pb.GameState, raw: dict[str, Any], visitors: tuple[int, ...]) -> None:
    _len(msg.work_stacks, "work_stacks", 4)
    masks, tops, top_visitors = [], [], []
    for f, stack in enumerate(msg.work_stacks):
        path = f"work_stacks[{f}]"
        _enum(stack.form, f"{path}.form", pb.ArtForm, f + 1, f + 1)
        mask = 0
        for i, k in enumerate(stack.tiles_below):
            _rng(k, f"{path}.tiles_below[{i}]", 0, 7, "work tile kind")
            _check(i == 0 or k > stack.tiles_below[i - 1], f"{path}.tiles_below",
                   "must be strictly ascending")
            mask |= 1 << k
        masks.append(mask)
        tops.append(_opt_in(stack, "top_tile", path, 0, 7, "work tile kind"))
        top_visitors.append(_counts(_need(stack, "top_visitors", path), f"{path}.top_visitors",
                                    COLOURS, visitors))
    raw.update(stack_mask=masks, stack_top=tops, top_visitors=top_visitors)


def _decode_contracts(msg: pb.GameState, raw: dict[str, Any]) -> None:
    deck = 0
    for i, c in enumerate(msg.contract_deck):
        _rng(c, f"contract_deck[{i}]", 0, NUM_CONTRACTS - 1, "contract id")
        _check(i == 0 or c > msg.contract_deck[i - 1], "contract_deck",
               "must be strictly ascending")
        deck |= 1 << c
    _len(msg.contract_piles, "contract_piles", 4)
    piles, lens = [], []
    for i, pile in enumerate(msg.contract_piles):
        _len(pile.cards, f"contract_piles[{i}].cards", 0, MAX_PILE)
        for j, c in enumerate(pile.cards):
            _rng(c, f"contract_piles[{i}].cards[{j}]", 0, NUM_CONTRACTS - 1, "contract id")
        piles.append(list(pile.cards) + [-1] * (MAX_PILE - len(pile.cards)))
        lens.append(len(pile.cards))
    raw.update(deck_mask=deck, pile=piles, pile_len=lens)


# ---------------------------------------------------------------- consistency


def _check_consistency(raw: dict[str, Any]) -> None:
    """Cross-field rules, each failing with the path of a field involved."""
    for check in _CONSISTENCY_CHECKS:
        check(raw)


def _fame0(raw: dict[str, Any], a: int) -> int:
    return ARTIST_FAME0[a >> 1][a & 1][raw["ar_variant"][a]]


def _promo0(raw: dict[str, Any], a: int) -> int:
    return ARTIST_PROMO0[a >> 1][a & 1][raw["ar_variant"][a]]


def _check_pieces(raw: dict[str, Any]) -> None:
    """Pieces on the locations and the kicked-out space agree with the players' gallerist
    fields (so each player has at most one gallerist on the board)."""
    for p, pl in enumerate(raw["players"]):
        g = pl["gallerist"]
        path = f"players[{p}].gallerist"
        if g < 4:
            _check(raw["loc_owner"][g] == p and raw["loc_kind"][g] == PIECE_GALLERIST, path,
                   f"says location {g} but locations[{g}] does not hold this gallerist")
        on_ko = raw["ko_owner"] == p and raw["ko_kind"] == PIECE_GALLERIST
        _check((g == GAL_KO) == on_ko, path,
               "KICKED_OUT must match kicked_out.owner with a GALLERIST piece")
    for L in range(4):
        q = raw["loc_owner"][L]
        if q == LACERDA and raw["loc_kind"][L] == PIECE_GALLERIST:
            _check(raw["lac_loc"] == L, f"locations[{L}].lacerda",
                   "holds Lacerda's gallerist, but lacerda.location is elsewhere")
        elif q >= 0 and raw["loc_kind"][L] == PIECE_GALLERIST:
            _check(raw["players"][q]["gallerist"] == L, f"locations[{L}].owner",
                   f"holds the gallerist of seat {q}, whose gallerist is elsewhere")


def _check_kicked_out(raw: dict[str, Any]) -> None:
    """The kicked-out space (R-KO-1): filled only by the turn player's move this turn, so
    that gallerist stands where the piece came from and the turn has no move to come;
    `acting` exactly while its KO_DONE step is pending (at index 1)."""
    tasks = raw["tasks"]
    owner, tp = raw["ko_owner"], raw["turn_player"]
    ko_done = len(tasks) > 1 and tasks[1]["kind"] == _K["T_KO_DONE"]
    _check(bool(raw["ko_active"]) == ko_done, "kicked_out.acting",
           "must be true exactly while a KO_DONE task is pending")
    _check(owner >= 0 or not any(t["kind"] == _K["T_KO"] for t in tasks),
           "kicked_out.owner", "a KO task is pending but nobody is kicked out")
    if owner < 0:
        return
    L = raw["ko_loc"]
    if owner == LACERDA:
        # solo: the player moved onto her piece this turn; it leaves at the turn's end
        _check(bool(tasks) and tasks[0]["kind"] == _K["T_END_TURN"], "kicked_out.lacerda",
               "Lacerda's piece is on the kicked-out space only during the player's turn")
        _check(raw["loc_owner"][L] == tp and raw["loc_kind"][L] == PIECE_GALLERIST,
               "kicked_out.location",
               f"the turn player's ({tp}) gallerist must stand where the piece was kicked from")
        _check(raw["ko_kind"] == PIECE_ASSISTANT or raw["lac_loc"] == L,
               "kicked_out.location", "Lacerda's gallerist was kicked from lacerda.location")
    elif raw["num_players"] == 1:
        # solo: her move kicked out the player's piece, whose kicked-out step is under way
        _check(raw["loc_owner"][L] == LACERDA and raw["loc_kind"][L] == PIECE_GALLERIST
               and raw["lac_loc"] == L and bool(raw["ko_active"]), "kicked_out.location",
               "Lacerda's gallerist must stand where the player's piece was kicked from, "
               "with the kicked-out step under way")
    else:
        _check(owner != tp and raw["loc_owner"][L] == tp
               and raw["loc_kind"][L] == PIECE_GALLERIST, "kicked_out.location",
               f"the turn player's ({tp}) gallerist must stand where the piece was kicked from")
    _check(not any(t["kind"] == _K["T_TURN_START"] for t in tasks), "kicked_out.owner",
           "nothing is kicked out before the turn player has moved (at most one per turn)")


def _contract_places(raw: dict[str, Any]) -> Iterator[tuple[int, str]]:
    for c in range(NUM_CONTRACTS):
        if raw["deck_mask"] >> c & 1:
            yield c, "contract_deck"
    for i in range(4):
        for j in range(raw["pile_len"][i]):
            yield raw["pile"][i][j], f"contract_piles[{i}].cards[{j}]"
    for p, pl in enumerate(raw["players"]):
        for k, c in enumerate(pl["contract"]):
            if c >= 0:
                yield c, f"players[{p}].contracts[{k}].contract"
    for i, t in enumerate(raw["tasks"]):
        if t["kind"] == _K["T_CONTRACT_SLOT"]:
            yield t["a"], f"tasks[{i}].a"


def _tile_places(raw: dict[str, Any]) -> Iterator[tuple[int, str]]:
    for r in range(4):
        for c in range(3):
            if raw["mk_tile"][r][c] >= 0:
                yield raw["mk_tile"][r][c], f"market[{3 * r + c}].reputation_tile"
    for L in range(4):
        if raw["loc_tile"][L] >= 0:
            yield raw["loc_tile"][L], f"locations[{L}].start_tile"
    for p, pl in enumerate(raw["players"]):
        if pl["start_tile"] >= 0:
            yield pl["start_tile"], f"players[{p}].start_tile"
        for i, t in enumerate(pl["rep"]):
            if t >= 0:
                yield t, f"players[{p}].reputation[{i}].tile"
    for i, t in enumerate(raw["tasks"]):
        if t["kind"] == _K["T_REP_SPACE"]:
            yield t["a"], f"tasks[{i}].a"


def _check_unique(places: Iterator[tuple[int, str]], what: str) -> None:
    seen: dict[int, str] = {}
    for item, path in places:
        if item in seen:
            _fail(path, f"{what} {item} is also at {seen[item]}; each is in one place")
        seen[item] = path


def _check_components_unique(raw: dict[str, Any]) -> None:
    """Every contract card and reputation tile is in at most one place (deck, piles,
    boards, market, pending tasks)."""
    _check_unique(_contract_places(raw), "contract")
    _check_unique(_tile_places(raw), "reputation tile")


def _check_artists(raw: dict[str, Any]) -> None:
    """Each artist as the rules leave it; bonus tiles: 2 of each kind (C§3); promotion
    tokens: 4 per level between the supply and the promoted artists (C§8)."""
    held = [0] * 6
    bonus_count = [0] * 5
    for a in range(8):
        _check_artist(raw, a)
        bonus = raw["ar_bonus"][a]
        if bonus >= 0:
            bonus_count[bonus] += 1
            _check(bonus_count[bonus] <= ARTIST_BONUS_COUNT, f"artists[{a}].bonus",
                   f"there are only {ARTIST_BONUS_COUNT} bonus tiles of each kind")
        if raw["ar_promo"][a] > _promo0(raw, a):    # it holds a token of its level
            held[raw["ar_promo"][a]] += 1
    for level in range(1, 6):
        stock = raw["promo_stock"][level]
        _check(stock + held[level] == PROMO_TOKENS, f"promotion_tokens.level_{level}",
               f"{stock} in the supply + {held[level]} on promoted artists != {PROMO_TOKENS}")


def _check_artist(raw: dict[str, Any], a: int) -> None:
    """Fame and promotion never below the printed values (fame never drops); a face-down
    artist is as set up; bonus tiles and collectors only on face-down artists, and
    collectors only on red ones."""
    path = f"artists[{a}]"
    fame, promo = raw["ar_fame"][a], raw["ar_promo"][a]
    fame0, promo0 = _fame0(raw, a), _promo0(raw, a)
    if raw["ar_discovered"][a]:
        _check(fame >= fame0, f"{path}.fame", f"{fame} is below the initial fame {fame0}")
        _check(promo >= promo0, f"{path}.promotion",
               f"{promo} is below the printed level {promo0}")
        _check(raw["ar_bonus"][a] < 0, f"{path}.bonus", "a discovered artist has no bonus tile")
        _check(not raw["ar_collector"][a], f"{path}.collector",
               "a discovered artist has no collector waiting")
    else:
        _check(fame == fame0, f"{path}.fame",
               f"{fame} differs from the initial fame {fame0} of a face-down artist")
        _check(promo == promo0, f"{path}.promotion",
               f"{promo} differs from the printed level {promo0} of a face-down artist")
        _check(raw["ar_tokens"][a] == 2, f"{path}.signature_tokens",
               "a face-down artist still has both tokens")
    _check(not raw["ar_collector"][a] or bool(a & 1), f"{path}.collector",
           "only red artists hold a collector")


def _check_players(raw: dict[str, Any]) -> None:
    """Works, commissions, cards and scores of each player."""
    commissions: dict[int, int] = {}
    cards: dict[tuple[str, int], int] = {}
    for p, pl in enumerate(raw["players"]):
        path = f"players[{p}]"
        by_form = [0] * 4
        for i in range(pl["nworks"]):
            a = pl["works"][i]
            by_form[a >> 1] += 1
            _check(raw["ar_discovered"][a], f"{path}.exhibited_works[{i}]",
                   f"artist {a} is not discovered")
        for f in range(4):
            _check(pl["acquired"][f] == pl["sold"][f] + by_form[f],
                   f"{path}.works_acquired.{FORMS[f]}",
                   f"{pl['acquired'][f]} != {pl['sold'][f]} sold + {by_form[f]} exhibited")
        c = pl["commission"]
        if c >= 0:
            _check(raw["ar_discovered"][c], f"{path}.commission_artist",
                   f"artist {c} is not discovered")
            _check(c not in commissions, f"{path}.commission_artist",
                   f"artist {c} is also seat {commissions.get(c)}'s commission")
            commissions[c] = p
        _check(pl["gallery"][COLLECTOR] <= 1 + sum(pl["sold"]), f"{path}.gallery.collector",
               f"{pl['gallery'][COLLECTOR]} collectors > 1 + {sum(pl['sold'])} works sold "
               "(R-VIS-2)")
        for which in ("curator", "dealer"):
            card = pl[which]
            if card >= 0:
                _check((which, card) not in cards, f"{path}.{which}",
                       f"the same card is also seat {cards.get((which, card))}'s")
                cards[(which, card)] = p
        for k in range(3):
            _check(not pl["contract_asst"][k] or pl["contract"][k] >= 0,
                   f"{path}.contracts[{k}].assistant", "an empty slot has no assistant")
        _check_score(raw, pl, path)


def _check_score(raw: dict[str, Any], pl: dict[str, Any], path: str) -> None:
    score = pl["score"]
    if not raw["terminal"]:
        _check(not any(score) and pl["auction_work"] < 0, f"{path}.final_score",
               "must be empty before the game is over")
    else:
        _check(score[7] == sum(score[:7]), f"{path}.final_score.total",
               f"{score[7]} != the sum of the steps {sum(score[:7])}")
        _check(pl["auction_work"] < 0 or pl["auction_work"] in raw["easel"],
               f"{path}.final_score.auction_work", "is not one of the renowned works")


def _check_board(raw: dict[str, Any]) -> None:
    """Work stacks (7 tiles per form in play), easels, game flags."""
    for f in range(4):
        path = f"work_stacks[{f}]"
        top = raw["stack_top"][f]
        below = bin(raw["stack_mask"][f]).count("1")
        bought = sum(pl["acquired"][f] for pl in raw["players"])
        _check(top < 0 or not raw["stack_mask"][f] >> top & 1, f"{path}.top_tile",
               f"tile kind {top} is also in tiles_below")
        total = below + (top >= 0) + bought
        _check(total == TILES_PER_FORM_IN_PLAY, path,
               f"{below} below + {int(top >= 0)} on top + {bought} bought = {total}, "
               f"expected {TILES_PER_FORM_IN_PLAY} tiles in play (C§5)")
        on_top = sum(raw["top_visitors"][f])
        _check(on_top <= (WORK_VISITORS[top] if top >= 0 else 0), f"{path}.top_visitors",
               f"{on_top} visitors is more than the top tile takes")
    easels = [e for e in raw["easel"] if e >= 0]
    _check(len(set(easels)) == len(easels), "renowned_works", "the art forms must differ")
    _check(not (raw["intermediate_pending"] and raw["intermediate_done"]),
           "intermediate_scoring.pending", "cannot be pending once done")
    _check(raw["end_triggered"] or raw["turns_left"] == 0, "game_end.turns_left",
           "must be 0 until the end is triggered")


def _check_totals(raw: dict[str, Any]) -> None:
    """RULES.md §4 component totals, with field names (the C check repeats them)."""
    n = raw["num_players"]
    players = raw["players"]
    for c, colour in enumerate(COLOURS):
        total = (raw["bag"][c] + raw["plaza"][c] + sum(p["lobby"][c] + p["gallery"][c]
                 for p in players) + sum(raw["top_visitors"][f][c] for f in range(4))
                 + (sum(raw["ar_collector"]) if c == COLLECTOR else 0))
        _check(total == VISITORS_TOTAL[n][c],
               f"bag|plaza|players[].lobby|players[].gallery|work_stacks[].top_visitors"
               f".{colour}", f"{colour} visitors total {total} (with those on red artists), "
               f"expected {VISITORS_TOTAL[n][c]} for {n} players (RULES.md §4)")
        total = raw["box"][c] + raw["discards"][c] + sum(p["tickets"][c] for p in players)
        _check(total == TICKETS_PER_COLOUR[n],
               f"box_office|ticket_discards|players[].tickets.{colour}",
               f"{colour} tickets total {total}, expected {TICKETS_PER_COLOUR[n]} for {n} "
               "players (RULES.md §4)")
    for p, pl in enumerate(players):
        on_board = (sum(1 for L in range(4) if raw["loc_owner"][L] == p
                        and raw["loc_kind"][L] == PIECE_ASSISTANT)
                    + sum(row.count(p) for row in raw["mk_asst"]) + sum(pl["contract_asst"])
                    + (raw["ko_owner"] == p and raw["ko_kind"] == PIECE_ASSISTANT))
        total = pl["desks"] + pl["queue"] + pl["removed"] + on_board
        _check(total == ASSISTANTS_PER_PLAYER, f"players[{p}].assistants",
               f"desks + queue + removed + {on_board} on the board = {total}, expected "
               f"{ASSISTANTS_PER_PLAYER} (RULES.md §4)")
    if n == 1:
        on_board = (sum(1 for L in range(4) if raw["loc_owner"][L] == LACERDA
                        and raw["loc_kind"][L] == PIECE_ASSISTANT)
                    + sum(row.count(LACERDA) for row in raw["mk_asst"])
                    + (raw["ko_owner"] == LACERDA and raw["ko_kind"] == PIECE_ASSISTANT))
        total = raw["lac_supply"] + on_board
        _check(total == LACERDA_ASSISTANTS, "lacerda.supply",
               f"supply + {on_board} on the board = {total}, expected {LACERDA_ASSISTANTS} "
               "(Lacerda's assistants, RULES.md §4)")
    for a in range(8):
        total = raw["ar_tokens"][a] + sum(
            (pl["commission"] == a) + pl["works"][:pl["nworks"]].count(a) for pl in players)
        _check(total == 2, f"artists[{a}].signature_tokens",
               f"on the artist + exhibited + commissions = {total}, expected 2 (RULES.md §4)")


# The kinds that only sit at one height of the stack, as the engine builds it:
# setup [BEGIN_GAME, START_LOC...], a turn [END_TURN, AFTER_ACTION, TURN_START, ...],
# the kicked-out step [FINISH_TURN, KO_DONE, KO, ...].
_BOTTOM_KINDS = frozenset((_K["T_BEGIN_GAME"], _K["T_END_TURN"], _K["T_FINISH_TURN"]))
_FIXED_HEIGHT = {_K["T_AFTER_ACTION"]: (1, _K["T_END_TURN"]),
                 _K["T_TURN_START"]: (2, _K["T_AFTER_ACTION"]),
                 _K["T_KO_DONE"]: (1, _K["T_FINISH_TURN"]),
                 _K["T_KO"]: (2, _K["T_KO_DONE"]),
                 _K["T_DISCARD_LARGEST"]: (1, _K["T_FINISH_TURN"])}
# Decisions the engine only ever leaves on top of the stack: each is pushed last and
# resolved before anything else runs, so its preconditions (checked by the action that
# pushed it) are never re-checked. Deeper down they could act on a changed position.
_TOP_ONLY_KINDS = frozenset(_K[k] for k in (
    "T_DISCOVER", "T_BUY", "T_PROMOTE", "T_SELL", "T_HIRE", "T_MARKET", "T_ASSIST_SRC",
    "T_KO", "T_DEAL4", "T_CONTRACT_SLOT", "T_GALLERY_OUT", "T_ORIENT", "T_TICKET_MOVE",
    "T_BOX_DISCARD", "T_LEAVE", "T_FAME_BONUS", "T_TICKET_PAIR", "T_VISITOR_PLAZA",
    "T_DISCARD_LARGEST"))
_TURN_PLAYER_KINDS = frozenset((_K["T_END_TURN"], _K["T_AFTER_ACTION"], _K["T_TURN_START"],
                                _K["T_LOC_ACTION"], _K["T_LEAVE"]))


def _check_stack_shape(raw: dict[str, Any]) -> None:
    """The task stack has the shape the engine builds, so play goes on from it: a
    bottom task that finishes the turn, fixed-height steps in place, a decision or chance
    event on top, and no tasks exactly when the game is over."""
    tasks = raw["tasks"]
    if raw["terminal"]:
        _check(not tasks, "tasks", "must be empty when the game is over")
        return
    _check(bool(tasks), "tasks", "must not be empty before the game is over")
    _check(tasks[0]["kind"] in _BOTTOM_KINDS, "tasks[0].kind",
           "the bottom task must be BEGIN_GAME, END_TURN or FINISH_TURN")
    _check(tasks[-1]["kind"] < _AUTO_FIRST, f"tasks[{len(tasks) - 1}].kind",
           "the top task must be a decision or a chance event (automatic steps never wait)")
    setup = tasks[0]["kind"] == _K["T_BEGIN_GAME"]
    starters: set[int] = set()
    for i, t in enumerate(tasks):
        kind, path = t["kind"], f"tasks[{i}]"
        name = pb.TaskKind.Name(kind)
        _check(i == 0 or kind not in _BOTTOM_KINDS, f"{path}.kind", f"{name} only at the bottom")
        _check(i == len(tasks) - 1 or kind not in _TOP_ONLY_KINDS, f"{path}.kind",
               f"{name} only on top of the stack")
        if kind in _FIXED_HEIGHT:
            height, below = _FIXED_HEIGHT[kind]
            _check(i == height and tasks[i - 1]["kind"] == below, f"{path}.kind",
                   f"{name} only at height {height}, above {pb.TaskKind.Name(below)}")
        _check((kind == _K["T_START_LOC"]) == (setup and i > 0), f"{path}.kind",
               "setup is BEGIN_GAME with START_LOC tasks only")
        if kind == _K["T_START_LOC"]:
            _check(t["player"] not in starters, f"{path}.player", "chooses a start twice")
            _check(raw["players"][t["player"]]["gallerist"] == GAL_HOME, f"{path}.player",
                   "a player choosing a start location has its gallerist at home")
            starters.add(t["player"])
        if kind in _TURN_PLAYER_KINDS:
            _check(t["player"] == raw["turn_player"], f"{path}.player",
                   f"{name} belongs to the turn player {raw['turn_player']}")
    if setup:
        _check(raw["turn_count"] == 0, "turn.number", "must be 0 during setup")


def _check_lacerda(raw: dict[str, Any]) -> None:
    """Solo: Lacerda's gallerist, pieces and move flag as her moves leave them (RN §10);
    her assistant total is in _check_totals."""
    if raw["num_players"] != 1:
        return
    loc, tasks = raw["lac_loc"], raw["tasks"]
    pieces = ([f"locations[{L}]" for L in range(4) if raw["loc_owner"][L] == LACERDA]
              + [f"market[{i}]" for i in range(21) if raw["mk_asst"][i // 3][i % 3] == LACERDA]
              + (["kicked_out"] if raw["ko_owner"] == LACERDA else []))
    if loc < 0:
        _check(not pieces, pieces[0] if pieces else "", "Lacerda has not moved yet, so none "
               "of her pieces is on the board (lacerda.location is UNSPECIFIED)")
    elif not (raw["loc_owner"][loc] == LACERDA and raw["loc_kind"][loc] == PIECE_GALLERIST):
        # kicked out by the player: her next move leaves from here without an assistant
        _check(raw["loc_owner"][loc] != LACERDA, f"locations[{loc}].lacerda",
               "her assistant never stands where her kicked-out gallerist stood last")
    if not tasks or tasks[0]["kind"] == _K["T_BEGIN_GAME"] or raw["end_triggered"]:
        due = False                   # setup, the final turn and the end: no more moves
    elif tasks[0]["kind"] == _K["T_END_TURN"] or (
            len(tasks) > 1 and tasks[1]["kind"] == _K["T_DISCARD_LARGEST"]):
        due = True                    # the player's turn: she moves after it
    else:
        due = False                   # her turn: the player's kicked-out step after her move
    _check(bool(raw["lac_turn"]) == due, "lacerda.move_due",
           f"must be {str(due).lower()} at this point of the turn")


def _check_task_targets(raw: dict[str, Any]) -> None:
    """What each task's arguments point at exists and is in the state the engine leaves
    it in when it pushes that task."""
    n = raw["num_players"]
    discover_finish = 0
    tile_forms: set[int] = set()
    for i, t in enumerate(raw["tasks"]):
        kind, p, a, b = t["kind"], t["player"], t["a"], t["b"]
        path = f"tasks[{i}]"
        pl: dict[str, Any] = raw["players"][p] if p >= 0 else {}
        if kind == _K["T_LOC_ACTION"]:
            _check(pl["gallerist"] == a, f"{path}.a", "is not where the player's gallerist is")
        elif kind == _K["T_LEAVE"]:
            _check(raw["loc_owner"][a] < 0, f"{path}.a", "the location left must be empty")
            # its legality reads the destination from the LOC_ACTION right below it
            below = raw["tasks"][i - 1] if i > 0 else {}
            _check(below.get("kind") == _K["T_LOC_ACTION"] and below.get("player") == p,
                   f"{path}.kind", "LEAVE sits right above the same player's LOC_ACTION")
        elif kind == _K["T_KO"]:
            _check(raw["ko_owner"] == p, f"{path}.player", "is not the kicked-out owner")
        elif kind in (_K["T_GALLERY_OUT"], _K["T_ORIENT"], _K["T_CONTRACT_BONUS"]):
            _check(pl["contract"][a] >= 0, f"{path}.a", f"contract slot {a} is empty")
        elif kind == _K["T_ASSIST_SRC"]:
            _check_assist_target(raw, pl, a, f"{path}.a")
        elif kind == _K["T_MARKET_FINISH"]:
            _check(n > 2 or a % 3 != 1, f"{path}.a", "column II is unused with 2 players")
        elif kind in (_K["T_FAME_STEPS"], _K["T_PROMOTE_FINISH"]):
            _check(raw["ar_discovered"][a], f"{path}.a", f"artist {a} is not discovered")
        elif kind == _K["T_DISCOVER_FINISH"]:
            discover_finish += 1
            _check(discover_finish == 1, f"{path}.kind", "only one discovery at a time")
            _check(not raw["ar_discovered"][a], f"{path}.a", f"artist {a} is already discovered")
            _check(pl["commission"] < 0, f"{path}.player",
                   "the discoverer already has a commission")
        elif kind == _K["T_DISCOVER"]:
            _check(pl["commission"] < 0 and not any(
                x["kind"] == _K["T_DISCOVER_FINISH"] for x in raw["tasks"]), f"{path}.player",
                "discovering needs an empty commission space (R-ART-2)")
        elif kind == _K["T_CH_TILE"]:
            _check(raw["stack_top"][a] < 0, f"{path}.a",
                   f"the stack of form {a} already shows a top tile")
            _check(a not in tile_forms, f"{path}.a", f"form {a} is already being revealed")
            tile_forms.add(a)
        elif kind == _K["T_CH_VISITOR"] and a == _CD_TILE:
            _check(raw["stack_top"][b] >= 0, f"{path}.b", f"the stack of form {b} has no top tile")


def _check_assist_target(raw: dict[str, Any], pl: dict[str, Any], a: int, path: str) -> None:
    if a < 21:
        r, c = divmod(a, 3)
        _check(raw["num_players"] > 2 or c != 1, path, "column II is unused with 2 players")
        _check(raw["mk_asst"][r][c] < 0, path, f"market space {a} is taken")
    else:
        k = a - 21
        _check(pl["contract"][k] >= 0 and not pl["contract_asst"][k], path,
               f"contract slot {k} must hold a contract without an assistant")


_CONSISTENCY_CHECKS: tuple[Callable[[dict[str, Any]], None], ...] = (
    _check_stack_shape,
    _check_pieces,
    _check_kicked_out,
    _check_lacerda,
    _check_components_unique,
    _check_artists,
    _check_players,
    _check_board,
    _check_task_targets,
    _check_totals,
)


# ---------------------------------------------------------------- the engine's word


def _check_engine(state: GameState, raw: dict[str, Any]) -> None:
    """The C invariant check, then: a live position offers something to do."""
    code = state._invariant_code()
    if code:
        name = INVARIANT_NAMES.get(code, f"invariant {code}")
        raise InvalidStateError(f"state: breaks an invariant of RULES.md §4: {name}")
    if state.is_terminal():
        return
    top = len(raw["tasks"]) - 1
    if state.is_chance():
        _check(bool(state.chance_outcomes()), f"tasks[{top}]",
               "this chance event has no possible outcome")
    else:
        _check(bool(state.legal_actions()), f"tasks[{top}]",
               "this decision has no legal action")


def _fast_reader() -> _FastReader:
    """The compiled reader, with this module's task table."""
    table = {kind: (kind not in _NO_PLAYER_KINDS, _ARG_RANGES.get(_KIND_NAME[kind], (None,) * 3))
             for kind in _ACCEPTED_KINDS}
    return _FastReader(SCHEMA_VERSION, MAX_GAME_LENGTH, NUM_DISTINCT_ACTIONS, table)


_FAST_READER = _fast_reader()
