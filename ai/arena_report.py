"""The arena's report as text tables (`format_report`) and as a picture (`plot_ratings`):
ratings with their intervals and a pairwise heat map; solo, each bot's mean score."""
from __future__ import annotations

from typing import Any

def format_report(report: dict[str, Any]) -> str:
    """The report as readable tables."""
    players = "solo against Lacerda" if report["players"] == 1 else f"{report['players']} players"
    scheduled = report.get("scheduled", report["games"])
    games = f"{report['games']} of {scheduled}" if scheduled > report["games"] else f"{report['games']}"
    lines = [f"{games} games, {players}"
             + (" (interrupted)" if report["interrupted"] else "") + f", {report['seconds']:.1f} s"]
    if "solo" in report:
        lines.append(f"{'bot':<36} {'games':>5} {'mean':>7} {'std':>6} {'95% CI of mean':>15} "
                     f"{'min':>5} {'max':>5}")
        for s in report["solo"]:
            lo, hi = s["mean_ci"]
            lines.append(f"{s['bot']:<36} {s['games']:>5} {s['mean_score']:>7.1f} "
                         f"{s['std_score']:>6.1f} {f'{lo:.1f}-{hi:.1f}':>15} "
                         f"{s['min_score']:>5} {s['max_score']:>5}")
        return "\n".join(lines)
    lines.append(f"{'bot':<36} {'games':>5} {'wins':>6} {'win rate':>9} {'95% CI':>15} {'money':>7} {'margin':>7}")
    for s in report["summary"]:
        lo, hi = s["win_rate_ci"]
        lines.append(f"{s['bot']:<36} {s['games']:>5} {s['wins']:>6.1f} {100 * s['win_rate']:>8.1f}% "
                     f"{f'{100 * lo:.1f}-{100 * hi:.1f}%':>15} {s['mean_money']:>7.1f} {s['mean_margin']:>7.1f}")
    bots = report["pairwise"]["bots"]
    lines.append("")
    lines.append("pairwise: row finished ahead of column")
    lines.append(" " * 28 + "".join(f"{i + 1:>8}" for i in range(len(bots))))
    for i, b in enumerate(bots):
        cells = "".join(f"{'-':>8}" if v is None else f"{100 * v:>7.0f}%" for v in report["pairwise"]["table"][i])
        lines.append(f"{i + 1:>2} {b[:25]:<25}{cells}")
    if "ratings" in report:
        lines.append("")
        lines.append(f"{'rating (Bradley-Terry, Elo scale)':<36} {'elo':>7} {'95% CI':>17}")
        for r in report["ratings"]:
            lines.append(f"{r['bot']:<36} {r['elo']:>7.0f} {r['ci'][0]:>8.0f} {r['ci'][1]:>8.0f}")
    return "\n".join(lines)


def plot_ratings(report: dict[str, Any], path: str) -> None:
    """Draw the ratings with their intervals to a PNG (solo: each bot's mean score with
    its 95% interval and a bar of one standard deviation)."""
    if "solo" in report:
        _plot_solo(report, path)
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = report.get("ratings", [])
    fig, ax = plt.subplots(figsize=(7, 0.6 * max(2, len(rs)) + 1.2))
    ys = list(range(len(rs)))[::-1]
    for y, r in zip(ys, rs):
        ax.errorbar(r["elo"], y, xerr=[[r["elo"] - r["ci"][0]], [r["ci"][1] - r["elo"]]],
                    fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(ys, [r["bot"] for r in rs])
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("rating (Bradley-Terry, Elo scale; 95% bootstrap interval)")
    ax.set_title(f"{report['games']} games, {report['players']} players")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_solo(report: dict[str, Any], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = report["solo"]
    fig, ax = plt.subplots(figsize=(7, 0.6 * max(2, len(rs)) + 1.2))
    ys = list(range(len(rs)))[::-1]
    for y, r in zip(ys, rs):
        ax.errorbar(r["mean_score"], y, xerr=r["std_score"], fmt="none", ecolor="lightgrey",
                    elinewidth=6)
        lo, hi = r["mean_ci"]
        ax.errorbar(r["mean_score"], y, xerr=[[r["mean_score"] - lo], [hi - r["mean_score"]]],
                    fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(ys, [r["bot"] for r in rs])
    ax.set_xlabel("solo score, $ (mean, 95% interval; grey: one standard deviation)")
    ax.set_title(f"{report['games']} games, solo against Lacerda")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
