"""The Table 1 experiment: ground truth, statistics, and a tiny end-to-end run."""

from __future__ import annotations

import pytest

from chancespiel.evaluation import cli
from chancespiel.evaluation.match import read_records
from chancespiel.games.pig_core import STOP
from chancespiel.games.pig_solver import solve_pig
from chancespiel.studies import pig_estimators as pe


def test_exact_values_are_consistent_with_the_solver():
    solution = solve_pig(dice=2, winscore=100)
    for key in [(0, 0, 0, 0), (41, 49, 12, 1), (90, 95, 8, 0)]:
        value, action_values = pe.exact_values(key)
        assert value == pytest.approx(max(action_values.values()), abs=1e-12)
        p = solution.win_probability(key[0], key[1], key[2])
        assert value == pytest.approx(2 * p - 1, abs=1e-12)
        best = max(action_values, key=action_values.get)
        assert best == solution.best_action(key[0], key[1], key[2])
    # Stopping with 95 + 8 >= 100 wins outright.
    assert pe.exact_values((95, 90, 8, 0))[1] == {STOP: 1.0}


def test_summary_statistics_by_hand():
    key = (10, 20, 5, 0)
    truth, action_values = pe.exact_values(key)
    worst = min(action_values, key=action_values.get)
    best = max(action_values, key=action_values.get)
    estimates = [pe.Estimate(key, "perfect", r, truth, best) for r in range(4)] + [
        pe.Estimate(key, "noisy", 0, truth + 0.1, worst),
        pe.Estimate(key, "noisy", 1, truth - 0.1, best),
    ]
    rows = {row.estimator: row for row in pe.summarise(estimates, ["perfect", "noisy"])}
    assert rows["perfect"].mse == pytest.approx(0.0, abs=1e-9)
    assert rows["perfect"].regret == pytest.approx(0.0, abs=1e-9)
    # Values +-10 points around the truth: MSE 100, variance 100, bias 0 (paper scale).
    assert rows["noisy"].mse == pytest.approx(100.0)
    assert rows["noisy"].variance == pytest.approx(100.0)
    assert rows["noisy"].abs_bias == pytest.approx(0.0, abs=1e-9)
    assert rows["noisy"].regret == pytest.approx(
        50.0 * (action_values[best] - action_values[worst])
    )


def test_tiny_end_to_end_run(tmp_path, capsys):
    args = ["experiment", "pig-estimators", "--states", "3", "--runs", "2", "--time-ms", "5",
            "--collect-games", "1", "--collect-time-ms", "2", "--estimators", "exp,star2ss",
            "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(args) == 0
    table = (tmp_path / "table.md").read_text()
    assert "| exp | 3 |" in table and "| star2ss | 3 |" in table
    raw = (tmp_path / "raw.csv").read_text().splitlines()
    assert len(raw) == 1 + 3 * 2 * 2
    assert cli.main([*args[:-2], "--estimators", "nosuch", "--out", str(tmp_path)]) == 2
    assert "unknown estimator" in capsys.readouterr().err


def test_another_heuristic_reaches_every_estimator(tmp_path, capsys):
    specs = pe.paper_specs(200, "lead")
    assert all("heuristic=lead" in spec for spec in specs.values())
    assert all("heuristic" not in spec for spec in pe.paper_specs(200).values())
    args = ["experiment", "pig-estimators", "--states", "2", "--runs", "1", "--time-ms", "5",
            "--collect-games", "1", "--collect-time-ms", "2", "--estimators", "exp",
            "--workers", "1", "--heuristic", "lead", "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(args) == 0
    assert "| exp | 2 |" in (tmp_path / "table.md").read_text()
    bad = [*args]
    bad[bad.index("lead")] = "nosuch"
    assert cli.main(bad) == 2
    assert "known: default, zero, learned, lead" in capsys.readouterr().err


def test_paired_differences_by_hand():
    keys = [(10, 20, 5, 0), (41, 49, 12, 1)]
    truths = {key: pe.exact_values(key) for key in keys}
    best = {key: max(av, key=av.get) for key, (_, av) in truths.items()}
    estimates = []
    for key in keys:
        truth = truths[key][0]
        # exp is 0.1 off on both runs; expss averages out to the truth, star2 has no partner.
        estimates += [pe.Estimate(key, "exp", r, truth + 0.1, best[key]) for r in range(2)]
        estimates += [pe.Estimate(key, "star2", r, truth, best[key]) for r in range(2)]
        estimates += [
            pe.Estimate(key, "expss", 0, truth + 0.05, best[key]),
            pe.Estimate(key, "expss", 1, truth - 0.05, best[key]),
        ]
    (row,) = pe.paired(estimates)
    assert (row.sampled, row.classic, row.states) == ("expss", "exp", 2)
    assert row.abs_bias == pytest.approx(-10.0)  # |bias| 0 against 10 points
    assert row.mse == pytest.approx(25.0 - 100.0)  # 5^2 against 10^2
    assert row.regret == pytest.approx(0.0, abs=1e-9)
    assert row.abs_bias_ci == pytest.approx(0.0, abs=1e-9)  # the same difference on both states
    assert "| expss - exp | 2 | -10.00 ± 0.00 |" in pe.markdown_paired([row])
    assert pe.paired([e for e in estimates if e.estimator != "expss"]) == []


def test_summarise_only_rebuilds_the_tables_from_raw_estimates(tmp_path, capsys):
    args = ["experiment", "pig-estimators", "--states", "2", "--runs", "2", "--time-ms", "5",
            "--collect-games", "1", "--collect-time-ms", "2", "--estimators", "exp,expss",
            "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(args) == 0
    table = (tmp_path / "table.md").read_text()
    assert "| expss - exp | 2 |" in table
    raw = (tmp_path / "raw.csv").read_text()
    estimates = pe.read_raw(tmp_path / "raw.csv")
    assert len(estimates) == 2 * 2 * 2 and {e.estimator for e in estimates} == {"exp", "expss"}
    round_trip = tmp_path / "round_trip"
    pe.write_outputs(round_trip, estimates, pe.summarise(estimates, ["exp", "expss"]))
    assert pe.read_raw(round_trip / "raw.csv") == estimates
    assert (round_trip / "raw.csv").read_text() == raw
    (tmp_path / "table.md").unlink()
    only = ["experiment", "pig-estimators", "--summarise-only", "--out", str(tmp_path)]
    assert cli.main(only) == 0
    assert (tmp_path / "table.md").read_text() == table
    assert (tmp_path / "raw.csv").read_text() == raw
    # A corrupt raw file is refused with its line number, and nothing is rewritten.
    lines = raw.splitlines()
    lines[2] = lines[2].replace(",exp", ",exp,extra", 1)
    (tmp_path / "raw.csv").write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert cli.main(only) == 2
    assert "line 3" in capsys.readouterr().err
    assert (tmp_path / "table.md").read_text() == table
    for bad in ["", "a,b\n", raw.replace("\n", "\n200,0,0,0,exp,0,0.5,0\n", 1)]:
        (tmp_path / "raw.csv").write_text(bad)
        assert cli.main(only) == 2
    (tmp_path / "raw.csv").unlink()
    assert cli.main(only) == 2
    assert "cannot read" in capsys.readouterr().err


def test_shared_samples_on_off_and_both(tmp_path):
    specs = {"exp": "expectimax(time_ms=5)", "star2ss": "star2ss(samples=3,time_ms=5)"}
    assert pe.with_shared_samples(specs, "off") == specs
    assert pe.with_shared_samples(specs, "on") == {
        "exp": "expectimax(time_ms=5)",
        "star2ss_shared": "star2ss(samples=3,time_ms=5,shared_samples=true)",
    }
    assert list(pe.with_shared_samples(specs, "both")) == ["exp", "star2ss", "star2ss_shared"]
    args = ["experiment", "pig-estimators", "--states", "2", "--runs", "2", "--time-ms", "5",
            "--collect-games", "1", "--collect-time-ms", "2", "--estimators", "star2ss",
            "--shared-samples", "both", "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(args) == 0
    table = (tmp_path / "table.md").read_text()
    assert "| star2ss | 2 |" in table and "| star2ss_shared | 2 |" in table
    assert "| star2ss_shared - star2ss | 2 |" in table


def test_decision_regrets_zero_for_optimal_play_positive_for_a_fixed_rule(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    assert cli.main(["match", "python_pig", "pig_optimal", "hold(n=20)", "--matches", "2",
                     "--workers", "1", "--no-progress", "--out", str(out)]) == 0  # fmt: skip
    rows = {r.agent: r for r in pe.decision_regrets(read_records(out))}
    assert rows["pig_optimal"].mean == pytest.approx(0.0, abs=1e-9)
    assert rows["pig_optimal"].suboptimal == 0.0
    assert rows["hold(n=20)"].mean > 0.0 and rows["hold(n=20)"].decisions > 10
    capsys.readouterr()
    table = tmp_path / "regret.md"
    assert cli.main(["experiment", "pig-estimators", "--regret-of", str(out),
                     "--out", str(table)]) == 0  # fmt: skip
    assert "| pig_optimal |" in table.read_text()
    other = tmp_path / "ewn.jsonl"
    assert cli.main(["match", "python_einstein_wurfelt_nicht", "random", "random", "--matches",
                     "1", "--workers", "1", "--no-progress", "--out", str(other)]) == 0  # fmt: skip
    assert cli.main(["experiment", "pig-estimators", "--regret-of", str(other)]) == 2
    assert "decision regrets need python_pig" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli.main(["experiment", "pig-estimators", "--regret-of", str(empty)]) == 2
    assert "no game records in" in capsys.readouterr().err
