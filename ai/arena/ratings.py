"""Tournament statistics: win rates with Wilson intervals, pairwise tables, and
Bradley-Terry ratings (Elo scale) on finishing orders by pairs, with profile-likelihood
intervals; solo, each bot's mean score (the method: docs/cli.md, "arena")."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

#: Confidence level of every interval reported.
LEVEL = 0.95
#: The ratings' prior: virtual wins each bot has, and as many losses, spread evenly
#: over the other bots (half a win and half a loss against each opponent with two bots).
PRIOR = 0.5
#: Elo points per natural-log unit of strength (400 Elo: odds of 10 to 1).
ELO_PER_UNIT = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class GameResult:
    """One finished game: specs by seat, final money by seat, win share by seat."""

    bots: tuple[str, ...]
    money: tuple[int, ...]
    returns: tuple[float, ...]

    def pair_score(self, i: int, j: int) -> float:
        """1 if seat i finished ahead of seat j, 0 if behind, 0.5 if level."""
        ri, rj = self.returns[i], self.returns[j]
        if ri != rj:
            return 1.0 if ri > rj else 0.0
        if self.money[i] != self.money[j]:
            return 1.0 if self.money[i] > self.money[j] else 0.0
        return 0.5


def wilson_interval(successes: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval of a proportion (shared wins count fractionally), from
    statsmodels' `proportion_confint`; (0, 1) without any trial."""
    if n <= 0:
        return (0.0, 1.0)
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(successes, n, alpha=1.0 - level, method="wilson")
    return (max(0.0, float(lo)), min(1.0, float(hi)))


@dataclass
class BotSummary:
    bot: str
    games: int
    wins: float
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_money: float
    mean_margin: float


def summarize(results: Sequence[GameResult]) -> list[BotSummary]:
    """Per bot: games, wins (shared wins split), win rate with a 95% Wilson interval,
    mean final money and mean margin (own money minus the best other seat's)."""
    acc: dict[str, list[float]] = {}
    for r in results:
        for seat, bot in enumerate(r.bots):
            others = [m for k, m in enumerate(r.money) if k != seat]
            a = acc.setdefault(bot, [0, 0.0, 0.0, 0.0])
            a[0] += 1
            a[1] += r.returns[seat]
            a[2] += r.money[seat]
            a[3] += r.money[seat] - max(others)
    out = []
    for bot, (games, wins, money, margin) in acc.items():
        n = int(games)
        out.append(BotSummary(bot=bot, games=n, wins=wins, win_rate=wins / n,
                              win_rate_ci=wilson_interval(wins, n),
                              mean_money=money / n, mean_margin=margin / n))
    out.sort(key=lambda s: -s.win_rate)
    return out


@dataclass
class SoloSummary:
    """Solo games (one player against Lacerda): the bot's final money, its spread and a
    95% interval of the mean (Student's t with games - 1 degrees of freedom; None for a
    single game, which says nothing about the spread)."""

    bot: str
    games: int
    mean_score: float
    std_score: float
    mean_ci: tuple[float, float] | None
    min_score: int
    max_score: int


def solo_summary(results: Sequence[GameResult]) -> list[SoloSummary]:
    """Per bot, over its solo games: games, mean score (final money), its sample
    standard deviation (0 for one game), the 95% t interval of the mean (None for one
    game), min and max; best mean first."""
    from scipy import stats

    scores: dict[str, list[int]] = {}
    for r in results:
        scores.setdefault(r.bots[0], []).append(r.money[0])
    out = []
    for bot, xs in scores.items():
        n = len(xs)
        mean = sum(xs) / n
        std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
        ci = None
        if n > 1:
            half = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1)) * std / math.sqrt(n)
            ci = (mean - half, mean + half)
        out.append(SoloSummary(bot=bot, games=n, mean_score=mean, std_score=std,
                               mean_ci=ci, min_score=min(xs),
                               max_score=max(xs)))
    out.sort(key=lambda s: -s.mean_score)
    return out


def pairwise_table(results: Sequence[GameResult], bots: Sequence[str]) -> list[list[float | None]]:
    """table[a][b] = share of the games in which both met where a finished ahead of b."""
    idx = {b: i for i, b in enumerate(bots)}
    n = len(bots)
    score = np.zeros((n, n))
    count = np.zeros((n, n))
    for r in results:
        for i in range(len(r.bots)):
            for j in range(len(r.bots)):
                if i == j or r.bots[i] == r.bots[j]:
                    continue
                a, b = idx[r.bots[i]], idx[r.bots[j]]
                score[a, b] += r.pair_score(i, j)
                count[a, b] += 1
    return [[(score[a, b] / count[a, b]) if count[a, b] else None for b in range(n)]
            for a in range(n)]


def _pair_matrix(results: Sequence[GameResult], idx: dict[str, int]) -> np.ndarray:
    """wins[a, b]: how often bot a finished ahead of bot b (ties count half each way)."""
    n = len(idx)
    w = np.zeros((n, n))
    for r in results:
        for i in range(len(r.bots)):
            for j in range(i + 1, len(r.bots)):
                if r.bots[i] == r.bots[j]:
                    continue
                a, b = idx[r.bots[i]], idx[r.bots[j]]
                s = r.pair_score(i, j)
                w[a, b] += s
                w[b, a] += 1 - s
    return w


def with_prior(wins: np.ndarray, prior: float = PRIOR) -> np.ndarray:
    """The win matrix plus the prior: `prior` virtual wins and as many losses per bot,
    spread evenly over the other bots."""
    n = wins.shape[0]
    return wins + prior * (1 - np.eye(n)) / max(1, n - 1)


def bradley_terry(wins: np.ndarray, iterations: int = 500, prior: float = PRIOR) -> np.ndarray:
    """Bradley-Terry strengths by the MM algorithm, as Elo-scale ratings (mean 0).

    `wins[a, b]` is how often a beat b (fractions allowed); `prior` (see `with_prior`)
    keeps unbeaten or winless bots finite.
    """
    w = with_prior(wins, prior)
    games = w + w.T
    p = np.ones(w.shape[0])
    total_wins = w.sum(axis=1)
    for _ in range(iterations):
        denom = (games / (p[:, None] + p[None, :] + 1e-300)).sum(axis=1)
        new = total_wins / np.maximum(denom, 1e-300)
        new /= np.exp(np.mean(np.log(np.maximum(new, 1e-300))))
        if np.max(np.abs(new - p)) < 1e-10:
            p = new
            break
        p = new
    elo = 400.0 * np.log10(np.maximum(p, 1e-300))
    return elo - elo.mean()


@dataclass
class Rating:
    bot: str
    elo: float
    ci: tuple[float, float]


def ratings(results: Sequence[GameResult], bots: Sequence[str], prior: float = PRIOR,
            anchor: str | None = None) -> list[Rating]:
    """Bradley-Terry ratings (Elo scale) fitted on all results with the prior, and their
    95% profile-likelihood intervals (`ai.arena.intervals`); best first. The scale has
    mean 0, or with `anchor` (one of `bots`) that bot fixed at 0 and every interval that
    of the difference to it.

    The pairs of a three- or four-player game are counted as independent games, so
    there the intervals are somewhat too narrow.
    """
    from gallerist.ai.arena.intervals import anchored_intervals, profile_intervals

    if prior <= 0:
        raise ValueError(f"prior must be > 0 (it keeps perfect records finite), got {prior}")
    idx = {b: i for i, b in enumerate(bots)}
    wins = _pair_matrix(results, idx)
    point = bradley_terry(wins, prior=prior)
    if anchor is None:
        bounds = profile_intervals(with_prior(wins, prior), point / ELO_PER_UNIT, LEVEL)
    else:
        point = point - point[idx[anchor]]
        bounds = anchored_intervals(with_prior(wins, prior), point / ELO_PER_UNIT, idx[anchor],
                                    LEVEL)
    out = [Rating(bot=b, elo=float(point[i]),
                  ci=(float(bounds[i][0] * ELO_PER_UNIT), float(bounds[i][1] * ELO_PER_UNIT)))
           for b, i in idx.items()]
    out.sort(key=lambda r: -r.elo)
    return out
