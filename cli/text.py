"""Plain-text output of the command line: hint tables, turn plans, progress lines."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from gallerist import engine
from gallerist.ai.words import counted
from gallerist.engine.actions import action_to_string

__all__ = ["Progress", "format_hint", "format_plan", "format_root", "format_why", "move_name",
           "plan_words"]


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


def plan_words(state: engine.GameState, pv: list[int]) -> list[str]:
    """A line of play from `state` in words, one step each (`engine.describe_move`); from
    a step the state cannot follow on (not legal there), the rest in notation."""
    walk = state.clone_position()
    steps: list[str] = []
    for i, action in enumerate(pv):
        try:
            steps.append(engine.describe_move(walk, action))
            walk.apply(action)
        except ValueError:   # IllegalActionError: e.g. a hidden card decided it
            steps += [action_to_string(a) for a in pv[i:]]
            break
    return steps


def move_name(m: Any, notation: bool) -> str:
    """A MoveHint by its notation, or in words (its notation when it has no words: a
    server older than the field)."""
    return m.notation if notation or not m.description else m.description


def _hint_rows(r: Any, limit: int, notation: bool) -> list[str]:
    """The table of a HintResponse's moves: in words, or by notation with each move's
    plan (the rest of the turn) in notation."""
    n = len(r.moves[0].expected_money) if r.moves else 0
    money_head = "/".join(f"P{p}" for p in range(n)) or "-"
    width = max([26] + [len(move_name(m, notation)) for m in r.moves[:limit]])
    head = (f"{'#':>2}  {'move':<{width}} {'visits':>7} {'depth':>5} {'win%':>6} "
            f"{'value':>8}  {'expected $ ' + money_head:<18}")
    head += "  plan (rest of the turn)" if notation else ""
    lines = [head.rstrip(), "-" * len(head.rstrip())]
    for i, m in enumerate(r.moves[:limit]):
        money = "/".join(f"{x:.0f}" for x in m.expected_money)
        win = f"{100 * m.win_probability:>5.1f}%" if m.HasField("win_probability") else "     -"
        row = (f"{i + 1:>2}  {move_name(m, notation):<{width}} {m.visits:>7} {m.depth:>5} "
               f"{win} {m.value:>8.3f}  {money:<18}")
        if notation:
            plan = format_plan(list(m.pv_notation[1:]))
            row += "  " + (plan[:57] + "..." if len(plan) > 60 else plan)
        lines.append(row.rstrip())
    return lines


def _turn_plan(r: Any, notation: bool, state: engine.GameState | None) -> list[str]:
    """The best move's plan: one line in notation, or one step a line in words (from
    `state`, the position as its mover sees it; without it, the first step alone is
    in words)."""
    best = r.moves[0]
    if notation:
        return ["Turn plan: " + format_plan(list(best.pv_notation))]
    if state is not None:
        steps = plan_words(state.view(r.player), list(best.pv))
    else:
        steps = [move_name(best, False)] + list(best.pv_notation[1:])
    return ["Turn plan:"] + [f"  {i + 1}. {step}" for i, step in enumerate(steps)]


def format_hint(response: Any, *, title: str = "", limit: int = 10, notation: bool = False,
                state: engine.GameState | None = None, why: bool = False) -> str:
    """A HintResponse as a readable table, then the turn plan of the best move.

    Args:
        response: a `gallerist.v1.HintResponse`.
        title: a first line (e.g. what the position is).
        limit: the most moves to list.
        notation: moves by the engine's notation (with each move's plan) instead of in
            words (`MoveHint.description`).
        state: the position of the hint, for the turn plan in words.
        why: every listed move's whole explanation (`format_why`); otherwise the best
            move's, in one line.

    Returns:
        Lines of text (no trailing newline).
    """
    r = response
    stats = r.stats
    lines = [title] if title else []
    lines.append(f"Hints for player {r.player} by {r.bot}"
                 + ("" if r.final else " (partial)")
                 + (", cut short by the deadline" if r.deadline_limited else "")
                 + (", stopped early" if r.stopped else ""))
    lines += _hint_rows(r, limit, notation)
    hidden = len(r.moves) - min(limit, len(r.moves))
    if hidden > 0:
        lines.append(f"    ... {hidden} more legal move(s) not shown")
    unsearched = r.legal_move_count - len(r.moves)   # left out by allow/avoid
    if unsearched > 0:
        lines.append(f"    ... {unsearched} other legal move(s) not searched (allow/avoid)")
    if r.moves:
        lines.append("")
        lines.append("Position: " + format_root(r.root))
        lines += _turn_plan(r, notation, state)
        if why or not notation:   # the one line is words; --notation alone keeps to notation
            lines += format_why(r, limit if why else 1, full=why, notation=notation)
    if r.HasField("chosen") and r.moves and r.chosen.action != r.moves[0].action:
        lines.append(f"Plays: {move_name(r.chosen, notation)} (the {r.bot} bot's pick among "
                     "its best moves, not the first)")
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


def format_why(response: Any, limit: int = 1, *, full: bool = False,
               notation: bool = False) -> list[str]:
    """The explanations of a HintResponse's first `limit` moves (MoveHint.explanation):
    one line each ("Why: ..."), or with `full` every part: what the turn changes, the
    final scoring as it would stand, the line the search expects, the comparison."""
    lines: list[str] = []
    for i, m in enumerate(response.moves[:limit]):
        if not m.HasField("explanation"):
            continue
        e = m.explanation
        if not full:
            lines.append(f"Why: {e.words}")
            continue
        lines += ["", f"Why {i + 1}. {move_name(m, notation)}"]
        lines += [f"  now: {r.words}" for r in e.now]
        lines += [f"  {r.words}" for r in e.scoring]
        if e.line:
            lines.append("  then, as the search expects:")
            lines += [f"    {step}" for step in e.line]
        if e.HasField("versus"):
            v = e.versus
            numbers = ([f"win probability {100 * v.win_probability:+.1f} points"]
                       if v.HasField("win_probability") else [])
            numbers.append(f"expected money {'+' if v.expected_money >= 0 else '-'}"
                           f"${abs(v.expected_money):,.1f}")
            lines.append(f"  against {v.description}: " + ", ".join(numbers))
            lines += [f"    {r.words}" for r in v.differences]
    return lines


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
