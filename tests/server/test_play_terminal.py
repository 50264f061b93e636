"""Playing at the terminal (`gallerist play human ...`) and the script commands (`legal`,
`apply`, `review`), each run as a real process fed from standard input."""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from review_fixtures import write_analysis

from gallerist import engine
from gallerist.ai.arena.records import read_records
from gallerist.ai.arena.play import draw_chance
from gallerist.server.limits import build_bot

GALLERIST = [sys.executable, "-m", "gallerist.cli"]


def _run(*argv: str, stdin: str = "", cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GALLERIST, *argv], input=stdin, capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def _scripted_game(specs: list[str], seed: int) -> tuple[list[str], list[int]]:
    """The lines a person types who always plays the last legal move, and the game's actions,
    played in this process the way `play` plays it (same bots, same chance stream)."""
    bots = [None if s == "human" else build_bot(s, seed * 100 + i, field="bot")
            for i, s in enumerate(specs)]
    state = engine.new_game(num_players=len(specs), seed=seed)
    rng = np.random.default_rng(seed)
    lines = []
    while not state.is_terminal():
        if state.is_chance():
            action = draw_chance(state, rng)
        elif bots[state.current_player] is None:
            action = state.legal_actions()[-1]
            lines.append(state.action_to_string(action))
        else:
            action = bots[state.current_player].choose(state.view(state.current_player))
        state.apply(action)
    return lines, state.history


def test_a_whole_game_typed_at_the_prompt_is_saved_and_replays(tmp_path: Path) -> None:
    """A human seat's moves typed as notation play the whole game against a bot; each
    decision is printed (the board only at some); the saved record is the game, complete,
    and `replay` reproduces it."""
    specs = ["greedy", "human"]
    lines, actions = _scripted_game(specs, seed=6)
    record = tmp_path / "game.jsonl"
    done = _run("play", *specs, "--seed", "6", "--record", str(record), stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("Now: ") >= len(lines) > done.stdout.count("THE GALLERIST, 2 players")
    assert "Final" in done.stdout and "Winner" in done.stdout
    [rec] = read_records(str(record))
    assert rec.actions == actions and rec.complete and rec.bots == specs
    replayed = _run("replay", str(record))
    assert replayed.returncode == 0 and "replay matches" in replayed.stdout


def test_hint_undo_bad_moves_and_quit(tmp_path: Path) -> None:
    """`?` prints the hint bot's evaluations (win probability), an unknown or illegal move
    is named and asked again, a move typed by notation is echoed (and undone) in words,
    `undo` takes back to the previous human decision (the bot's replies and chance events
    too), `quit` saves the unfinished game, which replays."""
    state = engine.new_game(num_players=2, seed=3)
    first = state.action_to_string(state.legal_actions()[0])   # P1 chooses first at setup
    said = engine.describe_move(state.view(1), state.legal_actions()[0])
    record = tmp_path / "game.jsonl"
    script = ["undo", "?", "move:nowhere", "move:AC", first, "undo", first, "quit"]
    done = _run("play", "greedy", "human", "--seed", "3", "--hint-bot", "greedy", "--record",
                str(record), stdin="\n".join(script) + "\n")
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "nothing to undo" in out
    assert "hint by greedy" in out and "win%" in out
    assert "unknown action notation 'move:nowhere'" in out
    assert "move move:AC (id 5) is illegal here" in out
    assert out.count(f"P1 (human): {said}") == 2 and f"undone: {said}" in out
    assert "saved the unfinished game" in out
    [rec] = read_records(str(record))
    assert not rec.complete and rec.scores == []
    assert state.action_to_string(rec.actions[0]) == first and len(rec.actions) >= 2
    assert _run("replay", str(record)).returncode == 0


def test_end_of_input_saves_the_game(tmp_path: Path) -> None:
    """Standard input ending at a human's decision stops the game and saves it (exit 0)."""
    record = tmp_path / "game.jsonl"
    done = _run("play", "human", "human", "--seed", "1", "--record", str(record), stdin="")
    assert done.returncode == 0 and "end of input" in done.stdout
    [rec] = read_records(str(record))
    assert rec.actions == [] and not rec.complete


def test_ctrl_c_at_the_prompt_saves_the_game(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) while waiting for a move stops the game, saves it, exits 130."""
    record = tmp_path / "game.jsonl"
    proc = subprocess.Popen([*GALLERIST, "play", "human", "--seed", "2", "--record", str(record)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + 60
    while b"P0> " not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1)
        if ready:
            seen += os.read(proc.stdout.fileno(), 65536)
    assert b"P0> " in seen, seen[-500:]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert b"interrupted (Ctrl-C)" in out
    [rec] = read_records(str(record))
    assert not rec.complete


def test_bot_game_record(tmp_path: Path) -> None:
    """`play --record` of a bot game writes a complete record that `replay` reproduces."""
    record = tmp_path / "bots.jsonl"
    done = _run("play", "greedy", "random", "--seed", "4", "--board", "none", "--record", str(record))
    assert done.returncode == 0, done.stderr
    [rec] = read_records(str(record))
    assert rec.complete and rec.bots == ["greedy", "random"]
    assert _run("replay", str(record)).returncode == 0


def test_play_rejects_a_bad_hint_bot() -> None:
    """A bad --hint-bot is a one-line error before the game starts."""
    done = _run("play", "human", "greedy", "--hint-bot", "nosuchbot")
    assert done.returncode == 2 and "--hint-bot" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def _legal_json(path: Path) -> dict[str, Any]:
    done = _run("legal", str(path), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_legal_and_apply_play_a_game_by_files(tmp_path: Path) -> None:
    """`legal` lists the moves by notation, id and in words (`--notation`: without the
    words; chance outcomes with probabilities) and `apply` (by notation or by id) writes
    the next state: over ten steps through setup and chance events, the states equal the
    engine's own."""
    path = tmp_path / "s.json"
    assert _run("new", "--players", "2", "--seed", "5", "-o", str(path)).returncode == 0
    state = engine.new_game(num_players=2, seed=5)
    first = state.legal_actions()[0]
    text = _run("legal", str(path))
    assert text.returncode == 0
    assert text.stdout.splitlines()[0] == (f"{state.action_to_string(first)}\t{first}\t"
                                           f"{engine.describe_move(state, first)}")
    text = _run("legal", str(path), "--notation")
    assert text.stdout.splitlines()[0] == f"{state.action_to_string(first)}\t{first}"
    rng = np.random.default_rng(0)
    for step in range(10):
        info = _legal_json(path)
        assert info["chance"] == state.is_chance()
        expected = ([a for a, _ in state.chance_outcomes()] if state.is_chance()
                    else state.legal_actions())
        assert [m["action"] for m in info["moves"]] == expected
        words = engine.describe_moves(state)
        assert [m["description"] for m in info["moves"]] == list(words.values())
        move = info["moves"][int(rng.integers(len(info["moves"])))]
        arg = str(move["action"]) if step % 2 else move["move"]
        done = _run("apply", str(path), arg, "-o", str(path))
        assert done.returncode == 0, done.stderr
        state.apply(move["action"])
        assert engine.GameState.from_json(path.read_text()).state_bytes() == state.state_bytes()


def test_apply_names_an_illegal_move(tmp_path: Path) -> None:
    """An illegal, unknown or out-of-range move is one line naming it, exit status 2 (bad
    input), and nothing is written; a bad or missing state file likewise."""
    path = tmp_path / "s.json"
    path.write_text(engine.new_game(num_players=2, seed=5).to_json())
    out = tmp_path / "next.json"
    for move, fragment in (("move:AC", "move move:AC (id 5) is illegal here"),
                           ("teleport", "move 'teleport': unknown action notation"),
                           ("999", "move '999': action must be an int")):
        done = _run("apply", str(path), move, "-o", str(out))
        assert done.returncode == 2 and fragment in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
        assert not out.exists()
    bad = tmp_path / "bad.json"
    bad.write_text("{\"numPlayers\": 9}")
    for argv in (("legal", str(bad)), ("apply", str(bad), "move:AC"), ("legal", str(tmp_path / "none.json"))):
        done = _run(*argv)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_review_command_writes_the_page(tmp_path: Path) -> None:
    """`gallerist review ANALYSIS --html OUT` writes the page; a file that is not an
    analysis is a one-line error naming it (exit 2: bad input)."""
    analysis = tmp_path / "a.jsonl"
    write_analysis(analysis, 2, seed=1, max_positions=10)
    page = tmp_path / "r.html"
    done = _run("review", str(analysis), "--html", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "review-data" in text and "http://" not in \
        text.replace("http://www.w3.org/2000/svg", "")
    other = tmp_path / "x.jsonl"
    other.write_text('{"game": 0}\n')
    done = _run("review", str(other), "--html", str(page))
    assert done.returncode == 2 and "not an analyzed game" in done.stderr and str(other) in done.stderr


def test_tab_completion_offers_the_legal_moves_and_commands() -> None:
    """The readline completer completes a prefix to the legal moves' notation (and the
    commands), and nothing else."""
    from gallerist.cli.commands.play_human import TerminalGame, completer

    game = TerminalGame(["human", "human"], [None, None], 3, hint_bot=lambda: None,
                        record="unused.jsonl", read_line=lambda prompt: "")
    complete = completer(game)

    def options(prefix: str) -> list[str]:
        out, i = [], 0
        while (option := complete(prefix, i)) is not None:
            out.append(option)
            i += 1
        return out

    legal = [game.state.action_to_string(a) for a in game.state.legal_actions()]
    assert options("start:") == legal and options("move:") == []
    assert options("u") == ["undo"] and options("") == [*legal, "?", "undo", "board", "moves",
                                                          "help", "quit"]


def test_a_bot_game_says_who_chooses_each_start_location(tmp_path) -> None:
    """`play` between bots: the start locations come under a setup header, each with the
    seat that chose it, before the first turn's header."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "play", "greedy", "random",
                           "--seed", "4", "--board", "none"], capture_output=True, text=True,
                          timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Setup: each seat chooses its start location")
    assert lines[1].startswith("    P1 (random): Start at the ")
    assert lines[2].startswith("    P0 (greedy): Start at the ")
    assert lines[3].startswith("P0 (greedy), move 2")
