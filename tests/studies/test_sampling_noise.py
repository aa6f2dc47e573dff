"""sampling-noise: move values against expectimax, and the predicted error of sampling."""

from __future__ import annotations

import math
from pathlib import Path

import pyspiel
import pytest

from chancespiel.agents import search_state
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation import cli
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.studies.sampling_noise import (
    MoveValue,
    move_values,
    wrong_probability,
)


@pytest.mark.parametrize("game_string", ["python_pig", "python_einstein_wurfelt_nicht"])
def test_move_values_are_expectimax_action_values(game_string):
    """Averaging the outcomes' Star2 values below each move is expectimax one ply deeper."""
    game = pyspiel.load_game(game_string)
    for state in random_decision_positions(game, 6, 3):
        core = search_state(state)
        exact = search(core.clone(), game, "expectimax", max_depth=3, iterative=False)
        values = move_values(core, game, 3)
        assert {m.action: m.value for m in values} == pytest.approx(exact.action_values)
        for m in values:
            assert m.spread >= 0.0 and (m.outcomes > 0 or m.spread == 0.0)
        if game_string == "python_pig":  # rolling meets 21 outcomes that differ; stopping none
            assert values[0].outcomes == 21 and values[0].spread > 0.0
            assert values[1].outcomes == 0


def test_the_probability_of_a_wrong_move():
    best, second = MoveValue(0, 0.3, 0.2, 6), MoveValue(1, 0.2, 0.1, 6)
    gap, noise, wrong = wrong_probability([second, best], 4)
    assert gap == pytest.approx(0.1) and noise == pytest.approx(math.sqrt(0.05) / 2)
    assert wrong == pytest.approx(0.5 * math.erfc(0.1 / noise / math.sqrt(2)))
    assert wrong_probability([best, MoveValue(1, 0.2, 0.0, 0)], 1)[2] > 0
    assert wrong_probability([MoveValue(0, 0.3, 0.0, 0), MoveValue(1, 0.2, 0.0, 0)], 1)[2] == 0


def test_a_run_writes_its_table(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["experiment", "sampling-noise", "--games", "ewn,ra", "--positions", "3"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    readme = (out / "README.md").read_text()
    assert "| ewn | 4 | 3 |" in readme and "| ra | 3 | 3 |" in readme
    assert len((out / "positions.csv").read_text().splitlines()) == 1 + 6
    assert cli.main([*argv, "--out", str(out)]) == 2  # never over a result
    assert "is not empty" in capsys.readouterr().err


def test_positions_can_come_from_recorded_games(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["experiment", "sampling-noise", "--games", "ra", "--positions", "2"]
    records = Path(__file__).resolve().parents[2] / "lab" / "results" / "figure2" / "paper_200ms"
    assert cli.main([*argv, "--records", str(records), "--out", str(out)]) == 0
    assert f"decisions met in {records}" in (out / "README.md").read_text()
    assert cli.main([*argv, "--records", str(tmp_path), "--out", str(tmp_path / "x")]) == 2
    assert "no record file" in capsys.readouterr().err
