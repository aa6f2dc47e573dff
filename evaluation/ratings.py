"""Elo ratings by a Bradley-Terry maximum-likelihood fit, with standard errors.

Model: player i beats j with probability 1 / (1 + 10^(-(R_i - R_j)/400)) (logistic Elo). A
draw counts as half a win and half a loss, so the data are, for each pair, the score of one
side and the number of games. Ratings maximize the likelihood
prod_pairs p_ij^(score_ij) (1 - p_ij)^(games_ij - score_ij).

Anchoring: ratings are defined up to a constant; the anchor player (the first one unless told
otherwise) is fixed at 0, so each rating and its standard error are those of the difference to
the anchor. Standard errors come from the inverse of the observed information (the Hessian of
the negative log-likelihood at the optimum) with the anchor's row and column removed.

The maximum does not exist when a group of players scored nothing against the others (a
player who won every game has rating +inf): `mle_exists` tells. `prior_draws` then adds that
many virtual drawn games to every pair that played, which keeps every rating finite.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of log-odds

PairResults = Mapping[tuple[str, str], tuple[float, int]]
"""(i, j) -> (score of i against j, games): draws count half; each pair appears once."""


@dataclass
class Ratings:
    """Elo ratings relative to the anchor, and their standard errors (0 for the anchor)."""

    names: list[str]
    elo: list[float]
    se: list[float]
    anchor: str
    prior_draws: float = 0.0

    def as_dict(self) -> dict[str, tuple[float, float]]:
        """name -> (elo, standard error)."""
        return {n: (e, s) for n, e, s in zip(self.names, self.elo, self.se, strict=True)}


def _matrices(names: Sequence[str], results: PairResults, prior_draws: float):
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    score = np.zeros((k, k))  # score[i, j]: points of i against j
    games = np.zeros((k, k))
    for (a, b), (points, n) in results.items():
        if a not in index or b not in index:
            raise ValueError(f"results name a player not in {list(names)}: {a!r} or {b!r}")
        if a == b:
            raise ValueError(f"a player cannot play itself: {a!r}")
        if n < 0 or not 0.0 <= points <= n:
            raise ValueError(f"{a} vs {b}: score {points} of {n} games is impossible")
        i, j = index[a], index[b]
        extra = prior_draws if n > 0 else 0.0
        score[i, j] += points + extra / 2
        score[j, i] += n - points + extra / 2
        games[i, j] += n + extra
        games[j, i] += n + extra
    return score, games


def _reachable(adjacent: np.ndarray, start: int) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(adjacent[i]):
            if int(j) not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return seen


def mle_exists(names: Sequence[str], results: PairResults, prior_draws: float = 0.0) -> bool:
    """Whether the ratings have a finite maximum-likelihood estimate.

    True iff the graph 'i scored something against j' is strongly connected (Hunter 2004,
    assumption 1; a draw scores both ways).
    """
    score, _ = _matrices(names, results, prior_draws)
    k = len(names)
    return len(_reachable(score > 0, 0)) == k and len(_reachable(score.T > 0, 0)) == k


def bradley_terry(
    names: Sequence[str],
    results: PairResults,
    anchor: str | None = None,
    prior_draws: float = 0.0,
) -> Ratings:
    """Maximum-likelihood Elo ratings of `names` from pairwise results.

    Args:
      names: the players; the first is the anchor unless `anchor` is given.
      results: (i, j) -> (score of i against j, games), draws counting half.
      anchor: the player rated 0.
      prior_draws: virtual drawn games added to every pair that played.

    Raises:
      ValueError: if the players are not all linked by games, or the maximum-likelihood
        estimate does not exist (see `mle_exists`; use prior_draws > 0).
    """
    names = list(names)
    if len(set(names)) != len(names) or not names:
        raise ValueError(f"need distinct player names, got {names}")
    anchor = names[0] if anchor is None else anchor
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not one of the players")
    score, games = _matrices(names, results, prior_draws)
    k = len(names)
    if k == 1:
        return Ratings(names, [0.0], [0.0], anchor, prior_draws)
    if len(_reachable(games > 0, 0)) != k:
        raise ValueError("some players are not linked to the others by any game")
    if not mle_exists(names, results, prior_draws):
        raise ValueError(
            "the ratings have no finite maximum-likelihood estimate (a group of players won "
            "or lost every game against the rest); add prior draws"
        )
    fixed = names.index(anchor)
    free = [i for i in range(k) if i != fixed]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k) if games[i, j] > 0]

    def full(beta_free: np.ndarray) -> np.ndarray:
        beta = np.zeros(k)
        beta[free] = beta_free
        return beta

    def negative_log_likelihood(beta_free: np.ndarray) -> float:
        beta = full(beta_free)
        total = 0.0
        for i, j in pairs:
            d = beta[i] - beta[j]
            # log sigmoid(d) = -logaddexp(0, -d), stable for any d
            total += score[i, j] * np.logaddexp(0.0, -d) + score[j, i] * np.logaddexp(0.0, d)
        return float(total)

    def gradient_and_hessian(beta_free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        beta = full(beta_free)
        grad = np.zeros(k)
        hess = np.zeros((k, k))
        for i, j in pairs:
            p = 1.0 / (1.0 + math.exp(-(beta[i] - beta[j])))
            g = games[i, j] * p - score[i, j]
            grad[i] += g
            grad[j] -= g
            w = games[i, j] * p * (1.0 - p)
            hess[i, i] += w
            hess[j, j] += w
            hess[i, j] -= w
            hess[j, i] -= w
        return grad[free], hess[np.ix_(free, free)]

    from scipy import optimize  # here: importing scipy costs every command a quarter second

    solution = optimize.minimize(
        negative_log_likelihood,
        np.zeros(k - 1),
        method="trust-exact",
        jac=lambda b: gradient_and_hessian(b)[0],
        hess=lambda b: gradient_and_hessian(b)[1],
        options={"gtol": 1e-10},
    )
    if not solution.success and np.max(np.abs(gradient_and_hessian(solution.x)[0])) > 1e-6:
        raise ValueError(f"the rating fit did not converge: {solution.message}")
    beta = full(solution.x)
    covariance = np.linalg.inv(gradient_and_hessian(solution.x)[1])
    se = np.zeros(k)
    se[free] = np.sqrt(np.diag(covariance))
    return Ratings(
        names,
        [float(b * ELO_PER_NAT) for b in beta],
        [float(s * ELO_PER_NAT) for s in se],
        anchor,
        prior_draws,
    )


def elo_of_score(rate: float) -> float:
    """The Elo difference whose expected score is `rate` (in (0, 1)); +-inf at 1 and 0."""
    if rate <= 0.0:
        return -math.inf
    if rate >= 1.0:
        return math.inf
    return ELO_PER_NAT * math.log(rate / (1.0 - rate))
