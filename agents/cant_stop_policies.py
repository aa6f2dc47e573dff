"""Fixed Can't Stop policies: Michael Keller's Rule of 28 ("Can't Stop? Try the Rule of 28").

Stopping: each turn keeps a progress count. Every cell a runner advances in column c scores
|7 - c| + 1 (6 for columns 2 and 12 down to 1 for 7), and the first cell of a newly marked
column counts double. Once all three runners are out the count gets +2 if their columns are
all odd, -2 if all even, +4 if all are <= 7 and +4 if all are >= 7. The player keeps rolling
while a runner is left and an open column without a runner remains, and otherwise stops as
soon as the count reaches 28. Stopping is taken whenever it wins (the game then offers nothing
else).

Choosing: the move maximising the sum over the cells it advances of the choice weight
7 - |7 - c| (1 for columns 2 and 12 up to 6 for 7), minus 6 for each new runner it places;
ties go to the lowest action id.

Other die sizes scale the weights around the middle column s + 1 (s = sides); the constants 6
and 28 are the real game's and are not tuned for small variants (Glenn and Aloi tune them).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyspiel

from chancespiel.agents.bot import PolicyBot, require_game
from chancespiel.agents.registry import Param, register_agent
from chancespiel.games.cant_stop_core import (
    CHOOSING,
    DECIDING,
    NUM_RUNNERS,
    PASS,
    ROLL,
    STOP,
    CantStopCore,
)
from chancespiel.games.core import Core

_CANT_STOP = ("python_cant_stop",)
MAX_THRESHOLD = 10_000  # far above any progress count a game reaches
NEW_RUNNER_COST = 6


def rule_of_28_progress(advances: Mapping[int, int], sides: int = 6) -> int:
    """Keller's progress count of a turn from {column: cells advanced this turn}.

    Every column in `advances` was marked this turn (runners only live for one turn), so its
    first cell counts double. With all three runners out the parity and low/high adjustments
    apply. Example: columns 2 and 5 newly marked give 12 + 6 = 18; then advancing 2 and
    marking 12 gives 18 + 6 + 12 = 36.
    """
    middle = sides + 1
    total = 0
    for column, cells in advances.items():
        if cells < 1:
            raise ValueError(f"column {column}: a runner advances at least one cell")
        total += (abs(middle - column) + 1) * (cells + 1)
    if len(advances) == NUM_RUNNERS:
        columns = list(advances)
        if all(c % 2 for c in columns):
            total += 2
        elif not any(c % 2 for c in columns):
            total -= 2
        if all(c <= middle for c in columns):
            total += 4
        if all(c >= middle for c in columns):
            total += 4
    return total


def turn_advances(core: CantStopCore) -> dict[int, int]:
    """{column: cells advanced this turn} for the turn player's runners in `core`."""
    base = core.squares[core.player]
    return {i + 2: h - base[i] for i, h in enumerate(core.runners) if h}


def choice_value(core: CantStopCore, action: int) -> int:
    """Rule-of-28 value of the move `action` while choosing: weighted cells - 6 per new runner."""
    rules = core.rules
    middle = rules.sides + 1
    value = 0
    new: set[int] = set()
    runners = core.runners
    for i in rules.action_columns[action]:
        value += rules.sides - abs(middle - (i + 2))
        if not runners[i]:
            new.add(i)
    return value - NEW_RUNNER_COST * len(new)


def wants_to_roll(core: CantStopCore, threshold: int) -> bool:
    """True if the Rule of 28 rolls again in `core` (a roll-or-stop decision)."""
    if core.legal_actions() == (STOP,):
        return False  # stopping wins
    if core.nrun < NUM_RUNNERS:
        # Keep rolling while another runner could still be placed.
        runners = core.runners
        for i in range(core.rules.num_columns):
            if not runners[i] and not core.blocked >> i & 1:
                return True
    return rule_of_28_progress(turn_advances(core), core.rules.sides) < threshold


class RuleOf28Bot(PolicyBot):
    """Keller's Rule of 28 for Can't Stop (deterministic; the seed is unused)."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int | None, threshold: int):
        super().__init__(game, player, seed)
        self.threshold = threshold

    def choose(self, state: Core) -> int:
        """The rule's move, roll/stop decision, or the forced pass."""
        assert isinstance(state, CantStopCore)
        if state.phase == CHOOSING:
            return max(state.legal_actions(), key=lambda a: (choice_value(state, a), -a))
        if state.phase == DECIDING:
            return ROLL if wants_to_roll(state, self.threshold) else STOP
        return PASS


@register_agent(
    "rule_of_28",
    "Can't Stop: Keller's Rule of 28 (progress count, stop at the threshold)",
    {"threshold": Param(28, "progress count at which to stop", high=MAX_THRESHOLD, low=1)},
)
def _make_rule_of_28(
    game: pyspiel.Game, player: int, seed: int | None, threshold: int
) -> RuleOf28Bot:
    require_game(game, "rule_of_28", _CANT_STOP)
    if threshold < 1:
        raise ValueError(f"rule_of_28: threshold must be >= 1, got {threshold}")
    return RuleOf28Bot(game, player, seed, threshold)
