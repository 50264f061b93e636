"""A setting declared once (gallerist.ai.settings): its range in words and in brief, its
flag's parse and one-line errors, its library check, the arguments a child process gets
(read back as the same values), and the generated sections of a doc."""
from __future__ import annotations

import argparse

import pytest

from gallerist.ai.settings.docs import begin_marker, end_marker, replace_section, table
from gallerist.ai.settings.setting import Setting, Settings
from gallerist.cli.commands.options import add_settings

TOY = Settings(
    "toy",
    Setting("depth", 6, "deepest search", low=1, high=64, metavar="N"),
    Setting("share", 0.53, "share that promotes", above=0, high=1, flag="--gate"),
    Setting("reserve", 0.1, "share kept back", low=0, below=1),
    Setting("hours", 1.0, "hours to run", above=0, high=8760, unit="hours"),
    Setting("rate", 1e-3, "learning rate", above=0),
    Setting("games", None, "games to play", kind=int, low=1, none="no bound"),
    Setting("mode", "all", "which games", choices=("all", "last")),
    Setting("bot", "greedy", "bot spec", metavar="SPEC"),
    Setting("progress", True, "a progress bar", flag="--no-progress"),
)


def test_each_range_is_said_in_brief_and_in_words() -> None:
    said = {s.name: (s.span, s.says) for s in TOY}
    assert said == {
        "depth": ("1..64", "an integer in 1..64"),
        "share": ("(0, 1]", "a number in (0, 1]"),
        "reserve": ("[0, 1)", "a number in [0, 1)"),
        "hours": ("(0, 8760]", "a number in (0, 8760]"),
        "rate": ("> 0", "a positive number"),
        "games": (">= 1", "an integer >= 1"),
        "mode": ("all, last", "one of all, last"),
        "bot": ("", "text"),
        "progress": ("true, false", "true or false"),
    }


@pytest.mark.parametrize("name, text, message", [
    ("depth", "65", "65 is outside 1..64"),
    ("depth", "0", "0 is outside 1..64"),
    ("depth", "x", "'x' is not an integer"),
    ("share", "1.5", "1.5 is outside (0, 1]"),
    ("share", "0", "0 is outside (0, 1]"),
    ("share", "nan", "nan is not a finite number"),
    ("reserve", "1", "1 is outside [0, 1)"),
    ("hours", "-1", "-1 hours is outside (0, 8760]"),
    ("hours", "soon", "'soon' is not a number of hours"),
    ("rate", "0", "0 must be > 0"),
    ("games", "0", "0 must be >= 1"),
    ("mode", "first", "'first' is not one of all, last"),
])
def test_a_bad_flag_value_says_what_is_allowed(name: str, text: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        TOY[name].parse(text)
    assert str(err.value) == message


def test_the_bounds_themselves_are_allowed() -> None:
    assert TOY["depth"].parse("1") == 1 and TOY["depth"].parse("64") == 64
    assert TOY["share"].parse("1") == 1.0 and TOY["reserve"].parse("0") == 0.0
    assert TOY["games"].allows(None) and not TOY["depth"].allows(None)
    assert not TOY["depth"].allows(True) and not TOY["depth"].allows(2.0)
    assert TOY["rate"].allows(1) and not TOY["rate"].allows(float("inf"))


def test_a_declaration_refuses_a_default_out_of_its_own_range() -> None:
    with pytest.raises(ValueError, match="setting depth: its default 0 is not an integer in 1..64"):
        Setting("depth", 0, "deepest search", low=1, high=64)
    with pytest.raises(ValueError, match="needs kind="):
        Setting("games", None, "games")
    with pytest.raises(ValueError, match="declared twice"):
        Settings("twice", Setting("a", 1, "a"), Setting("a", 2, "a"))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    add_settings(parser, TOY)
    return parser


def test_flags_are_made_from_the_declarations() -> None:
    actions = {a.dest: a for a in _parser()._actions}
    for s in TOY:
        action = actions[s.dest]
        assert action.option_strings == [s.flag] and action.default == s.default, s.name
        assert f"default {s.default_text}" in action.help or s.kind is bool, s.name
    assert actions["depth"].help == "deepest search (default 6; range 1..64)"
    assert actions["hours"].help == "hours to run (default 1 hours; range (0, 8760])"
    assert actions["progress"].help == "a progress bar (on by default; --no-progress turns it off)"


def test_child_arguments_read_back_as_the_same_values() -> None:
    """Every value other than its default, as a child process's flags, parses back to
    itself (floats exactly)."""
    values = {"depth": 64, "share": 0.1 + 0.2, "reserve": 0.999, "hours": 8760.0,
              "rate": 1e-7, "games": 5, "mode": "last", "bot": "mcts:iterations=5,c=0.5",
              "progress": False}
    assert all(values[s.name] != s.default for s in TOY)
    argv = TOY.argv(values)
    assert TOY.from_args(_parser().parse_args(argv)) == values
    assert TOY.argv(TOY.defaults) == [
        "--depth", "6", "--gate", "0.53", "--reserve", "0.1", "--hours", "1.0",
        "--rate", "0.001", "--mode", "all", "--bot", "greedy"]   # None and switches left out


def test_a_docs_table_and_its_section() -> None:
    rows = table(TOY).splitlines()
    assert rows[0] == "| flag | default | range | meaning |"
    assert "| `--depth N` | `6` | 1..64 | Deepest search. |" in rows
    assert "| `--games` | no bound | >= 1 | Games to play. |" in rows
    doc = f"# Doc\n\nby hand\n\n{begin_marker('toy')}\nold\n{end_marker('toy')}\n\nmore\n"
    new = replace_section(doc, "toy", "new table")
    assert new == f"# Doc\n\nby hand\n\n{begin_marker('toy')}\n\nnew table\n\n{end_marker('toy')}\n\nmore\n"
    assert replace_section(new, "toy", "new table") == new
    with pytest.raises(ValueError, match="no generated section 'other'"):
        replace_section(doc, "other", "x")
