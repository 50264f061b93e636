"""Locust users for the GalleristAI gRPC service (package data of the load test: locust
imports this file by its path, ``gallerist.cli.load.driver.LOCUSTFILE``).

Run it through the driver, which starts the servers and summarizes the run::

    gallerist loadtest --duration 60s --workers 2      # or python bench/loadtest.py

or directly against a running server (``gallerist serve --host 127.0.0.1 --port 50051``)::

    locust -f "$(python -c 'from gallerist.cli.load.driver import LOCUSTFILE; print(LOCUSTFILE)')" \\
        --headless -u 3 -r 10 -t 60s --host 127.0.0.1:50051 \\
        --budgets "time_ms=10*2,iterations=1000" --players 1

The host is a gRPC target: "HOST:PORT", or several servers behind client-side round-robin
load balancing, "ipv4:127.0.0.1:P1,127.0.0.1:P2" (one channel over both addresses with
``grpc.lb_policy_name=round_robin``).

Users:

- `HintUser` asks `SuggestMoves` for positions of a recorded corpus (the packaged
  ``states.jsonl.gz`` beside this file, `corpus.DEFAULT_CORPUS`: decision points of every
  stage of 2-, 3- and 4-player bot games, recorded by `bench/make_corpus.py`), as
  the seat to move (``perspective``), at a budget drawn from the mix (``--budgets``), back
  to back (``--hint-wait``).
- `PlayerUser` plays whole games as a game client without a rules engine would: NewGame,
  then LegalActions and ApplyAction (a random legal action, or at a chance event a
  server-drawn outcome) until the end, then a new game. ``--players N`` of them (fixed
  count); the other users are HintUsers.

Every call goes through `LocustInterceptor`, which reports it to locust's request event:
type "grpc", name = the rpc method (``SuggestMoves``, plus `` [budget]`` when the mix has
several entries), the response time in ms, the response size, and for a status other than
OK an exception `GrpcStatusError` ("INVALID_ARGUMENT: state.players[0].money: ..."), so
locust counts it as a failure under its status code. A RESOURCE_EXHAUSTED answer (every
search slot of that server busy: the server never queues) is retried by the interceptor
up to ``--retries`` times (the first at once, which round robin sends to the next
server, then with a short jittered backoff), as a client following the
service's "retry later" would; the call is reported once, with its whole time, and the
retries are counted separately (written to ``--extra-json`` and logged at the end).

Options (locust command line, or the environment variable named in brackets):
``--budgets`` [GALLERIST_BUDGETS], ``--players`` [GALLERIST_PLAYERS], ``--hint-wait`` and
``--play-wait`` seconds between calls [GALLERIST_HINT_WAIT, GALLERIST_PLAY_WAIT],
``--retries`` [GALLERIST_RETRIES], ``--deadline-s`` [GALLERIST_DEADLINE_S], ``--corpus``
[GALLERIST_CORPUS], ``--invalid-share`` fraction of SuggestMoves sent with a corrupted
state, to check failure accounting [GALLERIST_INVALID_SHARE], ``--extra-json``
[GALLERIST_EXTRA_JSON], ``--token`` [GALLERIST_TOKEN].
"""
from __future__ import annotations

import collections
import json
import logging
import os
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import gevent  # type: ignore[import-untyped]
from locust import User, events, task
from locust.env import Environment

import grpc
import grpc.experimental.gevent as grpc_gevent

# gRPC's C core must cooperate with gevent's loop; before any channel exists.
grpc_gevent.init_gevent()

from google.protobuf import json_format  # noqa: E402

from gallerist.v1 import hints_pb2, hints_pb2_grpc, state_pb2  # noqa: E402
from gallerist.cli.load.corpus import DEFAULT_CORPUS, load_corpus  # noqa: E402
from gallerist.cli.load.mix import DEFAULT_BUDGETS, BudgetMix  # noqa: E402

log = logging.getLogger("gallerist.locust")

#: Metadata key that carries a label for the request name; the interceptor removes it.
LABEL_KEY = "x-locust-label"


# ---------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    """The options of a run (see the module docstring)."""

    budgets: str = DEFAULT_BUDGETS
    players: int = 0
    hint_wait: float = 0.0
    play_wait: float = 0.0
    retries: int = 5
    deadline_s: float = 30.0
    corpus: str = DEFAULT_CORPUS
    invalid_share: float = 0.0
    extra_json: str = ""
    token: str = ""
    max_moves: int = 5

    @classmethod
    def of(cls, environment: Environment) -> "Settings":
        """From locust's parsed options; else (library use) from the GALLERIST_*
        environment variables; else the defaults."""
        opts = environment.parsed_options
        values: dict[str, Any] = {}
        for name, default in cls.__dataclass_fields__.items():
            kind = type(getattr(cls, name))
            value = getattr(opts, name, None) if opts is not None else None
            if value is None:
                value = os.environ.get(f"GALLERIST_{name.upper()}")
            values[name] = kind(value) if value is not None else getattr(cls, name)
        return cls(**values)


@events.init_command_line_parser.add_listener
def _add_options(parser: Any) -> None:
    d = Settings()
    g = parser      # locust's parser (its argument groups lack is_secret)
    g.add_argument("--budgets", type=str, env_var="GALLERIST_BUDGETS", default=d.budgets,
                   help="SuggestMoves budget mix: [BOT/]FIELD=VALUE[*WEIGHT],... with FIELD "
                        f"iterations, time_ms or depth (default {d.budgets!r})")
    g.add_argument("--players", type=int, env_var="GALLERIST_PLAYERS", default=d.players,
                   help="users playing whole games (LegalActions/ApplyAction); the rest "
                        "ask SuggestMoves (default 0)")
    g.add_argument("--hint-wait", type=float, env_var="GALLERIST_HINT_WAIT",
                   default=d.hint_wait, help="seconds between a HintUser's calls (default 0)")
    g.add_argument("--play-wait", type=float, env_var="GALLERIST_PLAY_WAIT",
                   default=d.play_wait, help="seconds between a PlayerUser's moves (default 0)")
    g.add_argument("--retries", type=int, env_var="GALLERIST_RETRIES", default=d.retries,
                   help="retries of a RESOURCE_EXHAUSTED call (default 5; 0: report it)")
    g.add_argument("--deadline-s", type=float, env_var="GALLERIST_DEADLINE_S",
                   default=d.deadline_s, help="deadline of every call, s (default 30)")
    g.add_argument("--corpus", type=str, env_var="GALLERIST_CORPUS", default=d.corpus,
                   help="states for SuggestMoves (default: the packaged corpus)")
    g.add_argument("--invalid-share", type=float, env_var="GALLERIST_INVALID_SHARE",
                   default=d.invalid_share,
                   help="fraction of SuggestMoves sent with a corrupted state (default 0)")
    g.add_argument("--extra-json", type=str, env_var="GALLERIST_EXTRA_JSON",
                   default=d.extra_json, help="write retries and games played here at the end")
    g.add_argument("--token", type=str, env_var="GALLERIST_TOKEN", default=d.token,
                   help="the server's shared token, if any", is_secret=True)


# ---------------------------------------------------------------------------- interceptor


class GrpcStatusError(Exception):
    """A call that ended with a status other than OK; locust groups failures by its repr,
    so the status code leads: ``GrpcStatusError('INVALID_ARGUMENT: state...')``."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        text = " ".join((details or "").split())
        super().__init__(f"{code.name}: {text[:160]}")
        self.code = code
        self.details = details


class _CallDetails(collections.namedtuple(
        "_CallDetails", ("method", "timeout", "metadata", "credentials", "wait_for_ready",
                         "compression")), grpc.ClientCallDetails):
    """Client call details with some metadata removed."""


class Counters:
    """Per-process counts beside locust's statistics (reset with them)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.retries: collections.Counter[str] = collections.Counter()
        self.busy_after_retries = 0
        self.games = 0

    def reset(self) -> None:
        """Forget every count."""
        with self.lock:
            self.retries.clear()
            self.busy_after_retries = 0
            self.games = 0

    def as_dict(self) -> dict[str, Any]:
        """The counts, as JSON-able values."""
        return {"retries": dict(self.retries), "retries_total": sum(self.retries.values()),
                "busy_after_retries": self.busy_after_retries, "games_finished": self.games}


COUNTERS = Counters()


class LocustInterceptor(grpc.UnaryUnaryClientInterceptor):
    """Reports every unary call to locust's ``request`` event (gevent-friendly: it only
    waits on the call, which yields to other greenlets under `init_gevent`).

    Args:
        environment: the locust environment whose events receive the reports.
        retries: how many times to retry a RESOURCE_EXHAUSTED answer (0: never).
        backoff_s: the first retry goes at once (behind round robin it goes to the next
            server); the second waits `backoff_s` on average, each later one twice as
            long as the one before, capped at 0.1 s, jittered by +-50%.
    """

    def __init__(self, environment: Environment, retries: int = 0,
                 backoff_s: float = 0.005) -> None:
        self.environment = environment
        self.retries = retries
        self.backoff_s = backoff_s

    def intercept_unary_unary(self, continuation: Any, client_call_details: Any,
                              request: Any) -> Any:
        """Make the call (retrying RESOURCE_EXHAUSTED), report it, return its outcome."""
        method = client_call_details.method
        if isinstance(method, bytes):
            method = method.decode()
        name = method.rsplit("/", 1)[-1]
        metadata = list(client_call_details.metadata or ())
        labels = [v for k, v in metadata if k == LABEL_KEY]
        if labels:
            name = f"{name} [{labels[0]}]"
            client_call_details = _CallDetails(
                client_call_details.method, client_call_details.timeout,
                [(k, v) for k, v in metadata if k != LABEL_KEY] or None,
                client_call_details.credentials, client_call_details.wait_for_ready,
                getattr(client_call_details, "compression", None))
        t0 = time.perf_counter()
        attempt = 0
        while True:
            outcome = continuation(client_call_details, request)
            code = outcome.code()          # waits for the call to end
            if code != grpc.StatusCode.RESOURCE_EXHAUSTED or attempt >= self.retries:
                break
            attempt += 1
            with COUNTERS.lock:
                COUNTERS.retries[name] += 1
            if attempt > 1:     # the first retry at once: round robin picks another server
                wait = min(0.1, self.backoff_s * 2 ** (attempt - 2))
                gevent.sleep(wait * random.uniform(0.5, 1.5))
        elapsed_ms = (time.perf_counter() - t0) * 1000.0
        exception: Exception | None = None
        length = 0
        if code == grpc.StatusCode.OK:
            length = outcome.result().ByteSize()
        else:
            exception = GrpcStatusError(code, outcome.details() or "")
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                with COUNTERS.lock:
                    COUNTERS.busy_after_retries += 1
        self.environment.events.request.fire(
            request_type="grpc", name=name, response_time=elapsed_ms,
            response_length=length, response=outcome, context={"attempts": attempt + 1},
            exception=exception)
        return outcome


# ---------------------------------------------------------------------------- channels


_channels: dict[tuple[int, str], tuple[grpc.Channel, Any]] = {}


def normalize_target(host: str) -> str:
    """The gRPC target of locust's host: a "grpc://" prefix is dropped."""
    target = (host or "").strip()
    if not target:
        raise ValueError("no host: give --host HOST:PORT (or ipv4:ADDR1,ADDR2)")
    return target.removeprefix("grpc://")


def shared_stub(environment: Environment, host: str, settings: Settings) -> Any:
    """The stub of this process's one channel to `host` (created on first use): every
    user shares it, as the threads of one client process would, so with several
    addresses round robin alternates their calls over the servers."""
    key = (id(environment), host)
    if key not in _channels:
        options = [("grpc.lb_policy_name", "round_robin"),
                   ("grpc.max_receive_message_length", 16 << 20)]
        channel = grpc.insecure_channel(normalize_target(host), options=options)
        channel = grpc.intercept_channel(
            channel, LocustInterceptor(environment, retries=settings.retries))
        stub = hints_pb2_grpc.GalleristAIStub(channel)  # type: ignore[no-untyped-call]
        _channels[key] = (channel, stub)
    return _channels[key][1]


def close_channels() -> None:
    """Close every shared channel."""
    for channel, _ in _channels.values():
        channel.close()
    _channels.clear()


# ---------------------------------------------------------------------------- users


class GalleristUser(User):
    """Base of the users: settings, a seeded random source, the shared stub."""

    abstract = True

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.settings = Settings.of(environment)
        self.rng = random.Random()
        self.stub = shared_stub(environment, self.host or environment.host or "",
                                self.settings)
        self.metadata: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {self.settings.token}"),) if self.settings.token else ())
        self.wait_s = 0.0

    def wait_time(self) -> float:
        """Seconds between two tasks of this user (--hint-wait, --play-wait)."""
        return self.wait_s


_corpus_cache: dict[str, list[state_pb2.GameState]] = {}
_corpus_meta: dict[str, list[Any]] = {}


def corpus_messages(path: str) -> tuple[list[state_pb2.GameState], list[Any]]:
    """The corpus as parsed `GameState` messages (and its rows), read once per process."""
    if path not in _corpus_cache:
        rows = load_corpus(path)
        _corpus_cache[path] = [json_format.ParseDict(r.state, state_pb2.GameState())
                               for r in rows]
        _corpus_meta[path] = rows
    return _corpus_cache[path], _corpus_meta[path]


class HintUser(GalleristUser):
    """Asks SuggestMoves for corpus positions at budgets of the mix, back to back."""

    weight = 1

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.mix = BudgetMix.parse(self.settings.budgets)
        self.states, self.rows = corpus_messages(self.settings.corpus)
        self.labelled = len(self.mix.choices) > 1
        self.wait_s = self.settings.hint_wait

    def request(self) -> tuple[Any, str]:
        """A HintRequest for a random corpus position and budget, and its label."""
        i = self.rng.randrange(len(self.states))
        choice = self.mix.pick(self.rng)
        request = hints_pb2.HintRequest(
            state=self.states[i], bot_spec=choice.bot,
            budget=hints_pb2.Budget(iterations=choice.iterations, time_ms=choice.time_ms,
                                    depth=choice.depth),
            max_moves=self.settings.max_moves, seed=self.rng.randrange(1 << 62),
            perspective=self.rows[i].to_move)
        label = choice.label
        if self.settings.invalid_share and self.rng.random() < self.settings.invalid_share:
            request.state.players[0].money = 100_000      # above the 9999 the schema allows
            label = "invalid-state"
        return request, label

    @task
    def suggest_moves(self) -> None:
        """One SuggestMoves call."""
        request, label = self.request()
        metadata = self.metadata
        if self.labelled or label == "invalid-state":
            metadata = metadata + ((LABEL_KEY, label),)
        try:
            self.stub.SuggestMoves(request, timeout=self.settings.deadline_s,
                                   metadata=metadata)
        except grpc.RpcError:
            pass    # already reported as a failure by the interceptor


class PlayerUser(GalleristUser):
    """Plays whole games through the service: NewGame, then LegalActions + ApplyAction
    per move (random legal actions; chance outcomes drawn by the server) to the end."""

    weight = 1

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.state: Any = None
        self.wait_s = self.settings.play_wait

    @task
    def step(self) -> None:
        """Start a game, or look at the position and make one move."""
        timeout = self.settings.deadline_s
        try:
            if self.state is None:
                players = self.rng.choice((2, 3, 4))
                response = self.stub.NewGame(
                    hints_pb2.NewGameRequest(num_players=players,
                                             seed=self.rng.randrange(1 << 62)),
                    timeout=timeout, metadata=self.metadata)
                self.state = response.state
                return
            legal = self.stub.LegalActions(hints_pb2.LegalActionsRequest(state=self.state),
                                           timeout=timeout, metadata=self.metadata)
            kind = legal.position.kind
            if kind == hints_pb2.POSITION_KIND_TERMINAL or not legal.actions:
                self.state = None
                with COUNTERS.lock:
                    COUNTERS.games += 1
                return
            request = hints_pb2.ApplyActionRequest(state=self.state)
            if kind == hints_pb2.POSITION_KIND_CHANCE:
                request.chance_seed = self.rng.randrange(1 << 62)
            else:
                request.action = self.rng.choice(legal.actions).action
            self.state = self.stub.ApplyAction(request, timeout=timeout,
                                               metadata=self.metadata).state
        except grpc.RpcError:
            self.state = None     # reported by the interceptor; start a new game


# ---------------------------------------------------------------------------- events


_environment: list[Environment] = []


@events.init.add_listener
def _on_init(environment: Environment, **kwargs: Any) -> None:
    """Apply --players: that many PlayerUsers (fixed count), the rest HintUsers."""
    _environment[:] = [environment]
    players = Settings.of(environment).players
    PlayerUser.fixed_count = max(0, players)
    if players <= 0 and PlayerUser in environment.user_classes:
        environment.user_classes[:] = [u for u in environment.user_classes
                                       if u is not PlayerUser]
    if players > 0 and environment.parsed_options is not None:
        users = getattr(environment.parsed_options, "num_users", None)
        if users is not None and users <= players and HintUser in environment.user_classes:
            environment.user_classes[:] = [u for u in environment.user_classes
                                           if u is not HintUser]


@events.spawning_complete.add_listener
def _on_spawned(user_count: int, **kwargs: Any) -> None:
    """With --reset-stats, the counts restart with locust's statistics."""
    if _environment and _environment[0].reset_stats:
        COUNTERS.reset()


@events.test_stop.add_listener
def _on_test_stop(environment: Environment, **kwargs: Any) -> None:
    counts = COUNTERS.as_dict()
    log.info("retries after RESOURCE_EXHAUSTED: %d %s; still busy after retries: %d; "
             "games finished: %d", counts["retries_total"], counts["retries"],
             counts["busy_after_retries"], counts["games_finished"])
    path = Settings.of(environment).extra_json
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(counts, fh, indent=2)


@events.quitting.add_listener
def _on_quitting(environment: Environment, **kwargs: Any) -> None:
    close_channels()
