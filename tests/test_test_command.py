"""The README's test command, `bash tests/run.sh`: it installs what the tests need on a fresh
machine (Debian's Chromium, Node.js and npm, curl and nginx when missing; the dev extra; the
Node.js client's packages) and runs pytest with its arguments, and CI runs the same script.

The script is run here with stand-ins for apt-get, python and npm that record their calls.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "run.sh"
RECORDER = '#!/bin/sh\necho "$(basename "$0") $*" >> "$CALLS"\n'
# apt-get also "installs" npm: the recorder, beside itself
APT_GET = RECORDER + 'case "$*" in *npm*) cp "$0" "$(dirname "$0")/npm";; esac\n'


def run_script(tmp_path, *, chromium: bool, npm: bool, args=()):
    """Runs tests/run.sh with only stand-in tools on PATH (with `npm`, also curl and nginx)
    and Debian's places of Chromium and nginx in tmp_path; returns the calls they
    recorded."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("apt-get", "python") + (("npm", "curl", "nginx") if npm else ()):
        (bin_dir / tool).write_text(APT_GET if tool == "apt-get" else RECORDER)
        (bin_dir / tool).chmod(0o755)
    for tool in ("dirname", "id", "env", "basename", "cp"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    browser = tmp_path / "chromium"
    if chromium:
        browser.write_text("#!/bin/sh\n")
        browser.chmod(0o755)
    calls = tmp_path / "calls"
    initdb = tmp_path / "initdb"
    if npm:   # present with the other tools
        initdb.write_text("#!/bin/sh\n")
        initdb.chmod(0o755)
    env = {"PATH": str(bin_dir), "CALLS": str(calls), "GALLERIST_CHROMIUM": str(browser),
           "GALLERIST_NGINX": str(tmp_path / "nginx"), "GALLERIST_INITDB": str(initdb)}
    out = subprocess.run([shutil.which("bash"), str(SCRIPT), *args], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return calls.read_text().splitlines()


def test_script_installs_chromium_and_node_when_missing_then_runs_pytest(tmp_path):
    """A fresh machine: apt installs chromium, nodejs, npm, curl, nginx and postgresql
    before the Python steps."""
    calls = run_script(tmp_path, chromium=False, npm=False)
    assert calls[0] == "apt-get update -qq"
    assert calls[1] == "apt-get install -y -qq chromium nodejs npm curl nginx postgresql"
    assert calls[2] == 'python -m pip install --quiet -e .[dev]'
    assert calls[3] == "npm ci --prefix clients/node --no-audit --no-fund --loglevel=error"
    assert calls[4] == "python -m pytest -q"


def test_script_installs_nothing_present_and_passes_arguments_to_pytest(tmp_path):
    """With Chromium, npm, curl, nginx and PostgreSQL present nothing is installed;
    arguments reach pytest."""
    calls = run_script(tmp_path, chromium=True, npm=True, args=("tests/engine", "-x"))
    assert calls == ['python -m pip install --quiet -e .[dev]',
                     "npm ci --prefix clients/node --no-audit --no-fund --loglevel=error",
                     "python -m pytest -q tests/engine -x"]


def test_readme_test_command_is_the_script_and_ci_runs_it():
    """The README's test command is `bash tests/run.sh`; .ci/run calls the same script."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    assert blocks[1].strip() == "bash tests/run.sh"
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^bash tests/run\.sh$", ci, re.M)
    assert os.access(SCRIPT, os.X_OK)
    syntax = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr


def test_readme_names_every_package_the_test_script_installs():
    """The README's test paragraph names each Debian package tests/run.sh may install, and
    that it needs root or sudo."""
    script = SCRIPT.read_text()
    packages = set()
    for group in re.findall(r"missing\+=\(([^)]*)\)", script):
        packages.update(group.split())
    assert {"chromium", "nodejs", "npm", "curl", "nginx", "postgresql"} <= packages
    readme = (ROOT / "README.md").read_text()
    paragraph = readme[readme.index("Run the tests"):readme.index("bash tests/run.sh")]
    names = {"chromium": "Chromium", "nodejs": "Node.js", "npm": "npm", "curl": "curl",
             "nginx": "nginx", "postgresql": "PostgreSQL"}
    assert [p for p in sorted(packages) if names[p] not in paragraph] == []
    assert "root" in paragraph and "sudo" in paragraph
