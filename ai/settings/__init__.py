"""Settings outside the bots' options, each declared once (`setting`: `Setting`,
`Settings`): the service's limits, the HTTP port's, the hosted games' caps, the training
options and the generation loop's. From a declaration come the command's flag (its type,
range check and help), the library's check and defaults, the arguments passed on to a
child process, and the tables of the docs (`docs`). The bots' options are
gallerist.ai.bots.options, declared the same way."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {"Setting": "setting", "Settings": "setting", "replace_section": "docs",
            "table": "docs"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
