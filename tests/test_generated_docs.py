"""The docs' parts made from declarations are current: docs/cli.md's table of commands
and the README's list (from `cli.main.COMMANDS`), and the tables of ``serve``'s limits,
the HTTP port's, the hosted games' caps (docs/operations.md), ``train``'s options and
``generations``' settings (docs/training.md). After changing a declaration or a command,
run ``python -m gallerist.cli.docs --write``."""
from __future__ import annotations

import re

import pytest

from gallerist.cli import docs
from gallerist.cli.main import COMMANDS

FIX = "run: python -m gallerist.cli.docs --write"


@pytest.mark.parametrize("path", sorted([*docs.SECTIONS, "README.md"]))
def test_the_generated_parts_are_current(path: str) -> None:
    text = (docs.ROOT / path).read_text(encoding="utf-8")
    assert text == docs.current(docs.ROOT)[path], f"{path} is not current: {FIX}"


def test_every_command_is_listed_once_in_the_order_of_help() -> None:
    """COMMANDS is the one list: the parser's commands are its modules', and each doc
    lists them all, each once."""
    names = list(docs.command_help())
    assert len(names) == len(COMMANDS) == len(set(names))
    assert names == [m.__name__.rsplit(".", 1)[1].replace("_", "-") for m in COMMANDS]
    cli_md = (docs.ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = cli_md.split("| command | what it does |", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"^\| \[?`([\w-]+)`", table, re.M) == names
    readme = (docs.ROOT / "README.md").read_text(encoding="utf-8")
    row = docs.README_LIST.search(readme)
    assert row is not None and re.findall(r"`([\w-]+)`", row.group(2)) == names


def test_each_command_links_to_the_section_that_shows_it() -> None:
    cli_md = (docs.ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    anchors = {docs._anchor(h) for h, _ in docs._sections(cli_md)}
    table = docs.commands_table(cli_md)
    for name, anchor in re.findall(r"^\| \[`([\w-]+)`\]\(#([\w-]+)\)", table, re.M):
        assert anchor in anchors, (name, anchor)
    assert "[`train`](#selfplay-label-train)" in table
    assert "[`balancer-config`](#serve)" in table   # shown in serve's section


def test_check_names_a_stale_doc(tmp_path, monkeypatch, capsys) -> None:
    """``--check`` exits 1 naming each doc that is not current; ``--write`` fixes it."""
    for path in [*docs.SECTIONS, "README.md"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text((docs.ROOT / path).read_text(encoding="utf-8"))
    stale = (tmp_path / "docs" / "operations.md")
    stale.write_text(stale.read_text().replace("| `--max-depth N` | `6` |", "| `--max-depth N` | `7` |"))
    monkeypatch.setattr(docs, "ROOT", tmp_path)
    assert docs.main(["--check"]) == 1
    assert capsys.readouterr().out == "docs/operations.md: not current\n"
    assert docs.main(["--write"]) == 0 and docs.main(["--check"]) == 0

