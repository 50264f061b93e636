"""The calibration benchmark's metrics (ai.calibration.metrics) against values computed by
hand on small sets."""
import math

import pytest

from gallerist.ai.calibration.metrics import (
    agreement, bootstrap_by_group, brier, ece, ece_floor, log_loss, mae, reliability,
)

P = [0.9, 0.2, 0.6, 0.5]
Y = [1, 0, 0, 0.5]   # a win, two losses, a first place shared by two


def test_brier_by_hand():
    # (0.1^2 + 0.2^2 + 0.6^2 + 0^2) / 4
    assert brier(P, Y) == pytest.approx((0.01 + 0.04 + 0.36 + 0.0) / 4)
    assert brier([0.5] * 4, [1, 0, 1, 0]) == pytest.approx(0.25)


def test_log_loss_by_hand():
    by_hand = -(math.log(0.9) + math.log(0.8) + math.log(0.4)
                + 0.5 * math.log(0.5) + 0.5 * math.log(0.5)) / 4
    assert log_loss(P, Y) == pytest.approx(by_hand)
    assert log_loss([0.5, 0.5], [1, 0]) == pytest.approx(math.log(2))


def test_log_loss_clips_certain_wrong_forecasts():
    assert math.isfinite(log_loss([0.0, 1.0], [1, 0]))


def test_ece_by_hand_one_forecast_per_bin():
    # bins 9, 2, 6, 5: |0.9-1|, |0.2-0|, |0.6-0|, |0.5-0.5|, each weighted 1/4
    assert ece(P, Y) == pytest.approx((0.1 + 0.2 + 0.6 + 0.0) / 4)


def test_ece_averages_within_a_bin_before_taking_the_gap():
    # one bin: mean forecast 0.15, mean outcome 0.5
    assert ece([0.12, 0.18], [1, 0]) == pytest.approx(0.35)
    assert ece([0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3],
               [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]) == pytest.approx(0.0)


def test_reliability_bins_include_one_in_the_last_bin():
    rows = reliability([1.0, 0.95, 0.05], [1, 0, 0], bins=10)
    assert rows[9][0] == 2 and rows[9][1] == pytest.approx(0.975) and rows[9][2] == pytest.approx(0.5)
    assert rows[0] == (1, pytest.approx(0.05), 0.0)
    assert rows[4][0] == 0 and math.isnan(rows[4][1])


def test_mae_over_every_seat():
    assert mae([[10, 20], [0, 0]], [[13, 18], [1, 1]]) == pytest.approx((3 + 2 + 1 + 1) / 4)


def test_agreement_counts_positions_within_the_tolerance():
    assert agreement([0.5, 0.7, 0.2], [0.55, 0.5, 0.31]) == pytest.approx(1 / 3)
    assert agreement([0.3], [0.4]) == 1.0   # exactly 0.1 apart agrees


def test_bootstrap_resamples_whole_games():
    # every game holds one win and one loss: any resample of whole games has mean 0.5,
    # a resample of single positions would not
    groups = [g for g in range(20) for _ in (0, 1)]
    y = [v for _ in range(20) for v in (0.0, 1.0)]
    lo, hi = bootstrap_by_group(lambda col: float(sum(col) / len(col)), groups, y, rounds=200)
    assert lo == pytest.approx(0.5) and hi == pytest.approx(0.5)


def test_bootstrap_interval_contains_the_estimate_and_is_seeded():
    groups = list(range(50))
    y = [i % 3 == 0 for i in range(50)]
    a = bootstrap_by_group(lambda col: float(col.mean()), groups, y, rounds=300, seed=4)
    b = bootstrap_by_group(lambda col: float(col.mean()), groups, y, rounds=300, seed=4)
    assert a == b
    assert a[0] < sum(y) / 50 < a[1]


def test_ece_floor_by_hand_and_its_fall_with_more_positions():
    # one forecast of 0.5: the outcome is 0 or 1, the gap always 0.5
    assert ece_floor([0.5]) == pytest.approx(0.5)
    # a certain forecast is always right
    assert ece_floor([1.0, 0.0, 1.0]) == 0.0
    few, many = ece_floor([0.3] * 20, seed=1), ece_floor([0.3] * 2000, seed=1)
    assert many < few and many < 0.03
