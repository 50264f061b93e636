"""``gallerist balancer-config``: print nginx's configuration for replicas of the service
on other machines (the ``upstream`` and ``server`` blocks, for Debian's
/etc/nginx/conf.d/); docs/operations.md says how to use it."""
from __future__ import annotations

import argparse
import re
from typing import Any

from gallerist.server.app import DEFAULT_PORT
from gallerist.server.balancer.nginx import nginx_config
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import add_command

__all__ = ["add", "run"]

ADDRESS = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$")


def add(sub: Any) -> None:
    """Add ``balancer-config`` to the subcommands."""
    p = add_command(
        sub, "balancer-config", run, help="print nginx's configuration for replicas",
        description="Print the nginx configuration of a gRPC load balancer in front of "
                    "replicas of the service (gallerist serve on each address): calls go "
                    "to the replica with the fewest in flight; one that cannot be reached "
                    "is left out for 5 s. Save it as /etc/nginx/conf.d/gallerist.conf "
                    "(Debian's nginx package) and reload nginx.")
    p.add_argument("replicas", nargs="+", metavar="HOST:PORT",
                   help="the replicas' gRPC addresses")
    p.add_argument("--listen", default=f"0.0.0.0:{DEFAULT_PORT}", metavar="HOST:PORT",
                   help=f"where nginx listens (default 0.0.0.0:{DEFAULT_PORT})")
    p.add_argument("--http-replicas", metavar="HOST:PORT,...",
                   help="the replicas' HTTP addresses (serve --http), in the same order: "
                        "nginx then also fronts their HTTP port (Connect, gRPC-Web, /play)")
    p.add_argument("--http-listen", default="0.0.0.0:8080", metavar="HOST:PORT",
                   help="where nginx's HTTP front listens (default 0.0.0.0:8080)")
    p.add_argument("--tls-cert", metavar="PEM", help="nginx's certificate chain (with --tls-key)")
    p.add_argument("--tls-key", metavar="PEM", help="the private key of the certificate")


def checked_address(text: str, what: str) -> str:
    """`text` if it is HOST:PORT with a port in 1..65535, else a CliError naming `what`."""
    match = ADDRESS.match(text)
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise CliError(f"{what} {text!r}: give HOST:PORT with a port in 1..65535 "
                       f"(e.g. 10.0.0.2:{DEFAULT_PORT})")
    return text


def run(args: argparse.Namespace) -> int:
    """``gallerist balancer-config``."""
    replicas = [checked_address(a, "replica") for a in args.replicas]
    if len(set(replicas)) < len(replicas):
        raise CliError("a replica address is given twice")
    listen = checked_address(args.listen, "--listen")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise CliError("--tls-cert and --tls-key go together")
    http = None
    if args.http_replicas:
        backs = [checked_address(a, "--http-replicas") for a in args.http_replicas.split(",")]
        if len(backs) != len(replicas):
            raise CliError(f"--http-replicas: {len(backs)} addresses for {len(replicas)} "
                           "replicas: give one HTTP address per replica, in the same order")
        http = (checked_address(args.http_listen, "--http-listen"), backs)
    print(f"# gallerist balancer-config {' '.join(replicas)} --listen {listen}\n"
          f"# for Debian's nginx: /etc/nginx/conf.d/gallerist.conf, then nginx -s reload")
    print(nginx_config(replicas, listen, tls_cert=args.tls_cert, tls_key=args.tls_key,
                       http=http), end="")
    return 0
