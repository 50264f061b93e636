"""`serve --log-format json`: one JSON object per line, a call's line with its time,
method, status, elapsed_ms, bot, budget, query_id and peer; the text format stays the
default."""
from __future__ import annotations

import json
import logging
import signal
import socket
import subprocess
import sys
import time

from gallerist.client import HintClient, hint_request
from gallerist.server.logs import JsonFormatter


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def test_a_served_call_logs_one_json_object_with_its_fields() -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "gallerist.cli", "serve", "--port",
                             str(port), "--workers", "1", "--log-format", "json"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        with HintClient(f"localhost:{port}") as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.wait_ready(timeout=1.0)
                    break
                except Exception:
                    assert time.monotonic() < deadline and proc.poll() is None
            state = client.new_game(players=2, seed=3).state
            client.suggest(hint_request(state, bot="greedy", query_id="q-7"))
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    lines = [json.loads(line) for line in err.splitlines() if line.strip()]
    calls = [x for x in lines if "method" in x]
    hint = next(x for x in calls if x["method"] == "SuggestMoves")
    assert hint["status"] == "OK" and hint["query_id"] == "q-7"
    assert hint["bot"].startswith("greedy:") and hint["elapsed_ms"] > 0
    assert hint["budget"].startswith("greedy/") and hint["peer"]
    assert hint["time"].endswith("+00:00") and hint["level"] == "INFO"
    assert any(x["method"] == "NewGame" and x["status"] == "OK" for x in calls)
    assert all("message" in x for x in lines if "method" not in x)


def test_the_formatter_keeps_a_plain_record_s_message_and_error() -> None:
    record = logging.LogRecord("gallerist", logging.WARNING, __file__, 1, "slots %d", (2,), None)
    out = json.loads(JsonFormatter().format(record))
    assert out["message"] == "slots 2" and out["level"] == "WARNING" and "method" not in out
