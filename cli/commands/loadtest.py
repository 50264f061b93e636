"""``gallerist loadtest``: the load test of `cli.load.driver` (the locust users and the
corpus are package data of `gallerist.cli.load`; locust itself is the ``load`` extra).
Unlike ``bench/loadtest.py`` it writes its reports into the current directory
(``./loadtest-results``) and fails (status 1) on a missed latency target."""
from __future__ import annotations

from typing import Any

from gallerist.cli.load.driver import CLI_OUT, DESCRIPTION, add_arguments, run_from_args

__all__ = ["add"]


def add(sub: Any) -> None:
    """Add ``loadtest`` to the subcommands."""
    p = sub.add_parser("loadtest", help="load-test local servers with locust",
                       description=DESCRIPTION)
    add_arguments(p, out=CLI_OUT, fail_on_missed_targets=True)
    p.set_defaults(func=run_from_args)
