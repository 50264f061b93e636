"""Debian's Chromium driven by Playwright, for the tests of pages (the review page, the
board's SVG, the /play page): never `playwright install`, the system's /usr/bin/chromium.
Chromium missing is a failure that says how to install it, not a skip."""
from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

__all__ = ["CHROMIUM", "chromium", "variance"]

CHROMIUM = os.environ.get("GALLERIST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched Chromium (Playwright's Browser), closed at the end."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)) and not shutil.which(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: install it with `apt-get install -y "
                    f"chromium` (Debian's package; tests/run.sh does) or set GALLERIST_CHROMIUM")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[dev]'")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def variance(png: bytes) -> float:
    """The grey-level variance of a screenshot: near 0 for a blank one."""
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)
    return float(pixels.var())
