"""Bad input to the `gallerist` command line: one `error: ...` line on stderr that says what
is wrong and what to do, no traceback, exit status 2 for bad usage and 1 for a failure, and
no work lost (issue 15, "Tracebacks and silent surprises")."""
from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from gallerist.server.cli import build_parser, main


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
    """`python -m gallerist.server --version` too, with no traceback."""
    done = subprocess.run([sys.executable, "-m", "gallerist.server", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"gallerist {importlib.metadata.version('gallerist-ai')}"


def test_arena_error_on_its_own_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With the progress bar up, an arena error starts a line of its own (it was glued to
    the bar's line), and the old "gallerist arena:" prefix is the common "error:"."""
    assert main(["arena", "greedy", "nobot", "--workers", "1",
                 "--out", str(tmp_path / "r.json"), "--records", str(tmp_path / "g.jsonl"),
                 "--png", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err
    assert "arena" in err                       # the bar was shown
    [line] = error_lines(err)
    assert "unknown bot 'nobot'" in line
    assert "Traceback" not in err


def test_arena_interrupt_note_on_its_own_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C after the first game: the library's "interrupted" line is written on a line
    of its own above the bar, and the finished game is still reported and written."""
    from gallerist.ai import arena

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
    assert "interrupted: keeping 1 finished games" in screen(err)
    assert "Traceback" not in err
    assert len(records.read_text().splitlines()) == 1 and out.exists()
