"""Pig with one die (OpenSpiel's `pig`) or two dice (the MCMS paper's variant, "Pig Out").

Rules (Neller and Presser, "Optimal Play of the Dice Game Pig", 2004; two dice: "Pig Out"):
players race to bank `winscore` points. On a turn the player rolls until they stop (banking the
turn total) or the dice end the turn.

- One die: a 1 loses the turn total and ends the turn; 2..6 adds the face to the turn total.
- Two dice: a single 1 loses the turn total and ends the turn; double 1s also reset the
  player's banked score to 0; otherwise the sum is added to the turn total.

Conventions follow OpenSpiel's C++ `pig` so that `python_pig(dice=1)` equals it move for move:

- Actions: 0 = roll, 1 = stop. Stopping with a turn total of 0 is legal. Once banked score plus
  turn total reaches `winscore` the only legal action is stop, which wins.
- After `horizon` decision moves (rolls and stops) the game ends in a draw, even at a chance
  node; the C++ game does the same.
- Chance outcomes: one die, outcome `x` is face `x + 1` ("Roll 4"). Two dice, the 36 ordered
  rolls are merged into the unordered pairs a <= b, numbered in lexicographic order: with six
  sides 0 = 1+1, 1 = 1+2, ..., 5 = 1+6, 6 = 2+2, ..., 20 = 6+6 ("Roll 2+5").
- Returns: +1 to the winner, -1 to the loser, 0 to both at the horizon.

Parameters: `dice` (1 or 2, default 2), `winscore` (>= 1, default 100), `horizon` (>= 1,
default 1000), `diceoutcomes` (sides per die, >= 2, default 6; small dice and goals give
games small enough for exhaustive search in tests) and `ordered_dice` (boolean, default false):
with two dice, true enumerates the 36 ordered rolls (a, b), outcome (a - 1) * sides + b - 1,
each 1/36, "Roll 5+2" in the order drawn, instead of the 21 merged pairs: the same game with
the same probabilities, offered because classic search pays for every outcome of a chance
node and sampling does not. With one die it changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final, final

import numpy as np
import pyspiel
from librt.vecs import vec
from mypy_extensions import i64

from chancespiel.games.core import (
    CHANCE,
    TERMINAL,
    Core,
    ParamBounds,
    SharedRules,
    check_bool_param,
    check_param,
)

ROLL: Final = 0
STOP: Final = 1

# A chance outcome's effect on the turn (`PigRules.gains`): a positive gain adds that many
# points to the turn total and the turn goes on; the others end the turn.
_BUST: Final = -1  # lose the turn total, the turn passes
_RESET: Final = -2  # lose the turn total and the banked score, the turn passes

# Typed as variable-length tuples: compiled, they stay the same shared objects (a fixed-length
# tuple type would be unboxed, and boxed anew each time legal_actions returns it).
_ROLL_OR_STOP: Final[tuple[int, ...]] = (ROLL, STOP)
_STOP_ONLY: Final[tuple[int, ...]] = (STOP,)
_FIRST_WINS: Final[tuple[float, ...]] = (1.0, -1.0)
_SECOND_WINS: Final[tuple[float, ...]] = (-1.0, 1.0)
_NO_WINNER: Final[tuple[float, ...]] = (0.0, 0.0)

# Parameter ranges: wide enough for every variant studied, small enough that no table or
# game becomes unbounded (a die of 20 faces gives 210 unordered or 400 ordered rolls).
MAX_WINSCORE: Final = 1000
MAX_HORIZON: Final = 100_000
MAX_SIDES: Final = 20
PIG_BOUNDS: Final[ParamBounds] = {
    "dice": (1, 2),
    "winscore": (1, MAX_WINSCORE),
    "horizon": (1, MAX_HORIZON),
    "diceoutcomes": (2, MAX_SIDES),
}


@final
class PigRules(SharedRules):
    """Constants of one Pig variant: chance table, effects and limits. Shared, never copied."""

    def __init__(
        self,
        dice: int = 2,
        winscore: int = 100,
        horizon: int = 1000,
        diceoutcomes: int = 6,
        ordered_dice: bool = False,
    ):
        self.ordered_dice = check_bool_param("ordered_dice", ordered_dice)
        self.dice = check_param(PIG_BOUNDS, "dice", dice)
        # Machine integers: compiled, the goal and the horizon a move compares with are read
        # as they are, not converted from tagged integers at every move.
        self.winscore: i64 = check_param(PIG_BOUNDS, "winscore", winscore)
        self.horizon: i64 = check_param(PIG_BOUNDS, "horizon", horizon)
        self.sides = check_param(PIG_BOUNDS, "diceoutcomes", diceoutcomes)
        outcomes: list[tuple[int, float]] = []
        gains: list[int] = []
        names: list[str] = []
        if self.dice == 1:
            for face in range(1, self.sides + 1):
                outcomes.append((face - 1, 1.0 / self.sides))
                gains.append(_BUST if face == 1 else face)
                names.append(f"Roll {face}")
        else:
            for a in range(1, self.sides + 1):
                for b in range(1 if ordered_dice else a, self.sides + 1):
                    ways = 1 if a == b or ordered_dice else 2
                    outcomes.append((len(outcomes), ways / self.sides**2))
                    if a == 1 or b == 1:
                        gains.append(_RESET if a == b else _BUST)
                    else:
                        gains.append(a + b)
                    names.append(f"Roll {a}+{b}")
        self.outcomes: tuple[tuple[int, float], ...] = tuple(outcomes)
        # One int per outcome, not a (kind, amount) pair: compiled, a pair read from a tuple
        # is unpacked with a check of its type, length and items at every roll; in a vector
        # of machine integers (`librt.vecs`), each a native read.
        self.gains = vec[i64](gains)
        self.outcome_names: tuple[str, ...] = tuple(names)
        # For the heuristic: sqrt(max(0, 1 - points / W)) for points < W (0.0 from W on), the
        # same floats as `_race_value` computes, looked up instead of computed at every leaf.
        goal = int(self.winscore)  # (an int: mypyc has no true division of two i64)
        self.near_goal: tuple[float, ...] = tuple(
            math.sqrt(max(0.0, 1.0 - points / goal)) for points in range(goal)
        )

    def params(self) -> dict[str, Any]:
        """The game parameters these rules were built from."""
        return {
            "dice": self.dice,
            "winscore": self.winscore,
            "horizon": self.horizon,
            "diceoutcomes": self.sides,
            "ordered_dice": self.ordered_dice,
        }

    def initial_core(self) -> PigCore:
        """The state before the first move: scores 0-0, player 0 to decide."""
        return PigCore(self)

    def game_info(self) -> pyspiel.GameInfo:
        """OpenSpiel's size facts for these parameters."""
        return pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=len(self.outcomes),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.horizon,
        )

    # Observation: the first piece equals the C++ game's [3, winscore + 1] tensor (turn total,
    # then each player's score, one-hot, the last bin meaning >= winscore); the C++ tensor does
    # not say whose turn it is, so a second piece does.
    def observation_pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and shapes of the observation tensor's pieces."""
        return [("scores", (3, self.winscore + 1)), ("turn_player", (2,))]

    def fill_observation(self, core: PigCore, player: int, views: dict[str, np.ndarray]) -> None:
        """Writes the one-hot encoding of `core` into the zeroed `views`."""
        top = self.winscore
        scores = views["scores"]
        scores[0, min(core.turn_total, top)] = 1.0
        scores[1, min(core.scores[0], top)] = 1.0
        scores[2, min(core.scores[1], top)] = 1.0
        views["turn_player"][core.turn_player] = 1.0

    def observation_string(self, core: PigCore, player: int) -> str:
        """The whole state as text (Pig has no hidden information)."""
        return str(core)


@final
class PigCore(Core):
    """Mutable Pig state implementing the search protocol (`Core`)."""

    __slots__ = ("moves", "over", "rolling", "rules", "scores", "turn_player", "turn_total")

    # The numbers are machine integers (`i64`): compiled, each read, add and comparison of a
    # move is one instruction, where an `int` is a tagged value checked for a boxed long.
    def __init__(
        self,
        rules: PigRules,
        scores: tuple[i64, i64] = (0, 0),
        turn_total: i64 = 0,
        turn_player: i64 = 0,
        rolling: bool = False,
        moves: i64 = 0,
        over: bool = False,
    ) -> None:
        self.rules = rules
        self.scores = scores
        self.turn_total = turn_total
        self.turn_player = turn_player
        self.rolling = rolling  # True at the chance node after a roll
        self.moves = moves  # decision moves made, for the horizon
        self.over = over

    def score(self, player: i64) -> i64:
        """`player`'s banked points. (Indexing `scores` by a variable would make a compiled
        core box the pair into a new tuple first.)"""
        scores = self.scores
        return scores[1] if player else scores[0]

    def bank(self, player: i64, points: i64) -> None:
        """Sets `player`'s banked points. (Statements: compiled, a conditional expression of
        the two pairs would box them.)"""
        if player:
            self.scores = (self.scores[0], points)
        else:
            self.scores = (points, self.scores[1])

    def clone(self) -> PigCore:
        """An independent copy sharing the rules."""
        return PigCore(
            self.rules,
            self.scores,
            self.turn_total,
            self.turn_player,
            self.rolling,
            self.moves,
            self.over,
        )

    def state_key(self) -> int:
        """A hash of every field (Core.state_key), without the generic field walk."""
        return hash(
            (self.scores, self.turn_total, self.turn_player, self.rolling, self.moves, self.over)
        )

    def current_player(self) -> int:
        """0 or 1 to decide, CHANCE after a roll, TERMINAL at the end."""
        if self.over:
            return TERMINAL
        if self.rolling:  # (a statement: compiled, `CHANCE if ... else` an i64 is boxed)
            return CHANCE
        return self.turn_player

    def is_terminal(self) -> bool:
        """True once someone has won or the horizon is reached."""
        return self.over

    def legal_actions(self) -> tuple[int, ...]:
        """(ROLL, STOP), or (STOP,) once stopping wins; empty at chance and terminal nodes."""
        if self.over or self.rolling:
            return ()
        if self.score(self.turn_player) + self.turn_total >= self.rules.winscore:
            return _STOP_ONLY
        return _ROLL_OR_STOP

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """The roll's (outcome, probability) pairs; shared, do not mutate."""
        return self.rules.outcomes

    def apply(self, action: int) -> None:
        """Applies a decision or a chance outcome in place. Assumes it is legal."""
        # `self.rules.x` read where used, not kept in a local: compiled, a chain of attribute
        # reads borrows the rules, where a local takes and drops a reference at every move.
        if self.rolling:
            self.rolling = False
            gain = self.rules.gains[action]
            if gain > 0:
                self.turn_total += gain
                return
            p = self.turn_player
            self.turn_total = 0
            if gain == _RESET:
                self.bank(p, 0)
            self.turn_player = 1 - p
            return
        moves = self.moves + 1
        self.moves = moves
        if action == ROLL:
            self.rolling = True
        else:
            p = self.turn_player
            banked = self.score(p) + self.turn_total
            self.bank(p, banked)
            self.turn_total = 0
            self.turn_player = 1 - p  # also on a win, as the C++ game does
            if banked >= self.rules.winscore:
                self.over = True
        if moves >= self.rules.horizon:
            self.over = True

    def returns(self) -> tuple[float, ...]:
        """(+1, -1) or (-1, +1) for a win, (0, 0) at the horizon or before the end."""
        if self.over:
            if self.scores[0] >= self.rules.winscore:
                return _FIRST_WINS
            if self.scores[1] >= self.rules.winscore:
                return _SECOND_WINS
        return _NO_WINNER

    def action_to_string(self, player: int, action: int) -> str:
        """'roll', 'stop', or the roll's name ('Roll 4', 'Roll 2+5') for CHANCE."""
        if player == CHANCE:
            return self.rules.outcome_names[action]
        return "roll" if action == ROLL else "stop"

    def __str__(self) -> str:
        # Same text as the C++ game's ToString().
        rolling = " (rolling)\n" if self.rolling else "\n"
        return (
            f"Scores: {self.scores[0]} {self.scores[1]}, Turn total: {self.turn_total}\n"
            f"Current player: {self.turn_player}{rolling}"
        )


def _race_value(
    scores: tuple[int, int], turn_total: int, turn_player: int, player: int, winscore: int
) -> float:
    """tanh(2 (sqrt(1 - theirs / W) - sqrt(1 - mine / W))): a race to the goal.

    The turn total counts as banked (it is one stop away). Square roots of the distances to
    the goal make a lead count more near the end. The form and the constant 2 were chosen
    against the exact two-dice solution at W = 100: mean squared error 80 (points^2 on the
    paper's [-100, 100] scale) over all states, against 490 for tanh(3 x lead / W).
    """
    mine = scores[player] + (turn_total if turn_player == player else 0)
    theirs = scores[1 - player] + (turn_total if turn_player != player else 0)
    near_mine = math.sqrt(max(0.0, 1.0 - mine / winscore))
    near_theirs = math.sqrt(max(0.0, 1.0 - theirs / winscore))
    return math.tanh(2.0 * (near_theirs - near_mine))


def pig_heuristic(core: PigCore, player: int) -> float:
    """Evaluation for `player` in [-1, 1]: exact at the end, else a race to the goal.

    See `_race_value`; the same heuristic fits every `winscore`. Its sign agrees with the exact
    solver's value in most positions (tests/test_pig.py measures this).
    """
    if core.over:
        return core.returns()[player]
    # _race_value, with the square roots from the rules' table (the same floats).
    mine, theirs = core.score(player), core.score(1 - player)
    if core.turn_player == player:
        mine += core.turn_total
    else:
        theirs += core.turn_total
    near = core.rules.near_goal
    last = len(near)
    near_mine = near[mine] if mine < last else 0.0
    near_theirs = near[theirs] if theirs < last else 0.0
    return math.tanh(2.0 * (near_theirs - near_mine))


def pig_lead_heuristic(core: PigCore, player: int) -> float:
    """A plain evaluation, `heuristic=lead` in agent specs: tanh(3 lead / W), the turn total
    counted as banked. Its mean squared error against the exact solution is about six times
    the default's (490 against 80 points^2), the kind of evaluation the MCMS paper's errors
    suggest; for experiments that should not start from a near-exact one.
    """
    if core.over:
        return core.returns()[player]
    lead = core.score(player) - core.score(1 - player)
    lead += core.turn_total if core.turn_player == player else -core.turn_total
    return math.tanh(3.0 * float(lead) / int(core.rules.winscore))  # (int: see near_goal)


def pig_move_ordering(core: PigCore, actions: Sequence[int]) -> Sequence[int]:
    """Stop first once the turn total reaches 20 (Knizia's rule of thumb), else roll first."""
    if core.turn_total >= 20 and actions == _ROLL_OR_STOP:
        return (STOP, ROLL)
    return actions


PIG_FEATURES: Final[tuple[str, ...]] = (
    "mine",
    "theirs",
    "my_turn_total",
    "their_turn_total",
    "my_turn",
    "rolling",
    "near_mine",
    "near_theirs",
    "race",
)


def pig_features(core: PigCore, player: int) -> list[float]:
    """The position as `player` sees it, for a learned value (PIG_FEATURES names them): banked
    scores and the turn total as fractions of the goal, whose turn it is, whether a roll is
    pending, the square roots of the distances to the goal and the race heuristic."""
    winscore = int(core.rules.winscore)  # (an int: mypyc has no true division of two i64)
    mine = core.score(player)
    theirs = core.score(1 - player)
    my_turn = core.turn_player == player
    total = core.turn_total
    near = core.rules.near_goal
    last = len(near)
    with_mine = mine + total if my_turn else mine
    with_theirs = theirs if my_turn else theirs + total
    return [
        mine / winscore,
        theirs / winscore,
        total / winscore if my_turn else 0.0,
        0.0 if my_turn else total / winscore,
        1.0 if my_turn else 0.0,
        1.0 if core.rolling else 0.0,
        near[with_mine] if with_mine < last else 0.0,
        near[with_theirs] if with_theirs < last else 0.0,
        pig_heuristic(core, player),
    ]
