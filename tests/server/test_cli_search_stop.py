"""Searches of the command line that could run for hours: an expectimax search
without a time budget gets the default one, announced; Ctrl-C in `hint` (local and
remote) and `play` stops the search and keeps the best move found so far (exit 130)."""
from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from gallerist.server import GalleristServer
from gallerist.cli.main import main
from gallerist.cli.commands import options, play
from gallerist.cli.commands.interrupt import StopOnCtrlC


def _search_handler_installed() -> bool:
    handler = signal.getsignal(signal.SIGINT)
    return isinstance(getattr(handler, "__self__", None), StopOnCtrlC)


@contextmanager
def ctrl_c_during_search(after_s: float) -> Iterator[None]:
    """Press Ctrl-C (SIGINT to this process) `after_s` seconds into a search: only while
    the search's handler is installed, so that the signal never reaches pytest."""
    done = threading.Event()

    def press() -> None:
        while not done.is_set() and not _search_handler_installed():
            time.sleep(0.01)
        if done.wait(after_s):
            return
        if _search_handler_installed():
            os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=press, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def test_timed_spec_adds_the_default_time_to_untimed_expectimax() -> None:
    """Only an expectimax spec without time_ms gets the default budget, and a note."""
    ms = options.DEFAULT_SEARCH_MS
    assert options.timed_spec("expectimax", "x")[0] == f"expectimax:time_ms={ms}"
    spec, note = options.timed_spec("expectimax:depth=50", "seat 0")
    assert spec == f"expectimax:depth=50,time_ms={ms}"
    assert note is not None and note.startswith("note: seat 0 has no time budget")
    for untouched in ("expectimax:depth=9,time_ms=300", "mcts", "mcts:iterations=100",
                      "greedy", "random"):
        assert options.timed_spec(untouched, "x") == (untouched, None)


def test_hint_local_deep_expectimax_stops_at_the_default_time(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`hint --local --bot expectimax:depth=50` (it searched for up to an hour, silently
    between depths) stops at the default time budget, announced on stderr."""
    monkeypatch.setattr(options, "DEFAULT_SEARCH_MS", 400)
    t0 = time.monotonic()
    assert main(["hint", "--demo", "--local", "--bot", "expectimax:depth=50", "--json"]) == 0
    assert time.monotonic() - t0 < 20
    captured = capsys.readouterr()
    response = json.loads(captured.out)
    assert response["budget"]["timeMs"] == 400 and response["final"] is True
    assert 1 <= response["stats"]["depth"] < 50
    assert "note: --bot expectimax:depth=50 has no time budget: each search stops after " \
           "0.4 s" in captured.err
    assert "give --time-ms to change it" in captured.err


def test_hint_local_with_a_time_budget_is_not_announced(capsys: pytest.CaptureFixture[str]) -> None:
    """--time-ms is a time budget: no default, no note."""
    assert main(["hint", "--demo", "--local", "--bot", "expectimax:depth=50", "--time-ms",
                 "200", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["budget"]["timeMs"] == 200
    assert "note:" not in captured.err


def test_play_gives_untimed_expectimax_seats_the_default_time(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`play expectimax:depth=50 ...` hung silently: its seat gets the default time budget
    and says so; the other seats are left as they are."""
    seats = play._bots(["expectimax:depth=50", "mcts:iterations=10", "greedy"], seed=0)
    assert seats[0].bot.time_ms == options.DEFAULT_SEARCH_MS and seats[0].bot.depth == 50
    assert seats[1].bot.iterations == 10
    err = capsys.readouterr().err
    assert err.count("note:") == 1
    assert "note: seat 0 (expectimax:depth=50) has no time budget" in err


def _assert_clean_interrupt(captured: Any) -> None:
    assert "Traceback" not in captured.err
    assert "interrupted: stopping the search" in captured.err


def test_hint_local_ctrl_c_prints_the_best_move_so_far(capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C in a local hint: the hint table of the deepest completed search is printed
    (it was thrown away), its best move named, exit status 130, well before the budget."""
    t0 = time.monotonic()
    with ctrl_c_during_search(1.0):
        status = main(["hint", "--demo", "--local", "--bot", "expectimax:depth=50",
                       "--time-ms", "60000"])
    assert status == 130
    assert time.monotonic() - t0 < 30
    captured = capsys.readouterr()
    _assert_clean_interrupt(captured)
    assert "Hints for player 0 by expectimax" in captured.out
    assert " 1  " in captured.out                       # the ranked moves
    [line] = [x for x in captured.err.splitlines() if x.startswith("interrupted: the best")]
    assert line.split(" is ")[-1] in captured.out


def test_hint_local_ctrl_c_json(capsys: pytest.CaptureFixture[str]) -> None:
    """With --json the report found so far is printed as JSON (marked stopped)."""
    with ctrl_c_during_search(1.0):
        status = main(["hint", "--demo", "--local", "--bot", "mcts", "--time-ms", "60000",
                       "--json"])
    assert status == 130
    captured = capsys.readouterr()
    _assert_clean_interrupt(captured)
    response = json.loads(captured.out)
    assert response["moves"] and response["stopped"] is True


def test_hint_remote_ctrl_c_prints_the_best_move_so_far(
        service: GalleristServer, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C in a hint from a server: the call is cancelled and the last report the
    server streamed is printed, exit status 130."""
    t0 = time.monotonic()
    with ctrl_c_during_search(1.5):
        status = main(["hint", "--demo", "--address", f"localhost:{service.port}", "--bot",
                       "mcts", "--time-ms", "9000", "--interval-ms", "100"])
    assert status == 130
    assert time.monotonic() - t0 < 8
    captured = capsys.readouterr()
    _assert_clean_interrupt(captured)
    assert "Hints for player 0 by mcts" in captured.out
    assert "interrupted: the best move found in" in captured.err


def test_play_ctrl_c_names_the_best_move_so_far(capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C while a `play` seat searches: the game stops at once, the searching seat's
    best move so far is named, exit status 130."""
    t0 = time.monotonic()
    with ctrl_c_during_search(1.5):
        status = main(["play", "expectimax:depth=50,time_ms=60000", "greedy", "--board",
                       "none"])
    assert status == 130
    assert time.monotonic() - t0 < 30
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "interrupted: stopping the search and the game" in captured.err
    assert "interrupted: P0 (expectimax:depth=50,time_ms=60000) was searching; its best " \
           "move so far: " in captured.err
    assert "Final scores" not in captured.out


def test_play_through_the_stoppable_seats_plays_the_same_game(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The seats that Ctrl-C can stop choose exactly as the bots themselves: the same
    seeded game, the same final money."""
    from gallerist.ai import make_bot
    from gallerist.ai.arena.play import play_game

    assert main(["play", "random", "greedy", "--seed", "3", "--board", "none"]) == 0
    out = capsys.readouterr().out
    final = play_game([make_bot("random", seed=300), make_bot("greedy", seed=301)], seed=3)
    for p, score in enumerate(final.final_scores()):
        assert f"P{p} {['random', 'greedy'][p]:<24} ${score['money']:>4}" in out
