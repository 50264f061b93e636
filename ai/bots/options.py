"""The options of a bot, each declared once: its name, default (whose type is the
option's), range or choices, one line of help, where it applies and the service limit
that caps it. The bot checks its options from the declaration, the spec parser
(`ai.bots.spec`) reads names, types and defaults from it, the service (`server.limits`)
its caps, and `gallerist bots` and docs/bots.md its help.

A declaration, as lc0's OptionId and KataGo's SearchParams:

>>> OPTIONS = Options("toy", Option("depth", 2, "plies searched", low=1, high=8),
...                   Option("eval", "heuristic", "the leaf value", choices=("heuristic", "model")),
...                   Option("model", "", "the model file", needs=("eval=model",)))
>>> OPTIONS.resolve({"depth": 3})["depth"], OPTIONS.resolve({})["eval"]
(3, 'heuristic')
>>> OPTIONS.resolve({"depth": 9})
Traceback (most recent call last):
ValueError: toy option depth must be an integer 1..8, got 9
>>> OPTIONS.resolve({"model": "x.npz"})
Traceback (most recent call last):
ValueError: toy option model needs eval=model, got model=x.npz with eval=heuristic

After changing a declaration, run ``python -m gallerist.ai.bots.docs --write
docs/bots.md`` (a test fails while docs/bots.md is not current).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Option", "Options", "option_text"]


def option_text(value: Any) -> str:
    """A value as a spec writes it: true/false, floats with their point (20.0), text as is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _either(items: Sequence[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


@dataclass(frozen=True)
class Option:
    """One option of a bot.

    Attributes:
        name: its name in a spec ("iterations").
        default: its value when not given; its type (int, float, bool, str) is the option's.
        help: one line: what it does.
        low: the least value allowed (numbers).
        high: the greatest value allowed (numbers).
        above: the value must be greater than this (numbers).
        choices: the values allowed (text).
        says: the range as error messages word it, when not the generated phrase.
        needs: a value other than the default needs one of these settings of another
            option ("eval=mix"), else the bot refuses it.
        because: why, added to the refusal of `needs`.
        applies: where it has an effect, for the docs only ("prior=model or prior=auto").
        limit: the field of `server.limits.Limits` that caps it in a request.
        refused: why a request to the service may not set it ("": it may).
    """

    name: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    above: float | None = None
    choices: tuple[str, ...] = ()
    says: str = ""
    needs: tuple[str, ...] = ()
    because: str = ""
    applies: str = ""
    limit: str = ""
    refused: str = ""
    _needs: tuple[tuple[str, str], ...] = field(default=(), init=False, repr=False)
    _allows: Callable[[Any], bool] = field(default=bool, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pairs = tuple(tuple(n.split("=", 1)) for n in self.needs)
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"option {self.name}: needs must be 'option=value' texts")
        object.__setattr__(self, "_needs", pairs)
        object.__setattr__(self, "says", self.says or self._phrase())
        object.__setattr__(self, "_allows", self._predicate())
        self.check("declaration", self.default)

    @property
    def kind(self) -> type:
        """The option's type: its default's."""
        return type(self.default)

    @property
    def range(self) -> str:
        """The values allowed, briefly, for the docs ("1..64", "> 0", "[0, 1]")."""
        kind, lo, hi, above = self.kind, self.low, self.high, self.above
        if self.choices:
            return ", ".join(self.choices)
        if kind is bool:
            return "true, false"
        if kind is str:
            return self.says
        if lo is not None and hi is not None:
            return f"{lo}..{hi}" if kind is int else f"[{lo:g}, {hi:g}]"
        if above is not None:
            return f"> {above:g}"
        return f">= {lo:g}" if lo is not None else "any number"

    def _phrase(self) -> str:
        kind, lo, hi, above = self.kind, self.low, self.high, self.above
        if self.choices:
            return _either([repr(c) for c in self.choices])
        if kind is bool:
            return "true or false"
        if kind is str:
            return "text"
        if kind is int:
            if lo is not None and hi is not None:
                return f"an integer {lo}..{hi}"
            return f">= {lo}" if lo is not None else "an integer"
        if lo is not None and hi is not None:
            return f"a number in [{lo:g}, {hi:g}]"
        if above is not None:
            return f"a finite number > {above:g}"
        return f"a finite number >= {lo:g}" if lo is not None else "a finite number"

    def check(self, bot: str, value: Any) -> None:
        """Refuse a value of the wrong type or out of range (ValueError naming the bot,
        the option, its range and the value)."""
        if not self._allows(value):
            raise ValueError(f"{bot} option {self.name} must be {self.says}, got {value!r}")

    def _predicate(self) -> Callable[[Any], bool]:
        """Whether a value is allowed: made once, as this is called for every bot made."""
        kind = self.kind
        if self.choices:
            return self.choices.__contains__
        if kind is bool or kind is str:
            return lambda value: type(value) is kind
        lo = -math.inf if self.low is None else self.low
        hi = math.inf if self.high is None else self.high
        above = -math.inf if self.above is None else self.above
        numeric = numbers.Integral if kind is int else numbers.Real

        def allows(value: Any) -> bool:
            if type(value) is not kind and (kind is not float or type(value) is not int):
                # numpy numbers and the like, never bool
                if isinstance(value, bool) or not isinstance(value, numeric):
                    return False
            # nan fails every comparison; a float must also be finite
            return (lo <= value <= hi and value > above
                    and (kind is int or -math.inf < value < math.inf))

        return allows

    @property
    def needs_text(self) -> str:
        """The settings `needs` asks for, in words ("prior=model or prior=auto")."""
        return _either(self.needs) if self.needs else ""

    def check_needs(self, bot: str, value: Any, values: Mapping[str, Any]) -> None:
        """Refuse a value other than the default when the other options are not set as
        `needs` asks (ValueError naming both)."""
        if not self._needs or value == self.default:
            return
        if any(option_text(values[key]) == want for key, want in self._needs):
            return
        others = ", ".join(f"{k}={option_text(values[k])}"
                           for k in dict.fromkeys(k for k, _ in self._needs))
        # a count (0: off) states its whole rule, as its errors always have
        rule = (f"must be {self.says} and needs {self.needs_text}" if self.kind is int
                else f"needs {self.needs_text}")
        why = f" ({self.because})" if self.because else ""
        raise ValueError(f"{bot} option {self.name} {rule}, got "
                         f"{self.name}={option_text(value)} with {others}{why}")


class Options:
    """A bot's options, in their order (the order of resolved specs and of the docs)."""

    def __init__(self, bot: str, *options: Option, positional: str = "") -> None:
        self.bot = bot
        self.options = options
        #: the option a spec may give as its first item without its name ("level:3")
        self.positional = positional
        self._by_name = {o.name: o for o in options}
        if len(self._by_name) != len(options):
            raise ValueError(f"{bot}: an option is declared twice")
        for option in options:
            for key, want in option._needs:
                other = self._by_name.get(key)
                if other is None or (other.choices and want not in other.choices):
                    raise ValueError(f"{bot} option {option.name} needs {key}={want}, "
                                     f"which {bot} does not have")
        #: every option's default, by name, in order
        self.defaults: dict[str, Any] = {o.name: o.default for o in options}
        self._with_needs = frozenset(o.name for o in options if o.needs)

    def __iter__(self) -> Iterator[Option]:
        return iter(self.options)

    def __len__(self) -> int:
        return len(self.options)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __getitem__(self, name: str) -> Option:
        return self._by_name[name]

    def unknown(self, name: str) -> str:
        """The message for an option this bot does not have."""
        return (f"unknown option {name!r} for bot {self.bot!r}; "
                f"known: {', '.join(sorted(self._by_name)) or 'none'}")

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every option's value: `given` checked (type and range, then needs), the
        defaults for the rest. Only the given ones are checked: the defaults were, when
        declared (a bot is made per request, so this is kept cheap).

        Raises:
            TypeError: an option the bot does not have (as for any unknown keyword).
            ValueError: a value of the wrong type, out of range, or needing another
                option's setting.
        """
        values = {**self.defaults, **given}
        by_name = self._by_name
        for name, value in given.items():
            option = by_name.get(name)
            if option is None:
                raise TypeError(self.unknown(name))
            if not option._allows(value):
                option.check(self.bot, value)   # raises, saying why
        if not self._with_needs.isdisjoint(given):
            for name, value in given.items():
                if name in self._with_needs:
                    by_name[name].check_needs(self.bot, value, values)
        return values
