"""The source tree's shape: each concept of ai/ is a folder of its own, ai/'s top keeps at
most six modules, and no Python function of the engine, ai or server is over 80 lines."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FUNCTION_LINES = 80


def test_every_concept_of_ai_is_a_subpackage() -> None:
    """MCTS, the calibration, the arena's ratings, the self-play records and game review
    are found from the folder tree."""
    for path in ("ai/search/_mcts.pyx", "ai/bots/mcts.py", "ai/calibration/maps.py",
                 "ai/arena/ratings.py", "ai/selfplay/records.py", "ai/review/analysis.py",
                 "ai/learn/train.py", "ai/net/model_file.py", "ai/interop/openspiel_game.py"):
        assert (ROOT / path).is_file(), path
    for package in ("search", "bots", "calibration", "net", "learn", "selfplay", "arena",
                    "review", "interop"):
        init = (ROOT / "ai" / package / "__init__.py").read_text()
        assert ast.get_docstring(ast.parse(init)), f"ai/{package}/__init__.py says what it holds"


def test_ai_top_keeps_at_most_six_modules() -> None:
    top = [p.name for p in (ROOT / "ai").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= 6, top


def test_no_function_is_over_80_lines() -> None:
    long = []
    for folder in ("engine", "ai", "server"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert long == []
