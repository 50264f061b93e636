"""Bots from short spec strings: "mcts:iterations=2000,threads=2", "expectimax:depth=3",
"greedy", "random", "level:3", "level:elo=1200", and "remote:HOST:PORT,bot=mcts,..." (a running hint service).

The one parser (`parse_spec`) and factory (`make_bot`) of bot specs: the arena, the
command line and the service all build their bots here.
"""
from __future__ import annotations

import functools
from typing import Any

from gallerist.ai.bots.baselines import GreedyBot, RandomBot
from gallerist.ai.bots.expectimax import ExpectimaxBot
from gallerist.ai.bots.levels import LevelBot
from gallerist.ai.bots.mcts import MctsBot
from gallerist.ai.bots.options import Options, option_text
from gallerist.ai.interop.openspiel_bots import OpenSpielMctsBot, OpenSpielRandomBot

#: The bot of the service and the command line when none is named: MCTS with a packaged
#: model's policy as PUCT's prior at the player counts it was trained on (default-1p.npz
#: solo, default-3p.npz at 3; UCT at 4, and everywhere when there is no model), and at 2
#: players the packaged value network (value/value-2p.npz) as the prior and half of each
#: leaf's value, a rollout the other half (ai.bots.mcts.MctsBot, prior=auto, eval=auto).
DEFAULT_BOT = "mcts:prior=auto,eval=auto"

#: The bots by name; each class declares its options in `OPTIONS` (ai.bots.options).
BOTS: dict[str, Any] = {
    "mcts": MctsBot,
    "expectimax": ExpectimaxBot,
    "greedy": GreedyBot,
    "random": RandomBot,
    "level": LevelBot,
    # OpenSpiel's bots: open_spiel is imported only when one is made (optional extra).
    "openspiel-mcts": OpenSpielMctsBot,
    "openspiel-random": OpenSpielRandomBot,
}


def _convert(bot: str, key: str, text: str, default: Any) -> Any:
    kind = type(default)
    try:
        if kind is bool:
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if kind is int:
            return int(text)
        if kind is float:
            return float(text)
        return text
    except ValueError:
        raise ValueError(f"{bot} option {key}={text!r}: expected {kind.__name__}") from None


def declared_options(name: str) -> Options:
    """The options bot `name` declares: its class's `OPTIONS`, or none when it has no
    such attribute (ValueError naming an unknown bot)."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(BOTS))}")
    declared = getattr(BOTS[name], "OPTIONS", None)
    return declared if isinstance(declared, Options) else Options(name)


def bot_options(name: str) -> dict[str, Any]:
    """The options a bot takes, with their defaults, in their declared order."""
    return dict(declared_options(name).defaults)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split "name:k=v,k=v" into the bot name and typed options (ValueError naming any
    unknown bot or option)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"bot spec must be a non-empty string, got {spec!r}")
    name, items = _parse(spec)
    return name, dict(items)


@functools.lru_cache(maxsize=512)
def _parse(spec: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """`parse_spec`, remembered: a service is sent the same few specs again and again.
    Errors are not cached."""
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    declared = declared_options(name)
    opts: dict[str, Any] = {}
    for i, item in enumerate(filter(None, (x.strip() for x in rest.split(",")))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq and i == 0 and declared.positional:
            key, eq, value = declared.positional, "=", item
        if not eq:
            raise ValueError(f"{name} option {key!r} needs a value (key=value)")
        if key not in declared:
            raise ValueError(declared.unknown(key))
        opts[key] = _convert(name, key, value.strip(), declared[key].default)
    return name, tuple(opts.items())


def make_bot(spec: str, seed: int = 0) -> Any:
    """A bot from its spec string.

    >>> make_bot("mcts:iterations=200", seed=1).iterations
    200
    """
    name, _, rest = spec.strip().partition(":") if isinstance(spec, str) else ("", "", "")
    if name.strip().lower() == "remote":
        from gallerist.ai.bots.remote import RemoteBot, parse_remote_spec

        return RemoteBot(seed=seed, **parse_remote_spec(rest))
    name, opts = parse_spec(spec)
    try:
        return BOTS[name](seed=seed, **opts)
    except TypeError as exc:
        raise ValueError(f"bad options for bot {name!r}: {exc}") from None


def resolved_spec(spec: str, bot: Any, num_players: int, budget: Any = None) -> str:
    """The spec of `bot` (made from `spec`) as it searches a `num_players` game: every
    option written out, defaults included, in the order the bot declares them, and what
    it chooses by player count (`BaseBot.resolved_options`: the default bot's prior=auto
    as prior=model with the model's file name, or prior=none), e.g.
    "greedy:calibrated=true,playouts=100". A spec of no bot of BOTS (remote:...) is
    returned as given. `parse_spec` reads the result. With `budget` (a `Budget`: what a
    search applied), the spec's iterations, time_ms and depth options say that budget,
    not the bot's defaults (a spec read "iterations=0,time_ms=0.0" for a 500 ms search)."""
    try:
        name, opts = parse_spec(spec)
    except ValueError:
        return spec
    options = {**bot_options(name), **opts}
    resolve = getattr(bot, "resolved_options", None)
    if resolve is not None:
        options = resolve(options, num_players)
    if budget is not None:
        for key in ("iterations", "time_ms", "depth"):
            if key in options:
                value = getattr(budget, key)
                options[key] = float(value) if isinstance(options[key], float) else int(value)
    return name + ":" + ",".join(f"{k}={option_text(v)}" for k, v in options.items())


def model_used(bot: Any, num_players: int) -> str:
    """The model files `bot` reads searching a `num_players` game, as reports name them
    ("default.npz@1a2b3c4d": file name and short sha256, `net.packaged.model_label`;
    several comma-separated); "" when it reads none."""
    from gallerist.ai.net.packaged import model_label

    files = getattr(bot, "model_files", lambda n: [])(num_players)
    return ",".join(model_label(f) for f in files)
