"""Statistics that say what they mean: Wilson intervals (statsmodels), the solo
mean's Student t interval (scipy), honest profile-likelihood rating intervals for perfect
and one-sided records, bots without games left out, tables and picture that fit."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gallerist.ai.arena.tournament import Tournament, format_report, plot_ratings
from gallerist.ai.arena.records import GameRecord
from gallerist.ai.arena.report import report_figure
from gallerist.ai.arena.intervals import log_likelihood
from gallerist.ai.arena.ratings import GameResult, ratings, solo_summary, wilson_interval, with_prior

Z = 1.959963984540054          # the normal 97.5% quantile
CHI2 = Z * Z                   # the chi-squared(1) 95% quantile is its square
ELO = 400 / math.log(10)


def test_wilson_interval_matches_the_formula_by_hand() -> None:
    """2.5 wins of 4: p = 0.625, centre (p + z^2/2n) / (1 + z^2/n), half-width
    z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n)."""
    p, n = 0.625, 4
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    assert wilson_interval(2.5, 4) == pytest.approx((centre - half, centre + half), abs=1e-9)
    assert wilson_interval(2.5, 4) == pytest.approx((0.219427, 0.908101), abs=1e-6)
    # 0 of 10: (0, z^2 / (n + z^2))
    assert wilson_interval(0, 10) == pytest.approx((0.0, Z * Z / (10 + Z * Z)), abs=1e-9)


def test_solo_mean_interval_uses_students_t_with_n_minus_1_degrees_of_freedom() -> None:
    """t with 1 degree of freedom is Cauchy: quantile tan(pi (0.975 - 1/2)) = 12.706;
    with 2: (2p - 1) / sqrt(2 p (1 - p)) = 4.303. Not z = 1.96."""
    res = [GameResult(("A",), (100,), (0.5,)), GameResult(("A",), (140,), (0.6,)),
           GameResult(("B",), (60,), (0.4,)), GameResult(("B",), (70,), (0.4,)),
           GameResult(("B",), (80,), (0.4,)), GameResult(("C",), (10,), (0.1,))]
    by = {s.bot: s for s in solo_summary(res)}
    t1 = math.tan(math.pi * (0.975 - 0.5))
    half_a = t1 * math.sqrt(((100 - 120) ** 2 + (140 - 120) ** 2) / 1) / math.sqrt(2)
    assert t1 == pytest.approx(12.7062047, abs=1e-6)
    assert by["A"].mean_ci == pytest.approx((120 - half_a, 120 + half_a))
    t2 = (2 * 0.975 - 1) / math.sqrt(2 * 0.975 * 0.025)
    half_b = t2 * 10.0 / math.sqrt(3)            # sample std of 60, 70, 80 is 10
    assert by["B"].mean_ci == pytest.approx((70 - half_b, 70 + half_b))
    assert by["C"].mean_ci is None               # one game says nothing about the spread
    assert "n/a" in format_report({"players": 1, "games": 6, "interrupted": False, "seconds": 1.0,
                                   "solo": [s.__dict__ for s in by.values()]})


def hand_bound(wins_ab: float, wins_ba: float, direction: int) -> float:
    """Two bots, strengths t and -t: l(t) = W_ab log s(2t) + W_ba log s(-2t), maximal at
    s(2t) = W_ab / (W_ab + W_ba); the bound is where 2 (l(t_hat) - l(t)) = chi2, found by
    bisection."""
    def loglik(t: float) -> float:
        return wins_ab * -math.log1p(math.exp(-2 * t)) + wins_ba * -math.log1p(math.exp(2 * t))

    t_hat = 0.5 * math.log(wins_ab / wins_ba)
    lo, hi = (t_hat, t_hat + 50) if direction > 0 else (t_hat - 50, t_hat)
    for _ in range(200):
        mid = (lo + hi) / 2
        inside = 2 * (loglik(t_hat) - loglik(mid)) < CHI2
        if inside == (direction > 0):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def test_a_perfect_record_gets_an_honest_interval_computed_by_hand() -> None:
    """4-0 with the prior (half a win each way): W = 4.5 vs 0.5, rating 400 log10(3) apart
    from the mean; the profile-likelihood bounds match the hand bisection, and the
    interval has width (a bootstrap of 4-0 gives 140 140 140)."""
    res = [GameResult(("A", "B"), (50, 40), (1.0, 0.0))] * 2 + [GameResult(("B", "A"), (40, 50), (0.0, 1.0))] * 2
    r = {x.bot: x for x in ratings(res, ["A", "B"])}
    assert r["A"].elo == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r["B"].elo == pytest.approx(-r["A"].elo, abs=1e-6)
    lo, hi = hand_bound(4.5, 0.5, -1) * ELO, hand_bound(4.5, 0.5, +1) * ELO
    assert r["A"].ci == pytest.approx((lo, hi), abs=0.01)
    assert r["B"].ci == pytest.approx((-hi, -lo), abs=0.01)
    assert hi - lo > 300 and math.isfinite(hi)
    one = {x.bot: x for x in ratings(res[:1], ["A", "B"])}            # a single game
    assert one["A"].ci[0] < 0 < one["A"].elo < one["A"].ci[1]
    assert one["A"].ci[1] - one["A"].ci[0] > r["A"].ci[1] - r["A"].ci[0]


def test_three_bot_bounds_are_where_the_profile_deviance_is_chi_squared() -> None:
    """With three bots the profile maximises over one free strength (sum zero): check each
    bound with an independent golden-section maximisation."""
    res = ([GameResult(("A", "B"), (9, 1), (1.0, 0.0))] * 5 + [GameResult(("B", "C"), (9, 1), (1.0, 0.0))] * 3
           + [GameResult(("C", "A"), (9, 1), (1.0, 0.0))])
    bots = ["A", "B", "C"]
    rs = {x.bot: x for x in ratings(res, bots)}
    wins = with_prior(np.array([[0, 5, 0], [0, 0, 3], [1, 0, 0]], dtype=float))
    point = np.array([rs[b].elo for b in bots]) / ELO
    top = log_likelihood(point, wins)
    for i, b in enumerate(bots):
        j, k = [x for x in range(3) if x != i]
        for bound in rs[b].ci:
            t = bound / ELO

            def f(v: float) -> float:
                theta = np.zeros(3)
                theta[i], theta[j], theta[k] = t, v, -t - v
                return log_likelihood(theta, wins)

            a, c = -30.0, 30.0
            g = (math.sqrt(5) - 1) / 2
            for _ in range(200):
                x1, x2 = c - g * (c - a), a + g * (c - a)
                a, c = (a, x2) if f(x1) > f(x2) else (x1, c)
            assert 2 * (top - f((a + c) / 2)) == pytest.approx(CHI2, abs=1e-4)
        assert rs[b].ci[0] < rs[b].elo < rs[b].ci[1]


def record(game: int, bots: list[str], money: list[int]) -> GameRecord:
    best = max(money)
    returns = [1.0 if m == best else 0.0 for m in money]
    return GameRecord(game=game, seed=0, bots=bots, actions=[], money=money, returns=returns,
                      scores=[], seconds=0.1)


def test_a_bot_without_games_is_left_out_and_named() -> None:
    """Ctrl-C before a bot's first game: it is not rated, tabled or plotted; the summary
    says so."""
    t = Tournament(bots=["A", "B", "C"], players=2, interrupted=True, scheduled=6,
                   records=[record(0, ["A", "B"], [50, 40]), record(1, ["B", "A"], [40, 45])])
    report = t.report()
    assert report["unplayed"] == ["C"]
    assert {r["bot"] for r in report["ratings"]} == {"A", "B"}
    assert report["pairwise"]["bots"] == ["A", "B"]
    text = format_report(report)
    assert "not rated, no games played: C" in text and "2 of 6 games" in text
    fig = report_figure(report)
    labels = {tick.get_text() for ax in fig.axes for tick in ax.get_yticklabels()}
    assert not any("C" in label for label in labels)
    solo = Tournament(bots=["A", "C"], players=1, records=[record(0, ["A"], [90])]).report()
    assert solo["unplayed"] == ["C"] and [s["bot"] for s in solo["solo"]] == ["A"]


LONG = "remote:localhost:50051,bot=mcts,iterations=500,c=0.7,rollout=heuristic"


def long_report() -> dict:
    recs = [record(0, [LONG, "random"], [60, 20]), record(1, ["random", LONG], [20, 70]),
            record(2, ["greedy", "random"], [30, 20]), record(3, ["random", "greedy"], [40, 30]),
            record(4, [LONG, "greedy"], [60, 50]), record(5, ["greedy", LONG], [30, 35])]
    return Tournament(bots=[LONG, "greedy", "random"], players=2, records=recs).report()


def test_text_tables_fit_the_longest_bot_name() -> None:
    """Every row of a table has the same width, and long names are printed whole."""
    tables = format_report(long_report()).split("\n\n")
    assert len(tables) == 3
    for table in tables:
        rows = [line for line in table.splitlines()[1:]]
        rows = rows[1:] if rows[0].startswith("pairwise") else rows
        assert len({len(line) for line in rows}) == 1, table
        assert LONG in table


def test_picture_has_a_heat_map_and_no_clipped_label(tmp_path) -> None:
    """The PNG: ratings over a pairwise heat map (row vs column); every label lies inside
    the figure, the long x-label and long bot names included."""
    report = long_report()
    fig = report_figure(report)
    fig.canvas.draw()
    images = [im for ax in fig.axes for im in ax.get_images()]
    assert len(images) == 1
    table = np.array([[np.nan if v is None else v for v in row] for row in report["pairwise"]["table"]])
    np.testing.assert_allclose(images[0].get_array().filled(np.nan), table)
    box = fig.bbox
    texts = [t for ax in fig.axes for t in
             [ax.xaxis.label, ax.title, *ax.get_yticklabels(), *ax.get_xticklabels()] if t.get_text()]
    assert any("profile-likelihood" in t.get_text() for t in texts)
    for t in texts:
        e = t.get_window_extent()
        assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1 and e.y0 >= box.y0 - 1 and e.y1 <= box.y1 + 1, t
    plot_ratings(report, str(tmp_path / "r.png"))
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_anchored_ratings_fix_the_anchor_and_give_intervals_of_the_difference() -> None:
    """With an anchor, its rating is 0 with no interval; with two bots the interval of
    the difference is exactly twice the mean-zero interval (theta_a - theta_b = 2 theta_a)."""
    from gallerist.ai.arena.ratings import GameResult, ratings

    results = ([GameResult(bots=("a", "b"), money=(10, 5), returns=(1.0, 0.0))] * 7
               + [GameResult(bots=("b", "a"), money=(10, 5), returns=(1.0, 0.0))] * 3)
    free = {r.bot: r for r in ratings(results, ["a", "b"])}
    fixed = {r.bot: r for r in ratings(results, ["a", "b"], anchor="b")}
    assert fixed["b"].elo == 0 and fixed["b"].ci == (0.0, 0.0)
    assert abs(fixed["a"].elo - 2 * free["a"].elo) < 1e-6
    assert all(abs(f - 2 * m) < 0.5 for f, m in zip(fixed["a"].ci, free["a"].ci))
    three = results + [GameResult(bots=("a", "c"), money=(9, 1), returns=(1.0, 0.0))] * 4
    rated = {r.bot: r for r in ratings(three, ["a", "b", "c"], anchor="c")}
    assert rated["c"].elo == 0 and rated["a"].elo > rated["b"].elo
    assert all(r.ci[0] <= r.elo <= r.ci[1] for r in rated.values())


def test_intervals_in_the_tables_read_as_ranges_even_below_zero() -> None:
    """A solo mean's interval that starts below zero prints "-8.6 to 283.6", never
    "-8.6-283.6"; win rates' intervals read "20.0 to 80.0%"."""
    from gallerist.ai.arena.report import _solo_table, _summary_table
    solo = "\n".join(_solo_table([{"bot": "greedy", "games": 10, "mean_score": 137.5,
                                   "std_score": 200.1, "mean_ci": (-8.6, 283.6),
                                   "min_score": 0, "max_score": 300}]))
    assert "-8.6 to 283.6" in solo and "-8.6-" not in solo
    rates = "\n".join(_summary_table([{"bot": "greedy", "games": 10, "wins": 5, "win_rate": 0.5,
                                       "win_rate_ci": (0.2, 0.8), "mean_money": 100.0,
                                       "mean_margin": 3.0}]))
    assert "20.0 to 80.0%" in rates
