"""A web page on one origin calls the service on another origin in Chromium: allowed with
``--cors-origin`` naming the page's origin, refused by the browser without it."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from browser_testlib import chromium
from server_testlib import running_server

PAGE = """<!DOCTYPE html><html><head><title>waiting</title></head><body><script>
fetch("http://localhost:%d/gallerist.v1.GalleristAI/NewGame", {
  method: "POST",
  headers: {"Content-Type": "application/json", "Connect-Protocol-Version": "1"},
  body: JSON.stringify({numPlayers: 3}),
}).then(r => r.json()).then(j => { document.title = "players " + j.state.numPlayers; })
  .catch(e => { document.title = "refused"; });
</script></body></html>"""


@contextmanager
def _page_server(service_port: int) -> Iterator[str]:
    """A page served on its own origin (http://127.0.0.1:PORT) that calls the service."""
    body = (PAGE % service_port).encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _title_after_load(origin: str) -> str:
    with chromium() as browser:
        page = browser.new_page()
        page.goto(origin + "/")
        page.wait_for_function("document.title !== 'waiting'", timeout=15000)
        return str(page.title())


def test_page_on_another_origin_calls_the_service_with_cors_origin() -> None:
    """With --cors-origin set to the page's origin, the browser lets the call through."""
    with running_server(workers=1, http_port=0) as probe:
        port = probe.http.port
    # the page's origin must be known before the service starts: serve the page first
    with _page_server(port) as origin, \
            running_server(workers=1, http_port=port, cors_origins=(origin,)):
        assert _title_after_load(origin) == "players 3"


def test_page_on_another_origin_is_refused_without_cors_origin() -> None:
    """Without --cors-origin the browser refuses the page's call (no CORS permission)."""
    with running_server(workers=1, http_port=0) as server:
        with _page_server(server.http.port) as origin:
            assert _title_after_load(origin) == "refused"
