"""P-game trees: random minimax trees whose leaves are won, drawn or lost by a sum of move values.

As in the UCT paper (Kocsis, Szepesvari and Willemson, "Improved Monte-Carlo Search", 2006,
section 3.1): a uniform tree with `branching` moves at every node and `depth`
plies, player 0 (Max) moving at even plies and player 1 (Min) at odd plies. Every move has a
value, an integer drawn uniformly from [0, 127] for Max's moves and from [-127, 0] for Min's.
A leaf's sum is the sum of the move values on its path; player 0 wins (+1) if it is positive,
loses (-1) if it is negative, and the game is a draw (0) at exactly 0.

`scoring=margin` keeps the sum instead of its sign: the return is sum / (127 * ceil(depth/2)),
a real value in [-1, 1]. It is not in the paper; it gives the same trees real-valued leaves, on
which bounded searches (BAB) have something to gain from a tolerance below 1.

No tree is stored: each node is named by a 64-bit hash of its path (games.tree_hash) and the
value of the move into it is a hash of that key, so a tree is a pure function of `seed`.

Parameters: `seed` (>= 0), `branching` (2..16, default 2), `depth` (1..40, default 20),
`scoring` (`sign`, the paper's, or `margin`). Actions are 0..branching-1.
The exact solver is `solve_pgame` (alpha-beta, moves ordered by their values).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pyspiel

from chancespiel.games._adapter import (
    TERMINAL,
    CoreGame,
    chance_game_type,
)
from chancespiel.games.core import MAX_INT_PARAM, ParamBounds, check_param
from chancespiel.games.exact import action_values, minimax_value
from chancespiel.games.keyed_tree import KeyedTreeCore, KeyedTreeRules
from chancespiel.games.registry import GameSpec, register_game
from chancespiel.games.tree_hash import child_key, mix64

MAX_MOVE_VALUE = 127  # move values are integers in [0, 127] (Max) and [-127, 0] (Min)
SCORINGS = ("sign", "margin")

_ROOT_SALT = 0x5047414D45  # "PGAME": trees differ from python_chance_tree's at the same seed

_DEFAULTS = {"seed": 0, "branching": 2, "depth": 20, "scoring": "sign"}

_GAME_TYPE = chance_game_type(
    "python_pgame",
    "Python P-game tree",
    _DEFAULTS,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
)


PGAME_BOUNDS: ParamBounds = {"seed": (0, MAX_INT_PARAM), "branching": (2, 16), "depth": (1, 40)}


class PGameRules(KeyedTreeRules):
    """Parameters of one P-game tree."""

    def __init__(self, seed: int = 0, branching: int = 2, depth: int = 20, scoring: str = "sign"):
        self.seed = check_param(PGAME_BOUNDS, "seed", seed)
        self.branching = check_param(PGAME_BOUNDS, "branching", branching)
        self.depth = check_param(PGAME_BOUNDS, "depth", depth)
        if scoring not in SCORINGS:
            raise ValueError(f"parameter scoring must be one of {SCORINGS}, got {scoring!r}")
        self.scoring = scoring
        self.root_key = mix64(self.seed ^ _ROOT_SALT)
        self.actions = tuple(range(self.branching))
        # The largest |sum| Max can reach: ceil(depth / 2) moves of up to 127.
        self.scale = MAX_MOVE_VALUE * ((self.depth + 1) // 2)

    def params(self) -> dict[str, Any]:
        """The game parameters."""
        return {
            "seed": self.seed,
            "branching": self.branching,
            "depth": self.depth,
            "scoring": self.scoring,
        }

    def initial_core(self) -> PGameCore:
        """The root: Max (player 0) to move, sum 0."""
        return PGameCore(self)

    def game_info(self) -> pyspiel.GameInfo:
        """Sizes: `branching` actions, `depth` moves, no chance."""
        return pyspiel.GameInfo(
            num_distinct_actions=self.branching,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.depth,
        )

    def observation_pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        """Plies made (one-hot), player to move (one-hot) and the sum so far (scaled)."""
        return [*super().observation_pieces(), ("sum", (1,))]

    def fill_observation(self, core: KeyedTreeCore, player: int, views: dict[str, Any]) -> None:
        """One-hot plies and mover; the sum divided by the largest reachable sum."""
        super().fill_observation(core, player, views)
        assert isinstance(core, PGameCore)
        views["sum"][0] = core.total / self.scale


def move_value(key: int, mover: int) -> int:
    """Value of the move of `mover` into the node `key`: in [0, 127] for Max, [-127, 0] for Min.

    The top 7 bits of the (well-mixed) key: uniform, and no second hash per move.
    """
    value = key >> 57
    return value if mover == 0 else -value


class PGameCore(KeyedTreeCore):
    """A node: its path key, plies made, the sum of move values so far and the player to move."""

    __slots__ = ("total",)
    rules: PGameRules

    def __init__(self, rules: PGameRules):
        super().__init__(rules)
        self.total = 0

    def clone(self) -> PGameCore:
        """A copy."""
        c = super().clone()
        c.total = self.total
        return c

    def legal_actions(self) -> Sequence[int]:
        """0..branching-1 (none at a leaf)."""
        return self.rules.actions if self.player >= 0 else ()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """None: P-games have no chance nodes."""
        return []

    def child_move_value(self, action: int) -> int:
        """The value `action` would add to the sum."""
        return move_value(child_key(self.key, action), self.player)

    def apply(self, action: int) -> None:
        """Plays `action`: adds its value to the sum, passes the move."""
        key = self.key = child_key(self.key, action)
        self.total += key >> 57 if self.player == 0 else -(key >> 57)  # move_value, inlined
        self.plies += 1
        self.player = TERMINAL if self.plies >= self.rules.depth else self.plies & 1

    def value(self) -> float:
        """The leaf value for player 0: sign of the sum, or the scaled sum (scoring=margin)."""
        if self.rules.scoring == "margin":
            return self.total / self.rules.scale
        return float((self.total > 0) - (self.total < 0))

    def action_to_string(self, player: int, action: int) -> str:
        """'a1:+57': the action and the value it adds here (just 'a1' at another node)."""
        if player != self.player:
            return f"a{action}"
        return f"a{action}:{move_value(child_key(self.key, action), player):+d}"

    def __str__(self) -> str:
        return f"node {self.key:016x} plies {self.plies} sum {self.total:+d} player {self.player}"


class PGameGame(CoreGame):
    """OpenSpiel game python_pgame."""

    game_type = _GAME_TYPE
    rules_class = PGameRules
    bounds = PGAME_BOUNDS


def pgame_heuristic(core: PGameCore, player: int) -> float:
    """Exact at leaves; elsewhere the sum so far squashed into (-1, 1), for `player`.

    With `remaining` plies to go the sum can still move by about 64 * sqrt(remaining), so the
    sign scoring uses s / (|s| + 64 sqrt(remaining)); the margin scoring uses the scaled sum.
    """
    if core.player == TERMINAL:
        v = core.value()
    elif core.rules.scoring == "margin":
        v = core.total / core.rules.scale
    else:
        remaining = core.rules.depth - core.plies
        v = core.total / (abs(core.total) + 64.0 * math.sqrt(remaining))
    return v if player == 0 else -v


def pgame_ordering(core: PGameCore, actions: Sequence[int]) -> list[int]:
    """Actions by the value they add, best for the mover first (Max: highest, Min: lowest)."""
    values = {a: core.child_move_value(a) for a in actions}
    return sorted(actions, key=lambda a: -values[a] if core.player == 0 else values[a])


def solve_pgame(core: PGameCore, player: int = 0) -> float:
    """Exact minimax value of the node `core` for `player` (alpha-beta, ordered moves)."""
    return minimax_value(core, player, ordering=pgame_ordering)


def pgame_action_values(core: PGameCore, player: int = 0) -> dict[int, float]:
    """Exact minimax value of every action at the decision node `core`, for `player`."""
    return action_values(core, lambda child: solve_pgame(child, player))


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=PGameGame,
        description="P-game trees of the UCT paper: win/draw/loss by the sign of a sum of "
        "move values (search tests, UCT convergence)",
        chance="none (deterministic)",
        status="done (test bed); exact solver",
        heuristic=pgame_heuristic,
    )
)
