"""The rules reference the repository cites ("The rules a user can read"): every
rule id, component section and detailed-rules section cited anywhere in the code, tests,
protobuf files and documents exists in docs/rules.md, and nothing cites a rules file that
is not in the repository."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
THIS = Path(__file__).resolve()

SUFFIXES = {".py", ".pyx", ".pxd", ".pxi", ".pyi", ".h", ".proto", ".md", ".json", ".toml",
            ".cfg", ".txt", ".yml", ".yaml", ".js"}
SKIP_DIRS = {".git", "build", "__pycache__", "node_modules", ".pytest_cache", ".mypy_cache",
             ".hypothesis", "results"}

RULE_ID = re.compile(r"\bR-[A-Z]+-\d+\b")
COMPONENT = re.compile(r"\bC§(\d+)")
DETAIL = re.compile(r"\bRN\s+§(\d+(?:\.\d+)?)")
SECTION = re.compile(r"docs/rules\.md\s+§(\d+(?:\.\d+)?)")
# The research files the citations used to name, none of them in the repository.
MISSING_FILES = re.compile(r"RULES\.md|components\.md|rules-notes|shared/rules")


#: The folders and files of the project (not virtual environments made in the checkout).
PROJECT = ("engine", "ai", "server", "proto", "tests", "bench", "docs", ".ci", "README.md",
           "pyproject.toml", "setup.py")


def _sources() -> list[tuple[Path, str]]:
    files = []
    paths = [p for top in PROJECT for p in ([ROOT / top] + sorted((ROOT / top).rglob("*")))]
    for path in paths:
        rel = path.relative_to(ROOT)
        if (path.suffix not in SUFFIXES or not path.is_file() or path == THIS
                or any(part in SKIP_DIRS or part.endswith(".egg-info") for part in rel.parts)
                or path.name.endswith("_pb2.py")):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        files.append((rel, text.replace("\\u00a7", "§")))   # JSON escapes of §
    return files


SOURCES = _sources()
DOC_TEXT = DOC.read_text(encoding="utf-8")
DOC_RULES = set(re.findall(r"^- \*\*(R-[A-Z]+-\d+)\*\*", DOC_TEXT, re.M))
DOC_HEADINGS = set(re.findall(r"^#+ ((?:RN |C)?§\d+(?:\.\d+)?) ", DOC_TEXT, re.M))


def _cited(pattern: re.Pattern[str], prefix: str, *, doc: bool = True) -> dict[str, list[str]]:
    """What `pattern` cites, with the files citing it (`doc`: docs/rules.md's own
    cross-references included)."""
    where: dict[str, list[str]] = {}
    for rel, text in SOURCES:
        if not doc and rel == DOC.relative_to(ROOT):
            continue
        for match in pattern.finditer(text):
            key = prefix + (match.group(1) if pattern.groups else match.group(0))
            where.setdefault(key, []).append(str(rel))
    return where


def test_the_reference_defines_every_rule_id() -> None:
    """Each R-id cited in the repository is defined (as "- **R-...**") in docs/rules.md,
    and the reference defines the rules of every area."""
    cited = _cited(RULE_ID, "")
    assert len(_cited(RULE_ID, "", doc=False)) >= 25   # the code's and the tests' citations
    missing = {k: v[:3] for k, v in cited.items() if k not in DOC_RULES}
    assert missing == {}
    assert {r.split("-")[1] for r in DOC_RULES} >= {
        "SCOPE", "DATA", "MOVE", "EXEC", "KO", "VIS", "TIX", "ART", "CON", "HIRE", "MKT",
        "AUC", "INT", "END"}


@pytest.mark.parametrize("pattern,prefix", [(COMPONENT, "C§"), (DETAIL, "RN §"),
                                            (SECTION, "§")],
                         ids=["component tables C§", "rules in detail RN §",
                              "docs/rules.md §"])
def test_the_reference_has_every_section_cited(pattern: re.Pattern[str], prefix: str) -> None:
    """Each cited section ("C§7", "RN §3.2", "docs/rules.md §4") is a heading of
    docs/rules.md."""
    cited = _cited(pattern, prefix)
    assert _cited(pattern, prefix, doc=False), f"no {prefix} citation in the code"
    missing = {k: v[:3] for k, v in cited.items() if k not in DOC_HEADINGS}
    assert missing == {}


def test_no_citation_of_rules_files_outside_the_repository() -> None:
    """Nothing cites RULES.md, components.md or the rules notes, which are not in the
    repository; the error messages cite docs/rules.md instead."""
    offenders = [f"{rel}: {m.group(0)}" for rel, text in SOURCES
                 for m in MISSING_FILES.finditer(text)]
    assert offenders == []
    golden = (ROOT / "tests" / "data" / "codec_golden.json").read_text()
    assert "(docs/rules.md \\u00a74)" in golden


def test_the_reference_has_the_component_tables_and_the_readings() -> None:
    """The component sections C§1..C§16, the detailed rules RN §1..RN §12, and the
    readings of §5, the end-of-game safety rule among them."""
    assert {f"C§{n}" for n in range(1, 17)} <= DOC_HEADINGS
    assert {f"RN §{n}" for n in range(1, 13)} <= DOC_HEADINGS
    assert {"§1", "§2", "§3", "§4", "§5", "§5.1", "§5.2", "§5.3", "§5.4"} <= DOC_HEADINGS
    safety = DOC_TEXT.split("### §5.1", 1)[1].split("###", 1)[0]
    assert "60 turns per player" in safety and "two whole rounds" in safety
