"""The observation tensor, GameState.observation(player) (engine/_observation.pyx,
docs/observation.md): exactly what view(player) shows, own seat
first, a fixed layout whose every field moves with its part of the state."""
from __future__ import annotations

import hashlib
import random
from pathlib import Path

import numpy as np
import pytest

from gallerist import engine
from gallerist.engine import _observation as O
from gallerist.engine.state import TASK_KINDS

SIZE = engine.OBSERVATION_SIZE
FIELDS = engine.observation_fields()
DOC = Path(__file__).resolve().parents[2] / "docs" / "observation.md"
#: random games per player count, and how often a position is kept
GAMES_PER_COUNT = 5
KEEP_EVERY = 7


def _random_games(num_players: int, games: int, seed: int) -> list[engine.GameState]:
    """Positions (every KEEP_EVERY-th, the terminal one included) of uniformly random
    games; chance events drawn with their probabilities."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        s = engine.new_game(num_players, rng.getrandbits(32))
        k = 0
        while not s.is_terminal():
            if k % KEEP_EVERY == 0:
                out.append(s.clone_position())
            k += 1
            if s.is_chance():
                s.apply_random_chance(rng.getrandbits(32))
            else:
                s.apply(rng.choice(s.legal_actions()))
        out.append(s.clone_position())
    return out


@pytest.fixture(scope="module")
def positions() -> list[engine.GameState]:
    out = []
    for n in (1, 2, 3, 4):
        out += _random_games(n, GAMES_PER_COUNT, seed=100 + n)
    return out


def _seat_slice(k: int) -> slice:
    start = O.SEAT_OFFSET + k * O.SEAT_BLOCK_SIZE
    return slice(start, start + O.SEAT_BLOCK_SIZE)


def test_layout_covers_the_vector_exactly_once():
    """observation_fields() is contiguous from 0 to OBSERVATION_SIZE, names unique, and
    the four seat blocks have the same fields at the same relative offsets."""
    offset = 0
    for name, off, length, desc in FIELDS:
        assert off == offset, name
        assert length > 0 and desc, name
        offset += length
    assert offset == SIZE
    names = [f[0] for f in FIELDS]
    assert len(set(names)) == len(names)
    seat = {k: [(n.split(".", 1)[1], off - _seat_slice(k).start, ln)
                for n, off, ln, _ in FIELDS if n.startswith(f"seat{k}.")] for k in range(4)}
    assert seat[0] == seat[1] == seat[2] == seat[3]
    assert sum(ln for _, _, ln in seat[0]) == O.SEAT_BLOCK_SIZE
    assert set(O.FIELD_RANGES) == set(names)
    assert engine.OBSERVATION_VERSION == 1


#: The layout each OBSERVATION_VERSION stands for: sha256 of [(name, offset, length)].
LAYOUTS = {1: "b848319da267f055"}


def test_a_layout_change_bumps_the_version():
    """Models are checked against OBSERVATION_VERSION, so the version names one layout:
    a change of names, offsets or lengths needs a new version (and a new entry here)."""
    digest = hashlib.sha256(repr([(n, o, ln) for n, o, ln, _ in FIELDS]).encode()).hexdigest()
    assert LAYOUTS.get(engine.OBSERVATION_VERSION) == digest[:16], (
        "the observation layout changed: bump OBSERVATION_VERSION in engine/_observation.pxd")


def test_task_kind_one_hot_covers_every_decision_and_chance_kind():
    """The task_kind one-hot spans kinds 1 .. T_AUTO_FIRST - 1: every decision and chance
    kind of the engine, and none of the automatic steps (never on top at a decision);
    task_stack spans every kind (automatic steps wait below the top)."""
    (length,) = [ln for n, _, ln, _ in FIELDS if n == "task_kind"]
    assert length == TASK_KINDS["T_AUTO_FIRST"] - 1
    assert min(TASK_KINDS.values()) == 1
    (length,) = [ln for n, _, ln, _ in FIELDS if n == "task_stack"]
    assert length == max(TASK_KINDS.values())


def test_docs_table_is_the_layout():
    """docs/observation.md lists every field with its offset, length and description."""
    text = DOC.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    parsed = []
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        parsed.append((cells[0].strip("`"), int(cells[1]), int(cells[2]), cells[3]))
    assert parsed == [(n, o, ln, d.replace("|", "/")) for n, o, ln, d in FIELDS]
    assert f"{SIZE}" in text and f"version {engine.OBSERVATION_VERSION}" in text.lower()


def test_shape_dtype_and_fixed_size_for_every_player_count():
    """float32 of shape (OBSERVATION_SIZE,) for 1..4 players; absent seats are zero and
    the player count is one-hot."""
    (off,) = [o for n, o, _, _ in FIELDS if n == "num_players"]
    for n in (1, 2, 3, 4):
        s = engine.new_game(n, seed=3)
        for p in range(n):
            o = s.observation(p)
            assert o.dtype == np.float32 and o.shape == (SIZE,)
            assert list(o[off:off + 4]) == [1.0 if k == n - 1 else 0.0 for k in range(4)]
            for k in range(4):
                assert o[_seat_slice(k)].any() == (k < n)


def test_never_depends_on_the_other_players_hidden_cards(positions):
    """Resampling what `player` cannot see (the other players' Curator and Art Dealer
    cards, GameState.resample_hidden) leaves its tensor unchanged, and the tensor of the
    full state is the tensor of view(player)."""
    checked = 0
    for i, s in enumerate(positions):
        for p in range(s.num_players):
            o = s.observation(p)
            assert np.array_equal(o, s.view(p).observation(p))
            for seed in (i, i + 1000):
                other = s.resample_hidden(p, seed)
                assert np.array_equal(o, other.observation(p))
                checked += 1
    assert checked > 1000


def test_hidden_cards_resampled_differ_somewhere(positions):
    """The resampling in the test above does change the hidden cards (so it tests
    something): the other seats' cards differ in some resampled states."""
    raw_differs = 0
    for i, s in enumerate(positions):
        if s.num_players < 2:
            continue
        other = s.resample_hidden(0, i)
        raw_differs += s.state_bytes() != other.state_bytes()
    assert raw_differs > 20


def test_own_cards_are_seen(positions):
    """own_curator / own_dealer are the one-hot of the observer's own cards."""
    f = {n: (o, ln) for n, o, ln, _ in FIELDS}
    for s in positions[::10]:
        raw = s._raw()
        for p in range(s.num_players):
            o = s.observation(p)
            for field, key in (("own_curator", "curator"), ("own_dealer", "dealer")):
                off, ln = f[field]
                assert int(np.argmax(o[off:off + ln])) == raw["players"][p][key]
                assert o[off:off + ln].sum() == 1.0


def test_every_field_takes_more_than_one_value(positions):
    """Over random games of 1..4 players, seen by every seat, each field of the layout
    (every seat's block included) takes at least two distinct values: no dead field."""
    seen = {name: set() for name, _, _, _ in FIELDS}
    for s in positions:
        for p in range(s.num_players):
            o = s.observation(p)
            for name, off, ln, _ in FIELDS:
                if len(seen[name]) < 2:
                    seen[name].add(o[off:off + ln].tobytes())
    dead = [name for name, vals in seen.items() if len(vals) < 2]
    assert not dead, f"fields constant over {len(positions)} positions: {dead}"


def test_values_finite_and_within_documented_ranges(positions):
    """Every value is finite and inside its field's documented bounds (FIELD_RANGES)."""
    for s in positions:
        for p in range(s.num_players):
            o = s.observation(p)
            assert np.isfinite(o).all()
            for name, off, ln, _ in FIELDS:
                lo, hi = O.FIELD_RANGES[name]
                part = o[off:off + ln]
                assert part.min() >= lo and part.max() <= hi, (name, part.min(), part.max())


def test_seat_blocks_are_own_seat_first(positions):
    """Seat block k of player p's tensor is player (p + k) % n: the block of a player is
    the same whoever observes it (so players 0 and 1 of a 2-player game see their blocks
    swapped), and its money and influence are that player's."""
    mo = [o for n, o, _, _ in FIELDS if n == "seat0.money"][0] - O.SEAT_OFFSET
    io = [o for n, o, _, _ in FIELDS if n == "seat0.influence"][0] - O.SEAT_OFFSET
    swapped = 0
    for s in positions:
        n = s.num_players
        obs = [s.observation(p) for p in range(n)]
        for p in range(n):
            for k in range(n):
                q = (p + k) % n
                block = obs[p][_seat_slice(k)]
                assert np.array_equal(block, obs[q][_seat_slice(0)])
                assert block[mo] == np.float32(s.money()[q] / 100.0)
                assert block[io] == np.float32(s.influence()[q] / 35.0)
        if n == 2 and not np.array_equal(obs[0][_seat_slice(0)], obs[0][_seat_slice(1)]):
            assert np.array_equal(obs[0][_seat_slice(0)], obs[1][_seat_slice(1)])
            assert np.array_equal(obs[0][_seat_slice(1)], obs[1][_seat_slice(0)])
            swapped += 1
    assert swapped > 10


def test_pieces_on_the_board_are_owned_by_relative_seats():
    """A piece's owner is a relative seat: the gallerist of player q on a location shows
    as seat (q - p) % n in player p's location_owner."""
    (off,) = [o for n, o, _, _ in FIELDS if n == "location_owner"]
    s = engine.new_game(3, seed=5)
    while s.current_player >= 0 and s.legal_actions()[0] < engine.ACTION_BASES["move"]:
        s.apply(s.legal_actions()[0])          # every start location chosen
        while s.is_chance():
            s.apply_random_chance(1)
    raw = s._raw()
    placed = [(loc, q) for loc, q in enumerate(raw["loc_owner"]) if q >= 0]
    assert len(placed) == 3
    for p in range(3):
        o = s.observation(p)
        for loc, q in placed:
            assert o[off + 5 * loc + (q - p) % 3] == 1.0
            assert o[off + 5 * loc:off + 5 * loc + 5].sum() == 1.0


def test_the_pending_decision_and_who_decides(positions):
    """to_move is one-hot (relative seat, chance, terminal), task_kind is the one-hot of
    the top task's kind (zero at the end) and task_stack the kinds pending below it."""
    f = {n: (o, ln) for n, o, ln, _ in FIELDS}
    tm, _ = f["to_move"]
    tk, tkl = f["task_kind"]
    ts, tsl = f["task_stack"]
    for s in positions:
        raw = s._raw()
        for p in range(s.num_players):
            o = s.observation(p)
            assert o[tm:tm + 6].sum() == 1.0
            cp = s.current_player
            if s.is_terminal():
                assert o[tm + 5] == 1.0 and not o[tk:tk + tkl].any()
                continue
            if cp == engine.CHANCE:
                assert o[tm + 4] == 1.0
            else:
                assert o[tm + (cp - p) % s.num_players] == 1.0
            top = raw["tasks"][raw["num_tasks"] - 1]["kind"]
            assert o[tk + top - 1] == 1.0 and o[tk:tk + tkl].sum() == 1.0
            below = {t["kind"] - 1 for t in raw["tasks"][:raw["num_tasks"] - 1]}
            assert set(np.flatnonzero(o[ts:ts + tsl])) == below


def test_terminal_state_observation(positions):
    """The observation of a finished game works for every seat and says terminal."""
    (tm,) = [o for n, o, _, _ in FIELDS if n == "to_move"]
    terminal = [s for s in positions if s.is_terminal()]
    assert len(terminal) == 4 * GAMES_PER_COUNT
    for s in terminal:
        for p in range(s.num_players):
            assert s.observation(p)[tm + 5] == 1.0


def test_out_argument_is_filled_and_returned():
    """observation(p, out) fills the given array and returns it."""
    s = engine.new_game(2, seed=1)
    buf = np.full(SIZE, np.nan, dtype=np.float32)
    got = s.observation(1, out=buf)
    assert got is buf
    assert np.array_equal(buf, s.observation(1))


@pytest.mark.parametrize("player", [-1, 2, 5, True, 1.0, "0", None])
def test_bad_player_is_a_value_error_naming_the_range(player):
    """A player that is not a seat is a ValueError naming `player` and 0..n-1."""
    s = engine.new_game(2, seed=1)
    with pytest.raises(ValueError, match=r"player must be an int in 0\.\.1"):
        s.observation(player)


@pytest.mark.parametrize("out, problem", [
    (np.zeros(SIZE, dtype=np.float64), "float64 of shape"),
    (np.zeros(SIZE + 1, dtype=np.float32), f"float32 of shape ({SIZE + 1},)"),
    (np.zeros((1, SIZE), dtype=np.float32), f"float32 of shape (1, {SIZE})"),
    (np.zeros(2 * SIZE, dtype=np.float32)[::2], "not C-contiguous"),
    ("read-only", "read-only"),
    ([0.0] * SIZE, "got list"),
])
def test_bad_out_is_a_value_error(out, problem):
    """`out` of the wrong type, dtype, shape or layout, or read-only, is a ValueError
    naming `out`, what it must be and what it is."""
    s = engine.new_game(2, seed=1)
    if isinstance(out, str):            # a float32 array of the right shape, read-only
        out = np.zeros(SIZE, dtype=np.float32)
        out.setflags(write=False)
    with pytest.raises(ValueError, match=rf"out must be a C-contiguous, writeable float32 numpy array of shape \({SIZE},\), got") as e:
        s.observation(0, out=out)
    assert problem in str(e.value)


def test_a_change_to_one_seat_moves_only_that_seats_block():
    """Giving player q $7 and a VIP ticket (from the box office) changes, in every observer
    p's tensor, seat block (q - p) % n's money and tickets and the box office, nothing else."""
    from gallerist.engine.state import GameState
    n = 3
    base = engine.new_game(n, seed=8)
    for q in range(n):
        raw = base._raw()
        raw["players"][q]["money"] += 7
        raw["players"][q]["tickets"][0] += 1
        raw["box"][0] -= 1
        changed = GameState._from_raw(raw)
        changed.check_invariants()
        for p in range(n):
            diff = np.flatnonzero(changed.observation(p) != base.observation(p))
            names = {name for name, off, ln, _ in FIELDS for i in diff if off <= i < off + ln}
            k = (q - p) % n
            assert names == {f"seat{k}.money", f"seat{k}.tickets", "box_office"}
