"""The learned evaluation: the model file and its NumPy forward pass (`model_file`),
training with JAX (`train`, its options, data and report) and the linear value."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "Model": "model_file", "ModelFileError": "model_file", "load_model": "model_file",
    "save_model": "model_file", "model_path": "model_file", "TrainingError": "options",
    "load_records": "data", "train": "train",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
