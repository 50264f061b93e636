"""Type stubs for the observation tensor's layout (engine/_observation.pyx)."""
#: Floats in an observation (GameState.observation), the same for 1..4 players.
OBSERVATION_SIZE: int
#: The layout's version: a model trained on one layout is refused on another.
OBSERVATION_VERSION: int
#: Seat block k of the tensor starts at SEAT_OFFSET + k * SEAT_BLOCK_SIZE.
SEAT_OFFSET: int
SEAT_BLOCK_SIZE: int
#: field name -> (low, high), the documented bounds of its values.
FIELD_RANGES: dict[str, tuple[float, float]]

def observation_fields() -> list[tuple[str, int, int, str]]:
    """(name, offset, length, description) of every field, in order."""
