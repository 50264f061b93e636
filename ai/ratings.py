"""Tournament statistics: win rates with confidence intervals, pairwise tables, and
Bradley-Terry ratings (Elo scale) with bootstrap intervals.

A game result is the bots' specs by seat with each seat's final money and win share
(1/k for k tied winners). Finishing order (money, then the engine's tie-breakers, which
the win shares already reflect for first place) is decomposed into pairwise outcomes:
for every pair of seats, the one that finished ahead wins the pair, a tie counts half.
With two players this is the plain win/loss; with three or four it is a rating on the
finishing order (the pairwise, "Plackett-Luce by pairs" reading). Solo games (one
player against Lacerda) have no opponent to rank against: `solo_summary` reports the
mean and spread of each bot's score instead.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

Z95 = 1.959963984540054


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


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (shared wins count fractionally)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


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
    95% interval of the mean (normal approximation)."""

    bot: str
    games: int
    mean_score: float
    std_score: float
    mean_ci: tuple[float, float]
    min_score: int
    max_score: int


def solo_summary(results: Sequence[GameResult]) -> list[SoloSummary]:
    """Per bot, over its solo games: games, mean score (final money), its sample
    standard deviation (0 for one game), the 95% interval of the mean, min and max;
    best mean first."""
    scores: dict[str, list[int]] = {}
    for r in results:
        scores.setdefault(r.bots[0], []).append(r.money[0])
    out = []
    for bot, xs in scores.items():
        n = len(xs)
        mean = sum(xs) / n
        std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
        half = Z95 * std / math.sqrt(n)
        out.append(SoloSummary(bot=bot, games=n, mean_score=mean, std_score=std,
                               mean_ci=(mean - half, mean + half), min_score=min(xs),
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


def _pair_matrix(results: Sequence[GameResult], idx: dict[str, int], weights: np.ndarray | None = None) -> np.ndarray:
    n = len(idx)
    w = np.zeros((n, n))
    for g, r in enumerate(results):
        k = 1.0 if weights is None else weights[g]
        if k == 0:
            continue
        for i in range(len(r.bots)):
            for j in range(i + 1, len(r.bots)):
                if r.bots[i] == r.bots[j]:
                    continue
                a, b = idx[r.bots[i]], idx[r.bots[j]]
                s = r.pair_score(i, j)
                w[a, b] += k * s
                w[b, a] += k * (1 - s)
    return w


def bradley_terry(wins: np.ndarray, iterations: int = 500, prior: float = 0.5) -> np.ndarray:
    """Bradley-Terry strengths by the MM algorithm, as Elo-scale ratings (mean 0).

    `wins[a, b]` is how often a beat b (fractions allowed). A small prior (`prior` wins
    each way against a virtual average opponent) keeps unbeaten or winless bots finite.
    """
    n = wins.shape[0]
    w = wins + prior * (1 - np.eye(n)) / max(1, n - 1)
    games = w + w.T
    p = np.ones(n)
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


def ratings(results: Sequence[GameResult], bots: Sequence[str], bootstrap: int = 200,
            seed: int = 0) -> list[Rating]:
    """Bradley-Terry (Elo scale) ratings fitted on all results, with 95% intervals from
    a bootstrap over games."""
    idx = {b: i for i, b in enumerate(bots)}
    point = bradley_terry(_pair_matrix(results, idx))
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, len(bots)))
    m = len(results)
    for k in range(bootstrap):
        weights = np.bincount(rng.integers(0, m, size=m), minlength=m).astype(float) if m else None
        samples[k] = bradley_terry(_pair_matrix(results, idx, weights))
    out = []
    for b, i in idx.items():
        lo, hi = (np.percentile(samples[:, i], [2.5, 97.5]) if bootstrap else (point[i], point[i]))
        out.append(Rating(bot=b, elo=float(point[i]), ci=(float(lo), float(hi))))
    out.sort(key=lambda r: -r.elo)
    return out
