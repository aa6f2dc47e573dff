"""Fixed Pig policies: hold at n, and optimal play read from the exact solver."""

from __future__ import annotations

import pyspiel

from chancespiel.agents.bot import PolicyBot, require_game
from chancespiel.agents.registry import Param, register_agent
from chancespiel.games.core import Core
from chancespiel.games.pig_core import MAX_WINSCORE, ROLL, STOP, PigCore
from chancespiel.games.pig_solver import PigSolution, solve_pig

_PIG = ("python_pig", "pig")  # ours, and OpenSpiel's (read into our core: games/pig.py)


def _require_pig(game: pyspiel.Game, agent: str) -> None:
    """ValueError unless `game` is our Pig or a variant of OpenSpiel's that agents read into
    our core (two players, no piglet rule)."""
    require_game(game, agent, _PIG)
    if game.get_type().short_name == "pig":
        params = game.get_parameters()
        if params["players"] != 2 or params["piglet"]:
            raise ValueError(f"agent {agent} plays OpenSpiel's pig with 2 players, no piglet")


class HoldBot(PolicyBot):
    """Rolls until the turn total reaches `n` or stopping wins (Knizia's 'hold at 20')."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int | None, n: int):
        super().__init__(game, player, seed)
        self.n = n

    def choose(self, state: Core) -> int:
        """ROLL below the threshold, STOP at it or when stopping wins."""
        assert isinstance(state, PigCore)  # our Pig, or OpenSpiel's read into our core
        banked = state.scores[state.turn_player]
        if state.turn_total >= self.n or banked + state.turn_total >= state.rules.winscore:
            return STOP
        return ROLL


class PigOptimalBot(PolicyBot):
    """Plays the exact optimal policy of the game's Pig variant (solved once per process)."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int | None):
        super().__init__(game, player, seed)
        params = game.get_parameters()
        self.solution: PigSolution = solve_pig(
            dice=params.get("dice", 1),  # OpenSpiel's pig rolls one die
            winscore=params["winscore"],
            sides=params["diceoutcomes"],
        )

    def choose(self, state: Core) -> int:
        """The solver's optimal action."""
        assert isinstance(state, PigCore)  # our Pig, or OpenSpiel's read into our core
        mover = state.turn_player
        return self.solution.best_action(
            state.scores[mover], state.scores[1 - mover], state.turn_total
        )


@register_agent(
    "hold",
    "Pig: roll until the turn total reaches n or stopping wins",
    {"n": Param(20, "turn total at which to stop", high=MAX_WINSCORE, low=1)},
)
def _make_hold(game: pyspiel.Game, player: int, seed: int | None, n: int) -> HoldBot:
    _require_pig(game, "hold")
    if n < 1:
        raise ValueError(f"hold: n must be >= 1, got {n}")
    return HoldBot(game, player, seed, n)


@register_agent("pig_optimal", "Pig: exact optimal play from value iteration (any variant)")
def _make_pig_optimal(game: pyspiel.Game, player: int, seed: int | None) -> PigOptimalBot:
    _require_pig(game, "pig_optimal")
    return PigOptimalBot(game, player, seed)
