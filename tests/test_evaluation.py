"""Statistics, game playing with shared dice, and the command-line tool."""

from __future__ import annotations

import json
import math

import pyspiel
import pytest

from chancespiel.agents import make_bot
from chancespiel.evaluation import cli
from chancespiel.evaluation.play import play_game, play_match, sample_outcome
from chancespiel.evaluation.stats import wilson_interval


def test_wilson_interval_hand_computed():
    # 8 of 10: centre (0.8 + 0.19208) / 1.38415, half-width 0.24003 (computed by hand).
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and high == pytest.approx(0.1611, abs=1e-4)
    low, high = wilson_interval(5.5, 11)  # half-point draws are allowed
    assert low < 0.5 < high and math.isclose(low + high, 1.0)


@pytest.mark.parametrize("score, n", [(1, 0), (-1, 5), (6, 5)])
def test_wilson_interval_rejects_bad_input(score, n):
    with pytest.raises(ValueError):
        wilson_interval(score, n)


def test_sample_outcome_inverts_the_cdf():
    outcomes = [(3, 0.25), (7, 0.5), (9, 0.25)]
    assert [sample_outcome(outcomes, u) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 0.99999)] == [
        3,
        3,
        7,
        7,
        9,
        9,
    ]


def test_match_games_share_dice_and_swap_seats():
    game = pyspiel.load_game("python_pig(winscore=20)")
    first, second = play_match(game, "hold(n=5)", "hold(n=5)", seed=11)
    # Identical policies on identical dice: the two games are the same game.
    assert first.history == second.history and first.returns == second.returns
    again = play_game(game, [make_bot("hold(n=5)", game, p) for p in (0, 1)], seed=11)
    assert again.history == first.history


def test_cli_solve_json(capsys):
    assert cli.main(["solve", "pig", "--dice", "1", "--winscore", "20", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["first_player_win_probability"] == pytest.approx(0.615559, abs=5e-7)


def test_cli_play_prints_game_and_result(capsys):
    args = ["play", "python_pig(winscore=20)", "pig_optimal", "hold(n=10)", "--seed", "3"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "chance: Roll" in out and "returns:" in out
    assert "winner: player" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "python_pig(dice=3)", "random", "random"], "dice must be in"),
        (["play", "no_such_game", "random", "random"], "unknown game 'no_such_game'"),
        (["play", "python_pig", "nosuch", "random"], "unknown agent"),
        (["play", "python_cant_stop", "hold", "random"], "plays only python_pig, pig"),
        (["solve", "pig", "--winscore", "0"], "--winscore: must be >= 1"),
    ],
)
def test_cli_bad_input_exits_2_with_message(capsys, args, message):
    try:
        code = cli.main(args)
    except SystemExit as e:  # argparse's (one-line) errors: a number outside its range
        code = e.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_cli_lists(capsys):
    assert cli.main(["games"]) == 0 and cli.main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "python_pig" in out and "pig_optimal" in out and "hold" in out


def test_cli_demo_runs_a_short_match(capsys):
    assert cli.main(["demo", "--matches", "5"]) == 0
    assert "95% Wilson interval" in capsys.readouterr().out
