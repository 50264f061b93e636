"""The benchmarks' figures files: `write_json` writes a run's figures where ``--json FILE``
asks for them (`search_bench.py`, `service_bench.py`, `openspiel_bench.py`,
`capacity.py` import it; a bench run as ``python bench/x.py`` finds it next to itself).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["write_json"]


def write_json(path: str | None, figures: Any, *, indent: int = 2,
               default: Callable[[Any], Any] | None = None) -> None:
    """Write `figures` as JSON (UTF-8) to `path`; nothing when `path` is empty or None.

    Args:
        path: the ``--json`` option's file.
        figures: the run's results (dicts, lists, numbers, strings).
        indent: JSON indentation.
        default: converts what JSON cannot hold (as `json.dump`'s ``default``).
    """
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=indent, default=default)
