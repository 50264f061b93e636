"""The HTTP port's options of ``serve``: its limits (one flag per field of `HttpLimits`,
declared once here) and the CORS origins."""
from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from gallerist.server.http_server import HttpLimits

__all__ = ["add_http_options", "cors_origin", "http_limits", "http_option_args"]

#: field of HttpLimits -> (flag, metavar, what it is)
_FLAGS: dict[str, tuple[str, str, str]] = {
    "max_connections": ("--http-max-connections", "N",
                        "connections served at once; more wait in the listen backlog"),
    "max_header_bytes": ("--http-max-header-bytes", "BYTES",
                         "largest request head (HTTP/1.1) or header list (HTTP/2); "
                         "larger gets 431"),
    "header_timeout_s": ("--http-header-timeout", "S",
                         "seconds a client has to send a request's whole head (also how "
                         "long an idle HTTP/1.1 connection is kept)"),
    "keepalive_timeout_s": ("--http-keepalive-timeout", "S",
                            "seconds between HTTP/2 pings, and how long one may go "
                            "unanswered before the connection is closed"),
    "max_body_bytes": ("--http-max-body-bytes", "BYTES",
                       "largest request body; a larger Content-Length is refused (413) "
                       "before the body is read"),
    "backlog": ("--http-backlog", "N", "listen backlog of the HTTP port"),
    "max_streams": ("--http-max-streams", "N", "HTTP/2 streams at once on one connection"),
}


def _number(kind: type, name: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a{'n integer' if kind is int else ' number'}") from None
    parse.__name__ = name
    return parse


def cors_origin(text: str) -> str:
    """An origin as browsers send it: ``scheme://host[:port]``, no path."""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") \
            or parts.query or parts.fragment or "@" in parts.netloc:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an origin: give scheme://host[:port], e.g. "
            "https://game.example.com or http://localhost:5173")
    return text.rstrip("/")


def add_http_options(p: argparse.ArgumentParser) -> None:
    """``--cors-origin`` and the HTTP port's limits."""
    g = p.add_argument_group("the HTTP port (with --http)")
    g.add_argument("--cors-origin", type=cors_origin, action="append", default=[],
                   metavar="ORIGIN",
                   help="let web pages of ORIGIN (scheme://host[:port]) call the service "
                        "from the browser (CORS); repeatable (default: none, so only pages "
                        "this server serves)")
    defaults = HttpLimits()
    for field in dataclasses.fields(HttpLimits):
        flag, metavar, what = _FLAGS[field.name]
        value = getattr(defaults, field.name)
        g.add_argument(flag, dest=f"http_{field.name}", metavar=metavar,
                       type=_number(type(value), field.name), default=value,
                       help=f"{what} (default {value:g})" if isinstance(value, float)
                       else f"{what} (default {value})")


def http_limits(args: argparse.Namespace) -> HttpLimits:
    """The limits the options give.

    Raises:
        ValueError: a value out of range, naming its flag.
    """
    values = {f.name: getattr(args, f"http_{f.name}") for f in dataclasses.fields(HttpLimits)}
    try:
        return HttpLimits(**values)
    except ValueError as exc:
        name = str(exc).split(":", 1)[0]
        raise ValueError(f"{_FLAGS[name][0]}{str(exc)[len(name):]}") from None


def http_option_args(args: argparse.Namespace) -> list[str]:
    """The HTTP port's options as command-line arguments (for replicas)."""
    out: list[str] = []
    for field in dataclasses.fields(HttpLimits):
        out += [_FLAGS[field.name][0], str(getattr(args, f"http_{field.name}"))]
    for origin in args.cors_origin:
        out += ["--cors-origin", origin]
    return out
