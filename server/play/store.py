"""Where hosted games live: a database, through SQLAlchemy Core, so that one code path
serves the embedded default (SQLite, a file under the data directory) and PostgreSQL
(replicas that share games). A game is its record: setup, seed, bots, every action
played and the person's undo marks; the state is rebuilt by replaying the actions, and
chance draws and bot seeds derive from the seed and the ply, so a game read back plays on
exactly as it would have. Every write is one transaction, checked against the game's
version: two moves in one game at once, one wins and the other is told the game moved.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from gallerist.ai.settings.setting import Setting, Settings
from gallerist.server.status import RESOURCE_EXHAUSTED, UNAVAILABLE, ServiceError

__all__ = ["GAME_SETTINGS", "SCHEMA_VERSION", "GameRecord", "GameStore", "StoreError",
           "StoreFull", "default_database", "database_url"]

#: The caps on hosted games, each declared once: `GameStore`'s defaults, the ``serve``
#: flags, the replicas' arguments and the table of docs/operations.md come from here.
GAME_SETTINGS = Settings(
    "hosted games",
    Setting("per_client", 20, "unfinished games one client (its token, else its address) "
            "may have; past it StartGame is refused, nothing is evicted", low=1,
            high=1_000_000, flag="--games-per-client", metavar="N"),
    Setting("capacity", 10_000, "unfinished games the server holds", low=1,
            high=100_000_000, flag="--games-max", metavar="N"),
    Setting("idle_days", 30.0, "a game untouched this long is deleted", low=0.01,
            high=36500, flag="--game-days", metavar="D", unit="days"),
)
_GAMES = GAME_SETTINGS.defaults

#: the layout of the tables below; a database of another version is refused at start
SCHEMA_VERSION = 1

_meta = sa.MetaData()
_info = sa.Table("gallerist_info", _meta,
                 sa.Column("key", sa.String(64), primary_key=True),
                 sa.Column("value", sa.String(256), nullable=False))
_games = sa.Table(
    "gallerist_games", _meta,
    sa.Column("game_id", sa.String(64), primary_key=True),
    sa.Column("owner", sa.String(128), nullable=False),          # the client that started it
    sa.Column("player_key", sa.String(64), nullable=False),     # the page's player ("": none)
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("bots", sa.Text, nullable=False),                 # JSON: seat -> spec, budget, name
    sa.Column("actions", sa.Text, nullable=False),              # JSON: every action played
    sa.Column("marks", sa.Text, nullable=False),                # JSON: the person's undo marks
    sa.Column("version", sa.Integer, nullable=False),           # +1 at every write
    sa.Column("created", sa.Float, nullable=False),             # unix seconds
    sa.Column("updated", sa.Float, nullable=False),
    sa.Column("finished", sa.Boolean, nullable=False),
    sa.Column("result", sa.Text, nullable=False),               # JSON ({} until the end)
    sa.Column("strength", sa.Text, nullable=False),             # JSON ({} until reviewed)
    sa.Index("gallerist_games_owner", "owner", "finished"),
    sa.Index("gallerist_games_player", "player_key", "updated"),
    sa.Index("gallerist_games_updated", "updated"),
)


class StoreError(ServiceError):
    """The games database cannot be used (unreachable, corrupt, read-only, full, or of
    another schema version)."""

    status = UNAVAILABLE


class StoreFull(ServiceError):
    """A cap on active games is reached; nothing is evicted."""

    status = RESOURCE_EXHAUSTED


@dataclass
class GameRecord:
    """One hosted game as the database holds it."""

    game_id: str
    owner: str
    player_key: str
    players: int
    seat: int
    seed: int
    bots: dict[int, dict[str, Any]]
    actions: list[int] = field(default_factory=list)
    marks: list[int] = field(default_factory=list)
    version: int = 0
    created: float = 0.0
    updated: float = 0.0
    finished: bool = False
    result: dict[str, Any] = field(default_factory=dict)
    strength: dict[str, Any] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "owner": self.owner, "player_key": self.player_key,
                "players": self.players, "seat": self.seat, "seed": self.seed,
                "bots": json.dumps({str(k): v for k, v in self.bots.items()}),
                "actions": json.dumps(self.actions), "marks": json.dumps(self.marks),
                "version": self.version, "created": self.created, "updated": self.updated,
                "finished": self.finished, "result": json.dumps(self.result),
                "strength": json.dumps(self.strength)}

    @classmethod
    def from_row(cls, row: Any) -> GameRecord:
        m = row._mapping
        return cls(game_id=m["game_id"], owner=m["owner"], player_key=m["player_key"],
                   players=int(m["players"]), seat=int(m["seat"]), seed=int(m["seed"]),
                   bots={int(k): v for k, v in json.loads(m["bots"]).items()},
                   actions=[int(a) for a in json.loads(m["actions"])],
                   marks=[int(a) for a in json.loads(m["marks"])], version=int(m["version"]),
                   created=float(m["created"]), updated=float(m["updated"]),
                   finished=bool(m["finished"]), result=json.loads(m["result"]),
                   strength=json.loads(m["strength"]))


def default_database() -> Path:
    """The embedded default: ``games.sqlite3`` in the data directory
    ($GALLERIST_DATA, else $XDG_DATA_HOME/gallerist, else ~/.local/share/gallerist)."""
    base = os.environ.get("GALLERIST_DATA") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                        "share"), "gallerist")
    return Path(base) / "games.sqlite3"


def database_url(where: str | os.PathLike[str]) -> str:
    """A SQLAlchemy URL for `where`: a URL as it is (``postgresql://...``,
    ``sqlite://`` in memory), a path as a SQLite file (its folder made)."""
    text = os.fspath(where)
    if "://" in text:
        if text.startswith(("postgresql://", "postgres://")):   # psycopg 3, not psycopg2
            text = "postgresql+psycopg://" + text.split("://", 1)[1]
        return text
    path = Path(text).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def _why(exc: BaseException) -> str:
    """A database error in one line."""
    orig = getattr(exc, "orig", None) or exc
    return " ".join(str(orig).split())[:300]


class GameStore:
    """The hosted games, in a database.

    Args:
        where: a SQLite file, or a database URL (``postgresql://user@host/db``).
        per_client: active (unfinished) games one client may have at once.
        capacity: active games in the whole store.
        idle_days: a game untouched this long is deleted.
        (Their defaults and ranges: `GAME_SETTINGS`.)

    Raises:
        StoreError: the database cannot be opened, written or is of another schema.
    """

    def __init__(self, where: str | os.PathLike[str] = "sqlite://", *,
                 per_client: int = _GAMES["per_client"], capacity: int = _GAMES["capacity"],
                 idle_days: float = _GAMES["idle_days"]) -> None:
        self.url = database_url(where)
        self.per_client = per_client
        self.capacity = capacity
        self.idle_days = idle_days
        self._shown = sa.engine.make_url(self.url).render_as_string(hide_password=True)
        kwargs: dict[str, Any] = {}
        if self.url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 10, "check_same_thread": False}
            if self.url in ("sqlite://", "sqlite:///:memory:"):
                kwargs["poolclass"] = sa.pool.StaticPool   # one in-memory database
        else:
            kwargs["connect_args"] = {"connect_timeout": 5}
            kwargs["pool_pre_ping"] = True
        self._engine = sa.create_engine(self.url, **kwargs)
        if self.url.startswith("sqlite"):
            sa.event.listen(self._engine, "connect", _sqlite_pragmas)
        self._open()

    def __repr__(self) -> str:
        return f"GameStore({self._shown})"

    @property
    def where(self) -> str:
        """The database's URL, its password hidden."""
        return self._shown

    # ------------------------------------------------------------------ the schema

    def _open(self) -> None:
        try:
            with self._engine.begin() as db:
                _meta.create_all(db)
                row = db.execute(sa.select(_info.c.value).where(
                    _info.c.key == "schema_version")).first()
                if row is None:
                    db.execute(_info.insert().values(key="schema_version",
                                                     value=str(SCHEMA_VERSION)))
                found = int(row[0]) if row is not None else SCHEMA_VERSION
                if found == SCHEMA_VERSION:   # a write now: a read-only database fails here
                    db.execute(_info.delete().where(_info.c.key == "opened"))
                    db.execute(_info.insert().values(key="opened", value=f"{time.time():.0f}"))
        except SQLAlchemyError as exc:
            raise StoreError(f"games database {self._shown}: {_why(exc)}") from None
        if found != SCHEMA_VERSION:
            newer = found > SCHEMA_VERSION
            raise StoreError(
                f"games database {self._shown} has schema version {found}; this gallerist "
                f"reads version {SCHEMA_VERSION}: "
                + ("it was written by a newer gallerist: upgrade this one, or give another "
                   "--games-db" if newer else
                   "it was written by an older gallerist whose games this one cannot read; "
                   "give another --games-db"))

    def check(self) -> None:
        """Raise StoreError when the database does not answer (the health check)."""
        self._run(lambda db: db.execute(sa.select(sa.literal(1))).scalar_one(), "check")

    def close(self) -> None:
        self._engine.dispose()

    # ------------------------------------------------------------------ games

    def _run(self, work: Any, what: str) -> Any:
        """`work(connection)` in one transaction; database failures as StoreError."""
        try:
            with self._engine.begin() as db:
                return work(db)
        except ServiceError:
            raise
        except DBAPIError as exc:
            text = str(exc).lower()
            if "full" in text or "no space" in text:
                raise StoreFull(f"the games database is full (the disk holding it, or its "
                                f"size limit): it could not {what}: {_why(exc)}") from None
            raise StoreError(f"the games database failed to {what}: {_why(exc)}") from None
        except SQLAlchemyError as exc:
            raise StoreError(f"the games database failed to {what}: {_why(exc)}") from None

    def _expire(self, db: Any, now: float) -> None:
        db.execute(_games.delete().where(_games.c.updated < now - self.idle_days * 86400.0))

    def check_room(self, owner: str) -> None:
        """Raise StoreFull when `owner` (or the store) has no room for one more game."""
        self._run(lambda db: self._room(db, owner, time.time()), "count games")

    def _room(self, db: Any, owner: str, now: float) -> None:
        self._expire(db, now)
        active = _games.c.finished.is_(False)
        mine = db.execute(sa.select(sa.func.count()).where(active, _games.c.owner == owner)
                          ).scalar_one()
        if mine >= self.per_client:
            raise StoreFull(f"active games: this client has {mine} unfinished games, the "
                            f"limit per client ({self.per_client}); finish one, or wait "
                            f"{self.idle_days:g} days for an idle one to expire")
        total = db.execute(sa.select(sa.func.count()).where(active)).scalar_one()
        if total >= self.capacity:
            raise StoreFull(f"active games: the server holds {total} unfinished games, its "
                            f"limit ({self.capacity}); retry later")

    def add(self, record: GameRecord) -> None:
        """Store a new game (checking the caps in the same transaction)."""
        now = time.time()
        record.created = record.updated = now
        record.version = 1

        def work(db: Any) -> None:
            self._room(db, record.owner, now)
            db.execute(_games.insert().values(**record.row()))
        self._run(work, "store a new game")

    def load(self, game_id: str) -> GameRecord | None:
        """The game, or None when there is none of that id."""
        def work(db: Any) -> GameRecord | None:
            row = db.execute(sa.select(_games).where(_games.c.game_id == game_id)).first()
            return None if row is None else GameRecord.from_row(row)
        return self._run(work, "read a game")  # type: ignore[no-any-return]

    def save(self, record: GameRecord) -> bool:
        """Write the game if it is still at `record.version` in the database (then its
        version goes up by one); False when another write came first."""
        now = time.time()

        def work(db: Any) -> bool:
            values = record.row()
            values.update(version=record.version + 1, updated=now)
            for key in ("game_id", "owner", "created", "seed", "players", "seat"):
                values.pop(key)
            done = db.execute(_games.update().where(_games.c.game_id == record.game_id,
                                                    _games.c.version == record.version)
                              .values(**values))
            return bool(done.rowcount == 1)
        if not self._run(work, "save a move"):
            return False
        record.version += 1
        record.updated = now
        return True

    def games_of(self, player_key: str, limit: int = 100) -> list[GameRecord]:
        """A player's games, the most recent first."""
        def work(db: Any) -> list[GameRecord]:
            rows = db.execute(sa.select(_games).where(_games.c.player_key == player_key)
                              .order_by(_games.c.updated.desc()).limit(limit)).all()
            return [GameRecord.from_row(r) for r in rows]
        return self._run(work, "list games")  # type: ignore[no-any-return]


def _sqlite_pragmas(dbapi_connection: Any, record: Any) -> None:
    """SQLite as a server would want it: the write-ahead log (readers never wait for the
    writer), durable commits, foreign keys."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
    except Exception:  # noqa: BLE001 - an in-memory or read-only database keeps its mode
        pass
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()
