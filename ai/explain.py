"""Why a move: the search's numbers for a move put beside what its line changes in the
game (`engine.line_effects`), in a structured form and in one line of words.

An explanation says what the move and the rest of the mover's turn (its principal
variation) change now, how the final scoring would stand after them, where the search
expects the game to go next, and how the move compares with another one (the next best
for a hint, the better move for a review). Its amounts are the engine's, after the search's
own line; its probabilities and expected money are the analysis's. It reads the position
as the mover sees it, so it never names a card hidden from the mover.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gallerist import engine
from gallerist.ai.values import Analysis, MoveInfo
from gallerist.engine.moves_text import seat_words
from gallerist.engine.line_effects import (SCORING_WORDS, Reason, compare_lines, importance,
                                           line_effects, play_line, scoring_changes)

__all__ = ["MAX_EXPLAINED", "Comparison", "Explanation", "explain_analysis", "explain_choice",
           "explain_move", "line_words"]

#: Moves a hint explains at most (the best ones).
MAX_EXPLAINED = 5


@dataclass
class Comparison:
    """A move against another one of the same position, for the mover.

    Attributes:
        action: the other move.
        description: the other move in words.
        win_probability: this move's win probability minus the other's (None solo).
        expected_money: this move's expected final money minus the other's, $.
        differences: the quantities that differ most between the ends of the two moves'
            lines (each Reason's `before` after the other line, `after` after this one).
        words: the comparison in one line.
    """

    action: int
    description: str
    win_probability: float | None
    expected_money: float
    differences: list[Reason] = field(default_factory=list)
    words: str = ""


@dataclass
class Explanation:
    """Why a move is worth what the search says.

    Attributes:
        action: the move explained.
        now: what the move and the rest of the mover's turn (`MoveInfo.pv`) change for
            the mover, largest first.
        scoring: how the mover's final scoring would stand after that turn, by step
            (only the steps that change), largest first.
        line: where the search expects the game to go after the turn
            (`MoveInfo.line_after`), one step each in words, "P2: ..." for another seat.
        versus: against the next best move (a hint) or the better move (a review);
            None when there is no other move.
        words: the explanation in one line.
    """

    action: int
    now: list[Reason]
    scoring: list[Reason]
    line: list[str]
    versus: Comparison | None
    words: str


def line_words(state: engine.GameState, line: Sequence[int], seat: int) -> list[str]:
    """The steps of `line` from `state` in words, as `seat` sees them: "You: ...", "P2:
    ...", "Chance: ..."; it stops at a step the view cannot replay."""
    walk = state.view(seat) if 0 <= seat < state.num_players else state.clone_position()
    out = []
    for action in line:
        if walk.is_terminal():
            break
        mover = None if walk.is_chance() else walk.current_player
        who = "Chance" if mover is None else "You" if mover == seat else f"P{mover}"
        try:
            text = seat_words(engine.describe_move(walk, int(action)), mover, seat)
        except engine.GalleristError:
            break
        out.append(f"{who}: {text}")
        walk.apply(int(action))
    return out


def _clause(text: str) -> str:
    """A sentence as a clause inside another: its first letter in lower case, unless it
    starts a capitalised word ("VIPs", "P2")."""
    if len(text) > 1 and (text[1].isupper() or text[1].isdigit()):
        return text
    return text[:1].lower() + text[1:]


def _percent_points(x: float) -> str:
    return f"{x * 100:+.1f} points"


def _money(x: float) -> str:
    return f"{'+' if x >= 0 else '-'}${abs(x):,.1f}"


def compare(state: engine.GameState, seat: int, move: MoveInfo, other: MoveInfo) -> Comparison:
    """`move` against `other` for `seat` (both moves of `state`, with their numbers)."""
    view = state.view(seat)
    win = (None if move.win_probability is None or other.win_probability is None
           else move.win_probability - other.win_probability)
    money = (move.expected_money[seat] - other.expected_money[seat]
             if move.expected_money and other.expected_money else 0.0)
    diffs = compare_lines(view, move.pv or [move.action], other.pv or [other.action], seat)
    described = engine.describe_move(view, other.action)
    parts = [] if win is None else [f"win probability {_percent_points(win)}"]
    parts.append(f"expected money {_money(money)}")
    words = f"Against “{described}”: " + ", ".join(parts)
    if diffs:
        words += "; " + "; ".join(_clause(d.words) for d in diffs[:2])
    return Comparison(other.action, described, win, money, diffs, words)


def explain_move(state: engine.GameState, seat: int, move: MoveInfo,
                 other: MoveInfo | None = None) -> Explanation:
    """Why `move` (a move of `state`, `seat` to move), against `other` when given."""
    view = state.view(seat)
    line = move.pv or [move.action]
    now = sorted(line_effects(view, line, seat), key=lambda r: -importance(r))
    scoring = sorted(scoring_changes(view, line, seat), key=lambda r: -abs(r.change))
    after = play_line(view, line)
    steps = line_words(after, move.line_after, seat) if move.line_after else []
    versus = compare(view, seat, move, other) if other is not None else None
    parts = []
    if now:
        parts.append("Now: " + "; ".join(_clause(r.words) for r in now[:2]))
    if scoring:
        parts.append("final scoring as it stands: " + "; ".join(
            f"{SCORING_WORDS[r.subject]} {_money(r.change)}" for r in scoring[:2]))
    if versus is not None:
        parts.append(_clause(versus.words))
    words = ". ".join(p[:1].upper() + p[1:] for p in parts) if parts else "Changes nothing now"
    return Explanation(move.action, now, scoring, steps, versus, words)


def explain_analysis(state: engine.GameState, analysis: Analysis,
                     max_moves: int = MAX_EXPLAINED) -> list[Explanation]:
    """Explanations of the first `max_moves` moves of `analysis` (a search of `state`),
    each set on its MoveInfo too: the best against the next best, the others against
    the best."""
    moves = analysis.moves[:max_moves]
    out = []
    for i, m in enumerate(moves):
        other = (analysis.moves[1] if len(analysis.moves) > 1 else None) if i == 0 \
            else analysis.moves[0]
        m.explanation = explain_move(state, analysis.player, m, other)
        out.append(m.explanation)
    return out


def explain_choice(state: engine.GameState, seat: int, played: MoveInfo, best: MoveInfo,
                   analysis: Analysis) -> None:
    """Set the explanations of a reviewed decision: the played move against the best
    one and the best against the played, or, when the best move was played, it against
    the next best."""
    if played.action != best.action:
        played.explanation = explain_move(state, seat, played, best)
        best.explanation = explain_move(state, seat, best, played)
        return
    other = next((m for m in analysis.moves if m.action != best.action), None)
    best.explanation = explain_move(state, seat, best, other)
    played.explanation = best.explanation
