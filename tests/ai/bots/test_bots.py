"""The bots issue: legality, determinism, analysis consistency, hidden information,
obvious moves and strength."""
from __future__ import annotations

import random

import pytest

from gallerist import ai
from gallerist import engine
from gallerist.ai.arena.play import play_game
from gallerist.engine.state import GameState, TASK_KINDS

SMALL_SPECS = ["random", "greedy", "expectimax:depth=2", "mcts:iterations=60",
               "mcts:iterations=60,threads=2", "mcts:iterations=60,rollout=heuristic,cutoff=10"]


def random_decision_states(num_players: int, count: int, seed: int) -> list[GameState]:
    """Decision points sampled along seeded random games."""
    rng = random.Random(seed)
    out: list[GameState] = []
    game = 0
    while len(out) < count:
        s = engine.new_game(num_players, seed=seed * 100 + game)
        game += 1
        stop_at = rng.randrange(5, 250)
        steps = 0
        while not s.is_terminal():
            if s.is_chance():
                s.apply_random_chance(rng.randrange(1 << 30))
                continue
            if steps == stop_at:
                break
            s.apply(rng.choice(s.legal_actions()))
            steps += 1
        if not s.is_terminal() and not s.is_chance():
            out.append(s)
    return out


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
@pytest.mark.parametrize("spec", SMALL_SPECS)
def test_bots_only_return_legal_actions(spec: str, num_players: int) -> None:
    """Every bot's choice and every analyzed move is legal, for all player counts (1: the
    solo game against Lacerda)."""
    bot = ai.make_bot(spec, seed=3)
    for s in random_decision_states(num_players, 6, seed=num_players):
        legal = set(s.legal_actions())
        assert bot.choose(s) in legal
        analysis = bot.analyze(s)
        assert {m.action for m in analysis.moves} == legal


@pytest.mark.parametrize("spec", ["random", "greedy", "expectimax:depth=2", "mcts:iterations=150",
                                  "mcts:iterations=150,rollout=heuristic,cutoff=15"])
def test_same_seed_same_analysis(spec: str) -> None:
    """Determinism: same seed, state and budget give the same analysis (one thread)."""
    s = random_decision_states(3, 1, seed=11)[0]
    a1 = ai.make_bot(spec, seed=5).analyze(s)
    a2 = ai.make_bot(spec, seed=5).analyze(s)
    assert [(m.action, m.visits, m.pv) for m in a1.moves] == [(m.action, m.visits, m.pv) for m in a2.moves]
    assert [m.expected_money for m in a1.moves] == [m.expected_money for m in a2.moves]


def replay_pv(s: GameState, pv: list[int]) -> None:
    t = s.copy()
    for a in pv:
        if t.is_chance():
            assert a in [x for x, _ in t.chance_outcomes()]
        else:
            assert a in t.legal_actions()
        t.apply(a)


@pytest.mark.parametrize("spec", ["mcts:iterations=300", "expectimax:depth=2", "greedy"])
def test_analysis_fields_consistent(spec: str) -> None:
    """Visits sum to iterations at the root, ranks ordered, each PV legal when replayed and
    staying within the mover's turn, money per player, probabilities in [0, 1]."""
    for s in random_decision_states(2, 4, seed=7):
        an = ai.make_bot(spec, seed=1).analyze(s)
        player = s.current_player
        if spec.startswith("mcts"):
            assert sum(m.visits for m in an.moves) == an.iterations == 300
            assert [m.visits for m in an.moves] == sorted((m.visits for m in an.moves), reverse=True)
        else:
            assert [m.value for m in an.moves] == sorted((m.value for m in an.moves), reverse=True)
        assert an.nodes > 0 and an.elapsed_ms >= 0
        for m in an.moves:
            assert m.pv[0] == m.action
            assert len(m.expected_money) == s.num_players
            assert 0.0 <= m.win_probability <= 1.0
            replay_pv(s, m.pv)
            t = s.copy()
            for a in m.pv:   # the whole PV is the mover's (or chance's) turn
                assert t.current_player in (player, engine.CHANCE)
                t.apply(a)


def celebrity_buy_state() -> tuple[GameState, int, int]:
    """Final turn of a 2-player game; player 0 must buy: artist A at fame 17 whose top
    tile gives +2 fame (a celebrity: +$5 and two masterpieces), or a cheap artist B."""
    s = engine.new_game(2, seed=5)
    raw = s._raw()
    a = next(i for i in range(8) if raw["ar_discovered"][i])
    b = next(i for i in range(8) if not raw["ar_discovered"][i] and i >> 1 != a >> 1)
    f = a >> 1
    raw["ar_fame"][a] = 17
    raw["stack_top"][f] = 7                  # tile 8: fame +2
    raw["stack_mask"][f] &= ~(1 << 7)
    raw["ar_tokens"][a] = 1
    raw["ar_discovered"][b] = 1
    raw["ar_bonus"][b] = -1
    if raw["ar_collector"][b]:
        raw["ar_collector"][b] = 0
        raw["plaza"][2] += 1
    p0 = raw["players"][0]
    p0["money"] = 30
    p0["works"][0] = a
    p0["nworks"] = 1
    p0["acquired"][f] = 1
    raw["end_triggered"] = 1
    raw["turns_left"] = 1
    raw["turn_player"] = 0
    raw["tasks"] = [
        {"kind": TASK_KINDS["T_END_TURN"], "player": 0, "a": 0, "b": 0, "c": 0},
        {"kind": TASK_KINDS["T_AFTER_ACTION"], "player": 0, "a": 0, "b": 0, "c": 0},
        {"kind": TASK_KINDS["T_BUY"], "player": 0, "a": 0, "b": 0, "c": 0},
    ]
    raw["num_tasks"] = 3
    state = GameState._from_raw(raw)
    assert state._invariant_code() == 0
    return state, engine.ACTION_BASES["artist"] + a, engine.ACTION_BASES["artist"] + b


@pytest.mark.parametrize("spec", ["mcts:iterations=400", "expectimax:depth=3", "greedy"])
def test_finds_the_buy_that_makes_a_celebrity(spec: str) -> None:
    """R-ART-3: a buy that makes a celebrity (+$5, masterpieces) is found."""
    state, celebrity, cheap = celebrity_buy_state()
    assert {celebrity, cheap} <= set(state.legal_actions())
    assert ai.make_bot(spec, seed=2).choose(state) == celebrity


@pytest.mark.parametrize("spec", ["mcts:iterations=200", "expectimax:depth=2", "greedy"])
def test_search_never_reads_hidden_cards(spec: str) -> None:
    """Two states differing only in an opponent's private cards give the same analysis."""
    s = random_decision_states(2, 1, seed=21)[0]
    me = s.current_player
    raw = s._raw()
    other = raw["players"][1 - me]
    mine = raw["players"][me]
    other["curator"] = next(c for c in range(4) if c not in (other["curator"], mine["curator"]))
    other["dealer"] = next(c for c in range(4) if c not in (other["dealer"], mine["dealer"]))
    t = GameState._from_raw(raw, s.history)
    assert t.state_bytes() != s.state_bytes()
    a1 = ai.make_bot(spec, seed=4).analyze(s)
    a2 = ai.make_bot(spec, seed=4).analyze(t)
    assert [(m.action, m.visits, m.expected_money) for m in a1.moves] == \
        [(m.action, m.visits, m.expected_money) for m in a2.moves]


def test_unknown_bot_or_option_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown bot 'alphazero'"):
        ai.make_bot("alphazero")
    with pytest.raises(ValueError, match="unknown option 'depthh' for bot 'expectimax'"):
        ai.make_bot("expectimax:depthh=3")
    with pytest.raises(ValueError, match="iterations='many'"):
        ai.make_bot("mcts:iterations=many")
    with pytest.raises(ValueError, match="threads"):
        ai.make_bot("mcts:threads=0")


def test_analyze_rejects_chance_and_terminal_states() -> None:
    s = engine.new_game(2, seed=1)
    while not s.is_chance():
        s.apply(s.legal_actions()[0])
    with pytest.raises(ValueError, match="chance"):
        ai.make_bot("greedy").analyze(s)


def test_mcts_tree_reuse_continues_below_the_old_root() -> None:
    """Tree reuse: a second call on a state below the previous root keeps its statistics."""
    s = random_decision_states(2, 1, seed=31)[0]
    bot = ai.make_bot("mcts:iterations=400", seed=9)
    first = bot.analyze(s)
    child = None
    for move in first.moves:     # a move after which the same player decides again
        t = s.copy()
        t.apply(move.action)
        while t.is_chance():
            t.apply_random_chance(1)
        if move.visits > 20 and not t.is_terminal() and t.current_player == s.current_player:
            child = t
            break
    assert child is not None
    second = bot.analyze(child, {"iterations": 100})
    assert second.iterations > 100   # visits carried over from the first search


def test_mcts_beats_random() -> None:
    """Strength: MCTS wins at least 9 of 10 seat-alternating games against random."""
    wins = 0.0
    for g in range(10):
        mcts = ai.make_bot("mcts:iterations=200", seed=g)
        rnd = ai.make_bot("random", seed=100 + g)
        seat = g % 2
        bots = [mcts, rnd] if seat == 0 else [rnd, mcts]
        final = play_game(bots, seed=1000 + g // 2)
        wins += final.returns()[seat]
    assert wins >= 9


@pytest.mark.parametrize("spec", ["greedy", "mcts:iterations=60", "expectimax:depth=1"])
def test_bots_play_solo_games(spec: str) -> None:
    """Solo (one player against Lacerda): a whole game, with solo-sized analysis values:
    one money entry and no win probability (nobody to beat: the expected money is the
    evaluation)."""
    bot = ai.make_bot(spec, seed=2)
    state = engine.new_game(1, seed=8)
    an = bot.analyze(state)
    for m in an.moves:
        assert len(m.expected_money) == 1 and m.win_probability is None
    final = play_game([bot], seed=8)
    assert final.is_terminal() and final.winners() == [0]
    money = final.money()[0]
    assert final.returns() == [pytest.approx(money / (money + engine.state.SOLO_RETURN_SCALE))]


def test_solo_scores_mcts_and_greedy_beat_random() -> None:
    """Strength in the solo game: greedy and MCTS score more than random play."""
    score = {"random": 0, "greedy": 0, "mcts:iterations=100": 0}
    for g in range(3):
        for spec in score:
            score[spec] += play_game([ai.make_bot(spec, seed=g)], seed=200 + g).money()[0]
    assert score["greedy"] > score["random"] and score["mcts:iterations=100"] > score["random"]
