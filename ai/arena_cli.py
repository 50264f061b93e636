"""Command lines of the arena: `gallerist arena` and `gallerist replay`."""
from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import asdict

from ai.arena import format_report, plot_ratings, read_records, replay, run_tournament


def add_arena_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("bots", nargs="+", help='bot specs, e.g. "mcts:iterations=1000" expectimax:depth=2 greedy random')
    ap.add_argument("--players", type=int, default=2, choices=(1, 2, 3, 4),
                    help="players per game (1: solo against Lacerda, scored by mean money)")
    ap.add_argument("--games", type=int, default=20,
                    help="games to play at least (rounded up so every seating is played)")
    ap.add_argument("--workers", type=int, default=0, help="parallel games (default: all cores)")
    ap.add_argument("--seed", type=int, default=0, help="first setup seed")
    ap.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="local processes, or Ray tasks (pip install -e '.[ray]')")
    ap.add_argument("--ray-address", default=None, help="Ray cluster address (default: a local cluster)")
    ap.add_argument("--records", default="arena-games.jsonl", help="JSON Lines file the games are appended to")
    ap.add_argument("--out", default="arena-results.json", help="results as JSON")
    ap.add_argument("--png", default="arena-ratings.png", help="ratings picture")
    ap.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for rating intervals")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")


def arena_main(args: argparse.Namespace) -> int:
    import os

    from tqdm import tqdm

    workers = args.workers or os.cpu_count() or 1
    bar = None if args.no_progress else tqdm(total=None, unit="game", desc="arena", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.update(done - bar.n)

    try:
        t = run_tournament(args.bots, players=args.players, games=args.games, workers=workers,
                           seed=args.seed, backend=args.backend, ray_address=args.ray_address,
                           records_path=args.records, progress=progress)
    except ValueError as exc:
        print(f"gallerist arena: {exc}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    report = t.report(bootstrap=args.bootstrap)
    print(format_report(report))
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2)
    if report["games"]:
        plot_ratings(report, args.png)
    print(f"\nresults: {args.out}  games: {args.records}  picture: {args.png}")
    return 130 if t.interrupted else 0


def add_replay_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("file", help="a JSON Lines file written by `gallerist arena`")
    ap.add_argument("--game", type=int, default=0, help="game number (the record's `game`)")
    ap.add_argument("--boards", action="store_true", help="print the board at every turn start")


def replay_main(args: argparse.Namespace) -> int:
    from engine.actions import action_to_string

    try:
        records = read_records(args.file)
    except (OSError, ValueError) as exc:
        print(f"gallerist replay: {exc}", file=sys.stderr)
        return 2
    rec = next((r for r in records if r.game == args.game), None)
    if rec is None:
        print(f"gallerist replay: no game {args.game} in {args.file} "
              f"(games: {', '.join(str(r.game) for r in records[:20])}...)", file=sys.stderr)
        return 2
    print(f"game {rec.game}, seed {rec.seed}: " + ", ".join(f"P{i} {b}" for i, b in enumerate(rec.bots)))
    last_turn = [-1]

    def show(state, action):  # type: ignore[no-untyped-def]
        turn = state.turn_player
        if args.boards and state.current_player == turn and state._raw()["turn_count"] != last_turn[0]:
            last_turn[0] = state._raw()["turn_count"]
            print(state.render())
        who = "chance" if state.is_chance() else f"P{state.current_player}"
        print(f"  {who:>6}: {action_to_string(action)}")

    try:
        final = replay(rec, on_action=show)
    except ValueError as exc:
        print(f"gallerist replay: {exc}", file=sys.stderr)
        return 1
    print(final.render())
    print(f"final money {final.money()} (recorded {rec.money}): replay matches")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (`python -m ai.arena_cli arena ...`)."""
    logging.basicConfig(level=logging.WARNING)
    ap = argparse.ArgumentParser(prog="gallerist")
    sub = ap.add_subparsers(dest="cmd", required=True)
    add_arena_arguments(sub.add_parser("arena", help="a tournament between bots"))
    add_replay_arguments(sub.add_parser("replay", help="replay a recorded arena game"))
    args = ap.parse_args(argv)
    return arena_main(args) if args.cmd == "arena" else replay_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
