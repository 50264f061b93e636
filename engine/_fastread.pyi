"""Type stubs for the compiled reader (engine/_fastread.pyx)."""
from typing import Any

from engine.state import GameState

class Reader:
    def __init__(self, schema_version: int, max_history: int, num_actions: int,
                 task_table: dict[int, tuple[bool, tuple[Any, Any, Any]]]) -> None: ...
    def read(self, msg: Any) -> GameState | None: ...
