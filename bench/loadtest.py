"""Load-test the GalleristAI service with locust: start servers, run locust headless,
summarize, stop. The driver is `server.load.driver` (also ``gallerist loadtest``); see its
docstring for what a run does and prints.

Usage:
    python bench/loadtest.py                                  # 60 s, 2 workers, default mix
    python bench/loadtest.py --duration 30 --workers 1 --users 1 --budgets time_ms=10
    python bench/loadtest.py --replicas 2 --workers 1         # 2 servers, round robin
    python bench/loadtest.py --replicas 2 --workers 1 --balancer nginx   # behind nginx
    python bench/loadtest.py --soak --duration 5m             # + memory over time, verdict
"""
from __future__ import annotations

import sys

from gallerist.cli.load.driver import main

if __name__ == "__main__":
    sys.exit(main())
