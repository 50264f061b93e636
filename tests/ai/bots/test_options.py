"""Each bot option is declared once (`ai.bots.options`): the bots check their options
from the declaration, the spec parser and the service's limits read it, and
docs/bots.md is generated from it."""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from gallerist.ai.bots.docs import DOC_MARKER, markdown, update_doc
from gallerist.ai.bots.options import Option, Options
from gallerist.ai.bots.spec import BOTS, bot_options, make_bot, parse_spec, resolved_spec
from gallerist.cli.commands.options import LOCAL_LIMITS
from gallerist.server.limits import Limits, RequestError, check_spec

DOC = Path(__file__).resolve().parents[3] / "docs" / "bots.md"
TOY = Options(
    "toy",
    Option("depth", 2, "plies", low=1, high=8),
    Option("rate", 0.5, "a share", low=0, high=1),
    Option("scale", 1.0, "a scale", above=0),
    Option("eval", "heuristic", "leaf value", choices=("heuristic", "model")),
    Option("model", "", "model file", needs=("eval=model",), because="only the network reads it"),
    Option("steps", 0, "network steps", low=0, needs=("eval=model",)),
    Option("quick", False, "be quick"),
)


def test_docs_bots_md_is_generated_from_the_declarations() -> None:
    """docs/bots.md's tables are the declarations' (after changing a declaration run
    `python -m gallerist.ai.bots.docs --write docs/bots.md`)."""
    text = DOC.read_text(encoding="utf-8")
    assert DOC_MARKER in text, "docs/bots.md has lost its generated part"
    assert text.split(DOC_MARKER, 1)[1] == "\n\n" + markdown(BOTS), (
        "docs/bots.md is not current: run python -m gallerist.ai.bots.docs --write docs/bots.md")


def test_update_doc_keeps_the_hand_written_part(tmp_path: Path) -> None:
    doc = tmp_path / "bots.md"
    doc.write_text("# Bots\n\nWritten by hand.\n")
    assert update_doc(doc, {"greedy": BOTS["greedy"]})
    assert update_doc(doc, {"greedy": BOTS["greedy"]}) is False
    text = doc.read_text()
    assert text.startswith("# Bots\n\nWritten by hand.\n\n" + DOC_MARKER)
    assert "| `playouts` | `100` | 0..100000 |" in text


@pytest.mark.parametrize("name", sorted(BOTS))
def test_every_bot_documents_every_option(name: str) -> None:
    """Each option has a one-line help, a range and a default of its own type; the
    section of docs/bots.md lists them all, in the declared order."""
    options = BOTS[name].OPTIONS
    assert list(options.defaults) == list(bot_options(name)) and "seed" not in options
    section = markdown({name: BOTS[name]})
    rows = [line.split("|")[1].strip(" `") for line in section.splitlines()
            if line.startswith("| `")]
    assert rows == [o.name for o in options]
    for o in options:
        assert o.help and "\n" not in o.help and o.range, o.name
        assert type(o.default) in (int, float, bool, str), o.name


def test_declared_limits_are_fields_of_the_limits() -> None:
    """Every cap a declaration names is a `Limits` field, and the defaults are within the
    default limits (a request naming only the bot is never refused)."""
    fields = {f.name for f in dataclasses.fields(Limits)}
    server = Limits()
    for name, bot in BOTS.items():
        for o in bot.OPTIONS:
            if o.limit:
                assert o.limit in fields, (name, o.name)
                assert o.default <= getattr(server, o.limit), (name, o.name)


@pytest.mark.parametrize("name", sorted(Limits().bots))
def test_the_service_caps_each_option_its_declaration_names(name: str) -> None:
    """check_spec reads the cap from the declaration: one above it is refused, naming
    the option and the limit."""
    limits = Limits()
    for o in BOTS[name].OPTIONS:
        if o.limit:
            above = getattr(limits, o.limit) + 1
            with pytest.raises(RequestError, match=f"option {o.name}={above}.* limit of"):
                check_spec(f"{name}:{o.name}={above}", limits)


def test_the_service_refuses_what_the_declarations_refuse() -> None:
    """Options declared above 0 are refused at 0 before a bot is made; model files are
    refused in requests (not in this process's own searches)."""
    for spec in ("mcts:solo_scale=0", "mcts:rollout_temperature=0", "expectimax:win_temperature=0"):
        with pytest.raises(RequestError, match=r"must be > 0"):
            check_spec(spec, Limits())
    with pytest.raises(RequestError, match="cannot name a model file"):
        check_spec("expectimax:eval=model,model=x.npz", Limits())
    assert check_spec("expectimax:eval=model,model=x.npz", LOCAL_LIMITS)[1]["model"] == "x.npz"


@pytest.mark.parametrize("value,message", [
    (0, "toy option depth must be an integer 1..8, got 0"),
    (9, "toy option depth must be an integer 1..8, got 9"),
    (2.0, "toy option depth must be an integer 1..8, got 2.0"),
    (True, "toy option depth must be an integer 1..8, got True"),
    ("3", "toy option depth must be an integer 1..8, got '3'"),
])
def test_an_integer_option_refuses_other_types_and_values_out_of_range(value, message) -> None:
    with pytest.raises(ValueError) as info:
        TOY.resolve({"depth": value})
    assert str(info.value) == message


@pytest.mark.parametrize("key,value", [
    ("rate", 1.5), ("rate", -0.1), ("rate", math.nan), ("scale", 0.0), ("scale", math.inf),
    ("scale", -math.inf), ("scale", math.nan), ("eval", "neural"), ("quick", 1), ("model", 3),
])
def test_values_out_of_range_are_refused_naming_option_value_and_range(key, value) -> None:
    with pytest.raises(ValueError) as info:
        TOY.resolve({key: value})
    text = str(info.value)
    assert text.startswith(f"toy option {key} must be {TOY[key].says}, got {value!r}")


def test_numbers_of_other_kinds_are_accepted() -> None:
    """numpy numbers pass as ints and floats; an int passes as a float."""
    values = TOY.resolve({"depth": np.int64(3), "rate": np.float32(0.25), "scale": 2})
    assert (values["depth"], values["rate"], values["scale"]) == (3, 0.25, 2)


def test_needs_apply_to_values_other_than_the_default() -> None:
    assert TOY.resolve({"model": ""})["model"] == ""
    assert TOY.resolve({"eval": "model", "model": "x.npz"})["model"] == "x.npz"
    with pytest.raises(ValueError) as info:
        TOY.resolve({"model": "x.npz"})
    assert str(info.value) == ("toy option model needs eval=model, got model=x.npz with "
                               "eval=heuristic (only the network reads it)")
    with pytest.raises(ValueError) as info:
        TOY.resolve({"steps": 2})
    assert str(info.value) == ("toy option steps must be >= 0 and needs eval=model, got "
                               "steps=2 with eval=heuristic")


def test_ranges_are_checked_before_needs() -> None:
    """A value out of range is named before another option's missing setting."""
    with pytest.raises(ValueError, match="eval must be"):
        TOY.resolve({"steps": 2, "eval": "neural"})


def test_unknown_options_are_a_type_error_directly_and_a_value_error_in_a_spec() -> None:
    with pytest.raises(TypeError, match="unknown option 'depht' for bot 'toy'; known: depth, "):
        TOY.resolve({"depht": 3})
    with pytest.raises(TypeError, match="unknown option 'depht' for bot 'expectimax'"):
        BOTS["expectimax"](depht=3)
    with pytest.raises(ValueError, match="unknown option 'depht' for bot 'expectimax'"):
        make_bot("expectimax:depht=3")


def test_only_the_given_options_are_set() -> None:
    values = TOY.resolve({"depth": 4})
    assert values == {**TOY.defaults, "depth": 4}
    assert TOY.defaults["depth"] == 2     # the declaration is not changed


@pytest.mark.parametrize("options,problem", [
    ((Option("a", 1, "x"), Option("a", 2, "y")), "declared twice"),
    ((Option("a", 1, "x", needs=("b=on",)),), "needs b=on"),
    ((Option("a", 1, "x", needs=("b=off",)), Option("b", "on", "y", choices=("on",))),
     "needs b=off"),
])
def test_a_bad_declaration_is_refused(options, problem) -> None:
    with pytest.raises(ValueError, match=problem):
        Options("toy", *options)


def test_a_default_out_of_its_own_range_is_refused() -> None:
    with pytest.raises(ValueError, match="depth must be an integer 1..8, got 0"):
        Option("depth", 0, "plies", low=1, high=8)
    with pytest.raises(ValueError, match="needs must be 'option=value'"):
        Option("model", "", "file", needs=("eval",))


def test_bots_read_their_options_from_the_declaration() -> None:
    """A bot made from a spec has the spec's values and the declared defaults, and its
    resolved spec writes every declared option in order."""
    bot = make_bot("mcts:iterations=20,threads=2,reuse=false", seed=4)
    assert (bot.iterations, bot.threads, bot.reuse, bot.time_ms) == (20, 2, False, 0.0)
    spec = resolved_spec("expectimax:depth=3", make_bot("expectimax:depth=3"), 2)
    assert parse_spec(spec)[1] == {**bot_options("expectimax"), "depth": 3}
    assert spec.startswith("expectimax:depth=3,time_ms=0.0,chance_width=6,tt_bits=18,")
