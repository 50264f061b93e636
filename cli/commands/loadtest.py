"""``gallerist loadtest``: the load test of `server.load.driver`. Offered only in a source
checkout, where the locust users (bench/locustfile.py) are. Unlike ``bench/loadtest.py``
it writes its reports into the current directory (``./loadtest-results``) and fails
(status 1) on a missed latency target."""
from __future__ import annotations

import os
from typing import Any

from gallerist.cli.load.driver import CLI_OUT, DESCRIPTION, LOCUSTFILE, add_arguments, run_from_args

__all__ = ["add"]


def add(sub: Any) -> None:
    """Add ``loadtest`` to the subcommands, if the locustfile is there."""
    if not os.path.isfile(LOCUSTFILE):
        return
    p = sub.add_parser("loadtest", help="load-test local servers with locust (bench/)",
                       description=DESCRIPTION)
    add_arguments(p, out=CLI_OUT, fail_on_missed_targets=True)
    p.set_defaults(func=run_from_args)
