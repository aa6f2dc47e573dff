"""luck-values: matches needed per value function, pooled ratios by hand, training files refused."""

from __future__ import annotations

import csv
import json
import shlex

import numpy as np
import pytest
from one_line import one_line_error

from chancespiel.evaluation import cli
from chancespiel.evaluation.luck import value_function
from chancespiel.games import learned
from chancespiel.games.registry import register_value_model
from chancespiel.studies.luck_values import (
    needed,
    pooled_ratio,
    ratio_interval,
    ratio_text,
    variance_ratio,
)


def test_pooled_ratio_by_hand() -> None:
    a = (np.array([0.0, 1.0, 0.5, 0.5]), np.array([0.25, 0.75, 0.5, 0.5]))
    b = (np.array([1.0, 0.0]), np.array([0.5, 0.5]))
    raw, corrected = pooled_ratio([a, b])
    # sums of squares about each pairing's own mean, over (4 - 1) + (2 - 1) degrees of freedom
    assert raw == pytest.approx((0.5 + 0.5) / 4)
    assert corrected == pytest.approx(0.125 / 4)
    assert needed(0.25) == 1068  # (1.96 / 0.03)^2 / 4, rounded up


def test_the_ratio_interval_of_matches_without_variance_is_defined() -> None:
    even = (np.array([0.5, 0.5]), np.array([0.5, 0.5]))
    assert all(np.isnan(ratio_interval([even], seed=0)))
    exact = (np.array([0.0, 1.0, 0.5]), np.array([0.5, 0.5, 0.5]))  # all the variance removed
    low, high = ratio_interval([exact], seed=0)
    assert high == np.inf and low >= 0


def test_a_ratio_is_printed_as_a_number_inf_or_a_sentence() -> None:
    assert ratio_text(2.0, (1.5, 3.25)) == "2.00 (1.50-3.25)"
    assert ratio_text(np.inf, (2.0, np.inf)) == "inf"
    # a pairing that one side won every match of: nothing varied, so no ratio, and no "nan"
    even = (np.array([1.0, 1.0]), np.array([1.0, 1.0]))
    text = ratio_text(variance_ratio(*pooled_ratio([even])), ratio_interval([even], seed=0))
    assert text == "undefined: no match score varied"


def test_the_experiment_writes_its_table_and_refuses_training_records(tmp_path, capsys):
    records = tmp_path / "pig.jsonl"
    match = ["match", "python_pig(winscore=30)", "hold(n=8)", "hold(n=12)", "--matches", "12"]
    assert cli.main([*match, "--workers", "1", "--no-progress", "--out", str(records)]) == 0
    out = tmp_path / "out"
    values = "heuristic,exact,zero,search(depth=1,heuristic=zero)"
    args = ["experiment", "luck-values", str(records), "--values", values]
    assert cli.main([*args, "--out", str(out)]) == 0
    with open(out / "pairings.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["value"] for r in rows} == {"heuristic", "exact", "zero", values.split(",", 3)[3]}
    zero = next(r for r in rows if r["value"] == "zero")
    assert float(zero["raw_variance"]) == pytest.approx(float(zero["corrected_variance"]))
    readme = (out / "README.md").read_text()
    assert "| exact |" in readme and (out / "matches_needed.png").stat().st_size > 0
    # the command as a shell takes it back (the value with its commas and parentheses quoted)
    command = readme.split("Made by `", 1)[1].split("`", 1)[0]
    assert shlex.split(command) == ["chancespiel", *args, "--out", str(out)]
    # --decompose: the variance a value leaves is its drift's; the zero value leaves it all
    split = tmp_path / "split"
    assert cli.main([*args, "--decompose", "--out", str(split)]) == 0
    with open(split / "pairings.csv") as f:
        zero = next(r for r in csv.DictReader(f) if r["value"] == "zero")
    assert float(zero["drift_variance"]) == pytest.approx(float(zero["raw_variance"]))
    shares = {
        line.split(" | ")[1]: float(line.split(" | ")[2].rstrip(" |"))
        for line in (split / "README.md").read_text().splitlines()
        if line.startswith("| python_pig") and line.count("|") == 5
    }
    assert shares["zero"] == pytest.approx(1.0) and 0.0 <= shares["exact"] < 1.0
    # where the drift is: Pig's kinds of node, their shares adding up to 1
    where = {
        line.split(" | ")[1]: dict(
            (kind, float(share))
            for kind, share in (
                part.split() for part in line.split(" | ")[3].rstrip(" |").split(", ")
            )
        )
        for line in (split / "README.md").read_text().splitlines()
        if line.startswith("| python_pig") and line.count("|") == 5
    }
    assert set(where["heuristic"]) == {"roll", "stop", "chance"}
    assert sum(where["heuristic"].values()) == pytest.approx(1.0, abs=0.02)
    # the exact value has no gap at chance nodes: what it leaves is the players' mistakes
    assert where["exact"]["chance"] == pytest.approx(0.0, abs=0.005)
    # a model trained on these records may not be measured on them
    model = tmp_path / "m.json"
    assert cli.main(["value", "train", str(records), "--out", str(model)]) == 0
    data = json.loads(model.read_text())
    register_value_model("python_pig", str(model))
    learned._cached_model.cache_clear()
    value_function.cache_clear()
    try:
        capsys.readouterr()
        assert cli.main([*args, "--out", str(tmp_path / "again")]) == 2
        assert "trained the learned value" in capsys.readouterr().err
        assert data["training"]["records"] == [str(records)]
    finally:
        register_value_model("python_pig", None)
        learned._cached_model.cache_clear()
        value_function.cache_clear()


def test_a_stopped_run_resumes_to_the_result_of_one_run(tmp_path, capsys):
    records = tmp_path / "pig.jsonl"
    match = ["match", "python_pig(winscore=30)", "hold(n=8)", "hold(n=12)", "--matches", "6"]
    assert cli.main([*match, "--workers", "1", "--no-progress", "--out", str(records)]) == 0
    args = ["experiment", "luck-values", str(records), "--values", "heuristic,exact"]
    args += ["--decompose", "--no-progress"]
    whole = tmp_path / "whole"
    assert cli.main([*args, "--out", str(whole)]) == 0
    # stopped after its first term, a term torn by a kill, then resumed on two processes
    run = tmp_path / "run"
    assert cli.main([*args, "--out", str(run), "--max-minutes", "1e-9"]) == 0
    assert "the same command resumes" in capsys.readouterr().out
    assert len((run / "terms.jsonl").read_text().splitlines()) == 1
    assert not (run / "pairings.csv").exists()
    with open(run / "terms.jsonl", "a") as f:
        f.write('{"file": 0, "rec')
    assert cli.main([*args, "--out", str(run), "--workers", "2"]) == 0
    assert "1 (record, value) terms done, 23 to go" in capsys.readouterr().out
    terms = [json.loads(line) for line in (run / "terms.jsonl").read_text().splitlines()]
    keys = {(t["file"], t["record"], t["value"]) for t in terms}
    assert len(terms) == len(keys) == 2 * 12  # values x games: each kept once
    assert (run / "pairings.csv").read_text() == (whole / "pairings.csv").read_text()
    assert len((run / "commands.txt").read_text().splitlines()) == 2
    # a run holds its settings: other values, or records that changed, are another run
    capsys.readouterr()
    assert cli.main([*args[:3], "--values", "exact", "--decompose", "--out", str(run)]) == 2
    assert "other settings (values)" in capsys.readouterr().err
    records.write_text("".join(records.read_text().splitlines(keepends=True)[2:]))
    assert cli.main([*args, "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert "other settings (sha256)" in err and len(err.strip().splitlines()) == 1


def test_a_game_in_two_files_is_refused_not_counted_twice(tmp_path, capsys):
    records = tmp_path / "pig.jsonl"
    match = ["match", "python_pig(winscore=30)", "hold(n=8)", "hold(n=12)", "--matches", "2"]
    assert cli.main([*match, "--workers", "1", "--no-progress", "--out", str(records)]) == 0
    copy = tmp_path / "copy.jsonl"
    copy.write_text(records.read_text())
    capsys.readouterr()
    args = ["experiment", "luck-values", str(records), str(copy), "--values", "heuristic"]
    assert cli.main([*args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"is also in {records}" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
    # a run with another seed reuses the match numbers on other dice: its matches are pooled
    other = tmp_path / "other.jsonl"
    seeded = [*match[:-1], "2", "--seed", "500", "--workers", "1", "--no-progress"]
    assert cli.main([*seeded, "--out", str(other)]) == 0
    args = ["experiment", "luck-values", str(records), str(other), "--values", "heuristic"]
    assert cli.main([*args, "--no-progress", "--out", str(tmp_path / "pooled")]) == 0
    with open(tmp_path / "pooled" / "pairings.csv") as f:
        assert [row["matches"] for row in csv.DictReader(f)] == ["4"]


def test_a_term_that_fails_is_one_line_and_the_terms_before_it_are_kept(
    tmp_path, capsys, monkeypatch
):
    from chancespiel.evaluation.luck import LuckError
    from chancespiel.studies import luck_values

    records = tmp_path / "pig.jsonl"
    match = ["match", "python_pig(winscore=30)", "hold(n=8)", "hold(n=12)", "--matches", "3"]
    assert cli.main([*match, "--workers", "1", "--no-progress", "--out", str(records)]) == 0
    computed = luck_values.record_terms

    def fails_at_the_fourth(task):
        if task[3] == (0, 3):
            raise LuckError("the game of match 1 (game index 1, x vs y) does not replay")
        return computed(task)

    monkeypatch.setattr(luck_values, "record_terms", fails_at_the_fourth)
    out = tmp_path / "out"
    args = ["experiment", "luck-values", str(records), "--values", "heuristic", "--no-progress"]
    assert "does not replay" in one_line_error([*args, "--out", str(out)], capsys)
    assert len((out / "terms.jsonl").read_text().splitlines()) == 3
    monkeypatch.setattr(luck_values, "record_terms", computed)
    assert cli.main([*args, "--out", str(out)]) == 0  # resumed: the other three terms
    assert "3 (record, value) terms done, 3 to go" in capsys.readouterr().out


def test_a_file_appended_to_while_it_is_read_is_refused(tmp_path, capsys, monkeypatch):
    from chancespiel.studies import luck_values

    records = tmp_path / "pig.jsonl"
    match = ["match", "python_pig(winscore=30)", "hold(n=8)", "hold(n=12)", "--matches", "2"]
    assert cli.main([*match, "--workers", "1", "--no-progress", "--out", str(records)]) == 0
    lines = records.read_text().splitlines(keepends=True)
    records.write_text("".join(lines[:2]))
    read = luck_values.read_records

    def read_then_a_game_arrives(path):
        found = read(path)
        with open(path, "a") as f:
            f.write("".join(lines[2:]))
        return found

    monkeypatch.setattr(luck_values, "read_records", read_then_a_game_arrives)
    out = tmp_path / "out"
    args = ["experiment", "luck-values", str(records), "--values", "heuristic", "--no-progress"]
    assert "changed while it was read" in one_line_error([*args, "--out", str(out)], capsys)
    assert not out.exists()
    monkeypatch.setattr(luck_values, "read_records", read)
    assert cli.main([*args, "--out", str(out)]) == 0  # complete now: the same command runs
