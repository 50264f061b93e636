"""The flags of ``generations`` and ``train`` are made from their settings' declarations
(ai.selfplay.generations.LOOP_SETTINGS and RUN_SETTINGS, ai.learn.options.TRAIN_SETTINGS):
each flag's name, default and help equal its declaration, no command states a default
of its own, and a bad value is one line naming the flag and what it may be."""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from gallerist.ai.learn.options import DEFAULTS, TRAIN_SETTINGS
from gallerist.ai.selfplay.generations import LOOP_SETTINGS, RUN_SETTINGS, LoopConfig
from gallerist.ai.settings.setting import Settings
from gallerist.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"generations": (LOOP_SETTINGS, RUN_SETTINGS), "train": (TRAIN_SETTINGS,)}


def _parser(command: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]   # type: ignore[no-any-return]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_flags_equal_the_declarations(command: str) -> None:
    actions = {a.dest: a for a in _parser(command)._actions}
    settings: tuple[Settings, ...] = COMMANDS[command]
    for s in (s for group in settings for s in group):
        action = actions[s.dest]
        help_text = action.help.replace("%%", "%")   # argparse's escape
        assert action.option_strings == [s.flag], s.name
        assert action.default == s.default, s.name
        assert help_text.startswith(s.help), s.name
        if s.kind is not bool:
            assert f"default {s.default_text}" in help_text, s.name
        if s.span and s.kind is not bool:
            assert s.span in help_text, s.name


def test_the_library_defaults_are_the_declarations() -> None:
    """LoopConfig's fields but `train`, and train()'s options, are the declared ones."""
    config = LoopConfig()
    assert {n: getattr(config, n) for n in LOOP_SETTINGS.names} == LOOP_SETTINGS.defaults
    assert [f for f in LoopConfig.__dataclass_fields__ if f != "train"] == list(LOOP_SETTINGS.names)
    assert DEFAULTS == TRAIN_SETTINGS.defaults


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_command_states_a_number_default(command: str) -> None:
    """A default number in the command's own add_argument calls would be a second
    statement of a declared default."""
    tree = ast.parse((ROOT / "cli" / "commands" / f"{command}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            for kw in node.keywords:
                if kw.arg == "default" and isinstance(kw.value, ast.Constant):
                    value = kw.value.value
                    assert not isinstance(value, (int, float)) or isinstance(value, bool), (
                        f"{command}: {ast.unparse(node)[:80]}")


@pytest.mark.parametrize("argv, message", [
    (["--games", "9"], "error: argument --games: 9 is outside 10..1000000"),
    (["--gate", "1.5"], "error: argument --gate: 1.5 is outside (0, 1]"),
    (["--hours", "-1"], "error: argument --hours: -1 hours is outside (0, 8760]"),
    (["--players", "5"], "error: argument --players: 5 is outside 1..4"),
    (["--generations", "0"], "error: argument --generations: 0 is outside 1..100000"),
    (["--full-fraction", "x"], "error: argument --full-fraction: 'x' is not a number"),
])
def test_a_bad_generations_value_is_one_line(argv: list[str], message: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["generations", "--out", str(tmp_path / "g"), *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message), err
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize("argv, message", [
    (["--epochs", "0"], "error: --epochs 0: expected an integer in 1..1000000"),
    (["--val-games", "first"], "error: --val-games 'first': expected one of all, last"),
    (["--players", "5"], "error: --players 5: expected 1, 2, 3 or 4"),
    (["--lr", "0"], "error: --lr 0.0: expected a positive number"),
    (["--val-fraction", "1"], "error: --val-fraction 1.0: expected a share in (0, 1)"),
    (["--batch", "many"], "error: argument --batch: 'many' is not an integer"),
])
def test_a_bad_train_value_is_one_line(argv: list[str], message: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Checked before the data is read or JAX is imported (as train() checks them)."""
    out = tmp_path / "m.npz"
    try:
        status = main(["train", str(tmp_path / "no-data"), "--out", str(out), *argv])
    except SystemExit as exc:   # argparse's own error: the type
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message), err
    assert not out.exists()
