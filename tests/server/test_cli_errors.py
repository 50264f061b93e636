"""Bad input to the `gallerist` command line: one `error: ...` line on stderr that says what
is wrong and what to do, no traceback, exit status 2 for bad usage and 1 for a failure, and
no work lost."""
from __future__ import annotations

import importlib.metadata
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gallerist.cli.main import build_parser, main


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run `argv`, expect argparse's usage error (exit status 2); return stderr."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def screen(err: str) -> list[str]:
    """The lines of `err` as a terminal shows them: a carriage return moves back to the
    start of the line, and what follows overwrites it (as tqdm's bar redraws itself)."""
    lines = []
    for raw in err.split("\n"):
        chars: list[str] = []
        col = 0
        for ch in raw:
            if ch == "\r":
                col = 0
                continue
            if col < len(chars):
                chars[col] = ch
            else:
                chars.append(ch)
            col += 1
        lines.append("".join(chars).rstrip())
    return lines


def error_lines(err: str) -> list[str]:
    """The lines of stderr that are an error message, each on a line of its own."""
    return [line for line in screen(err) if line.startswith("error: ")]


def test_new_to_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`new -o /missing/dir/g.json` names the path and its missing folder (exit 2), and a
    folder given as the file is refused the same way."""
    missing = tmp_path / "nonexistent" / "dir" / "g.json"
    assert main(["new", "-o", str(missing)]) == 2
    err = capsys.readouterr().err
    assert error_lines(err) == [
        f"error: --output {missing}: folder {str(missing.parent)!r} does not exist; "
        f"create it or give another path"]
    assert "Traceback" not in err
    assert main(["new", "-o", str(tmp_path)]) == 2
    assert error_lines(capsys.readouterr().err) == [
        f"error: --output {tmp_path}: is a folder; give a file name"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--out", "--records", "--png"])
def test_arena_checks_output_paths_before_playing(
        option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad arena output path is refused (exit 2) before any game is played: no records
    are written, no results, no picture."""
    paths = {"--out": tmp_path / "r.json", "--records": tmp_path / "g.jsonl",
             "--png": tmp_path / "p.png"}
    paths[option] = tmp_path / "nonexistent" / "x.out"
    argv = ["arena", "greedy", "random", "--games", "2", "--workers", "1", "--no-progress"]
    for name, path in paths.items():
        argv += [name, str(path)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert error_lines(captured.err) == [
        f"error: {option} {paths[option]}: folder {str(paths[option].parent)!r} does not "
        f"exist; create it or give another path"]
    assert captured.out == ""          # no report: nothing was played
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--time-ms", "--iterations", "--depth", "--seed"])
@pytest.mark.parametrize("where", [["--local"], ["--address", "localhost:1"]])
def test_hint_refuses_negative_budgets(option: str, where: list[str],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A negative budget or seed is a usage error naming the option, locally and for a
    server (it was protobuf's "ValueError: Value out of range" traceback); so is one above
    the request's uint32 fields."""
    err = usage_error(["hint", "--demo", *where, option, "-5"], capsys)
    assert f"error: argument {option}: -5 is outside 0.." in err
    if option != "--seed":
        err = usage_error(["hint", "--demo", *where, option, str(2**32)], capsys)
        assert f"error: argument {option}: {2**32} is outside 0..{2**32 - 1}" in err
    err = usage_error(["hint", "--demo", *where, option, "lots"], capsys)
    assert f"error: argument {option}: 'lots' is not an integer" in err


def test_serve_refuses_ports_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    """`serve --port 99999` is refused (it listened on some other port); 0 (any free port)
    and 65535 remain valid."""
    for bad in ("99999", "-1", "65536"):
        err = usage_error(["serve", "--port", bad], capsys)
        assert f"error: argument --port: port {bad} is outside 0..65535" in err
    err = usage_error(["serve", "--port", "http"], capsys)
    assert "error: argument --port: 'http' is not a port number" in err
    parser = build_parser()
    assert parser.parse_args(["serve", "--port", "0"]).port == 0
    assert parser.parse_args(["serve", "--port", "65535"]).port == 65535


def test_play_unknown_bot_is_worded_for_this_process(capsys: pytest.CaptureFixture[str]) -> None:
    """A typo in a local bot spec lists the known bots and the likely one; no server is
    involved, so it does not say "this server offers"."""
    assert main(["play", "mcst"]) == 2
    err = capsys.readouterr().err
    [line] = error_lines(err)
    assert line.startswith("error: bot of seat 0: unknown bot 'mcst' (known: ")
    assert "mcts" in line and "greedy" in line and line.endswith("did you mean 'mcts'?")
    assert "server" not in err
    assert main(["hint", "--demo", "--local", "--bot", "expectimax:depth=999"]) == 2
    err = capsys.readouterr().err
    assert "option depth=999 is above the local limit of 64" in err and "server" not in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """`gallerist --version` prints the installed package's version."""
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"gallerist {importlib.metadata.version('gallerist-ai')}\n"


def test_version_as_a_module() -> None:
    """`python -m gallerist.cli --version` too, with no traceback."""
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"gallerist {importlib.metadata.version('gallerist-ai')}"


def test_arena_error_before_the_first_game_is_one_line_without_a_bar(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An arena error found before the first game (here a records file of another arena)
    is the only thing on stderr: no progress bar is drawn before the checks are done."""
    records = tmp_path / "g.jsonl"
    common = ["--workers", "1", "--out", str(tmp_path / "r.json"), "--records", str(records),
              "--png", str(tmp_path / "p.png")]
    assert main(["arena", "greedy", "random", "--games", "2", "--no-progress", *common]) == 0
    capsys.readouterr()
    assert main(["arena", "random", "greedy", "--games", "2", "--seed", "3", *common]) == 2
    err = capsys.readouterr().err
    [line] = error_lines(err)
    assert "already holds run" in line
    assert err == line + "\n"                   # no bar ("0game [00:00, ?game/s]")


def test_arena_names_an_unknown_bot_before_looking_at_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`arena greedy nosuchbot` beside the records file of another arena reports the
    unknown bot (naming the spec), not the records file: specs are checked first."""
    records = tmp_path / "g.jsonl"
    common = ["--workers", "1", "--out", str(tmp_path / "r.json"), "--records", str(records),
              "--png", str(tmp_path / "p.png"), "--no-progress"]
    assert main(["arena", "greedy", "random", "--games", "2", *common]) == 0
    before = records.read_text()
    capsys.readouterr()
    assert main(["arena", "greedy", "nosuchbot", *common]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: bot spec 'nosuchbot': unknown bot 'nosuchbot'")
    assert err.count("\n") == 1 and "records" not in err
    assert records.read_text() == before


def test_arena_interrupt_note_on_its_own_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C after the first game: the library's "interrupted" line is written on a line
    of its own above the bar, and the finished game is still reported and written."""
    from gallerist.ai.arena import tournament as arena

    real = arena.run_local

    def one_then_ctrl_c(games, workers):  # type: ignore[no-untyped-def]
        yield next(iter(real(games[:1], 1)))
        raise KeyboardInterrupt

    monkeypatch.setattr(arena, "run_local", one_then_ctrl_c)
    out, records = tmp_path / "r.json", tmp_path / "g.jsonl"
    assert main(["arena", "greedy", "random", "--games", "4", "--workers", "1",
                 "--out", str(out), "--records", str(records),
                 "--png", str(tmp_path / "p.png")]) == 130
    err = capsys.readouterr().err
    assert "interrupted: keeping 1 finished game" in screen(err)   # one game: singular
    assert "Traceback" not in err
    assert len(records.read_text().splitlines()) == 1 and out.exists()


# ------------------------------------------------------------------ the script of bad input
# Every bad input that the command line
# handles, run as a user runs it (a process of its own): no traceback, the exit status of
# the standards (2 bad usage, 1 a failure, 130 Ctrl-C) and a message that says what is
# wrong. (The remote-arena cases belong to the arena's own tests.)

BAD_INPUT = [
    # (argv, status, a fragment of stderr)
    (["new", "-o", "/nonexistent/dir/g.json"], 2,
     "error: --output /nonexistent/dir/g.json: folder '/nonexistent/dir' does not exist"),
    (["arena", "greedy", "random", "--games", "2", "--out", "/nonexistent/x.json"], 2,
     "error: --out /nonexistent/x.json: folder '/nonexistent' does not exist"),
    (["hint", "--demo", "--local", "--time-ms", "-5"], 2,
     "error: argument --time-ms: -5 is outside 0.."),
    (["hint", "--demo", "--time-ms", "-5"], 2, "error: argument --time-ms: -5 is outside 0.."),
    (["hint", "/nonexistent/game.json", "--local"], 2, "error: cannot read /nonexistent/game.json"),
    (["hint", "--demo", "--address", "localhost:1", "--timeout", "5"], 1,
     "error: localhost:1: UNAVAILABLE"),
    (["serve", "--port", "99999"], 2, "error: argument --port: port 99999 is outside 0..65535"),
    (["play", "mcst"], 2, "did you mean 'mcts'?"),
    (["loadtest", "--budgets", "time_ms=abc"], 2, "error: "),
    (["loadtest", "--out", "/proc/no-such-folder"], 2,
     "error: --out /proc/no-such-folder: cannot make the folder"),
    (["--version"], 0, ""),
]


def run_cli(argv: list[str], *, ctrl_c_after: str | None = None,
            timeout: float = 60) -> tuple[int, str, str]:
    """Run ``python -m gallerist.cli ARGV``; with `ctrl_c_after`, press Ctrl-C (SIGINT)
    one second after that text appears on stderr. (status, stdout, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "gallerist.cli", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_lines: list[str] = []

    def read_err() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            err_lines.append(line)
            if ctrl_c_after is not None and ctrl_c_after in line:
                time.sleep(1.0)
                proc.send_signal(signal.SIGINT)

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    try:
        out = proc.stdout.read() if proc.stdout else ""
        status = proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=5)
    return status, out, "".join(err_lines)


@pytest.mark.parametrize("argv,status,fragment", BAD_INPUT,
                         ids=[" ".join(case[0]) for case in BAD_INPUT])
def test_bad_input_script(argv: list[str], status: int, fragment: str) -> None:
    """Each bad input: its exit status, its message, no traceback."""
    code, out, err = run_cli(argv)
    assert "Traceback" not in err and "Traceback" not in out
    assert code == status, err
    assert fragment in err
    if status in (1, 2):   # one error line (argparse's starts "gallerist CMD: error: ")
        assert len([line for line in screen(err) if "error: " in line]) == 1, err


@pytest.mark.parametrize("argv,fragment", [
    (["play", "expectimax:depth=50", "greedy", "--board", "none"],
     "interrupted: P0 (expectimax:depth=50) was searching; its best move so far: "),
    (["hint", "--demo", "--local", "--bot", "expectimax:depth=50"],
     "interrupted: the best move found in "),
], ids=["play expectimax:depth=50", "hint --local expectimax:depth=50"])
def test_deep_search_is_announced_and_stops_on_ctrl_c(argv: list[str], fragment: str) -> None:
    """`play expectimax:depth=50` hung silently: it now announces its time budget, and
    Ctrl-C stops it at once with the best move so far (exit 130, no traceback)."""
    t0 = time.monotonic()
    code, out, err = run_cli(argv, ctrl_c_after="has no time budget")
    assert "Traceback" not in err
    assert code == 130, err
    assert fragment in err
    if argv[0] == "play":   # the best move in words, as the game is printed, then its notation
        best = err[err.index(fragment) + len(fragment):].split(". The game")[0]
        assert re.fullmatch(r"[A-Z].* \([a-z-]+(:\S+)?\)", best), best
    assert time.monotonic() - t0 < 30


@pytest.mark.parametrize("argv, line", [
    (["serve", "--port", "-1"],
     "error: argument --port: port -1 is outside 0..65535 (0 picks a free port) "
     "(see gallerist serve --help)"),
    (["loadtest", "--duration", "-5s"],
     "error: argument --duration: -5s is negative: --duration takes no negative value "
     "(see gallerist loadtest --help)"),
    (["nosuchcommand"], "error: argument command: invalid choice: 'nosuchcommand'"),
])
def test_option_errors_are_one_line_naming_the_option(argv: list[str], line: str) -> None:
    """An option the parser refuses: one line naming the option and the problem, and where
    to read more (no usage block before it), exit 2."""
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", *argv],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(line), done.stderr
