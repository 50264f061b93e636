"""The network's room: a trained evaluation network (value heads and policy) apart from
its training. `reference` the network in NumPy (`Model`, its reference forward pass, the
specification of the compiled one, ai/search/_model.pyx), `model_file` the `.npz` file
that holds it (format, load and save, checks), `packaged` the networks the package ships
(ai/models/) and the choice of one by player count (the priors of prior=auto, the value
networks of eval=auto, the shared evaluator of a file)."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "Model": "reference", "ModelFileError": "model_file", "load_model": "model_file",
    "save_model": "model_file", "model_path": "packaged", "load_evaluator": "packaged",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
