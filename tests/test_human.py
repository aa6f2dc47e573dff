"""The human seat, driven through standard input."""

from __future__ import annotations

import io
import subprocess
import sys

import pyspiel
import pytest

from chancespiel.agents import make_bot
from chancespiel.agents.human import InputEndedError, action_named
from chancespiel.evaluation import cli
from chancespiel.evaluation.cli.common import apply_history
from chancespiel.evaluation.usage import UsageError
from chancespiel.games.pig_core import ROLL, STOP


def _ask(monkeypatch, capsys, typed: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    game = pyspiel.load_game("python_pig")
    state = game.new_initial_state()
    action = make_bot("human", game, 0).step(state)
    return action, capsys.readouterr().out


def test_menu_numbers_from_zero_in_legal_action_order(monkeypatch, capsys):
    action, shown = _ask(monkeypatch, capsys, "1\n")
    assert action == STOP
    assert "0: roll" in shown and "1: stop" in shown


def test_move_names_are_accepted_and_bad_input_asked_again(monkeypatch, capsys):
    action, shown = _ask(monkeypatch, capsys, "7\n\nfly\n ROLL \n")
    assert action == ROLL
    assert shown.count("is not a legal move") == 3


def test_end_of_input_ends_the_seat(monkeypatch, capsys):
    with pytest.raises(InputEndedError):
        _ask(monkeypatch, capsys, "9\n")


@pytest.mark.parametrize(
    "typed, reason",
    [("\0" * 5000, "more than 1000 characters"), ("x\n" * 150, "100 answers in a row")],
)
def test_endless_input_ends_the_seat(monkeypatch, capsys, typed, reason):
    """stdin from /dev/zero or `yes` is no person: the seat is given up, in bounded time."""
    with pytest.raises(InputEndedError, match=reason):
        _ask(monkeypatch, capsys, typed)


def test_play_against_an_agent_from_the_keyboard():
    typed = "stop\n" * 200  # stopping at once: the random opponent wins in the end
    done = subprocess.run(
        [sys.executable, "-m", "chancespiel", "play", "python_pig(winscore=10)", "human",
         "hold(n=5)", "--seed", "2"],
        input=typed, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "winner: player 1 (hold(n=5))" in done.stdout
    ended = subprocess.run(
        [sys.executable, "-m", "chancespiel", "play", "python_pig", "human", "random"],
        input="", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ended.returncode == 1
    assert ended.stderr.strip() == (
        "chancespiel: error: input ended before a move was chosen: the game is abandoned"
    )


def test_the_human_seat_is_refused_where_nobody_is_at_the_keyboard(tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    argv = ["match", "python_pig", "human", "random", "--matches", "1", "--out", str(out)]
    assert cli.main(argv) == 2
    assert "plays only in `chancespiel play`" in capsys.readouterr().err
    assert not out.exists()


def test_the_position_is_printed_once_per_move_of_the_person():
    done = subprocess.run(
        [sys.executable, "-m", "chancespiel", "play", "python_pig(winscore=10)", "human",
         "hold(n=5)", "--seed", "1"],
        input="roll\n" * 50, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    before_first_move = done.stdout.split("player 0 (human): roll")[0]
    assert before_first_move.count("Scores: 0 0, Turn total: 0") == 1


@pytest.mark.parametrize(
    "game_string, typed, printed",
    [
        ("python_pig(dice=2)", "roll;Roll 4+3", "Roll 3+4"),
        ("python_pig(dice=2)", "roll; roll  4 + 3 ", "Roll 3+4"),
        ("python_pig(dice=2,ordered_dice=true)", "roll;Roll 4+3", "Roll 4+3"),  # both exist
        ("python_pig(dice=2,ordered_dice=true)", "roll;Roll 3+4", "Roll 3+4"),
        ("python_cant_stop", "Roll 6-5-1-4;use 5 and 11", "Roll 1-4-5-6"),
        ("python_cant_stop", "Roll 6-5-1-4;", "Roll 1-4-5-6"),  # one move with spaces
        ("python_cant_stop", "Roll 6-5-1-4 use 5 and 11", "Roll 1-4-5-6"),  # words joined
        ("python_cant_stop", "Roll 6-5-1-4", "Roll 1-4-5-6"),
        ("python_pig(dice=2)", "roll Roll 4+3", "Roll 3+4"),
    ],
)
def test_a_history_names_a_roll_with_its_dice_in_any_order(game_string, typed, printed):
    game = pyspiel.load_game(game_string)
    state = apply_history(game, typed)
    roll = 1 if game_string.startswith("python_pig") else 0  # the roll's place in the history
    before = game.new_initial_state()
    for action in state.history()[:roll]:
        before.apply_action(action)
    assert before.action_to_string(-1, state.history()[roll]) == printed


@pytest.mark.parametrize(
    "typed", ["roll;Roll 3-4", "roll;Roll 3+4+5", "roll;Roll 3+9", "roll;Rol 4+3", "roll;4+3"]
)
def test_a_roll_that_is_no_outcome_in_any_order_is_refused(typed):
    """Separated by semicolons or by spaces: a roll that names no outcome names none with the
    words after it either."""
    with pytest.raises(UsageError, match="item 2"):
        apply_history(pyspiel.load_game("python_pig(dice=2)"), typed.replace(";", " "))
    with pytest.raises(UsageError, match="item 2"):
        apply_history(pyspiel.load_game("python_pig(dice=2)"), typed)


def test_dice_in_another_order_that_fit_two_outcomes_name_neither():
    named = [(0, "Roll 1-2-3"), (1, "Roll 3-2-1"), (2, "Roll 1-1-1")]
    assert action_named(named, "roll 3-2-1") == 1  # printed so: exact
    assert action_named(named, "Roll 2-1-3") is None  # ambiguous
    assert action_named(named, "Roll 1 - 1 - 1") == 2
    assert action_named([(0, "stop"), (1, "STOP")], "stop") is None


def test_the_human_seat_reads_a_roll_with_its_dice_in_any_order(monkeypatch, capsys):
    class Dice:
        """A decision among rolls, as a game might offer a choice of dice."""

        def current_player(self) -> int:
            return 0

        def legal_actions(self) -> list[int]:
            return [0, 1]

        def action_to_string(self, player: int, action: int) -> str:
            return ["Roll 2+5", "Roll 3+4"][action]

    monkeypatch.setattr(sys, "stdin", io.StringIO("Roll 5+3\nroll 4+3\n"))
    bot = make_bot("human", pyspiel.load_game("python_pig"), 0)
    assert bot.step(Dice()) == 1
    assert capsys.readouterr().out.count("is not a legal move") == 1
