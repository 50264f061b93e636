"""Build script: compiles the Cython extensions and generates the protobuf/gRPC stubs.

`pip install -e ".[dev]"` runs this file. `python setup.py build_ext --inplace`
rebuilds after a `.pyx` edit. `GALLERIST_CYTHON_DEBUG=1` turns bounds and
wraparound checks back on; `GALLERIST_CYTHON_ANNOTATE=1` writes the HTML reports.
"""
from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "proto"))

MOD_NAMES = [
    "engine._core",
    "engine.state",
    "engine._consistency",
    "engine._reader",
    "engine._writer",
    "ai._evaluation",
    "ai._rollout",
    "ai._greedy",
    "ai._mcts",
    "ai._expectimax",
]


def _extensions() -> list:
    from Cython.Build import cythonize

    debug = os.environ.get("GALLERIST_CYTHON_DEBUG") == "1"
    directives = {
        "language_level": 3,
        "boundscheck": debug,
        "wraparound": debug,
        "cdivision": not debug,
        "initializedcheck": debug,
    }
    exts = []
    for name in MOD_NAMES:
        path = name.replace(".", "/") + ".pyx"
        if not os.path.exists(os.path.join(HERE, path)):
            continue
        exts.append(
            Extension(
                name,
                [path],
                include_dirs=[os.path.join(HERE, "engine")],
                extra_compile_args=["-O3"] if not debug else ["-O0", "-g"],
            )
        )
    return cythonize(
        exts,
        compiler_directives=directives,
        annotate=os.environ.get("GALLERIST_CYTHON_ANNOTATE") == "1",
    )


def _generate_sources() -> None:
    from generate import generate  # proto/generate.py

    generate()
    sys.path.insert(0, os.path.join(HERE, "engine"))
    from gen_raw import generate as generate_raw  # engine/gen_raw.py

    generate_raw()


_generate_sources()
setup(ext_modules=_extensions())
