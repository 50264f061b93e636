"""The review of a finished hosted game: the person's decisions analyzed (as
`gallerist analyze` does) and the review page made from them."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from gallerist.ai.values import Budget
from gallerist.ai.bots.spec import model_used, resolved_spec
from gallerist.ai.review.analysis import analyze_game, header_line, summary_line
from gallerist.ai.review.games import game_from_moves
from gallerist.ai.review.page import read_analysis, review_html
from gallerist.server.limits import Limits, RequestError, build_bot, check_spec
from gallerist.server.play.games import HostedGame
from gallerist.v1 import hints_pb2, play_pb2

__all__ = ["DEFAULT_REVIEW_ITERATIONS", "MAX_REVIEW_ITERATIONS", "review_game"]

#: iterations of each decision's search when the request gives none
DEFAULT_REVIEW_ITERATIONS = 200
#: the most a request may ask for: a whole game's review stays within seconds
MAX_REVIEW_ITERATIONS = 2000


def review_game(game: HostedGame, iterations: int, limits: Limits) -> Any:
    """The GameReview of a finished game (the caller holds its lock and a search slot).

    Raises:
        RequestError: `iterations` above the server's limit.
    """
    iterations = iterations or DEFAULT_REVIEW_ITERATIONS
    most = min(MAX_REVIEW_ITERATIONS, limits.max_iterations)
    if iterations > most:
        raise RequestError("iterations", f"{iterations} is above the {most} iterations a "
                                         "review may ask for each decision")
    spec = limits.default_bot
    check_spec(spec, limits, field="the server's default bot")
    moves = [int(a) for a in game.state.history]
    played = game_from_moves(game.seed, game.players, moves, names=game.names(),
                             field_name="history")
    budget = Budget(iterations=iterations)
    made = build_bot(spec, 0)
    header = header_line(played, source="a game played on the /play page", bot=spec,
                         budget=budget, resolved_bot=resolved_spec(spec, made, game.players),
                         model=model_used(made, game.players))
    lines = sorted(analyze_game(played, spec, budget, seats=[game.seat], workers=1,
                                seed=game.seed % (1 << 62)), key=lambda line: line["ply"])
    summary = summary_line(played, lines, [game.seat], True)
    with tempfile.TemporaryDirectory(prefix="gallerist-review-") as tmp:
        path = Path(tmp) / "game.analysis.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines, summary]),
                        encoding="utf-8")
        head, positions, read_summary = read_analysis(path)
        html = review_html(head, positions, read_summary)
    out = play_pb2.GameReview(html=html, decisions=len(lines), bot=spec)
    strength = summary["players"][0].get("strength")
    if strength:
        out.strength.CopyFrom(hints_pb2.SeatStrength(
            seat=game.seat, elo=strength["elo"], elo_low=strength["ci"][0],
            elo_high=strength["ci"][1], level=strength["level"] or 0))
    return out
