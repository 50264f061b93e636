"""The training of a network: with JAX (`train`, its options, data and report) and the
linear value. The network and its model file are gallerist.ai.net."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {"TrainingError": "options", "load_records": "data", "train": "train"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
