"""Counted nouns in messages: "1 game", "3 games"."""
from __future__ import annotations

__all__ = ["counted", "plural"]


def plural(count: int, noun: str) -> str:
    """`noun` as it follows `count`: singular for 1, else with an s."""
    return noun if count == 1 else noun + "s"


def counted(count: int, noun: str) -> str:
    """`count` (with thousands separators) and `noun` as it follows it.

    >>> counted(1, "game"), counted(1200, "position")
    ('1 game', '1,200 positions')
    """
    return f"{count:,} {plural(count, noun)}"
