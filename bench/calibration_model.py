"""The calibration maps of one model's searches (bench/calibration.py's `model` step).

A search whose leaves are a network's value (`mcts:eval=model`, kind "model") or half
the network's and half a rollout's (`mcts:eval=mix`, kind "mix": `--eval mix`) reports
estimates no packaged map fits: each model file gets maps of its own. The search analyzes
the labelled positions of bench/calibration.py (the same games, the same split,
`--players` only), the maps are fitted on the training half exactly as the bots' are
(ai.calibration.fit), written beside the model as MODEL.calibration.json
(ai.calibration.model_maps; the search then reports calibrated numbers), and the held-out
half is scored raw and calibrated next to the bots of report.json.

    evals-KIND-SHA.jsonl.gz   the search's raw numbers on every position (SHA: the
                              model file's first 12 hex digits)
    report-KIND-SHA.json      its held-out figures, and the bots' from report.json
"""
from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from gallerist.ai.values import Budget
from gallerist.ai.calibration.fit import fit
from gallerist.ai.calibration.maps import Calibration
from gallerist.ai.calibration.model_maps import KIND, MODEL_KINDS, write_model_maps
from gallerist.ai.selfplay.records import sha256_file


def model_spec(model: str, kind: str = KIND) -> str:
    """The search whose numbers are mapped: the network's value (kind "model") or the
    mixed leaf (kind "mix") at the leaves, its policy as the prior, raw numbers, a fresh
    tree each position."""
    return f"mcts:eval={kind},prior=model,calibrated=false,reuse=false,model={model}"


def _players(text: str) -> tuple[int, ...]:
    try:
        out = tuple(sorted({int(x) for x in text.split(",")}))
    except ValueError:
        raise SystemExit(f"calibration model: --players {text!r}: expected player counts "
                         f"such as 2 or 2,3") from None
    if not out or not all(2 <= n <= 4 for n in out):
        raise SystemExit(f"calibration model: --players {text!r}: each count must be 2, 3 or 4")
    return out


def model_step(args: Any, bench: Any) -> int:
    """Evaluate, fit and score the value search of ``args.model`` (bench: the
    calibration module, whose steps it reuses)."""
    if not args.model:
        raise SystemExit("calibration model: --model MODEL.npz is required")
    model = os.path.abspath(args.model)
    if not os.path.isfile(model):
        raise SystemExit(f"calibration model: --model {args.model}: no such file")
    kind = args.eval
    if kind not in MODEL_KINDS:
        raise SystemExit(f"calibration model: --eval {kind}: one of {', '.join(MODEL_KINDS)}")
    if not args.time_ms > 0:
        raise SystemExit(f"calibration model: --time-ms {args.time_ms}: must be > 0")
    players = _players(args.players)
    sha = sha256_file(model)
    label = f"{'value' if kind == KIND else kind} {args.time_ms:g} ms"
    evals = os.path.join(args.data, f"evals-{kind}-{sha[:12]}.jsonl.gz")
    t0 = time.perf_counter()
    bench.evaluate(args.data, ((label, model_spec(model, kind), Budget(time_ms=args.time_ms)),),
                   args.workers, path=evals, players=players)
    rows = [r for r in bench.read_jsonl(evals) if r["players"] in players]
    turns, games = bench.training_turns(args.data)
    missing = [n for n in players if n not in turns]
    if missing:
        raise SystemExit(f"calibration model: --players: no training games of {missing[0]} "
                         f"players in {args.data}/games.jsonl.gz (run the generate step)")
    samples = {(kind, n): [bench._sample(r, turns) for r in rows
                           if r["players"] == n and not bench.held_out(r["game"])
                           and r["kind"] == kind] for n in players}
    info = {"fitted_by": "bench/calibration.py model",
            "spec": model_spec(os.path.basename(model), kind),
            "time_ms": args.time_ms, "selfplay_bot": bench.SELFPLAY_BOT,
            "split": "even games train, odd games are held out",
            "training_positions": {str(n): len(samples[(kind, n)]) for n in players},
            "training_games": {str(n): games[n] for n in players},
            "date": time.strftime("%Y-%m-%d")}
    fitted = fit(samples, turns, info=info)
    maps = {n: fitted.maps[(kind, n)] for n in players}
    info["win_inputs"] = fitted.info["win_inputs"]
    side = write_model_maps(model, sha, maps, info, kind)
    cal = Calibration.load(os.path.join(args.data, "calibration.json")).with_maps(kind, maps)
    report = _report(args.data, bench, rows, cal, label, players, rounds=200 if args.quick else 1000)
    report["model"], report["model_sha256"], report["maps"] = os.path.basename(model), sha, str(side)
    report["kind"] = kind
    out = os.path.join(args.data, f"report-{kind}-{sha[:12]}.json")
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1)
    print(bench.format_report(report))
    print(f"calibration model: maps in {side}, figures in {out} "
          f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return 0


def _report(data: str, bench: Any, rows: list, cal: Calibration, label: str,
            players: tuple[int, ...], rounds: int) -> dict[str, Any]:
    """The held-out figures of the value search (raw and calibrated), with the bots'
    figures of report.json (when the report step has run) for comparison."""
    path = os.path.join(data, "report.json")
    theirs = json.load(open(path, encoding="utf-8")) if os.path.exists(path) else {"players": {}}
    report: dict[str, Any] = {"selfplay_bot": bench.SELFPLAY_BOT, "calibration": cal.info,
                              "players": {}}
    for n in players:
        part = [r for r in rows if r["players"] == n and bench.held_out(r["game"])]
        if not part:
            continue
        mine = {"calibrated": bench._metrics(bench.scored(part, cal), n, rounds),
                "raw": bench._metrics(bench.scored(part, None), n, rounds),
                "mean_ms": sum(r["ms"] for r in part) / len(part),
                "mean_iterations": sum(r["iterations"] for r in part) / len(part),
                "mean_depth": sum(r["depth"] for r in part) / len(part)}
        entry = theirs["players"].get(str(n), {})
        report["players"][str(n)] = {"bots": {label: mine, **entry.get("bots", {})},
                                     "agreement": {}, "constant": entry.get("constant") or
                                     _constant(bench, part, n)}
    return report


def _constant(bench: Any, part: list, n: int) -> dict[str, float]:
    import numpy as np

    y = np.array([r["final_win"][r["mover"]] for r in part])
    const = np.full(len(y), 1.0 / n)
    return {"answer": 1.0 / n, "brier": bench.brier(const, y), "log_loss": bench.log_loss(const, y)}
