"""Baseline agents: uniform random play, flat Monte Carlo, and one-ply greedy search.

- `random`: a uniformly random legal action.
- `mc` (flat Monte Carlo): simulations are spread uniformly over the root actions (round robin,
  in a random order); each applies its action and values the result by the same rollout as
  `mcts` (`rollout_depth` random decision moves, then the heuristic; none = to the end). The
  move is the action with the best mean value. No tree: the baseline that shows what the
  tree of `mcts` adds.
- `greedy`: one ply with the heuristic. An action's value is the heuristic at the positions
  where the player's opponent (or the player again) next decides, averaged exactly over the
  chance nodes in between, so in Pig rolling is weighed against the risk of busting. Ties go
  to a random best action.
"""

from __future__ import annotations

import math
import random
import time

import pyspiel

from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.draws import draws_from, shuffle
from chancespiel.agents.mcts import (
    DEFAULT_TIME_MS,
    ROLLOUT_DEPTH,
    MCTSResult,
    budget_params,
    check_mcts_params,
    fresh_seed,
)
from chancespiel.agents.mcts_core import TO_THE_END, Node, rollout
from chancespiel.agents.protocol import search_state
from chancespiel.agents.registry import HEURISTIC, register_agent
from chancespiel.agents.result import Iteration, SearchResult
from chancespiel.agents.search_common import Limits, check_two_player_zero_sum
from chancespiel.agents.search_core import OutcomeTable
from chancespiel.games.core import CHANCE, Core, Heuristic
from chancespiel.games.registry import evaluation_for


class RandomBot(PolicyBot):
    """Plays a uniformly random legal action."""

    def choose(self, state: Core) -> int:
        """A uniformly random legal action."""
        return self.rng.choice(state.legal_actions())


@register_agent("random", "uniformly random legal actions (any game)")
def _make_random(game: pyspiel.Game, player: int, seed: int | None) -> RandomBot:
    return RandomBot(game, player, seed)


# Flat Monte Carlo --------------------------------------------------------------------------


def mc_search(
    state: Core,
    game: pyspiel.Game,
    *,
    rollout_depth: int | None = None,
    max_simulations: int | None = None,
    time_ms: float | None = None,
    seed: int = 0,
    evaluation: Heuristic | None = None,
) -> MCTSResult:
    """Flat Monte Carlo: rollouts spread uniformly over the root actions.

    Args:
      state: a search-protocol state at a decision node; not modified.
      game: the game, for its heuristic.
      rollout_depth: random decision moves before the heuristic (0: the heuristic right after
        the action; None or -1: random games to the end).
      max_simulations, time_ms: the budget (the first one spent ends the search).
      seed: seed of the action order and the rollouts.
      evaluation: h(state, player); default: the game's registered heuristic.

    Returns:
      The action with the best mean value for the player to move, with every action's mean
      and count (`depth` is 1, `nodes` the root and its children).

    Raises:
      ValueError: on a bad parameter, an unsupported game or a root that is not a decision.
    """
    limits = check_mcts_params(
        uct_c=0.0, rollout_depth=rollout_depth, max_simulations=max_simulations, time_ms=time_ms
    )
    check_two_player_zero_sum(game, "mc")
    player = state.current_player()
    if player < 0:
        raise ValueError(f"mc needs a decision node at the root, got player {player}")
    start = time.perf_counter()
    now = limits.timer
    deadline = limits.deadline()
    limit = math.inf if max_simulations is None else max_simulations
    rng = draws_from(random.Random(seed))
    evaluate = evaluation or evaluation_for(game)
    depth = TO_THE_END if rollout_depth is None else rollout_depth
    root = Node(player)
    actions = list(state.legal_actions())
    shuffle(actions, rng)
    root.actions = actions
    children: list[Node] = []  # statistics of each root action, made on its first visit
    cache: dict[int, OutcomeTable] = {}
    simulations = 0
    while True:
        index = simulations % len(actions)
        child_state = state.clone()
        child_state.apply(actions[index])
        if index == len(children):
            children.append(Node(child_state.current_player()))
        child = children[index]
        value = rollout(child_state, depth, rng, evaluate, cache)
        child.visits += 1
        child.total += value
        root.visits += 1
        root.total += value
        simulations += 1
        if simulations >= limit or (deadline is not None and now() >= deadline):
            break
    root.children = [*children]
    sign = 1.0 if player == 0 else -1.0
    values = {a: sign * c.mean() for a, c in zip(actions, children, strict=False)}
    best = max(values, key=values.__getitem__)
    return MCTSResult(
        value=values[best],
        action=best,
        action_values=values,
        visits={a: c.visits for a, c in zip(actions, children, strict=False)},
        simulations=simulations,
        nodes=1 + len(children),
        depth=1,
        time_s=time.perf_counter() - start,
        root=root,
    )


class MCBot(PolicyBot):
    """Flat Monte Carlo at every move (a single legal action is played without search)."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, **options):
        super().__init__(game, player, seed)
        self.options = options
        self.limits = Limits.of(options)

    def choose(self, state: Core) -> int:
        """The action with the best mean rollout value."""
        actions = state.legal_actions()
        if len(actions) == 1:
            self.last_result = None
            return actions[0]
        return self.analyse_state(state).action

    def analyse_state(self, state: Core) -> MCTSResult:
        """Runs the search on a search-protocol state."""
        self.last_result = mc_search(
            state, self.game, seed=self.rng.getrandbits(63), **self.options
        )
        return self.last_result

    def analyse(self, state: pyspiel.State) -> MCTSResult:
        """Runs the bot's search on `state` without playing."""
        return self.analyse_state(search_state(state))


@register_agent(
    "mc",
    "flat Monte Carlo: rollouts spread uniformly over the root actions, best mean",
    {"rollout_depth": ROLLOUT_DEPTH, **budget_params(DEFAULT_TIME_MS), "heuristic": HEURISTIC},
)
def _make_mc(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    rollout_depth: int | None,
    max_simulations: int | None,
    time_ms: float | None,
    heuristic: str,
) -> MCBot:
    if max_simulations is None and time_ms is None:
        time_ms = DEFAULT_TIME_MS
    check_mcts_params(
        uct_c=0.0, rollout_depth=rollout_depth, max_simulations=max_simulations, time_ms=time_ms
    )
    check_two_player_zero_sum(game, "mc")
    return MCBot(
        game,
        player,
        fresh_seed(seed),
        rollout_depth=rollout_depth,
        max_simulations=max_simulations,
        time_ms=time_ms,
        evaluation=evaluation_for(game, heuristic),
    )


# Greedy ------------------------------------------------------------------------------------


def expected_evaluation(state: Core, evaluate: Heuristic, player: int) -> float:
    """The heuristic for `player` at the next decision or terminal node, averaged over the
    chance nodes before it (exactly, by recursion over their outcomes)."""
    if state.current_player() != CHANCE:
        return evaluate(state, player)
    total = 0.0
    for outcome, prob in state.chance_outcomes():
        if prob > 0.0:
            child = state.clone()
            child.apply(outcome)
            total += prob * expected_evaluation(child, evaluate, player)
    return total


def greedy_values(state: Core, evaluate: Heuristic) -> dict[int, float]:
    """One-ply value of each legal action for the player to move (see the module docstring)."""
    player = state.current_player()
    values = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        values[action] = expected_evaluation(child, evaluate, player)
    return values


class GreedyBot(PolicyBot):
    """Plays the action with the best one-ply heuristic value; ties broken at random. Its
    search is that one ply: `last_result` holds every legal action's value (`greedy_values`),
    its nodes the positions evaluated, so `chancespiel analyse` shows them."""

    def __init__(
        self,
        game: pyspiel.Game,
        player: int,
        seed: int | None,
        evaluation: Heuristic | None = None,
    ):
        super().__init__(game, player, seed)
        self.evaluate = evaluation or evaluation_for(game)

    def choose(self, state: Core) -> int:
        """A best action by `greedy_values` (a forced move without search)."""
        actions = state.legal_actions()
        if len(actions) == 1:
            self.last_result = None
            return actions[0]
        return self.analyse_state(state).action

    def analyse_state(self, state: Core) -> SearchResult:
        """The one-ply search of a search-protocol state: every action's value, a best one."""
        start = time.perf_counter()
        evaluations = 0

        def counted(position: Core, player: int) -> float:
            nonlocal evaluations
            evaluations += 1
            return self.evaluate(position, player)

        values = greedy_values(state, counted)
        best = max(values.values())
        action = self.rng.choice([a for a, v in values.items() if v >= best - 1e-12])
        value = values[action]
        self.last_result = SearchResult(
            value=value,
            action=action,
            action_values=values,
            nodes=evaluations,
            depth=1,
            time_s=time.perf_counter() - start,
            evaluations=evaluations,
            iterations=[Iteration(1, value, action, evaluations)],
        )
        return self.last_result

    def analyse(self, state: pyspiel.State) -> SearchResult:
        """The one-ply search of `state`, a forced move included, without playing."""
        return self.analyse_state(search_state(state))


@register_agent(
    "greedy",
    "one ply with the heuristic, averaged over the chance nodes before the next decision",
    {"heuristic": HEURISTIC},
)
def _make_greedy(game: pyspiel.Game, player: int, seed: int | None, heuristic: str) -> GreedyBot:
    check_two_player_zero_sum(game, "greedy")
    return GreedyBot(game, player, seed, evaluation_for(game, heuristic))
