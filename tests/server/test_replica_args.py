"""``serve``'s declared settings (the limits of one request, the HTTP port's limits, the
hosted games' caps) as flags and as the replicas' arguments: each flag equals its
declaration (name, default, range), a bad value is one line naming the flag and the
range, `Limits`, `HttpLimits` and `GameStore` take their defaults from the declarations,
and every option of ``serve`` but those it keeps for itself (`NOT_FOR_REPLICAS`) reaches
a replica's command line with its value."""
from __future__ import annotations

import argparse
import dataclasses
import inspect
from typing import Any

import pytest

from gallerist.ai.settings.setting import Setting, Settings
from gallerist.cli.commands.serve import NOT_FOR_REPLICAS, replica_args
from gallerist.cli.main import build_parser, main
from gallerist.server.http_server import HTTP_SETTINGS, HttpLimits
from gallerist.server.limits import LIMIT_SETTINGS, Limits
from gallerist.server.play.store import GAME_SETTINGS, GameStore

SERVE_SETTINGS = (LIMIT_SETTINGS, HTTP_SETTINGS, GAME_SETTINGS)
#: serve's options that are not declared settings, with a value other than the default
#: (each must reach a replica too)
OTHER_OPTIONS = {"workers": ("--workers", "3"), "max_rpcs": ("--max-rpcs", "40"),
                 "state_cache": ("--state-cache", "7"), "grace": ("--grace", "2.5"),
                 "drain": ("--drain", "0.25"), "log_level": ("--log-level", "DEBUG"),
                 "log_format": ("--log-format", "json"),
                 "metrics_port": ("--metrics-port", "9100"),
                 "games_db": ("--games-db", "/tmp/replicas.sqlite3"),
                 "cors_origin": ("--cors-origin", "https://game.example.com"),
                 "trusted_proxy": ("--trusted-proxy", "10.0.0.5")}


def _serve_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["serve"]   # type: ignore[no-any-return]


def _other_value(s: Setting) -> Any:
    """A value of `s` in its range other than its default (a bound where there is one)."""
    if s.name == "default_bot":
        return "greedy:playouts=50"
    for bound in (s.high, s.low):
        if bound is not None and bound != s.default:
            return s.kind(bound)
    if s.below is not None:
        return (s.default + s.below) / 2
    raise AssertionError(f"no other value for {s.name}")


def test_the_flags_equal_the_declarations() -> None:
    """Every declared setting is one flag of serve: its dest, default, type and help
    (its default and its range) from the declaration."""
    actions = {a.dest: a for a in _serve_parser()._actions}
    for settings in SERVE_SETTINGS:
        for s in settings:
            action = actions[s.dest]
            assert action.option_strings == [s.flag], s.name
            assert action.default == s.default, s.name
            assert f"default {s.default_text}" in action.help, s.name
            if s.span:
                assert f"range {s.span}" in action.help, s.name
            assert action.type(s.text(s.default)) == s.default, s.name   # its own parse


@pytest.mark.parametrize("settings", SERVE_SETTINGS, ids=lambda s: s.title)
def test_the_dataclasses_take_their_defaults_from_the_declarations(settings: Settings) -> None:
    if settings is GAME_SETTINGS:
        params = inspect.signature(GameStore).parameters
        assert {n: params[n].default for n in settings.names} == settings.defaults
        return
    kind = Limits if settings is LIMIT_SETTINGS else HttpLimits
    fields = [f.name for f in dataclasses.fields(kind)]
    fixed = ["bots", "local"] if kind is Limits else []   # Limits' fields that are no setting
    assert fields == [*settings.names, *fixed]
    assert {n: getattr(kind(), n) for n in settings.names} == settings.defaults


def test_every_option_reaches_the_replicas_and_parses_back() -> None:
    """A serve with every option away from its default: a replica's arguments, parsed
    back, give the same values (the settings from their declarations, the rest by hand);
    an option of serve that is neither passed on nor in NOT_FOR_REPLICAS fails here."""
    parser = _serve_parser()
    argv = ["--port", "0"]
    for settings in SERVE_SETTINGS:
        for s in settings:
            value = _other_value(s)
            assert value != s.default and s.allows(value), s.name
            argv += [s.flag, s.text(value)]
    for flag, text in OTHER_OPTIONS.values():
        argv += [flag, text]
    args = parser.parse_args(argv)
    again = parser.parse_args(["--port", "0", *replica_args(args, 1)])
    dests = {a.dest for a in parser._actions}
    declared = {s.dest for settings in SERVE_SETTINGS for s in settings}
    assert dests == declared | set(OTHER_OPTIONS) | set(NOT_FOR_REPLICAS), (
        "a serve option is neither passed to the replicas nor listed in NOT_FOR_REPLICAS")
    defaults = parser.parse_args(["--port", "0"])
    for dest in dests - set(NOT_FOR_REPLICAS):
        assert getattr(args, dest) != getattr(defaults, dest), dest   # a real change...
        assert getattr(again, dest) == getattr(args, dest), dest      # ...passed on
    for settings in SERVE_SETTINGS:   # and each replica builds the same limits
        assert settings.from_args(again) == settings.from_args(args)
    assert Limits(**LIMIT_SETTINGS.from_args(again)) == Limits(**LIMIT_SETTINGS.from_args(args))


def test_replica_ports_of_metrics_count_up() -> None:
    args = _serve_parser().parse_args(["--metrics-port", "9100"])
    second = replica_args(args, 2)
    assert second[second.index("--metrics-port") + 1] == "9101"


@pytest.mark.parametrize("flag, value, message", [
    ("--max-depth", "65", "65 is outside 1..64"),
    ("--max-threads", "0", "0 is outside 1..64"),
    ("--max-tt-bits", "27", "27 is outside 1..26"),
    ("--max-playouts", "100001", "100001 is outside 1..100000"),
    ("--max-time-ms", "0", "0 ms is outside 1..4294967295"),
    ("--max-nodes", "many", "'many' is not an integer"),
    ("--deadline-reserve-fraction", "1", "1 is outside [0, 1)"),
    ("--deadline-reserve-ms", "-1", "-1 ms is outside 0..3600000"),
    ("--http-max-streams", "0", "0 is outside 1..10000"),
    ("--game-days", "0", "0 days is outside 0.01..36500"),
])
def test_a_bad_value_is_one_line_naming_the_flag_and_the_range(
        flag: str, value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["serve", flag, value])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: argument {flag}: {message} (see gallerist serve --help)"]


def test_limits_refuse_a_value_out_of_the_declared_range() -> None:
    with pytest.raises(ValueError, match=r"^limit max_time_ms must be an integer in "
                                         r"1\.\.4294967295, got 0$"):
        Limits(max_time_ms=0)
    with pytest.raises(ValueError, match=r"limit deadline_reserve_fraction must be a number "
                                         r"in \[0, 1\), got 1\.0"):
        Limits(deadline_reserve_fraction=1.0)
    with pytest.raises(ValueError, match="max_streams: 0 is not an integer in 1..10000"):
        HttpLimits(max_streams=0)
