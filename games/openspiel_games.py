"""Evaluations for OpenSpiel's own games with chance that have no version of ours, so that our
agents search them with knowledge (OpenSpiel's `pig` and `einstein_wurfelt_nicht` are declared
with our versions of them, in `games/pig.py` and `games/einstein.py`).

`backgammon` (C++): a race-and-safety evaluation read through the state's API: the pip count
difference (the standard race measure), checkers borne off, and penalties for blots and for
checkers on the bar, squashed into (-1, 1).
"""

from __future__ import annotations

import math
from typing import Any

from chancespiel.games.registry import GameSpec, register_game

BACKGAMMON = "backgammon"

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


register_game(GameSpec(BACKGAMMON, heuristic=backgammon_heuristic))
