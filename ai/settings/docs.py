"""Settings as the docs show them: a Markdown table from the declarations (`table`), and
the generated sections of a doc, each between two markers, rewritten in place
(`replace_section`); ``python -m gallerist.cli.docs --write`` rewrites them all."""
from __future__ import annotations

from gallerist.ai.settings.setting import Setting, Settings, number_text

__all__ = ["begin_marker", "end_marker", "replace_section", "table"]

#: The command that writes the generated sections (named in their markers).
WRITER = "python -m gallerist.cli.docs --write"


def begin_marker(key: str) -> str:
    """The line above generated section `key`."""
    return (f"<!-- generated: {key} (from the declarations by `{WRITER}`: edit those, not "
            f"the text below) -->")


def end_marker(key: str) -> str:
    """The line below generated section `key`."""
    return f"<!-- end of generated: {key} -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _default(s: Setting) -> str:
    if s.kind is bool:
        return "on" if s.default else "off"
    if s.shown or s.default is None:
        return s.default_text
    if s.numeric:
        unit = f" {s.unit}" if s.unit else ""
        return f"`{number_text(s.default, commas=True)}`{unit}"
    return f"`{s.default_text}`"


def _range(s: Setting) -> str:
    if s.kind is bool:
        return "switch"
    if not s.numeric:
        return s.span or s.says
    # the numbers of the range with thousands separated
    lo = s.low if s.above is None else s.above
    hi = s.high if s.below is None else s.below
    span = s.span
    for bound in (lo, hi):
        if bound is not None:
            plain = number_text(bound)
            span = span.replace(plain, number_text(bound, commas=True), 1)
    return span


def table(settings: Settings, *, flags: bool = True) -> str:
    """A Markdown table of `settings`: flag (or name), default, range and meaning."""
    first = "flag" if flags else "setting"
    rows = [f"| {first} | default | range | meaning |", "|---|---|---|---|"]
    for s in settings:
        name = f"`{s.flag}{' ' + s.metavar if s.metavar and s.kind is not bool else ''}`" \
            if flags else f"`{s.name}`"
        meaning = s.help[:1].upper() + s.help[1:] + "."
        rows.append("| " + " | ".join(_cell(c) for c in (name, _default(s), _range(s),
                                                           meaning)) + " |")
    return "\n".join(rows) + "\n"


def replace_section(text: str, key: str, body: str) -> str:
    """`text` with the part between the markers of `key` replaced by `body`.

    Raises:
        ValueError: the markers are missing or out of order (the doc names the section).
    """
    begin, end = begin_marker(key), end_marker(key)
    head, found, rest = text.partition(begin)
    if not found or end not in rest:
        raise ValueError(f"no generated section {key!r}: the doc needs the lines\n"
                         f"{begin}\n{end}")
    return f"{head}{begin}\n\n{body.strip()}\n\n{end}{rest.split(end, 1)[1]}"
