"""Type stubs for the compiled writer (engine/_fastwrite.pyx)."""
from engine.state import GameState

def encode(state: GameState) -> bytes | None: ...
