"""A player's strength from a game's analysis (ai.review.strength): the least-squares map
from average loss and mistakes to Elo, its 95% prediction interval, and where it applies."""
from __future__ import annotations

import math
import random

import pytest

from gallerist.ai.review.strength import Strength, combine, describe, features, fit, strength_of


def _synthetic(n: int, noise: float, seed: int = 1):
    """Seat-games whose Elo is 100 - 200 log(loss + 0.002) - 1000 x bad share + noise."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        loss = math.exp(rng.uniform(-7, -3))
        bad = rng.randrange(0, 6)
        counts = {"inaccuracy": 3, "mistake": bad, "blunder": 0}
        x = features(100, loss, counts)
        rows.append((100, loss, counts, 100 * x[0] - 200 * x[1] - 1000 * x[2] + rng.gauss(0, noise)))
    return rows


def test_the_fit_recovers_the_map_and_its_noise() -> None:
    model = fit(_synthetic(400, 50.0), "test analyzer", [(1, 200.0), (2, 900.0)])
    assert model.coef == pytest.approx((100, -200, -1000), abs=40)
    assert model.sigma == pytest.approx(50.0, rel=0.15)


def test_the_interval_holds_the_truth_about_95_percent_of_the_time() -> None:
    """On new seat-games from the same map, the prediction interval covers 90-99%."""
    model = fit(_synthetic(300, 80.0), "test analyzer")
    fresh = _synthetic(400, 80.0, seed=2)
    inside = sum(model.estimate(d, loss, c).ci[0] <= elo <= model.estimate(d, loss, c).ci[1]
                 for d, loss, c, elo in fresh)
    assert 0.90 <= inside / len(fresh) <= 0.99


def test_the_estimate_names_the_nearest_level() -> None:
    model = fit(_synthetic(200, 30.0), "test analyzer", [(1, 200.0), (2, 900.0), (3, 1500.0)])
    strong = model.estimate(100, math.exp(-6.5), {"mistake": 0})
    weak = model.estimate(100, math.exp(-3.2), {"mistake": 5})
    assert strong.elo > weak.elo and strong.level > weak.level


def test_the_estimate_in_words() -> None:
    assert describe(Strength(1350.4, (1150.0, 1549.6), 4)) == \
        "played like level 4 (about 1,350 Elo, 95% CI 1,150 to 1,550)"


@pytest.mark.parametrize("players, decisions", [(1, 50), (3, 50), (4, 50), (2, 0)])
def test_no_estimate_solo_at_three_or_four_players_or_without_decisions(players: int,
                                                                       decisions: int) -> None:
    """The ladder is rated at two players: elsewhere there is no scale to place a seat on."""
    model = fit(_synthetic(50, 30.0), "test analyzer")
    assert strength_of(players, decisions, 0.01, {}, model) is None
    assert strength_of(2, 50, 0.01, {}, model) is not None


def _game(elo: float, sd: float) -> Strength:
    half = 1.959964 * sd
    return Strength(elo, (elo - half, elo + half), 0)


def test_one_games_combination_is_that_game() -> None:
    """A player with one rated game: the combination is that game's estimate."""
    one = combine([_game(900.0, 240.0)], between_sd=140.0)
    assert one.elo == pytest.approx(900.0)
    assert one.ci == pytest.approx((900.0 - 1.959964 * 240, 900.0 + 1.959964 * 240))


def test_combined_interval_narrows_with_games_but_not_below_the_players_own_part() -> None:
    """More games narrow the interval, toward +-1.96 x between_sd, never below it; with
    between_sd 0 it narrows as 1/sqrt(games)."""
    widths = [combine([_game(900.0, 240.0)] * k, 140.0).ci for k in (1, 4, 16, 256)]
    halves = [(hi - lo) / 2 for lo, hi in widths]
    assert halves == sorted(halves, reverse=True)
    assert halves[-1] > 1.959964 * 140.0
    naive = combine([_game(900.0, 240.0)] * 4, 0.0)
    assert (naive.ci[1] - naive.ci[0]) / 2 == pytest.approx(1.959964 * 120.0)


def test_combined_interval_holds_a_biased_players_rating() -> None:
    """Games whose errors share a per-player bias of SD 140 (and noise of SD 195): the
    combined interval over 8 games holds the true rating about 95% of the time, where
    the naive one (between_sd 0) does not."""
    rng = random.Random(3)
    ours = naive = 0
    trials = 2000
    for _ in range(trials):
        bias = rng.gauss(0, 140)
        games = [_game(1000 + bias + rng.gauss(0, 195), (140 ** 2 + 195 ** 2) ** 0.5)
                 for _ in range(8)]
        c, n = combine(games, 140.0), combine(games, 0.0)
        ours += c.ci[0] <= 1000 <= c.ci[1]
        naive += n.ci[0] <= 1000 <= n.ci[1]
    assert 0.92 <= ours / trials <= 0.98
    assert naive / trials < 0.85


def test_nothing_to_combine_is_refused() -> None:
    with pytest.raises(ValueError, match="no estimates"):
        combine([], 140.0)
