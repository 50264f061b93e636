"""Every relative link in the README and the docs leads somewhere: the file exists, and a
`#anchor` names one of its headings (GitHub's rule: lower case, punctuation dropped,
spaces as hyphens)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "bench").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        slug = _slug(line.lstrip("#"))
        n = counts.get(slug, 0)
        counts[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def _broken() -> list[str]:
    out = []
    for doc in DOCS:
        text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):   # http:, https:, mailto:
                continue
            path_part, _, anchor = target.partition("#")
            dest = (doc.parent / path_part).resolve() if path_part else doc
            where = f"{doc.relative_to(ROOT)}: ({target})"
            if not dest.exists():
                out.append(f"{where}: no file {path_part}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                out.append(f"{where}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    return out


def test_every_relative_link_of_the_docs_leads_somewhere() -> None:
    assert _broken() == []


def test_the_check_finds_a_broken_anchor(tmp_path: Path) -> None:
    """The slugs are GitHub's: the check knows a real heading and rejects a missing one."""
    doc = tmp_path / "a.md"
    doc.write_text("# The HTTP port: its limits (7 Dec)\n## Again\n## Again\n")
    assert {"the-http-port-its-limits-7-dec", "again", "again-1"} <= _anchors(doc)
    assert "analyze" not in _anchors(doc)
