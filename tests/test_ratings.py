"""Bradley-Terry Elo: hand-computed cases, OpenSpiel's elo module, existence of the estimate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from open_spiel.python.algorithms import elo as openspiel_elo

from chancespiel.evaluation.ratings import ELO_PER_NAT, bradley_terry, elo_of_score, mle_exists

ELO_75 = 400 * math.log10(3)  # a 75% score: 190.848...


def test_two_players_hand_computed():
    ratings = bradley_terry(["A", "B"], {("A", "B"): (75.0, 100)})
    assert pytest.approx(190.85, abs=0.005) == ELO_75
    assert ratings.elo == pytest.approx([0.0, -ELO_75], abs=1e-6)
    # standard error: 1 / sqrt(n p (1 - p)) log-odds = 173.72 / sqrt(18.75) = 40.12 Elo
    assert ratings.se[0] == 0.0
    assert ratings.se[1] == pytest.approx(ELO_PER_NAT / math.sqrt(100 * 0.75 * 0.25), rel=1e-6)
    assert ratings.se[1] == pytest.approx(40.12, abs=0.01)


def test_draws_count_half_and_the_anchor_only_shifts():
    # 50 wins, 50 draws, 0 losses: a 75% score again
    ratings = bradley_terry(["A", "B"], {("B", "A"): (25.0, 100)}, anchor="B")
    assert ratings.as_dict()["A"] == pytest.approx((ELO_75, 40.12), abs=0.01)
    assert ratings.anchor == "B" and ratings.as_dict()["B"] == (0.0, 0.0)


def test_three_players_consistent_results_are_reproduced_exactly():
    # 75% each step, and 90% over two steps: exactly the model's prediction (odds 3 * 3 = 9)
    results = {("A", "B"): (150.0, 200), ("B", "C"): (75.0, 100), ("A", "C"): (45.0, 50)}
    ratings = bradley_terry(["A", "B", "C"], results)
    assert ratings.elo == pytest.approx([0.0, -ELO_75, -2 * ELO_75], abs=1e-6)
    # C's uncertainty relative to A is larger than B's: fewer games link them
    assert 0 < ratings.se[1] < ratings.se[2]
    # four times the games: half the standard errors, the same ratings
    more = bradley_terry(["A", "B", "C"], {k: (4 * s, 4 * n) for k, (s, n) in results.items()})
    assert more.elo == pytest.approx(ratings.elo, abs=1e-6)
    assert more.se[1:] == pytest.approx([s / 2 for s in ratings.se[1:]], rel=1e-6)


def test_agrees_with_openspiel_elo_without_smoothing():
    rng = np.random.default_rng(5)
    wins = rng.integers(5, 40, size=(4, 4))
    np.fill_diagonal(wins, 0)
    theirs = openspiel_elo.compute_ratings_from_matrices(wins, smoothing_factor=0.0)
    names = list("ABCD")
    results = {
        (names[i], names[j]): (float(wins[i, j]), int(wins[i, j] + wins[j, i]))
        for i in range(4)
        for j in range(i + 1, 4)
    }
    ours = bradley_terry(names, results)
    assert np.asarray(ours.elo) - ours.elo[0] == pytest.approx(theirs - theirs[0], abs=1e-3)


def test_a_perfect_score_has_no_estimate_until_prior_draws():
    results = {("A", "B"): (10.0, 10), ("B", "C"): (5.0, 10)}
    assert not mle_exists(["A", "B", "C"], results)
    with pytest.raises(ValueError, match="no finite maximum-likelihood"):
        bradley_terry(["A", "B", "C"], results)
    ratings = bradley_terry(["A", "B", "C"], results, prior_draws=1.0)
    # one virtual draw: 10.5 of 11 against B
    assert ratings.elo[1] == pytest.approx(-elo_of_score(10.5 / 11), abs=1e-6)
    assert all(math.isfinite(s) for s in ratings.se)
    assert mle_exists(["A", "B"], {("A", "B"): (9.5, 10)})  # a draw scores both ways


def test_players_without_games_linking_them_are_an_error():
    with pytest.raises(ValueError, match="not linked"):
        bradley_terry(["A", "B", "C", "D"], {("A", "B"): (5.0, 10), ("C", "D"): (5.0, 10)})
    with pytest.raises(ValueError, match="impossible"):
        bradley_terry(["A", "B"], {("A", "B"): (11.0, 10)})


def test_elo_of_score():
    assert elo_of_score(0.75) == pytest.approx(ELO_75)
    assert elo_of_score(0.5) == 0.0 and elo_of_score(1.0) == math.inf
