"""How the learned value improves with the number of self-play games: one fixed
set of held-out games, networks trained on nested subsets of growing size of the others,
each scored on the held-out positions.

For each size N (`--sizes`) the first N of the remaining games (shuffled by `--seed`) are
split again by game (`--val-fraction`, for early stopping only) and a network is trained
with `ai.learn.train.fit` (the options of `gallerist train`: `--hidden`, `--value-target`,
`--search-weight`, ...). Scored on the held-out 2-player positions, the own seat's win
probability against the real outcome: Brier score with a 95% bootstrap interval over
games, next to the constant 0.5 and the records' search estimate (``root_win``) on the
same positions. Writes a table, a JSON file and a PNG of Brier against games (log scale).

    python bench/value_scale.py /work/data/sp2-c --held-out 200 --sizes 100,200,400,800,1600
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from gallerist.ai.calibration import metrics as fm  # noqa: E402
from gallerist.ai.learn.linear_value import fit_ridge  # noqa: E402
from gallerist.ai.learn.data import load_records, split_by_game  # noqa: E402
from gallerist.ai.learn.options import check_options  # noqa: E402


def own_seat(data) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows of 2-player positions, the own seat's win share, the game of each row)."""
    rows = np.where(data.arrays["num_players"] == 2)[0]
    return rows, data.arrays["win_share"][rows, 0], data.arrays["group"][rows]


def brier_with_interval(p: np.ndarray, y: np.ndarray, games: np.ndarray, rounds: int,
                        seed: int) -> dict[str, float]:
    """Brier score of p against y, with a 95% bootstrap interval resampling whole games."""
    lo, hi = fm.bootstrap_by_group(fm.brier, games, p, y, rounds=rounds, seed=seed)
    return {"brier": fm.brier(p, y), "low": lo, "high": hi}


def ridge_forecast(train, obs: np.ndarray, lam: float) -> np.ndarray:
    """A linear forecast of the own seat's win share (2-player rows of `train`: ridge
    regression on the observation and a constant, L2 penalty `lam`), clipped to [0, 1]."""
    rows, y, _ = own_seat(train)
    w, b = fit_ridge(train.arrays["obs"][rows], np.asarray(y, np.float64)[:, None],
                     np.ones(len(rows), np.int8), lam)    # the same centred ridge, one column
    return np.clip(obs.astype(np.float64) @ w[:, 0].astype(np.float64) + float(b[0]), 0.0, 1.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", help="gallerist selfplay directories")
    ap.add_argument("--held-out", type=int, default=200, help="games held out for scoring")
    ap.add_argument("--sizes", default="100,200,400,800,1600",
                    help="training games per network, comma-separated (nested subsets)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the splits and the weights")
    ap.add_argument("--val-fraction", type=float, default=0.1,
                    help="share of each subset's games used for early stopping")
    ap.add_argument("--hidden", default="64,64")
    ap.add_argument("--value-target", default="search", choices=("outcome", "search", "playouts"))
    ap.add_argument("--search-weight", type=float, default=0.5)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--patience", type=int, default=5)
    ap.add_argument("--ridge", type=float, default=0.0, metavar="LAMBDA",
                    help="also score a ridge regression of the outcome on the observation "
                         "with this L2 penalty (0: none)")
    ap.add_argument("--rounds", type=int, default=500, help="bootstrap resamples")
    ap.add_argument("--out", default="value_scale.json")
    ap.add_argument("--png", default="value_scale.png")
    args = ap.parse_args(argv)
    try:
        sizes = sorted({int(x) for x in args.sizes.split(",") if x.strip()})
    except ValueError:
        ap.error(f"--sizes must be comma-separated integers, got {args.sizes!r}")
    if not sizes or sizes[0] < 2:
        ap.error("--sizes needs sizes of at least 2 games")

    from gallerist.ai.learn.train import fit, predict, value_targets

    data = load_records(args.data)
    games = np.unique(data.arrays["group"])
    if args.held_out < 1 or args.held_out + sizes[-1] > len(games):
        ap.error(f"{len(games)} games in the data: --held-out {args.held_out} plus the "
                 f"largest size {sizes[-1]} do not fit")
    order = np.random.default_rng(args.seed).permutation(games)
    test = data.take(np.isin(data.arrays["group"], order[:args.held_out]))
    rows, y, test_games = own_seat(test)
    root = test.arrays["root_win"][rows, 0] if "root_win" in test.arrays else np.full(len(rows), np.nan)
    table = {"constant": brier_with_interval(np.full(len(y), 0.5), y, test_games, args.rounds, 1)}
    has = np.isfinite(root)
    if has.any():   # on the held-out positions whose records hold the estimate
        table["search_estimate"] = {
            **brier_with_interval(root[has], y[has], test_games[has], args.rounds, 1),
            "positions": int(has.sum()),
            "constant": fm.brier(np.full(int(has.sum()), 0.5), y[has])}
    options = check_options({"hidden": args.hidden, "epochs": args.epochs, "lr": args.lr, "seed": args.seed,
                             "patience": args.patience, "value_target": args.value_target,
                             "search_weight": args.search_weight, "val_fraction": args.val_fraction,
                             "progress": False})
    results = []
    for n in sizes:
        t0 = time.perf_counter()
        subset = data.take(np.isin(data.arrays["group"], order[args.held_out:args.held_out + n]))
        train_set, val_set = split_by_game(subset, args.val_fraction, args.seed)
        for part in (train_set, val_set):
            value_targets(part, args.search_weight, args.value_target)  # policy: the visits
        weights, history, best_epoch, _ = fit(train_set, val_set, options)
        win = predict(weights, test.arrays["obs"][rows])[0]
        p = np.exp(win[:, 0]) / (np.exp(win[:, 0]) + np.exp(win[:, 1]))
        row = {"games": n, "positions": len(train_set) + len(val_set), "best_epoch": best_epoch,
               "seconds": round(time.perf_counter() - t0, 1),
               **brier_with_interval(p, y, test_games, args.rounds, 1)}
        if args.ridge:
            row["ridge"] = brier_with_interval(
                ridge_forecast(subset, test.arrays["obs"][rows], args.ridge), y, test_games,
                args.rounds, 1)
        results.append(row)
        ridge = (f"  ridge {row['ridge']['brier']:.4f} [{row['ridge']['low']:.4f}, "
                 f"{row['ridge']['high']:.4f}]" if args.ridge else "")
        print(f"{n:6d} games {row['positions']:8d} positions  Brier {row['brier']:.4f} "
              f"[{row['low']:.4f}, {row['high']:.4f}]  best epoch {best_epoch}{ridge}  "
              f"{row['seconds']} s", flush=True)
    for name, r in table.items():
        on = (f" on {r['positions']} positions (constant there {r['constant']:.4f})"
              if "positions" in r else "")
        print(f"{name:>15}: Brier {r['brier']:.4f} [{r['low']:.4f}, {r['high']:.4f}]{on}")
    report = {"data": data.sources, "held_out_games": args.held_out,
              "held_out_positions": int(len(rows)), "options": {k: v for k, v in options.items()
                                                                if k != "progress"},
              "references": table, "sizes": results}
    with open(args.out, "w") as fh:
        json.dump(report, fh, indent=2, default=list)
    _plot(results, table, args.png)
    print(f"wrote {args.out} and {args.png}")
    return 0


def _plot(results: list[dict], table: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    n = [r["games"] for r in results]
    ax.errorbar(n, [r["brier"] for r in results],
                yerr=[[r["brier"] - r["low"] for r in results], [r["high"] - r["brier"] for r in results]],
                marker="o", capsize=3, label="network")
    if results and "ridge" in results[0]:
        ax.plot(n, [r["ridge"]["brier"] for r in results], marker="s", label="ridge")
    for name, r in table.items():
        ax.axhline(r["brier"], linestyle="--", color="grey" if name == "constant" else "green",
                   label=name.replace("_", " "))
    ax.set_xscale("log")
    ax.set_xlabel("training games")
    ax.set_ylabel("held-out Brier (own seat, 2 players)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    raise SystemExit(main())
