"""Random trees with decision and chance nodes: the test bed for pruning and sampling agents.

Every node is named by a 64-bit hash of its path from the root, and everything about it is a
pure function of that key and the `seed`: whether it is a chance node (probability
`chance_prob`, at most two chance nodes in a row), who moves (either player, so turns need not
alternate), how many actions (1..`branching`) or outcomes (1..`outcomes`, with varied
probabilities), and its heuristic value. The game ends after `depth` decision plies with a
real-valued return in [-1, 1]; the registered heuristic gives a hashed value in (-1, 1) at
inner nodes, correlated with the subtree's leaves only by chance: the point is varied values
that exercise every window of a pruning search. `solve_chance_tree` is the exact (exhaustive
expectimax) value that tests and experiments compare searches with.

Parameters: `seed` (>= 0), `depth` (decision plies, 1..12), `branching` (2..8),
`outcomes` (2..64), `chance_prob` (0..1). Actions are 0..branching-1, outcomes 0..outcomes-1.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from chancespiel.games._adapter import (
    CHANCE,
    TERMINAL,
    CoreGame,
    chance_game_type,
)
from chancespiel.games.core import MAX_INT_PARAM, ParamBounds, check_param
from chancespiel.games.exact import action_values, expectimax_value
from chancespiel.games.keyed_tree import KeyedTreeCore, KeyedTreeRules
from chancespiel.games.registry import GameSpec, register_game
from chancespiel.games.tree_hash import child_key, mix64, unit

_DEFAULTS = {"seed": 0, "depth": 4, "branching": 3, "outcomes": 3, "chance_prob": 0.5}

_GAME_TYPE = chance_game_type("python_chance_tree", "Python random chance tree", _DEFAULTS)


CHANCE_TREE_BOUNDS: ParamBounds = {
    "seed": (0, MAX_INT_PARAM),
    "depth": (1, 12),
    "branching": (2, 8),
    "outcomes": (2, 64),
}
CHANCE_PROB_RANGE = (0.0, 1.0)


class ChanceTreeRules(KeyedTreeRules):
    """Parameters of one random tree."""

    def __init__(
        self,
        seed: int = 0,
        depth: int = 4,
        branching: int = 3,
        outcomes: int = 3,
        chance_prob: float = 0.5,
    ):
        self.seed = check_param(CHANCE_TREE_BOUNDS, "seed", seed)
        self.depth = check_param(CHANCE_TREE_BOUNDS, "depth", depth)
        self.branching = check_param(CHANCE_TREE_BOUNDS, "branching", branching)
        self.outcomes = check_param(CHANCE_TREE_BOUNDS, "outcomes", outcomes)
        low, high = CHANCE_PROB_RANGE
        if not isinstance(chance_prob, (int, float)) or not low <= chance_prob <= high:
            raise ValueError(f"parameter chance_prob must be in [0, 1], got {chance_prob!r}")
        self.chance_prob = float(chance_prob)
        self.root_key = mix64(self.seed)

    def params(self) -> dict[str, Any]:
        """The game parameters."""
        return {
            "seed": self.seed,
            "depth": self.depth,
            "branching": self.branching,
            "outcomes": self.outcomes,
            "chance_prob": self.chance_prob,
        }

    def initial_core(self) -> ChanceTreeCore:
        """The root (a decision node of player 0)."""
        return ChanceTreeCore(self)

    def game_info(self) -> pyspiel.GameInfo:
        """Sizes: every decision ply may be preceded by two chance nodes. OpenSpiel takes a
        Python game's bound on chance nodes per history from max_game_length, so that is
        2 * depth (an upper bound on the depth decision plies as well)."""
        return pyspiel.GameInfo(
            num_distinct_actions=self.branching,
            max_chance_outcomes=self.outcomes,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=2 * self.depth,
        )


class ChanceTreeCore(KeyedTreeCore):
    """A node of the tree: its path key, plies made and consecutive chance nodes."""

    __slots__ = ("run",)
    rules: ChanceTreeRules

    def __init__(self, rules: ChanceTreeRules):
        super().__init__(rules)
        self.run = 0  # chance nodes in a row just before this node

    def clone(self) -> ChanceTreeCore:
        """A copy."""
        c = super().clone()
        c.run = self.run
        return c

    def legal_actions(self) -> list[int]:
        """1..branching actions, as the key decides."""
        if self.player < 0:
            return []
        return list(range(1 + mix64(self.key ^ 0xA5) % self.rules.branching))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """1..outcomes outcomes with varied probabilities."""
        count = 1 + mix64(self.key ^ 0xC3) % self.rules.outcomes
        weights = [0.2 + unit(mix64(self.key ^ (0x100 + i))) for i in range(count)]
        total = sum(weights)
        return [(i, w / total) for i, w in enumerate(weights)]

    def apply(self, action: int) -> None:
        """Moves to the child; decides the child's type from its key."""
        was_chance = self.player == CHANCE
        self.key = child_key(self.key, action)
        if was_chance:
            self.run += 1
        else:
            self.plies += 1
            self.run = 0
        if self.plies >= self.rules.depth:
            self.player = TERMINAL
        elif self.run < 2 and unit(mix64(self.key ^ 0x5A)) < self.rules.chance_prob:
            self.player = CHANCE
        else:
            self.player = int(mix64(self.key ^ 0x3C) & 1)

    def value(self) -> float:
        """A hashed value in (-1, 1): the return at leaves, the heuristic elsewhere."""
        return 2.0 * unit(mix64(self.key ^ 0x77)) - 1.0

    def action_to_string(self, player: int, action: int) -> str:
        """'a2' for actions, 'o1' for chance outcomes."""
        return f"{'o' if player == CHANCE else 'a'}{action}"

    def __str__(self) -> str:
        return f"node {self.key:016x} plies {self.plies} player {self.player}"


class ChanceTreeGame(CoreGame):
    """OpenSpiel game python_chance_tree."""

    game_type = _GAME_TYPE
    rules_class = ChanceTreeRules
    bounds = {**CHANCE_TREE_BOUNDS, "chance_prob": CHANCE_PROB_RANGE}


def chance_tree_heuristic(core: ChanceTreeCore, player: int) -> float:
    """The node's hashed value for player 0 (negated for player 1); exact at leaves."""
    v = core.value()
    return v if player == 0 else -v


def solve_chance_tree(core: ChanceTreeCore, player: int = 0) -> float:
    """Exact expectimax value of the node `core` for `player` (the whole subtree is visited)."""
    return expectimax_value(core, player)


def chance_tree_action_values(core: ChanceTreeCore, player: int = 0) -> dict[int, float]:
    """Exact expectimax value of every action at the decision node `core`, for `player`."""
    return action_values(core, lambda child: expectimax_value(child, player))


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=ChanceTreeGame,
        description="random trees with chance nodes and non-alternating turns (search tests)",
        chance="at any node with probability chance_prob, 1..outcomes outcomes",
        status="done (test bed)",
        heuristic=chance_tree_heuristic,
    )
)
