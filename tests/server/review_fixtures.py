"""Analyzed games in the `gallerist analyze` format (docs/records.md, "Game analysis"),
made here for the review page's tests: a game played by bots (random and greedy seats, random
alone in solo, so that some moves lose), every decision analyzed with the greedy bot's `analyze` (it scores
every legal move, so the played move is always among them), labelled by thresholds, the
played and best moves explained (`ai.explain.explain_choice`, as `analyze_position` does)
and each seat's biggest mistakes in the summary."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from gallerist import ai, engine
from gallerist.ai.explain import explain_choice
from gallerist.ai.review.analysis import biggest_mistakes, explanation_json

#: The label thresholds are the quantiles of the game's positive losses: the greedy
#: analyst's numbers move little, and the page's tests need moves of every label.
QUANTILES = {"inaccuracy": 0.25, "mistake": 0.5, "blunder": 0.8}


def _fields(move: Any, words: dict[int, str], explained: bool = False) -> dict[str, Any]:
    """A move of a position line, as `gallerist analyze` writes it (`words`: the
    position's moves in words, as the mover sees them; `explained`: with its explanation,
    as the played and best moves have it)."""
    out = {"action": move.action, "move": move.notation, "description": words[move.action],
           "win_probability": move.win_probability, "expected_money": list(move.expected_money)}
    if explained:
        out["explanation"] = explanation_json(move.explanation)
    return out


def _label(loss: float, thresholds: dict[str, float]) -> str | None:
    label = None
    for name in ("inaccuracy", "mistake", "blunder"):
        if loss >= thresholds[name]:
            label = name
    return label


def write_analysis(path: Path, players: int, seed: int = 0, max_positions: int | None = None,
                   complete: bool = True) -> list[dict[str, Any]]:
    """Play and analyze one game into `path` (JSON Lines); returns the position lines."""
    kinds = ["random" if p % 2 or players == 1 else "greedy" for p in range(players)]
    players_bots = [ai.make_bot(kind, seed=seed + p) for p, kind in enumerate(kinds)]
    analyst = ai.make_bot("greedy", seed=99)
    state = engine.new_game(num_players=players, seed=seed)
    rng = np.random.default_rng(seed)
    positions: list[dict[str, Any]] = []
    ply = 0
    while not state.is_terminal():
        if state.is_chance():
            outcomes = state.chance_outcomes()
            state.apply(outcomes[int(rng.integers(len(outcomes)))][0])
            ply += 1
            continue
        p = state.current_player
        action = players_bots[p].choose(state.view(p))
        if max_positions is None or len(positions) < max_positions:
            analysis = analyst.analyze(state.view(p))
            played = next(m for m in analysis.moves if m.action == action)
            best = analysis.best
            explain_choice(state, p, played, best, analysis)
            if players == 1:
                loss = max(0.0, best.expected_money[0] - played.expected_money[0])
            else:
                loss = max(0.0, best.win_probability - played.win_probability)
            root = analysis.root
            words = engine.describe_moves(state.view(p))
            positions.append({
                "type": "position", "ply": ply, "player": p,
                "state": json.loads(state.to_json()),
                "root": {"win_probabilities": None if players == 1 else list(root.win_probabilities),
                         "expected_money": list(root.expected_money)},
                "played": _fields(played, words, True), "best": _fields(best, words, True),
                "moves": [_fields(m, words) for m in analysis.moves[:5]],
                "loss": loss, "label": None})
        state.apply(action)
        ply += 1
    positive = [x["loss"] for x in positions if x["loss"] > 1e-9] or [1.0]
    thresholds = {k: float(np.quantile(positive, q)) for k, q in QUANTILES.items()}
    for x in positions:
        x["label"] = _label(x["loss"], thresholds) if x["loss"] > 1e-9 else None
    names = [f"{kind} (P{p})" for p, kind in enumerate(kinds)]
    header = {"type": "header", "format": "gallerist-analysis", "format_version": 1,
              "source": "test", "game": 0, "bot": "greedy", "time_ms": 0, "players": players,
              "names": names, "setup": {"seed": seed, "players": players},
              "thresholds": {**thresholds, "unit": "$ (solo)" if players == 1 else "win probability"}}
    summary = {"type": "summary", "players": [
        {"seat": p, "name": names[p],
         "decisions": sum(1 for x in positions if x["player"] == p),
         "average_loss": float(np.mean([x["loss"] for x in positions if x["player"] == p] or [0])),
         "counts": {k: sum(1 for x in positions if x["player"] == p and x["label"] == k)
                    for k in ("inaccuracy", "mistake", "blunder")},
         "biggest_mistakes": biggest_mistakes(positions, p)} for p in range(players)],
        "complete": complete}
    with open(path, "w", encoding="utf-8") as fh:
        for line in [header, *positions, summary]:
            fh.write(json.dumps(line) + "\n")
    return positions
