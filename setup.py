"""Build script: compiles the Cython extensions and generates the protobuf/gRPC/Connect stubs.

`pip install -e ".[dev]"` runs this file. `python setup.py build_ext --inplace`
rebuilds after a `.pyx` edit. `GALLERIST_CYTHON_DEBUG=1` turns bounds and
wraparound checks back on; `GALLERIST_CYTHON_ANNOTATE=1` writes the HTML reports.

The packages live under one import root, `gallerist` (pyproject.toml maps the
folders `engine/`, `ai/`, `server/` to `gallerist.engine`, ...). Cython looks for a
cimported `gallerist.engine._core` as `gallerist/engine/_core.pxd` on its include
path, so the build lays out that tree of links under `build/cython/`.
"""
from __future__ import annotations

import glob
import os
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT_PACKAGE = "gallerist"
#: the folders that hold compiled modules, as (folder, package)
COMPILED = (("engine", "gallerist.engine"), ("ai/search", "gallerist.ai.search"))
#: the top folders linked into the include tree, as (folder, package)
LINKED = (("engine", "gallerist.engine"), ("ai", "gallerist.ai"))
INCLUDE_TREE = os.path.join(HERE, "build", "cython")
#: processes that translate and compile the extensions (one per core)
JOBS = os.cpu_count() or 1


def _include_tree() -> str:
    """build/cython/gallerist/{engine,ai} -> the repository's folders (for cimports)."""
    root = os.path.join(INCLUDE_TREE, ROOT_PACKAGE)
    os.makedirs(root, exist_ok=True)
    open(os.path.join(root, "__init__.pxd"), "a").close()
    for folder, package in LINKED:
        link = os.path.join(root, package.rsplit(".", 1)[1])
        if os.path.islink(link) and os.readlink(link) == os.path.join(HERE, folder):
            continue
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(os.path.join(HERE, folder), link)
    return INCLUDE_TREE


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
    for folder, package in COMPILED:
        for path in sorted(glob.glob(os.path.join(folder, "*.pyx"))):
            name = package + "." + os.path.basename(path)[:-len(".pyx")]
            exts.append(Extension(
                name,
                [path],
                include_dirs=[os.path.join(HERE, "engine")],
                extra_compile_args=["-O3"] if not debug else ["-O0", "-g"],
            ))
    return cythonize(
        exts,
        nthreads=JOBS,
        include_path=[_include_tree()],
        compiler_directives=directives,
        annotate=os.environ.get("GALLERIST_CYTHON_ANNOTATE") == "1",
    )


def _generate_sources() -> None:
    sys.path.insert(0, os.path.join(HERE, "proto"))
    from generate import generate  # proto/generate.py

    generate()
    sys.path.insert(0, os.path.join(HERE, "engine"))
    from gen_raw import generate as generate_raw  # engine/gen_raw.py

    generate_raw()


_generate_sources()
setup(ext_modules=_extensions(), options={"build_ext": {"parallel": JOBS}})
