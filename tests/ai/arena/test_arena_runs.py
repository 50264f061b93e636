"""Arena robustness: an unreachable or dying remote bot, failures that cross
worker processes, runs in records files, resuming and summarising from the records."""
from __future__ import annotations

import json
import pickle
import shlex
import socket
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

import gallerist.ai.arena.tournament as arena
from gallerist.ai.arena.tournament import (GameFailed, RecordsError, read_records, replay, resume_tournament,
                                run_tournament, summarise_records)
from gallerist.ai.bots.remote import RemoteError
from gallerist.cli.main import main as gallerist_main


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def cli(tmp_path, *args: str) -> int:
    return gallerist_main(["arena", *args, "--out", str(tmp_path / "res.json"),
                           "--png", str(tmp_path / "r.png"), "--no-progress"])


def key(records) -> list:
    return sorted((r.game, tuple(r.money), tuple(r.actions)) for r in records)


# ---------------------------------------------------------------- unreachable / dying remote bots

def test_unreachable_remote_bot_fails_before_the_first_game_naming_the_address(tmp_path, capsys) -> None:
    """No server at the address: one line naming the address and the cause, exit 1, no game
    played (the health check runs before the first game), no traceback."""
    port = free_port()
    spec = f"remote:localhost:{port},bot=mcts"
    with pytest.raises(RemoteError, match=f"localhost:{port}.*unreachable.*UNAVAILABLE"):
        run_tournament([spec, "random"], games=2)
    records = tmp_path / "g.jsonl"
    t0 = time.monotonic()
    rc = cli(tmp_path, spec, "random", "--games", "2", "--workers", "2", "--records", str(records))
    err = capsys.readouterr().err
    assert rc == 1 and time.monotonic() - t0 < 10
    assert err.startswith("error: remote bot localhost:") and err.count("\n") == 1
    assert "Traceback" not in err and "pickle" not in err
    assert not records.exists()


def test_a_failed_game_pickles_with_its_cause() -> None:
    """Worker exceptions are plain GameFailed errors holding the message (an exception
    holding a gRPC error cannot be pickled back to the parent)."""
    exc = pickle.loads(pickle.dumps(GameFailed("game 3 (seed 1) failed: remote bot x:1: down")))
    assert isinstance(exc, GameFailed) and str(exc) == "game 3 (seed 1) failed: remote bot x:1: down"


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_a_game_failing_in_a_worker_reaches_the_user_with_its_cause(backend, monkeypatch) -> None:
    """A remote bot failing inside a worker process (local pool or Ray task): the cause
    comes back as the tournament's error, not as a pickling error (MaybeEncodingError)."""
    monkeypatch.setattr(arena, "_preflight", lambda bots: None)   # let the games start
    port = free_port()
    t = run_tournament([f"remote:localhost:{port},bot=mcts", "random"], games=2, workers=2,
                       backend=backend)
    assert t.interrupted and not t.records
    assert t.error is not None and t.error.startswith("game ")
    assert f"remote bot localhost:{port}: SuggestMoves failed (UNAVAILABLE" in t.error


def test_remote_bots_play_in_spawned_workers_others_in_forked(monkeypatch) -> None:
    """gRPC does not survive fork() once the parent used it (the health check), and a
    forked worker could hang on a lock held at the fork: remote arenas spawn workers, and
    so does any arena once JAX (threads of its own) is loaded."""
    import multiprocessing

    methods: list[str] = []
    real = multiprocessing.get_context
    monkeypatch.setattr(multiprocessing, "get_context", lambda method=None: methods.append(method) or real(method))
    monkeypatch.setattr(arena, "_preflight", lambda bots: None)
    monkeypatch.delitem(sys.modules, "jax", raising=False)   # as in a user's process
    run_tournament([f"remote:localhost:{free_port()},bot=mcts", "random"], games=2, workers=2)
    run_tournament(["greedy", "random"], games=2, workers=2)
    assert methods == ["spawn", "fork"]
    # JAX's threads do not survive fork() either: once it is loaded, workers are spawned
    monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    run_tournament(["greedy", "random"], games=2, workers=2)
    assert methods == ["spawn", "fork", "spawn"]


def start_server(workers: int) -> tuple[subprocess.Popen, int]:
    """`gallerist serve` in a process of its own (so that it can be killed), once ready."""
    from gallerist.client import HintClient

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "gallerist.cli", "serve", "--port", str(port),
                               "--workers", str(workers)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with HintClient(f"localhost:{port}") as client:
        client.wait_ready(timeout=30)
    return server, port


def test_remote_bot_waits_for_a_busy_server_instead_of_failing() -> None:
    """More arena workers than the server has search slots: RESOURCE_EXHAUSTED ("retry
    later") is retried, so every game is played (it used to fail the arena)."""
    server, port = start_server(workers=1)
    try:
        spec = f"remote:localhost:{port},bot=mcts,iterations=20"
        t = run_tournament([spec, spec.replace("=20", "=21")], games=4, workers=2, seed=3)
    finally:
        server.kill()
        server.wait()
    assert t.error is None and len(t.records) == 4


def test_remote_server_killed_mid_arena_keeps_and_summarises_finished_games(tmp_path) -> None:
    """The service of a remote bot dies during a parallel arena: the tournament stops with
    the cause (from the worker process) as its error and keeps every finished game."""
    server, port = start_server(workers=2)
    try:
        def kill_after_first(done: int, total: int) -> None:
            if done == 1:
                server.kill()
                server.wait()

        records = tmp_path / "g.jsonl"
        t = run_tournament([f"remote:localhost:{port},bot=mcts,iterations=20", "random"], games=12,
                           workers=2, seed=2, records_path=str(records), progress=kill_after_first)
    finally:
        server.kill()
        server.wait()
    assert t.interrupted and t.error is not None
    assert f"remote bot localhost:{port}" in t.error and "UNAVAILABLE" in t.error
    saved = read_records(str(records))
    assert 1 <= len(saved) < 12 and key(saved) == key(t.records)
    report = t.report()
    assert report["games"] == len(saved) and report["error"] == t.error


def test_cli_summarises_writes_and_exits_1_when_a_game_fails(tmp_path, capsys, monkeypatch) -> None:
    """A failed game ends the arena as Ctrl-C does (report, JSON, PNG) plus a one-line error
    that says how to resume, and exit status 1."""
    play = arena.play_scheduled

    def failing(game):  # type: ignore[no-untyped-def]
        if game.index >= 2:
            raise GameFailed(f"game {game.index} (seed {game.seed}) failed: remote bot h:1: gone")
        return play(game)

    monkeypatch.setattr(arena, "play_scheduled", failing)
    records = tmp_path / "g.jsonl"
    rc = cli(tmp_path, "random", "greedy", "--games", "6", "--workers", "1", "--records", str(records))
    out, err = capsys.readouterr()
    assert rc == 1
    assert "2 of 6 games" in out and "(interrupted)" in out
    assert err.count("\n") == 1 and "game 2 (seed 1) failed: remote bot h:1: gone" in err
    assert f"--resume {records}" in err
    report = json.loads((tmp_path / "res.json").read_text())
    assert report["games"] == 2 and report["scheduled"] == 6 and "gone" in report["error"]
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- resume and summarise

def stop_after(n: int):  # type: ignore[no-untyped-def]
    def progress(done: int, total: int) -> None:
        if done == n:
            raise KeyboardInterrupt
    return progress


def test_resume_plays_only_the_missing_games_and_gives_the_uninterrupted_results(tmp_path) -> None:
    """--resume: the same schedule and seeds, only the games without a record, appended
    under the same run id; the result equals an uninterrupted arena's."""
    records = tmp_path / "g.jsonl"
    first = run_tournament(["random", "greedy"], games=8, seed=5, records_path=str(records),
                           progress=stop_after(3))
    assert first.interrupted and len(first.records) == 3
    played: list[int] = []
    t = resume_tournament(str(records), progress=lambda done, total: played.append(done))
    assert not t.interrupted and len(t.records) == 8 and played == [3, 4, 5, 6, 7, 8]
    whole = run_tournament(["random", "greedy"], games=8, seed=5)
    assert key(t.records) == key(whole.records)
    saved = read_records(str(records))
    assert len(saved) == 8 and {r.run for r in saved} == {first.run}
    assert summarise_records(str(records)).report()["summary"] == whole.report()["summary"]


def test_cli_resume_and_summarise_from_records(tmp_path, capsys) -> None:
    records = tmp_path / "g.jsonl"
    run_tournament(["random", "greedy"], games=6, seed=1, records_path=str(records), progress=stop_after(2))
    assert cli(tmp_path, "--summarise", str(records)) == 0
    out = capsys.readouterr().out
    assert "2 of 6 games" in out
    assert json.loads((tmp_path / "res.json").read_text())["games"] == 2
    assert cli(tmp_path, "--resume", str(records), "--workers", "1") == 0
    assert json.loads((tmp_path / "res.json").read_text())["games"] == 6
    assert len(read_records(str(records))) == 6
    assert cli(tmp_path, "--resume", str(records), "random") == 2          # the schedule is the file's
    assert "do not give bot specs" in capsys.readouterr().err
    assert cli(tmp_path, "--resume", str(records), "--records", str(tmp_path / "other.jsonl")) == 2
    assert "do not give --records" in capsys.readouterr().err
    assert cli(tmp_path, "--summarise", str(tmp_path / "none.jsonl")) == 2
    assert f"--summarise {tmp_path / 'none.jsonl'}: no such file" in capsys.readouterr().err
    assert cli(tmp_path, "--summarize", str(records)) == 0                 # either spelling


# ---------------------------------------------------------------- runs in one records file

def test_a_records_file_of_another_arena_is_refused_before_playing(tmp_path, capsys) -> None:
    records = tmp_path / "g.jsonl"
    run_tournament(["random", "greedy"], games=2, seed=0, records_path=str(records))
    before = records.read_text()
    with pytest.raises(RecordsError, match="already holds run .* --resume"):
        run_tournament(["random", "greedy"], games=2, seed=1, records_path=str(records))
    assert cli(tmp_path, "random", "--games", "2", "--records", str(records)) == 2
    assert "already holds run" in capsys.readouterr().err
    assert records.read_text() == before


def test_replay_names_the_run_and_refuses_an_ambiguous_game_number(tmp_path, capsys) -> None:
    """The same arena run twice into one file: two runs with the same game numbers; replay
    asks for --run instead of silently picking the first, and names the run it replays."""
    records = tmp_path / "g.jsonl"
    a = run_tournament(["random", "greedy"], games=2, seed=0, records_path=str(records))
    b = run_tournament(["random", "greedy"], games=2, seed=0, records_path=str(records))
    assert a.run != b.run
    assert gallerist_main(["replay", str(records), "--game", "0"]) == 2
    err = capsys.readouterr().err
    assert "game 0 is in 2 runs" in err and a.run in err and b.run in err and "--run" in err
    assert gallerist_main(["replay", str(records), "--game", "0", "--run", b.run]) == 0
    assert capsys.readouterr().out.startswith(f"game 0 (run {b.run})")
    assert gallerist_main(["replay", str(records), "--game", "0", "--run", "nope"]) == 2
    assert "no run 'nope'" in capsys.readouterr().err


def test_records_without_run_ids_still_replay_and_summarise_but_do_not_resume(tmp_path) -> None:
    """Records written before runs existed: replayable and summarisable, not resumable."""
    t = run_tournament(["random", "greedy"], games=2, seed=0)
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps({k: v for k, v in r.__dict__.items() if k not in ("run", "arena")}) + "\n"
                           for r in t.records))
    saved = read_records(str(old))
    assert all(r.run == "" and r.arena is None for r in saved)
    assert replay(saved[0]).money() == saved[0].money
    assert summarise_records(str(old)).report()["games"] == 2
    with pytest.raises(RecordsError, match="without an arena schedule.*not resumed"):
        resume_tournament(str(old))


def test_resuming_a_played_games_record_names_what_it_is(tmp_path) -> None:
    """`arena --resume` of the one-game record `gallerist play --record` writes says so,
    not that an older version wrote it."""
    import subprocess
    import sys
    record = tmp_path / "game.jsonl"
    subprocess.run([sys.executable, "-m", "gallerist.cli", "play", "greedy", "random",
                    "--seed", "1", "--board", "none", "--record", str(record)],
                   check=True, capture_output=True, timeout=120)
    with pytest.raises(RecordsError, match="one game's record, as 'gallerist play --record' "
                                           "writes it.*not resumed"):
        resume_tournament(str(record))


def test_report_libraries_are_loaded_before_the_first_game(tmp_path) -> None:
    """scipy, statsmodels and matplotlib take seconds to import on a busy machine: the
    arena imports them before playing, so the report after Ctrl-C comes at once."""
    script = (
        "import sys\n"
        "import gallerist.ai.arena.tournament as arena\n"
        "def fake(*a, **k):\n"
        "    mods = ('scipy.stats', 'statsmodels.stats.proportion', 'matplotlib.pyplot')\n"
        "    print('loaded:', all(m in sys.modules for m in mods))\n"
        "    raise KeyboardInterrupt\n"
        "arena.run_tournament = fake\n"
        "from gallerist.cli.main import main\n"
        f"main(['arena', 'random', '--no-progress', '--records', {str(tmp_path / 'g.jsonl')!r},\n"
        f"      '--out', {str(tmp_path / 'r.json')!r}, '--png', {str(tmp_path / 'r.png')!r}])\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "loaded: True" in out.stdout, out.stderr


# ---------------------------------------------------------------- the documented examples

CLI_DOC = Path(__file__).resolve().parents[3] / "docs" / "cli.md"
#: Smaller budgets for the first arena of docs/cli.md (the same commands, in seconds, not minutes).
QUICKER = {"iterations=500": "iterations=20", "depth=2": "depth=1", "--games 40": "--games 12"}


def documented_arena_lines() -> list[str]:
    """The `gallerist arena` and `gallerist replay` lines of docs/cli.md's "arena and
    replay" examples, in order."""
    section = CLI_DOC.read_text().split("\n## arena and replay\n", 1)[1].split("```")[1]
    return [line for line in section.splitlines()
            if line.startswith(("gallerist arena", "gallerist replay"))]


def test_the_documented_arena_examples_run_in_order_in_one_folder(tmp_path) -> None:
    """The arena lines of docs/cli.md, run one after the other in one folder, all succeed: the
    second arena does not collide with the first's records, which --resume, --summarise
    and replay then read."""
    lines = documented_arena_lines()
    assert len(lines) >= 5 and sum("--resume arena-games.jsonl" in x for x in lines) == 1
    for line in lines:
        for old, new in QUICKER.items():
            line = line.replace(old, new)
        argv = shlex.split(line, comments=True)
        done = subprocess.run([sys.executable, "-m", "gallerist.cli", *argv[1:]],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{line}\n{done.stderr}"
        assert "Traceback" not in done.stderr
    assert (tmp_path / "arena.html").exists()
