"""The installed import names: one root, `gallerist`.

The repository's folders `engine/`, `ai/`, `server/` and `proto/gallerist/` install as
`gallerist.engine`, `gallerist.ai`, `gallerist.server` and `gallerist` (with the
protobuf stubs in `gallerist.v1`); none of the generic names is importable from
outside the repository.
"""
from __future__ import annotations

import subprocess
import sys

CHECK = """
import importlib.util
import gallerist, gallerist.engine, gallerist.ai, gallerist.server, gallerist.v1.state_pb2
for generic in ("engine", "ai", "server", "proto"):
    assert importlib.util.find_spec(generic) is None, generic
import gallerist.engine._core, gallerist.ai
state = gallerist.engine.new_game(num_players=2, seed=1)
assert type(state).__module__ == "gallerist.engine.state", type(state).__module__
print("ok")
"""


def test_one_import_root_and_no_generic_names(tmp_path):
    """From a folder outside the repository only `gallerist.*` imports."""
    out = subprocess.run([sys.executable, "-c", CHECK], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_console_script_module_is_under_the_root():
    """`python -m gallerist.cli` is the command line (the `gallerist` script's module)."""
    out = subprocess.run([sys.executable, "-m", "gallerist.cli", "--help"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "usage: gallerist" in out.stdout
