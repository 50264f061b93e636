"""The budget mix of a load test: which bot and budget each SuggestMoves call asks for."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["BUDGET_FIELDS", "BudgetChoice", "BudgetMix", "DEFAULT_BUDGETS"]

#: The default budget mix: mostly small time budgets, some larger, some fixed work.
DEFAULT_BUDGETS = "time_ms=10*2,time_ms=50,iterations=1000"
#: Budget fields of a `gallerist.v1.Budget`, as written in a mix.
BUDGET_FIELDS = ("iterations", "time_ms", "depth")


@dataclass(frozen=True)
class BudgetChoice:
    """One entry of a budget mix: a bot, a budget and a relative weight.

    Attributes:
        label: the entry as written, without its weight ("time_ms=10",
            "expectimax/depth=2"); names the entry in locust's statistics.
        bot: the bot spec sent as `HintRequest.bot_spec` ("mcts", "greedy", ...).
        iterations, time_ms, depth: the `HintRequest.budget` fields (0: unset).
        weight: how often it is picked, relative to the other entries.
    """

    label: str
    bot: str = "mcts"
    iterations: int = 0
    time_ms: int = 0
    depth: int = 0
    weight: float = 1.0


@dataclass
class BudgetMix:
    """A weighted choice of budgets, parsed from text such as
    ``"time_ms=10*2,time_ms=50,iterations=1000,expectimax/depth=2,greedy"``.

    Each comma-separated entry is ``[BOT/]FIELD=VALUE[+FIELD=VALUE...][*WEIGHT]`` or a
    bare bot name; FIELD is one of iterations, time_ms, depth; BOT defaults to mcts;
    WEIGHT defaults to 1.

    >>> mix = BudgetMix.parse("time_ms=10*3,expectimax/depth=2,greedy")
    >>> [(c.label, c.bot, c.time_ms, c.depth, c.weight) for c in mix.choices]
    [('time_ms=10', 'mcts', 10, 0, 3.0), ('expectimax/depth=2', 'expectimax', 0, 2, 1.0), ('greedy', 'greedy', 0, 0, 1.0)]
    """

    choices: list[BudgetChoice] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> "BudgetMix":
        """Parse a mix (ValueError naming the bad entry)."""
        choices = []
        for raw in filter(None, (x.strip() for x in text.split(","))):
            entry, _, weight_text = raw.partition("*")
            entry = entry.strip()
            try:
                weight = float(weight_text) if weight_text else 1.0
            except ValueError:
                raise ValueError(f"budget {raw!r}: weight {weight_text!r} is not a number") from None
            if weight <= 0:
                raise ValueError(f"budget {raw!r}: weight must be > 0")
            bot, slash, fields_text = entry.partition("/")
            if not slash:
                bot, fields_text = ("mcts", entry) if "=" in entry else (entry, "")
            values: dict[str, int] = {}
            for item in filter(None, fields_text.split("+")):
                key, eq, value = item.partition("=")
                key = key.strip()
                if not eq or key not in BUDGET_FIELDS:
                    raise ValueError(f"budget {raw!r}: expected FIELD=VALUE with FIELD one of "
                                     f"{', '.join(BUDGET_FIELDS)}, got {item!r}")
                try:
                    values[key] = int(value)
                except ValueError:
                    raise ValueError(f"budget {raw!r}: {key}={value!r} is not an integer") from None
                if values[key] < 0:
                    raise ValueError(f"budget {raw!r}: {key} must be >= 0")
            if not bot.strip():
                raise ValueError(f"budget {raw!r}: empty bot name")
            choices.append(BudgetChoice(label=entry, bot=bot.strip(), weight=weight, **values))
        if not choices:
            raise ValueError("the budget mix is empty")
        return cls(choices)

    def pick(self, rng: random.Random) -> BudgetChoice:
        """A random entry, by weight."""
        return rng.choices(self.choices, weights=[c.weight for c in self.choices])[0]

    def __str__(self) -> str:
        return ",".join(c.label + (f"*{c.weight:g}" if c.weight != 1 else "")
                        for c in self.choices)
