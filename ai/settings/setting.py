"""A setting declared once: its name, default (whose type is the setting's), range or
choices, one line of help, and the flag of the command that sets it. From the
declaration come the library's check (`Setting.allows`, `Setting.says`), the flag's
parse with its one-line error (`Setting.parse`, e.g. "0 is outside 1..64"), its help,
the arguments a child process is given (`Settings.argv`) and the docs' table
(`gallerist.ai.settings.docs.table`). The command line turns a `Settings` into flags
(`gallerist.cli.commands.options.add_settings`).

>>> LIMITS = Settings("limits", Setting("max_depth", 6, "deepest search", low=1, high=64),
...                   Setting("reserve", 0.1, "share kept back", low=0, below=1))
>>> LIMITS["max_depth"].flag, LIMITS["max_depth"].span, LIMITS["reserve"].span
('--max-depth', '1..64', '[0, 1)')
>>> LIMITS["max_depth"].parse("65")
Traceback (most recent call last):
ValueError: 65 is outside 1..64
>>> LIMITS.argv({"max_depth": 8, "reserve": 0.25})
['--max-depth', '8', '--reserve', '0.25']

The bots' options (gallerist.ai.bots.options) are declared the same way; a setting is
not a bot's, so it has a flag and a child-process argument where an option has a spec
item and a service cap.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

__all__ = ["Setting", "Settings", "number_text"]


def number_text(value: float, *, commas: bool = False) -> str:
    """A number as people read it: 8760, 0.53, 0.001 (1e-3), 30 (30.0); with `commas`
    the thousands separated (10,000)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}" if commas else str(int(value))
    return f"{value:g}"


def _either(items: list[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


@dataclass(frozen=True)
class Setting:
    """One setting.

    Attributes:
        name: its name in the library (a dataclass field, a keyword: "max_depth").
        default: its value when not given; its type (int, float, bool, str) is the
            setting's unless `kind` says otherwise. None: "not set" (see `none`).
        help: one line: what it is (the flag's help and the docs, without the default).
        low: the least value allowed (numbers).
        high: the greatest value allowed (numbers).
        above: the value must be greater than this (numbers).
        below: the value must be less than this (numbers).
        choices: the values allowed.
        kind: the type of its values when the default does not say it (a default of None,
            or a value `convert` reads).
        flag: its command-line flag (default ``--`` and the name with dashes).
        metavar: the flag's placeholder in help ("N", "MS").
        unit: what its numbers count ("hours", "ms"), in help and errors.
        says: what it must be, as the library's errors word it ("a share in 0..1"),
            when not the generated phrase.
        none: what a default of None means, in help and docs ("all").
        shown: the default as help and docs say it, when not the value ("the cores").
        convert: reads a value of `kind` (from its text or a given value); raises
            ValueError when it cannot (e.g. layer widths from "64,64").
    """

    name: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    above: float | None = None
    below: float | None = None
    choices: tuple[Any, ...] = ()
    kind: type | None = None
    flag: str = ""
    metavar: str = ""
    unit: str = ""
    says: str = ""
    none: str = ""
    shown: str = ""
    convert: Callable[[Any], Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        kind = self.kind or (type(self.choices[0]) if self.choices else type(self.default))
        if kind is type(None):
            raise ValueError(f"setting {self.name}: a default of None needs kind=")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "flag", self.flag or "--" + self.name.replace("_", "-"))
        object.__setattr__(self, "says", self.says or self._phrase())
        if not self.allows(self.default):
            raise ValueError(f"setting {self.name}: its default {self.default!r} is not "
                             f"{self.says}")

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments that holds it (the flag's words; a
        ``--no-NAME`` switch sets NAME)."""
        if self.kind is bool and self.flag.startswith("--no-"):
            return self.name
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def numeric(self) -> bool:
        return self.kind in (int, float) and not self.choices

    @property
    def span(self) -> str:
        """The values allowed, briefly: "1..64", "(0, 1]", "[0, 1)", "> 0", "a, b"
        (errors of flags and the docs' range column; "" for text)."""
        if self.choices:
            return ", ".join(self._text(c) for c in self.choices)
        if self.kind is bool:
            return "true, false"
        if not self.numeric:
            return ""
        lo = self.low if self.above is None else self.above
        hi = self.high if self.below is None else self.below
        if lo is not None and hi is not None:
            if self.above is None and self.below is None:
                return f"{number_text(lo)}..{number_text(hi)}"
            return (f"{'(' if self.above is not None else '['}{number_text(lo)}, "
                    f"{number_text(hi)}{')' if self.below is not None else ']'}")
        if lo is not None:
            return f"{'>' if self.above is not None else '>='} {number_text(lo)}"
        if hi is not None:
            return f"{'<' if self.below is not None else '<='} {number_text(hi)}"
        return "any"

    def _phrase(self) -> str:
        """What a value must be, in words ("an integer in 1..64", "a positive number")."""
        if self.choices:
            texts = [self._text(c) for c in self.choices]
            return ("one of " + ", ".join(texts)) if self.kind is str else _either(texts)
        if self.kind is bool:
            return "true or false"
        if self.kind is int:
            return "an integer" + (f" in {self.span}" if ".." in self.span
                                   else f" {self.span}" if self.span != "any" else "")
        if self.kind is float:
            if self.above == 0 and self.high is None and self.below is None:
                return "a positive number"
            if self.span == "any":
                return "a finite number"
            return f"a number {'in ' if self.span[0] not in '<>' else ''}{self.span}"
        return "text" if self.kind is str else f"a {getattr(self.kind, '__name__', 'value')}"

    def allows(self, value: Any) -> bool:
        """Whether `value` is one of the setting's (None only where the default is)."""
        if value is None:
            return self.default is None
        if self.convert is not None:
            try:
                self.convert(value)
            except (ValueError, TypeError):
                return False
            return True
        if self.choices:
            return type(value) is self.kind and value in self.choices
        if self.kind is bool or self.kind is str:
            return type(value) is self.kind
        numeric = numbers.Integral if self.kind is int else numbers.Real
        if isinstance(value, bool) or not isinstance(value, numeric):
            return False
        number = cast(float, value)   # an int or a real number (numpy's too)
        if self.kind is float and not math.isfinite(number):
            return False
        return ((self.low is None or number >= self.low)
                and (self.high is None or number <= self.high)
                and (self.above is None or number > self.above)
                and (self.below is None or number < self.below))

    def read(self, text: str) -> Any:
        """A flag's text as a value of the setting's type, unchecked otherwise (the
        library checks it): an integer, a number, else the text.

        Raises:
            ValueError: not an integer or not a number (the message says which).
        """
        if self.kind is int:
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"{text!r} is not an integer") from None
        if self.kind is float:
            try:
                return float(text)
            except ValueError:
                of = f" of {self.unit}" if self.unit else ""
                raise ValueError(f"{text!r} is not a number{of}") from None
        return text

    def parse(self, text: str) -> Any:
        """A flag's text as a value, checked: the message of a bad one is the flag's
        error ("65 is outside 1..64", "-1 hours is outside (0, 8760]", "'x' is not an
        integer", "'x' is not one of all, last").

        Raises:
            ValueError: the text is not one of the setting's values.
        """
        if self.convert is not None:
            return self.convert(text)
        value = self.read(text)
        if self.choices and value not in self.choices:
            raise ValueError(f"{text!r} is not one of {self.span}")
        if not self.allows(value):
            shown = f"{text if self.kind is float else value}{' ' + self.unit if self.unit else ''}"
            if self.kind is float and not math.isfinite(value):
                raise ValueError(f"{shown} is not a finite number")
            bounded = ".." in self.span or self.span[:1] in "[("
            raise ValueError(f"{shown} is outside {self.span}" if bounded
                             else f"{shown} must be {self.span}")
        return value

    def _text(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (tuple, list)):
            return ",".join(self._text(v) for v in value)
        if isinstance(value, float):
            return number_text(value)
        return str(value)

    def text(self, value: Any) -> str:
        """`value` as the flag takes it, exactly (floats by repr: a child process reads
        back the same number)."""
        if isinstance(value, float) and not isinstance(value, bool):
            return repr(value)
        return self._text(value)

    @property
    def default_text(self) -> str:
        """The default as help and docs say it ("6000", "0.53", "all", "the cores")."""
        if self.shown:
            return self.shown
        if self.default is None:
            return self.none or "none"
        if self.default == "" and self.kind is str:
            return '""'
        return self._text(self.default)

    def help_text(self) -> str:
        """The flag's help: what it is, its default and its range ("... (default 6;
        range 1..64)", "... (default all; one of all, last)")."""
        if self.kind is bool:
            turn = "turns it off" if self.default else "turns it on"
            return f"{self.help} ({'on' if self.default else 'off'} by default; {self.flag} {turn})"
        unit = f" {self.unit}" if self.unit and self.default is not None and self.numeric \
            and not self.shown else ""
        span = ""
        if self.span:
            span = f"; one of {self.span}" if self.choices else f"; range {self.span}"
        return f"{self.help} (default {self.default_text}{unit}{span})"


class Settings:
    """Settings of one kind (the limits of one request, the HTTP port's, the training
    options), in their order: the order of the flags and of the docs' table."""

    def __init__(self, title: str, *settings: Setting) -> None:
        self.title = title
        self.settings = settings
        self._by_name = {s.name: s for s in settings}
        if len(self._by_name) != len(settings):
            raise ValueError(f"{title}: a setting is declared twice")
        if len({s.flag for s in settings}) != len(settings):
            raise ValueError(f"{title}: a flag is declared twice")
        #: every setting's default, by name, in order
        self.defaults: dict[str, Any] = {s.name: s.default for s in settings}

    def __iter__(self) -> Iterator[Setting]:
        return iter(self.settings)

    def __len__(self) -> int:
        return len(self.settings)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __getitem__(self, name: str) -> Setting:
        return self._by_name[name]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def problem(self, values: Mapping[str, Any]) -> tuple[Setting, Any] | None:
        """The first setting in `values` whose value it does not allow, with the value
        (None: all are allowed). Names it does not declare are ignored."""
        for name, value in values.items():
            setting = self._by_name.get(name)
            if setting is not None and not setting.allows(value):
                return setting, value
        return None

    def from_args(self, args: Any) -> dict[str, Any]:
        """The values parsed from the flags (an argparse namespace), by name."""
        return {s.name: getattr(args, s.dest) for s in self.settings}

    def argv(self, values: Mapping[str, Any]) -> list[str]:
        """`values` (by name; missing ones: the defaults) as the flags that give them, for
        a child process: every setting but those that are None (not set) and switches
        at their default."""
        out: list[str] = []
        for s in self.settings:
            value = values.get(s.name, s.default)
            if value is None:
                continue
            if s.kind is bool:
                if value != s.default:
                    out.append(s.flag)
                continue
            out += [s.flag, s.text(value)]
        return out
