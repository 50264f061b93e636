"""``gallerist play human mcts ...``: a game at the terminal, any mix of ``human`` and bot
seats. At a human's decision a prompt reads a move (notation or id), ``?`` (a hint),
``undo``, ``board``, ``moves``, ``help`` or ``quit``; the game's record is saved in the
arena's format at the end, on ``quit``, Ctrl-C and end of input (docs/cli.md, "play")."""
from __future__ import annotations

import argparse
import sys
import textwrap
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from gallerist import engine
from gallerist.ai.arena.records import GameRecord, new_run_id
from gallerist.ai.values import Budget
from gallerist.ai.arena.play import draw_chance
from gallerist.ai.words import counted, plural
from gallerist.engine.actions import (NOTATION, action_to_string, decision_kind,
                                      describe_decision)
from gallerist.cli.commands import CliError
from gallerist.cli.commands.apply import parse_move
from gallerist.cli.commands.interrupt import StopOnCtrlC
from gallerist.cli.commands.options import LOCAL_LIMITS
from gallerist.server.limits import Limits
from gallerist.server.search import Report, Search, resolve_budget

__all__ = ["BOARD_RULE", "HUMAN", "HintBot", "TerminalGame", "budget_text", "hint_table",
           "is_human", "plan_lines", "turn_plan"]

#: The seat spec of a person at the terminal.
HUMAN = "human"
COMMANDS = ("?", "undo", "board", "moves", "help", "quit")
#: When a human's decision shows the whole board.
BOARD_RULE = ("the board is shown at the start of each of your turns and when another seat "
              "moved since your previous decision (and after undo); at your other decisions "
              "only the decision and its legal moves: type board to see it")
#: Partial reports of a hint's search, ms (what Ctrl-C keeps is at most this old).
HINT_INTERVAL_MS = 250.0


def is_human(spec: str) -> bool:
    return spec.strip().lower() == HUMAN


def budget_text(budget: Budget) -> str:
    """A search budget in words: "1000 iterations, at most 10 s"."""
    parts = [f"{budget.iterations} {plural(budget.iterations, 'iteration')}"] if budget.iterations else []
    if budget.depth:
        parts.append(f"depth {budget.depth}")
    if budget.time_ms:
        parts.append(f"at most {budget.time_ms / 1000:g} s")
    return ", ".join(parts) or "the bot's own"


@dataclass(frozen=True)
class HintBot:
    """The bot of ``?``: its spec, what builds a fresh one per hint, and the limits that
    size its default budget (`resolve_budget`)."""

    spec: str
    make: Callable[[], Any]
    limits: Limits = LOCAL_LIMITS

    def budget(self) -> Budget:
        """The budget each hint's search applies."""
        return resolve_budget(self.make(), Budget(), self.limits, None)[0]


def _plan_groups(view: engine.GameState, pv: list[int],
                 name: Callable[[engine.GameState, int], str]) -> list[tuple[str, list[str]]]:
    """The steps after a hint's move (`pv[0]`, played in `view`), `name(position,
    action)` each, grouped by who takes them in order: "you" (the mover, this turn),
    "your next turn", "P0" (another seat), "chance"; a last group "..." where the view
    cannot follow the plan (a hidden card decided a step)."""
    mover, turn = view.current_player, view.turn_number
    walk = view.copy()
    groups: list[tuple[str, list[str]]] = []
    for i, action in enumerate(pv):
        who = ("chance" if walk.is_chance() else
               f"P{walk.current_player}" if walk.current_player != mover else
               "you" if walk.turn_number == turn else "your next turn")
        text = name(walk, action) if i else ""
        try:
            walk.apply(action)
        except ValueError:   # a step the view cannot follow (a hidden card): stop there
            groups.append(("...", []))
            break
        if i == 0:
            continue
        if groups and groups[-1][0] == who:
            groups[-1][1].append(text)
        else:
            groups.append((who, [text]))
    return groups


def _notation(position: engine.GameState, action: int) -> str:
    """A plan step by notation, a chance outcome in [brackets]."""
    text = action_to_string(action)
    return f"[{text.removeprefix('chance:')}]" if text.startswith("chance:") else text


def turn_plan(view: engine.GameState, pv: list[int]) -> str:
    """The plan after a hint's move (`pv[0]`, played in `view`) in notation: the mover's
    own next decisions of this turn first ("your turn: ...", or "you: ..." in another
    seat's turn), then what follows in order ("then: ..."): chance outcomes in [brackets],
    other seats' moves after their seat ("P0 ..."), the mover's after "you" (this turn)
    or "your next turn"."""
    groups = _plan_groups(view, pv, _notation)
    parts = []
    if groups and groups[0][0] == "you":
        mine = " ".join(groups.pop(0)[1])
        parts.append(f"your turn: {mine}" if view.turn_player == view.current_player
                     else f"you: {mine}")
    if groups:
        parts.append("then: " + ", ".join(" ".join(names) if who == "chance" else
                                          " ".join([who, *names]) for who, names in groups))
    return "; ".join(parts) or "-"


def plan_lines(view: engine.GameState, pv: list[int]) -> list[str]:
    """The plan after a hint's move in words (`engine.describe_move`), one step a line,
    each after who takes it: "you", "your next turn", "P0", "chance"."""
    lines: list[str] = []
    for who, texts in _plan_groups(view, pv, engine.describe_move):
        lines += [f"{who}: {text}" for text in texts] if who != "..." else ["..."]
    return lines or ["-"]


class _Quit(Exception):
    """The person asked to stop (quit, end of input); `why` says which."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class TerminalGame:
    """One game with human seats, read from `read_line` (``input`` by default)."""

    def __init__(self, specs: list[str], seats: list[Any], seed: int, hint_bot: Callable[[], Any],
                 record: str, out: Any = None,
                 read_line: Callable[[str], str] = input, *, hint_spec: str = "",
                 hint_limits: Limits = LOCAL_LIMITS, notation: bool = False) -> None:
        self.specs = specs
        self.seats = seats          # a _Seat per bot seat, None for a human seat
        self.seed = seed
        self.hinter = HintBot(hint_spec, hint_bot, hint_limits)   # a fresh bot for each ?
        self.record = record
        self.out = out or sys.stdout
        self.read_line = read_line
        self.state = engine.new_game(num_players=len(specs), seed=seed)
        self.chance_rng = np.random.default_rng(seed)
        self.marks: list[int] = []  # history length at each human decision taken
        self.t0 = time.perf_counter()
        self.humans = {p for p, seat in enumerate(seats) if seat is None}
        self.board_due = set(self.humans)   # humans whose next decision shows the board
        self.echo = read_line is input and not sys.stdin.isatty()
        self.notation = notation    # moves shown by notation instead of in words

    # -------------------------------------------------------------------- output
    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _moves_line(self) -> str:
        """The legal moves: by notation on one line, or one a line, its notation (what to
        type) and what it does in words."""
        s = self.state
        if self.notation:   # each with its id in brackets: either may be typed
            return "legal: " + "  ".join(f"{action_to_string(a)} [{a}]"
                                         for a in s.legal_actions())
        words = engine.describe_moves(s.view(s.current_player))
        width = max(len(action_to_string(a)) for a in words)
        return "legal (type the notation or the id in brackets):\n" + "\n".join(
            f"  {action_to_string(a):<{width}}  {text} [{a}]" for a, text in words.items())

    def words(self, action: int) -> str:
        """A move of the position (or a chance outcome) as the game prints it: by
        notation, or in words as the mover sees it."""
        s = self.state
        if self.notation:
            return action_to_string(action)
        return engine.describe_move(s if s.is_chance() else s.view(s.current_player), action)

    def help_text(self) -> str:
        """What ``help`` prints (and the game prints at its start)."""
        hint = (f"a hint by {self.hinter.spec} ({budget_text(self.hinter.budget())})"
                if self.hinter.spec else "a hint")
        return "\n".join(textwrap.fill(text, 92, subsequent_indent="  ") for text in (
            f"enter a move (notation, Tab completes, or action id); ? for {hint}; undo; "
            "board; moves; help; quit (the game is saved)",
            "a hint lists the moves in the order its bot ranks them (MCTS: most visits "
            "first), the move it would play first, not in the order of win%; Ctrl-C stops "
            "its search and the game goes on",
            BOARD_RULE))

    def _moved(self, player: int) -> None:
        """`player` moved: the other humans see the board at their next decision."""
        self.board_due |= self.humans - {player}

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
            self.say(f"  chance: {self.words(action).removeprefix('chance:')}")
            s.apply(action)
            return
        p = s.current_player
        seat = self.seats[p]
        if seat is not None:
            action = seat.choose(s.view(p))
            self.say(f"  P{p} ({self.specs[p]}): {self.words(action)}")
            s.apply(action)
            self._moved(p)
            return
        self.human(p)

    def human(self, p: int) -> None:
        s = self.state
        if p in self.board_due or decision_kind(s) == "turn-start":
            self.say("\n" + s.view(p).render())
            if not self.notation:   # the board lists the moves by notation only
                self.say(self._moves_line())
        else:
            self.say(f"\nNow: {describe_decision(s)}\n{self._moves_line()}")
        self.board_due.discard(p)
        while True:
            line = self._ask(p)
            word = line.strip()
            if not word:
                continue
            low = word.lower()
            if low == "quit":
                raise _Quit("quit")
            if low == "help":
                self.say(self.help_text())
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
                said = f"  P{p} (human): {self.words(action)}"
                s.apply(action)
                self._moved(p)
                self.say(said)
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
        """The hint bot's moves for `p`, searched where Ctrl-C stops the search (the best
        so far is shown) without ending the game."""
        view = self.state.view(p)
        bot = self.hinter.make()   # a fresh bot per search, as the service does
        budget, _ = resolve_budget(bot, Budget(), self.hinter.limits, None)
        search = Search(bot, view, budget, spec=self.hinter.spec)
        name = self.hinter.spec or bot.name
        self.say(f"searching ({name}, {budget_text(budget)}; Ctrl-C stops the hint)...")
        runner = StopOnCtrlC(search.reports(HINT_INTERVAL_MS), search.stop,
                             note="interrupted: stopping the hint, keeping the best so far; "
                                  "the game goes on (Ctrl-C again quits it)")
        last: Report | None = None
        for last in runner:
            pass
        if last is None or not last.analysis.moves:
            self.say("hint stopped before the search found a move")
            return
        a = last.analysis
        done = f"{counted(a.iterations, 'iteration')} in {last.elapsed_ms:.0f} ms"
        done = f"stopped (Ctrl-C) after {done}: the best so far" if runner.interrupted \
            else f"searched {done}"
        self.say(f"hint by {name} (budget {budget_text(budget)}): {done}")
        self.say(hint_table(view, a, notation=self.notation))

    def undo(self) -> bool:
        """Back to the previous human decision; False (and a note) if there is none."""
        if not self.marks:
            self.say("nothing to undo (no earlier decision of a human seat)")
            return False
        back = self.marks.pop()
        taken = []
        while len(self.state.history) > back:
            taken.append(self.words(self.state.undo()))
        self.say(f"undone: {'; '.join(reversed(taken))}")
        self.board_due = set(self.humans)
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
        self.say(f"saved {what} ({counted(len(s.history), 'action')}) to {self.record} "
                 f"(gallerist replay {self.record})")


def hint_table(view: engine.GameState, analysis: Any, limit: int = 10,
               notation: bool = False) -> str:
    """A hint's moves in the order the bot ranks them, that order said first; then the
    whole plan of #1. In words (`engine.describe_moves`), the plan one step a line
    (`plan_lines`); by notation (`notation`), each move with its plan (`turn_plan`)."""
    moves = analysis.moves[:limit]
    order = ("ranked by visits, most first (the bot plays #1), not by win%"
             if any(m.visits for m in analysis.moves) else
             "ranked by the bot's value, best first (the bot plays #1), not by win%")
    words = {} if notation else engine.describe_moves(view)
    names = [words.get(m.action, m.notation) for m in moves]
    width = max([28] + [len(n) for n in names])
    money = "/".join(f"P{i}" for i in range(view.num_players))
    head = f"{'#':>2}  {'move':<{width}} {'visits':>7} {'win%':>6}  {'expected $ ' + money:<17}"
    rows = [f"moves {order}:", (head + "  plan after the move") if notation else head.rstrip()]
    for i, (m, name) in enumerate(zip(moves, names)):
        win = f"{100 * m.win_probability:5.1f}%" if m.win_probability is not None else "     -"
        dollars = "/".join(f"{x:.0f}" for x in m.expected_money)
        row = f"{i + 1:>2}  {name:<{width}} {m.visits:>7} {win}  {dollars:<17}"
        if notation:
            plan = turn_plan(view, m.pv)
            row += "  " + (plan[:67] + "..." if len(plan) > 70 else plan)
        rows.append(row.rstrip())
    if notation:
        rows.append(f"plan of #1 {moves[0].notation}: {turn_plan(view, moves[0].pv)}")
    else:
        rows.append(f"plan of #1 ({names[0]}):")
        rows += [f"  {line}" for line in plan_lines(view, moves[0].pv)]
    return "\n".join(rows)


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


def run(args: argparse.Namespace, seats: list[Any], hint: HintBot) -> int:
    """``gallerist play`` with a human seat."""
    game = TerminalGame(list(args.bots), seats, args.seed, hint.make,
                        args.record or "play-game.jsonl", hint_spec=hint.spec,
                        hint_limits=hint.limits, notation=getattr(args, "notation", False))
    use_readline(game)
    game.say(describe(game))
    game.say(game.help_text())
    return game.play()
