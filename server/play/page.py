"""The /play page: one self-contained HTML document (its script, styles, Connect's web
client and the service's descriptors inline) that plays a hosted game through the
GalleristPlay service and asks GalleristAI for hints, from the same origin."""
from __future__ import annotations

import base64
import functools
import html
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2

from gallerist.ai.bots.levels import level_ratings
from gallerist.v1 import hints_pb2, play_pb2, state_pb2

__all__ = ["LICENSES_PATH", "PAGE_PATH", "page_app", "page_html"]

PAGE_PATH = "/play"
LICENSES_PATH = "/play/licenses"
STATIC = Path(__file__).with_name("static")
#: the opponents' time budgets the page offers for the server's default bot, ms
BOT_TIMES_MS = (10, 100, 1000)
_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "connect-src 'self'; img-src data:; frame-src 'self' about: data:; "
        "child-src 'self' about: data:")


def _descriptors() -> str:
    """The FileDescriptorSet of the service's .proto files (dependencies first), base64."""
    files = descriptor_pb2.FileDescriptorSet()
    for module in (state_pb2, hints_pb2, play_pb2):
        module.DESCRIPTOR.CopyToProto(files.file.add())
    return base64.b64encode(files.SerializeToString()).decode("ascii")


def _script_text(text: str) -> str:
    """Text safe inside a <script> element."""
    return text.replace("</", "<\\/")


@functools.lru_cache(maxsize=4)
def page_html(default_bot: str) -> str:
    """The page; `default_bot` is the server's default bot (the budgets' opponent)."""
    config = {
        "levels": [{"level": r.level, "elo": round(r.elo)} for r in level_ratings()],
        "defaultBot": default_bot,
        "botTimesMs": list(BOT_TIMES_MS),
    }
    read = lambda name: (STATIC / name).read_text(encoding="utf-8")  # noqa: E731
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{html.escape(_CSP, quote=False)}">
<title>The Gallerist: play against the AI</title>
<style>{read("play.css")}</style></head>
<body>
<header><h1>The Gallerist: play against the AI</h1>
<a href="{LICENSES_PATH}" id="licenses">licences</a></header>
<section id="setup">
<label>Players <select id="players">
<option value="1">1 (solo against Lacerda)</option><option value="2" selected>2</option>
<option value="3">3</option><option value="4">4</option></select></label>
<label>Your seat <select id="seat"></select></label>
<span id="opponents"></span>
<label>Seed <input id="seed" inputmode="numeric" placeholder="random" size="10"></label>
<button id="start">New game</button>
</section>
<div id="error" role="alert" hidden></div>
<div id="token-box" hidden><label>This server asks for a token:
<input id="token" type="password" autocomplete="off"></label>
<button id="token-ok">Use it</button></div>
<main id="game" hidden>
<div id="board-box"><div id="status" aria-live="polite"></div><div id="board"></div></div>
<aside id="side">
<div id="players-line"></div>
<div id="buttons"><button id="hint">Hint</button><button id="undo">Undo</button>
<button id="review" hidden>Review the game</button><span id="busy" hidden>thinking…</span></div>
<div id="hints"></div>
<h2>Your moves</h2><div id="moves"></div>
<h2>What happened</h2><ol id="events"></ol>
</aside>
</main>
<section id="my-games" hidden><h2>My games</h2><p id="rating"></p><ol id="games-list"></ol></section>
<section id="review-box" hidden><h2>Review</h2><iframe id="review-frame" title="the review of the game"></iframe></section>
<script id="descriptors" type="application/octet-stream">{_descriptors()}</script>
<script id="config" type="application/json">{_script_text(json.dumps(config))}</script>
<script>{_script_text(read("connect-web.js"))}</script>
<script>{_script_text(read("play.js"))}</script>
</body></html>
"""


WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def page_app(play: Any) -> WsgiApp:
    """The WSGI application of the page's GET requests: ``/play``, ``/play/licenses``
    (the bundled client's licences) and ``/`` (a redirect to ``/play``)."""
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/":
            start_response("302 Found", [("Location", PAGE_PATH), ("Content-Length", "0")])
            return []
        if path in (PAGE_PATH, PAGE_PATH + "/"):
            body = page_html(play.limits.default_bot).encode("utf-8")
            kind = "text/html; charset=utf-8"
        elif path == LICENSES_PATH:
            body = (STATIC / "THIRD_PARTY_LICENSES.txt").read_bytes()
            kind = "text/plain; charset=utf-8"
        else:
            body = f"no page at {path!r}: the game is at {PAGE_PATH}\n".encode()
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"),
                                             ("Content-Length", str(len(body)))])
            return [body]
        start_response("200 OK", [("Content-Type", kind), ("Content-Length", str(len(body))),
                                  ("Cache-Control", "no-cache"),
                                  ("X-Content-Type-Options", "nosniff")])
        return [] if environ.get("REQUEST_METHOD") == "HEAD" else [body]
    return app
