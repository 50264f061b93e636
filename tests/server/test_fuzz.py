"""Fuzzing: thousands of random and mutated states (proto fields, JSON, raw bytes) sent
to every rpc. Each answer must be OK or INVALID_ARGUMENT, and the server must stay
healthy and keep answering valid requests correctly."""
from __future__ import annotations

import json
import random
import time
from collections import Counter
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gallerist import engine
from gallerist.v1 import state_pb2
from gallerist.client import HintClient, hint_request
from server_testlib import chance_state, decision_states, terminal_state

REQUESTS = 3000
BOTS = ["greedy", "random", "mcts:iterations=8", "mcts:iterations=8,rollout=heuristic,cutoff=4",
        "expectimax:depth=1"]
_INTS = [0, 1, 2, 3, 4, 5, 7, 8, 19, 20, 21, 31, 32, 35, 36, 60, 99, 127, 128, 255, 256,
         9999, 10000, 32767, 32768, 65535, 65536, 2**31 - 1, 2**32 - 1]
_T = FieldDescriptor


def _random_int(rng: random.Random, field: FieldDescriptor, current: int) -> int:
    if field.type in (_T.TYPE_INT32, _T.TYPE_SINT32, _T.TYPE_SFIXED32, _T.TYPE_ENUM):
        pool = [v for v in _INTS if v < 2**31] + [-1, -2, -128, -(2**31)]
    elif field.type in (_T.TYPE_UINT64, _T.TYPE_FIXED64):
        pool = _INTS + [2**63, 2**64 - 1]
    else:
        pool = _INTS
    choice = rng.random()
    if choice < 0.4:
        return max(min(current + rng.choice([-2, -1, 1, 2]), max(pool)), min(pool))
    return rng.choice(pool)


def _messages(msg: Any) -> list[Any]:
    """Every message inside `msg`, itself included."""
    out = [msg]
    for field, value in msg.ListFields():
        if field.type == _T.TYPE_MESSAGE:
            items = value if field.is_repeated else [value]
            for item in items:
                out.extend(_messages(item))
    return out


def _mutate_field(msg: Any, rng: random.Random) -> None:
    """One random edit of one field of `msg`."""
    field = rng.choice(msg.DESCRIPTOR.fields)
    name = field.name
    if field.is_repeated:
        seq = getattr(msg, name)
        r = rng.random()
        if field.type == _T.TYPE_MESSAGE:
            if seq and r < 0.4:
                del seq[rng.randrange(len(seq))]
            elif seq and r < 0.8:
                seq.add().CopyFrom(seq[rng.randrange(len(seq))])
            else:
                seq.add()
        elif seq and r < 0.3:
            del seq[rng.randrange(len(seq))]
        elif seq and r < 0.7:
            i = rng.randrange(len(seq))
            seq[i] = _random_int(rng, field, seq[i])
        else:
            seq.append(_random_int(rng, field, 0))
    elif field.type == _T.TYPE_MESSAGE:
        if rng.random() < 0.3:
            msg.ClearField(name)
        else:
            getattr(msg, name).SetInParent()
    elif field.type == _T.TYPE_BOOL:
        setattr(msg, name, not getattr(msg, name))
    elif field.type == _T.TYPE_STRING:
        setattr(msg, name, rng.choice(["", "x", "move:AC", "\u00e9" * 3]))
    elif field.has_presence and rng.random() < 0.3:
        msg.ClearField(name)
    else:
        setattr(msg, name, _random_int(rng, field, getattr(msg, name)))


def mutate_proto(state: engine.GameState, rng: random.Random) -> Any:
    """A state's message with 1-3 random field edits anywhere in it."""
    msg = state.to_proto()
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        _mutate_field(rng.choice(_messages(msg)), rng)
    return msg


def mutate_json(state: engine.GameState, rng: random.Random) -> Any | None:
    """A state's JSON object with one random leaf replaced (values of other types
    included), parsed back into a message; None when it is not a message at all."""
    obj = json.loads(state.to_json())
    node: Any = obj
    for _ in range(6):
        keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = rng.choice(keys)
        child = node[key]
        if isinstance(child, (dict, list)) and child and rng.random() < 0.8:
            node = child
            continue
        node[key] = rng.choice([None, -1, 0, 1, 3, 40, 70000, 2**40, 1.5, True, "", "ZZ",
                                "ART_FORM_DIGITAL", "TASK_KIND_PAY", [], {}, [1, 2]])
        break
    msg = state_pb2.GameState()
    try:
        json_format.ParseDict(obj, msg)
    except (json_format.ParseError, ValueError, TypeError):
        return None
    return msg


def random_state(rng: random.Random) -> Any:
    """A message filled with random values (almost never a valid state)."""
    msg = state_pb2.GameState(schema_version=1, num_players=rng.choice([2, 3, 4]))
    for _ in range(rng.randrange(1, 60)):
        _mutate_field(rng.choice(_messages(msg)), rng)
    return msg


def _send(client: HintClient, raw: Any, msg: Any, rng: random.Random) -> grpc.StatusCode:
    """One rpc (chosen at random) with state `msg`; returns its status code."""
    kind = rng.random()
    try:
        if kind < 0.45:
            request = hint_request(msg, bot=rng.choice(BOTS), seed=rng.randrange(1000),
                                   max_moves=rng.choice([0, 1, 3]))
            if rng.random() < 0.2:
                request.perspective = rng.randrange(5)
            if rng.random() < 0.1:
                list(client.analyze_stream(request, timeout=10))
            else:
                client.suggest(request, timeout=10)
        elif kind < 0.65:
            client.legal_actions(msg, timeout=10)
        elif kind < 0.9:
            client.apply_action(msg, action=rng.randrange(engine.NUM_DISTINCT_ACTIONS + 5),
                                timeout=10)
        elif kind < 0.95:
            client.apply_action(msg, chance_seed=rng.randrange(1 << 62), timeout=10)
        else:
            data = bytearray(hint_request(msg, bot="greedy").SerializeToString())
            for _ in range(rng.randrange(1, 8)):
                if data:
                    data[rng.randrange(len(data))] = rng.randrange(256)
            if data and rng.random() < 0.3:
                del data[rng.randrange(len(data)):]
            raw(bytes(data), timeout=10)
    except grpc.RpcError as exc:
        return exc.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def test_fuzzed_states_get_ok_or_invalid_argument(client: HintClient,
                                                  demo: engine.GameState) -> None:
    """3000 requests with random, proto-mutated, JSON-mutated and byte-mutated states to
    all rpcs: only OK and INVALID_ARGUMENT come back, some mutated states are valid (and
    reach the bots), and afterwards the server is healthy and still answers correctly."""
    rng = random.Random(2024)
    bases = decision_states(40, seed=7) + [chance_state(s) for s in range(4)] + \
        [terminal_state(s) for s in range(2)] + [demo]
    bases += [s.view(rng.randrange(s.num_players)) for s in bases[:10]]
    raw = client.channel.unary_unary("/gallerist.v1.GalleristAI/SuggestMoves")
    codes: Counter[str] = Counter()
    skipped = 0
    t0 = time.perf_counter()
    for i in range(REQUESTS):
        base = rng.choice(bases)
        r = rng.random()
        if r < 0.1:
            msg: Any = random_state(rng)
        elif r < 0.3:
            msg = mutate_json(base, rng)
            if msg is None:
                skipped += 1
                continue
        elif r < 0.9:
            msg = mutate_proto(base, rng)
        else:
            msg = base.to_proto()
        code = _send(client, raw, msg, rng)
        codes[code.name] += 1
        assert code in (grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT), \
            f"request {i}: {code.name}"
    elapsed = time.perf_counter() - t0
    assert set(codes) == {"OK", "INVALID_ARGUMENT"}, codes
    assert codes["OK"] >= 200, codes          # enough valid states got through to the bots
    assert skipped < REQUESTS // 5
    assert elapsed < 30, f"fuzzing took {elapsed:.1f} s"
    health = health_pb2_grpc.HealthStub(client.channel)
    assert health.Check(health_pb2.HealthCheckRequest()).status == \
        health_pb2.HealthCheckResponse.SERVING
    r = client.suggest(hint_request(demo, bot="mcts:iterations=100", seed=1))
    assert sorted(m.action for m in r.moves) == demo.legal_actions()
    assert r.stats.iterations == 100
