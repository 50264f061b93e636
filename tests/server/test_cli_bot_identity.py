"""`gallerist hint` and `gallerist analyze` say what searched: the resolved bot spec (every
option, prior=auto and eval=auto written out) and the model file read, by name and short
sha256 (at 2 players the default bot's packaged value network, ai/models/value/value-2p.npz)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gallerist.ai.net.packaged import auto_value_files, model_label
from gallerist.ai.bots.spec import parse_spec
from gallerist.server import GalleristServer
from gallerist.cli.main import main

RECORD = Path(__file__).resolve().parents[1] / "data" / "analyze_game.jsonl"
#: The model the default bot reads at 2 players: the value network, its prior there too.
VALUE = auto_value_files()[2]


def test_hint_text_names_the_resolved_bot_and_model(capsys: pytest.CaptureFixture[str]) -> None:
    """The hint table ends with the bot as it searched and the model it read (none for
    a bot without one)."""
    assert main(["hint", "--demo", "--local", "--iterations", "50"]) == 0
    lines = capsys.readouterr().out.splitlines()
    bot = next(line for line in lines if line.startswith("Bot: "))
    options = parse_spec(bot.removeprefix("Bot: "))[1]
    assert (options["eval"], options["prior"], options["model"]) == ("mix", "model", "value-2p.npz")
    assert f"Model: {model_label(VALUE)}" in lines
    assert main(["hint", "--demo", "--local", "--bot", "greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Bot: greedy:calibrated=true,playouts=100" in lines and "Model: none" in lines


@pytest.mark.parametrize("where", ["local", "server"])
def test_hint_json_has_the_resolved_bot_and_model(where: str, service: GalleristServer,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints resolvedBotSpec and model beside bot, locally and from a server."""
    place = ["--local"] if where == "local" else ["--address", f"localhost:{service.port}"]
    assert main(["hint", "--demo", "--iterations", "50", "--json", *place]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bot"] == "mcts"
    assert parse_spec(out["resolvedBotSpec"])[1]["prior"] == "model"
    assert parse_spec(out["resolvedBotSpec"])[1]["eval"] == "mix"
    assert out["model"] == model_label(VALUE)


def test_analysis_header_names_the_resolved_bot_and_model(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The analysis file's header keeps the spec as given and adds the bot as it searched
    the game's player count and the model it read."""
    out = tmp_path / "a.jsonl"
    assert main(["analyze", str(RECORD), "--iterations", "20", "--seats", "0", "--workers", "1",
                 "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    head = json.loads(out.read_text().splitlines()[0])
    assert head["bot"] == "mcts:prior=auto,eval=auto"
    options = parse_spec(head["bot_resolved"])[1]
    assert (options["eval"], options["prior"], options["model"]) == ("mix", "model", "value-2p.npz")
    assert head["model"] == model_label(VALUE)
