"""`gallerist bots`: every option of every bot, from the bots' declarations."""
from __future__ import annotations

import pytest

from gallerist.ai.bots.docs import markdown
from gallerist.ai.bots.options import option_text
from gallerist.ai.bots.spec import BOTS
from gallerist.cli.main import main


def test_bots_lists_every_option_of_every_bot(capsys: pytest.CaptureFixture[str]) -> None:
    """Each option with its default and range, and its help, under its bot."""
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    for name, bot in BOTS.items():
        assert f"\n{name}: " in f"\n{out}"
        for o in bot.OPTIONS:
            assert f"  {o.name}={option_text(o.default)}  ({o.range})\n" in out
            assert " ".join(o.help.split())[1:] in flat, o.name
    assert "Service cap: max_threads." in out and "Needs eval=mix or eval=auto." in out


def test_bots_lists_the_bots_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "greedy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("greedy: ") and "playouts=100  (0..100000)" in out
    assert "mcts" not in out


def test_bots_markdown_is_the_docs_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "--markdown"]) == 0
    assert capsys.readouterr().out == markdown(BOTS)


def test_an_unknown_bot_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "mtcs"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown bot 'mtcs' (known: mcts, ")
    assert err.rstrip().endswith("did you mean 'mcts'?")
