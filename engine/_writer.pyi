"""Type stubs for the compiled state writer (engine/_writer.pyx)."""
from gallerist.engine.state import GameState

def write_state(state: GameState) -> bytes: ...
