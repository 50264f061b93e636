"""One convention for exit statuses, written in `gallerist --help` and kept by every command
that reads a file: 2 for bad arguments or input files (missing, or not what the command
reads), 1 for a run that failed; and a game state's bad field is named with its index and
the problem in words."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gallerist import engine

ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gallerist.cli", *argv], capture_output=True,
                          text=True, timeout=120)


def test_help_documents_the_exit_statuses() -> None:
    out = _run("--help").stdout
    assert "exit status (every command):" in out
    for code in ("0    done", "1    the run failed", "2    bad arguments or input files",
                 "130  interrupted"):
        assert code in out


COMMANDS = {   # command -> its arguments around the input file
    "hint": ("hint", "{f}", "--local", "--bot", "greedy"),
    "legal": ("legal", "{f}"),
    "apply": ("apply", "{f}", "move:AC"),
    "analyze": ("analyze", "{f}", "--bot", "greedy"),
    "review": ("review", "{f}", "--html", "{tmp}/r.html"),
    "replay": ("replay", "{f}"),
    "arena --summarise": ("arena", "--summarise", "{f}"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", ["missing", "not that kind of file"])
def test_a_missing_or_wrong_input_file_is_status_2_in_one_line(command, kind, tmp_path) -> None:
    """A missing file, and a file of another kind (a game state for the commands that read
    records or analyses, a record line for those that read states), exit 2 with one line
    naming the file, and no Python internals in it."""
    f = tmp_path / "input.json"
    if kind != "missing":
        reads_state = command in ("hint", "legal", "apply")
        f.write_text(json.dumps({"game": 0, "bots": ["greedy"]}) + "\n" if reads_state
                     else engine.new_game(num_players=2, seed=1).to_json() + "\n")
    argv = [a.format(f=f, tmp=tmp_path) for a in COMMANDS[command]]
    done = _run(*argv)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and str(f) in lines[0], done.stderr
    for internal in ("__init__", "Traceback", "keyword argument", "invalid literal"):
        assert internal not in done.stderr


def test_a_state_file_given_for_records_says_what_it_is(tmp_path) -> None:
    """`replay` and `arena --summarise` of a game state say the file is a state, not a
    record, instead of a Python error about GameRecord's arguments."""
    f = tmp_path / "game.json"
    f.write_text(engine.new_game(num_players=2, seed=1).to_json() + "\n")
    for argv in (("replay", str(f)), ("arena", "--summarise", str(f))):
        err = _run(*argv).stderr
        assert "not a game record" in err and "looks like a game state" in err, err


def test_a_failed_run_is_status_1(tmp_path) -> None:
    """A hint from a service that is not there is a failed run: exit 1."""
    state = tmp_path / "game.json"
    state.write_text(engine.new_game(num_players=2, seed=1).to_json())
    done = _run("hint", str(state), "--address", "localhost:1", "--timeout", "5")
    assert done.returncode == 1, done.stderr


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["players"][0].__setitem__("money", -50),
     "players[0].money: -50 is out of range (expected a whole number from 0 to 4294967295)"),
    (lambda d: d["artists"][2].__setitem__("fame", "banana"),
     "artists[2].fame: expected a whole number, got 'banana'"),
    (lambda d: d["players"][1].__setitem__("money", 2.5),
     "players[1].money: expected a whole number, got 2.5"),
    (lambda d: d["players"][0].__setitem__("dealer", "DEALER_CARD_D9"),
     "players[0].dealer: unknown value 'DEALER_CARD_D9'"),
])
def test_a_bad_state_field_is_named_with_its_index(mutate, message, tmp_path) -> None:
    """A state's wrong value names the field with its list index and says what was
    expected, from the engine and from `gallerist legal`."""
    d = json.loads(engine.new_game(num_players=2, seed=1).to_json())
    mutate(d)
    with pytest.raises(engine.InvalidStateError) as info:
        engine.GameState.from_json(json.dumps(d))
    assert str(info.value).startswith(message)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(d))
    done = _run("legal", str(f))
    assert done.returncode == 2 and message in done.stderr


# ---------------------------------------------------------------- SIGINT and SIGTERM

#: A job started with `&` by a shell without job control: SIGINT ignored, as that shell does.
AS_A_BACKGROUND_JOB = ["sh", "-c", 'trap "" INT; exec "$0" "$@"']


def _stop_midway(argv: list[str], cwd: Path, started: Callable[[], bool],
                 sig: signal.Signals) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run `gallerist argv` in a session of its own (the signal reaches it alone) as a
    background job, send `sig` once `started()`; the finished process and the seconds it
    took to end after the signal."""
    proc = subprocess.Popen([*AS_A_BACKGROUND_JOB, sys.executable, "-m", "gallerist.cli",
                             *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not started():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        proc.send_signal(sig)
        t0 = time.monotonic()
        out, err = proc.communicate(timeout=30)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), \
            time.monotonic() - t0
    finally:   # the command and any process it left (its session's group): never a hang
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if proc.returncode is None:
            proc.communicate(timeout=30)


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sigint_and_sigterm_stop_an_arena_keeping_its_games(sig, tmp_path) -> None:
    """`kill -INT` (even of a background job, which starts with SIGINT ignored) and
    `kill -TERM` stop an arena as Ctrl-C does: exit 130 within seconds, the workers
    ended, the finished games kept in the records file and reported."""
    records = tmp_path / "arena-games.jsonl"
    done, seconds = _stop_midway(["arena", "greedy", "random", "--games", "20000",
                                  "--workers", "2", "--no-progress"], tmp_path,
                                 lambda: _lines(records) >= 1, sig)
    assert done.returncode == 130, done.stderr
    assert seconds < 10
    assert "Traceback" not in done.stderr
    kept = _lines(records)
    assert 1 <= kept < 20000
    assert f"interrupted: keeping {kept} finished game" in done.stderr
    assert f"continue with: gallerist arena --resume {records.name}" in done.stderr
    assert json.loads((tmp_path / "arena-results.json").read_text())["games"] == kept


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_server_stopped_by_a_signal_exits_0(sig, tmp_path) -> None:
    """`serve` stopped on purpose (SIGINT or SIGTERM) shuts down gracefully and exits 0,
    as docs/cli.md says of it (the one command that does not exit 130)."""
    log = tmp_path / "serve.log"

    def listening() -> bool:
        return log.exists() and "listening on" in log.read_text()
    proc_argv = ["serve", "--port", "0", "--workers", "1"]
    with open(log, "w") as out:
        proc = subprocess.Popen([*AS_A_BACKGROUND_JOB, sys.executable, "-m", "gallerist.cli",
                                 *proc_argv], cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while not listening():
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
            proc.send_signal(sig)
            assert proc.wait(30) == 0, log.read_text()
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    cli = (ROOT / "docs" / "cli.md").read_text()
    assert "`serve` is the exception" in cli and "exits 0" in cli


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sigint_and_sigterm_stop_selfplay_keeping_its_shards(sig, tmp_path) -> None:
    """`kill -INT` of a background selfplay and `kill -TERM` stop it as Ctrl-C does: exit
    130 within seconds, the complete shards kept in the manifest."""
    out = tmp_path / "sp"
    manifest = out / "manifest.json"

    def started() -> bool:
        try:
            return int(json.loads(manifest.read_text())["games"]) >= 1
        except (OSError, ValueError, KeyError):
            return False

    done, seconds = _stop_midway(["selfplay", "random", "--games", "20000", "--workers", "2",
                                  "--games-per-shard", "1", "--out", str(out),
                                  "--no-progress"], tmp_path, started, sig)
    assert done.returncode == 130, done.stderr
    assert seconds < 10
    assert "Traceback" not in done.stderr
    kept = json.loads(manifest.read_text())
    assert 1 <= kept["games"] < 20000
    assert all((out / shard["file"]).exists() for shard in kept["shards"])


def test_sigint_stops_a_ladder_keeping_its_games_and_it_continues(tmp_path) -> None:
    """`kill -INT` of a background ladder: exit 130, the finished games kept and rated;
    run again, it plays only the games still missing."""
    records = tmp_path / "ladder-games.jsonl"
    argv = ["ladder", "--rungs", "random,greedy", "--games-per-pair", "20000", "--workers", "2",
            "--no-progress"]
    done, seconds = _stop_midway(argv, tmp_path, lambda: _lines(records) >= 2, signal.SIGINT)
    assert done.returncode == 130, done.stderr
    assert seconds < 10 and "Traceback" not in done.stderr
    kept = _lines(records)
    assert 2 <= kept < 20000
    assert "random fixed at 0 Elo" in done.stdout
    again = subprocess.run([sys.executable, "-m", "gallerist.cli", "ladder", "--rungs",
                            "random,greedy", "--games-per-pair", "2", "--no-progress"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert kept <= len(games) <= kept + 2            # at most its own 2 games added
    keys = [(g["seed"], tuple(g["bots"])) for g in games]
    assert len(set(keys)) == len(keys)               # and none played twice
