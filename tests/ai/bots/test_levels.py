"""Levels (ai.bots.levels): `level:N` and `level:elo=E` specs, the seeded skill pick among
the search's best moves, never one rated far below the best, and range errors."""
from __future__ import annotations

import random

import pytest

from gallerist.ai.values import MoveInfo
from gallerist.ai.bots.levels import (LEVELS, LevelRating, Setting, setting_for_elo,
                                      skill_pick)
from gallerist.ai.bots.spec import make_bot, parse_spec, resolved_spec
from gallerist.server.demo_state import demo_state


def _moves(values: list[float], visits: list[int]) -> list[MoveInfo]:
    return [MoveInfo(action=i, notation=str(i), visits=n, value=v)
            for i, (v, n) in enumerate(zip(values, visits))]


def test_a_level_is_given_by_its_number_alone() -> None:
    """`level:3` is `level:level=3`, and plays the third setting."""
    assert parse_spec("level:3") == ("level", {"level": 3})
    assert parse_spec("level:3") == parse_spec("level:level=3")
    assert make_bot("level:3").setting == LEVELS[2]
    assert len(LEVELS) >= 8


def test_the_levels_grow_in_search_and_shrink_in_noise() -> None:
    """Each level searches at least as much as the one below and picks with no more noise;
    the top level is the default bot at its default budget playing its best move."""
    for low, high in zip(LEVELS, LEVELS[1:]):
        assert high.iterations >= low.iterations
        assert high.temperature <= low.temperature and high.max_loss <= low.max_loss
    assert LEVELS[-1] == Setting(1000, 0.0, 0.0, 1)


@pytest.mark.parametrize("spec, words", [
    ("level:9", "must be a level 1..8, got 9"),
    ("level:0", "needs a level 1..8"),
    ("level", "needs a level 1..8"),
    ("level:3,elo=900", "one of them"),
    ("level:2,iterations=50", "one of them"),
    ("level:x", "expected int"),
])
def test_a_bad_level_is_refused_naming_the_range(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        make_bot(spec)


RATED = [LevelRating(1, 200.0, (100.0, 300.0), 40), LevelRating(2, 400.0, (300.0, 500.0), 40),
         LevelRating(3, 700.0, (600.0, 800.0), 40)]


def test_elo_interpolates_between_the_levels_around_it() -> None:
    """At a level's rating its setting; between two, iterations and temperature between
    theirs (log scale), the rest in proportion."""
    assert setting_for_elo(400.0, RATED) == LEVELS[1]
    assert setting_for_elo(200.0, RATED) == LEVELS[0]
    mid = setting_for_elo(550.0, RATED)
    lo, hi = LEVELS[1], LEVELS[2]
    assert min(lo.iterations, hi.iterations) <= mid.iterations <= max(lo.iterations, hi.iterations)
    assert min(lo.temperature, hi.temperature) < mid.temperature < max(lo.temperature, hi.temperature)


@pytest.mark.parametrize("elo", [199.0, 701.0, float("nan")])
def test_an_elo_outside_the_levels_is_refused_naming_the_range(elo: float) -> None:
    with pytest.raises(ValueError, match=r"elo must be a rating 200\.\.700 \(level 1 to level 3\)"):
        setting_for_elo(elo, RATED)


def test_the_pick_never_leaves_the_candidates_nor_the_loss_bound() -> None:
    """Only visited moves among the first `candidates`, within `max_loss` of the first's
    value, are ever played; temperature 0 plays the first."""
    moves = _moves([0.60, 0.58, 0.40, 0.59, 0.70, 0.60], [50, 20, 10, 5, 1, 0])
    setting = Setting(100, 0.5, 0.1, 4)
    rng = random.Random(1)
    seen = {skill_pick(moves, setting, rng).action for _ in range(2000)}
    assert seen == {0, 1, 3}        # 2 is 0.2 below; 4 and 5 are beyond the candidates
    assert skill_pick(moves, Setting(100, 0.0, 0.1, 4), rng).action == 0


def test_the_pick_weighs_moves_by_their_loss() -> None:
    """A move `temperature` below the best is drawn about 1/e as often as the best."""
    moves = _moves([0.5, 0.45], [30, 20])
    rng = random.Random(7)
    n = 20000
    second = sum(skill_pick(moves, Setting(100, 0.05, 1.0, 2), rng).action for _ in range(n))
    share = second / n
    expected = 0.36788 / (1 + 0.36788)
    assert abs(share - expected) < 0.02


def test_a_level_move_is_seeded_by_the_seed_and_the_position() -> None:
    """The same position and seed give the same move; a level's move is legal and is one
    of its analysis's moves."""
    state = demo_state(seed=3)
    picks = {make_bot("level:1", seed=5).choose(state) for _ in range(3)}
    assert len(picks) == 1
    a = make_bot("level:1", seed=5).analyze(state)
    assert a.chosen in state.legal_actions() and a.played.action == a.chosen
    spread = {make_bot("level:1", seed=s).analyze(state).chosen for s in range(40)}
    assert len(spread) > 1      # level 1 does not always play the same move


def test_a_level_searches_its_own_iterations_within_a_time_limit() -> None:
    """A budget's iterations do not change a level; its time limit cuts it short."""
    bot = make_bot("level:5")
    assert bot.budget_for(type(bot.default_budget())(iterations=5000, time_ms=50.0)).iterations \
        == LEVELS[4].iterations
    a = bot.analyze(demo_state(seed=2), {"iterations": 5000})
    assert a.iterations == LEVELS[4].iterations


def test_the_resolved_spec_writes_out_the_settings() -> None:
    bot = make_bot("level:2")
    spec = resolved_spec("level:2", bot, 2)
    name, opts = parse_spec(spec)
    assert name == "level" and opts["iterations"] == LEVELS[1].iterations
    assert opts["temperature"] == LEVELS[1].temperature


def test_the_packaged_ratings_are_of_these_levels_and_rise_level_by_level() -> None:
    """ai/bots/levels.json measured the levels as they are now (each level's settings),
    every level is rated, the ratings rise, and each step over the level below has a
    95% interval above zero (a level re-tuned must be measured again)."""
    import json

    from gallerist.ai.bots.levels import RATINGS_FILE, level_ratings

    data = json.load(open(RATINGS_FILE, encoding="utf-8"))
    assert [x["spec"] for x in data["levels"]] == [s.spec(calibrated=False) for s in LEVELS]
    rated = level_ratings()
    assert [r.level for r in rated] == list(range(1, len(LEVELS) + 1))
    for low, high in zip(rated, rated[1:]):
        assert high.elo > low.elo
        assert high.step is not None and high.step_ci is not None and high.step_ci[0] > 0


def test_the_docs_show_the_levels_as_gallerist_levels_prints_them() -> None:
    """docs/levels.md holds the table `gallerist levels --markdown` prints (after a new
    measurement, paste it there)."""
    from pathlib import Path

    from gallerist.ai.bots.levels import levels_table

    doc = (Path(__file__).resolve().parents[3] / "docs" / "levels.md").read_text(encoding="utf-8")
    assert levels_table(markdown=True).strip() in doc
