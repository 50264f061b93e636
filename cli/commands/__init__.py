"""The commands of the ``gallerist`` command line, one module each: `serve`, `hint`,
`play`, `bots`, `new`, `demo`, `arena`, `ladder`, `replay`, `analyze`, `selfplay`, `label`,
`train`, `calibrate` and `loadtest`, and a few more (`cli.main.COMMANDS` lists them all).
Each module has `add(sub)`, which adds its subcommand to the parser
(`server.cli.build_parser`), and `run(args)`, which runs it and returns the exit status.
`options` holds the option groups several commands share.
"""
from gallerist.engine.errors import GalleristError


class CliError(GalleristError):
    """A user error, printed as "error: ..." with exit status `status`: 2 (the default)
    for bad usage or input, 1 for a failure."""

    def __init__(self, message: str, *, status: int = 2) -> None:
        super().__init__(message)
        self.status = status
