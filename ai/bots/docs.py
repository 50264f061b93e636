"""The bots' options as people read them, from their declarations (ai.bots.options):
plain text for ``gallerist bots`` and Markdown tables for docs/bots.md.

``python -m gallerist.ai.bots.docs --write docs/bots.md`` rewrites the generated part of
docs/bots.md; ``--markdown`` prints it.
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gallerist.ai.bots.options import Option, Options, option_text

__all__ = ["DOC_MARKER", "listing", "main", "markdown", "update_doc"]

#: The line of docs/bots.md below which the text is generated (`update_doc`).
DOC_MARKER = ("<!-- Generated from the bots' option declarations by `python -m "
              "gallerist.ai.bots.docs --write docs/bots.md`: edit those, not the text below. -->")


def summary(bot: Any) -> str:
    """The first paragraph of a bot class's docstring, on one line."""
    doc = (getattr(bot, "__doc__", None) or "").strip().split("\n\n")[0]
    return " ".join(doc.split())


def _meaning(option: Option) -> str:
    """The help, then where the option applies and what caps it."""
    parts = [option.help[:1].upper() + option.help[1:] + "."]
    if option.needs:
        why = f" ({option.because})" if option.because else ""
        parts.append(f"Needs {option.needs_text}{why}.")
    if option.applies:
        parts.append(f"Used with {option.applies}.")
    if option.limit:
        parts.append(f"Service cap: {option.limit}.")
    if option.refused:
        parts.append("Not in service requests.")
    return " ".join(parts)


def markdown(bots: Mapping[str, Any]) -> str:
    """One section per bot (`bots`: name -> class with ``OPTIONS``): what it is, then a
    table of its options with their default, range and meaning."""
    out = []
    for name, bot in bots.items():
        options: Options = bot.OPTIONS
        out += [f"## {name}", "", summary(bot), ""]
        if not len(options):
            out += ["No options.", ""]
            continue
        out += ["| option | default | range | meaning |", "|---|---|---|---|"]
        for o in options:
            default = option_text(o.default) or '""'
            cells = (f"`{o.name}`", f"`{default}`", o.range, _meaning(o))
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        out.append("")
    return "\n".join(out)


def listing(bots: Mapping[str, Any], width: int = 88) -> str:
    """Every option of every bot in `bots` as plain text: name=default, range, meaning."""
    out = []
    for name, bot in bots.items():
        out += textwrap.wrap(f"{name}: {summary(bot)}", width, subsequent_indent="  ",
                             break_on_hyphens=False)
        options: Options = bot.OPTIONS
        if not len(options):
            out.append("  (no options)")
        for o in options:
            out.append(f"  {o.name}={option_text(o.default)}  ({o.range})")
            out += textwrap.wrap(_meaning(o), width, initial_indent=" " * 6,
                                 subsequent_indent=" " * 6, break_on_hyphens=False)
        out.append("")
    return "\n".join(out)


def update_doc(path: Path, bots: Mapping[str, Any]) -> bool:
    """Rewrite the part of the doc at `path` below `DOC_MARKER` (the marker is added at
    the end when missing); True if the file changed."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Bots\n"
    head = text.split(DOC_MARKER)[0].rstrip("\n")
    new = f"{head}\n\n{DOC_MARKER}\n\n{markdown(bots)}"
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """``--markdown`` prints the tables; ``--write PATH`` updates PATH's generated part."""
    from gallerist.ai.bots.spec import BOTS

    parser = argparse.ArgumentParser(prog="python -m gallerist.ai.bots.docs",
                                     description="The bots' options, from their declarations.")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--markdown", action="store_true", help="print the tables in Markdown")
    what.add_argument("--write", metavar="PATH", help="update the generated part of PATH")
    args = parser.parse_args(argv)
    if args.markdown:
        sys.stdout.write(markdown(BOTS))
    else:
        changed = update_doc(Path(args.write), BOTS)
        print(f"{args.write}: {'updated' if changed else 'already current'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
