"""OpenSpiel's own MCTS as agents, for comparison with ours on equal terms.

- `openspiel_mcts`: OpenSpiel's Python `MCTSBot` with `RandomRolloutEvaluator(n_rollouts=1)`,
  searching the `pyspiel.State` itself, with an optional wall-clock budget per move.
- `openspiel_mcts_cpp`: OpenSpiel's C++ `MCTSBot` through `mcts_search`. Its `step()` crashes
  the process on Python games (the GIL is released while a Python state is cloned), so this
  wrapper is the safe route to the C++ search on chancespiel's games.

Our own MCTS and DPW are in `chancespiel.agents.mcts`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as open_spiel_mcts

from chancespiel.agents.bot import NotSearchingError, PolicyBot
from chancespiel.agents.mcts import fresh_seed
from chancespiel.agents.registry import Param, register_agent
from chancespiel.agents.result import SearchResult
from chancespiel.agents.search_common import (
    MAX_CONSTANT,
    MAX_TREE_NODES,
    Limits,
    time_ms_param,
)
from chancespiel.games.contract import CheckedGame, is_plugin_game

MAX_MEMORY_MB = 65_536  # the C++ tree's memory limit: 64 GiB


class _TimedOpenSpielMCTS(open_spiel_mcts.MCTSBot):
    """OpenSpiel's Python MCTSBot with an optional wall-clock limit per search.

    OpenSpiel's search loop ends early once the root has an outcome (a proven value); after the
    deadline this subclass marks the root with one, so the simulation under way completes and
    the loop stops. The mark is removed before the root is returned.
    """

    def __init__(self, *args: Any, time_ms: float | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.time_ms = time_ms
        self._deadline: float | None = None

    def mcts_search(self, state: pyspiel.State) -> Any:
        """OpenSpiel's search, stopped at the deadline if there is one."""
        if self.time_ms is not None:
            self._deadline = time.perf_counter() + self.time_ms / 1000.0
        try:
            root = super().mcts_search(state)
        finally:
            self._deadline = None
        if root.outcome is _OUT_OF_TIME:
            root.outcome = None
        return root

    def _apply_tree_policy(self, root: Any, state: pyspiel.State) -> Any:
        result = super()._apply_tree_policy(root, state)
        # OpenSpiel expands the root in the second simulation; stopping before that would
        # leave best_child() nothing to choose from, so every search runs at least two.
        expanded = bool(root.children)
        if expanded and self._deadline is not None and time.perf_counter() >= self._deadline:
            root.outcome = _OUT_OF_TIME
        return result


_OUT_OF_TIME = [0.0, 0.0]  # the sentinel "outcome" that ends OpenSpiel's loop on time


class _OpenSpielBot(PolicyBot):
    """A bot playing the `best_child()` of an OpenSpiel MCTS root; subclasses search."""

    last_root: Any = None  # the root of the last search, for inspection

    def __init__(self, game: pyspiel.Game, player: int, seed: int | None):
        super().__init__(game, player, seed)
        # OpenSpiel's bots search pyspiel states directly: a plugin's game is checked on the
        # way (ours and OpenSpiel's own are searched as they are, at full speed)
        self.searched = CheckedGame(game) if is_plugin_game(game) else game

    def search(self, state: pyspiel.State) -> Any:
        """The root of a search from `state`, with at least one child."""
        raise NotImplementedError

    def analyse(self, state: pyspiel.State) -> SearchResult:
        """Refused: OpenSpiel's search reports no values or nodes here."""
        raise NotSearchingError("OpenSpiel's MCTS does not report its search here")

    def step(self, state: pyspiel.State) -> int:
        """OpenSpiel's MCTS move in `state` (which must be the bot's turn); a single legal
        action is played at once, without search. A plugin's game is searched through its
        contract (games.contract.CheckedGame), as our searches check it."""
        self.check_turn(state)
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        if isinstance(self.searched, CheckedGame):
            state = self.searched.checked(state)
        self.last_root = root = self.search(state)
        return root.best_child().action


class OpenSpielMCTSBot(_OpenSpielBot):
    """OpenSpiel's Python `MCTSBot` with `RandomRolloutEvaluator(n_rollouts=1)`.

    It searches the pyspiel.State itself (not our search protocol), as OpenSpiel users would.
    The move is OpenSpiel's `best_child()`: the most visited child, except that a child with a
    proven outcome (a terminal child; all children when `solve`) is ranked by it first. A
    position with a single legal action is played at once, without search.
    """

    def __init__(
        self,
        game: pyspiel.Game,
        player: int,
        seed: int,
        uct_c: float,
        max_simulations: int | None,
        time_ms: float | None,
        solve: bool,
    ):
        super().__init__(game, player, seed)
        self.limits = Limits(max_simulations=max_simulations, time_ms=time_ms)
        rollout_seed, search_seed = (self.rng.getrandbits(32) for _ in range(2))
        evaluator = open_spiel_mcts.RandomRolloutEvaluator(
            n_rollouts=1, random_state=np.random.RandomState(rollout_seed)
        )
        self.bot = _TimedOpenSpielMCTS(
            self.searched,
            uct_c,
            max_simulations if max_simulations is not None else _UNLIMITED,
            evaluator,
            solve=solve,
            random_state=np.random.RandomState(search_seed),
            time_ms=time_ms,
        )

    def search(self, state: pyspiel.State) -> Any:
        """OpenSpiel's search from `state`: the root, expanded."""
        return self.bot.mcts_search(state)


class OpenSpielCppMCTSBot(_OpenSpielBot):
    """OpenSpiel's C++ `MCTSBot` with `RandomRolloutEvaluator(1, seed)`, through `mcts_search`.

    The C++ `step()` crashes on Python games (docs/agents.md), so the bot calls `mcts_search(state)`
    and plays the returned root's `best_child()` (OpenSpiel's own choice: most visited, proven
    outcomes first). A single legal action is played at once, without search.
    """

    def __init__(
        self,
        game: pyspiel.Game,
        player: int,
        seed: int,
        uct_c: float,
        max_simulations: int | None,
        time_ms: float | None,
        max_memory_mb: int,
        solve: bool,
    ):
        super().__init__(game, player, seed)
        self.limits = Limits(max_simulations=max_simulations, time_ms=time_ms)
        rollout_seed, search_seed = (self.rng.getrandbits(31) for _ in range(2))
        self.evaluator = pyspiel.RandomRolloutEvaluator(1, rollout_seed)

        def cpp_bot(simulations: int, seconds: float) -> pyspiel.MCTSBot:
            return pyspiel.MCTSBot(
                self.searched,
                self.evaluator,
                uct_c,
                simulations,
                max_memory_mb,
                solve,
                search_seed,
                False,  # verbose
                pyspiel.ChildSelectionPolicy.UCT,
                seconds,  # max_wall_clock_time; -1: none
            )

        try:
            self.bot = cpp_bot(
                max_simulations if max_simulations is not None else _UNLIMITED,
                -1.0 if time_ms is None else time_ms / 1000.0,
            )
            # When the clock stops the C++ search before its second simulation the root has
            # no children; this searches two simulations instead, so a move is always found.
            self.fallback = cpp_bot(_MIN_SIMULATIONS, -1.0)
        except pyspiel.SpielError as e:
            raise ValueError(f"openspiel_mcts_cpp: {e}") from None

    def search(self, state: pyspiel.State) -> Any:
        """OpenSpiel's C++ search from `state`: the root, expanded."""
        root = self.bot.mcts_search(state)
        return root if root.best_child() is not None else self.fallback.mcts_search(state)


_MIN_SIMULATIONS = 2  # OpenSpiel's MCTS expands the root in its second simulation
_UNLIMITED = 2**31 - 1  # simulations when only time_ms limits OpenSpiel's search
OPENSPIEL_UCT_C = 2.0  # OpenSpiel's default (examples/mcts.py)
OPENSPIEL_MAX_SIMULATIONS = 1000  # OpenSpiel's default (examples/mcts.py)


def _openspiel_budget(
    max_simulations: int | None, time_ms: float | None, uct_c: float
) -> int | None:
    """Checks OpenSpiel bot parameters; max_simulations defaults to 1000 without a budget."""
    if not uct_c >= 0.0:
        raise ValueError(f"uct_c must be >= 0, got {uct_c}")
    if max_simulations is not None and max_simulations < 1:
        raise ValueError(f"max_simulations must be >= 1, got {max_simulations}")
    if time_ms is not None and not time_ms > 0:
        raise ValueError(f"time_ms must be > 0, got {time_ms}")
    if max_simulations is None and time_ms is None:
        return OPENSPIEL_MAX_SIMULATIONS
    return max_simulations


def _openspiel_params() -> dict[str, Param]:
    return {
        "uct_c": Param(
            OPENSPIEL_UCT_C,
            "UCT exploration constant (OpenSpiel's default 2)",
            high=MAX_CONSTANT,
            low=0.0,
        ),
        "max_simulations": Param(
            None,
            f"simulations per move (default {OPENSPIEL_MAX_SIMULATIONS} if no budget)",
            int,
            high=MAX_TREE_NODES,
            low=1,
        ),
        "time_ms": time_ms_param(
            "wall-clock budget per move in ms (ours: checked after each simulation)"
        ),
        "solve": Param(False, "back up proven values (MCTS-Solver)"),
    }


@register_agent(
    "openspiel_mcts",
    "OpenSpiel's Python MCTSBot with RandomRolloutEvaluator(n_rollouts=1) (any sequential game)",
    _openspiel_params(),
)
def _make_openspiel_mcts(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    uct_c: float,
    max_simulations: int | None,
    time_ms: float | None,
    solve: bool,
) -> OpenSpielMCTSBot:
    max_simulations = _openspiel_budget(max_simulations, time_ms, uct_c)
    return OpenSpielMCTSBot(game, player, fresh_seed(seed), uct_c, max_simulations, time_ms, solve)


@register_agent(
    "openspiel_mcts_cpp",
    "OpenSpiel's C++ MCTSBot with RandomRolloutEvaluator(1), via mcts_search (any sequential "
    "game, Python games included)",
    {
        **_openspiel_params(),
        "max_memory_mb": Param(
            1000, "memory limit of the C++ search tree", high=MAX_MEMORY_MB, low=1
        ),
    },
)
def _make_openspiel_mcts_cpp(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    uct_c: float,
    max_simulations: int | None,
    time_ms: float | None,
    solve: bool,
    max_memory_mb: int,
) -> OpenSpielCppMCTSBot:
    max_simulations = _openspiel_budget(max_simulations, time_ms, uct_c)
    if max_memory_mb < 1:
        raise ValueError(f"max_memory_mb must be >= 1, got {max_memory_mb}")
    return OpenSpielCppMCTSBot(
        game, player, fresh_seed(seed), uct_c, max_simulations, time_ms, max_memory_mb, solve
    )
