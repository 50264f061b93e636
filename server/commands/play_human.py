"""``gallerist play human mcts ...``: a game at the terminal, any mix of ``human`` and bot
seats (the `play` command comes here when a seat is ``human``).

At a human's decision the board (text, that player's view: the opponents' cards hidden)
is printed, then the legal moves by notation, and a prompt ``P0> `` reads one of:

- a move, by notation (tab completes it when the terminal has readline) or action id;
- ``?`` : a hint, the hint bot's evaluation of the moves (``--hint-bot``, default the
  service's default bot), each with its win probability and expected money;
- ``undo`` : back to this human's (or, hot seat, any human's) previous decision, the bot
  moves and chance events since then taken back;
- ``board``, ``moves`` : print the board or the legal moves again; ``help``;
- ``quit`` : stop and save.

The game's record (one JSON line in the arena's format, `ai.arena.records.GameRecord`:
setup seed, seats, every action) is written to ``--record`` at the end, on ``quit``, on
Ctrl-C and at the end of the input, so `gallerist replay` and `gallerist analyze` read it;
a game stopped before its end is saved with ``complete: false``. Chance events are drawn
from the game's seed in order; after an undo the next draws go on from that stream (a
taken-back draw is not dealt again).
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable

import numpy as np

from gallerist import engine
from gallerist.ai.arena.records import GameRecord, new_run_id
from gallerist.ai.arena.play import draw_chance
from gallerist.engine.actions import NOTATION, action_to_string, describe_decision
from gallerist.server.commands import CliError
from gallerist.server.commands.apply import parse_move

__all__ = ["HUMAN", "TerminalGame", "is_human"]

#: The seat spec of a person at the terminal.
HUMAN = "human"
COMMANDS = ("?", "undo", "board", "moves", "help", "quit")
HELP = ("enter a move (notation, Tab completes, or action id); ? for a hint; undo; board; "
        "moves; quit (the game is saved)")


def is_human(spec: str) -> bool:
    return spec.strip().lower() == HUMAN


class _Quit(Exception):
    """The person asked to stop (quit, end of input); `why` says which."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class TerminalGame:
    """One game with human seats, read from `read_line` (``input`` by default)."""

    def __init__(self, specs: list[str], seats: list[Any], seed: int, hint_bot: Callable[[], Any],
                 record: str, out: Any = None,
                 read_line: Callable[[str], str] = input) -> None:
        self.specs = specs
        self.seats = seats          # a _Seat per bot seat, None for a human seat
        self.seed = seed
        self.hint_bot = hint_bot    # builds the hint bot on first use
        self.record = record
        self.out = out or sys.stdout
        self.read_line = read_line
        self.state = engine.new_game(num_players=len(specs), seed=seed)
        self.chance_rng = np.random.default_rng(seed)
        self.marks: list[int] = []  # history length at each human decision taken
        self.t0 = time.perf_counter()
        self._hinter: Any = None
        self.echo = read_line is input and not sys.stdin.isatty()

    # -------------------------------------------------------------------- output
    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _moves_line(self) -> str:
        return "legal: " + "  ".join(action_to_string(a) for a in self.state.legal_actions())

    # ------------------------------------------------------------------ the game
    def play(self) -> int:
        """Play to the end (or until stopped); save the record; return the exit status."""
        status = 0
        try:
            while not self.state.is_terminal():
                self.step()
        except _Quit as stop:
            self.say(f"stopped ({stop.why}) at move {len(self.state.history)}")
        except KeyboardInterrupt:
            self.say("\ninterrupted (Ctrl-C)")
            status = 130
        if self.state.is_terminal():
            self.say("\n" + self.state.render())
        self.save()
        return status

    def step(self) -> None:
        s = self.state
        if s.is_chance():
            action = draw_chance(s, self.chance_rng)
            self.say(f"  chance: {action_to_string(action).removeprefix('chance:')}")
            s.apply(action)
            return
        p = s.current_player
        seat = self.seats[p]
        if seat is not None:
            action = seat.choose(s.view(p))
            self.say(f"  P{p} ({self.specs[p]}): {action_to_string(action)}")
            s.apply(action)
            return
        self.human(p)

    def human(self, p: int) -> None:
        s = self.state
        self.say("\n" + s.view(p).render())
        while True:
            line = self._ask(p)
            word = line.strip()
            if not word:
                continue
            low = word.lower()
            if low == "quit":
                raise _Quit("quit")
            if low == "help":
                self.say(HELP)
            elif low == "board":
                self.say(s.view(p).render())
            elif low == "moves":
                self.say(self._moves_line())
            elif low == "?":
                self.hint(p)
            elif low == "undo":
                if self.undo():
                    return
            else:
                try:
                    action = parse_move(s, word)
                except CliError as exc:
                    self.say(f"{exc} (type help for the commands)")
                    continue
                self.marks.append(len(s.history))
                s.apply(action)
                self.say(f"  P{p} (human): {action_to_string(action)}")
                return

    def _ask(self, p: int) -> str:
        try:
            line = self.read_line(f"P{p}> ")
        except EOFError:
            raise _Quit("end of input") from None
        if self.echo:   # input from a file or a pipe: the transcript shows what was read
            self.out.write(line + "\n")
        return line

    def hint(self, p: int) -> None:
        if self._hinter is None:
            self._hinter = self.hint_bot()
        analysis = self._hinter.analyze(self.state.view(p))
        self.say(f"hint ({analysis.bot}, {analysis.elapsed_ms:.0f} ms):")
        self.say(analysis.table())

    def undo(self) -> bool:
        """Back to the previous human decision; False (and a note) if there is none."""
        if not self.marks:
            self.say("nothing to undo (no earlier decision of a human seat)")
            return False
        back = self.marks.pop()
        taken = []
        while len(self.state.history) > back:
            taken.append(action_to_string(self.state.undo()))
        self.say(f"undone: {', '.join(reversed(taken))}")
        return True

    # -------------------------------------------------------------------- record
    def save(self) -> None:
        s = self.state
        done = s.is_terminal()
        rec = GameRecord(game=0, seed=self.seed, bots=list(self.specs), actions=s.history,
                         money=s.money(), returns=s.returns(),
                         scores=s.final_scores() if done else [],
                         seconds=round(time.perf_counter() - self.t0, 3), run=new_run_id(),
                         complete=done)
        try:
            with open(self.record, "w", encoding="utf-8") as fh:
                fh.write(rec.to_json() + "\n")
        except OSError as exc:
            print(f"error: cannot save the game to {self.record}: {exc.strerror or exc}",
                  file=sys.stderr)
            return
        what = "the game" if done else "the unfinished game"
        self.say(f"saved {what} ({len(s.history)} actions) to {self.record} "
                 f"(gallerist replay {self.record})")


def completer(game: TerminalGame) -> Callable[[str, int], str | None]:
    """A readline completer over the legal moves' notation and the commands."""

    def complete(text: str, index: int) -> str | None:
        s = game.state
        names = [NOTATION[a] for a in s.legal_actions()] if not s.is_chance() else []
        options = [n for n in [*names, *COMMANDS] if n.startswith(text)]
        return options[index] if index < len(options) else None

    return complete


def use_readline(game: TerminalGame) -> None:
    """Tab completion of moves when standard input is a terminal with readline."""
    if not sys.stdin.isatty():
        return
    try:
        import readline
    except ImportError:   # e.g. Windows without pyreadline: moves are typed in full
        return
    readline.set_completer_delims(" \t\n")
    readline.set_completer(completer(game))
    readline.parse_and_bind("tab: complete")


def describe(game: TerminalGame) -> str:
    return ", ".join(f"P{i} {spec}" for i, spec in enumerate(game.specs)) + \
        f"; seed {game.seed}; now: {describe_decision(game.state)}"


def run(args: argparse.Namespace, seats: list[Any], hint_bot: Callable[[], Any]) -> int:
    """``gallerist play`` with a human seat."""
    game = TerminalGame(list(args.bots), seats, args.seed, hint_bot,
                        args.record or "play-game.jsonl")
    use_readline(game)
    game.say(describe(game))
    game.say(HELP)
    return game.play()
