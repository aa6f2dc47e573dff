"""The pig-regret experiment: configurations, the laboratory heuristic, regrets against the
solver, resumable runs and the summary's paired differences."""

from __future__ import annotations

import csv
import json
import math
import os
import random
import statistics

import pyspiel
import pytest
from resumed import refused_when_mixed

from chancespiel.agents.star_minimax import hybrid_options
from chancespiel.evaluation import cli
from chancespiel.games.pig_solver import solve_pig
from chancespiel.studies import pig_regret
from chancespiel.studies.pig_estimators import GAME, core_of, exact_values
from chancespiel.studies.pig_regret import (
    COLUMNS,
    Study,
    oracle_heuristic,
    parse_config,
    search_keywords,
    search_position,
    summarise,
)

# (mover's score, opponent's score, turn total, mover): decision states with a real choice.
KEYS = ((0, 0, 8, 1), (40, 62, 14, 0), (85, 90, 6, 1))


def test_configurations_name_their_factors():
    base = parse_config("base")
    assert base.describe() == "dice=unordered;width=paper;heuristic=default;search=paper"
    assert base.runs_classic and base.algorithms()[:3] == ("expectimax", "star1", "star2")
    mixed = parse_config("ordered+width5+resample")
    assert mixed.describe() == "dice=ordered;width=5/5/5;heuristic=default;search=resample"
    assert mixed.classic_reference == "ordered" and not mixed.runs_classic
    assert mixed.algorithms() == ("expss", "star1ss", "star2ss")
    assert parse_config("zero").heuristic == "zero" and parse_config("zero").runs_classic
    oracle = parse_config("oracle0.2+path")
    assert oracle.runs_classic and oracle.noise == 0.2
    assert oracle.describe().endswith("heuristic=oracle(noise=0.2);search=table=path")
    sampling = parse_config("ordered+systematic+plies1+exact30")
    assert sampling.classic_reference == "ordered" and not sampling.runs_classic
    assert search_keywords(sampling.options, 18) == {
        "systematic": True,
        "exact_plies": 1,
        "exact_up_to": 30,
    }
    assert search_keywords(parse_config("hybrid").options, 18) == {
        "systematic": True,
        "exact_plies": 1,
        "exact_up_to": 18,
    }
    assert search_keywords(parse_config("stratified+segap0.5").options, 18) == {
        "stratified": True,
        "se_gap": 0.5,
    }
    # an exactN token sets the enumeration wherever it stands beside 'hybrid'
    for tokens in ("exact24+hybrid", "hybrid+exact24"):
        assert search_keywords(parse_config(tokens).options, 18)["exact_up_to"] == 24
    # the agents star1hs, star2hs (since version 0.5.0 with a third more than the width)
    agents = parse_config(
        "classic_first+classic_trial+fit_exact_plies+fit_within_ply+classic_within_ply+"
        "growth_two_back+first_cap_two_back+hybrid+stratified+exact24"
    )
    assert search_keywords(agents.options, 18) == hybrid_options(18, "star2")
    # exphs, and the three before version 0.3.0: systematic draws, without the last three options
    former = parse_config("classic_first+classic_trial+fit_exact_plies+hybrid")
    assert search_keywords(former.options, 18) == hybrid_options(18, "expectimax")
    for bad, message in (
        ("width0", "width must be >= 1"),
        ("pliesx", "unknown configuration token"),
        ("widthx", "width needs a number"),
        ("segapx", "segap needs a number"),
        ("segap 1", "segap needs a number"),
        ("segap1_0", "segap needs a number"),
        ("width1_0", "width needs a number"),
        ("segap-1", "segap needs a number"),
        ("segap200", r"se_gap must be in \[0, 100\]"),
        ("segap0.5+segap1", "repeats an option"),
        ("exact24+exact25", "repeats an option"),
        ("oraclenan", "oracle needs a number"),
        ("lead+oracle0", "sets heuristic twice"),
        ("fast", "unknown configuration token"),
        ("capped_trial", "capped_trial needs classic_trial"),
        ("fit_within_ply", "fit_within_ply needs fit_exact_plies"),
        ("classic_within_ply", "classic_within_ply needs classic_first"),
        ("classic_trial+hybrid", "classic_trial needs classic_first"),
        ("systematic+stratified", "choose one"),
        ("hybrid+systematic+stratified", "choose one"),  # only the hybrid's own draws yield
        ("systematic+hybrid+stratified", "choose one"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_config(bad)


def test_the_oracle_is_the_solver_plus_a_fixed_noise_of_the_state():
    solution = solve_pig(dice=2, winscore=100)
    exact = oracle_heuristic(0.0)
    noisy = oracle_heuristic(0.3)
    game = pyspiel.load_game(GAME)
    for key in KEYS:
        core = core_of(key)
        rolled = core.child(0)  # the chance node after 'roll'
        for state in (core, rolled):
            for player in (0, 1):
                truth = 2.0 * solution.state_win_probability(state, player) - 1.0
                assert exact(state, player) == pytest.approx(truth, abs=1e-12)
                value = noisy(state, player)
                assert -1.0 <= value <= 1.0 and value != pytest.approx(truth, abs=1e-9)
                assert noisy(state.clone(), player) == value  # a function of the state
            assert noisy(state, 0) == pytest.approx(-noisy(state, 1))
    assert game.get_type().short_name == "python_pig"


def test_classic_search_with_the_perfect_heuristic_has_no_regret():
    """A check that could fail: regrets are solver values of the chosen moves, and with the
    solver as heuristic every classic move is optimal; a wrong regret or oracle shows here."""
    study = Study(KEYS, (300, 2000), seed=1)
    for index in range(len(KEYS)):
        rows = search_position((study, "oracle0", index))
        assert {r["algorithm"] for r in rows} == {
            "expectimax", "star1", "star2", "expss", "star1ss", "star2ss"
        }  # fmt: skip
        best, values = exact_values(KEYS[index])
        for row in rows:
            expected = (best - values[row["action"]]) / 2.0
            assert row["regret"] == pytest.approx(max(0.0, expected), abs=1e-12)
            if row["algorithm"] in ("expectimax", "star1", "star2"):
                assert row["regret"] == 0.0 and row["depth"] >= 1


def test_paired_differences_are_taken_on_matching_positions():
    rows = []
    for position, (classic, sampled) in enumerate(((0.1, 0.3), (0.2, 0.1), (0.0, 0.5))):
        rows.append(dict(config="base", position=position, algorithm="star1", budget=10,
                         regret=classic, depth=2, nodes=10))  # fmt: skip
        if position < 2:  # the third position has no sampled row
            rows.append(dict(config="width5", position=position, algorithm="star1ss",
                             budget=10, regret=sampled, depth=3, nodes=10))  # fmt: skip
    summary = {(r["config"], r["algorithm"]): r for r in summarise(rows, ["base", "width5"], [10])}
    sampled = summary["width5", "star1ss"]
    assert sampled["classic"] == "base:star1" and sampled["positions"] == 2
    assert sampled["paired_diff"] == pytest.approx(((0.3 - 0.1) + (0.1 - 0.2)) / 2)
    # differences +0.2 and -0.1: sample standard deviation 0.3 / sqrt(2), over sqrt(2)
    assert sampled["paired_stderr"] == pytest.approx(0.15)
    assert summary["base", "star1"]["mean_regret"] == pytest.approx(0.1)
    assert math.isnan(summary["base", "star1"]["paired_diff"])


def _run(out, *extra):
    return cli.main(["experiment", "pig-regret", "--positions", "3", "--budgets", "200,600",
                     "--workers", "1", "--no-progress", "--out", str(out), *extra])  # fmt: skip


def test_a_run_writes_resumes_and_summarises(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    with open(out / "positions.csv", "w", newline="") as f:  # skip collecting positions
        writer = csv.writer(f)
        writer.writerow(["index", "mine", "theirs", "turn_total", "mover", "gap", "real"])
        for index, key in enumerate(KEYS):
            writer.writerow([index, *key, pig_regret.gap_of(key), 1])
    assert _run(out, "--configs", "base,width3") == 0
    lines = (out / "raw.jsonl").read_text().splitlines()
    assert len(lines) == 3 * (6 + 3) * 2  # positions x algorithms x budgets
    capsys.readouterr()
    assert _run(out, "--configs", "base,width3") == 0  # resumed: nothing left
    assert "0 to go" in capsys.readouterr().out
    assert (out / "raw.jsonl").read_text().splitlines() == lines
    with open(out / "raw.jsonl", "a") as f:  # a line cut short by a kill is searched again
        f.write('{"config": "width3", "posi')
    with open(out / "regret.csv") as f:
        header = next(csv.reader(f))
    assert tuple(header) == COLUMNS
    assert header[:7] == [
        "algorithm", "options", "budget_nodes", "positions", "mean_regret", "stderr",
        "mean_depth",
    ]  # fmt: skip
    for name in ("regret_real.csv", "README.md", "regret.png", "paired.png"):
        assert (out / name).exists()
    assert _run(out, "--configs", "base,width3", "--summarise-only") == 0
    # one line per run that played rows (the resumed run that found nothing to do: none)
    (command,) = (out / "commands.txt").read_text().splitlines()
    assert f"--out {out}" in command and command.endswith("--configs base,width3")
    assert command in (out / "README.md").read_text()
    assert json.loads((out / "run.json").read_text())["budgets"] == [200, 600]
    code = _run(out, "--configs", "base", "--seed", "4")
    assert code == 2 and "other settings (seed)" in capsys.readouterr().err


def test_a_run_resumed_by_another_search_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    with open(out / "positions.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["index", "mine", "theirs", "turn_total", "mover", "gap", "real"])
        for index, key in enumerate(KEYS):
            writer.writerow([index, *key, pig_regret.gap_of(key), 1])
    assert _run(out, "--configs", "base,width3") == 0
    refused_when_mixed(out, capsys, lambda: _run(out, "--configs", "base,width3"), "width3", 1)


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("positions.csv", "index,mine\n0,x\n", "not a positions.csv of this experiment"),
        ("positions.csv", b"\xff\xfe\n", "not a positions.csv of this experiment"),
        ("positions.csv", None, "not a regular file"),
        ("raw.jsonl", "x" * 100_001, "a line this long is not ours"),
        ("raw.jsonl", None, "not a regular file"),
    ],
)
def test_a_damaged_run_directory_is_one_line(tmp_path, capsys, name, content, message):
    out = tmp_path / "run"
    out.mkdir()
    if name == "raw.jsonl":  # positions that need no collecting, then the damaged rows
        with open(out / "positions.csv", "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["index", "mine", "theirs", "turn_total", "mover", "gap", "real"])
            for index, key in enumerate(KEYS):
                writer.writerow([index, *key, pig_regret.gap_of(key), 1])
    path = out / name
    if content is None:
        os.mkfifo(path)  # would block a plain open
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert _run(out, "--configs", "base") == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--configs", "base,bogus"], "unknown configuration token"),
        (["--budgets", "100,x"], "--budgets"),
        (["--budgets", "100,100"], "distinct"),
        (["--positions", "0"], "--positions: must be >= 1"),
        (["--max-minutes", "0"], "--max-minutes"),
        (["--seed", "-1"], "--seed"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, args, message):
    try:
        code = cli.main(["experiment", "pig-regret", "--out", str(tmp_path / "x"), *args])
    except SystemExit as e:  # argparse's (one-line) errors
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_the_roll_noise_is_the_spread_of_a_sampled_roll():
    """roll_noise / sqrt(c) is the standard error of c outcomes drawn with replacement and
    valued exactly: checked against drawing them."""
    solution = solve_pig(dice=2, winscore=100)
    for key in KEYS:
        rolled = core_of(key).child(0)
        outcomes = rolled.chance_outcomes()
        values = [solution.state_win_probability(rolled.child(a), key[3]) for a, _ in outcomes]
        weights = [p for _, p in outcomes]
        draw = random.Random(3)
        means = [statistics.fmean(draw.choices(values, weights, k=18)) for _ in range(4000)]
        expected = pig_regret.roll_noise(key) / math.sqrt(18)
        assert statistics.stdev(means) == pytest.approx(expected, rel=0.06)
    wrong5, regret5 = pig_regret.predicted_by_root_noise(KEYS, 5)
    wrong50, regret50 = pig_regret.predicted_by_root_noise(KEYS, 50)
    assert 0.0 < wrong50 < wrong5 < 0.5 and 0.0 < regret50 < regret5
