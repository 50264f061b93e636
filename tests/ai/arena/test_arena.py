"""The arena issue: paired seating, aggregation, records and replay, backends."""
from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from gallerist.ai.arena.tournament import (GameRecord, format_report, plot_ratings, read_records, replay, run_tournament,
                      schedule)
from gallerist.cli.main import main as gallerist_main
from gallerist.ai.arena.ratings import (GameResult, bradley_terry, pairwise_table, ratings, solo_summary, summarize,
                        wilson_interval)


def test_schedule_plays_every_seating_on_the_same_seed() -> None:
    """Fairness: each combination plays all seat permutations on one setup seed."""
    plan = schedule(["a", "b", "c"], 3, 6, seed=10)
    assert len(plan) == 6
    assert {g.seed for g in plan} == {10}
    assert len({g.seats for g in plan}) == 6          # all 3! seatings
    plan2 = schedule(["a", "b", "c"], 2, 7, seed=0)
    per_seed = Counter(g.seed for g in plan2)
    assert all(n == 6 for n in per_seed.values())     # 3 pairs x 2 seatings per seed
    for seed in per_seed:
        seatings = [g.seats for g in plan2 if g.seed == seed]
        for pair in (("a", "b"), ("a", "c"), ("b", "c")):
            assert pair in seatings and pair[::-1] in seatings


def test_schedule_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="players"):
        schedule(["a", "b"], 5, 2, 0)
    with pytest.raises(ValueError, match="at least one bot"):
        schedule([], 2, 2, 0)
    assert {g.seats for g in schedule(["a"], 2, 2, 0)} == {("a", "a")}   # self-play


def hand_results() -> list[GameResult]:
    return [
        GameResult(("A", "B"), (50, 40), (1.0, 0.0)),
        GameResult(("B", "A"), (30, 45), (0.0, 1.0)),
        GameResult(("A", "B"), (40, 40), (0.5, 0.5)),     # a shared win
        GameResult(("B", "A"), (60, 20), (1.0, 0.0)),
    ]


def test_summary_on_hand_made_outcomes() -> None:
    """Win rates split shared wins; margins and money are means; the CI is Wilson's."""
    s = {x.bot: x for x in summarize(hand_results())}
    assert s["A"].games == 4 and s["A"].wins == 2.5 and s["A"].win_rate == pytest.approx(0.625)
    assert s["B"].wins == 1.5
    assert s["A"].mean_money == pytest.approx((50 + 45 + 40 + 20) / 4)
    assert s["A"].mean_margin == pytest.approx((10 + 15 + 0 - 40) / 4)
    lo, hi = s["A"].win_rate_ci
    assert (lo, hi) == pytest.approx(wilson_interval(2.5, 4))
    assert lo < 0.625 < hi
    assert wilson_interval(0, 10)[0] == pytest.approx(0.0) and wilson_interval(10, 10)[1] == pytest.approx(1.0)


def test_pairwise_table_and_bradley_terry() -> None:
    table = pairwise_table(hand_results(), ["A", "B"])
    assert table[0][1] == pytest.approx(0.625) and table[1][0] == pytest.approx(0.375)
    assert table[0][0] is None
    import numpy as np
    elo = bradley_terry(np.array([[0.0, 30.0], [10.0, 0.0]]), prior=0.0)
    # P(A beats B) = 0.75  ->  400 log10(3) Elo apart
    assert elo[0] - elo[1] == pytest.approx(400 * np.log10(3), rel=1e-4)
    r = {x.bot: x for x in ratings(hand_results(), ["A", "B"])}
    assert r["A"].elo > r["B"].elo
    assert r["A"].ci[0] <= r["A"].elo <= r["A"].ci[1]


def test_three_player_rating_uses_finishing_order() -> None:
    """With 3 players the rating counts every pair of the finishing order."""
    res = [GameResult(("A", "B", "C"), (30, 20, 10), (1.0, 0.0, 0.0))] * 3
    r = {x.bot: x.elo for x in ratings(res, ["A", "B", "C"])}
    assert r["A"] > r["B"] > r["C"]


def test_small_tournament_end_to_end_with_records_and_replay(tmp_path) -> None:
    """A local tournament: records written as JSON Lines replay to the same scores."""
    records = tmp_path / "games.jsonl"
    t = run_tournament(["random", "greedy"], players=2, games=4, workers=2, seed=3,
                       records_path=str(records))
    assert len(t.records) == 4 and not t.interrupted
    saved = read_records(str(records))
    assert sorted(r.game for r in saved) == [0, 1, 2, 3]
    for rec in saved:
        final = replay(rec)
        assert final.money() == rec.money and final.returns() == rec.returns
    report = t.report()
    assert report["games"] == 4 and {s["bot"] for s in report["summary"]} == {"random", "greedy"}
    assert "pairwise" in format_report(report)
    png = tmp_path / "r.png"
    plot_ratings(report, str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_solo_schedule_and_summary() -> None:
    """Solo: every bot plays every setup seed alone; the summary is the score's mean and
    spread, not win rates."""
    plan = schedule(["a", "b"], 1, 5, seed=4)
    assert [(g.seed, g.seats) for g in plan] == [
        (4, ("a",)), (4, ("b",)), (5, ("a",)), (5, ("b",)), (6, ("a",)), (6, ("b",))]
    res = [GameResult(("A",), (100,), (0.5,)), GameResult(("A",), (140,), (0.58,)),
           GameResult(("B",), (60,), (0.375,))]
    a, b = solo_summary(res)
    assert (a.bot, a.games, a.mean_score, a.min_score, a.max_score) == ("A", 2, 120.0, 100, 140)
    assert a.std_score == pytest.approx(28.2842712) and a.mean_ci[0] < 120 < a.mean_ci[1]
    assert (b.bot, b.games, b.mean_score, b.std_score) == ("B", 1, 60.0, 0.0)


def test_solo_tournament_reports_mean_and_spread(tmp_path) -> None:
    """`--players 1`: games against Lacerda, records that replay, a per-bot score report."""
    out = tmp_path / "res.json"
    rc = gallerist_main(["arena", "random", "greedy", "--players", "1", "--games", "4",
                         "--workers", "2", "--records", str(tmp_path / "g.jsonl"),
                         "--out", str(out), "--png", str(tmp_path / "r.png"), "--no-progress"])
    assert rc == 0
    report = json.loads(out.read_text())
    assert report["players"] == 1 and report["games"] == 4
    assert "ratings" not in report and "summary" not in report
    rows = {r["bot"]: r for r in report["solo"]}
    assert set(rows) == {"random", "greedy"} and all(r["games"] == 2 for r in rows.values())
    assert all(r["std_score"] >= 0 and r["min_score"] <= r["mean_score"] <= r["max_score"]
               for r in rows.values())
    text = format_report(report)
    assert "solo against Lacerda" in text and "std" in text and "win rate" not in text
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for rec in read_records(str(tmp_path / "g.jsonl")):
        assert len(rec.bots) == 1 and replay(rec).money() == rec.money
    assert gallerist_main(["replay", str(tmp_path / "g.jsonl"), "--game", "0"]) == 0


def test_replay_detects_a_tampered_record() -> None:
    t = run_tournament(["random", "greedy"], players=2, games=2, workers=1, seed=1)
    rec = t.records[0]
    bad = GameRecord(**{**rec.__dict__, "money": [m + 1 for m in rec.money]})
    with pytest.raises(ValueError, match="final money"):
        replay(bad)


def test_same_seed_same_tournament_any_worker_count() -> None:
    a = run_tournament(["random", "greedy"], players=3, games=6, workers=1, seed=5)
    b = run_tournament(["random", "greedy"], players=3, games=6, workers=2, seed=5)
    key = lambda t: sorted((r.game, tuple(r.money), tuple(r.actions)) for r in t.records)  # noqa: E731
    assert key(a) == key(b)


def test_unknown_bot_fails_before_any_game() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        run_tournament(["random", "nosuchbot"], games=2)


def test_arena_cli_writes_results(tmp_path) -> None:
    out = tmp_path / "res.json"
    rc = gallerist_main(["arena", "random", "greedy", "--games", "2", "--workers", "1",
                         "--records", str(tmp_path / "g.jsonl"), "--out", str(out),
                         "--png", str(tmp_path / "r.png"), "--no-progress"])
    assert rc == 0
    assert json.loads(out.read_text())["games"] == 2
    assert gallerist_main(["replay", str(tmp_path / "g.jsonl"), "--game", "1"]) == 0


def test_ray_backend_plays_the_same_games_as_local_workers() -> None:
    """The Ray backend on a local 2-CPU cluster gives the same results as local workers."""
    local = run_tournament(["random", "greedy"], players=2, games=4, workers=2, seed=9)
    remote = run_tournament(["random", "greedy"], players=2, games=4, workers=2, seed=9, backend="ray")
    key = lambda t: sorted((r.game, tuple(r.money), tuple(r.actions)) for r in t.records)  # noqa: E731
    assert key(local) == key(remote)


def test_remote_bot_plays_through_an_in_process_server() -> None:
    """A remote bot (remote:HOST:PORT,bot=...) asks a running service for every move."""
    from gallerist.server.app import create_server

    server, port = create_server("localhost:0", workers=2)
    server.start()
    try:
        spec = f"remote:localhost:{port},bot=mcts,iterations=30"
        t = run_tournament([spec, "random"], players=2, games=2, workers=1, seed=4)
        assert len(t.records) == 2
        for rec in t.records:
            assert replay(rec).money() == rec.money
        with pytest.raises(ValueError, match="HOST:PORT"):
            run_tournament(["remote:nowhere", "random"], games=2)
    finally:
        server.stop(grace=1.0).wait()


def test_ctrl_c_stops_promptly_and_keeps_finished_games(tmp_path) -> None:
    """Ctrl-C (SIGINT) ends a tournament at once; every finished game stays recorded."""
    import signal
    import subprocess
    import sys
    import time

    records = tmp_path / "games.jsonl"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    proc = subprocess.Popen(
        [sys.executable, "-m", "gallerist.cli", "arena", "mcts:iterations=300", "random",
         "--games", "200", "--workers", "2", "--records", str(records),
         "--out", str(tmp_path / "r.json"), "--png", str(tmp_path / "r.png"),
         "--no-progress"],
        cwd=root, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not records.exists() or not records.read_text().strip()):
        time.sleep(0.2)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 10
    assert proc.returncode == 130
    saved = read_records(str(records))
    assert 1 <= len(saved) < 200
    assert "(interrupted)" in out
    for rec in saved:
        assert replay(rec).money() == rec.money
