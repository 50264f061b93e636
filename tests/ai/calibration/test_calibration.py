"""Calibrated hint numbers (ai.calibration.maps): the file the bots load, the maps, and the
meaning of win_probability and expected_money where it is known exactly."""
import json
import math
import random

import pytest

from bot_positions import decision_point
from gallerist import engine
from gallerist.ai import ExpectimaxBot, GreedyBot, MctsBot, RandomBot
from gallerist.ai.calibration.maps import (
    ENV_VAR, KINDS, PACKAGED, PLAYER_COUNTS, Calibration, CalibrationError, SeatMap,
)
from gallerist.ai.calibration.fit import Sample, fit_money, fit_win

BOTS = {
    "mcts": lambda **kw: MctsBot(iterations=300, seed=3, **kw),
    "expectimax": lambda **kw: ExpectimaxBot(depth=1, seed=3, **kw),
    "greedy": lambda **kw: GreedyBot(seed=3, **kw),
    "random": lambda **kw: RandomBot(seed=3, **kw),
}


def _last_turn_with_lead(lead: int) -> engine.GameState:
    """A 2-player decision point in the game's last turns (R-END-1) where player 0 leads
    by `lead` dollars: the game is as good as decided."""
    rng = random.Random(11)
    for seed in range(40):
        state = engine.new_game(2, seed)
        while not state.is_terminal():
            if state.is_chance():
                state.apply_random_chance(rng.randrange(1 << 30))
                continue
            if 0 <= state.turns_left <= 1 and len(state.legal_actions()) > 1:
                d = state.to_dict()
                d["players"][0]["money"] = d["players"][1]["money"] + lead
                return engine.GameState.from_json(json.dumps(d))
            state.apply(rng.choice(state.legal_actions()))
    raise AssertionError("no random game reached its last turns")


# ---------------------------------------------------------------------------- the file

def test_packaged_calibration_loads_with_every_kind_and_player_count():
    cal = Calibration.load(PACKAGED)
    assert {(k, n) for k in KINDS for n in PLAYER_COUNTS} <= set(cal.maps)
    assert all(cal.maps[(k, 1)].win is None for k in KINDS)       # solo: nobody to beat
    assert all(cal.turns[n] > 0 for n in PLAYER_COUNTS)


def test_missing_calibration_file_is_a_clear_error_naming_it(tmp_path):
    path = tmp_path / "nowhere.json"
    with pytest.raises(CalibrationError, match=f"calibration file {path} is missing"):
        Calibration.load(str(path))


def test_corrupt_calibration_file_is_a_clear_error_naming_it(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "gallerist-calibration/1", "turns": ')
    with pytest.raises(CalibrationError, match=f"calibration file {path} is not valid JSON"):
        Calibration.load(str(path))


@pytest.mark.parametrize("edit, field", [
    (lambda d: d.update(format="something-else"), "format"),
    (lambda d: d["turns"].pop("3"), "turns.3: missing"),
    (lambda d: d["turns"].update({"2": -4}), "turns.2: must be > 0"),
    (lambda d: d["maps"]["mcts"]["2"]["win"].pop("c"), "maps.mcts.2.win.c: missing"),
    (lambda d: d["maps"]["static"]["4"]["money"].update(beta="x"),
     "maps.static.4.money.beta: must be a finite number"),
    (lambda d: d["maps"].pop("expectimax"), "maps.expectimax: missing"),
    (lambda d: d["moves"]["static"].pop("scale"), "moves.static.scale: missing"),
    (lambda d: d["moves"]["expectimax"].update(scale=0), "moves.expectimax.scale: must be > 0"),
    (lambda d: d["maps"]["mcts"]["3"]["win"].update(q=-0.1), "maps.mcts.3.win.q: must be >= 0"),
    (lambda d: d["maps"]["mcts"]["3"]["win"].update(q="x"), "maps.mcts.3.win.q: must be a finite"),
])
def test_calibration_file_fields_are_checked_by_name(tmp_path, edit, field):
    data = json.loads(open(PACKAGED, encoding="utf-8").read())
    edit(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError) as info:
        Calibration.load(str(path))
    assert str(path) in str(info.value) and field in str(info.value)


def test_a_bot_with_a_corrupt_calibration_fails_at_its_first_analysis_naming_the_file(tmp_path, monkeypatch):
    path = tmp_path / "corrupt.json"
    path.write_text("not json")
    monkeypatch.setenv(ENV_VAR, str(path))
    bot = MctsBot(iterations=10)
    with pytest.raises(CalibrationError, match=str(path)):
        bot.calibration
    with pytest.raises(CalibrationError, match=str(path)):
        bot.analyze(decision_point(2, seed=1, skip=5))


def test_raw_bots_need_no_calibration_file(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "absent.json"))
    assert MctsBot(iterations=10, calibrated=False).calibration is None


def test_a_file_without_the_bend_reads_as_unbent(tmp_path):
    # Files written before the bend q existed hold five win parameters: q is then 0, the
    # map they were fitted as.
    data = json.loads(open(PACKAGED, encoding="utf-8").read())
    for kind in data["maps"].values():
        for entry in kind.values():
            entry.get("win", {}).pop("q", None)
    path = tmp_path / "older.json"
    path.write_text(json.dumps(data))
    cal = Calibration.load(str(path))
    assert all(m.win is None or m.win[5] == 0.0 for m in cal.maps.values())


def test_calibration_round_trips_through_its_file_form():
    cal = Calibration.load(PACKAGED)
    again = Calibration.from_dict(json.loads(json.dumps(cal.to_dict())))
    assert again.maps == cal.maps and again.turns == cal.turns


# ---------------------------------------------------------------------------- the maps

def _map(win_params, players, kind, t, mover, money, win=None):
    """The win probabilities a calibration holding `win_params` gives (identity money)."""
    cal = Calibration({(kind, players): SeatMap(win=tuple(win_params), money=(0.0, 1.0, 0.0, 0.0))},
                      {players: 30.0})
    return cal.calibrate(kind, players, t, mover, money, win)[1]


def test_win_map_sums_to_one_and_favours_the_richer_seat():
    p = _map((0.0, 0.0, 0.5, 0.2, 0.1, 0.0), 3, "expectimax", 0.5, 0, [30.0, 10.0, 20.0])
    assert sum(p) == pytest.approx(1.0)
    assert p[0] > p[2] > p[1]


def test_fit_recovers_a_known_win_map():
    rng = random.Random(5)
    truth = (0.0, 0.0, 0.8, 0.6, 0.3, 0.0)
    samples = []
    for _ in range(4000):
        money = (rng.uniform(0, 60), rng.uniform(0, 60))
        t, mover = rng.random(), rng.randrange(2)
        p = _map(truth, 2, "expectimax", t, mover, list(money))
        won = 0 if rng.random() < p[0] else 1
        samples.append(Sample(t, mover, money, None, money, (1.0 - won, float(won))))
    got = fit_win("expectimax", samples)
    assert got[2] == pytest.approx(truth[2], abs=0.15)
    assert got[3] == pytest.approx(truth[3], abs=0.3)
    assert got[4] == pytest.approx(truth[4], abs=0.15)


def test_bent_win_map_stays_monotone_in_the_win_share():
    # The bend q (u = a l - q l^2, l the log share) weighs a share's logit more where the
    # share is small; with q >= 0 a larger raw share still never lowers the forecast.
    flat = [_map((0.6, 0.0, 0.0, 0.0, 0.0, 0.0), 3, "mcts", 0.5, 0, [0.0] * 3,
                 [w, (1 - w) / 2, (1 - w) / 2])[0] for w in (0.05, 0.2, 0.4, 0.6, 0.8, 0.95)]
    bent = [_map((0.6, 0.0, 0.0, 0.0, 0.0, 0.15), 3, "mcts", 0.5, 0, [0.0] * 3,
                 [w, (1 - w) / 2, (1 - w) / 2])[0] for w in (0.05, 0.2, 0.4, 0.6, 0.8, 0.95)]
    assert bent == sorted(bent) and len(set(bent)) == len(bent)
    assert bent[0] < flat[0] and bent[-1] > flat[-1]   # small shares count for more
    assert sum(_map((0.6, 0.0, 0.0, 0.0, 0.0, 0.15), 3, "mcts", 0.5, 0, [0.0] * 3,
                    [0.5, 0.3, 0.2])) == pytest.approx(1.0)


def test_fit_recovers_a_known_bend():
    rng = random.Random(7)
    truth = (0.5, 0.0, 0.0, 0.0, 0.0, 0.2)
    samples = []
    for _ in range(6000):
        w0 = rng.uniform(0.02, 0.98)
        win = (w0, 1.0 - w0)
        t, mover = rng.random(), rng.randrange(2)
        p = _map(truth, 2, "mcts", t, mover, [0.0, 0.0], list(win))
        won = 0 if rng.random() < p[0] else 1
        samples.append(Sample(t, mover, (0.0, 0.0), win, (0.0, 0.0), (1.0 - won, float(won))))
    got = fit_win("mcts", samples, free=(0, 1, 4, 5))
    assert got[5] == pytest.approx(truth[5], abs=0.08)
    assert got[0] + 0.5 * got[1] == pytest.approx(truth[0], abs=0.15)
    unbent = fit_win("mcts", samples, free=(0, 1, 4))
    assert unbent[5] == 0.0


def test_fit_recovers_an_exact_money_map():
    rows = [Sample(t / 10, 0, (m, m + 5), None, (3 + 1.5 * m + 20 * t / 10 + 0.5 * (t / 10) * m,
                                                  3 + 1.5 * (m + 5) + 20 * t / 10 + 0.5 * (t / 10) * (m + 5)),
                   (1.0, 0.0))
            for t in range(10) for m in range(0, 50, 7)]
    assert fit_money(rows) == pytest.approx((3.0, 1.5, 20.0, 0.5), abs=1e-6)


def test_stage_runs_from_zero_to_a_clipped_end():
    cal = Calibration.load(PACKAGED)
    assert cal.stage(2, 0) == 0.0
    assert cal.stage(2, 10_000) == pytest.approx(1.2)


# ---------------------------------------------------------------------------- the bots

@pytest.mark.parametrize("name", sorted(BOTS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_win_probabilities_are_probabilities_that_sum_to_one(name, players):
    state = decision_point(players, seed=players, skip=25)
    a = BOTS[name]().analyze(state)
    for m in a.moves:
        assert all(0.0 <= w <= 1.0 for w in m.win_probabilities)
        assert sum(m.win_probabilities) == pytest.approx(1.0)
        assert m.win_probability == m.win_probabilities[a.player]
        assert len(m.expected_money) == players and all(map(math.isfinite, m.expected_money))
    assert a.root.win_probabilities == a.moves[0].win_probabilities
    assert a.root.expected_money == a.moves[0].expected_money


@pytest.mark.parametrize("name", sorted(BOTS))
def test_solo_has_no_win_probability(name):
    a = BOTS[name]().analyze(decision_point(1, seed=2, skip=10))
    assert all(m.win_probability is None and m.win_probabilities == [] for m in a.moves)
    assert a.root.win_probabilities == [] and len(a.root.expected_money) == 1


@pytest.mark.parametrize("name", ["mcts", "expectimax", "greedy"])
def test_a_decided_position_reads_near_certain(name):
    state = _last_turn_with_lead(150)
    a = BOTS[name]().analyze(state)
    p_leader = a.root.win_probabilities[0]
    assert p_leader > 0.95, (name, a.root)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_calibrated_numbers_are_the_map_applied_to_the_raw_ones(name):
    state = decision_point(3, seed=7, skip=30)
    raw = BOTS[name](calibrated=False).analyze(state)
    bot = BOTS[name]()
    cal = bot.calibration
    got = bot.analyze(state)
    t = cal.stage(3, state.turn_number)
    assert got.playout_win == raw.playout_win   # the same seeded playouts
    for r, m in zip(raw.moves, got.moves):
        assert r.action == m.action
        kind = bot.move_kind(r)
        shares = r.win_probabilities if kind == "mcts" else raw.playout_win
        money, win = cal.calibrate(kind, 3, t, raw.player, r.expected_money, shares)
        assert m.expected_money == pytest.approx(money)
        assert m.win_probabilities == pytest.approx(win)


def test_calibrated_option_is_a_spec_option():
    from gallerist.ai.bots.spec import make_bot

    assert make_bot("mcts:calibrated=false").calibration is None
    assert isinstance(make_bot("greedy").calibration, Calibration)


def test_a_map_changes_what_the_bot_reports():
    cal = Calibration.load(PACKAGED)
    maps = dict(cal.maps)
    maps[("static", 2)] = SeatMap(win=(0.0, 0.0, 0.0, 0.0, 0.0, 0.0), money=(7.0, 0.0, 0.0, 0.0))
    bot = GreedyBot(seed=1)
    bot.calibration = Calibration(maps, cal.turns)
    a = bot.analyze(decision_point(2, seed=1, skip=20))
    assert all(m.win_probabilities == pytest.approx([0.5, 0.5]) for m in a.moves)
    assert all(m.expected_money == pytest.approx([7.0, 7.0]) for m in a.moves)


def test_player_counts_with_few_games_share_the_win_map_fitted_on_all():
    from gallerist.ai.calibration.fit import fit

    rng = random.Random(2)

    def samples(n, count):
        out = []
        for _ in range(count):
            money = tuple(rng.uniform(0, 60) for _ in range(n))
            best = max(range(n), key=lambda i: money[i] + rng.gauss(0, 15))
            out.append(Sample(rng.random(), rng.randrange(n), money, None, money,
                              tuple(1.0 if i == best else 0.0 for i in range(n))))
        return out

    data = {("static", 1): samples(1, 50), ("static", 2): samples(2, 400),
            ("static", 3): samples(3, 60), ("static", 4): samples(4, 60)}
    cal = fit(data, {1: 30.0, 2: 30.0, 3: 30.0, 4: 30.0}, pooled=[3, 4])
    everything = fit_win("static", data[("static", 2)] + data[("static", 3)] + data[("static", 4)])
    assert cal.maps[("static", 3)].win == cal.maps[("static", 4)].win == pytest.approx(everything)
    assert cal.maps[("static", 2)].win == pytest.approx(fit_win("static", data[("static", 2)]))
    assert cal.maps[("static", 1)].win is None


@pytest.mark.parametrize("kind", ["mcts", "expectimax", "static"])
def test_cross_validation_picks_the_inputs_that_carry_the_information(kind):
    """For every kind the win shares (MCTS's own, the others' root playouts) or the
    money are kept by cross-validation when they carry what decides the winner."""
    from gallerist.ai.calibration.fit import choose_win

    rng = random.Random(8)

    def samples(informative_money: bool):
        out = []
        for game in range(200):
            for _ in range(4):
                money = (rng.uniform(0, 60), rng.uniform(0, 60))
                share = rng.random()
                truth = (money[0] - money[1]) / 10 if informative_money else 4 * (share - 0.5)
                won = 0 if rng.random() < 1 / (1 + math.exp(-truth)) else 1
                out.append(Sample(rng.random(), 0, money, (share, 1 - share), money,
                                  (1.0 - won, float(won)), game=2 * game))
        return out

    _, by_money = choose_win(kind, samples(informative_money=True))
    _, by_share = choose_win(kind, samples(informative_money=False))
    assert "money" in by_money
    assert "win" in by_share
    params, name = choose_win(kind, samples(informative_money=False))
    if name == "win":
        assert params[2] == params[3] == 0.0   # the money inputs stay out of the map


def test_the_move_scale_is_recovered_from_mcts_per_move_numbers():
    """fit_move_scales: MCTS's logit difference between two moves is the heuristic's
    margin difference / 50 $, so the fitted scale is 50 for both heuristic kinds."""
    from gallerist.ai.calibration.fit import fit_move_scales

    cal = Calibration.load(PACKAGED)
    maps = dict(cal.maps)
    maps[("mcts", 2)] = SeatMap(win=(1.0, 0.0, 0.0, 0.0, 0.0, 0.0), money=cal.maps[("mcts", 2)].money)
    cal = Calibration(maps, cal.turns)   # MCTS's calibrated p is its raw win share
    rng = random.Random(4)
    rows = []
    for k in range(40):
        base = rng.uniform(-1, 1)
        heur = [[a, 0, [60 - d, 60], []] for a, d in ((1, 0.0), (2, rng.uniform(1, 40)), (3, rng.uniform(1, 40)))]
        share = [1 / (1 + math.exp(-(base - d / 50))) for _, _, (m, _), _ in heur for d in [60 - m]]
        mcts = [[a, 100, [0.0, 0.0], [w, 1 - w]] for (a, *_), w in zip(heur, share)]
        rows.append({"game": 2 * k, "ply": 5, "mover": 0, "turn": 10, "bots": {
            "mcts": {"kind": "mcts", "moves": mcts},
            "expectimax": {"kind": "expectimax", "moves": heur},
            "greedy": {"kind": "static", "moves": heur}}})
    scales, info = fit_move_scales(rows, cal)
    assert scales == pytest.approx({"expectimax": 50.0, "static": 50.0}, rel=1e-3)
    assert info["expectimax"]["pairs"] == 80


@pytest.mark.parametrize("name", ["expectimax", "greedy"])
def test_a_heuristic_bots_moves_are_told_apart_by_their_money(name):
    """The position's playout shares are the first move's numbers (the root); a move
    whose money margin is lower reads a lower win probability (the move scale)."""
    state = decision_point(2, seed=12, skip=30)
    while len(state.legal_actions()) < 3:
        state = decision_point(2, seed=12 + len(state.history), skip=30)
    bot = BOTS[name]()
    a = bot.analyze(state)
    raw = BOTS[name](calibrated=False).analyze(state)
    me = a.player

    def margin(money):
        return money[me] - max(m for i, m in enumerate(money) if i != me)

    pairs = [(margin(r.expected_money), m.win_probability) for r, m in zip(raw.moves, a.moves)]
    first = pairs[0]
    for mg, p in pairs[1:]:
        assert (p < first[1]) == (mg < first[0]) or mg == first[0]
