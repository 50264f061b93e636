"""Interoperation: The Gallerist as an OpenSpiel game, and OpenSpiel's bots in the
arena."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "GalleristGame": "openspiel_game", "OpenSpielMctsBot": "openspiel_bots",
    "OpenSpielRandomBot": "openspiel_bots",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
