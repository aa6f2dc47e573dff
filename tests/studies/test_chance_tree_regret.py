"""The chance-tree-regret experiment: tree seeds, regrets against exhaustive expectimax, the
paired summary and the goal table, resumable runs and bad input."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from pathlib import Path

import pyspiel
import pytest
from open_spiel.python.algorithms.minimax import expectiminimax
from resumed import refused_when_mixed

from chancespiel.agents.star_minimax import hybrid_options
from chancespiel.evaluation import cli
from chancespiel.evaluation.resumable import read_rows
from chancespiel.studies import chance_tree_regret
from chancespiel.studies.chance_tree_regret import (
    ALGORITHMS,
    CLASSIC,
    SWITCHES,
    Trees,
    goal_table,
    search_tree,
    summarise,
    tree_seeds,
    verdict,
    verdict_counts,
)


def _trees(seeds, budgets, depth=3, width=3):
    return Trees(tuple(seeds), depth, 3, 0.5, width, 0, tuple(budgets), seed=1)


def _openspiel_value(state, player):
    """The exact value for `player` of a state, by OpenSpiel's own expectiminimax (written
    apart from ours)."""
    value, _ = expectiminimax(state, 100, lambda s: s.returns()[0], 0)
    return value if player == 0 else -value


def test_tree_seeds_give_roots_with_a_choice_whatever_the_outcomes():
    seeds = tree_seeds(20, seed=3, depth=3, branching=2)
    assert len(set(seeds)) == 20 and seeds == tree_seeds(20, seed=3, depth=3, branching=2)
    assert seeds != tree_seeds(20, seed=4, depth=3, branching=2)
    for outcomes in (2, 64):
        for s in seeds:
            game = pyspiel.load_game(
                f"python_chance_tree(seed={s},depth=3,branching=2,outcomes={outcomes})"
            )
            assert len(game.new_initial_state().legal_actions()) == 2


def test_regret_is_against_the_exact_values_and_exhaustive_search_has_none():
    """Each row's regret is the exact value of the best root move minus that of the chosen
    one (OpenSpiel's expectiminimax on each child); a classic search with the budget to see
    every leaf has none, and one that cannot see them errs somewhere (the check can fail)."""
    trees = _trees(tree_seeds(12, seed=0, depth=3, branching=3), (4, 1_000_000))
    errs = False
    for outcomes in (4, 16):
        for index in range(len(trees.seeds)):
            rows = search_tree((trees, outcomes, index))
            assert [(r["algorithm"], r["budget"]) for r in rows] == [
                (a, b) for a in ALGORITHMS for b in trees.budgets
            ]
            state = pyspiel.load_game(trees.game_string(outcomes, index)).new_initial_state()
            exact = {a: _openspiel_value(state.child(a), 0) for a in state.legal_actions()}
            best = max(exact.values())
            for row in rows:
                assert row["regret"] == pytest.approx(best - exact[row["action"]], abs=1e-12)
                assert row["config"] == f"outcomes{outcomes}" and row["position"] == index
                if row["budget"] == 1_000_000 and row["algorithm"] in (
                    "expectimax",
                    "star1",
                    "star2",
                ):
                    assert row["regret"] == 0.0 and row["depth"] == 3
                errs = errs or row["regret"] > 1e-9
    assert errs


def test_the_hybrid_searches_with_the_hybrid_agents_options_or_the_plies_given():
    trees = _trees([1], [10])
    # the committed map was searched before the agents had classic_first, classic_trial and
    # fit_exact_plies, and before their other switches: each off unless asked, and the draws
    # systematic unless --stratified (the agents' draws since version 0.3.0)
    off = {**dict.fromkeys(SWITCHES, False), "systematic": True}
    assert trees.hybrid("star2hs") == {**hybrid_options(3, "star2"), **off}
    # each agent's enumeration: since version 0.5.0 up to a third more than the width in
    # star1hs and star2hs, the width in exphs
    assert trees.hybrid("star2hs")["exact_plies"] == 1
    assert trees.hybrid("star2hs")["exact_up_to"] == trees.hybrid("star1hs")["exact_up_to"] == 4
    assert trees.hybrid("exphs") == {**trees.hybrid("star2hs"), "exact_up_to": 3}
    assert dataclasses.replace(trees, exact_plies=0).hybrid("star2hs") == {
        **hybrid_options(3, "star2"),
        "exact_plies": 0,
        **off,
    }
    assert "hybrid_exact_plies=0" in dataclasses.replace(trees, exact_plies=0).describe()
    agents = dataclasses.replace(trees, switches=frozenset(SWITCHES) - {"capped_trial"})
    # every default of the agents, and the two off by default
    star2hs = hybrid_options(3, "star2")
    assert agents.hybrid("star2hs") == {**star2hs, "capped_trial": False, "systematic": False}
    first = ("classic_first", "classic_trial", "fit_exact_plies", "capped_trial")
    both = dataclasses.replace(trees, switches=frozenset(first))
    assert both.hybrid("star2hs") == {**star2hs, **off, **dict.fromkeys(first, True)}
    # the options column names the switches on, in one order (that of the committed runs)
    assert both.describe().endswith(
        ";hybrid_classic_first;hybrid_classic_trial;hybrid_fit_exact_plies;hybrid_capped_trial"
    )
    # systematic draws unless asked for stratified ones, whatever the agents' default
    assert (
        trees.hybrid("star2hs")["systematic"] is True
        and trees.hybrid("star2hs")["stratified"] is False
    )
    stratified = dataclasses.replace(trees, switches=frozenset({"stratified"})).hybrid("star2hs")
    assert stratified["systematic"] is False and stratified["stratified"] is True


def _row(config, position, algorithm, regret, budget=10):
    return dict(config=config, position=position, algorithm=algorithm, budget=budget,
                regret=regret, depth=2, nodes=budget, gap=0.1)  # fmt: skip


def test_sampled_and_hybrid_rows_are_paired_with_their_classic_counterpart():
    rows = []
    for position, (classic, mcms, hybrid) in enumerate(((0.1, 0.3, 0.1), (0.2, 0.1, 0.0))):
        rows += [
            _row("outcomes64", position, "star1", classic),
            _row("outcomes64", position, "star1ss", mcms),
            _row("outcomes64", position, "star1hs", hybrid),
            _row("outcomes4", position, "star1", 0.5),  # another column: never paired with
        ]
    rows.append(_row("outcomes64", 2, "star1hs", 0.9))  # no classic row on this tree
    summary = summarise(rows, [4, 64], _trees([1, 2, 3], [10]))
    cells = {(r["config"], r["algorithm"]): r for r in summary}
    mcms, hybrid = cells["outcomes64", "star1ss"], cells["outcomes64", "star1hs"]
    assert mcms["classic"] == hybrid["classic"] == "outcomes64:star1"
    assert mcms["paired_diff"] == pytest.approx(((0.3 - 0.1) + (0.1 - 0.2)) / 2)
    assert mcms["paired_stderr"] == pytest.approx(0.15)
    assert hybrid["positions"] == 3 and hybrid["paired_diff"] == pytest.approx(-0.1)
    assert math.isnan(cells["outcomes4", "star1"]["paired_diff"])
    assert [r["config"] for r in summary][:1] == ["outcomes4"]  # in the order of outcomes
    table = "\n".join(goal_table(summary))
    # star1 only: the classic column's other algorithms and their differences stay empty
    assert "| 64 | 10 | 2 |  / 150.0 /  |  | -100.0 (100.0) |  |  | +50.0 (150.0) |  |" in table
    counts = "\n".join(verdict_counts(summary))
    assert "| hybrid | 1 | 0 | 0 | 1 | 0 | 0 |" in counts
    assert "| MCMS | 1 | 0 | 0 | 1 | 0 | 0 |" in counts


def test_a_difference_is_beyond_one_standard_error_or_level():
    assert verdict(-0.2, 0.1) == "better" and verdict(0.2, 0.1) == "worse"
    assert verdict(0.1, 0.1) == "level" and verdict(math.nan, math.nan) == "level"
    # one tree alone: the mean difference d/n has the standard error d/n, up to rounding
    diffs = [0.0] * 7 + [0.3]
    mean = sum(diffs) / 8
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 7) / math.sqrt(8)
    assert verdict(mean, se) == "level"


def _run(out, *extra):
    return cli.main(["experiment", "chance-tree-regret", "--positions", "3", "--outcomes",
                     "2,8", "--budgets", "50,500", "--workers", "1", "--no-progress",
                     "--out", str(out), *extra])  # fmt: skip


def test_a_run_writes_resumes_and_summarises(tmp_path, capsys):
    out = tmp_path / "run"
    assert _run(out) == 0
    lines = (out / "raw.jsonl").read_text().splitlines()
    assert len(lines) == 3 * 2 * len(ALGORITHMS) * 2  # trees x outcomes x algorithms x budgets
    configs = [json.loads(line)["config"] for line in lines[:: len(ALGORITHMS) * 2]]
    assert configs == ["outcomes2", "outcomes8"] * 3  # tree by tree across the outcomes
    capsys.readouterr()
    assert _run(out) == 0  # resumed: nothing left
    assert "0 to go" in capsys.readouterr().out
    assert (out / "raw.jsonl").read_text().splitlines() == lines
    assert _run(out, "--outcomes", "2,8,16") == 0  # a new column on the same trees
    assert len((out / "raw.jsonl").read_text().splitlines()) == len(lines) * 3 // 2
    readme = (out / "README.md").read_text()
    assert "| 16 | 500 | 3 |" in readme and "| hybrid | 18 |" in readme
    for name in ("regret.csv", "regret.png", "positions.csv", "commands.txt"):
        assert (out / name).exists()
    assert _run(out, "--summarise-only") == 0
    assert len((out / "commands.txt").read_text().splitlines()) == 2  # the chunks with work
    assert json.loads((out / "run.json").read_text())["width"] == 8
    assert _run(out, "--width", "4") == 2
    assert "other settings (width)" in capsys.readouterr().err
    assert _run(out, "--exact-plies", "0") == 2
    assert "other settings (exact_plies)" in capsys.readouterr().err


def test_a_run_resumed_by_another_search_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    assert _run(out) == 0
    refused_when_mixed(out, capsys, lambda: _run(out), "outcomes8", 1)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--outcomes", "4,65"], "--outcomes"),
        (["--outcomes", "1"], "--outcomes"),
        (["--outcomes", "4,4"], "distinct"),
        (["--depth", "0"], "--depth"),
        (["--branching", "9"], "--branching"),
        (["--chance-prob", "1.5"], "--chance-prob"),
        (["--width", "0"], "--width"),
        (["--exact-plies", "-1"], "--exact-plies"),
        (["--classic-trial"], "--classic-trial needs --classic-first"),
        (["--fit-exact-plies", "--exact-plies", "0"], "--fit-exact-plies needs --exact-plies"),
        (["--classic-first", "--capped-trial"], "--capped-trial needs --classic-trial"),
        (["--fit-within-ply"], "--fit-within-ply needs --fit-exact-plies"),
        (["--classic-within-ply"], "--classic-within-ply needs --classic-first"),
        (["--budgets", "100,100"], "distinct"),
        (["--positions", "0"], "--positions"),
        (["--summarise-only"], "has no raw.jsonl"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, args, message):
    try:
        code = cli.main(["experiment", "chance-tree-regret", "--out", str(tmp_path / "x"), *args])
    except SystemExit as e:  # argparse's (one-line) errors
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_the_experiment_is_listed():
    assert chance_tree_regret.EXPERIMENT.name == "chance-tree-regret"


COMMITTED = Path(__file__).parents[2] / "lab" / "results" / "chance_tree_regret" / "equal_nodes"


def test_committed_rows_reproduce():
    """The committed map's rows are deterministic (node budgets, seeded samples): the cheap
    ones, the first trees with at most 8 outcomes, are searched again. The classic searches'
    rows are compared exactly; the sampled ones were drawn before sampled chance nodes drew
    from a counter-based generator, so they are checked to be the same when searched twice."""
    settings = json.loads((COMMITTED / "run.json").read_text())
    with open(COMMITTED / "positions.csv", newline="") as f:
        seeds = tuple(int(row["tree_seed"]) for row in csv.DictReader(f))
    assert len(seeds) == settings["positions"] and seeds[:3] == tuple(
        tree_seeds(3, settings["seed"], settings["depth"], settings["branching"])
    )
    trees = Trees(
        seeds,
        settings["depth"],
        settings["branching"],
        settings["chance_prob"],
        settings["width"],
        settings["prune_min_depth"],
        tuple(settings["budgets"]),
        settings["seed"],
    )
    committed = [r for r in read_rows(COMMITTED / "raw.jsonl") if r["position"] < 2]
    for outcomes in (2, 4, 8):
        for index in range(2):
            mine = [
                r
                for r in committed
                if (r["config"], r["position"]) == (f"outcomes{outcomes}", index)
            ]
            rows = search_tree((trees, outcomes, index))
            assert mine and [r for r in rows if r["algorithm"] in CLASSIC] == [
                r for r in mine if r["algorithm"] in CLASSIC
            ]
            assert search_tree((trees, outcomes, index)) == rows
