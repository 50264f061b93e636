"""The /play page as served: one self-contained document under 1 MB (no file from anywhere
else), its licences page, the redirect from /, plain 404s; and the vendored Connect client
is exactly what clients/web builds from its pinned packages, each named with its licence."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_testlib import running_server

from gallerist.server import GalleristServer
from gallerist.server.play.page import STATIC

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"


@pytest.fixture(scope="module")
def served() -> Iterator[GalleristServer]:
    with running_server(workers=1, http_port=0) as server:
        yield server


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _get(served: GalleristServer, path: str, method: str = "GET") -> tuple[int, Any, bytes]:
    """(status, headers looked up in any case, as HTTP's are, body)."""
    assert served.http is not None
    request = urllib.request.Request(f"http://localhost:{served.http.port}{path}", method=method)
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=30) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def test_the_page_is_one_self_contained_document_under_1_mb(served: GalleristServer) -> None:
    """GET /play: HTML under 1 MB with its scripts and styles inline, a Content Security
    Policy that allows no other origin, and no address of another site to load."""
    status, headers, body = _get(served, "/play")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert len(body) < 1_000_000
    page = body.decode()
    assert "connect-src 'self'" in page and "default-src 'none'" in page
    loads = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert loads == ["/play/licenses"], loads
    assert "GalleristConnect" in page and 'id="descriptors"' in page
    status, headers, body = _get(served, "/play", method="HEAD")
    assert status == 200 and body == b""


def test_licences_redirect_and_unknown_pages(served: GalleristServer) -> None:
    """/play/licenses is the bundled client's licences; / sends the browser to /play; an
    unknown page is a plain 404 that says where the game is."""
    status, headers, body = _get(served, "/play/licenses")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert b"Apache License" in body and b"Version 2.0" in body
    status, headers, _ = _get(served, "/")
    assert status == 302 and headers["Location"] == "/play"
    status, headers, body = _get(served, "/play/nothing")
    assert status == 404 and b"the game is at /play" in body


def test_the_licences_name_every_bundled_package() -> None:
    """Every package the bundle is built from (the lock file's, but the build tool) is
    named with its version in THIRD_PARTY_LICENSES.txt and in the bundle's banner."""
    lock = json.loads((WEB / "package-lock.json").read_text())
    bundled = {name.removeprefix("node_modules/"): info["version"]
               for name, info in lock["packages"].items() if name and not info.get("dev")}
    assert set(bundled) == {"@bufbuild/protobuf", "@connectrpc/connect",
                            "@connectrpc/connect-web"}
    licences = (STATIC / "THIRD_PARTY_LICENSES.txt").read_text()
    banner = (STATIC / "connect-web.js").read_text().split("*/", 1)[0]
    for name, version in bundled.items():
        assert f"{name} {version}" in licences, name
        assert f"{name} {version}" in banner, name


def test_the_vendored_client_is_what_its_pinned_packages_build(tmp_path: Path) -> None:
    """`npm ci` and `node build.mjs` in a copy of clients/web give, byte for byte, the
    server/play/static/connect-web.js in git."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm not found: install Debian's nodejs and npm (tests/run.sh does)")
    work = tmp_path / "web"
    work.mkdir()
    for name in ("package.json", "package-lock.json", "entry.js", "build.mjs"):
        shutil.copy(WEB / name, work / name)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=work,
                   check=True, capture_output=True, timeout=300)
    out = tmp_path / "connect-web.js"
    subprocess.run(["node", "build.mjs", str(out)], cwd=work, check=True, timeout=120)
    assert out.read_bytes() == (STATIC / "connect-web.js").read_bytes()
