"""Plain-text output of the command line: hint tables, turn plans, progress lines."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from gallerist.ai.words import counted

__all__ = ["Progress", "format_hint", "format_plan", "format_root"]


def format_plan(notations: list[str]) -> str:
    """A turn plan as one line, chance outcomes in [brackets]."""
    return " -> ".join(f"[{n.removeprefix('chance:')}]" if n.startswith("chance:") else n
                       for n in notations)


def format_root(root: Any) -> str:
    """Who is ahead (a PositionSummary): every seat's win chance and expected money."""
    money = "/".join(f"${x:.0f}" for x in root.expected_money)
    if not root.win_probabilities:
        return f"expected final money {money} (solo)"
    win = "/".join(f"{100 * x:.0f}%" for x in root.win_probabilities)
    return f"win {win}, expected final money {money} (by seat)"


def format_hint(response: Any, *, title: str = "", limit: int = 10) -> str:
    """A HintResponse as a readable table, then the turn plan of the best move.

    Args:
        response: a `gallerist.v1.HintResponse`.
        title: a first line (e.g. what the position is).
        limit: the most moves to list.

    Returns:
        Lines of text (no trailing newline).
    """
    r = response
    stats = r.stats
    n = len(r.moves[0].expected_money) if r.moves else 0
    money_head = "/".join(f"P{p}" for p in range(n)) or "-"
    lines = [title] if title else []
    lines.append(f"Hints for player {r.player} by {r.bot}"
                 + ("" if r.final else " (partial)")
                 + (", cut short by the deadline" if r.deadline_limited else "")
                 + (", stopped early" if r.stopped else ""))
    head = (f"{'#':>2}  {'move':<26} {'visits':>7} {'depth':>5} {'win%':>6} {'value':>8}  "
            f"{'expected $ ' + money_head:<18}  plan (rest of the turn)")
    lines.append(head)
    lines.append("-" * len(head))
    for i, m in enumerate(r.moves[:limit]):
        money = "/".join(f"{x:.0f}" for x in m.expected_money)
        plan = format_plan(list(m.pv_notation[1:]))
        if len(plan) > 60:
            plan = plan[:57] + "..."
        win = f"{100 * m.win_probability:>5.1f}%" if m.HasField("win_probability") else "     -"
        lines.append(f"{i + 1:>2}  {m.notation:<26} {m.visits:>7} {m.depth:>5} "
                     f"{win} {m.value:>8.3f}  {money:<18}  {plan}")
    hidden = len(r.moves) - min(limit, len(r.moves))
    if hidden > 0:
        lines.append(f"    ... {hidden} more legal move(s) not shown")
    unsearched = r.legal_move_count - len(r.moves)   # left out by allow/avoid
    if unsearched > 0:
        lines.append(f"    ... {unsearched} other legal move(s) not searched (allow/avoid)")
    if r.moves:
        lines.append("")
        lines.append("Position: " + format_root(r.root))
        lines.append("Turn plan: " + format_plan(list(r.moves[0].pv_notation)))
    if r.HasField("chosen") and r.moves and r.chosen.action != r.moves[0].action:
        lines.append(f"Plays: {r.chosen.notation} (the {r.bot} bot's pick among its best "
                     "moves, not the first)")
    lines.append(f"Search: {counted(stats.iterations, 'iteration')}, "
                 f"{counted(stats.nodes, 'node')}, "
                 f"depth {stats.depth}, {stats.elapsed_ms:,.0f} ms, "
                 f"{stats.nodes_per_second:,.0f} nodes/s (budget: "
                 f"{counted(r.budget.iterations, 'iteration')}, time limit "
                 f"{r.budget.time_ms:,} ms, depth {r.budget.depth})")
    if r.resolved_bot_spec:   # a server older than the field leaves it empty
        lines.append(f"Bot: {r.resolved_bot_spec}")
        lines.append(f"Model: {r.model or 'none'}")
    return "\n".join(lines)


class Progress:
    """Progress of long work on one line of stderr ("label 40% detail"), redrawn in
    place on a terminal and printed at most every `every` seconds otherwise.

    Args:
        label: what is being done.
        total: units of work in all (0: unknown; then only the detail is shown).
        stream: where to write (default stderr).
        every: seconds between lines when the stream is not a terminal.
        enabled: False makes every call a no-op.
    """

    def __init__(self, label: str, total: float = 0, *, stream: TextIO | None = None,
                 every: float = 2.0, enabled: bool = True) -> None:
        self.label = label
        self.total = total
        self.stream = stream or sys.stderr
        self.every = every
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = 0.0
        self._drawn = False

    def update(self, done: float, detail: str = "") -> None:
        """Report `done` units finished."""
        if not self.enabled:
            return
        now = time.monotonic()
        if not self.tty and now - self._last < self.every:
            return
        self._last = now
        pct = f" {100.0 * done / self.total:3.0f}%" if self.total else ""
        text = f"{self.label}{pct} {detail}".rstrip()
        if self.tty:
            self.stream.write("\r" + text[:119].ljust(119))
            self._drawn = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self, detail: str = "") -> None:
        """Finish the line."""
        if not self.enabled:
            return
        if self.tty and self._drawn:
            self.stream.write("\r" + " " * 119 + "\r")
        if detail:
            self.stream.write(f"{self.label}: {detail}\n")
        self.stream.flush()
