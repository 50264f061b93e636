"""The external form of a state (proto/gallerist/v1/state.proto, engine/serialize.py and
the compiled codec engine/_reader.pyx, engine/_writer.pyx).

Round trips (JSON and proto) must be exact on every kind of position; the JSON text is
canonical; and reading is the security boundary in front of the C engine, so every
malformed or rule-breaking input must end in InvalidStateError naming the field, and
nothing else: no other exception, no crash.
"""
from __future__ import annotations

import copy
import functools
import json
import pickle
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gallerist import engine
from gallerist.engine import serialize as S
from gallerist.engine._reader import SCORE_FIELDS, check_engine, task_rules
from gallerist.engine.errors import InvalidStateError
from gallerist.engine.state import TASK_KINDS, GameState
from gallerist.v1 import state_pb2 as pb

Json = dict[str, Any]


# ---------------------------------------------------------------- seeded games


def _step(state: GameState, rng: random.Random) -> None:
    if state.is_chance():
        state.apply_random_chance(rng.getrandbits(32))
    else:
        state.apply(rng.choice(state.legal_actions()))


@functools.lru_cache(maxsize=None)
def _game(num_players: int, seed: int, points: int = 24) -> tuple[GameState, ...]:
    """About `points` positions spread over one seeded random game, the end included."""
    rng = random.Random(seed)
    s = engine.new_game(num_players, seed)
    states = [s.copy()]
    while not s.is_terminal():
        _step(s, rng)
        states.append(s.copy())
    stride = max(1, len(states) // points)
    picked = states[::stride]
    if picked[-1] is not states[-1]:
        picked.append(states[-1])
    return tuple(picked)


GAMES = [(n, seed) for n in (1, 2, 3, 4) for seed in (11, 12, 13)]


def _decision_state(num_players: int, seed: int, want: Callable[[Json], bool]) -> GameState:
    """The first position of a seeded random game at a player decision whose raw dict
    satisfies `want` (a deterministic fixture for the mutation corpus)."""
    for attempt in range(50):
        rng = random.Random(seed + attempt)
        s = engine.new_game(num_players, seed + attempt)
        while not s.is_terminal():
            _step(s, rng)
            if not s.is_chance() and not s.is_terminal() and want(s._raw()):
                return s
    raise AssertionError("no position matched")


def _rich(raw: Json) -> bool:
    """Works on exhibit, contracts signed, assistants on the market, a kicked-out piece,
    a discovered red artist."""
    players = raw["players"]
    return (raw["ko_owner"] >= 0 and any(p["nworks"] >= 1 for p in players)
            and any(c >= 0 for p in players for c in p["contract"])
            and any(q >= 0 for row in raw["mk_asst"] for q in row)
            and any(raw["ar_discovered"][a] for a in (1, 3, 5, 7)))


@functools.lru_cache(maxsize=None)
def _base_json() -> str:
    return _decision_state(3, 500, _rich).to_json()


def _base() -> Json:
    return json.loads(_base_json())


# ---------------------------------------------------------------- schema and tables


def test_task_kind_enum_uses_engine_numbers():
    """PendingTask.kind carries the engine's TaskKind numbers; only the internal marker
    T_AUTO_FIRST has no schema name."""
    for name, number in TASK_KINDS.items():
        if name == "T_AUTO_FIRST":
            assert number not in pb.TaskKind.values()
        else:
            assert pb.TaskKind.Value("TASK_KIND_" + name[2:]) == number


def test_task_argument_table_names_engine_kinds():
    """The reader's task table covers exactly the engine's task kinds (all but the
    internal marker), each with a player rule and in-order argument ranges."""
    rules = task_rules()
    assert set(rules) == set(TASK_KINDS.values()) - {TASK_KINDS["T_AUTO_FIRST"]}
    no_player = {TASK_KINDS[k] for k in ("T_CH_VISITOR", "T_CH_TILE", "T_CH_CONTRACT",
                                         "T_BEGIN_GAME")}
    for kind, (has_player, ranges) in rules.items():
        assert has_player == (kind not in no_player)
        assert len(ranges) == 3 and all(r is None or 0 <= r[0] <= r[1] for r in ranges)
    assert rules[TASK_KINDS["T_PAY"]][1] == ((0, 30), (0, 7), None)


def test_every_enum_has_unspecified_zero():
    """Each schema enum starts with *_UNSPECIFIED = 0 (proto3 style)."""
    for enum in pb.DESCRIPTOR.enum_types_by_name.values():
        assert enum.values[0].number == 0 and enum.values[0].name.endswith("_UNSPECIFIED")


def _positions(value: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(value, list):
        return [q for i, v in enumerate(value) for q in _positions(v, path + (i,))]
    return [path]


def _bumped(raw: Json, keys: tuple, delta: int) -> Json:
    other = copy.deepcopy(raw)
    node = other
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] += delta
    return other


def test_every_struct_field_is_represented():
    """The schema is complete: for every field of the engine's struct (its raw dict),
    some element of it changes the JSON when it changes. (Elements the rules fix, such
    as pile slots above the pile's length, are validated instead of written.)"""
    s = _decision_state(3, 500, _rich)
    raw = s._raw()
    base = s.to_json()
    fields = [(k,) for k in raw if k not in ("num_players", "num_tasks", "tasks", "players")]
    fields += [("tasks", -1, k) for k in raw["tasks"][-1]]
    fields += [("players", k) for k in raw["players"][0]]
    for field in fields:
        if field[0] == "players":
            candidates = [("players", p, field[1]) + q for p in range(3)
                          for q in _positions(raw["players"][p][field[1]])]
        else:
            node = raw
            for k in field:
                node = node[k]
            candidates = [field + q for q in _positions(node)]
        changed = False
        for keys in candidates:
            for delta in (1, -1):
                other = _bumped(raw, keys, delta)
                if keys[-1] == "auction_as":     # written only with an auction work
                    other["players"][keys[1]]["auction_work"] = 0
                try:
                    changed = GameState._from_raw(other).to_json() != base
                except ValueError:               # not writable: no silent loss either
                    continue
                if changed:
                    break
            if changed:
                break
        assert changed, field


def test_new_games_read_back():
    """The reader takes its component numbers from the engine (data.h): every new game,
    of every player count and many seeds (artist variants, visitor and ticket stocks,
    easels, Lacerda's supply), reads back exactly."""
    for n in (1, 2, 3, 4):
        for seed in range(40 if n == 2 else 5):
            s = engine.new_game(n, seed)
            assert GameState.from_proto(s.to_proto()).state_bytes() == s.state_bytes()


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("num_players,seed", GAMES)
def test_json_round_trip_is_exact(num_players, seed):
    """state -> JSON -> state gives the same struct bytes, JSON text and history, at
    many points of random games, the end included."""
    for s in _game(num_players, seed):
        text = s.to_json()
        back = GameState.from_json(text)
        assert back.state_bytes() == s.state_bytes()
        assert back.to_json() == text
        assert back.history == s.history


@pytest.mark.parametrize("num_players,seed", GAMES)
def test_proto_round_trip_is_exact(num_players, seed):
    """state -> proto message -> wire bytes -> proto -> state is exact."""
    for s in _game(num_players, seed):
        msg = s.to_proto()
        wire = pb.GameState.FromString(msg.SerializeToString())
        back = GameState.from_proto(wire)
        assert back.state_bytes() == s.state_bytes()
        assert back.history == s.history


def test_round_tripped_state_plays_on_identically():
    """A state read back continues exactly like the original (same legal actions, same
    results of the same actions)."""
    s = _game(4, 21)[5].copy()
    t = GameState.from_json(s.to_json())
    rng = random.Random(3)
    while not s.is_terminal():
        assert s.legal_actions() == t.legal_actions()
        assert s.chance_outcomes() == t.chance_outcomes()
        if s.is_chance():
            action = rng.choice([a for a, _ in s.chance_outcomes()])
        else:
            action = rng.choice(s.legal_actions())
        s.apply(action)
        t.apply(action)
        assert s.state_bytes() == t.state_bytes()
    assert s.returns() == t.returns()


def test_json_is_canonical():
    """to_json(from_json(x)) == x; keys are sorted, without whitespace, every field is
    present; other spellings of the same state (indentation, key order, proto field
    names, enum numbers) read to the same state and canonical text."""
    for s in _game(3, 12)[::6]:
        text = s.to_json()
        assert GameState.from_json(text).to_json() == text
        obj = json.loads(text)
        assert json.dumps(obj, sort_keys=True, separators=(",", ":")) == text
        assert "numPlayers" in obj and "contractDeck" in obj
        pretty = json.dumps(obj, indent=3)
        assert GameState.from_json(pretty).to_json() == text
        from google.protobuf import json_format
        other = json_format.MessageToJson(s.to_proto(), preserving_proto_field_name=True,
                                          use_integers_for_enums=True)
        assert GameState.from_json(other).to_json() == text
        assert GameState.from_json(text.encode()).to_json() == text


def test_json_form_is_readable():
    """The JSON names things: enums by name, none as an absent optional field."""
    obj = json.loads(engine.new_game(2, 3).to_json())
    assert obj["schemaVersion"] == 1
    assert obj["players"][0]["gallerist"] == "GALLERIST_PLACE_HOME"
    assert "commissionArtist" not in obj["players"][0]           # none
    assert obj["players"][0]["curator"].startswith("CURATOR_CARD_C")
    assert obj["tasks"][-1]["kind"] == "TASK_KIND_START_LOC"
    assert obj["artists"][0]["form"] == "ART_FORM_PAINTING"
    assert obj["locations"][3]["location"] == "LOCATION_INTERNATIONAL_MARKET"
    assert obj["market"][1]["column"] == "MARKET_COLUMN_II"
    assert len(obj["renownedWorks"]) == 1 and len(obj["contractPiles"]) == 4


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_views_round_trip(num_players):
    """A player's view (opponents' cards hidden) round-trips exactly; hidden cards are
    written as HIDDEN and its own cards stay known."""
    for s in _game(num_players, 31)[::5]:
        for p in range(num_players):
            v = s.view(p)
            obj = json.loads(v.to_json())
            for q, player in enumerate(obj["players"]):
                hidden = q != p
                assert (player["curator"] == "CURATOR_CARD_HIDDEN") == hidden
                assert (player["dealer"] == "DEALER_CARD_HIDDEN") == hidden
            back = GameState.from_json(v.to_json())
            assert back.state_bytes() == v.state_bytes()
            assert not back.hidden_known()
            if not back.is_terminal():
                back.resample_hidden(p, 5).check_invariants()


def test_wrapper_methods_and_pickle():
    """GameState.to_json/from_json/to_proto/from_proto/to_dict and pickling use this
    module and agree with each other."""
    s = _game(2, 12)[7]
    assert s.to_dict() == json.loads(s.to_json())
    assert GameState.from_proto(s.to_proto()) == s
    assert pickle.loads(pickle.dumps(s)) == s
    assert pickle.loads(pickle.dumps(s)).history == s.history
    assert S.state_to_dict(s) == s.to_dict()


def test_terminal_state_has_scores_and_no_tasks():
    """The end: no tasks, final score steps adding up to the total, round trip exact."""
    end = _game(3, 13)[-1]
    assert end.is_terminal()
    obj = json.loads(end.to_json())
    assert obj["tasks"] == [] and obj["gameEnd"]["over"] is True
    for player, scores in zip(obj["players"], end.final_scores()):
        fs = player["finalScore"]
        assert fs["total"] == sum(fs[k] for k in SCORE_FIELDS[:7]) == scores["total"]
    assert GameState.from_json(end.to_json()) == end


# ---------------------------------------------------------------- rejected inputs


@pytest.mark.parametrize("text,needle", [
    ("", "not valid JSON"),
    ("nul", "not valid JSON"),
    ("{", "not valid JSON"),
    ("[]", "must hold an object"),
    ("1", "must hold an object"),
    ('"x"', "must hold an object"),
    ("null", "must hold an object"),
    ("{}", "schema_version"),
    (b"\xff\xfe", "UTF-8"),
    (12, "expected JSON text"),
    (None, "expected JSON text"),
    ({"numPlayers": 2}, "expected JSON text"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
    ('{"a": 1, "a": 2}', "duplicate key"),
    ('{"numPlayers": NaN}', "numPlayers"),
    ('{"schemaVersion": 1, "numPlayers": 2, "turn": {"player": 1e400}}', "player"),
    ('{"turn": {"turn": {"turn": {}}}}', "turn"),
    (" " * (S.MAX_JSON_CHARS + 1), "longer than"),
    ('{"numPlayers": ' + "1" * 5000 + "}", "not valid JSON"),
    ('{"turn": {"player": ' + "[" * 5000 + "]" * 5000 + "}}", "nested too deeply"),
    ("\ufeff{}", "not valid JSON"),
    ('{"tasks": [{"kind": 1e999}]}', "infinity"),
    ('{"players": [{"lobby": {"vip": "\\ud800"}}]}', "players[0].lobby.vip"),
    ('{"numPlayers": 2, "num_players": 3}', "duplicate key 'num_players'"),
])
def test_from_json_rejects_what_is_not_a_state_text(text, needle):
    """Non-JSON, non-objects, wrong types, deep nesting and huge input are
    InvalidStateError, never another exception."""
    with pytest.raises(InvalidStateError) as info:
        GameState.from_json(text)
    assert needle in str(info.value)


def test_from_proto_rejects_other_objects():
    """from_proto takes only a gallerist.v1.GameState message."""
    for obj in (None, b"", "x", pb.Player(), {}):
        with pytest.raises(InvalidStateError, match="expected a gallerist.v1.GameState"):
            GameState.from_proto(obj)
    with pytest.raises(InvalidStateError, match="schema_version"):
        GameState.from_proto(pb.GameState())


def _player_with_work(d: Json) -> tuple[int, int]:
    return next((p, i) for p, pl in enumerate(d["players"])
                for i in range(len(pl["exhibitedWorks"])))


def _task_index(d: Json, kind: str) -> int:
    return next(i for i, t in enumerate(d["tasks"]) if t["kind"] == kind)


def _set(path: str, value: Any) -> Callable[[Json], None]:
    """A mutation setting the field at a dotted path (list indices as numbers)."""
    def mutate(d: Json) -> None:
        keys = [int(k) if k.lstrip("-").isdigit() else k for k in path.split(".")]
        node: Any = d
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return mutate


def _add(path: str, delta: int) -> Callable[[Json], None]:
    def mutate(d: Json) -> None:
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        node: Any = d
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] += delta
    return mutate


def _extra_visitor(d: Json) -> None:
    d["plaza"]["vip"] += 1


def _move_bag_to(d: Json, colour: str, field: str) -> None:
    d["bag"][colour] -= 1
    d["players"][0][field][colour] += 1


def _collector_over_limit(d: Json) -> None:
    pl = d["players"][0]
    allowed = 1 + sum(pl["worksSold"].values())
    while pl["gallery"]["collector"] <= allowed:
        src = next(s for s in (d["bag"], d["plaza"]) if s["collector"] > 0)
        src["collector"] -= 1
        pl["gallery"]["collector"] += 1


def _empty_lobby_then_lobby_out(d: Json) -> None:
    """Player 0's lobby visitors go to the plaza (totals kept); then a LOBBY_OUT for
    player 0 is on top, with nothing to choose."""
    turn_player = d["turn"]["player"]
    lobby = d["players"][turn_player]["lobby"]
    for colour in ("vip", "investor", "collector"):
        d["plaza"][colour] += lobby[colour]
        lobby[colour] = 0
    d["tasks"].append({"kind": "TASK_KIND_LOBBY_OUT", "player": turn_player})


def _third_token(d: Json) -> None:
    p, i = _player_with_work(d)
    a = d["players"][p]["exhibitedWorks"][i]
    d["artists"][a]["signatureTokens"] += 1


def _work_by_face_down_artist(d: Json) -> None:
    p, i = _player_with_work(d)
    a = next(a for a in range(8) if not d["artists"][a]["discovered"])
    d["players"][p]["exhibitedWorks"][i] = a


def _duplicate_contract(d: Json) -> None:
    d["contractPiles"][0]["cards"].append(d["contractDeck"][0])


def _duplicate_tile(d: Json) -> None:
    tile = next(s["reputationTile"] for s in d["market"] if "reputationTile" in s)
    d["players"][0]["startTile"] = tile


def _top_task(kind: str | int, player: int | None = 0, a: int = 0, b: int = 0,
              c: int = 0) -> Callable[[Json], None]:
    def mutate(d: Json) -> None:
        task = {"kind": kind, "a": a, "b": b, "c": c}
        if player is not None:
            task["player"] = player
        d["tasks"].append(task)
    return mutate


def _top(field: str, value: Any) -> Callable[[Json], None]:
    def mutate(d: Json) -> None:
        d["tasks"][-1][field] = value
    return mutate


def _wrong_gallerist(d: Json) -> None:
    pl = next(p for p in d["players"] if p["gallerist"].endswith(("OFFICE", "COLONY",
                                                                   "CENTER", "MARKET")))
    places = ["GALLERIST_PLACE_SALES_OFFICE", "GALLERIST_PLACE_ARTISTS_COLONY",
              "GALLERIST_PLACE_MEDIA_CENTER", "GALLERIST_PLACE_INTERNATIONAL_MARKET"]
    pl["gallerist"] = next(g for g in places if g != pl["gallerist"])


def _pending_contract_in_deck(d: Json) -> None:
    d["tasks"].append({"kind": "TASK_KIND_CONTRACT_SLOT", "player": d["turn"]["player"],
                       "a": d["contractDeck"][0]})


def _kicked_out_gallerist_at_home(d: Json) -> None:
    owner = d["kickedOut"]["owner"]
    assert d["kickedOut"]["piece"] == "PIECE_KIND_GALLERIST"
    d["players"][owner]["gallerist"] = "GALLERIST_PLACE_HOME"


def _second_gallerist_on_board(d: Json) -> None:
    p = next(i for i, pl in enumerate(d["players"])
             if pl["gallerist"] not in ("GALLERIST_PLACE_HOME", "GALLERIST_PLACE_KICKED_OUT"))
    loc = next(loc for loc in d["locations"] if "owner" not in loc)
    loc.update(owner=p, piece="PIECE_KIND_GALLERIST")


def _same_curator(d: Json) -> None:
    d["players"][1]["curator"] = d["players"][0]["curator"]


def _delete(path: str) -> Callable[[Json], None]:
    def mutate(d: Json) -> None:
        keys = path.split(".")
        node: Any = d
        for k in keys[:-1]:
            node = node[int(k) if k.isdigit() else k]
        del node[keys[-1]]
    return mutate


def _over_without_scores(d: Json) -> None:
    d["gameEnd"]["over"] = True


def _no_tasks(d: Json) -> None:
    d["tasks"] = []


def _too_many_tasks(d: Json) -> None:
    d["tasks"] = d["tasks"] + [dict(d["tasks"][-1]) for _ in range(33 - len(d["tasks"]))]


def _unsorted_deck(d: Json) -> None:
    pile = next(p["cards"] for p in d["contractPiles"] if p["cards"])
    d["contractDeck"] = sorted(d["contractDeck"] + [pile.pop()], reverse=True)


def _initial_fame(a: int, variant: int) -> int:
    """Artist a's printed fame for its variant, as a new game sets it up."""
    return next(raw["ar_fame"][a] for seed in range(100)
                if (raw := engine.new_game(2, seed)._raw())["ar_variant"][a] == variant)


def _fame_below_initial(d: Json) -> None:
    a = next(a for a in range(8) if d["artists"][a]["discovered"])
    d["artists"][a]["fame"] = 1 if _initial_fame(a, d["artists"][a]["variant"]) > 1 else 0


def _promotion_below_printed(d: Json) -> None:
    a = next(a for a in range(8) if d["artists"][a]["discovered"] and (a & 1))
    d["artists"][a]["promotion"] = 0


def _promotion_tokens(d: Json) -> None:
    d["promotionTokens"]["level5"] = 3


def _extra_assistant_on_market(d: Json) -> None:
    space = next(s for s in d["market"] if "assistantOwner" not in s
                 and s["column"] != "MARKET_COLUMN_II")
    space["assistantOwner"] = 0


def _score_mid_game(d: Json) -> None:
    d["players"][0]["finalScore"]["majorities"] = 3


#: (mutation, the text the error message must contain: the field's path)
CORPUS: list[tuple[str, Callable[[Json], None], str]] = [
    ("solo count on a 3-player state", _set("numPlayers", 1), "players: has 3 entries, expected 1"),
    ("five players", _set("numPlayers", 5), "num_players: 5 is outside 1..4"),
    ("player count mismatch", _set("numPlayers", 2), "players: has 3 entries, expected 2"),
    ("schema version", _set("schemaVersion", 2), "schema_version"),
    ("negative money", _set("players.0.money", -1), "money"),
    ("money as text", _set("players.0.money", "ten"), "money"),
    ("money fraction", _set("players.0.money", 1.5), "money"),
    ("money too large", _set("players.0.money", 100000), "players[0].money: 100000 is outside"),
    ("money beyond uint32", _set("players.0.money", 2 ** 40), "money"),
    ("influence 36", _set("players.1.influence", 36), "players[1].influence: 36 is outside 0..35"),
    ("fame 20", _set("artists.4.fame", 20), "artists[4].fame: 20 is outside 1..19"),
    ("fame 0", _set("artists.0.fame", 0), "artists[0].fame: 0 is outside 1..19"),
    ("fame below initial", _fame_below_initial, ".fame"),
    ("promotion below printed", _promotion_below_printed, ".promotion"),
    ("promotion 6", _set("artists.0.promotion", 6), "artists[0].promotion: 6 is outside 0..5"),
    ("promotion tokens", _promotion_tokens, "promotion_tokens.level5"),
    ("extra visitor", _extra_visitor, "vip visitors total"),
    ("missing ticket", _add("boxOffice.investor", -1), "investor tickets total"),
    ("extra ticket", _add("ticketDiscards.vip", 1), "vip tickets total"),
    ("11 assistants", _add("players.0.assistants.queue", 1), "players[0].assistants"),
    ("5 desks", _set("players.0.assistants.desks", 5), "players[0].assistants.desks: 5"),
    ("extra assistant on the market", _extra_assistant_on_market, "players[0].assistants"),
    ("collector over the limit", _collector_over_limit, "players[0].gallery.collector"),
    ("third signature token", _third_token, "signature_tokens"),
    ("tokens 3", _set("artists.0.signatureTokens", 3), "artists[0].signature_tokens: 3"),
    ("work by a face-down artist", _work_by_face_down_artist, "exhibited_works"),
    ("work artist 9", lambda d: d["players"][0]["exhibitedWorks"].append(9),
     "players[0].exhibited_works"),
    ("five works", _set("players.0.exhibitedWorks", [0, 0, 0, 0, 0]),
     "players[0].exhibited_works: has 5 entries"),
    ("acquired mismatch", _add("players.0.worksAcquired.digital", 1), "works_acquired"),
    ("commission 8", _set("players.0.commissionArtist", 8), "players[0].commission_artist"),
    ("gallerist elsewhere", _wrong_gallerist, "gallerist"),
    ("location owner 3", _set("locations.0.owner", 3), "locations[0].owner: 3 is outside 0..2"),
    ("location order", _set("locations.0.location", "LOCATION_MEDIA_CENTER"),
     "locations[0].location"),
    ("piece unspecified", _set("locations.1.piece", "PIECE_KIND_UNSPECIFIED"),
     "locations[1].piece"),
    ("kicked-out location without owner", _delete("kickedOut.owner"), "kicked_out"),
    ("kicked-out acting flipped", lambda d: d["kickedOut"].update(acting=not d["kickedOut"]
                                                                 .get("acting")),
     "kicked_out.acting"),
    ("duplicate contract", _duplicate_contract, "contract"),
    ("duplicate reputation tile", _duplicate_tile, "reputation tile"),
    ("pending contract also in the deck", _pending_contract_in_deck, "is also at contract_deck"),
    ("kicked-out gallerist at home", _kicked_out_gallerist_at_home, ".gallerist: KICKED_OUT"),
    ("second gallerist on the board", _second_gallerist_on_board,
     "whose gallerist is elsewhere"),
    ("contract 20", _set("contractDeck", [20]), "contract_deck[0]: 20 is outside 0..19"),
    ("unsorted deck", _unsorted_deck, "contract_deck"),
    ("21 cards in a pile", _set("contractPiles.0.cards", list(range(20)) + [0]),
     "contract_piles[0].cards: has 21 entries"),
    ("tile kind 8", _set("workStacks.0.tilesBelow", [8]), "work_stacks[0].tiles_below[0]"),
    ("tiles below unsorted", _set("workStacks.1.tilesBelow", [3, 1]), "work_stacks[1]"),
    ("artist slot", _set("artists.2.slot", 3), "artists[2].slot"),
    ("artist form", _set("artists.2.form", "ART_FORM_DIGITAL"), "artists[2].form"),
    ("renowned works count", _set("renownedWorks", []), "renowned_works"),
    ("market size", lambda d: d["market"].pop(), "market: has 20 entries"),
    ("tile on an auction row", _set("market.13.reputationTile", 5),
     "market[13].reputation_tile"),
    ("lacerda", _set("lacerda.supply", 1), "lacerda"),
    ("unknown field", _set("players.0.foo", 1), "foo"),
    ("missing turn", _delete("turn"), "turn: missing"),
    ("missing lobby", _delete("players.2.lobby"), "players[2].lobby: missing"),
    ("turn player 3", _set("turn.player", 3), "turn.player: 3 is outside 0..2"),
    ("turns left without end", _set("gameEnd.turnsLeft", 2), "game_end.turns_left"),
    ("same curator", _same_curator, "players[1].curator"),
    ("curator enum 9", _set("players.0.curator", 9), "players[0].curator"),
    ("curator name", _set("players.0.curator", "DEALER_CARD_D1"), "curator"),
    ("dealer unspecified", _set("players.0.dealer", "DEALER_CARD_UNSPECIFIED"),
     "players[0].dealer"),
    ("score before the end", _score_mid_game, "players[0].final_score"),
    ("over with tasks", _over_without_scores, "tasks"),
    ("no tasks before the end", _no_tasks, "tasks"),
    ("33 tasks", _too_many_tasks, "tasks: has 33 entries"),
    ("history action 183", _set("history", [183]), "history[0]: 183 is outside 0..182"),
    ("task kind 34", _top_task(34), ".kind"),
    ("task kind 99", _top_task(99), ".kind"),
    ("task kind name", _top_task("TASK_KIND_NOPE"), "kind"),
    ("solo task", _top_task("TASK_KIND_DISCARD_LARGEST"), "solo"),
    ("automatic task on top", _top_task("TASK_KIND_GAIN_TICKET"), "top task"),
    ("task player 3", _top_task("TASK_KIND_TICKET_ANY", 3), ".player: 3 is outside 0..2"),
    ("task without player", _top_task("TASK_KIND_TICKET_ANY", None), "needs a player"),
    ("chance task with player", _top_task("TASK_KIND_CH_TILE", 0), "has no player"),
    ("unused argument", _top_task("TASK_KIND_TICKET_ANY", 0, a=1), ".a: 1 must be 0"),
    ("pay b 8", _top_task("TASK_KIND_PAY", 0, a=3, b=8), ".b: 8 is outside 0..7"),
    ("pay 31", _top_task("TASK_KIND_PAY", 0, a=31), ".a: 31 is outside 0..30"),
    ("fame steps artist 8", _top_task("TASK_KIND_FAME_STEPS", 0, a=8), ".a: 8 is outside 0..7"),
    ("ticket-or same colour", _top_task("TASK_KIND_TICKET_OR", 0, a=1, b=1), "must differ"),
    ("box discard colour 3", _top_task("TASK_KIND_BOX_DISCARD", 0, a=3), ".a: 3 is outside"),
    ("visitor mask 4", _top_task("TASK_KIND_VISITOR_PLAZA", 0, a=4), ".a: 4 is not 3"),
    ("market rows 2", _top_task("TASK_KIND_MARKET", 0, a=2), ".a: 2 is outside 0..1"),
    ("assistant target 24", _top_task("TASK_KIND_ASSIST_SRC", 0, a=24), ".a: 24 is outside"),
    ("rep tile -1", _top_task("TASK_KIND_REP_SPACE", 0, a=-1), ".a: -1 is outside 0..19"),
    ("chance visitor to seat 3", _top_task("TASK_KIND_CH_VISITOR", None, a=1, b=3),
     ".b: 3 is outside 0..2"),
    ("chance visitor destination 3", _top_task("TASK_KIND_CH_VISITOR", None, a=3),
     ".a: 3 is outside 0..2"),
    ("chance tile form 4", _top_task("TASK_KIND_CH_TILE", None, a=4), ".a: 4 is outside 0..3"),
    ("chance contract pile 9", _top_task("TASK_KIND_CH_CONTRACT", None, a=9), ".a: 9 is outside"),
    ("location action elsewhere", _top_task("TASK_KIND_LOC_ACTION", 0, a=3), "tasks["),
    ("contract slot card 25", _top_task("TASK_KIND_CONTRACT_SLOT", 0, a=25), ".a: 25 is outside"),
    ("huge argument", _top_task("TASK_KIND_PAY", 0, a=2 ** 31 - 1), ".a: 2147483647"),
    ("argument beyond int32", _top_task("TASK_KIND_PAY", 0, a=2 ** 31), "tasks"),
    ("setup task mid-game", _top_task("TASK_KIND_START_LOC", 0), "setup"),
    ("top-only decision below the top",
     lambda d: d["tasks"].insert(-1, {"kind": "TASK_KIND_DISCOVER", "player": 0}),
     "TASK_KIND_DISCOVER only on top of the stack"),
    ("second reveal of one stack", lambda d: d["tasks"].extend(
        [{"kind": "TASK_KIND_CH_TILE", "a": 0}, {"kind": "TASK_KIND_CH_TILE", "a": 0}]),
     "tasks["),
    ("decision without actions", _empty_lobby_then_lobby_out, "no legal action"),
    ("top task player as text", _top("player", "zero"), "player"),
    ("task as a list", _set("tasks", [[1, 2]]), "tasks"),
    ("players as an object", _set("players", {"0": {}}), "players"),
    ("null element", _set("history", [None]), "history"),
]


@pytest.mark.parametrize("name,mutate,needle", CORPUS, ids=[c[0] for c in CORPUS])
def test_broken_state_is_rejected_naming_the_field(name, mutate, needle):
    """One field of a valid state broken (range, type, or a rule of docs/rules.md §4 and the
    engine's bookkeeping): InvalidStateError whose message names the field."""
    d = _base()
    GameState.from_json(json.dumps(d))     # the base itself is valid
    mutate(d)
    with pytest.raises(InvalidStateError) as info:
        GameState.from_json(json.dumps(d))
    message = str(info.value)
    assert needle in message, message
    assert not message.startswith("state could not be validated"), message


def test_engine_invariant_check_is_the_last_word():
    """The reader's last layer is the engine's own word: the C invariant check and a live
    position with something to do. A finding names the fields it counts (an extra
    visitor); one that decoding rules out (negative money) is named by INVARIANT_NAMES."""
    from gallerist.engine.state import INVARIANT_NAMES
    raw = GameState.from_json(_base_json())._raw()
    raw["plaza"][0] += 1
    with pytest.raises(InvalidStateError) as info:
        check_engine(GameState._from_raw(raw))
    assert str(info.value) == (
        "bag|plaza|players[].lobby|players[].gallery|work_stacks[].top_visitors.vip: vip visitors "
        "total 13 (with those on red artists), expected 12 for 3 players (docs/rules.md §4)")
    raw["plaza"][0] -= 1
    raw["players"][1]["money"] = -1
    with pytest.raises(InvalidStateError) as info:
        check_engine(GameState._from_raw(raw))
    assert str(info.value) == f"state: breaks an invariant of docs/rules.md §4: {INVARIANT_NAMES[4]}"
    check_engine(GameState.from_json(_base_json()))


def test_broken_states_give_the_recorded_messages():
    """Each hand-made broken state gives exactly the message recorded in
    tests/data/codec_golden.json (the texts users see stay as precise as before)."""
    golden = _golden()["messages"]
    assert set(golden) == {name for name, _, _ in CORPUS}
    for name, mutate, _ in CORPUS:
        d = _base()
        mutate(d)
        with pytest.raises(InvalidStateError) as info:
            GameState.from_json(json.dumps(d))
        assert str(info.value) == golden[name], name


@functools.lru_cache(maxsize=None)
def _golden() -> Json:
    import pathlib
    path = pathlib.Path(__file__).parents[1] / "data" / "codec_golden.json"
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- fuzzing

_ENUM_NAMES = [v.name for e in pb.DESCRIPTOR.enum_types_by_name.values() for v in e.values]
_BOUNDARY = [0, 1, -1, 2, 3, 4, 5, 7, 8, 19, 20, 21, 23, 24, 30, 31, 32, 33, 35, 36, 127,
             128, 255, 256, 9999, 10000, 32767, 32768, 2 ** 31 - 1, 2 ** 31, 2 ** 32,
             2 ** 63, -2 ** 31, -2 ** 63]


def _leaves(node: Any, path: tuple = ()) -> list[tuple]:
    """Every position in a JSON tree (dict keys and list elements), containers too."""
    out = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _leaves(v, path + (i,))
    return out


def _random_value(rng: random.Random, old: Any) -> Any:
    roll = rng.random()
    if isinstance(old, int) and not isinstance(old, bool) and roll < 0.55:
        return old + rng.choice([-2, -1, 1, 2]) if rng.random() < 0.6 else rng.choice(_BOUNDARY)
    if isinstance(old, str) and roll < 0.5:
        return rng.choice(_ENUM_NAMES)
    if isinstance(old, bool) and roll < 0.5:
        return not old
    return rng.choice([None, True, False, "", "x", 1.5, -0.0, 1e300, [], {}, [1], {"a": 1},
                       rng.choice(_BOUNDARY), rng.choice(_ENUM_NAMES), "12", "-1"])


def _mutate(d: Json, rng: random.Random, leaves: list[tuple]) -> None:
    """Change, delete or duplicate the value at a random position (of `leaves`, the
    positions of the unmutated tree; a position a previous mutation removed is skipped)."""
    path = rng.choice(leaves)
    parent = d
    try:
        for k in path[:-1]:
            parent = parent[k]
        parent[path[-1]]
    except (KeyError, IndexError, TypeError):
        return
    key = path[-1]
    action = rng.random()
    if action < 0.08 and isinstance(parent, dict):
        del parent[key]
    elif action < 0.14 and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(parent[key]))
    elif action < 0.18 and isinstance(parent, list):
        del parent[key]
    else:
        parent[key] = _random_value(rng, parent[key])


@functools.lru_cache(maxsize=None)
def _fuzz_pool() -> tuple[str, ...]:
    pool = []
    for n, seed in ((2, 41), (3, 42), (4, 43)):
        states = _game(n, seed, 12)
        pool += [s.to_json() for s in states]
        pool += [s.view(0).to_json() for s in states[::4]]
    for s in pool:
        GameState.from_json(s)
    # keep the history short: it only slows the parser down and is never checked
    out = []
    for text in pool:
        d = json.loads(text)
        d["history"] = d["history"][-3:]
        out.append(json.dumps(d))
    return tuple(out)


def _plays_on(state: GameState, rng: random.Random, steps: int) -> None:
    """An accepted state works: its actions apply and the invariants keep holding."""
    for _ in range(steps):
        assert state._invariant_code() == 0
        if state.is_terminal():
            return
        if state.is_chance():
            assert state.chance_outcomes()
            state.apply_random_chance(rng.getrandbits(32))
        else:
            legal = state.legal_actions()
            assert legal
            state.apply(rng.choice(legal))
    assert state._invariant_code() == 0


def _json_mutants(rng: random.Random, cases: int, rounds: list[int],
                  pool: tuple[str, ...] | None = None) -> Iterator[tuple[int, Json]]:
    """`cases` states of `pool` (default: the fuzz pool) as JSON objects, each with
    `rng.choice(rounds)` random mutations (lazily: the caller may draw from `rng`
    between them)."""
    pool = _fuzz_pool() if pool is None else pool
    leaves = [_leaves(json.loads(text)) for text in pool]
    for case in range(cases):
        i = rng.randrange(len(pool))
        d = json.loads(pool[i])
        for _ in range(rng.choice(rounds)):
            _mutate(d, rng, leaves[i])
        yield case, d


def _accepted_and_plays_on(d: Json, rng: random.Random, case: int) -> bool:
    """Read a (mutated) JSON state: False if it is rejected with InvalidStateError naming
    a field (never the catch-all message), True if it is accepted and plays on."""
    try:
        state = GameState.from_json(json.dumps(d))
    except InvalidStateError as exc:
        assert not str(exc).startswith("state could not be validated"), (case, exc)
        return False
    _plays_on(state, rng, 8)
    return True


def test_fuzz_random_mutations_never_escape_invalid_state_error():
    """Thousands of seeded random mutations (1-3 fields: values of every type, boundary
    numbers, deleted keys, duplicated or dropped list elements) of valid states: reading
    either succeeds with a playable state or raises InvalidStateError, nothing else."""
    rng = random.Random(2024)
    accepted = sum(_accepted_and_plays_on(d, rng, case)
                   for case, d in _json_mutants(rng, 1000, [1, 1, 1, 2, 3]))
    rejected = 1000 - accepted
    assert rejected > 600 and accepted > 25, (accepted, rejected)


def test_fuzz_proto_fields_with_type_range_values():
    """Proto-level fuzzing: any scalar of any message set to any value its proto type
    allows (what a gRPC client can send) is either accepted and playable or rejected
    with InvalidStateError."""
    rng = random.Random(77)
    pool = [GameState.from_json(t).to_proto() for t in _fuzz_pool()]
    ints = [0, 1, 2, 3, 4, 5, 6, 7, 8, 19, 20, 21, 31, 35, 36, 49, 127, 128, 255, 2 ** 31 - 1]
    for case in range(2000):
        msg = pb.GameState()
        msg.CopyFrom(rng.choice(pool))
        for _ in range(rng.choice([1, 1, 2])):
            _mutate_proto(msg, rng, ints)
        try:
            state = GameState.from_proto(msg)
        except InvalidStateError as exc:
            assert not str(exc).startswith("state could not be validated"), (case, exc)
            continue
        _plays_on(state, rng, 8)


_TASK_RULES = task_rules()


def _random_task(rng: random.Random, n: int) -> pb.PendingTask:
    """A task of any accepted kind with arguments inside that kind's ranges."""
    kind = rng.choice(sorted(_TASK_RULES))
    has_player, ranges = _TASK_RULES[kind]
    args = [rng.randint(*r) if r else 0 for r in ranges]
    if kind == TASK_KINDS["T_CH_VISITOR"] and args[0] != 0:
        args[1] = rng.randrange(n)
    if kind == TASK_KINDS["T_VISITOR_PLAZA"]:
        args[0] = rng.choice([3, 7])
    task = pb.PendingTask(kind=kind, a=args[0], b=args[1], c=args[2])  # type: ignore[arg-type]
    if has_player:
        task.player = rng.randrange(n)
    return task


def _stack_mutation(base: pb.GameState, rng: random.Random) -> pb.GameState:
    """A copy of `base` with 1-2 random in-range tasks put on top, in place of the top
    or anywhere in its stack."""
    msg = pb.GameState()
    msg.CopyFrom(base)
    tasks = list(msg.tasks)
    for _ in range(rng.choice([1, 1, 2])):
        task = _random_task(rng, msg.num_players)
        where = rng.random()
        if where < 0.4:
            tasks[-1] = task
        elif where < 0.8:
            tasks.append(task)
        else:
            tasks.insert(rng.randrange(len(tasks) + 1), task)
    del msg.tasks[:]
    msg.tasks.extend(tasks)
    return msg


def test_fuzz_pending_tasks_with_in_range_arguments():
    """Stack fuzzing: tasks of every kind, each argument inside its kind's range, put on
    top, in place of the top, or anywhere in the stacks of real positions. Each such
    state is rejected or stays consistent through play (this found that decisions the
    engine only leaves on top must stay there, and that a turn start excludes a
    kicked-out piece)."""
    rng = random.Random(99)
    pool = [s.to_proto() for t in _fuzz_pool() if not (s := GameState.from_json(t)).is_terminal()]
    accepted = 0
    for case in range(1500):
        msg = _stack_mutation(rng.choice(pool), rng)
        try:
            state = GameState.from_proto(msg)
        except InvalidStateError as exc:
            assert not str(exc).startswith("state could not be validated"), (case, exc)
            continue
        accepted += 1
        _plays_on(state, rng, 30)
    assert accepted > 100


def _messages(msg: Any) -> list[Any]:
    out = [msg]
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        if field.is_repeated:
            for item in value:
                out += _messages(item)
        else:
            out += _messages(value)
    return out


def _mutate_proto(msg: pb.GameState, rng: random.Random, ints: list[int]) -> None:
    target = rng.choice(_messages(msg))
    scalars = [f for f in target.DESCRIPTOR.fields if f.message_type is None]
    if not scalars:
        return
    field = rng.choice(scalars)
    signed = field.type in (field.TYPE_INT32, field.TYPE_ENUM)
    value = rng.choice(ints + ([-1, -2, -2 ** 31] if signed else []))
    if field.type == field.TYPE_BOOL:
        value = bool(value & 1)
    if field.is_repeated:
        items = getattr(target, field.name)
        if items and rng.random() < 0.7:
            items[rng.randrange(len(items))] = value
        else:
            items.append(value)
    elif field.has_presence and rng.random() < 0.2:
        target.ClearField(field.name)
    else:
        setattr(target, field.name, value)
