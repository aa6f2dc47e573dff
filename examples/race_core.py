"""The rules core of a plugin game, written to be compiled: the dice race of dice_race.py as
a typed `Core`, the way chancespiel's own games are written (games/pig_core.py).

    chancespiel compile examples/race_core.py    # optional: runs pure Python without it

`examples/fast_race.py` turns it into the OpenSpiel game `example_fast_race` and registers it;
this module holds only typed code: the rules (`RaceRules`, built once per parameter set and
shared), the state (`RaceCore`, the search protocol) and the heuristic and move ordering,
which agents call with a `RaceCore`.

Rules: on your turn you roll a die of `sides` faces as often as you like; a 1 ends the turn
with nothing, any other face adds to the turn's total, and stopping banks it. Whoever reaches
`goal` (banked plus the turn's total) wins at once; after `horizon` decisions the game is a
draw. With six sides and a goal of 100 it is as large as Pig with one die.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import pyspiel

from chancespiel.games.core import (
    CHANCE,
    TERMINAL,
    Core,
    ParamBounds,
    SharedRules,
    check_param,
)

ROLL: Final = 0
STOP: Final = 1
# Variable-length tuple types: compiled, these stay shared objects (not boxed at each return).
_ROLL_OR_STOP: Final[tuple[int, ...]] = (ROLL, STOP)
_STOP_FIRST: Final[tuple[int, ...]] = (STOP, ROLL)
_NONE: Final[tuple[int, ...]] = ()
_FIRST_WINS: Final[tuple[float, ...]] = (1.0, -1.0)
_SECOND_WINS: Final[tuple[float, ...]] = (-1.0, 1.0)
_NO_WINNER: Final[tuple[float, ...]] = (0.0, 0.0)

RACE_BOUNDS: Final[ParamBounds] = {"goal": (1, 1000), "sides": (2, 20), "horizon": (1, 100_000)}


class RaceRules(SharedRules):
    """One variant's constants: the die's outcomes and the limits. Shared by every state."""

    def __init__(self, goal: int = 100, sides: int = 6, horizon: int = 1000):
        self.goal = check_param(RACE_BOUNDS, "goal", goal)
        self.sides = check_param(RACE_BOUNDS, "sides", sides)
        self.horizon = check_param(RACE_BOUNDS, "horizon", horizon)
        self.outcomes: tuple[tuple[int, float], ...] = tuple(
            (face - 1, 1.0 / self.sides) for face in range(1, self.sides + 1)
        )

    def params(self) -> dict[str, Any]:
        """The parameters these rules were built from."""
        return {"goal": self.goal, "sides": self.sides, "horizon": self.horizon}

    def initial_core(self) -> RaceCore:
        """Scores 0-0, player 0 to decide."""
        return RaceCore(self, 0, 0, 0, 0, False, 0, -1)

    def game_info(self) -> pyspiel.GameInfo:
        """OpenSpiel's size facts for these parameters."""
        return pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=self.sides,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.horizon,
        )


class RaceCore(Core):
    """The state: both scores, the turn's total and mover, a pending roll, the decisions made
    and the winner (-1: none yet)."""

    __slots__ = ("mine", "mover", "moves", "rolling", "rules", "theirs", "turn_total", "winner")

    def __init__(
        self,
        rules: RaceRules,
        mine: int,
        theirs: int,
        turn_total: int,
        mover: int,
        rolling: bool,
        moves: int,
        winner: int,
    ) -> None:
        self.rules = rules
        self.mine = mine  # player 0's banked points
        self.theirs = theirs  # player 1's
        self.turn_total = turn_total
        self.mover = mover
        self.rolling = rolling
        self.moves = moves
        self.winner = winner

    def clone(self) -> RaceCore:
        """An independent copy sharing the rules."""
        return RaceCore(
            self.rules,
            self.mine,
            self.theirs,
            self.turn_total,
            self.mover,
            self.rolling,
            self.moves,
            self.winner,
        )

    def state_key(self) -> int:
        """A hash of every field but the rules."""
        return hash(
            (
                self.mine,
                self.theirs,
                self.turn_total,
                self.mover,
                self.rolling,
                self.moves,
                self.winner,
            )
        )

    def score(self, player: int) -> int:
        """`player`'s banked points."""
        return self.theirs if player else self.mine

    def is_terminal(self) -> bool:
        """True once someone has won or the horizon is reached."""
        return self.winner >= 0 or self.moves >= self.rules.horizon

    def current_player(self) -> int:
        """The mover, CHANCE after a roll, TERMINAL at the end."""
        if self.is_terminal():
            return TERMINAL
        return CHANCE if self.rolling else self.mover

    def legal_actions(self) -> tuple[int, ...]:
        """(ROLL, STOP) at a decision; nothing at chance and terminal nodes."""
        if self.rolling or self.is_terminal():
            return _NONE
        return _ROLL_OR_STOP

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """The die's faces (outcome = face - 1), shared: never mutated."""
        return self.rules.outcomes

    def _bank(self, points: int) -> None:
        if self.mover:
            self.theirs += points
        else:
            self.mine += points

    def apply(self, action: int) -> None:
        """Applies a decision or a face in place (assumed legal)."""
        if self.rolling:
            self.rolling = False
            if action == 0:  # a 1: the turn's total is lost
                self.turn_total = 0
                self.mover = 1 - self.mover
            else:
                self.turn_total += action + 1
                if self.score(self.mover) + self.turn_total >= self.rules.goal:
                    self._bank(self.turn_total)
                    self.turn_total = 0
                    self.winner = self.mover
            return
        self.moves += 1
        if action == ROLL:
            self.rolling = True
        else:
            self._bank(self.turn_total)
            self.turn_total = 0
            self.mover = 1 - self.mover

    def returns(self) -> tuple[float, ...]:
        """+1 to the winner, -1 to the loser; 0 to both at a draw or before the end."""
        if self.winner == 0:
            return _FIRST_WINS
        if self.winner == 1:
            return _SECOND_WINS
        return _NO_WINNER

    def action_to_string(self, player: int, action: int) -> str:
        """'roll', 'stop', or the face rolled."""
        if player == CHANCE:
            return f"rolled {action + 1}"
        return "roll" if action == ROLL else "stop"

    def __str__(self) -> str:
        doing = "rolling" if self.rolling else "to move"
        return (
            f"scores {self.mine} {self.theirs}, turn total {self.turn_total}, "
            f"player {self.mover} {doing}"
        )


def race_heuristic(core: RaceCore, player: int) -> float:
    """Who is nearer the goal, the turn's total counted as banked: in (-1, 1) for `player`,
    exact at the end."""
    if core.is_terminal():
        return core.returns()[player]
    mine = core.score(player)
    theirs = core.score(1 - player)
    if core.mover == player:
        mine += core.turn_total
    else:
        theirs += core.turn_total
    return math.tanh(3.0 * (mine - theirs) / core.rules.goal)


def race_ordering(core: RaceCore, actions: Sequence[int]) -> Sequence[int]:
    """Stop first once the turn's total reaches 20, else roll first."""
    if core.turn_total >= 20 and len(actions) == 2:
        return _STOP_FIRST
    return actions
