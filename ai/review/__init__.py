"""Game review: every decision of a game searched and the move played compared with
the best (`analysis`), the games it reads (`games`) and the HTML review page (`page`)."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "analyze_game": "analysis", "GameInput": "games", "GameInputError": "games",
    "read_game": "games", "ReviewError": "page", "write_review_page": "page",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
