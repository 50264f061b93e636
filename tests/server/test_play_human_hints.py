"""The game at the terminal (`gallerist play human ...`): Ctrl-C during a hint, when the
board is shown, how a hint's plan and order read, and the default hint bot."""
from __future__ import annotations

import argparse
import io
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

from gallerist import engine
from gallerist.engine.actions import decision_kind
from gallerist.cli.commands import play, play_human
from gallerist.cli.commands.play_human import TerminalGame
from gallerist.server.hint_requests import hint_search
from gallerist.server.limits import Limits, build_bot

GALLERIST = [sys.executable, "-m", "gallerist.cli"]
CLI_DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
PROMPT = re.compile(rb"^P\d> ", re.M)


def _game(specs: list[str], script: Callable[[TerminalGame, str], str], *, seed: int = 3,
          hint: bool = False, hint_bot: str | None = None, notation: bool = False,
          tmp_path: Path) -> tuple[TerminalGame, str]:
    """A game played in this process: `script(game, output so far)` gives each typed line
    (EOFError ends the game); returns the game and its whole output. `hint`: `?` works,
    by `hint_bot` (None: play's default); `notation`: moves shown by notation."""
    out = io.StringIO()
    seats = [None if s == "human" else play._Seat(build_bot(s, i, field="bot"), i)
             for i, s in enumerate(specs)]
    options: dict[str, Any] = {}
    make: Callable[[], Any] = lambda: None
    if hint:
        bot = play._hint_bot(argparse.Namespace(hint_bot=hint_bot, seed=seed))
        make, options = bot.make, {"hint_spec": bot.spec, "hint_limits": bot.limits}
    game = TerminalGame(specs, seats, seed, make, str(tmp_path / "g.jsonl"), out=out,
                        read_line=lambda prompt: script(game, out.getvalue()),
                        notation=notation, **options)
    game.play()
    return game, out.getvalue()


def _read_until(proc: subprocess.Popen[bytes], seen: bytearray, text: bytes, timeout: float) -> bool:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            seen += chunk
    return text in seen


def test_ctrl_c_during_a_hint_stops_the_hint_and_the_game_goes_on(tmp_path: Path) -> None:
    """Ctrl-C while `?` searches (a 30 s budget) stops the search at once, shows the best
    so far and asks again; the game goes on (quit then saves it, exit 0)."""
    record = tmp_path / "g.jsonl"
    proc = subprocess.Popen([*GALLERIST, "play", "human", "human", "--seed", "2", "--hint-bot",
                             "mcts:time_ms=30000", "--record", str(record)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None
    seen = bytearray()
    try:
        assert _read_until(proc, seen, b"> ", 60), bytes(seen[-500:])
        proc.stdin.write(b"?\n")
        proc.stdin.flush()
        assert _read_until(proc, seen, b"> ?\n", 30), bytes(seen[-500:])
        _read_until(proc, seen, b"searching", 10)   # the search starts
        time.sleep(1.0)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        prompts = len(PROMPT.findall(seen))
        deadline = time.monotonic() + 10
        while len(PROMPT.findall(seen)) == prompts and time.monotonic() < deadline:
            _read_until(proc, seen, b"\x00", 0.2)
        assert len(PROMPT.findall(seen)) > prompts, bytes(seen[-1000:])   # asked again
        assert time.monotonic() - t0 < 10
        proc.stdin.write(b"quit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = (bytes(seen) + out).decode()
    assert proc.returncode == 0, err
    assert "(budget at most 30 s): stopped (Ctrl-C) after" in text and "the best so far" in text
    assert "stopped (quit)" in text
    assert re.search(r"^ 1  \S+", text, re.M)   # the best moves so far are listed
    assert "the game goes on" in err.decode()


def test_the_board_is_shown_when_it_changed_in_a_way_that_matters(tmp_path: Path) -> None:
    """The board is printed at a human's turn start and when another seat moved since
    that human's previous decision, not at the other decisions of the same turn (only
    the decision and its moves); `board` prints it; `help` states the rule."""
    log: dict[str, Any] = {"at": 0, "last": None, "decisions": [], "help": "", "board": ""}

    def script(game: TerminalGame, output: str) -> str:
        since = output[log["at"]:]
        log["at"] = len(output)
        s = game.state
        p = s.current_player
        if log["last"] in ("help", "board"):
            log[log["last"]] = since
        else:
            others = any(f"  P{q} (" in since for q in range(s.num_players) if q != p)
            log["decisions"].append((decision_kind(s), others, "THE GALLERIST" in since,
                                     "Now: " in since))
            if len(log["decisions"]) == 1:
                log["last"] = "help"
                return "help"
            if not log["board"] and not log["decisions"][-1][2]:
                log["last"] = "board"
                return "board"
        if len(log["decisions"]) >= 40:
            raise EOFError
        log["last"] = "move"
        return s.action_to_string(s.legal_actions()[-1])

    _game(["human", "greedy"], script, seed=6, tmp_path=tmp_path)
    decisions = log["decisions"]
    assert len(decisions) >= 40
    for i, (kind, others, board, now) in enumerate(decisions):
        assert now, (i, kind)
        assert board == (i == 0 or kind == "turn-start" or others), (i, kind, others, board)
    assert sum(1 for d in decisions if not d[2]) >= 5   # most small decisions: no board
    assert "THE GALLERIST" in log["board"]
    assert "board is shown" in log["help"] and "type board" in log["help"]


def _setup_pv() -> tuple[engine.GameState, list[int]]:
    """A two-player game at P1's start location choice, and a plan that goes on into
    P0's first turn (moves and chance events)."""
    state = engine.new_game(num_players=2, seed=3)
    view = state.view(state.current_player)
    walk = view.copy()
    pv = []
    while len(pv) < 12 and not walk.is_terminal():
        a = walk.chance_outcomes()[0][0] if walk.is_chance() else walk.legal_actions()[0]
        pv.append(a)
        walk.apply(a)
    return view, pv


def test_a_plan_names_who_plays_each_step() -> None:
    """After the hint's move, the mover's own next decisions read "your turn" or "you";
    what follows reads "then:", each seat's moves named by seat, chance in brackets."""
    view, pv = _setup_pv()
    mover = view.current_player
    plan = play_human.turn_plan(view, pv)
    assert plan.startswith("then: P0 "), plan
    assert f"P{mover} " not in plan
    walk = view.copy()
    steps = []
    for a in pv:
        steps.append("chance" if walk.is_chance() else walk.current_player)
        walk.apply(a)
    if "chance" in steps:
        assert "[" in plan
    # a plan of the mover's own decisions only
    state = engine.new_game(num_players=2, seed=6)
    while state.is_chance() or decision_kind(state) != "turn-start":
        state.apply(state.chance_outcomes()[0][0] if state.is_chance() else state.legal_actions()[-1])
    view = state.view(state.current_player)
    walk, own = view.copy(), []
    while not walk.is_chance() and walk.current_player == view.current_player and len(own) < 3:
        own.append(walk.legal_actions()[-1])
        walk.apply(own[-1])
    assert len(own) >= 2
    assert play_human.turn_plan(view, own) == "your turn: " + " ".join(
        view.action_to_string(a) for a in own[1:])


def _hint_at_turn_start(game: TerminalGame, output: str) -> str:
    """Plays the last legal move up to the first turn start, then types ? and stops."""
    s = game.state
    if "searching" in output:
        raise EOFError
    return "?" if decision_kind(s) == "turn-start" else s.action_to_string(s.legal_actions()[-1])


def test_a_hint_says_how_its_moves_are_ordered_and_labels_the_plan(tmp_path: Path) -> None:
    """`?` (with --notation) lists the moves in the order printed above them (visits, most
    first: the visits column never rises), and each plan says whose steps it lists."""
    _, out = _game(["human", "human"], _hint_at_turn_start, hint=True,
                   hint_bot="mcts:iterations=400", notation=True, tmp_path=tmp_path)
    assert "moves ranked by visits, most first (the bot plays #1), not by win%" in out
    rows = re.findall(r"^ ?\d+  (\S+) +(\d+) +[\d.]+%  \S+ +(.*)$", out, re.M)
    assert len(rows) >= 2
    visits = [int(v) for _, v, _ in rows]
    assert visits == sorted(visits, reverse=True)
    assert all(plan.startswith(("your turn: ", "then: ")) for _, _, plan in rows), rows
    [best] = re.findall(r"^plan of #1 (\S+): (.*)$", out, re.M)
    assert best[0] == rows[0][0] and best[1].startswith("your turn: ")


def test_the_default_hint_bot_is_the_services_default_at_its_default_budget(tmp_path: Path) -> None:
    """Without --hint-bot, `?` searches as the service does for a request naming no bot and
    no budget; `play --help`, docs/cli.md and the hint itself name that default."""
    state = engine.new_game(num_players=2, seed=3)
    service = hint_search(state, spec=Limits().default_bot, seed=0, budget=(0, 0, 0),
                          limits=Limits()).budget
    assert service.iterations and service.time_ms and not service.depth
    described = f"{service.iterations} iterations, at most {service.time_ms / 1000:g} s"
    default = f"{Limits().default_bot} with {described}"
    help_text = " ".join(subprocess.run([*GALLERIST, "play", "--help"], capture_output=True,
                                        text=True, check=True).stdout.split())
    assert f"default: the service's default bot at its default budget, {default}" in help_text
    doc = " ".join(CLI_DOC.read_text().replace("`", "").split())
    assert f"default: the service's default bot at its default budget, {default}" in doc
    hint = play._hint_bot(argparse.Namespace(hint_bot=None, seed=0))
    assert hint.spec == Limits().default_bot and hint.budget() == service
    _, out = _game(["human", "human"], _hint_at_turn_start, hint=True, tmp_path=tmp_path)
    assert f"hint by {Limits().default_bot} (budget {described})" in out


def test_a_hint_and_the_moves_read_in_words(tmp_path: Path) -> None:
    """Without --notation the legal moves are listed one a line, notation (what to type)
    then words; `?` lists its moves in words (engine.describe_moves of the view), most
    visits first, and the plan of #1 one step a line after who takes it."""
    game, out = _game(["human", "human"], _hint_at_turn_start, hint=True,
                      hint_bot="mcts:iterations=400", tmp_path=tmp_path)
    view = game.state.view(game.state.current_player)
    words = engine.describe_moves(view)
    listed = out[out.rindex("legal (type the notation"):]
    for a, text in words.items():   # notation, words, and the id one may type instead
        assert re.search(rf"^  {re.escape(view.action_to_string(a))} +{re.escape(text)} "
                         rf"\[{a}\]$", listed, re.M), text
    rows = re.findall(r"^ ?\d+  (.+?) +(\d+) +[\d.]+%  \S+$", out, re.M)
    assert len(rows) >= 2 and all(name.strip() in words.values() for name, _ in rows), rows
    visits = [int(v) for _, v in rows]
    assert visits == sorted(visits, reverse=True)
    plan = out[out.index("plan of #1 ("):].splitlines()
    assert plan[0] == f"plan of #1 ({rows[0][0].strip()}):"
    assert plan[1].startswith(("  you: ", "  chance: ", "  P")), plan
