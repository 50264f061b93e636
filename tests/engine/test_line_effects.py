"""What a line of play changes for a seat (engine.line_effects) and why a move is worth
what the search says (ai.explain), on constructed positions with a known answer: a sale
that pays now against a purchase that pays at the final scoring, a move that takes the
last free location from the next player, a sale that fulfils a contract."""
from __future__ import annotations

from helpers import A, IM, MC, SO, build, clean_raw, place_assistant, place_gallerist
from test_rules_sales import _sell_position

from gallerist.ai.values import MoveInfo
from gallerist.ai.explain import explain_move
from gallerist.engine.actions import string_to_action
from gallerist.engine.line_effects import compare_lines, line_effects, play_line, scoring_changes

SALE = ["move:SO", "action:B", "visitor:vip"]
PURCHASE = ["move:AC", "action:B", "artist:painting-blue", "pay:influence=0", "fame:+0"]


def _ids(notations):
    return [string_to_action(n) for n in notations]


def _move(notations, win, money, seats=2):
    pv = _ids(notations)
    others = [(1 - win) / (seats - 1)] * (seats - 1)
    return MoveInfo(action=pv[0], notation=notations[0], visits=100, pv=pv,
                    win_probability=win, win_probabilities=[win] + others,
                    expected_money=[money] + [50.0] * (seats - 1))


def _by(reasons, kind, subject=""):
    found = [r for r in reasons if r.kind == kind and r.subject == subject]
    assert found, f"no {kind} {subject!r} among {[r.words for r in reasons]}"
    return found[0]


def test_a_sale_pays_now_and_its_money_is_the_engines():
    """R-CON-2: the sale's explanation names the money it pays now ($11 for the photo at
    fame 9), the work sold and the gallery it leaves, with the engine's amounts."""
    s = build(_sell_position())
    end = play_line(s, _ids(SALE))
    now = line_effects(s, _ids(SALE), 0)
    money = _by(now, "money")
    assert (money.before, money.after) == (10, 21) == (s.money()[0], end.money()[0])
    assert _by(now, "sold", "photo").change == 1
    assert _by(now, "gallery", "blue photographer").change == -1
    assert money.words == "Money $10 → $21 (+$11)"
    # the exhibited work no longer scores at the end: the exhibition step loses its $11
    exhibition = _by(scoring_changes(s, _ids(SALE), 0), "scoring", "exhibition")
    assert (exhibition.before, exhibition.after) == (11, 0)


def test_a_purchase_pays_at_the_final_scoring():
    """R-ART-1: the purchase's explanation names the work that joins the gallery and
    the final scoring it raises: the exhibition step grows by the work's value after the
    purchase (engine.GameState.sale_value), and the money paid now."""
    s = build(_sell_position())
    line = _ids(PURCHASE)
    end = play_line(s, line)
    now = line_effects(s, line, 0)
    assert _by(now, "gallery", "blue painter").change == 1
    assert _by(now, "money").after == end.money()[0] < 10
    exhibition = _by(scoring_changes(s, line, 0), "scoring", "exhibition")
    assert exhibition.change == end.sale_value(A["painting-blue"])
    assert exhibition.after == end.scoring_now()[0]["exhibition"]


def test_sale_against_purchase_names_the_search_numbers_and_the_largest_differences():
    """The comparison's win probability and expected money are the search's (this move's
    minus the other's); its differences are the engine's quantities after each line,
    largest first: the sale's money now against the purchase's work in the gallery."""
    s = build(_sell_position())
    sale, purchase = _move(SALE, 0.62, 58.0), _move(PURCHASE, 0.55, 61.5)
    e = explain_move(s, 0, sale, purchase)
    assert e.versus.win_probability == 0.62 - 0.55
    assert e.versus.expected_money == 58.0 - 61.5
    assert e.versus.action == purchase.action
    kinds = [(r.kind, r.subject) for r in e.versus.differences]
    assert ("money", "") in kinds
    money = _by(e.versus.differences, "money")
    assert money.after == 21 and money.before == play_line(s, purchase.pv).money()[0]
    assert "win probability +7.0 points" in e.words and "expected money -$3.5" in e.words
    assert e.now[0].kind == "money" and e.words.startswith("Now: money $10 → $21 (+$11)")
    # the other way round, the purchase gives up the sale's money
    back = explain_move(s, 0, purchase, sale)
    assert back.versus.win_probability == 0.55 - 0.62
    assert _by(back.versus.differences, "money").change == -money.change


def test_taking_the_last_free_location_from_the_next_player():
    """R-MOVE-2: moving onto the last free location (the Artists Colony) takes it from
    the player who plays next; kicking out an assistant instead leaves it free. Both
    explanations say so, naming the location and the next seat."""
    raw = clean_raw(3)
    place_gallerist(raw, 1, SO)
    place_assistant(raw, 2, MC)
    place_assistant(raw, 1, IM)
    s = build(raw)
    assert s._raw()["loc_owner"] == [1, -1, 2, 1]      # only the Artists Colony is free
    take, kick = _move(["move:AC"], 0.4, 40.0, 3), _move(["move:MC"], 0.3, 38.0, 3)
    taking = explain_move(s, 0, take, kick)
    place = _by(taking.versus.differences, "place", "Artists Colony")
    assert place.words == ("Takes the Artists Colony, which the other move leaves free for "
                           "P1, who plays next")
    leaving = explain_move(s, 0, kick, take)
    place = _by(leaving.versus.differences, "place", "Artists Colony")
    assert place.words == "Leaves the Artists Colony free for P1, who plays next"


def test_a_sale_fulfils_its_contract():
    """R-CON-2: selling a work with a face-up contract turns it (a fulfilled contract),
    and the explanation counts it; a move that does not sell does not."""
    s = build(_sell_position())
    fulfilled = _by(line_effects(s, _ids(SALE), 0), "contract", "fulfilled")
    assert (fulfilled.before, fulfilled.after) == (0, 1)
    assert fulfilled.words == "Contracts fulfilled 0 → 1"
    assert not [r for r in line_effects(s, _ids(PURCHASE), 0) if r.subject == "fulfilled"]
    diffs = compare_lines(s, _ids(SALE), _ids(PURCHASE), 0, top=10)
    assert _by(diffs, "contract", "fulfilled").change == 1


def test_solo_lacerdas_moves_after_the_turn_are_named():
    """Solo (RN §10, Lacerda acts inside the engine): her forced moves follow the
    player's turn inside the engine, so a line through the end of the turn names them as an event of the line."""
    s = build(clean_raw(1))
    line = []
    walk = s.clone_position()
    while walk.turn_number == s.turn_number and not walk.is_terminal():
        action = (walk.chance_outcomes()[0][0] if walk.is_chance() else walk.legal_actions()[0])
        line.append(action)
        walk.apply(action)
    events = [r for r in line_effects(s, line, 0) if r.kind == "event"]
    assert [(r.subject, r.before, r.after, r.words) for r in events] == [
        ("Lacerda", 0.0, 1.0, "Lacerda makes her moves after your turn")]
    assert not [r for r in line_effects(s, line[:1], 0) if r.kind == "event"]
