"""The human seat, driven through standard input."""

from __future__ import annotations

import io
import subprocess
import sys

import pyspiel
import pytest

from chancespiel.agents import make_bot
from chancespiel.agents.human import InputEndedError
from chancespiel.evaluation import cli
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
