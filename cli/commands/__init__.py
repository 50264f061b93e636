"""The commands of the ``gallerist`` command line, one module each (`cli.main.COMMANDS`
is the one list of them, in the order of ``gallerist --help``; docs/cli.md's table and the
README's list are made from it by ``python -m gallerist.cli.docs --write``). Each module
has `add(sub)`, which adds its subcommand to the parser (`cli.main.build_parser`), and
`run(args)`, which runs it and returns the exit status. `options` holds the option groups
several commands share and `add_settings`, the flags of declared settings.
"""
from gallerist.engine.errors import GalleristError


class CliError(GalleristError):
    """A user error, printed as "error: ..." with exit status `status`: 2 (the default)
    for bad usage or input, 1 for a failure."""

    def __init__(self, message: str, *, status: int = 2) -> None:
        super().__init__(message)
        self.status = status
