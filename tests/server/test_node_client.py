"""The service driven from Node.js: clients/node/play.js, on @grpc/grpc-js and
@grpc/proto-loader with the repository's .proto files, plays a whole game through a server.

Node.js and the client's npm packages must be installed (CI runs `npm ci --prefix
clients/node`); when they are missing these tests fail, saying what to run.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gallerist import engine
from gallerist.server import GalleristServer

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"
PACKAGES = ("@grpc/grpc-js", "@grpc/proto-loader")
#: The whole game takes a few seconds; past this something hangs.
TIMEOUT_S = 90


def _node() -> str:
    """The node executable, checked to be Node.js 18 or newer with the packages installed."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: install Node.js 18 or newer (e.g. `apt-get install "
                    f"nodejs npm`), then run `npm ci --prefix {CLIENT}`", pytrace=False)
    version = subprocess.run([node, "--version"], capture_output=True, text=True,
                             timeout=30).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < 18:
        pytest.fail(f"node {version or '(unknown version)'} is too old: the client needs "
                    "Node.js 18 or newer", pytrace=False)
    missing = [p for p in PACKAGES if not (CLIENT / "node_modules" / p / "package.json").is_file()]
    if missing:
        pytest.fail(f"the Node.js client's packages are not installed ({', '.join(missing)}): "
                    f"run `npm ci --prefix {CLIENT}`", pytrace=False)
    return node


def _run_client(*args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([_node(), str(CLIENT / "play.js"), *args], capture_output=True,
                              text=True, timeout=TIMEOUT_S, cwd=CLIENT)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the Node.js client did not finish within {TIMEOUT_S} s; its output: "
                    f"{exc.stdout!r} {exc.stderr!r}", pytrace=False)


def test_node_client_plays_a_whole_game(service: GalleristServer, tmp_path: Path) -> None:
    """From Node.js: the JSON of `gallerist new` sent back unchanged (nothing dropped on
    the way through proto-loader, and equal to NewGame's state), then LegalActions and
    ApplyAction to the end of the game with SuggestMoves on the way; the final state it
    writes reads back as a finished game."""
    start, final = tmp_path / "game.json", tmp_path / "final.json"
    new = subprocess.run([sys.executable, "-m", "gallerist.cli", "new", "--players", "2",
                          "--seed", "5", "-o", str(start)], capture_output=True, text=True,
                         timeout=60)
    assert new.returncode == 0, new.stderr
    result = _run_client("--address", f"localhost:{service.port}", "--state", str(start),
                         "--seed", "5", "--hints", "3", "--iterations", "20",
                         "--out", str(final))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True and summary["hints"] == 3
    end = engine.GameState.from_json(final.read_text())
    assert end.is_terminal()
    initial = engine.GameState.from_json(start.read_text())
    assert len(end.history) == len(initial.history) + summary["actions"]
    assert summary["money"] == end.money()


def test_node_client_bad_usage_is_one_line_and_status_2() -> None:
    """The client's own bad usage: one error line naming the option, exit status 2."""
    result = _run_client("--state", "game.json")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --address is required"


def test_node_client_help_prints_usage_and_exits_0() -> None:
    """`--help` prints the usage with every option and exit status 0, not an error."""
    result = _run_client("--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: node play.js --address HOST:PORT --state FILE")
    for option in ("--address", "--state", "--seed", "--hints", "--iterations", "--opponent",
                   "--token", "--out"):
        assert option in result.stdout


def test_node_client_without_seed_plays_and_a_wrong_seed_is_one_line(
        service: GalleristServer, tmp_path: Path) -> None:
    """A state of `gallerist new --seed 7` played without --seed: the game is played (the
    NewGame comparison needs the seed); with another seed: one line naming --seed and the
    first field that differs, exit status 2."""
    start = tmp_path / "game.json"
    new = subprocess.run([sys.executable, "-m", "gallerist.cli", "new", "--players", "2",
                          "--seed", "7", "-o", str(start)], capture_output=True, text=True,
                         timeout=60)
    assert new.returncode == 0, new.stderr
    address = f"localhost:{service.port}"
    played = _run_client("--address", address, "--state", str(start), "--hints", "1")
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout.strip().splitlines()[-1])["ok"] is True
    wrong = _run_client("--address", address, "--state", str(start), "--seed", "1")
    assert wrong.returncode == 2
    lines = wrong.stderr.strip().splitlines()
    assert len(lines) == 1, wrong.stderr
    assert lines[0].startswith("error: --seed 1: NewGame(2 players, seed 1) differs from the "
                               "--state file at state.")


def test_node_client_plays_a_whole_game_against_a_level(service: GalleristServer,
                                                        tmp_path: Path) -> None:
    """An AI opponent from Node.js: with --opponent level:2 every decision of the last seat
    is one SuggestMoves call whose `chosen` move is applied; the game reaches its end."""
    start, final = tmp_path / "game.json", tmp_path / "final.json"
    new = subprocess.run([sys.executable, "-m", "gallerist.cli", "new", "--players", "2",
                          "--seed", "9", "-o", str(start)], capture_output=True, text=True,
                         timeout=60)
    assert new.returncode == 0, new.stderr
    result = _run_client("--address", f"localhost:{service.port}", "--state", str(start),
                         "--hints", "0", "--opponent", "level:2", "--out", str(final))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True and summary["opponentMoves"] > 20
    assert engine.GameState.from_json(final.read_text()).is_terminal()


def test_node_client_opponent_out_of_range_names_the_range(service: GalleristServer,
                                                          tmp_path: Path) -> None:
    """A level out of range: the service's INVALID_ARGUMENT, naming the range, in one line."""
    start = tmp_path / "game.json"
    subprocess.run([sys.executable, "-m", "gallerist.cli", "new", "--players", "2", "-o",
                    str(start)], capture_output=True, text=True, timeout=60, check=True)
    result = _run_client("--address", f"localhost:{service.port}", "--state", str(start),
                         "--hints", "0", "--opponent", "level:12")
    assert result.returncode == 1
    assert "level 1..8, got 12" in result.stderr and "INVALID_ARGUMENT" not in result.stdout
