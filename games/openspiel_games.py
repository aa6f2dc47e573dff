"""Evaluations for OpenSpiel's own games with chance, so our agents search them with knowledge.

- `einstein_wurfelt_nicht` (C++): our `python_einstein_wurfelt_nicht` equals it move for move
  (actions, chance outcomes, returns; tested step by step), so agents read its states into our
  core by replaying the history, then search at our core's speed with our heuristic and move
  ordering.
- `backgammon` (C++): a race-and-safety evaluation read through the state's API: the pip count
  difference (the standard race measure), checkers borne off, and penalties for blots and for
  checkers on the bar, squashed into (-1, 1).
- `pig` (C++): see `games/pig.py` (`openspiel_pig_heuristic`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pyspiel

from chancespiel.games._adapter import replayed_core
from chancespiel.games.einstein_core import EinsteinCore, einstein_heuristic, einstein_move_ordering
from chancespiel.games.registry import (
    register_core_reader,
    register_heuristic,
    register_move_ordering,
)

CPP_EINSTEIN = "einstein_wurfelt_nicht"
BACKGAMMON = "backgammon"

_einstein_game: pyspiel.Game | None = None


def read_einstein(state: pyspiel.State) -> EinsteinCore:
    """Our core of a C++ `einstein_wurfelt_nicht` state (its history replayed on ours)."""
    global _einstein_game
    if _einstein_game is None:
        _einstein_game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    core: EinsteinCore = replayed_core(_einstein_game, state)
    return core


def _einstein_core(state: Any) -> EinsteinCore:
    """`state` itself when agents already read it into our core, else read now (an adapter
    around a C++ state, or the C++ state)."""
    if isinstance(state, EinsteinCore):
        return state
    return read_einstein(getattr(state, "state", state))


def cpp_einstein_heuristic(state: Any, player: int) -> float:
    """`einstein_heuristic` on a C++ `einstein_wurfelt_nicht` state or our core of one."""
    return einstein_heuristic(_einstein_core(state), player)


def cpp_einstein_move_ordering(state: Any, actions: Sequence[int]) -> Sequence[int]:
    """`einstein_move_ordering` on a C++ `einstein_wurfelt_nicht` state or our core of one."""
    return einstein_move_ordering(_einstein_core(state), actions)


# Backgammon --------------------------------------------------------------------------------

_POINTS = 24
_CHECKERS = 15
_RACE_SCALE = 3.0  # tanh(3 x) of the relative pip lead: a 10% lead is worth about 0.3
_BLOT = 0.04  # per blot (a lone checker the opponent can hit), on the tanh argument
_BAR = 0.08  # per checker on the bar (it must re-enter before anything else moves)


def _backgammon_counts(state: Any) -> tuple[list[list[int]], list[int]]:
    """Checkers on each point for both players, and borne-off counts, of a pyspiel state."""
    board = [[state.board(p, i) for i in range(_POINTS)] for p in (0, 1)]
    scores_line = str(state).rsplit("Scores, X: ", 1)[1]  # "Scores, X: 3, O: 0"
    x_off, o_off = scores_line.split(", O: ")
    return board, [int(x_off), int(o_off.split()[0])]


def backgammon_heuristic(state: Any, player: int) -> float:
    """Evaluation of OpenSpiel's `backgammon` for `player` in (-1, 1), exact at the end.

    X (player 0) moves from point 0 towards 23 and bears off past it, O (player 1) the other
    way, so a checker of X on point i needs 24 - i pips, one of O i + 1, one on the bar 25.
    """
    state = getattr(state, "state", state)  # an agent's adapter, or the pyspiel state
    if state.is_terminal():
        return state.returns()[player]
    board, off = _backgammon_counts(state)
    pips, blots, bar = [0, 0], [0, 0], [0, 0]
    for p in (0, 1):
        on_board = 0
        for i, n in enumerate(board[p]):
            if n:
                on_board += n
                pips[p] += n * (_POINTS - i if p == 0 else i + 1)
                blots[p] += n == 1
        bar[p] = _CHECKERS - on_board - off[p]
        pips[p] += 25 * bar[p]
    me, them = player, 1 - player
    race = (pips[them] - pips[me]) / max(pips[0] + pips[1], 1)
    safety = _BLOT * (blots[them] - blots[me]) + _BAR * (bar[them] - bar[me])
    return math.tanh(_RACE_SCALE * race + safety)


register_core_reader(CPP_EINSTEIN, read_einstein)
register_heuristic(CPP_EINSTEIN, cpp_einstein_heuristic)
register_move_ordering(CPP_EINSTEIN, cpp_einstein_move_ordering)
register_heuristic(BACKGAMMON, backgammon_heuristic)
