"""Every experiment prints its main table, not only where it wrote its files, and draws
readable figures: each runs here with tiny settings; its standard output must hold a Markdown
table with a row under it, and no figure it saves may have text cut off or drawn over other
text (`layout_problems`, on the layout as drawn)."""

from __future__ import annotations

import pytest

from chancespiel import studies
from chancespiel.evaluation import cli

PIG = "python_pig(winscore=30)"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """What the experiments that read results need: Pig records, two luck-values runs on them,
    and a figure2 run."""
    tmp = tmp_path_factory.mktemp("tables")
    records = tmp / "pig.jsonl"
    match = ["match", PIG, "hold(n=8)", "hold(n=12)", "--matches", "12", "--workers", "1"]
    assert cli.main([*match, "--no-progress", "--out", str(records)]) == 0
    for name, values in (("zero", "zero"), ("exact", "exact")):
        args = ["experiment", "luck-values", str(records), "--values", values, "--no-progress"]
        assert cli.main([*args, "--out", str(tmp / name)]) == 0
    figure2 = ["experiment", "figure2", "--games", "pig", "--pairings", "Star1-MCTS",
               "--matches", "1", "--time-ms", "2", "--workers", "1", "--no-progress",
               "--out", str(tmp / "figure2")]  # fmt: skip
    assert cli.main(figure2) == 0
    return tmp


def _argv(name: str, inputs, out) -> list[str]:
    """The experiment `name` at tiny settings, writing to `out`."""
    tiny = {
        "bab-nodes": ["--game", "python_pgame(branching=2,depth=4)", "--trees", "2",
                      "--epsilons", "0,0.2", "--gammas", ""],
        "chance-tree-regret": ["--positions", "1", "--outcomes", "2", "--budgets", "30",
                               "--workers", "1", "--no-progress"],
        "chance-probcut": ["--game", "python_pig(winscore=40)", "--depth", "2", "--shallow",
                           "1", "--games", "2", "--fit-positions", "20", "--measure-depth", "3",
                           "--positions", "2", "--confidence", "0.9"],
        "figure2": ["--games", "pig", "--pairings", "Star1-MCTS", "--matches", "1",
                    "--time-ms", "2", "--workers", "1", "--no-progress"],
        "luck-compare": ["--first", str(inputs / "zero"), "zero", "--second",
                         str(inputs / "exact"), "exact"],
        "luck-values": [str(inputs / "pig.jsonl"), "--values", "zero", "--no-progress"],
        "node-counts": ["--game", "python_pig", "--depths", "1", "--positions", "2"],
        "pig-estimators": ["--states", "2", "--runs", "1", "--time-ms", "5", "--collect-games",
                           "1", "--collect-time-ms", "2", "--estimators", "exp", "--workers",
                           "1"],
        "pig-regret": ["--positions", "1", "--games", "1", "--budgets", "50", "--configs",
                       "base", "--workers", "1", "--no-progress"],
        "sampling-noise": ["--games", "pig", "--positions", "2"],
        "search-depth": ["--records", str(inputs / "figure2"), "--games", "pig", "--positions",
                         "2", "--time-ms", "5", "--clock", "cpu", "--pairings", "Star1-MCTS",
                         "--reference", "expectimax(max_depth=2)"],
        "uct-convergence": ["--pgame-trees", "1", "--pgame-runs", "1", "--pgame-iterations",
                            "16", "--implanted-depth", "6", "--implanted-runs", "1",
                            "--implanted-iterations", "200", "--trap-depth", "8",
                            "--trap-runs", "1", "--trap-iterations", "200", "--workers", "1"],
    }  # fmt: skip
    writes = name != "luck-compare"  # it compares runs and writes nothing
    return ["experiment", name, *tiny[name], *(["--out", str(out)] if writes else [])]


def _has_table(text: str) -> bool:
    """True if `text` holds a Markdown table: a header, its rule, and a row."""
    lines = [line.strip() for line in text.splitlines()]
    return any(
        head.startswith("|") and rule.startswith("|") and set(rule) <= set("|-: ") and
        row.startswith("|")
        for head, rule, row in zip(lines, lines[1:], lines[2:], strict=False)
    )  # fmt: skip


def test_the_table_reader_needs_a_rule_and_a_row():
    assert _has_table("x\n| a | b |\n|---|--:|\n| 1 | 2 |\n")
    assert not _has_table("| a | b |\n| 1 | 2 |\n") and not _has_table("| a |\n|---|\n")
    assert not _has_table("written to results/x: table.md, table.csv\n")


@pytest.mark.parametrize("name", sorted(studies.STUDIES))
def test_every_experiment_prints_its_main_table_and_draws_readable_figures(
    name, inputs, tmp_path, capsys, figure_problems
):
    capsys.readouterr()
    assert cli.main(_argv(name, inputs, tmp_path / "out")) == 0
    printed = capsys.readouterr().out
    assert _has_table(printed), printed
    assert [(path, problems) for path, problems in figure_problems if problems] == []
