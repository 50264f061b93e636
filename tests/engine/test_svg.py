"""engine.svg: the board as a standalone SVG (well-formed, every part drawn, hidden cards
only for their owner, the hint arrow at the move's destination)."""
from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from gallerist import engine
from gallerist.ai.values import MoveInfo
from gallerist.engine.svg import WIDTH, hint_target

NS = {"s": "http://www.w3.org/2000/svg"}


def _play(players: int, seed: int, decisions: int) -> engine.GameState:
    """A game after `decisions` random decisions (chance resolved at random too)."""
    rng = random.Random(seed)
    s = engine.new_game(num_players=players, seed=seed)
    done = 0
    while not s.is_terminal() and done < decisions:
        if s.is_chance():
            s.apply(rng.choice(s.chance_outcomes())[0])
        else:
            s.apply(rng.choice(s.legal_actions()))
            done += 1
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    return s


def _ids(doc: str) -> dict[str, ET.Element]:
    root = ET.fromstring(doc)
    return {el.get("id"): el for el in root.iter() if el.get("id")}


def _text(el: ET.Element) -> str:
    return " ".join(t.text or "" for t in el.iter("{http://www.w3.org/2000/svg}text"))


POSITIONS = [(n, d) for n in (1, 2, 3, 4) for d in (0, 40, 150, 10_000)]


@pytest.mark.parametrize("players,decisions", POSITIONS)
def test_svg_is_well_formed_and_draws_every_part(players: int, decisions: int) -> None:
    """The SVG parses as XML, is 800 wide, and has an element for every part of the board:
    locations, kicked-out space, artists, work stacks, contract piles and deck, every market
    space, the pools, Lacerda in solo, and each player's panel with its parts."""
    s = _play(players, seed=players * 10 + 1, decisions=decisions)
    doc = engine.svg(s)
    root = ET.fromstring(doc)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox").split()[2] == str(WIDTH)
    ids = _ids(doc)
    expected = (["header", "kicked-out", "contract-deck", "plaza", "bag", "box-office", "discards"]
                + [f"location-{x}" for x in ("SO", "AC", "MC", "IM")]
                + [f"artist-{a}" for a in range(8)]
                + [f"work-stack-{f}" for f in range(4)]
                + [f"contract-pile-{i}" for i in range(4)]
                + [f"market-{r}-{c}" for r in range(7) for c in range(3)])
    for p in range(players):
        expected += [f"player-{p}"] + [f"player-{p}-{part}" for part in (
            "money", "tickets", "lobby", "gallery", "assistants", "works", "reputation",
            "contract-0", "contract-1", "contract-2", "curator", "dealer")]
    missing = [i for i in expected if i not in ids]
    assert not missing, missing
    assert ("lacerda" in ids) == (players == 1)
    assert f"player-{players}" not in ids
    # the money drawn is the state's
    for p in range(players):
        assert f"${s.money()[p]}" in _text(ids[f"player-{p}-money"])
    assert "http://" not in doc.replace("http://www.w3.org/2000/svg", "")  # no external files
    if s.is_terminal():
        assert "Winner" in _text(ids["header"]) or "Solo score" in _text(ids["header"])


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_hidden_cards_only_in_their_owners_view(players: int) -> None:
    """Curator and Art Dealer cards (hidden, R-SETUP): the public view shows nobody's,
    viewer=p shows p's own and not the others'; a hidden card's number is not in the SVG."""
    s = _play(players, seed=5, decisions=20)
    raw = s._raw()["players"]
    public = _ids(engine.svg(s))
    for p in range(players):
        for key in ("curator", "dealer"):
            assert "hidden" in public[f"player-{p}-{key}"].get("class")
            assert _text(public[f"player-{p}-{key}"]).endswith("hidden")
    for viewer in range(players):
        ids = _ids(engine.svg(s, viewer=viewer))
        for p in range(players):
            for key in ("curator", "dealer"):
                el = ids[f"player-{p}-{key}"]
                if p == viewer:
                    assert _text(el).endswith(f"#{raw[p][key] + 1}")
                    assert "shown" in el.get("class")
                else:
                    assert _text(el).endswith("hidden") and "hidden" in el.get("class")
    # a player's view has no opponent cards to leak, even when asked for
    if players > 1:
        ids = _ids(engine.svg(s.view(0), viewer=1))
        assert _text(ids["player-1-curator"]).endswith("hidden")


def test_hint_arrow_points_at_the_moves_destination() -> None:
    """A hint (id, notation or MoveInfo) draws an arrow and outlines its destination; its
    label is the move in words (engine.describe_move), inside the picture; a MoveInfo's
    win probability is written by it; a move not legal here is labelled by its notation."""
    s = engine.new_game(num_players=2, seed=3)
    assert s.legal_actions() and not s.is_chance()
    move = s.string_to_action("start:MC")
    for hint in (move, "start:MC"):
        ids = _ids(engine.svg(s, hint=hint))
        assert "hint" in ids
        target = ids["hint"].find("s:rect[@class='hint-target']", NS)
        assert target is not None and target.get("data-target") == "location-MC"
        assert ids["hint"].find("s:line[@class='hint-arrow']", NS) is not None
        assert engine.describe_move(s, move) in _text(ids["hint"])
        assert "start:MC" not in _text(ids["hint"])
        box = [r for r in ids["hint"].findall("s:rect", NS) if r.get("class") is None][0]
        assert 0 <= float(box.get("x")) and float(box.get("x")) + float(box.get("width")) <= WIDTH
    assert "move:AC" in _text(_ids(engine.svg(s, hint="move:AC"))["hint"])   # not legal here
    info = MoveInfo(action=move, notation="start:MC", win_probability=0.62, expected_money=[50, 40])
    ids = _ids(engine.svg(s, hint=info))
    assert "win 62%" in _text(ids["hint"])
    assert "hint" not in _ids(engine.svg(s))


def test_solo_hint_writes_expected_money() -> None:
    """Solo has no win probability: the hint's label gives the expected money."""
    s = engine.new_game(num_players=1, seed=3)
    a = s.legal_actions()[0]
    info = MoveInfo(action=a, notation=s.action_to_string(a), win_probability=None,
                    expected_money=[73.4])
    assert "$73 expected" in _text(_ids(engine.svg(s, hint=info))["hint"])


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_legal_move_has_a_drawn_destination(players: int) -> None:
    """hint_target names an element of the SVG for every legal move met in a random game."""
    rng = random.Random(players)
    s = engine.new_game(num_players=players, seed=players)
    seen = set()
    checked = 0
    while not s.is_terminal() and checked < 400:
        if s.is_chance():
            s.apply(rng.choice(s.chance_outcomes())[0])
            continue
        ids = None
        for a in s.legal_actions():
            if a in seen:
                continue
            seen.add(a)
            ids = ids or _ids(engine.svg(s))
            assert hint_target(s, a) in ids, (s.action_to_string(a), hint_target(s, a))
        s.apply(rng.choice(s.legal_actions()))
        checked += 1
    assert len(seen) > 40


def test_bad_arguments_are_named() -> None:
    """A viewer that is not a seat, or a hint that is not a move, is a clear error."""
    s = engine.new_game(num_players=2, seed=1)
    with pytest.raises(ValueError, match="viewer must be None"):
        engine.svg(s, viewer=2)
    with pytest.raises(engine.IllegalActionError, match="hint: unknown action notation"):
        engine.svg(s, hint="move:nowhere")
    with pytest.raises(engine.IllegalActionError, match="hint: action must be an int"):
        engine.svg(s, hint=10_000)
    with pytest.raises(TypeError, match="hint must be"):
        engine.svg(s, hint=1.5)
