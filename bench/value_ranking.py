"""Does a value rank the moves of a position? (bench/RESULTS.md: the value trained
on playout estimates.) For positions of held-out games of a self-play directory (the split
`gallerist train` makes with the same seed), every legal move's child is valued from the
mover's view by each MODEL's win head and by 100 uniform random playouts (what the
``playout_win`` labels hold), and compared with 1,000 playouts of other seeds (the
reference): the mean Spearman rank correlation over positions, and the spread (standard
deviation) of the children's values.

    python bench/value_ranking.py /work/data/pv-2p --model pv.npz --games 12
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from gallerist.ai.selfplay import run as selfplay  # noqa: E402
from gallerist.ai.search._rollout import playout_shares  # noqa: E402
from gallerist.ai.net.model_file import load_model  # noqa: E402
from gallerist.ai.review.games import replay_selfplay  # noqa: E402
from gallerist.ai.learn.data import load_records, split_by_game  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    from scipy.stats import spearmanr

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", help="a 2-player gallerist selfplay directory")
    ap.add_argument("--model", action="append", default=[], help="a model file (repeatable)")
    ap.add_argument("--games", type=int, default=12, help="held-out games to draw from")
    ap.add_argument("--per-game", type=int, default=4, help="positions drawn per game")
    ap.add_argument("--reference", type=int, default=1000, help="playouts of the reference")
    ap.add_argument("--seed", type=int, default=0, help="the split's seed (train's --seed)")
    args = ap.parse_args(argv)
    models = {os.path.basename(m): load_model(m) for m in args.model}
    _, val = split_by_game(load_records([args.data], players=2), 0.1, args.seed)
    manifest = selfplay.read_manifest(args.data)
    rng = np.random.default_rng(args.seed)
    corr: dict[str, list[float]] = {k: [] for k in [*models, "100 playouts"]}
    spread: dict[str, list[float]] = {k: [] for k in [*corr, "reference"]}
    for g in np.unique(val.arrays["game"])[:args.games]:
        entry = next(s for s in manifest["shards"] if s["first_game"] <= g < s["first_game"] + s["games"])
        rows = selfplay.read_shard(os.path.join(args.data, entry["file"]))
        mine = rows["game"] == g
        pick = set(rng.choice(int(mine.sum()), args.per_game, replace=False).tolist())
        seed = selfplay.game_seed(int(manifest["seed"]), int(g))
        for state, i in replay_selfplay(2, seed, rows["action"][mine].tolist(), rows["player"][mine].tolist()):
            legal = state.legal_actions()
            if i not in pick or len(legal) < 3:
                continue
            p = state.current_player
            ref, cheap, obs = [], [], []
            for k, a in enumerate(legal):
                child = state.copy()
                child.apply(a)
                view = child.view(p)
                ref.append(playout_shares(view, p, args.reference, 0.0, 10_000 + k)[0][p])
                cheap.append(playout_shares(view, p, 100, 0.0, 20_000 + k)[0][p])
                obs.append(child.observation(p))
            values = {name: m.forward(np.asarray(obs), 2)[0][:, 0] for name, m in models.items()}
            values["100 playouts"] = np.asarray(cheap)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # a constant row has no rank correlation
                for name, v in values.items():
                    corr[name].append(spearmanr(v, ref)[0])
                    spread[name].append(float(np.std(v)))
            spread["reference"].append(float(np.std(ref)))
    print(f"{len(spread['reference'])} positions of {args.games} held-out games; each move's "
          f"child valued from the mover's view, against {args.reference} playouts")
    for name in spread:
        r = f"Spearman {np.nanmean(corr[name]):.3f}" if name in corr else " " * 14
        print(f"{name:<28} {r}   spread of the children's values {np.mean(spread[name]):.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
