"""``gallerist play``: one game between bots in this process, printed move by move, or a
game at the terminal when a seat is ``human`` (`play_human`). An expectimax seat without
a time budget gets the default one (announced); Ctrl-C stops the search under way and
ends the game, naming the best move found so far (exit 130). ``--record`` saves the game
in the arena's record format (`gallerist replay` reads it)."""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from gallerist import engine
from gallerist.ai.values import Budget
from gallerist.ai.bots.mcts import MctsBot
from gallerist.ai.words import counted
from gallerist.engine.actions import action_to_string, decision_kind
from gallerist.cli.commands import CliError
from gallerist.cli.commands.interrupt import StopOnCtrlC
from gallerist.cli.commands.play_human import HintBot, budget_text, is_human
from gallerist.cli.commands.model_option import add_model_option
from gallerist.cli.commands.options import (LOCAL_LIMITS, add_command, add_notation_option,
                                               check_output_path, seed_value, timed_spec)
from gallerist.server.limits import Limits, RequestError, build_bot, check_spec

__all__ = ["DEFAULT_HINT", "add", "run"]

#: The bot of ? without --hint-bot, in words: the service's default bot at the budget the
#: service gives a request that names none (MCTS's own: FALLBACK_ITERATIONS, time capped).
DEFAULT_HINT = (f"{Limits().default_bot} with "
                + budget_text(Budget(iterations=MctsBot.FALLBACK_ITERATIONS,
                                     time_ms=Limits().max_time_ms)))


def add(sub: Any) -> None:
    """Add ``play`` to the subcommands."""
    p = add_command(
        sub, "play", run, help="play a game between bots, move by move",
        description="Play one game between bots (one spec per seat, 1 to 4; one bot plays solo "
                    "against Lacerda) and print every decision and chance event, the board at "
                    "each turn start, and the final scores.")
    p.add_argument("bots", nargs="+", metavar="SPEC",
                   help="bot spec per seat, e.g. mcts:iterations=300 greedy, or human (a "
                        "person at the terminal: moves typed with tab completion, ? for a "
                        "hint, undo, quit)")
    p.add_argument("--seed", type=seed_value, default=0,
                   help="game and bot seed, 0..2^63-1 (default 0)")
    add_model_option(p)
    p.add_argument("--board", choices=("turn", "end", "none"), default="turn",
                   help="print the board at every turn start (default), only at the end, "
                        "or never")
    p.add_argument("--record", default=None, metavar="FILE",
                   help="write the game's record (one JSON line, the arena's format; "
                        "`gallerist replay FILE`) at the end; with a human seat also on quit, "
                        "Ctrl-C or end of input (default play-game.jsonl with a human seat, "
                        "none otherwise)")
    add_notation_option(p, "a bot game prints its moves by notation, several a line; at a "
                           "human seat the moves, the plans of a hint and the moves played "
                           "read by notation")
    p.add_argument("--hint-bot", default=None, metavar="SPEC",
                   help="the bot that answers ? at a human seat (default: the service's "
                        f"default bot at its default budget, {DEFAULT_HINT}; a spec given "
                        "here searches with its own budget)")


def _short(action: int) -> str:
    text = action_to_string(action)
    return f"[{text.removeprefix('chance:')}]" if text.startswith("chance:") else text


def _said(state: engine.GameState, player: int, action: int) -> str:
    """A move of a bot game in words, as its mover sees it (`engine.describe_move`),
    after its seat when it is not the turn's player; a chance outcome in [brackets]."""
    if player == engine.CHANCE:
        return f"[{engine.describe_move(state, action)}]"
    who = f"P{player}: " if player != state.turn_player else ""   # a kicked-out owner
    return who + engine.describe_move(state.view(player), action)


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the search of `seat`; `best` is the move it had found so far."""

    def __init__(self, seat: int, best: str) -> None:
        super().__init__(seat, best)
        self.seat = seat
        self.best = best


class _Seat:
    """A seat's bot whose searches run where Ctrl-C can stop them (`StopOnCtrlC`)."""

    def __init__(self, bot: Any, seat: int) -> None:
        self.bot = bot
        self.seat = seat

    def choose(self, view: engine.GameState) -> int:
        """The bot's own choice (stopped by Ctrl-C, it is the best found so far)."""
        runner = StopOnCtrlC((self.bot.choose(view) for _ in range(1)), self.bot.stop,
                             note="interrupted: stopping the search and the game (Ctrl-C "
                                  "again to quit at once)")
        chosen = list(runner)
        if runner.interrupted:   # the move in words, as the game is printed, its notation after
            best = (f"{engine.describe_move(view, chosen[0])} ({action_to_string(chosen[0])})"
                    if chosen else "none")
            raise _Interrupted(self.seat, best)
        return int(chosen[0])


def _bots(specs: list[str], seed: int) -> list[Any]:
    """One bot per seat (None for a human seat), each spec checked against the local
    limits; a seat whose search could run for hours gets the default time budget,
    announced on stderr."""
    if not 1 <= len(specs) <= 4:
        raise CliError(f"give 1 to 4 bot specs (one per seat; 1 = solo against Lacerda), "
                       f"got {len(specs)}")
    bots: list[Any] = []
    for seat, spec in enumerate(specs):
        if is_human(spec):
            bots.append(None)
            continue
        try:
            check_spec(spec, LOCAL_LIMITS, field=f"bot of seat {seat}")
            spec, note = timed_spec(spec, f"seat {seat} ({spec})")
            bot = build_bot(spec, seed * 100 + seat, field=f"bot of seat {seat}")
            bots.append(_Seat(bot, seat))
            if note:
                print(note, file=sys.stderr)
        except RequestError as exc:
            raise CliError(str(exc)) from None
    return bots


def _hint_bot(args: argparse.Namespace) -> HintBot:
    """The bot of ? (checked now, built at each ?): without --hint-bot the service's
    default bot, its budget sized by the service's limits."""
    limits = LOCAL_LIMITS if args.hint_bot else Limits()
    spec = args.hint_bot or limits.default_bot
    try:
        check_spec(spec, limits, field="--hint-bot")
        spec, _ = timed_spec(spec, f"--hint-bot ({spec})")
        build_bot(spec, args.seed, field="--hint-bot")
    except RequestError as exc:
        raise CliError(str(exc)) from None
    return HintBot(spec, lambda: build_bot(spec, args.seed * 100 + 99, field="--hint-bot"),
                   limits)


def _save(args: argparse.Namespace, final: engine.GameState, seconds: float) -> None:
    """The record of a finished bot game (`--record`)."""
    from gallerist.ai.arena.records import GameRecord, new_run_id

    rec = GameRecord(game=0, seed=args.seed, bots=list(args.bots), actions=final.history,
                     money=final.money(), returns=final.returns(), scores=final.final_scores(),
                     seconds=round(seconds, 3), run=new_run_id())
    try:
        with open(args.record, "w", encoding="utf-8") as fh:
            fh.write(rec.to_json() + "\n")
    except OSError as exc:
        raise CliError(f"cannot write {args.record}: {exc.strerror or exc}", status=1) from None
    print(f"saved the game to {args.record}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """``gallerist play``."""
    from gallerist.ai.arena.play import play_game

    bots = _bots(args.bots, args.seed)
    if args.record is not None:
        check_output_path(args.record, "--record")
    if any(b is None for b in bots):
        from gallerist.cli.commands import play_human
        return play_human.run(args, bots, _hint_bot(args))
    out = sys.stdout
    t0 = time.perf_counter()
    line: list[str] = []

    def flush() -> None:
        if line:
            out.write("    " + " ".join(line) + "\n")
            line.clear()

    setup_said = False

    def on_action(state: engine.GameState, player: int, action: int) -> None:
        nonlocal setup_said
        if player != engine.CHANCE and decision_kind(state) == "start-loc":
            if not setup_said:   # before the first turn: each seat chooses where it starts
                out.write("Setup: each seat chooses its start location, the last seat first:\n")
                setup_said = True
            said = _short(action) if args.notation else engine.describe_move(
                state.view(player), action)
            out.write(f"    P{player} ({args.bots[player]}): {said}\n")
            out.flush()
            return
        if player != engine.CHANCE and decision_kind(state) == "turn-start":
            flush()
            if args.board == "turn":
                out.write("\n" + state.render() + "\n")
            out.write(f"P{player} ({args.bots[player]}), move {len(state.history)}, "
                      f"{time.perf_counter() - t0:.1f} s:\n")
        if not args.notation:   # in words: one move a line
            out.write(f"    {_said(state, player, action)}\n")
            out.flush()
            return
        line.append(_short(action))
        if len(" ".join(line)) > 90:
            flush()
        out.flush()

    try:
        final = play_game(bots, seed=args.seed, on_action=on_action)
    except _Interrupted as stop:
        flush()
        print(f"interrupted: P{stop.seat} ({args.bots[stop.seat]}) was searching; its best "
              f"move so far: {stop.best}. The game was not finished.", file=sys.stderr)
        return 130
    flush()
    if args.board in ("turn", "end"):
        out.write("\n" + final.render() + "\n")
    out.write(f"\nFinal scores after {counted(len(final.history), 'action')} "
              f"({time.perf_counter() - t0:.1f} s):\n")
    for p, score in enumerate(final.final_scores()):
        steps = ", ".join(f"{k} {v}" for k, v in score.items() if k not in ("total", "money"))
        out.write(f"  P{p} {args.bots[p]:<24} ${score['money']:>4}  ({steps})\n")
    out.write("Winner(s): " + ", ".join(f"P{w}" for w in final.winners()) + "\n")
    if args.record is not None:
        _save(args, final, time.perf_counter() - t0)
    return 0
