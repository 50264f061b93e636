"""``gallerist analyze``: a whole game reviewed by a bot (`ai.review.analysis`): for every decision
of the chosen seats, the evaluation before the move, the move played and the best move,
the loss and its label, and why (the move played explained against the best one); written
as JSON Lines, summarised per player with each one's biggest mistakes. Positions run in
parallel on worker processes with a progress bar; Ctrl-C keeps what was analyzed (the
file is written with ``"complete": false``, exit status 130)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from gallerist.ai.files import write_atomically
from gallerist.ai.review.analysis import BIGGEST_MISTAKES, SOLO_THRESHOLDS, THRESHOLDS
from gallerist.ai.bots.spec import DEFAULT_BOT
from gallerist.ai.words import counted
from gallerist.cli.commands import CliError
from gallerist.cli.commands.model_option import add_model_option
from gallerist.cli.commands.options import (
    LOCAL_LIMITS,
    MAX_UINT32,
    add_command,
    add_notation_option,
    check_output_path,
    game_index,
    int_range,
    seed_value,
    worker_count,
)

__all__ = ["add", "run"]

#: Time per position when neither --time-ms nor --iterations is given, ms.
DEFAULT_TIME_MS = 200


def add(sub: Any) -> None:
    """Add ``analyze`` to the subcommands."""
    p = add_command(
        sub, "analyze", run, help="review a recorded game: every move against the best",
        description="Analyze every decision of a game (a JSON Lines record of `gallerist "
                    "arena` or `play`, or a JSON move list {\"seed\", \"players\", \"moves\"}) "
                    "with a bot: the evaluation before the move, the move played and the best "
                    "move, the win probability lost (solo: $) and a label ("
                    + ", ".join(f"{k} >= {v:g}" for k, v in THRESHOLDS.items()) + "; solo $"
                    + ", $".join(f"{v:g}" for v in SOLO_THRESHOLDS.values()) + "). Writes JSON "
                    "Lines and prints a summary per player. Ctrl-C keeps what was analyzed.")
    p.add_argument("record", metavar="RECORD", help="a game record file (JSON Lines), a self-play directory or a move list (JSON)")
    p.add_argument("--game", type=game_index, default=None,
                   help="game number (the record's `game`; default: the file's first game)")
    p.add_argument("--run", default=None, help="run id, when several runs of the file have the game")
    p.add_argument("--bot", default=DEFAULT_BOT, metavar="SPEC",
                   help=f"bot spec (default {DEFAULT_BOT})")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--time-ms", type=int_range(1, MAX_UINT32), default=None, metavar="T",
                        help=f"search time per position in ms (default {DEFAULT_TIME_MS}); a "
                             "played move the search barely visited gets a quarter more")
    budget.add_argument("--iterations", type=int_range(1, MAX_UINT32), default=None, metavar="K",
                        help="MCTS iterations per position instead of a time")
    p.add_argument("--seats", default=None, metavar="0,1",
                   help="the seats whose decisions to analyze (default: all)")
    p.add_argument("--workers", type=worker_count, default=None, metavar="W",
                   help="positions analyzed in parallel (default: every core)")
    p.add_argument("--seed", type=seed_value, default=0, help="search seed (default 0)")
    add_model_option(p)
    p.add_argument("--top", type=int_range(1, 200), default=5, metavar="N",
                   help="best moves listed per position (default 5)")
    p.add_argument("--out", default=None, metavar="FILE.jsonl",
                   help="output file (default: RECORD's name with .analysis.jsonl, here)")
    p.add_argument("--html", default=None, metavar="FILE.html",
                   help="also write the review page of the analysis (`gallerist review`)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_notation_option(p, "the mistakes and blunders and the biggest mistakes listed after "
                           "the table name the move played and the best one by notation")


def _seats(text: str | None, players: int) -> list[int]:
    if text is None:
        return list(range(players))
    try:
        seats = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise CliError(f"--seats {text!r}: expected seat numbers separated by commas, e.g. 0,1") from None
    bad = [s for s in seats if not 0 <= s < players]
    if not seats or bad or len(set(seats)) != len(seats):
        raise CliError(f"--seats {text!r}: give distinct seats in 0..{players - 1}")
    return seats


def _write(path: str, lines: list[dict[str, Any]]) -> None:
    """Write the lines atomically (a temporary file renamed)."""
    write_atomically(path, lambda fh: fh.writelines(json.dumps(line) + "\n" for line in lines),
                     mode="w", encoding="utf-8")


def strength_words(strength: dict[str, Any]) -> str:
    """A summary's strength estimate in words ("played like level 4 (about ...)")."""
    from gallerist.ai.review.strength import Strength, describe

    return describe(Strength(strength["elo"], tuple(strength["ci"]), strength["level"]))


def _table(summary: dict[str, Any], unit: str) -> str:
    rows = [f"{'seat':<5}{'player':<28}{'decisions':>10}{'avg loss':>10}"
            f"{'inaccuracies':>14}{'mistakes':>10}{'blunders':>10}"]
    for p in summary["players"]:
        c = p["counts"]
        loss = f"{p['average_loss']:.3f}" if unit == "win probability" else f"${p['average_loss']:.1f}"
        rows.append(f"{p['seat']:<5}{p['name'][:27]:<28}{p['decisions']:>10}{loss:>10}"
                    f"{c['inaccuracy']:>14}{c['mistake']:>10}{c['blunder']:>10}")
    rows += [f"seat {p['seat']} {strength_words(p['strength'])}"
             for p in summary["players"] if p.get("strength")]
    return "\n".join(rows)


def _name(move: dict[str, Any], notation: bool) -> str:
    """A move of a position line: in words (its `description`), or by notation."""
    return move["move"] if notation or not move.get("description") else move["description"]


def _loss(loss: float, unit: str) -> str:
    return f"{loss:.2f}" if unit == "win probability" else f"${loss:.1f}"


def _worst_moves(positions: list[dict[str, Any]], unit: str, notation: bool) -> list[str]:
    """The mistakes and blunders in game order, each move played with the best one (in
    words, the lines' `description`, or by notation) and why the move played is worse
    (its explanation against the best move, one line)."""
    rows = []
    for p in positions:
        if p["label"] in ("mistake", "blunder"):
            rows += [f"  move {p['ply']}, seat {p['player']}, {p['label']} "
                     f"(loss {_loss(p['loss'], unit)}): {_name(p['played'], notation)}",
                     f"      best: {_name(p['best'], notation)}"]
            why = (p["played"].get("explanation") or {}).get("words")
            if why:
                rows.append(f"      why: {why}")
    return ["Mistakes and blunders (the move played, then the best):", *rows] if rows else []


def _biggest_mistakes(summary: dict[str, Any], unit: str, notation: bool) -> list[str]:
    """Per seat, its largest losses (the summary's `biggest_mistakes`, largest first):
    the move, the move played and the better one, the loss and why."""
    rows = []
    for p in summary["players"]:
        mistakes = p.get("biggest_mistakes") or []
        if not mistakes:
            continue
        rows.append(f"  seat {p['seat']} ({p['name']}):")
        for m in mistakes:
            label = f", {m['label']}" if m.get("label") else ""
            played = m["played_move"] if notation else m["played"]
            best = m["best_move"] if notation else m["best"]
            rows += [f"    move {m['ply']} (loss {_loss(m['loss'], unit)}{label}): {played}",
                     f"        better: {best}"]
            if m.get("why"):
                rows.append(f"        why: {m['why']}")
    return [f"Biggest mistakes (each seat's {BIGGEST_MISTAKES} largest losses, largest first):",
            *rows] if rows else []


def _report(args: argparse.Namespace, game: Any, budget: Any, header: dict[str, Any],
            ordered: list[dict[str, Any]], summary: dict[str, Any], total: int) -> None:
    """Print what was analyzed: the table per seat, the worst moves, the biggest mistakes."""
    unit = header["thresholds"]["unit"]
    what = f"game {game.game}" if game.game is not None else "the game"
    per = counted(budget.iterations, "iteration") if budget.iterations else f"{budget.time_ms:g} ms"
    print(f"{what} of {args.record}: {len(ordered)} of {counted(total, 'decision')} analyzed by "
          f"{args.bot} ({per} per position); loss in {unit}")
    print(_table(summary, unit))
    for line in _worst_moves(ordered, unit, args.notation):
        print(line)
    for line in _biggest_mistakes(summary, unit, args.notation):
        print(line)


def run(args: argparse.Namespace) -> int:
    """``gallerist analyze``."""
    from tqdm import tqdm

    from gallerist.ai.values import Budget
    from gallerist.ai.review.analysis import analyze_game, header_line, summary_line
    from gallerist.ai.review.games import GameInputError, read_game
    from gallerist.ai.bots.spec import model_used, resolved_spec
    from gallerist.server.limits import RequestError, build_bot, check_spec

    try:
        game = read_game(args.record, args.game, args.run)
    except OSError as exc:
        raise CliError(f"cannot read {args.record}: {exc.strerror or exc}") from None
    except GameInputError as exc:
        raise CliError(str(exc)) from None
    seats = _seats(args.seats, game.players)
    try:
        check_spec(args.bot, LOCAL_LIMITS, field="--bot")
        made = build_bot(args.bot, 0, field="--bot")
    except RequestError as exc:
        raise CliError(str(exc)) from None
    out = args.out or Path(args.record).name.rsplit(".", 1)[0] + ".analysis.jsonl"
    check_output_path(out, "--out")
    if args.html:
        check_output_path(args.html, "--html")
    budget = (Budget(iterations=args.iterations) if args.iterations is not None
              else Budget(time_ms=float(args.time_ms or DEFAULT_TIME_MS)))
    workers = args.workers or os.cpu_count() or 1
    header = header_line(game, source=args.record, bot=args.bot, budget=budget,
                         resolved_bot=resolved_spec(args.bot, made, game.players),
                         model=model_used(made, game.players))
    total = len(game.decisions(seats))
    done: dict[int, dict[str, Any]] = {}
    complete = False
    failure: Exception | None = None
    positions = analyze_game(game, args.bot, budget, seats=seats, workers=workers,
                             seed=args.seed, max_moves=args.top)
    bar = tqdm(total=total, unit="pos", desc="analysing", disable=args.no_progress,
               file=sys.stderr)
    try:
        for line in positions:
            done[line["ply"]] = line
            bar.update(1)
        complete = True
    except KeyboardInterrupt:
        print(f"\ninterrupted: keeping the {len(done)} of {counted(total, 'position')} analyzed",
              file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - a search failed in a worker: keep the rest
        failure = exc
    finally:
        positions.close()
        bar.close()
    ordered = [done[k] for k in sorted(done)]
    summary = summary_line(game, ordered, seats, complete)
    try:
        _write(out, [header, *ordered, summary])
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc.strerror or exc}", status=1) from None
    if failure is not None:
        raise CliError(f"the analysis stopped after {len(ordered)} of {counted(total, 'position')} "
                       f"(written to {out}): {type(failure).__name__}: {failure}", status=1)
    _report(args, game, budget, header, ordered, summary, total)
    print(f"wrote {out}")
    if args.html and ordered:
        from gallerist.ai.review.page import ReviewError, write_review_page
        try:
            write_review_page(out, args.html)
        except (ReviewError, OSError) as exc:
            raise CliError(f"cannot write the review page {args.html}: {exc}", status=1) from None
        print(f"wrote {args.html} (the review page)")
    return 0 if complete else 130
