"""Calibration: the maps from a search's statistics to the numbers a hint reports
(`maps`, shipped as `calibration.json`), their fit (`fit`) and its run on a data folder
(`fit_files`, ``gallerist calibrate``), the scores of forecasts (`metrics`) and how settled
a game is near its end (`endgame`)."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "Calibration": "maps", "CalibrationError": "maps", "outcome_spread": "endgame",
    "brier": "metrics", "ece": "metrics",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
