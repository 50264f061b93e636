"""The commands of the ``gallerist`` command line, one module each: `serve`, `hint`,
`play`, `new`, `demo`, `arena`, `replay` and `loadtest`. Each module has `add(sub)`,
which adds its subcommand to the parser (`server.cli.build_parser`), and `run(args)`,
which runs it and returns the exit status. `options` holds the option groups several
commands share.
"""


class CliError(Exception):
    """A user error: printed as "error: ..." with exit status 2."""
