"""Type stubs for the compiled state writer (engine/_writer.pyx)."""
from engine.state import GameState

def write_state(state: GameState) -> bytes: ...
