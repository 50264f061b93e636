"""Load-test the GalleristAI service with locust: start servers, run locust headless,
summarize, stop. The load test itself is the package's (`gallerist.cli.load`: the driver,
the locust users, the corpus; also ``gallerist loadtest``); this script only measures with
it, writing its reports into bench/results and reporting missed latency targets without
failing on them (``--fail-on-missed-targets`` to fail).

Usage:
    python bench/loadtest.py                                  # 60 s, 2 workers, default mix
    python bench/loadtest.py --duration 30 --workers 1 --users 1 --budgets time_ms=10
    python bench/loadtest.py --replicas 2 --workers 1         # 2 servers, round robin
    python bench/loadtest.py --replicas 2 --workers 1 --balancer nginx   # behind nginx
    python bench/loadtest.py --soak --duration 5m             # + memory over time, verdict
"""
from __future__ import annotations

import argparse
import os
import sys

from gallerist.cli.load.driver import DESCRIPTION, add_arguments, run_from_args

#: Where the benchmark's load tests write their reports (ignored by git; bench/capacity.py).
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def main(argv: list[str] | None = None) -> int:
    """``python bench/loadtest.py``: the load test with bench's defaults."""
    parser = argparse.ArgumentParser(prog="loadtest", description=DESCRIPTION,
                                     epilog="See the module docstring of bench/loadtest.py.")
    add_arguments(parser, out=RESULTS)
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
