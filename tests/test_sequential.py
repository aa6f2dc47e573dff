"""The group-sequential rule: Pocock's constants, its error rate, its decisions and verdicts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from chancespiel.evaluation.sequential import (
    SequentialRule,
    decide,
    excludes,
    pocock_z,
    verdict,
)
from chancespiel.evaluation.stats import match_interval

# Pocock's constants for a two-sided 5% test with K equally spaced looks (Pocock 1977, Table 1;
# Jennison and Turnbull, "Group Sequential Methods", Table 2.1).
PUBLISHED = {1: 1.960, 2: 2.178, 3: 2.289, 4: 2.361, 5: 2.413, 10: 2.555, 20: 2.672}


@pytest.mark.parametrize("looks", sorted(PUBLISHED))
def test_pocock_constants_match_the_published_table(looks):
    assert pocock_z(looks) == pytest.approx(PUBLISHED[looks], abs=0.002)


def test_pocock_constant_agrees_with_the_multivariate_normal():
    """P(max_k |Z_k| < z) = 0.95 by scipy's multivariate normal with corr(Z_i, Z_j) =
    sqrt(i / j), an independent computation of the same probability."""
    looks = 4
    z = pocock_z(looks)
    t = np.arange(1, looks + 1)
    corr = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    mvn = stats.multivariate_normal(np.zeros(looks), corr, seed=1)
    inside = mvn.cdf(np.full(looks, z), lower_limit=np.full(looks, -z))
    assert inside == pytest.approx(0.95, abs=0.002)


def _walk(rule, scores, references):
    return decide(
        rule, lambda n: match_interval(scores[:n]) if n <= len(scores) else None, references
    )


def test_the_rule_excludes_a_true_rate_about_alpha_of_the_time_where_naive_looks_do_not():
    """Runs of matches whose true mean is 0.5, looked at every 10 matches up to 200 with 0.5 as
    the reference: Pocock's z stops wrongly in about 5% of runs; 1.96 at every look in about a
    fifth of them."""
    rng = np.random.default_rng(7)
    rule = SequentialRule(batch=10, max_matches=200, min_matches=10, target=0.001)
    runs = 600
    wrong = naive = 0
    for _ in range(runs):
        scores = list(rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=200))
        wrong += _walk(rule, scores, [0.5]).reason == "decided"
        for n in rule.looks:
            i = match_interval(scores[:n])
            if not i.low <= 0.5 <= i.high:
                naive += 1
                break
    assert wrong / runs < 0.085
    assert naive / runs > 0.14


def test_decisions_precise_decided_cap_and_open():
    rule = SequentialRule(batch=10, max_matches=40, min_matches=20, target=0.05)
    assert rule.looks == [20, 30, 40]
    even = [0.0, 1.0] * 20
    open_ = _walk(rule, even[:25], [0.5])
    assert (open_.reason, open_.matches, open_.interval.matches) == (None, 30, 20)
    capped = _walk(rule, even, [0.5])
    assert (capped.reason, capped.matches) == ("cap", 40)
    wins = [1.0, 0.5] * 20
    decided = _walk(rule, wins, [0.5])
    assert (decided.reason, decided.matches) == ("decided", 20)
    low, high = decided.sequential
    assert low > 0.5 and high < 1.0
    assert _walk(rule, wins, [0.5, 0.75]).reason != "decided" or not excludes(
        decided.sequential, [0.75]
    )
    close = [0.49, 0.51] * 20
    assert _walk(rule, close, [0.5]).reason == "precise"


def test_a_look_with_no_spread_settles_nothing_before_the_rule_of_three_does():
    rule = SequentialRule(batch=10, max_matches=200, min_matches=10, target=0.05)
    decision = _walk(rule, [1.0] * 20, [0.5])
    assert decision.reason is None and decision.matches == 30
    # every match 1-1 (agents that play alike): within 3/n of 0.5 at 95%, 5 points at 60
    tied = _walk(rule, [0.5] * 100, [0.5])
    assert (tied.reason, tied.matches) == ("precise", 60)
    assert _walk(rule, [1.0] * 100, [0.5]).reason == "precise"  # never "decided" on no spread


def test_a_resumed_run_reaches_the_decision_of_one_played_at_once():
    rng = np.random.default_rng(3)
    scores = list(rng.choice([0.0, 0.5, 1.0], p=[0.2, 0.3, 0.5], size=150))
    rule = SequentialRule(batch=10, max_matches=150, min_matches=20)
    final = _walk(rule, scores, [0.5])
    for cut in range(0, final.matches, 7):
        partial = _walk(rule, scores[:cut], [0.5])
        assert partial.reason is None and partial.matches <= final.matches
    assert _walk(rule, scores[: final.matches], [0.5]) == final


@pytest.mark.parametrize(
    ("interval", "claim", "expected"),
    [
        ((0.30, 0.45), None, "disagrees"),
        ((0.55, 0.70), None, "agrees"),
        ((0.55, 0.70), 0.60, "agrees"),
        ((0.62, 0.70), 0.60, "agrees in direction, not in size"),
        ((0.40, 0.55), 0.85, "disagrees with 85%; undecided against 50%"),
        ((0.40, 0.55), None, "undecided"),
        ((math.nan, math.nan), None, "undecided"),
    ],
)
def test_verdicts(interval, claim, expected):
    assert verdict(interval, claim) == expected


@pytest.mark.parametrize(
    "kwargs",
    [
        {"batch": 0},
        {"min_matches": 1},
        {"min_matches": 50, "max_matches": 40},
        {"target": 0.0},
        {"alpha": 1.0},
    ],
)
def test_bad_rules_are_refused(kwargs):
    with pytest.raises(ValueError):
        SequentialRule(**kwargs)
