"""Lazy re-exports for the subpackages of `gallerist.ai` (PEP 562): a name is imported
from its module on first use, so importing a package costs nothing it does not need
(no JAX, no matplotlib) and packages may name each other without import cycles."""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: `exports` maps a public name to the module
    (under `package`) that defines it; any other name is tried as a submodule."""
    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is not None:
            return getattr(importlib.import_module(f"{package}.{module}"), name)
        if not name.startswith("__"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return __getattr__
