"""The protobuf API's checks (buf.yaml, proto/check.sh; docs/hints.md): `buf lint` finds
nothing in proto/, `buf breaking` calls a renumbered or renamed field breaking, and
proto/check.sh fails on a commit that breaks the API and says so when it cannot check.

buf is the @bufbuild/buf npm package of the Node.js client, as in
tests/server/test_http_reflection.py; when it is missing it is installed here with
`npm ci --prefix clients/node` (what tests/run.sh does)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "clients" / "node"
BUF = CLIENT / "node_modules" / ".bin" / "buf"
PROTOS = sorted((ROOT / "proto" / "gallerist" / "v1").glob("*.proto"))


def _buf_path() -> Path:
    """The buf binary, installed with the Node.js client's packages when missing."""
    if not BUF.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"{BUF} is missing and so is npm: install Debian's nodejs npm "
                        "(tests/run.sh does), then run `npm ci --prefix clients/node`")
        subprocess.run([npm, "ci", "--prefix", str(CLIENT), "--no-audit", "--no-fund",
                        "--loglevel=error"], check=True, timeout=600)
    assert BUF.exists(), f"npm ci did not install {BUF}"
    return BUF


def _buf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(_buf_path()), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def _copy_api(dest: Path) -> Path:
    """The repository's buf.yaml and .proto files in `dest`, laid out as in the repository;
    returns the copy of hints.proto."""
    shutil.copy(ROOT / "buf.yaml", dest / "buf.yaml")
    (dest / "proto" / "gallerist" / "v1").mkdir(parents=True)
    for proto in PROTOS:
        shutil.copy(proto, dest / "proto" / "gallerist" / "v1" / proto.name)
    return dest / "proto" / "gallerist" / "v1" / "hints.proto"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_buf_lint_finds_nothing_in_the_protos() -> None:
    """STANDARD rules less buf.yaml's exceptions: no findings."""
    assert len(PROTOS) == 3
    linted = _buf("lint")
    assert (linted.returncode, linted.stdout, linted.stderr) == (0, "", "")


def test_every_lint_exception_of_buf_yaml_gives_its_reason() -> None:
    """Each rule kept as an exception has a comment just above it."""
    lines = (ROOT / "buf.yaml").read_text(encoding="utf-8").splitlines()
    rules = [(i, line.strip().rstrip(":")) for i, line in enumerate(lines)
             if re.fullmatch(r"    [A-Z_]+:", line)]
    assert {rule for _, rule in rules} == {
        "SERVICE_SUFFIX", "RPC_REQUEST_RESPONSE_UNIQUE", "RPC_REQUEST_STANDARD_NAME",
        "RPC_RESPONSE_STANDARD_NAME", "ENUM_ZERO_VALUE_SUFFIX"}
    assert [rule for i, rule in rules if not lines[i - 1].strip().startswith("#")] == []
    assert re.search(r"^    - STANDARD$", "\n".join(lines), re.M)


@pytest.mark.parametrize("old,new,named", [
    ("  uint32 max_moves = 5;", "  uint32 max_moves = 15;", '"max_moves"'),   # wire
    ("  uint32 max_moves = 5;", "  uint32 move_limit = 5;", '"max_moves"'),   # JSON, code
], ids=["renumbered", "renamed"])
def test_buf_breaking_reports_a_changed_field_by_name(tmp_path: Path, old: str, new: str,
                                                      named: str) -> None:
    """HintRequest.max_moves renumbered (or renamed) in a copy of proto/: breaking, and
    the message names the field."""
    _edit(_copy_api(tmp_path), old, new)
    result = _buf("breaking", str(tmp_path / "proto"), "--against", "proto")
    assert result.returncode != 0
    assert named in result.stdout and "HintRequest" in result.stdout, result.stdout


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _repo_with_check_script(tmp_path: Path) -> Path:
    """A git repository of one commit: buf.yaml, proto/ and proto/check.sh, with the
    checkout's buf."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _copy_api(repo)
    shutil.copy(ROOT / "proto" / "check.sh", repo / "proto" / "check.sh")
    (repo / "clients" / "node" / "node_modules").mkdir(parents=True)
    (repo / "clients" / "node" / "node_modules" / ".bin").symlink_to(_buf_path().parent)
    _git(repo, "init", "-q")
    _git(repo, "add", "buf.yaml", "proto")
    _git(repo, "commit", "-q", "-m", "the API")
    return repo


def _check(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(repo / "proto" / "check.sh")], capture_output=True,
                          text=True, timeout=300)


def test_check_script_fails_on_a_commit_that_renumbers_a_field(tmp_path: Path) -> None:
    """proto/check.sh against HEAD~1: a comment edit passes, a renumbered field fails."""
    repo = _repo_with_check_script(tmp_path)
    hints = repo / "proto" / "gallerist" / "v1" / "hints.proto"
    _edit(hints, "// Move hints and game play", "// Move hints, and game play")
    _git(repo, "commit", "-q", "-am", "a comment")
    passed = _check(repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "buf lint passed" in passed.stdout and "buf breaking against HEAD~1" in passed.stdout
    _edit(hints, "  uint32 max_moves = 5;", "  uint32 max_moves = 15;")
    _git(repo, "commit", "-q", "-am", "a renumbered field")
    failed = _check(repo)
    assert failed.returncode != 0
    assert '"max_moves"' in failed.stdout, failed.stdout + failed.stderr


def test_check_script_says_it_skipped_the_breaking_check_without_a_previous_commit(
        tmp_path: Path) -> None:
    """With no HEAD~1 (a first commit; a shallow clone that cannot fetch) the lint runs
    and the skip is said on stderr, not passed over in silence."""
    repo = _repo_with_check_script(tmp_path)
    out = _check(repo)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "buf lint passed" in out.stdout
    assert "buf breaking SKIPPED: HEAD~1 is not in this clone" in out.stderr
