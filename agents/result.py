"""What a search reports: one result type for every searching agent.

`SearchResult` holds what every search has (the move, the root value and the root actions'
values for the player to move, the work done, the completed iterations); each family adds its
own fields in a subclass (StarResult, MCTSResult, BabResult) and names them in `details()`.
`analyse --json` prints `report()`, the match runner reads `nodes` and `evaluations` from a
bot's `last_result` (agents.bot.PolicyBot), so no reader probes for attributes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Iteration:
    """One completed search of iterative deepening: its depth, root value and best action, the
    nodes it visited, and whether it drew a sample anywhere (a sampled search; False for one
    that searched every outcome, as a classic search does)."""

    depth: int
    value: float
    action: int
    nodes: int
    sampled: bool = False


@dataclass(kw_only=True)
class SearchResult:
    """What a search found from one root, for the player to move there.

    value: the root's value (the chosen action's) in the game's utility range.
    action_values: the searched root actions' values (what each family's `details` says they
      are: exact, bounds, or means).
    nodes: nodes visited; depth: deepest completed iteration (MCTS: deepest decision ply of
      the tree); evaluations: heuristic calls; completed: False if the budget ran out before
      the search's own limit; iterations: every completed iterative-deepening search.
    """

    value: float
    action: int
    action_values: dict[int, float] = field(default_factory=dict)
    nodes: int = 0
    depth: int = 0
    time_s: float = 0.0
    evaluations: int = 0
    completed: bool = True
    iterations: list[Iteration] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        """This family's own fields, ready for JSON (none here)."""
        return {}

    def report(self) -> dict[str, Any]:
        """Every field a reader may use, ready for JSON (action keys as strings)."""
        return {
            "value": self.value,
            "action": self.action,
            "action_values": {str(a): v for a, v in self.action_values.items()},
            "nodes": self.nodes,
            "evaluations": self.evaluations,
            "depth": self.depth,
            "time_s": self.time_s,
            "completed": self.completed,
            "iterations": [dataclasses.asdict(it) for it in self.iterations],
            **self.details(),
        }
