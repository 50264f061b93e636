"""The ``gallerist`` command line: `main(argv)` parses and runs one command (the
commands are in `cli.commands`, one module each; the load test's machinery in `cli.load`)."""
from gallerist.cli.main import main

__all__ = ["main"]
