"""Binary game trees with implanted winning strategies at given critical depths.

After section 6 of Ramanujan, Sabharwal and Selman ("Understanding Sampling Style
Adversarial Search Methods", 2010). A complete binary tree of `depth` plies; player 0 (Max) moves at
even plies and player 1 (Min) at odd plies. Max has one or two critical depths,
`max_critical1` < `max_critical2` (even; -1 for none), and Min none, one or two,
`min_critical1` < `min_critical2` (odd). At every Max node at a critical depth of Max one of
the two actions is *correct* (which one is a hash of the node's path and the seed); at every
Min node at a critical depth of Min one action is correct for Min.

Without Min's depths (the paper's Figures 3 and 5): a leaf is +1 if Max chose correctly at every
critical node on its path; otherwise its value is drawn uniformly from {-1, 0, +1} (hashed).
Max therefore wins (value +1) by playing correctly at the critical depths, whatever Min does.

With Min's depths (the paper's Figure 4, a trap for Max): `max_critical1` must be 0. If Max's
root move is correct (subtree A), a leaf is +1 if Max was also correct at its other critical
depths and -1 otherwise. If Max's root move is wrong (subtree B), a leaf is -1 if Min was
correct at every one of its critical depths and +1 otherwise. These are the paper's biased
leaves: with one more Max depth and two Min depths, A's leaves average 0 and B's 0.5, so B
looks better to sampling although Min refutes it.

Example: `python_implanted_tree(depth=20,max_critical1=0,max_critical2=10,min_critical1=3,
min_critical2=9)`. Critical depths lie below `depth`. The root value is +1 in both modes;
`solve_implanted_tree` computes exact values (instantly on strategy paths, by alpha-beta in the
random subtrees off them). No heuristic is registered: agents see 0 at non-terminal leaves.
"""

from __future__ import annotations

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

_ROOT_SALT = 0x494D504C  # "IMPL": trees differ from the other synthetic games at the same seed
_CORRECT_SALT = 0xC0EC7
_LEAF_SALT = 0x1EAF

_DEFAULTS = {
    "seed": 0,
    "depth": 12,
    "max_critical1": 2,
    "max_critical2": 6,
    "min_critical1": -1,
    "min_critical2": -1,
}

_DEFAULTS_NAMES = ("max_critical1", "max_critical2", "min_critical1", "min_critical2")

_GAME_TYPE = chance_game_type(
    "python_implanted_tree",
    "Python binary tree with implanted winning strategies",
    _DEFAULTS,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
)


def critical_depths(name: str, depths: Sequence[int], depth: int, parity: int) -> tuple[int, ...]:
    """The critical depths given as (first, second), -1 meaning none, checked: increasing,
    below `depth`, of the given parity (0: even, Max's plies; 1: odd, Min's)."""
    kind = "even (Max moves at even plies)" if parity == 0 else "odd (Min moves at odd plies)"
    first, second = depths
    if first == -1 and second != -1:
        raise ValueError(f"parameter {name}2 needs {name}1")
    chosen = tuple(d for d in depths if d != -1)
    for i, d in enumerate(chosen, start=1):
        if not 0 <= d < depth:
            raise ValueError(f"parameter {name}{i} must be -1 (none) or in [0, {depth}), got {d}")
        if d % 2 != parity:
            raise ValueError(f"parameter {name}{i} must be {kind}, got {d}")
    if len(chosen) == 2 and chosen[1] <= chosen[0]:
        raise ValueError(f"parameter {name}2 must be deeper than {name}1, got {chosen}")
    return chosen


IMPLANTED_BOUNDS: ParamBounds = {
    "seed": (0, MAX_INT_PARAM),
    "depth": (1, 40),
    # -1 (none), or a ply above the leaves
    **dict.fromkeys(_DEFAULTS_NAMES, (-1, 39)),
}


class ImplantedTreeRules(KeyedTreeRules):
    """Parameters of one tree and the critical depths as a per-ply table."""

    def __init__(
        self,
        seed: int = 0,
        depth: int = 12,
        max_critical1: int = 2,
        max_critical2: int = 6,
        min_critical1: int = -1,
        min_critical2: int = -1,
    ):
        self.seed = check_param(IMPLANTED_BOUNDS, "seed", seed)
        self.depth = check_param(IMPLANTED_BOUNDS, "depth", depth)
        given = (max_critical1, max_critical2, min_critical1, min_critical2)
        for name, value in zip(_DEFAULTS_NAMES, given, strict=True):
            check_param(IMPLANTED_BOUNDS, name, value)
        self.max_depths = critical_depths("max_critical", given[:2], self.depth, 0)
        self.min_depths = critical_depths("min_critical", given[2:], self.depth, 1)
        if not self.max_depths:
            raise ValueError("parameter max_critical1 must name a critical depth of Max")
        self.trap = bool(self.min_depths)
        if self.trap and self.max_depths[0] != 0:
            raise ValueError("with min_critical1 (the trap tree), max_critical1 must be 0")
        self.critical = tuple(
            d in self.max_depths or d in self.min_depths for d in range(self.depth)
        )
        self.root_key = mix64(self.seed ^ _ROOT_SALT)

    def params(self) -> dict[str, Any]:
        """The game parameters."""
        return {
            "seed": self.seed,
            "depth": self.depth,
            "max_critical1": self.max_depths[0],
            "max_critical2": self.max_depths[1] if len(self.max_depths) > 1 else -1,
            "min_critical1": self.min_depths[0] if self.min_depths else -1,
            "min_critical2": self.min_depths[1] if len(self.min_depths) > 1 else -1,
        }

    def initial_core(self) -> ImplantedTreeCore:
        """The root: Max to move."""
        return ImplantedTreeCore(self)

    def game_info(self) -> pyspiel.GameInfo:
        """Two actions, `depth` moves, no chance."""
        return pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.depth,
        )


def correct_action(key: int) -> int:
    """The correct action (0 or 1) at a critical node with path key `key`."""
    return mix64(key ^ _CORRECT_SALT) & 1


class ImplantedTreeCore(KeyedTreeCore):
    """A node: path key, plies, mover, and whether each side has played correctly so far."""

    __slots__ = ("max_ok", "min_ok", "root_ok")
    rules: ImplantedTreeRules

    def __init__(self, rules: ImplantedTreeRules):
        super().__init__(rules)
        self.max_ok = True  # Max correct at every critical node so far
        self.min_ok = True  # Min correct at every critical node so far
        self.root_ok = True  # Max's root move correct (or not made yet, or not critical)

    def clone(self) -> ImplantedTreeCore:
        """A copy."""
        c = super().clone()
        c.max_ok, c.min_ok, c.root_ok = self.max_ok, self.min_ok, self.root_ok
        return c

    def legal_actions(self) -> Sequence[int]:
        """Both actions (none at a leaf)."""
        return (0, 1) if self.player >= 0 else ()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """None: the tree has no chance nodes."""
        return []

    def is_critical(self) -> bool:
        """True if the player to move here has a correct action."""
        return self.player >= 0 and self.rules.critical[self.plies]

    def apply(self, action: int) -> None:
        """Plays `action`, noting a wrong choice at a critical node."""
        rules = self.rules
        if rules.critical[self.plies] and action != correct_action(self.key):
            if self.player == 0:
                self.max_ok = False
                if self.plies == 0:
                    self.root_ok = False
            else:
                self.min_ok = False
        self.key = child_key(self.key, action)
        self.plies += 1
        self.player = TERMINAL if self.plies >= rules.depth else self.plies & 1

    def value(self) -> float:
        """The leaf value for player 0 (see the module docstring)."""
        if self.max_ok:
            return 1.0
        if not self.rules.trap:
            return float(mix64(self.key ^ _LEAF_SALT) % 3 - 1)
        if self.root_ok:
            return -1.0  # subtree A, Max went wrong at a later critical depth
        return -1.0 if self.min_ok else 1.0  # subtree B: Min's strategy, or Max wins

    def action_to_string(self, player: int, action: int) -> str:
        """'L' or 'R', with '*' for the correct action at a critical node."""
        name = "LR"[action]
        if player == self.player and self.is_critical() and action == correct_action(self.key):
            return name + "*"
        return name

    def __str__(self) -> str:
        return (
            f"node {self.key:016x} plies {self.plies} player {self.player} "
            f"max_ok {int(self.max_ok)} min_ok {int(self.min_ok)} root_ok {int(self.root_ok)}"
        )


class ImplantedTreeGame(CoreGame):
    """OpenSpiel game python_implanted_tree."""

    game_type = _GAME_TYPE
    rules_class = ImplantedTreeRules
    bounds = IMPLANTED_BOUNDS


def _known_value(core: ImplantedTreeCore) -> float | None:
    """The value for player 0 where the strategies decide it; None in random subtrees."""
    if core.max_ok:
        return 1.0  # Max keeps playing correctly: every leaf below is +1
    if not core.rules.trap:
        return None  # a random subtree: search it
    if core.root_ok:
        return -1.0  # subtree A off Max's strategy: every leaf is -1
    return -1.0 if core.min_ok else 1.0  # subtree B: Min can keep to its strategy, or not


def _ordering(core: ImplantedTreeCore, actions: Sequence[int]) -> Sequence[int]:
    """The correct action first at critical nodes."""
    if core.is_critical() and correct_action(core.key) == 1:
        return (1, 0)
    return actions


def solve_implanted_tree(core: ImplantedTreeCore, player: int = 0) -> float:
    """Exact minimax value of the node `core` for `player`."""
    return minimax_value(core, player, ordering=_ordering, known=_known_value)


def implanted_action_values(core: ImplantedTreeCore, player: int = 0) -> dict[int, float]:
    """Exact minimax value of both actions at the decision node `core`, for `player`."""
    return action_values(core, lambda child: solve_implanted_tree(child, player))


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=ImplantedTreeGame,
        description="binary trees with implanted winning strategies at critical depths "
        "(UCT convergence studies)",
        chance="none (deterministic)",
        status="done (test bed); exact solver",
    )
)
