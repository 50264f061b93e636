"""The service's log lines: text (the default) or one JSON object per line for log
collectors (`serve --log-format json`). A call's record carries its fields in
`record.call` (server.servicer); the JSON line holds them, any other record its message."""
from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

__all__ = ["JsonFormatter", "configure_logging"]


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, and either the
    call's fields (method, status, elapsed_ms, bot, budget, query_id, peer, ...) or the
    message."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(
                timespec="milliseconds"),
            "level": record.levelname, "logger": record.name}
        call = getattr(record, "call", None)
        if isinstance(call, dict):
            out.update(call)
        else:
            out["message"] = record.getMessage()
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure_logging(level: str, fmt: str = "text") -> None:
    """Log to stderr at `level` in the text or JSON format, as `logging.basicConfig` does:
    not when the process has set up its logging already (a host program, a test runner)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=getattr(logging, level), handlers=[handler])
