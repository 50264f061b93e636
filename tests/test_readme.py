"""The README's quick start runs as written: every command of its "## Quick start" section,
in order, in one temporary folder, each with a timeout.

`gallerist serve` is started in the background on a free port (the only change to any
line: the README's port, in the serve line and in the lines that ask it, becomes that
port) and stopped with SIGTERM at the end; `gallerist play human ...` is fed `quit` on
standard input; every other command must exit 0. The installation and test commands of
"## The two commands" (`pip install -e . && gallerist demo`, `bash tests/run.sh`) are not
run here: they install packages (tests/test_test_command.py checks the second, and
tests/server/test_cli.py the demo).
"""
from __future__ import annotations

import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GALLERIST = [sys.executable, "-m", "gallerist.cli"]
#: Seconds one command may take; the whole quick start takes about half a minute.
TIMEOUT = 120


def quick_start_commands() -> list[str]:
    """The command lines of the README's quick start, in order (comments dropped)."""
    section = README.read_text().split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", section, re.S):
        lines += [line.strip() for line in block.splitlines()
                  if line.strip() and not line.lstrip().startswith("#")]
    return lines


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, server: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None, f"gallerist serve exited with {server.returncode}"
        try:
            with socket.create_connection(("localhost", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"gallerist serve did not listen on port {port} in {timeout} s")


def test_the_quick_start_has_the_five_tasks() -> None:
    """Get a hint, play a game, review it, run a tournament, serve it: each a command
    of the quick start, and nothing there installs anything."""
    commands = [shlex.split(line)[:2] for line in quick_start_commands()]
    assert all(argv[0] == "gallerist" for argv in commands), commands
    for command in ("hint", "play", "analyze", "arena", "serve"):
        assert ["gallerist", command] in commands, command


def test_every_quick_start_command_runs_as_written(tmp_path: Path) -> None:
    """Each line, in order in one folder, exits 0 without a traceback; the files the
    quick start promises are written."""
    lines = quick_start_commands()
    serve_line = next(line for line in lines if line.startswith("gallerist serve"))
    readme_port = re.search(r"--port (\d+)", serve_line).group(1)  # type: ignore[union-attr]
    port = str(free_port())
    server = None
    try:
        for line in lines:
            line = re.sub(rf"(--port |localhost:){readme_port}\b", rf"\g<1>{port}", line)
            argv = GALLERIST + shlex.split(line)[1:]
            if line.startswith("gallerist serve"):
                server = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True)
                wait_for_port(int(port), server)
                continue
            human = line.startswith("gallerist play human")
            done = subprocess.run(argv, cwd=tmp_path, input="quit\n" if human else "",
                                  capture_output=True, text=True, timeout=TIMEOUT)
            assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            assert "Traceback" not in done.stderr, f"{line}\n{done.stderr}"
            if human:
                assert "stopped (quit)" in done.stdout
            if "--address" in line:
                assert "Hints for player" in done.stdout
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            out, _ = server.communicate(timeout=30)
    assert server is not None and server.returncode == 0, out
    assert "SuggestMoves" in out or "AnalyzeStream" in out, out  # the hint reached it
    for made in ("game.json", "game.jsonl", "review.html", "arena.html", "arena-games.jsonl"):
        assert (tmp_path / made).stat().st_size > 0, made
