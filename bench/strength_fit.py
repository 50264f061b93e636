"""Fit the map from a game's analysis to the player's Elo (ai.review.strength) on the
ladder's own games, and check it on held-out ones.

Games of rated rungs and levels are analyzed by the default bot at a fixed iteration
budget (each analysis cached in --cache, so a run continues): --per-rung games of each
rated bot for the fit, then --held-out other games, one rung after another. The map is
least squares of the bot's ladder Elo on log(average loss) and the share of mistakes and
blunders, with a 95% prediction interval; the check counts how often the interval of a
held-out seat's estimate holds its bot's rating. Target: at least 90%. Expectimax is
left out by default (--exclude-family): its depth-limited play loses in ways that one
game's move-by-move loss does not show, so the map places it far above its rating.

Usage:
    python bench/strength_fit.py --records bench/data/ladder/ladder-games.jsonl \
        --ratings bench/data/ladder/ladder.json [--per-rung 6] [--held-out 40] \
        [--iterations 1000] [--workers 2] [--cache bench/data/strength/analyses.jsonl] \
        [--write ai/review/strength.json] [--out bench/data/strength/fit.json]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
from collections import defaultdict
from typing import Any

from gallerist.ai.values import Budget
from gallerist.ai.review.analysis import LABELS, analyze_game, summary_line
from gallerist.ai.review.games import game_from_record
from gallerist.ai.review.strength import describe, fit

ANALYZER = "mcts:prior=auto,threads=1"


def _key(rec: dict[str, Any]) -> str:
    return f"{rec['seed']}|{'|'.join(rec['bots'])}"


def analyze_one(args: tuple[dict[str, Any], int]) -> dict[str, Any]:
    """Both seats' summaries of one recorded game."""
    rec, iterations = args
    game = game_from_record(rec)
    positions = list(analyze_game(game, ANALYZER, Budget(iterations=iterations), seed=1))
    summary = summary_line(game, positions, list(range(game.players)), True)
    return {"key": _key(rec), "bots": rec["bots"], "iterations": iterations,
            "seats": [{"decisions": p["decisions"], "average_loss": p["average_loss"],
                       "counts": p["counts"]} for p in summary["players"]]}


def choose_games(records: list[dict[str, Any]], rated: dict[str, float], per_rung: int,
                 held_out: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Training games (about `per_rung` per rated bot) and `held_out` other games taken
    one rung after another, both in a fixed order."""
    usable = sorted((r for r in records if r.get("complete", True) and len(r["bots"]) == 2
                     and all(b in rated for b in r["bots"])), key=lambda r: (r["seed"], r["bots"]))
    by_bot: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in usable:
        for b in dict.fromkeys(r["bots"]):
            by_bot[b].append(r)
    taken: set[str] = set()
    train: list[dict[str, Any]] = []
    for bot in sorted(by_bot, key=lambda b: rated[b]):
        mine = [r for r in by_bot[bot] if _key(r) in taken]
        for r in by_bot[bot]:
            if len(mine) >= per_rung:
                break
            if _key(r) not in taken:
                taken.add(_key(r))
                train.append(r)
                mine.append(r)
    test: list[dict[str, Any]] = []
    order = sorted(by_bot, key=lambda b: rated[b])
    while len(test) < held_out and any(any(_key(r) not in taken for r in by_bot[b]) for b in order):
        for bot in order:
            r = next((r for r in by_bot[bot] if _key(r) not in taken), None)
            if r is not None and len(test) < held_out:
                taken.add(_key(r))
                test.append(r)
    return train, test


def loss_table(rows: list[tuple[int, float, dict[str, int], float, str]],
               ladder: dict[str, Any]) -> list[dict[str, Any]]:
    """Per rated bot, weakest first: seat-games analyzed, mean average loss per decision,
    and inaccuracies, mistakes and blunders per game."""
    name = {r["spec"]: r["rung"] for r in ladder["rungs"]}
    by_bot: dict[str, list[tuple[int, float, dict[str, int], float, str]]] = defaultdict(list)
    for row in rows:
        by_bot[row[4]].append(row)
    out = []
    for bot, mine in sorted(by_bot.items(), key=lambda kv: kv[1][0][3]):
        n = len(mine)
        out.append({"rung": name.get(bot, bot), "elo": mine[0][3], "games": n,
                    "average_loss": sum(r[1] for r in mine) / n,
                    **{f"{label}s" if label != "inaccuracy" else "inaccuracies":
                       sum(r[2].get(label, 0) for r in mine) / n for label in LABELS}})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", nargs="+", required=True, help="ladder game records")
    ap.add_argument("--ratings", required=True, help="ladder.json of `gallerist ladder`")
    ap.add_argument("--per-rung", type=int, default=6)
    ap.add_argument("--exclude-family", default="expectimax",
                    help="bot families left out of the fit and the check (comma-separated; "
                         "default expectimax, whose depth-limited play loses in ways one "
                         "game's move-by-move loss does not show; '' for none)")
    ap.add_argument("--held-out", type=int, default=40)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", default="bench/data/strength/analyses.jsonl")
    ap.add_argument("--write", default=None, help="write the fitted map here")
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    with open(args.ratings, encoding="utf-8") as fh:
        ladder = json.load(fh)
    excluded = {f for f in args.exclude_family.split(",") if f}
    rated = {r["spec"]: r["elo"] for r in ladder["rungs"] if r["family"] not in excluded}
    levels = sorted((int(r["rung"].split("-")[1]), r["elo"]) for r in ladder["rungs"]
                    if r["family"] == "level")
    records = [json.loads(line) for path in args.records for line in open(path, encoding="utf-8")]
    train, test = choose_games(records, rated, args.per_rung, args.held_out)
    cached: dict[str, dict[str, Any]] = {}
    if os.path.exists(args.cache):
        for line in open(args.cache, encoding="utf-8"):
            row = json.loads(line)
            if row["iterations"] == args.iterations:
                cached[row["key"]] = row
    todo = [r for r in train + test if _key(r) not in cached]
    print(f"{len(train)} training games, {len(test)} held out; {len(todo)} to analyze at "
          f"{args.iterations} iterations", flush=True)
    os.makedirs(os.path.dirname(args.cache) or ".", exist_ok=True)
    with open(args.cache, "a", encoding="utf-8") as fh, \
            multiprocessing.get_context("fork").Pool(max(1, args.workers)) as pool:
        for i, row in enumerate(pool.imap_unordered(analyze_one, [(r, args.iterations) for r in todo])):
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            cached[row["key"]] = row
            if (i + 1) % 10 == 0:
                print(f"  analyzed {i + 1}/{len(todo)}", flush=True)

    def seat_rows(games: list[dict[str, Any]]) -> list[tuple[int, float, dict[str, int], float, str]]:
        out = []
        for r in games:
            for bot, seat in zip(r["bots"], cached[_key(r)]["seats"]):
                out.append((seat["decisions"], seat["average_loss"], seat["counts"], rated[bot], bot))
        return out

    analyzer = f"{ANALYZER}, {args.iterations} iterations"
    model = fit([row[:4] for row in seat_rows(train)], analyzer, levels)
    held = seat_rows(test)
    inside = 0
    print(f"map: Elo = {model.coef[0]:.0f} + {model.coef[1]:.0f} x log(loss + 0.002) + "
          f"{model.coef[2]:.0f} x (mistakes+blunders)/decisions; residual sd {model.sigma:.0f}")
    for d, loss, counts, elo, bot in held:
        s = model.estimate(d, loss, counts)
        inside += s.ci[0] <= elo <= s.ci[1]
    coverage = inside / len(held) if held else 0.0
    print(f"held out: {len(test)} games, {len(held)} seats; the 95% interval holds the bot's "
          f"rating for {inside} ({100 * coverage:.0f}%)")
    table = loss_table(seat_rows(train + test), ladder)
    print(f"{'bot':<16}{'Elo':>6}{'games':>6}{'avg loss':>9}{'inacc/game':>11}"
          f"{'mist/game':>10}{'blund/game':>11}")
    for row in table:
        print(f"{row['rung']:<16}{row['elo']:>6.0f}{row['games']:>6}{row['average_loss']:>9.4f}"
              f"{row['inaccuracies']:>11.2f}{row['mistakes']:>10.2f}{row['blunders']:>11.2f}")
    example = model.estimate(*held[0][:3]) if held else None
    if example:
        print(f"e.g. {held[0][4]} ({held[0][3]:.0f} Elo): {describe(example)}")
    if args.write:
        with open(args.write, "w", encoding="utf-8") as fh:
            json.dump(model.to_json(), fh, indent=1)
    if args.out:
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"analyzer": analyzer, "excluded_families": sorted(excluded),
                       "train_games": len(train), "held_out_games": len(test),
                       "held_out_seats": len(held), "covered": inside, "coverage": coverage,
                       "model": model.to_json(), "labels": list(LABELS), "by_bot": table},
                      fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
