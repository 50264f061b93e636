"""Type stubs for the compiled state reader (engine/_reader.pyx)."""
from typing import Any

from gallerist.engine.state import GameState

SCHEMA_VERSION: int
SCORE_FIELDS: tuple[str, ...]

def task_rules() -> dict[int, tuple[bool, tuple[Any, Any, Any]]]: ...
def read_state(msg: Any) -> GameState: ...
def check_engine(state: GameState) -> None: ...
