"""The ChanceProbCut experiment: fit, store, load, measure (tiny)."""

from __future__ import annotations

import json

from chancespiel.agents.chance_probcut import Regression
from chancespiel.evaluation import cli


def test_fit_store_and_measure(tmp_path, capsys):
    args = ["experiment", "chance-probcut", "--game", "python_pig(winscore=40)", "--depth", "2",
            "--shallow", "1", "--games", "2", "--fit-positions", "20", "--measure-depth", "3",
            "--positions", "3", "--confidence", "0.9,1", "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(args) == 0
    regression = Regression.load(tmp_path / "regression.json")
    assert (regression.depth, regression.shallow) == (2, 1) and regression.pairs >= 3
    assert json.loads((tmp_path / "regression.json").read_text())["game"].startswith("python_pig")
    table = (tmp_path / "table.md").read_text()
    assert "| 0.9 |" in table and "| 1 |" in table
    bad = [*args]
    bad[bad.index("0.9,1")] = "0.3"
    assert cli.main(bad) == 2
    assert "confidence must be in" in capsys.readouterr().err
