"""The arena's report as text tables (`format_report`) and as a picture (`plot_ratings`:
the ratings with their intervals and a pairwise heat map; solo, each bot's mean score).

Column widths follow the longest bot name, so long specs (e.g. remote bots) never break
the tables' alignment; bots that played no game are named once and left out of the
tables and the picture.
"""
from __future__ import annotations

from typing import Any

from gallerist.ai.words import counted, plural

__all__ = ["format_report", "plot_ratings", "preload", "report_figure"]


def preload() -> None:
    """Import the libraries of the report (scipy, statsmodels, matplotlib) now, before
    the games: after Ctrl-C or a failed game the report then comes at once, not after
    seconds of imports."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
    import scipy.optimize  # noqa: F401
    import scipy.stats  # noqa: F401
    import statsmodels.stats.proportion  # noqa: F401


def _headline(report: dict[str, Any]) -> list[str]:
    players = "solo against Lacerda" if report["players"] == 1 else f"{report['players']} players"
    scheduled = report.get("scheduled", report["games"])
    games = f"{report['games']} of {scheduled}" if scheduled > report["games"] else f"{report['games']}"
    lines = [f"{games} {plural(max(scheduled, report['games']), 'game')}, {players}"
             + (" (interrupted)" if report["interrupted"] else "") + f", {report['seconds']:.1f} s"]
    if report.get("unplayed"):
        lines.append(f"not rated, no games played: {', '.join(report['unplayed'])}")
    return lines


def _width(names: list[str], header: str) -> int:
    return max([len(header), *map(len, names)])


def _solo_table(rows: list[dict[str, Any]]) -> list[str]:
    w = _width([s["bot"] for s in rows], "bot")
    lines = [f"{'bot':<{w}} {'games':>5} {'mean':>7} {'std':>6} {'95% CI of mean':>18} "
             f"{'min':>5} {'max':>5}"]
    for s in rows:   # " to ": a low end below zero must not read as a range "-8.6-283.6"
        ci = "n/a" if s["mean_ci"] is None else \
            f"{s['mean_ci'][0]:.1f} to {s['mean_ci'][1]:.1f}"
        lines.append(f"{s['bot']:<{w}} {s['games']:>5} {s['mean_score']:>7.1f} "
                     f"{s['std_score']:>6.1f} {ci:>18} {s['min_score']:>5} {s['max_score']:>5}")
    return lines


def _summary_table(rows: list[dict[str, Any]]) -> list[str]:
    w = _width([s["bot"] for s in rows], "bot")
    lines = [f"{'bot':<{w}} {'games':>5} {'wins':>6} {'win rate':>9} {'95% CI':>15} "
             f"{'money':>7} {'margin':>7}"]
    for s in rows:
        lo, hi = s["win_rate_ci"]
        lines.append(f"{s['bot']:<{w}} {s['games']:>5} {s['wins']:>6.1f} {100 * s['win_rate']:>8.1f}% "
                     f"{f'{100 * lo:.1f} to {100 * hi:.1f}%':>15} {s['mean_money']:>7.1f} "
                     f"{s['mean_margin']:>7.1f}")
    return lines


def _pairwise_table(pairwise: dict[str, Any]) -> list[str]:
    bots = pairwise["bots"]
    w = _width(bots, "")
    lines = ["pairwise: row finished ahead of column",
             " " * (w + 3) + "".join(f"{i + 1:>8}" for i in range(len(bots)))]
    for i, b in enumerate(bots):
        cells = "".join(f"{'-':>8}" if v is None else f"{100 * v:>7.0f}%" for v in pairwise["table"][i])
        lines.append(f"{i + 1:>2} {b:<{w}}{cells}")
    return lines


def _ratings_table(rows: list[dict[str, Any]]) -> list[str]:
    header = "rating (Bradley-Terry, Elo scale)"
    w = _width([r["bot"] for r in rows], header)
    lines = [f"{header:<{w}} {'elo':>7} {'95% CI':>17}"]
    for r in rows:
        lines.append(f"{r['bot']:<{w}} {r['elo']:>7.0f} {r['ci'][0]:>8.0f} {r['ci'][1]:>8.0f}")
    return lines


def format_report(report: dict[str, Any]) -> str:
    """The report as readable tables."""
    lines = _headline(report)
    if "solo" in report:
        return "\n".join(lines + _solo_table(report["solo"]))
    lines += _summary_table(report["summary"])
    lines += [""] + _pairwise_table(report["pairwise"])
    if "ratings" in report:
        lines += [""] + _ratings_table(report["ratings"])
    return "\n".join(lines)


# ---------------------------------------------------------------------------- picture

def _intervals(ax: Any, rows: list[dict[str, Any]], value: str, ci: str) -> None:
    """Points with their intervals, best at the top, labelled with the bot names."""
    ys = list(range(len(rows)))[::-1]
    for y, r in zip(ys, rows):
        if r[ci] is not None:
            lo, hi = r[ci]
            ax.errorbar(r[value], y, xerr=[[r[value] - lo], [hi - r[value]]], fmt="o", capsize=4,
                        color="tab:blue")
        else:
            ax.plot(r[value], y, "o", color="tab:blue")
    ax.set_yticks(ys, [r["bot"] for r in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)


def _heat_map(ax: Any, pairwise: dict[str, Any]) -> None:
    """Win rate of row vs column, one cell per pair, with its percentage."""
    import numpy as np

    bots = pairwise["bots"]
    table = np.array([[np.nan if v is None else v for v in row] for row in pairwise["table"]], dtype=float)
    image = ax.imshow(table, vmin=0.0, vmax=1.0, cmap="RdBu", aspect="auto")
    for (i, j), v in np.ndenumerate(table):
        if not np.isnan(v):
            ax.text(j, i, f"{100 * v:.0f}%", ha="center", va="center",
                    color="white" if abs(v - 0.5) > 0.3 else "black", fontsize=9)
    ax.set_xticks(range(len(bots)), [str(i + 1) for i in range(len(bots))])
    ax.set_yticks(range(len(bots)), [f"{b} ({i + 1})" for i, b in enumerate(bots)])
    ax.set_xlabel("column (opponent)")
    ax.set_title("pairwise: share of games the row finished ahead of the column", fontsize=10)
    ax.figure.colorbar(image, ax=ax, label="row ahead of column")


def report_figure(report: dict[str, Any]) -> Any:
    """The picture of a report as a matplotlib Figure: ratings with their 95%
    profile-likelihood intervals over a pairwise heat map (solo: each bot's mean score
    with its 95% t interval and a grey bar of one standard deviation). The figure
    grows with the longest bot name and lays itself out, so no label is clipped."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    solo = "solo" in report
    rows = report["solo"] if solo else report.get("ratings", [])
    names = [r["bot"] for r in rows]
    width = 4.5 + 0.075 * max([10, *map(len, names)])
    height = 0.45 * max(2, len(rows)) + 1.4
    heat = not solo and len(report.get("pairwise", {}).get("bots", [])) > 1
    fig, axes = plt.subplots(2 if heat else 1, 1, figsize=(width, height * (2.1 if heat else 1)),
                             layout="constrained", squeeze=False)
    ax = axes[0][0]
    players = "solo against Lacerda" if solo else f"{report['players']} players"
    ax.set_title(f"{counted(report['games'], 'game')}, {players}")
    if solo:
        ys = list(range(len(rows)))[::-1]
        for y, r in zip(ys, rows):
            ax.errorbar(r["mean_score"], y, xerr=r["std_score"], fmt="none", ecolor="lightgrey", elinewidth=6)
        _intervals(ax, rows, "mean_score", "mean_ci")
        ax.set_xlabel("solo score, $ (mean, 95% t interval;\ngrey: one standard deviation)")
    else:
        _intervals(ax, rows, "elo", "ci")
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_xlabel("rating (Bradley-Terry, Elo scale;\n95% profile-likelihood interval)")
    if heat:
        _heat_map(axes[1][0], report["pairwise"])
    return fig


def plot_ratings(report: dict[str, Any], path: str) -> None:
    """Draw `report_figure(report)` to a PNG."""
    fig = report_figure(report)
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
