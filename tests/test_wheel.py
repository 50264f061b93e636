"""The wheel is the whole product: built from the source tree and installed in a fresh
virtual environment outside the checkout, the commands that need package data run from
a folder outside it, importing nothing from the checkout: `demo`, `hint --demo --local`,
`levels` and `loadtest` (its locust users and corpus are package data; locust is the
``load`` extra), and `calibrate` is offered. Two quick checks first: every package folder
is in pyproject.toml's packages and every data file in its package-data (an editable
install maps whole folders, so nothing else would see one missing).

Slow: it compiles the Cython extensions (in a copy of the sources, so that no build file
lands in the checkout) and installs every dependency into the new environment; about
3-4 minutes on 2 shared cores (the first run downloads the dependencies into pip's cache).
"""
from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What the build reads: pyproject.toml's package folders and the build's own files.
BUILD_INPUTS = ("pyproject.toml", "setup.py", "README.md", "proto", "engine", "ai", "client",
                "server", "cli")
#: Seconds any one step may take (the build and the install are the long ones).
STEP_TIMEOUT_S = 1200
#: Files in the package folders that the wheel leaves out on purpose: the training curves
#: of the packaged models (pictures for the docs, next to their cards).
NOT_SHIPPED = ("ai/models/*.curves.png",)


def _setuptools() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["setuptools"]


def _package_folders() -> dict[str, Path]:
    """Every package of the source tree (a folder with an __init__.py under a mapped
    folder of package-dir) -> its folder, relative to the root."""
    found = {}
    for top, folder in _setuptools()["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            if "__pycache__" not in parts:
                found[".".join((top, *parts))] = init.parent.relative_to(ROOT)
    return found


def _tracked(*folders: str) -> list[str]:
    """The files git tracks or would track (not ignored) under `folders`, that exist."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--",
         *folders], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


def test_every_package_folder_is_listed() -> None:
    """A new subpackage missing from pyproject.toml's packages is missing from the wheel
    (gallerist.ai.settings was, once)."""
    listed = set(_setuptools()["packages"])
    assert set(_package_folders()) - listed == set(), "add them to [tool.setuptools] packages"
    assert listed - set(_package_folders()) == set()


def test_every_data_file_is_package_data() -> None:
    """Each file of a package folder that is not Python source matches a package-data
    pattern of its package or of one above it (or is left out on purpose)."""
    folders = _package_folders()
    data = _setuptools()["package-data"]
    missing = []
    for name in _tracked(*_setuptools()["package-dir"].values()):
        path = Path(name)
        if path.suffix == ".py" or any(fnmatch.fnmatch(name, p) for p in NOT_SHIPPED):
            continue
        owners = [pkg for pkg, folder in folders.items() if folder in path.parents]
        if not any(fnmatch.fnmatch(str(path.relative_to(folders[pkg])), pattern)
                   for pkg in owners for pattern in data.get(pkg, ())):
            missing.append(name)
    assert missing == [], "add them to [tool.setuptools.package-data]"


def _source_copy(dest: Path) -> Path:
    """The build's inputs as the working tree has them (tracked and untracked files that
    git does not ignore), copied to `dest`: generated files (.c, .so, the protobuf stubs)
    stay behind, and the build writes nothing into the checkout."""
    for name in _tracked(*BUILD_INPUTS):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    return dest


def _step(cmd: list[str], *, cwd: Path, env: dict[str, str] | None = None,
          timeout: float = STEP_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """Run `cmd`; fail the test with its output unless it exits 0."""
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, (f"{' '.join(cmd)} exited {done.returncode}:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-5000:]}")
    return done


def _outside_env(venv: Path, data: Path) -> dict[str, str]:
    """The environment of the installed commands: the new venv first on PATH, no
    PYTHONPATH, no setting that points into the checkout."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSAFEPATH")
           and not k.startswith("GALLERIST_")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["GALLERIST_DATA"] = str(data)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """(the venv, the environment to run it with, an empty folder outside the checkout)
    once the wheel is built and installed with the ``load`` extra."""
    tmp = tmp_path_factory.mktemp("wheel")
    assert ROOT not in tmp.parents
    times = {}
    t0 = time.monotonic()
    src = _source_copy(tmp / "src")
    dist = tmp / "dist"
    _step([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-w", str(dist),
           "--quiet"], cwd=tmp)
    times["build"] = time.monotonic() - t0
    wheels = list(dist.glob("gallerist_ai-*.whl"))
    assert len(wheels) == 1, wheels
    venv = tmp / "venv"
    t1 = time.monotonic()
    _step([sys.executable, "-m", "venv", str(venv)], cwd=tmp)
    _step([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
           "--disable-pip-version-check", f"{wheels[0]}[load]"], cwd=tmp)
    times["install"] = time.monotonic() - t1
    print(f"wheel built in {times['build']:.0f} s, installed in {times['install']:.0f} s")
    work = tmp / "work"
    work.mkdir()
    return venv, _outside_env(venv, tmp / "data"), work


def _gallerist(installed: tuple[Path, dict[str, str], Path], *args: str,
               timeout: float = 300) -> str:
    venv, env, work = installed
    return _step([str(venv / "bin" / "gallerist"), *args], cwd=work, env=env,
                 timeout=timeout).stdout


def test_the_package_is_imported_from_the_venv(installed) -> None:
    """The venv's `gallerist` and its package data are the wheel's, not the checkout's."""
    venv, env, work = installed
    out = _step([str(venv / "bin" / "python"), "-c",
                 "import gallerist, gallerist.engine._core as core, gallerist.cli.load.driver as d;"
                 "import gallerist.cli.load.corpus as c;"
                 "print(gallerist.__file__); print(core.__file__); print(d.LOCUSTFILE);"
                 "print(c.DEFAULT_CORPUS)"], cwd=work, env=env).stdout.split()
    assert len(out) == 4
    for path in out:
        assert Path(path).is_file() and venv in Path(path).parents, path
        assert ROOT not in Path(path).parents, path


def test_every_command_is_offered(installed) -> None:
    """`loadtest` and `calibrate` are commands of the installed package."""
    out = _gallerist(installed, "--help")
    for command in ("loadtest", "calibrate", "demo", "hint", "levels"):
        assert f"    {command}" in out, command
    assert "DATA" in _gallerist(installed, "calibrate", "--help")


def test_demo_and_a_local_hint(installed) -> None:
    """`demo` starts the service in the process and prints a hint; `hint --demo --local`
    searches the demo position with the packaged model and calibration."""
    out = _gallerist(installed, "demo", "--iterations", "100", "--no-board")
    assert "GalleristAI service started" in out and "SuggestMoves round trip" in out
    out = _gallerist(installed, "hint", "--demo", "--local", "--iterations", "100")
    assert "Hints for player 0 by mcts" in out and "Position: win" in out


def test_levels(installed) -> None:
    """`levels` reads the packaged levels.json: every level with a measured rating."""
    out = _gallerist(installed, "levels")
    assert out.splitlines()[0].split()[:2] == ["level", "Elo"]
    assert "not measured" not in out and "level:elo=E" in out


def test_loadtest(installed) -> None:
    """`loadtest` for 5 s: locust runs the packaged users on the packaged corpus against
    a server of the venv; reports in ./loadtest-results of the folder it ran in."""
    venv, _, work = installed
    out = _gallerist(installed, "loadtest", "--duration", "5", "--workers", "1", "--users",
                     "1", "--players", "1", "--budgets", "iterations=20", "--no-progress",
                     timeout=180)
    assert "hints/s" in out
    summary = json.loads((work / "loadtest-results" / "loadtest_summary.json").read_text())
    assert summary["requests"] > 0 and summary["failures"] == 0
    assert summary["rpcs"]["SuggestMoves"]["requests"] > 0
    assert summary["rpcs"]["NewGame"]["requests"] > 0
    command = summary["locust_command"].split()
    users = Path(command[command.index("-f") + 1])
    corpus = Path(command[command.index("--corpus") + 1])
    assert venv in users.parents and users.name == "users.py"
    assert venv in corpus.parents and corpus.name == "states.jsonl.gz"
