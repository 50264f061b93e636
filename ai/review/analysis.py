"""Game analysis (lichess's game review, KataGo's analyzeTurns): every decision of a game
searched by a bot, the move played compared with the best move, and the loss labelled.

`analyze_position` analyzes one decision (and explains the move played and the best one,
`ai.explain`), `analyze_game` a whole game on worker processes; `gallerist analyze` and the
AnalyzeGame rpc use both. How the loss is found and the JSON Lines written are in
docs/records.md ("Game analysis").
"""
from __future__ import annotations

import dataclasses
import json
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from gallerist import engine
from gallerist.ai.bots.base import MoveRestrictionError
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.ai.explain import Explanation, explain_choice
from gallerist.engine.line_effects import Reason
from gallerist.ai.review.games import GameInput
from gallerist.ai.signals import worker_signals, worker_start_method

__all__ = ["BIGGEST_MISTAKES", "LABELS", "PLAYED_MIN_VISITS", "PLAYED_SHARE", "SOLO_THRESHOLDS",
           "THRESHOLDS", "PositionReview", "analyze_game", "analyze_position", "biggest_losses",
           "biggest_mistakes", "explanation_json", "header_line", "label_for", "position_line",
           "position_seed", "summary_line", "thresholds_for"]

#: Loss of win probability (0..1) from which a move is an inaccuracy, a mistake, a blunder.
THRESHOLDS: dict[str, float] = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}
#: Solo (no one to beat): loss of expected final money, $.
SOLO_THRESHOLDS: dict[str, float] = {"inaccuracy": 5.0, "mistake": 10.0, "blunder": 20.0}
#: The labels, mildest first.
LABELS = ("inaccuracy", "mistake", "blunder")
#: A played move with fewer visits than this (and fewer than the best move's) is
#: evaluated by a second search with only it at the root.
PLAYED_MIN_VISITS = 100
#: The share of the position's budget that second search gets (on top of the first's).
PLAYED_SHARE = 0.25
#: How many of a seat's largest losses a summary lists ("biggest mistakes").
BIGGEST_MISTAKES = 5

Search = Callable[[Budget, "list[int] | None"], Analysis]


def thresholds_for(players: int) -> dict[str, float]:
    """The label thresholds of a game of `players` (solo: in $)."""
    return SOLO_THRESHOLDS if players == 1 else THRESHOLDS


def label_for(loss: float, players: int) -> str | None:
    """The label of a loss: None, "inaccuracy", "mistake" or "blunder"."""
    t = thresholds_for(players)
    out = None
    for name in LABELS:
        if loss >= t[name]:
            out = name
    return out


@dataclass
class PositionReview:
    """One analyzed decision.

    Attributes:
        ply: index of the move in the game's action list.
        player: the seat that moved.
        state: the position before the move.
        analysis: the bot's analysis of the position (moves best first).
        played: the move played, evaluated (from `analysis` or the second search).
            It and `best` carry their explanations (`MoveInfo.explanation`,
            `ai.explain.explain_choice`): the played move against the best one and the
            best against the played one (when the best move was played: against the next
            best).
        loss: best's win probability minus played's for the mover, >= 0 (solo: $).
        label: None, "inaccuracy", "mistake" or "blunder".
        searches: 1, or 2 when the played move needed its own search.
    """

    ply: int
    player: int
    state: engine.GameState
    analysis: Analysis
    played: MoveInfo
    loss: float
    label: str | None
    searches: int = 1

    @property
    def best(self) -> MoveInfo:
        return self.analysis.best


def share(budget: Budget, share: float) -> Budget:
    """`share` of a budget's iterations and time (at least 1 iteration / 1 ms)."""
    return dataclasses.replace(
        budget, iterations=max(1, int(budget.iterations * share)) if budget.iterations else 0,
        time_ms=max(1.0, budget.time_ms * share) if budget.time_ms else 0.0)


def _score(move: MoveInfo, player: int, players: int) -> float:
    """What the loss compares: the mover's win probability (solo: expected money)."""
    if players == 1 or move.win_probability is None:
        return float(move.expected_money[player])
    return float(move.win_probability)


def analyze_position(state: engine.GameState, played: int, search: Search, budget: Budget,
                     *, ply: int = 0) -> PositionReview:
    """Analyze one decision.

    Args:
        state: the position before the move (a decision point).
        played: the action played there.
        search: `search(budget, moves)` runs the bot on `state` (moves: the root
            restriction, or None) and returns its analysis.
        budget: the budget of the main search (the played move's own search, when
            needed, gets `PLAYED_SHARE` of it).
        ply: the move's index in the game, for the record.

    Returns:
        The review of the decision, the played and best moves explained
        (`ai.explain.explain_choice`, about a millisecond).
    """
    player = int(state.current_player)
    n = state.num_players
    analysis = search(budget, None)
    best = analysis.best
    found = next((m for m in analysis.moves if m.action == played), None)
    searches = 1
    weak = (found is None or not found.expected_money
            or (analysis.iterations > 0 and found.visits < min(PLAYED_MIN_VISITS, best.visits)))
    if found is not None and found.action == best.action:
        weak = False
    if weak:
        try:
            again = search(share(budget, PLAYED_SHARE), [played])
        except MoveRestrictionError:   # a bot that cannot restrict its root (OpenSpiel's)
            if found is None or not found.expected_money:
                raise
        else:
            found = again.moves[0]
            searches = 2
    assert found is not None
    loss = max(0.0, _score(best, player, n) - _score(found, player, n))
    explain_choice(state, player, found, best, analysis)
    return PositionReview(ply=ply, player=player, state=state, analysis=analysis,
                          played=found, loss=loss, label=label_for(loss, n),
                          searches=searches)


# ---------------------------------------------------------------------------- JSON Lines

def _move_json(m: MoveInfo, words: dict[int, str], explained: bool = False) -> dict[str, Any]:
    """A move of an analysis line; `words`: the position's moves in words; `explained`:
    with its explanation (`explanation_json`, null when it has none)."""
    out = {"action": m.action, "move": m.notation, "description": words.get(m.action, ""),
           "win_probability": None if m.win_probability is None else float(m.win_probability),
           "expected_money": [float(x) for x in m.expected_money]}
    if explained:
        out["explanation"] = explanation_json(m.explanation)
    return out


def _reason_json(r: Reason) -> dict[str, Any]:
    return {"kind": r.kind, "subject": r.subject, "before": float(r.before),
            "after": float(r.after), "words": r.words}


def explanation_json(e: Explanation | None) -> dict[str, Any] | None:
    """An `ai.explain.Explanation` as the JSON object of an analysis line (None: null):
    `words`, `now`, `scoring` (reasons: kind, subject, before, after, words), `line` and
    `versus` (action, description, win_probability, expected_money, differences, words;
    null when there is no other move)."""
    if e is None:
        return None
    versus = None
    if e.versus is not None:
        v = e.versus
        versus = {"action": v.action, "description": v.description,
                  "win_probability": None if v.win_probability is None else float(v.win_probability),
                  "expected_money": float(v.expected_money),
                  "differences": [_reason_json(r) for r in v.differences], "words": v.words}
    return {"words": e.words, "now": [_reason_json(r) for r in e.now],
            "scoring": [_reason_json(r) for r in e.scoring], "line": list(e.line),
            "versus": versus}


def header_line(game: GameInput, *, source: str, bot: str, budget: Budget,
                resolved_bot: str = "", model: str = "") -> dict[str, Any]:
    """The first line of an analysis file. `bot` is the spec as given, `resolved_bot`
    the bot as it searched this game (`ai.bots.spec.resolved_spec`: every option, prior=auto
    written out) and `model` the model files it read (`ai.bots.spec.model_used`: "name@sha256
    prefix", "" for none)."""
    unit = "$ (solo)" if game.players == 1 else "win probability"
    return {"type": "header", "format": "gallerist-analysis", "format_version": 1,
            "source": source, "game": game.game, "bot": bot,
            "bot_resolved": resolved_bot or bot, "model": model,
            "time_ms": budget.time_ms or None, "iterations": budget.iterations or None,
            "players": game.players, "names": list(game.names),
            "setup": dict(game.setup) or {"seed": game.seed, "players": game.players},
            "thresholds": {**thresholds_for(game.players), "unit": unit},
            "played_min_visits": PLAYED_MIN_VISITS, "played_share": PLAYED_SHARE}


def position_line(review: PositionReview, max_moves: int = 5) -> dict[str, Any]:
    """One analyzed decision as its line of the analysis file (the moves in words as the
    mover sees them, `engine.describe_moves`)."""
    a = review.analysis
    root = a.root
    words = engine.describe_moves(review.state.view(review.player))
    return {"type": "position", "ply": review.ply, "player": review.player,
            "state": json.loads(review.state.to_json()),
            "root": {"win_probabilities": list(root.win_probabilities) or None,
                     "expected_money": list(root.expected_money)},
            "played": _move_json(review.played, words, explained=True),
            "best": _move_json(review.best, words, explained=True),
            "moves": [_move_json(m, words) for m in a.moves[:max_moves]],
            "loss": review.loss, "label": review.label,
            "legal_moves": len(review.state.legal_actions()), "searches": review.searches}


_T = TypeVar("_T")


def biggest_losses(items: Iterable[_T], loss: Callable[[_T], float], ply: Callable[[_T], int],
                   n: int = BIGGEST_MISTAKES) -> list[_T]:
    """The `n` items with the largest losses, largest first (equal losses: the earlier
    move first); moves that lost nothing are left out."""
    return sorted((x for x in items if loss(x) > 0), key=lambda x: (-loss(x), ply(x)))[:n]


def _move_words(move: dict[str, Any]) -> str:
    return str(move.get("description") or move.get("move") or "")


def biggest_mistakes(positions: Iterable[dict[str, Any]], seat: int,
                     n: int = BIGGEST_MISTAKES) -> list[dict[str, Any]]:
    """The `n` largest losses of `seat` among position lines, largest first, each as
    {"ply", "played", "played_move", "best", "best_move", "loss", "label", "why"}: the
    moves in words (`played`, `best`) and by notation (`*_move`), and the played move's
    explanation against the best one in one line ("" when the line has none)."""
    mine = [p for p in positions if p.get("player") == seat]
    out = []
    for p in biggest_losses(mine, lambda p: float(p["loss"]), lambda p: int(p["ply"]), n):
        played, best = p["played"], p["best"]
        why = (played.get("explanation") or {}).get("words") or ""
        out.append({"ply": p["ply"], "played": _move_words(played),
                    "played_move": played.get("move", ""), "best": _move_words(best),
                    "best_move": best.get("move", ""), "loss": p["loss"],
                    "label": p.get("label"), "why": why})
    return out


def summary_line(game: GameInput, positions: Sequence[dict[str, Any]], seats: Sequence[int],
                 complete: bool) -> dict[str, Any]:
    """The last line: per seat, decisions analyzed, average loss, counts per label, the
    playing strength they suggest (ai.review.strength; None where there is none) and
    the seat's biggest mistakes (`biggest_mistakes`)."""
    from gallerist.ai.review.strength import StrengthModel, strength_of

    model = StrengthModel.load()
    players = []
    for seat in seats:
        mine = [p for p in positions if p["player"] == seat]
        counts = {name: sum(1 for p in mine if p["label"] == name) for name in LABELS}
        loss = sum(p["loss"] for p in mine) / len(mine) if mine else 0.0
        strength = strength_of(game.players, len(mine), loss, counts, model) if model else None
        players.append({"seat": seat, "name": game.names[seat], "decisions": len(mine),
                        "average_loss": loss, "counts": counts,
                        "strength": strength.to_json() if strength else None,
                        "biggest_mistakes": biggest_mistakes(mine, seat)})
    return {"type": "summary", "players": players, "complete": complete}


# ---------------------------------------------------------------------------- in parallel

@dataclass(frozen=True)
class _Job:
    spec: str
    seed: int
    players: int
    setup_seed: int
    actions: tuple[int, ...]    # the history up to and including the move played
    ply: int
    budget: Budget
    max_moves: int


def position_seed(seed: int, ply: int) -> int:
    """The seed of the search of move `ply` of a game analyzed with `seed`."""
    return (seed * 1_000_003 + ply * 7919 + 1) % (1 << 63)


def _run_job(job: _Job) -> dict[str, Any]:
    from gallerist.ai.bots.spec import make_bot

    state = engine.new_game(num_players=job.players, seed=job.setup_seed)
    for a in job.actions[:-1]:
        state.apply(a)
    bot = make_bot(job.spec, position_seed(job.seed, job.ply))

    def search(budget: Budget, moves: list[int] | None) -> Analysis:
        return bot.analyze(state, budget, moves=moves)

    review = analyze_position(state, job.actions[-1], search, job.budget, ply=job.ply)
    return position_line(review, job.max_moves)


def analyze_game(game: GameInput, spec: str, budget: Budget, *, seats: Sequence[int] | None = None,
                 workers: int = 1, seed: int = 0, max_moves: int = 5) -> Iterator[dict[str, Any]]:
    """Analyze the decisions of `seats` (all when None) on `workers` processes.

    Yields:
        Position lines (`position_line`) as they finish, in any order (each has its
        ply). Closing the generator (or an exception in the caller, e.g. Ctrl-C)
        terminates the workers.
    """
    jobs = [_Job(spec, seed, game.players, game.seed, tuple(game.actions[:ply + 1]), ply,
                 budget, max_moves)
            for ply, _ in game.decisions(seats)]
    if workers <= 1:
        for job in jobs:
            yield _run_job(job)
        return
    ctx = multiprocessing.get_context(worker_start_method())
    pool = ctx.Pool(processes=min(workers, max(1, len(jobs))), initializer=worker_signals)
    try:
        yield from pool.imap_unordered(_run_job, jobs, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()
