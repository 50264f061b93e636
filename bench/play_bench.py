"""A move in the /play page: the time from a click on a move to the first frame the page
draws with the position after it (measured by the page itself, `performance.now()` from
the click to the next animation frame after the update), in Debian's Chromium driven by
Playwright, against the default bot at
10 ms a move, with an in-process server (2 workers). Clicks the bot answers (its reply
included) and clicks that lead straight to the person's next decision are counted apart.
Target: at most 100 ms p50 for a move the bot answers.

Usage:
    python bench/play_bench.py [--games 2] [--players 2] [--max-moves 0] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
from typing import Any

from gallerist.server.app import create_server

CHROMIUM = os.environ.get("GALLERIST_CHROMIUM", "/usr/bin/chromium")


def _quantile(values: list[float], q: float) -> float:
    return sorted(values)[int(q * (len(values) - 1))] if values else float("nan")


def _game(page: Any, origin: str, players: int, seed: int, max_moves: int,
          times: dict[str, list[float]]) -> None:
    """One game in the page; each click's milliseconds go to times["reply"] (the bot
    moved before the person's next decision) or times["direct"]."""
    page.goto(origin + "/play")
    page.select_option("#players", str(players))
    bot = page.eval_on_selector("select.opponent", "s => s.options[s.options.length - 3].value")
    for i in range(players - 1):
        page.locator("select.opponent").nth(i).select_option(bot)   # the default bot, 10 ms
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector('body[data-busy="0"]', state="attached")
    moves = 0
    while page.locator("button.move").count() and (not max_moves or moves < max_moves):
        before = page.locator("#events li").count()
        button = page.locator("button.move").nth(moves % page.locator("button.move").count())
        page.evaluate("() => { delete document.body.dataset.moveMs; }")
        button.click()
        page.wait_for_selector("body[data-move-ms]", state="attached")
        ms = float(page.get_attribute("body", "data-move-ms"))
        new = page.locator("#events li").all_inner_texts()[before:]
        times["reply" if any("(Default bot" in t for t in new) else "direct"].append(ms)
        moves += 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2, help="games played (default 2)")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--max-moves", type=int, default=0,
                    help="stop each game after this many of the person's moves (0: the end)")
    ap.add_argument("--json", default=None, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    server, _ = create_server("localhost:0", workers=2, http_port=0)
    server.start()
    times: dict[str, list[float]] = {"reply": [], "direct": []}
    try:
        assert server.http is not None
        origin = f"http://localhost:{server.http.port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM,
                                        args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            for g in range(args.games):
                _game(page, origin, args.players, 100 + g, args.max_moves, times)
            browser.close()
    finally:
        server.stop(grace=0).wait(5)
    figures = {k: {"p50_ms": statistics.median(v) if v else None,
                   "p90_ms": _quantile(v, 0.9) if v else None, "clicks": len(v)}
               for k, v in times.items()}
    print(f"{'a click on a move, to the page updated':<52}{'clicks':>7}{'p50 ms':>8}{'p90 ms':>8}")
    for key, label in (("reply", "the default bot (10 ms a move) replies"),
                       ("direct", "straight to the person's next decision")):
        f = figures[key]
        p50 = "-" if f["p50_ms"] is None else f"{f['p50_ms']:.1f}"
        p90 = "-" if f["p90_ms"] is None else f"{f['p90_ms']:.1f}"
        print(f"{label:<52}{f['clicks']:>7}{p50:>8}{p90:>8}")
    print(f"target: at most 100 ms p50 for a move the bot answers; "
          f"load average (1 min) {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"players": args.players, "games": args.games, **figures}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
