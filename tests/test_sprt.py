"""The pentanomial SPRT: hand-computed LLRs, error rates by simulation, the match command."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from chancespiel.evaluation import cli
from chancespiel.evaluation.match import read_records
from chancespiel.evaluation.sprt import (
    PAIR_SCORES,
    Sprt,
    SprtParams,
    SprtResult,
    logistic_score,
    pair_index,
    pentanomial_llr,
)

ELO_60 = 400 * math.log10(1.5)  # expected score 0.6


def test_bounds_and_parsing():
    params = SprtParams.parse("0,10,0.05,0.05")
    assert params.upper == pytest.approx(math.log(19)) and params.lower == pytest.approx(
        -math.log(19)
    )
    assert SprtParams.parse("-5,5") == SprtParams(-5.0, 5.0, 0.05, 0.05)
    assert SprtParams(0, 10, 0.1, 0.2).lower == pytest.approx(math.log(0.2 / 0.9))
    # Elo differences whose expected score is 1.0 (or overflows) would stop a run at its first
    # decision with a traceback: refused before any game.
    for bad in ("10,0", "0,10,0.05", "0,10,0.6,0.05", "a,b", "-inf,inf", "0,1e9", "-1e9,0"):
        with pytest.raises(ValueError):
            SprtParams.parse(bad)


def test_llr_hand_computed():
    assert logistic_score(ELO_60) == pytest.approx(0.6)
    # One match at 1/4 and one at 3/4, against s0 = 0.5 and s1 = 0.6. Both means lie between
    # the observed scores, so the maximum-likelihood p lives on them: p(1/4) = a, p(3/4) = 1 - a
    # with a / 4 + 3 (1 - a) / 4 = s, so a = 0.5 under H0 and a = 0.3 under H1:
    # LLR = ln(0.3 * 0.7) - ln(0.5 * 0.5) = ln(0.84).
    assert pentanomial_llr([0, 1, 0, 1, 0], 0.0, ELO_60) == pytest.approx(math.log(0.84))
    # One match won 2-0: under a mean s the best p puts s on score 1 and 1 - s on score 0.
    assert pentanomial_llr([0, 0, 0, 0, 1], 0.0, ELO_60) == pytest.approx(math.log(0.6 / 0.5))
    # One match split 1-1: certain under H0; under H1 the best p puts 0.2 on score 1.
    assert pentanomial_llr([0, 0, 1, 0, 0], 0.0, ELO_60) == pytest.approx(math.log(0.8))
    assert pentanomial_llr([0, 0, 5, 0, 0], 0.0, ELO_60) == pytest.approx(5 * math.log(0.8))
    assert pentanomial_llr([0, 0, 0, 0, 0], 0.0, ELO_60) == 0.0
    # mirrored results give the opposite evidence for the mirrored test
    assert pentanomial_llr([0, 1, 0, 1, 0], -ELO_60, 0.0) == pytest.approx(-math.log(0.84))
    assert pentanomial_llr([3, 1, 4, 1, 5], 0.0, 50.0) == pytest.approx(
        -pentanomial_llr([5, 1, 4, 1, 3], -50.0, 0.0)
    )


def test_large_samples_match_the_normal_approximation():
    counts = [500, 2000, 4000, 2050, 520]  # mean 0.5025, between s0 = 0.5 and s1 = 0.514
    n = sum(counts)
    mean = sum(c * x for c, x in zip(counts, PAIR_SCORES, strict=True)) / n
    var = sum(c * (x - mean) ** 2 for c, x in zip(counts, PAIR_SCORES, strict=True)) / n
    s0, s1 = logistic_score(0.0), logistic_score(10.0)
    normal = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert pentanomial_llr(counts, 0.0, 10.0) == pytest.approx(normal, rel=0.01)


def test_pair_index():
    assert [pair_index(p) for p in (0, 0.5, 1, 1.5, 2)] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError):
        pair_index(0.7)


def _tilted(base: np.ndarray, mean: float) -> np.ndarray:
    """The distribution proportional to base * exp(t x) with the given mean."""
    x = np.asarray(PAIR_SCORES)

    def gap(t: float) -> float:
        p = base * np.exp(t * x)
        return float((p / p.sum()) @ x - mean)

    t = optimize.brentq(gap, -50, 50)
    p = base * np.exp(t * x)
    return p / p.sum()


def _run_tests(probs: np.ndarray, params: SprtParams, runs: int, seed: int) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    outcomes = {"H0": 0, "H1": 0, None: 0}
    for _ in range(runs):
        test = Sprt(params)
        for points in 2 * np.asarray(PAIR_SCORES)[rng.choice(5, size=5000, p=probs)]:
            if test.add(float(points)) is not None:
                break
        outcomes[test.decision] += 1
    return outcomes


def test_simulated_error_rates_are_near_alpha_and_beta():
    params = SprtParams(0.0, 40.0, 0.05, 0.05)
    base = np.array([0.05, 0.2, 0.5, 0.2, 0.05])
    under_h0 = _run_tests(_tilted(base, logistic_score(0.0)), params, 100, seed=1)
    under_h1 = _run_tests(_tilted(base, logistic_score(40.0)), params, 100, seed=2)
    assert under_h0[None] == under_h1[None] == 0  # every test decides within 5000 pairs
    assert under_h0["H1"] <= 12  # alpha = 5%: 5 expected of 100
    assert under_h1["H0"] <= 12  # beta = 5%


def test_a_clearly_stronger_agent_is_accepted_quickly():
    strong = np.array([0.02, 0.08, 0.3, 0.35, 0.25])  # mean score 0.6825, about +133 Elo
    test = Sprt(SprtParams(0.0, 20.0))
    rng = np.random.default_rng(0)
    for points in 2 * np.asarray(PAIR_SCORES)[rng.choice(5, size=1000, p=strong)]:
        if test.add(float(points)):
            break
    assert test.decision == "H1" and test.decided_at < 150
    assert test.add(0.0) == "H1" and test.pairs == test.decided_at  # no more pairs counted
    assert "H1 accepted" in test.result().describe()


def test_a_decision_is_worded_as_what_the_test_decided():
    params = SprtParams(0.0, 20.0, 0.05, 0.1)
    h1 = SprtResult(params, [0, 0, 0, 0, 40], 3.1, "H1", 40).describe()
    assert "H1 accepted: A's elo is more likely elo1=20 than elo0=0 (at alpha=0.05:" in h1
    h0 = SprtResult(params, [40, 0, 0, 0, 0], -3.1, "H0", 40).describe()
    assert "H0 accepted: A's elo is more likely elo0=0 than elo1=20 (at beta=0.1:" in h0
    for text in (h1, h0):  # a decision between two elos claims no bound on the elo
        assert "stronger" not in text and "elo >=" not in text and "elo <=" not in text


def test_match_stops_on_the_sprt_with_whole_matches_and_no_timing_dependence(tmp_path, capsys):
    lines = []
    for workers in ("1", "2"):
        out = tmp_path / f"sprt{workers}.jsonl"
        args = ["match", "python_pig(winscore=20)", "pig_optimal", "random", "--matches", "500"]
        args += ["--sprt", "0,50,0.05,0.05", "--out", str(out), "--workers", workers]
        assert cli.main([*args, "--no-progress"]) == 0
        text = capsys.readouterr().out
        (line,) = [line for line in text.splitlines() if "SPRT" in line]
        assert "H1 accepted" in line
        lines.append(line)
        records = read_records(out)
        matches = {r["match"] for r in records}
        assert len(records) == 2 * len(matches) < 200, "whole matches only, far fewer than 500"
        assert matches == set(range(len(matches)))
        # a rerun sees the decision in the file and plays nothing
        assert cli.main([*args, "--no-progress"]) == 0
        assert "nothing to play" in capsys.readouterr().out
    assert lines[0] == lines[1], "the decision must not depend on the worker count"


def _brute_force_llr(counts: list[int], s0: float, s1: float) -> float:
    """The same maxima by a general constrained optimizer over the five probabilities."""
    x = np.asarray(PAIR_SCORES)
    n = np.asarray(counts, dtype=float)

    def best(s: float) -> float:
        result = optimize.minimize(
            lambda p: -float(n[n > 0] @ np.log(np.maximum(p[n > 0], 1e-300))),
            np.full(5, 0.2),
            method="SLSQP",
            bounds=[(0.0, 1.0)] * 5,
            constraints=[
                {"type": "eq", "fun": lambda p: p.sum() - 1.0},
                {"type": "eq", "fun": lambda p, s=s: p @ x - s},
            ],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        return -result.fun

    return best(s1) - best(s0)


def test_llr_equals_a_brute_force_maximization():
    rng = np.random.default_rng(8)
    for _ in range(12):
        counts = [int(c) for c in rng.integers(0, 6, size=5) * (rng.random(5) < 0.7)]
        if sum(counts) == 0:
            continue
        elo0, elo1 = sorted(rng.uniform(-150, 150, size=2))
        expected = _brute_force_llr(counts, logistic_score(elo0), logistic_score(elo1))
        assert pentanomial_llr(counts, elo0, elo1) == pytest.approx(expected, abs=1e-5), counts


def test_the_sprt_line_counts_its_own_matches_and_those_played_beyond(tmp_path, capsys):
    """The test stops at a whole match; games already under way in other workers are played
    out and recorded: the report says how many the test used and how many more there are."""
    import re

    from chancespiel.evaluation import cli
    from chancespiel.evaluation.match import read_records

    out = tmp_path / "s.jsonl"
    argv = ["match", "python_pig(winscore=30)", "pig_optimal", "random", "--matches", "100"]
    assert cli.main([*argv, "--sprt", "0,100,0.05,0.05", "--workers", "2", "--no-progress",
                     "--out", str(out)]) == 0  # fmt: skip
    text = capsys.readouterr().out
    used = int(re.search(r"after (\d+) matches \((\d+) games\): H1", text)[1])
    assert f"after {used} matches ({2 * used} games)" in text
    games = read_records(out)
    whole = len({r["match"] for r in games if sum(g["match"] == r["match"] for g in games) == 2})
    if whole > used:
        assert f"({whole - used} more whole match(es) were under way" in text
    else:
        assert "under way" not in text
