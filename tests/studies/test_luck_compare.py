"""luck-compare: the paired difference of two values' ratios, against luck-values' own."""

from __future__ import annotations

import csv

import pytest
from one_line import one_line_error

from chancespiel.evaluation import cli


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Pig records and two luck-values runs on them: (records, run of zero and exact, run of
    the heuristic)."""
    tmp = tmp_path_factory.mktemp("luck_compare")
    records = tmp / "pig.jsonl"
    match = ["match", "python_pig(winscore=30)", "hold(n=8)", "hold(n=12)", "--matches", "12"]
    assert cli.main([*match, "--workers", "1", "--no-progress", "--out", str(records)]) == 0
    made = []
    for name, values in (("both", "zero,exact"), ("heuristic", "heuristic")):
        out = tmp / name
        args = ["experiment", "luck-values", str(records), "--values", values, "--no-progress"]
        assert cli.main([*args, "--out", str(out)]) == 0
        made.append(out)
    return records, *made


def _table(out: str) -> list[str]:
    """The cells of the one game's row."""
    row = next(line for line in out.splitlines() if line.startswith("| python_pig"))
    return [cell.strip() for cell in row.strip("|").split("|")]


def _ratio(run, value) -> float:
    with open(run / "pairings.csv") as f:
        row = next(r for r in csv.DictReader(f) if r["value"] == value)
    return float(row["raw_variance"]) / float(row["corrected_variance"])


def test_the_ratios_are_luck_values_own_and_a_value_against_itself_differs_by_zero(runs, capsys):
    _, both, heuristic = runs
    capsys.readouterr()
    command = ["experiment", "luck-compare", "--first", str(both), "zero"]
    assert cli.main([*command, "--second", str(heuristic), "heuristic"]) == 0
    _, pairings, matches, first, second, difference = _table(capsys.readouterr().out)
    assert (pairings, matches) == ("1", "12")
    assert float(first.split()[0]) == pytest.approx(1.0)  # the zero value corrects nothing
    assert float(second.split()[0]) == pytest.approx(_ratio(heuristic, "heuristic"), abs=0.005)
    change, low, _, high = difference.strip(")").replace("(", "").split()
    assert float(change) == pytest.approx(_ratio(heuristic, "heuristic") - 1.0, abs=0.01)
    assert float(low) <= float(change) <= float(high)
    # paired: a value against itself differs by exactly zero in every resample
    assert (
        cli.main([*command[:2], "--first", str(both), "exact", "--second", str(both), "exact"]) == 0
    )
    assert _table(capsys.readouterr().out)[5] == "+0.00 (+0.00 to +0.00)"


def test_runs_that_cannot_be_compared_are_one_line_errors(runs, tmp_path, capsys):
    records, both, heuristic = runs
    base = ["experiment", "luck-compare", "--first", str(both), "exact", "--second"]
    assert "holds no run" in one_line_error([*base, str(tmp_path), "exact"], capsys)
    (tmp_path / "run.json").write_text('{"records": "pig.jsonl"}')
    assert "not a run file of luck-values" in one_line_error([*base, str(tmp_path), "x"], capsys)
    (tmp_path / "run.json").unlink()
    assert "has no value 'lookahead'" in one_line_error(
        [*base, str(heuristic), "lookahead"], capsys
    )
    # a run stopped before it finished
    stopped = tmp_path / "stopped"
    args = ["experiment", "luck-values", str(records), "--values", "heuristic", "--no-progress"]
    assert cli.main([*args, "--out", str(stopped), "--max-minutes", "1e-9"]) == 0
    err = one_line_error([*base, str(stopped), "heuristic"], capsys)
    assert "1 of the 24 terms of heuristic" in err and "finish that run first" in err
    # a run on other records: the same games, one match fewer
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("".join(records.read_text().splitlines(keepends=True)[2:]))
    other = tmp_path / "other"
    assert cli.main([*args[:2], str(fewer), *args[3:], "--out", str(other)]) == 0
    assert "not run on the same record files" in one_line_error(
        [*base, str(other), "heuristic"], capsys
    )
    # the records changed since the runs: refused, not compared on other games
    saved = records.read_text()
    try:
        records.write_text(saved[: saved.rindex("\n", 0, len(saved) - 1) + 1])
        assert "are not those the runs were made on" in one_line_error(
            [*base, str(both), "exact"], capsys
        )
    finally:
        records.write_text(saved)
