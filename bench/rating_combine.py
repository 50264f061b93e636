"""How a player's games combine into one rating (ai.review.strength.combine), fitted and
checked on the ladder's own games.

One game's estimate misses a player's rating by two parts: noise that averages out over
games, and a part that stays with the player (the map regresses weak players up and
strong ones down). Averaging k games shrinks only the first, so the combined interval is
mean +- 1.96 * sqrt(between^2 + within^2 / k). `between` is fitted by the method of
moments on the rated bots' games (each bot a player of known rating); the check draws k
games of each bot (k = 1, 2, 4, 8, 16) many times, with `between` fitted without that bot,
and counts how often the combined interval holds the bot's rating, against the 95% it
claims, beside the naive combination (between = 0).

Usage:
    python bench/rating_combine.py [--cache bench/data/strength/analyses.jsonl] \
        [--ratings bench/data/ladder/ladder.json] [--draws 200] [--write] [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import math
import random
from collections import defaultdict
from typing import Any

from gallerist.ai.review.strength import MODEL_FILE, Z95, Strength, StrengthModel, combine

#: bot families the map leaves out (bench/strength_fit.py --exclude-family)
EXCLUDED = ("expectimax",)


def residuals(cache: str, ratings: str, model: StrengthModel
              ) -> tuple[dict[str, list[Strength]], dict[str, float]]:
    """Each rated bot's per-game estimates, and its ladder rating."""
    ladder = json.load(open(ratings, encoding="utf-8"))
    rated = {r["spec"]: float(r["elo"]) for r in ladder["rungs"]}
    out: dict[str, list[Strength]] = defaultdict(list)
    for line in open(cache, encoding="utf-8"):
        row = json.loads(line)
        for bot, seat in zip(row["bots"], row["seats"]):
            if bot in rated and not bot.startswith(EXCLUDED) and seat["decisions"] > 0:
                out[bot].append(model.estimate(seat["decisions"], seat["average_loss"],
                                               seat["counts"]))
    return dict(out), rated


def fit_between(estimates: dict[str, list[Strength]], rated: dict[str, float]) -> float:
    """The part of one game's error that stays with the player (its SD, Elo): the method
    of moments on each bot's mean error, E[m^2] = between^2 + within^2 / n, with
    within^2 = total^2 - between^2."""
    rows = []
    for bot, ests in estimates.items():
        errs = [e.elo - rated[bot] for e in ests]
        total = sum(((e.ci[1] - e.ci[0]) / (2 * Z95)) ** 2 for e in ests) / len(ests)
        rows.append((sum(errs) / len(errs), len(errs), total))
    num = sum(m * m - total / n for m, n, total in rows) / len(rows)
    den = sum(1.0 - 1.0 / n for _, n, _ in rows) / len(rows)
    return math.sqrt(max(0.0, num / den))


def coverage(estimates: dict[str, list[Strength]], rated: dict[str, float], k: int,
             draws: int, naive: bool, seed: int = 0) -> tuple[int, int, float]:
    """(covered, tried, mean half-width) of k-game combinations, `between` fitted
    without the bot (0 when `naive`)."""
    rng = random.Random(seed)
    covered = tried = 0
    width = 0.0
    for bot, ests in sorted(estimates.items()):
        if len(ests) < k:
            continue
        others = {b: e for b, e in estimates.items() if b != bot}
        between = 0.0 if naive else fit_between(others, rated)
        for _ in range(draws):
            c = combine(rng.sample(ests, k), between)
            covered += c.ci[0] <= rated[bot] <= c.ci[1]
            tried += 1
            width += (c.ci[1] - c.ci[0]) / 2
    return covered, tried, width / max(1, tried)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default="bench/data/strength/analyses.jsonl")
    ap.add_argument("--ratings", default="bench/data/ladder/ladder.json")
    ap.add_argument("--draws", type=int, default=200, help="draws of k games per bot")
    ap.add_argument("--write", action="store_true",
                    help=f"store the fitted `between` in {MODEL_FILE}")
    ap.add_argument("--out", help="write the figures as JSON here")
    args = ap.parse_args(argv)
    model = StrengthModel.load()
    assert model is not None, "no strength map: run bench/strength_fit.py first"
    estimates, rated = residuals(args.cache, args.ratings, model)
    between = fit_between(estimates, rated)
    print(f"{len(estimates)} rated bots, {sum(map(len, estimates.values()))} seat-games; "
          f"one game's SD {model.sigma:.0f} Elo, of which stays with the player: "
          f"between = {between:.0f}")
    rows = []
    print(f"{'games':>5} {'combined (ours)':>26} {'naive (between 0)':>26}")
    for k in (1, 2, 4, 8, 16):
        ours = coverage(estimates, rated, k, args.draws, naive=False)
        naive = coverage(estimates, rated, k, args.draws, naive=True)
        if not ours[1]:
            continue
        rows.append({"games": k, "covered": ours[0], "tried": ours[1], "half_width": ours[2],
                     "naive_covered": naive[0], "naive_half_width": naive[2]})
        print(f"{k:>5} {100 * ours[0] / ours[1]:>9.1f}% of {ours[1]:>5} +-{ours[2]:>5.0f}"
              f" {100 * naive[0] / naive[1]:>9.1f}% of {naive[1]:>5} +-{naive[2]:>5.0f}")
    if args.write:
        with open(MODEL_FILE, encoding="utf-8") as fh:
            data: dict[str, Any] = json.load(fh)
        data["between_sd"] = round(between, 1)
        with open(MODEL_FILE, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
            fh.write("\n")
        print(f"between_sd {between:.1f} written to {MODEL_FILE}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"between_sd": between, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
