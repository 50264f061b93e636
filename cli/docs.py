"""The parts of the docs made from the command line's declarations: the commands
(`gallerist.cli.main.COMMANDS`) in docs/cli.md's table and the README's list, and the
settings of ``serve``, ``train`` and ``generations`` (`gallerist.ai.settings`) in tables
of docs/operations.md and docs/training.md.

``python -m gallerist.cli.docs --write`` rewrites them; ``--check`` lists the docs that
are not current (exit status 1). tests/test_generated_docs.py fails while one is not.
"""
from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from gallerist.ai.settings.docs import replace_section, table
from gallerist.ai.settings.setting import Settings

__all__ = ["ROOT", "SECTIONS", "command_help", "commands_table", "current", "main",
           "readme_commands"]

#: The repository (docs/, README.md).
ROOT = Path(__file__).resolve().parents[1]


def command_help() -> dict[str, str]:
    """Every command of ``gallerist``, in the order of ``gallerist --help``, with its one
    line of help (from the parser `cli.main.COMMANDS` builds)."""
    from gallerist.cli.main import build_parser

    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help or "" for choice in sub._choices_actions}


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading ("selfplay, label, train" -> "selfplay-label-train")."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _sections(doc: str) -> list[tuple[str, str]]:
    """The "## " sections of a doc: (heading, body)."""
    parts = re.split(r"^## (.+)$", doc, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def commands_table(cli_doc: str) -> str:
    """docs/cli.md's table of commands: each command (linked to the section of `cli_doc`
    whose heading names it, else the first whose text runs it) and its help."""
    sections = _sections(cli_doc)
    rows = ["| command | what it does |", "|---|---|"]
    for name, help_text in command_help().items():
        place = next((h for h, _ in sections
                      if name in re.split(r",\s*|\s+and\s+|\s+", h.strip())), None)
        if place is None:
            place = next((h for h, body in sections
                          if re.search(rf"gallerist {re.escape(name)}\b", body)), None)
        cell = f"[`{name}`](#{_anchor(place)})" if place else f"`{name}`"
        rows.append(f"| {cell} | {help_text} |")
    return "\n".join(rows) + "\n"


#: The README's row of docs/cli.md names every command: the text between these.
README_LIST = re.compile(r"(every `gallerist` command with examples: )([^;|]*)(;)")


def readme_commands(readme: str) -> str:
    """The README with its list of commands (the docs table's row of docs/cli.md) made
    from `COMMANDS`.

    Raises:
        ValueError: the row is not there.
    """
    names = ", ".join(f"`{name}`" for name in command_help())
    new, found = README_LIST.subn(lambda m: f"{m.group(1)}{names}{m.group(3)}", readme, count=1)
    if not found:
        raise ValueError("README.md: no row \"every `gallerist` command with examples: ...;\"")
    return new


def _settings_tables() -> dict[str, Callable[[], str]]:
    from gallerist.ai.learn.options import TRAIN_SETTINGS
    from gallerist.ai.selfplay.generations import LOOP_SETTINGS, RUN_SETTINGS
    from gallerist.server.http_server import HTTP_SETTINGS
    from gallerist.server.limits import LIMIT_SETTINGS
    from gallerist.server.play.store import GAME_SETTINGS

    return {"serve-limits": lambda: table(LIMIT_SETTINGS),
            "serve-http-limits": lambda: table(HTTP_SETTINGS),
            "serve-games": lambda: table(GAME_SETTINGS),
            "train-options": lambda: table(TRAIN_SETTINGS),
            "generations-settings": lambda: table(Settings(LOOP_SETTINGS.title,
                                                           *RUN_SETTINGS, *LOOP_SETTINGS))}


#: doc -> the generated sections it holds (their keys, as in their markers)
SECTIONS: dict[str, tuple[str, ...]] = {
    "docs/cli.md": ("commands",),
    "docs/operations.md": ("serve-limits", "serve-http-limits", "serve-games"),
    "docs/training.md": ("train-options", "generations-settings"),
}


def current(root: Path = ROOT) -> dict[str, str]:
    """Every generated doc's text as the declarations make it, by path under `root`
    (README.md included)."""
    tables = _settings_tables()
    out = {}
    for path, keys in SECTIONS.items():
        text = (root / path).read_text(encoding="utf-8")
        for key in keys:
            body = commands_table(text) if key == "commands" else tables[key]()
            text = replace_section(text, key, body)
        out[path] = text
    out["README.md"] = readme_commands((root / "README.md").read_text(encoding="utf-8"))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``--write`` rewrites the generated parts; ``--check`` lists the stale docs."""
    parser = argparse.ArgumentParser(
        prog="python -m gallerist.cli.docs",
        description="The docs' parts made from the declarations of the commands and settings.")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", action="store_true", help="rewrite the generated parts")
    what.add_argument("--check", action="store_true",
                      help="list the docs that are not current (exit status 1 if any)")
    args = parser.parse_args(argv)
    stale = []
    for path, text in current(ROOT).items():
        if (ROOT / path).read_text(encoding="utf-8") != text:
            stale.append(path)
            if args.write:
                (ROOT / path).write_text(text, encoding="utf-8")
    verb = "updated" if args.write else "not current"
    for path in stale:
        print(f"{path}: {verb}")
    if not stale:
        print("every generated doc is current")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
