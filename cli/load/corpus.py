"""The corpus of a load test: recorded positions of bot games (`bench/make_corpus.py`
records one; the package ships `states.jsonl.gz`, 120 positions, beside this module)."""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CorpusState", "DEFAULT_CORPUS", "load_corpus"]

#: The packaged corpus: decision points of every stage of 2-, 3- and 4-player bot games.
DEFAULT_CORPUS = str(Path(__file__).resolve().with_name("states.jsonl.gz"))


@dataclass(frozen=True)
class CorpusState:
    """One recorded position (see `bench/make_corpus.py`).

    Attributes:
        state: the position as a dict in protobuf's JSON mapping of `gallerist.v1.GameState`.
        players: 2..4.
        stage: "opening", "early", "mid", "late" or "final".
        to_move: the seat to move (sent as the request's perspective).
        kind: the decision point's short name ("turn-start", "buy", ...).
    """

    state: dict[str, Any]
    players: int
    stage: str
    to_move: int
    kind: str


def load_corpus(path: str = DEFAULT_CORPUS) -> list[CorpusState]:
    """Read a corpus (JSON Lines, gzip-compressed if the name ends in .gz)."""
    opener: Any = gzip.open if path.endswith(".gz") else open
    out = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                out.append(CorpusState(state=row["state"], players=int(row["players"]),
                                       stage=str(row["stage"]), to_move=int(row["to_move"]),
                                       kind=str(row.get("kind", ""))))
    if not out:
        raise ValueError(f"{path}: no states")
    return out
