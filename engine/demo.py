"""Watch one game of The Gallerist played by uniformly random legal moves.

Run ``python -m gallerist.engine.demo`` (a 2-player game, one line per turn, the board at the
end) or ``python -m gallerist.engine.demo --help`` for the options. Every decision is printed in
the action notation of ``engine.actions``, chance events in brackets, e.g.::

    Turn 3 (round 2) P0: move:AC leave:none action:B artist:photo-red [tile5] end-turn | P1: ko:pass

The same ``--seed`` always plays the same game.
"""
from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import textwrap
import time
from collections.abc import Sequence
from typing import TextIO

from gallerist.engine.actions import action_to_string, describe_decision
from gallerist.engine.render import WIDTH
from gallerist.engine.state import MAX_GAME_LENGTH, GameState, new_game

__all__ = ["main", "play", "build_parser", "format_result"]

log = logging.getLogger("gallerist.engine.demo")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of ``python -m gallerist.engine.demo``.

    Returns:
        The argument parser (options: --players, --seed, --moves, --boards, --verbose).
    """
    parser = argparse.ArgumentParser(
        prog="python -m gallerist.engine.demo",
        description="Play one seeded game of The Gallerist with uniformly random legal moves "
                    "and print it: each turn's decisions in action notation (chance events "
                    "in [brackets]), the board at the end, then the final scores and winner(s).",
        epilog="Example: python -m gallerist.engine.demo --players 3 --seed 7 --boards")
    parser.add_argument("--players", "-p", type=int, choices=(1, 2, 3, 4), default=2,
                        help="number of players, 1: solo against Lacerda (default: 2)")
    parser.add_argument("--seed", "-s", type=int, default=0,
                        help="seed of the game and of the random moves (default: 0)")
    parser.add_argument("--moves", "-m", action="store_true",
                        help="print every decision on its own line, with what was being "
                             "decided, instead of one line per turn")
    parser.add_argument("--boards", "-b", action="store_true",
                        help="print the whole board at the start of every turn, not only at "
                             "the end")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="log progress and timing to stderr")
    return parser


def _short(action: int) -> str:
    """Notation of an action, chance outcomes shortened to '[visitor:vip]'."""
    text = action_to_string(action)
    return f"[{text.removeprefix('chance:')}]" if text.startswith("chance:") else text


class _TurnPrinter:
    """Collects the decisions of one turn and prints them as one wrapped line."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.title = ""
        self.parts: list[str] = []
        self.actor: int | None = None

    def start(self, title: str) -> None:
        """Print the turn collected so far and begin a new one called `title`."""
        self.flush()
        self.title = title
        self.actor = None

    def add(self, actor: int | None, action: int) -> None:
        """Record one action; `actor` is the deciding player, None for chance."""
        if actor is not None and actor != self.actor:
            self.parts.append(("| " if self.parts else "") + f"P{actor}:")
            self.actor = actor
        self.parts.append(_short(action))

    def flush(self) -> None:
        """Print the collected turn, if any."""
        if self.parts:
            text = f"{self.title} " + " ".join(self.parts)
            print(textwrap.fill(text, width=WIDTH, subsequent_indent="    ",
                                break_long_words=False, break_on_hyphens=False), file=self.out)
        self.parts = []


def _turn_title(state: GameState) -> str:
    """'Turn 5 (round 3)', 'Setup' before the first turn."""
    raw = state._raw()
    turns = raw["turn_count"]
    if turns == 0:
        return "Setup"
    return f"Turn {turns} (round {(turns - 1) // raw['num_players'] + 1})"


def play(num_players: int = 2, seed: int = 0, *, moves: bool = False, boards: bool = False,
         out: TextIO | None = None) -> GameState:
    """Play one game with uniformly random legal moves, printing it to `out`.

    Args:
        num_players: 1 (solo against Lacerda, whose moves the engine makes), 2, 3 or 4.
        seed: seeds both the game's setup and the choice of moves.
        moves: print each decision on its own line with what was decided.
        boards: print ``render()`` at the start of every turn.
        out: where to print (default: sys.stdout).

    Returns:
        The final (terminal) state.

    Raises:
        RuntimeError: if the game does not end within ``MAX_GAME_LENGTH`` actions.
    """
    out = sys.stdout if out is None else out
    rng = random.Random(seed)
    state = new_game(num_players=num_players, seed=seed)
    printer = _TurnPrinter(out)
    title = _turn_title(state)
    printer.start(title)
    if boards:
        print(state.render() + "\n", file=out)
    decisions = chance = 0
    t0 = time.perf_counter()
    while not state.is_terminal():
        if decisions + chance >= MAX_GAME_LENGTH:
            raise RuntimeError(f"the game did not end within {MAX_GAME_LENGTH} actions")
        actor: int | None
        if state.is_chance():
            what = describe_decision(state)
            action = state.apply_random_chance(rng.getrandbits(64))
            actor = None
            chance += 1
        else:
            what = describe_decision(state)
            actor = state.current_player
            action = rng.choice(state.legal_actions())
            state.apply(action)
            decisions += 1
        if moves:
            print(f"  {what} -> {action_to_string(action)}", file=out)
        else:
            printer.add(actor, action)
        new_title = _turn_title(state)
        if new_title != title and not state.is_terminal():
            title = new_title
            printer.start(title)
            if moves or boards:
                print(f"{title}, P{state.turn_player}'s turn", file=out)
            if boards:
                print(state.render() + "\n", file=out)
    printer.flush()
    log.info("%d-player game, seed %d: %d decisions and %d chance events in %.3f s",
             num_players, seed, decisions, chance, time.perf_counter() - t0)
    return state


def format_result(state: GameState) -> str:
    """One line: every player's final money and the winner(s).

    Args:
        state: a terminal state.

    Returns:
        E.g. 'Final scores: P0 $87, P1 $62 -> winner: P0'.
    """
    money = ", ".join(f"P{p} ${m}" for p, m in enumerate(state.money()))
    if state.num_players == 1:
        return f"Solo score against Lacerda: {money}"
    winners = state.winners()
    label = "winner" if len(winners) == 1 else "winners (tied)"
    return f"Final scores: {money} -> {label}: {', '.join(f'P{w}' for w in winners)}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m gallerist.engine.demo``.

    Args:
        argv: the command-line arguments (default: sys.argv[1:]).

    Returns:
        The exit status, 0 on success.
    """
    args = build_parser().parse_args(argv)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s",
                            stream=sys.stderr)
    print(f"The Gallerist: a {args.players}-player game, seed {args.seed}, every decision "
          f"chosen uniformly at random among the legal ones")
    print("(chance events in [brackets]; python -m gallerist.engine.demo --help for the options)\n")
    state = play(args.players, args.seed, moves=args.moves, boards=args.boards)
    print("\nThe end of the game:\n")
    print(state.render())
    print()
    print(format_result(state))
    return 0


def _cli() -> int:
    """Run `main`, ending quietly when the reader closes the pipe (``| head``)."""
    try:
        return main()
    except BrokenPipeError:
        # Python's documented recipe: stop writing to the closed pipe at exit too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(_cli())
