"""Reflection over the HTTP port: `buf curl` (from the @bufbuild/buf npm package that
tests/run.sh installs with the Node.js client's packages) lists and calls every method
over Connect and gRPC-Web with no .proto file at hand."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from server_testlib import running_server

BUF = Path(__file__).resolve().parents[2] / "clients" / "node" / "node_modules" / ".bin" / "buf"
METHODS = {f"gallerist.v1.GalleristAI/{m}" for m in (
    "SuggestMoves", "AnalyzeStream", "NewGame", "LegalActions", "ApplyAction", "AnalyzeGame")} | {
    f"gallerist.v1.GalleristPlay/{m}" for m in (
        "StartGame", "PlayMove", "UndoMove", "GetGame", "ReviewGame")}


def _buf(*args: str) -> subprocess.CompletedProcess[str]:
    if not BUF.exists():
        pytest.fail(f"{BUF} is missing: run `npm ci --prefix clients/node` (tests/run.sh does)")
    return subprocess.run([str(BUF), "curl", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("protocol", ["connect", "grpcweb"])
def test_buf_curl_lists_and_calls_methods_by_reflection(protocol: str) -> None:
    """`buf curl --list-methods` names every method; a call by reflection answers."""
    with running_server(workers=1, http_port=0, token="sekret") as server:
        base = f"http://localhost:{server.http.port}"
        auth = ["-H", "Authorization: Bearer sekret", "--reflect-header",
                "Authorization: Bearer sekret", "--protocol", protocol,
                "--http2-prior-knowledge"]
        listed = _buf(*auth, "--list-methods", base)
        assert listed.returncode == 0, listed.stderr
        assert set(listed.stdout.split()) >= METHODS
        called = _buf(*auth, "-d", '{"numPlayers": 3}', f"{base}/gallerist.v1.GalleristAI/NewGame")
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["state"]["numPlayers"] == 3
        refused = _buf("--protocol", protocol, "--http2-prior-knowledge", "--list-methods", base)
        assert refused.returncode != 0 and "not authenticated" in refused.stderr


def test_plain_grpc_on_the_http_port_is_sent_to_the_grpc_port() -> None:
    """gRPC (which needs HTTP trailers) is served on the gRPC port; the HTTP port says so."""
    with running_server(workers=1, http_port=0) as server:
        done = _buf("--protocol", "grpc", "--http2-prior-knowledge", "--list-methods",
                    f"http://localhost:{server.http.port}")
        assert done.returncode != 0 and "served on the gRPC port" in done.stderr
