"""The HTTP port's options of ``serve``: its limits (one flag per setting of
`server.http_server.HTTP_SETTINGS`, where each is declared) and the CORS origins."""
from __future__ import annotations

import argparse
from urllib.parse import urlsplit

from gallerist.cli.commands.options import add_settings
from gallerist.server.http_server import HTTP_SETTINGS, HttpLimits

__all__ = ["add_http_options", "cors_origin", "http_limits", "http_option_args"]


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
    add_settings(g, HTTP_SETTINGS)


def http_limits(args: argparse.Namespace) -> HttpLimits:
    """The limits the options give (each checked by its flag already)."""
    return HttpLimits(**HTTP_SETTINGS.from_args(args))


def http_option_args(args: argparse.Namespace) -> list[str]:
    """The HTTP port's options as command-line arguments (for replicas)."""
    out = HTTP_SETTINGS.argv(HTTP_SETTINGS.from_args(args))
    for origin in args.cors_origin:
        out += ["--cors-origin", origin]
    return out
