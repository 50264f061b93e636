"""Self-play: games between copies of a bot recorded for training (`run`), the
records' layout (`records`) and their playout labels (`labels`)."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "SelfplayError": "records", "run_selfplay": "run", "read_manifest": "records", "read_shard": "run",
    "LabelError": "labels", "label_directory": "labels",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
