"""Model benchmark: the learned evaluation's speed and the MCTS that uses it.

Usage:
    python bench/model_bench.py                     # a random model of the default size
    python bench/model_bench.py --model FILE.npz    # a trained one
    python bench/model_bench.py --hidden 128,64 --quick --eval-only

Prints:
- µs per evaluation (the observation of the player to move + the forward pass, in C,
  ModelEvaluator.evaluate), as CPU time of the evaluating thread (the machine may be
  shared: wall time would count the other processes' time slices), over decision
  points from early to late game at 2, 3 and 4 players; and the same for the policy
  (priors over the legal moves);
- MCTS iterations/s (the C search alone, as bench/search_bench.py) with the model as
  PUCT prior after rollouts (prior=model, the default bot's search at 2 players) and,
  when the model has a value, as leaf value and prior (eval=model,prior=model), on 1
  and 2 threads, the speed-up, and the rollout MCTS for comparison; the load average,
  since the 2-thread figure needs two free cores. "Per CPU second, 2 threads / 1" is iterations per CPU second of the process
  with 2 threads over that with 1 (1.0: the threads do not slow each other down), which a
  busy machine does not distort; on two free cores the speed-up would be about twice it.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time

from gallerist import ai
from gallerist.ai.net.model_file import random_arrays, save_model
from gallerist.ai.net.packaged import load_evaluator
from figures import write_json
from positions import sample_states


def eval_speed(ev, states, repeats: int) -> float:
    """µs of CPU time per evaluation, averaged over the states."""
    total = sum(ev.evaluate_many(s, repeats) for s in states)
    return 1e6 * total / (repeats * len(states))


def policy_speed(ev, states, repeats: int) -> float:
    """µs of CPU time per priors() call (Python call overhead included)."""
    t0 = time.thread_time()
    for s in states:
        for _ in range(repeats):
            ev.priors(s)
    return 1e6 * (time.thread_time() - t0) / (repeats * len(states))


def mcts_speed(spec: str, states, threads: int, iterations: int) -> dict:
    """Iterations/s of the C search with `threads` trees: per wall second, and per CPU
    second of the process (which the other jobs of a shared machine do not inflate)."""
    eng = ai.make_bot(f"{spec},threads={threads}").engine(2)
    total = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for i, s in enumerate(states):
        eng.prepare(s, s.current_player, i + 1, False)
        ws = [threading.Thread(target=eng.run, args=(k, iterations // threads, 0.0))
              for k in range(threads)]
        for w in ws:
            w.start()
        for w in ws:
            w.join()
        total += eng.stats()["iterations"]
    return {"threads": threads, "iterations_per_s": total / (time.perf_counter() - t0),
            "iterations_per_cpu_s": total / (time.process_time() - c0)}


def policy_only(ev) -> bool:
    """Whether a model was trained without a value (win_weight 0, no linear value: a
    PUCT prior such as the packaged one), so it can be timed only as a prior."""
    hyper = ev.model.metadata.get("hyperparameters")
    return isinstance(hyper, dict) and hyper.get("win_weight") == 0 \
        and not hyper.get("linear_value")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a model file (default: random weights of --hidden)")
    ap.add_argument("--hidden", default="64,64", help="trunk widths of the random model (default 64,64)")
    ap.add_argument("--linear-value", action="store_true",
                    help="the random model has format 2's skip weights too (a linear value, "
                         "gallerist train --linear-value)")
    ap.add_argument("--quick", action="store_true", help="smaller counts")
    ap.add_argument("--eval-only", action="store_true", help="time the evaluation only (no MCTS)")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    path = args.model
    if not path:
        hidden = tuple(int(x) for x in args.hidden.split(","))
        path = os.path.join(tempfile.mkdtemp(), "random.npz")
        save_model(path, random_arrays(hidden, seed=1, skip=args.linear_value),
                   {"note": "random weights (benchmark)"})
    ev = load_evaluator(path)
    skip = " + linear value" if ev.model.win_skip is not None else ""
    results: dict = {"model": args.model or f"random {args.hidden}{skip}", "hidden": list(ev.hidden),
                     "machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg()}}
    repeats = 2000 if args.quick else 20000
    print(f"Model: {results['model']} (trunk {' x '.join(map(str, ev.hidden))}); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("Evaluation (observation + forward pass), µs of CPU time per call")
    for players in (2, 3, 4):
        states = sample_states(players, 10, seed=players, plies=(20, 400))
        us = eval_speed(ev, states, repeats)
        pol = policy_speed(ev, states, repeats // 10)
        results.setdefault("evaluation_us", {})[players] = us
        results.setdefault("priors_us", {})[players] = pol
        print(f"  {players} players: value {us:6.2f} µs   priors (from Python) {pol:6.2f} µs")

    if args.eval_only:
        write_json(args.json, results)
        return 0
    states = sample_states(2, 6 if args.quick else 20, seed=1, plies=(30, 200))
    iters = 2000 if args.quick else 6000
    specs = {"prior": f"mcts:prior=model,model={path}", "rollout": "mcts:rollout=random"}
    if not policy_only(ev):   # a model with a value: the leaf value and the prior
        specs = {"model": f"mcts:eval=model,prior=model,calibrated=false,model={path}",
                 **specs}
    print("MCTS iterations/s (2 players, the C search alone)")
    for name, spec in specs.items():
        one = mcts_speed(spec, states, 1, iters)
        two = mcts_speed(spec, states, 2, iters)
        speedup = two["iterations_per_s"] / one["iterations_per_s"]
        cpu = two["iterations_per_cpu_s"] / one["iterations_per_cpu_s"]
        results.setdefault("mcts", {})[name] = {"one": one, "two": two, "speedup": speedup,
                                                "cpu_efficiency": cpu}
        print(f"  {name:<8} 1 thread {one['iterations_per_s']:>10,.0f}   2 threads "
              f"{two['iterations_per_s']:>10,.0f}   speed-up {speedup:.2f}x   "
              f"per CPU second, 2 threads / 1: {cpu:.2f}")
    results["machine"]["load_average_after"] = os.getloadavg()
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
