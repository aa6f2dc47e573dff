"""Monte Carlo Tree Search with chance nodes: UCT and double progressive widening (DPW).

The search itself is `agents.mcts_core` (compiled with the engine): tree data (`Node`), the
steps of a simulation (select, evaluate the leaf by its return or a rollout, back up) and the
loop that runs them (`run_simulations`), pure selection rules (`uct_select`, `sample_index`,
`widening_limit`, `most_visited`), and a `TreePolicy` that says which rules the steps apply.
UCT and DPW are two policies over the same steps, not two copies of them. This module is the
search function, its checks and the bots.

- UCT (Kocsis, Szepesvari and Willemson, "Improved Monte-Carlo Search", 2006): at a decision
  node every action is tried once, in a random order, before any is tried again; then the child
  maximising `sign * Q + uct_c * sqrt(ln N / n)` is chosen, where N is the node's visits, n and
  Q the child's visits and mean value, and `sign` is +1 at player 0's nodes and -1 at player 1's
  (the Min player minimises Q - bonus, which is the same thing).
- Chance nodes are kept in the tree; each visit samples an outcome by its probability (the
  MCMS paper's setup, section 4.2).
- DPW (MCMS paper, section 2.2): on its v-th visit (this one included) a node admits
  k = ceil(pw_c * v^pw_alpha) children. At a decision node the admitted actions are the first
  k in the game's move ordering (the `ordering` of its GameSpec; the game's own order
  of its legal actions when it has none, a static order as in the paper's section 4.2);
  unvisited admitted actions are tried first, then UCT chooses among the admitted ones. At a
  chance node, while fewer than k outcomes have been sampled an outcome is
  drawn from the full distribution (a new one joins the set, a known one is followed);
  otherwise an existing child is drawn with probability proportional to its own, i.e. from
  the distribution restricted to the sampled set.
- Expansion adds one node per simulation. A new leaf is valued by `rollout_depth` uniformly
  random decision moves (chance by probability; chance nodes do not count) and then the
  heuristic (games.registry.evaluation_for): 0 is UCT-H, the heuristic at the leaf (Ramanujan,
  Sabharwal and Selman, "Understanding Sampling Style Adversarial Search Methods", 2010);
  None (or -1) plays random games to the end, as plain UCT does.
- Values: every node stores the sum of the simulation values through it for player 0
  (`Node.total`), so a node's mean is player 0's expected return; selection flips the sign at
  player 1's nodes. Results are reported for the player to move at the root.
- The final move is the most visited root child (ties: the higher mean value).

Defaults. `uct_c = 1.0`. With values in [-1, 1] (a range of 2), UCB1's bound-derived constant
(sqrt(2) for rewards in [0, 1], the UCT paper's c_{t,s} = sqrt(2 ln t / s)) becomes
2 * sqrt(2) ~ 2.8; OpenSpiel's default is 2; the MCMS paper's tuned constants, C1 / 100 on our
scale, are 0.5 (Pig, Can't Stop, Ra) and 2.0 (EWN). Our tuning (lab/results/matches/): 1.0
beat 0.5 on python_einstein_wurfelt_nicht and was level with 2.0 there and with 0.5 and 2.0
on python_pig, within the 95% intervals. `pw_c = 4`, `pw_alpha = 0.25`: the paper's tuned
(C2, alpha) for EWN, between its Pig (5, 0.2) and Can't Stop (25, 0.3) values.
`rollout_depth = None` (random games to the end): plain UCT, and the only sensible choice on
games without a heuristic; the paper's tuned d_r are 0 (Pig, Ra), 10 (Can't Stop) and
100 (EWN, in effect to the end).
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.draws import draws_from
from chancespiel.agents.mcts_core import (
    DEFAULT_PW_ALPHA,
    DEFAULT_PW_C,
    DEFAULT_UCT_C,
    TO_THE_END,
    Node,
    TreePolicy,
    most_visited,
    run_simulations,
)
from chancespiel.agents.protocol import search_state
from chancespiel.agents.registry import HEURISTIC, ORDERING, Param, register_agent
from chancespiel.agents.result import SearchResult
from chancespiel.agents.search_common import (
    CLOCK,
    MAX_CONSTANT,
    MAX_TREE_NODES,
    Limits,
    check_two_player_zero_sum,
    time_ms_param,
)
from chancespiel.games.contract import MAX_GAME_LENGTH
from chancespiel.games.core import Core, Heuristic, Ordering
from chancespiel.games.registry import evaluation_for, move_ordering_for

DEFAULT_TIME_MS = 200.0  # the MCMS paper's time per move, when a bot is given no budget


# The search function -----------------------------------------------------------------------


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pauses Python's cyclic garbage collector, as `timeit` does, and restores it after.

    A search tree has no cycles (nodes hold their children and states, never a parent) and is
    freed by reference counts, but every node, list and state is a container the collector
    tracks: its passes over a growing tree took 10-40% of a search's time (lab/results/speed/).
    A tree dropped before the collector resumes leaves nothing for it to walk; one that is
    kept is walked once at the collector's next pass (10% of a 200 ms move in Can't Stop and
    Ra).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@dataclass(kw_only=True)
class MCTSResult(SearchResult):
    """What a search found, for the player to move at the root (agents.result.SearchResult's
    fields, and these).

    `action_values` and `visits` cover the root actions that were tried; `value` is the mean
    value of the chosen (most visited) action. `nodes` counts tree nodes and `depth` the
    deepest decision ply a simulation reached in the tree; `evaluations` counts heuristic
    calls (by rollouts that stop before the end).
    """

    visits: dict[int, int]
    simulations: int
    root: Node | None = field(repr=False)  # the search tree; None unless kept (`keep_tree`)

    def details(self) -> dict[str, Any]:
        """The simulations run and each root action's visits."""
        return {
            "simulations": self.simulations,
            "visits": {str(a): n for a, n in self.visits.items()},
        }


def check_mcts_params(
    *,
    uct_c: float,
    rollout_depth: int | None,
    max_simulations: int | None,
    time_ms: float | None,
    pw_c: float | None = None,
    pw_alpha: float = DEFAULT_PW_ALPHA,
    max_nodes: int | None = None,
    clock: str = "wall",
) -> Limits:
    """The search's limits, after checking every parameter of mcts / dpw / mc.

    Raises:
      ValueError: naming the first bad parameter, or if no budget is given.
    """
    if not uct_c >= 0.0:  # also rejects NaN
        raise ValueError(f"uct_c must be >= 0, got {uct_c}")
    if rollout_depth is not None and rollout_depth < TO_THE_END:
        raise ValueError(
            f"rollout_depth must be >= 0, or -1 / none for random games to the end, "
            f"got {rollout_depth}"
        )
    limits = Limits(
        max_simulations=max_simulations, max_nodes=max_nodes, time_ms=time_ms, clock=clock
    )
    if limits.unlimited:
        raise ValueError("give a budget: max_simulations, time_ms, max_nodes or several")
    if max_nodes is not None and max_nodes > MAX_TREE_NODES:  # a tree in memory
        raise ValueError(f"max_nodes must be at most {MAX_TREE_NODES}, got {max_nodes}")
    if pw_c is not None and not pw_c > 0:
        raise ValueError(f"pw_c must be > 0, got {pw_c}")
    if not 0.0 < pw_alpha <= 1.0:
        raise ValueError(f"pw_alpha must be in (0, 1], got {pw_alpha}")
    return limits


def mcts_search(
    state: Core,
    game: pyspiel.Game,
    *,
    uct_c: float = DEFAULT_UCT_C,
    rollout_depth: int | None = None,
    max_simulations: int | None = None,
    time_ms: float | None = None,
    pw_c: float | None = None,
    pw_alpha: float = DEFAULT_PW_ALPHA,
    seed: int = 0,
    evaluation: Heuristic | None = None,
    ordering: Ordering | None = None,
    max_nodes: int | None = None,
    clock: str = "wall",
    keep_tree: bool = True,
) -> MCTSResult:
    """UCT, or DPW when `pw_c` is given, from a decision node.

    Args:
      state: a search-protocol state (see agents.protocol.search_state); not modified.
      game: the game, for its heuristic and move ordering.
      uct_c: exploration constant (values in [-1, 1]; default 1.0, see the module docstring).
      rollout_depth: random decision moves before the heuristic values a leaf; 0 values new
        leaves by the heuristic (UCT-H); None or -1 plays random games to the end.
      max_simulations: simulations to run.
      time_ms: wall-clock budget; with several budgets the first one spent ends the search.
      pw_c: DPW's C (None: plain UCT, every action and outcome admitted).
      pw_alpha: DPW's alpha, in (0, 1].
      seed: seed of the search's random generator (action order, chance samples, rollouts).
      evaluation: h(state, player) in [-1, 1]; default: the game's registered heuristic (0 at
        non-terminal states if it has none).
      ordering: DPW's action order; default: the game's registered move ordering, else random.
      max_nodes: tree nodes (one per simulation that reaches a new node), for comparisons at
        equal work.
      clock: what time_ms measures, "wall" or "cpu" (search_common.CLOCKS).
      keep_tree: return the tree in `root`; False frees it before the garbage collector
        resumes (see `collector_paused`), which is what a bot playing a move wants.

    Returns:
      The most visited root action, its value and the root statistics.

    Raises:
      ValueError: on a bad parameter, an unsupported game or a root that is not a decision.
    """
    limits = check_mcts_params(
        uct_c=uct_c,
        rollout_depth=rollout_depth,
        max_simulations=max_simulations,
        time_ms=time_ms,
        pw_c=pw_c,
        pw_alpha=pw_alpha,
        max_nodes=max_nodes,
        clock=clock,
    )
    check_two_player_zero_sum(game, "mcts" if pw_c is None else "dpw")
    player = state.current_player()
    if player < 0:
        raise ValueError(f"MCTS needs a decision node at the root, got player {player}")
    start = time.perf_counter()
    deadline = limits.deadline()
    root = Node(player)
    policy = TreePolicy(uct_c, pw_c, pw_alpha)
    with collector_paused():
        counts = run_simulations(
            state,
            root,
            policy,
            rollout_depth=TO_THE_END if rollout_depth is None else rollout_depth,
            evaluate=evaluation or evaluation_for(game),
            ordering=ordering if ordering is not None else move_ordering_for(game),
            rng=draws_from(random.Random(seed)),
            max_simulations=max_simulations,
            deadline=deadline,
            max_nodes=max_nodes,
            clock=limits.timer,
        )
        result = _result(
            root, counts.simulations, counts.depth, time.perf_counter() - start, counts.nodes
        )
        result.evaluations = counts.evaluations
        if not keep_tree:  # freed here, while the collector is paused
            result.root = None
            del root
    return result


def _result(root: Node, simulations: int, depth: int, time_s: float, nodes: int) -> MCTSResult:
    """The result of a search from `root` (a tree of `nodes` nodes, counted by the loop
    instead of walking the tree): most visited action and root statistics."""
    sign = 1.0 if root.player == 0 else -1.0
    children = root.children or []
    actions = root.actions or []
    tried = [child for child in children if child is not None]  # all, at a decision node
    best = most_visited(tried, sign)
    return MCTSResult(
        value=sign * tried[best].mean(),
        action=actions[best],
        action_values={a: sign * c.mean() for a, c in zip(actions, tried, strict=False)},
        visits={a: c.visits for a, c in zip(actions, tried, strict=False)},
        simulations=simulations,
        nodes=nodes,
        depth=depth,
        time_s=time_s,
        root=root,
    )


# Bots and registration ---------------------------------------------------------------------


class MCTSBot(PolicyBot):
    """A pyspiel bot running `mcts_search` on a private copy of the state at every move.

    A position with a single legal action is played at once, without search.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int | None, **options: Any):
        super().__init__(game, player, seed)
        self.options = options
        self.limits = Limits.of(options)

    def choose(self, state: Core) -> int:
        """The most visited root action of a search within the budget."""
        actions = state.legal_actions()
        if len(actions) == 1:
            self.last_result = None
            return actions[0]
        result = mcts_search(
            state, self.game, seed=self.rng.getrandbits(63), keep_tree=False, **self.options
        )
        self.last_result = result
        return result.action

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        """The root's visit distribution and the chosen action: each legal action with its
        share of the root children's visits (0 for an action DPW never admitted), as
        OpenSpiel's MCTS bot reports it. A forced move, played without search, has policy
        [(action, 1.0)]."""
        action = self.step(state)
        result = self.last_result
        if not isinstance(result, MCTSResult):
            return [(action, 1.0)], action
        total = sum(result.visits.values())
        return [(a, result.visits.get(a, 0) / total) for a in state.legal_actions()], action

    def analyse(self, state: pyspiel.State) -> MCTSResult:
        """Runs the bot's search on `state` without playing (even with one legal action)."""
        result = mcts_search(
            search_state(state), self.game, seed=self.rng.getrandbits(63), **self.options
        )
        self.last_result = result
        return result


def budget_params(time_ms: float | None) -> dict[str, Param]:
    """The budget parameters, with `time_ms` defaulting to `time_ms` if no budget is given."""
    return {
        "max_simulations": Param(None, "simulations per move", int, high=MAX_TREE_NODES, low=1),
        "time_ms": time_ms_param(f"time budget per move in ms (default {time_ms:g} if no budget)"),
    }


ROLLOUT_DEPTH = Param(
    None,
    "random decision moves before the heuristic values a leaf: 0 = heuristic at the leaf "
    "(UCT-H), none or -1 = random games to the end",
    int,
    high=MAX_GAME_LENGTH,
    low=-1,
)
_MCTS_PARAMS = {
    "uct_c": Param(
        DEFAULT_UCT_C, "UCT exploration constant (values in [-1, 1])", high=MAX_CONSTANT, low=0.0
    ),
    "rollout_depth": ROLLOUT_DEPTH,
    **budget_params(DEFAULT_TIME_MS),
    "clock": CLOCK,
    "max_nodes": Param(
        None, "tree nodes per move (equal-work comparisons)", int, high=MAX_TREE_NODES, low=1
    ),
    "heuristic": HEURISTIC,
    "ordering": ORDERING,
}
_DPW_PARAMS = {
    **_MCTS_PARAMS,
    "pw_c": Param(
        DEFAULT_PW_C,
        "widening: ceil(pw_c * visits^pw_alpha) children admitted",
        high=MAX_CONSTANT,
        low=0.0,
        open_low=True,
    ),
    "pw_alpha": Param(DEFAULT_PW_ALPHA, "widening exponent", high=1.0, low=0.0, open_low=True),
}


def _bot_options(
    game: pyspiel.Game,
    agent: str,
    max_simulations: int | None,
    time_ms: float | None,
    heuristic: str | Heuristic,
    ordering: str | Ordering,
    **rest: Any,
) -> dict[str, Any]:
    """Checked search options for a bot; the default budget if none is given."""
    if max_simulations is None and time_ms is None and rest.get("max_nodes") is None:
        time_ms = DEFAULT_TIME_MS
    options = {"max_simulations": max_simulations, "time_ms": time_ms, **rest}
    check_mcts_params(**options)
    check_two_player_zero_sum(game, agent)
    return {
        **options,
        "evaluation": evaluation_for(game, heuristic),
        "ordering": move_ordering_for(game, ordering),
    }


def fresh_seed(seed: int | None) -> int:
    """`seed`, or fresh entropy when it is None."""
    return seed if seed is not None else random.SystemRandom().getrandbits(63)


@register_agent(
    "mcts",
    "UCT with chance nodes in the tree (outcomes sampled by probability), random rollouts "
    "then the heuristic; the most visited move",
    _MCTS_PARAMS,
)
def _make_mcts(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    uct_c: float,
    rollout_depth: int | None,
    max_simulations: int | None,
    time_ms: float | None,
    clock: str,
    max_nodes: int | None,
    heuristic: str | Heuristic,
    ordering: str | Ordering,
) -> MCTSBot:
    options = _bot_options(
        game,
        "mcts",
        max_simulations,
        time_ms,
        heuristic,
        ordering,
        uct_c=uct_c,
        rollout_depth=rollout_depth,
        max_nodes=max_nodes,
        clock=clock,
    )
    return MCTSBot(game, player, fresh_seed(seed), **options)


@register_agent(
    "dpw",
    "MCTS with double progressive widening (MCMS paper section 2.2): ceil(pw_c * v^pw_alpha) "
    "actions (in move order) and sampled outcomes per node",
    _DPW_PARAMS,
)
def _make_dpw(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    uct_c: float,
    rollout_depth: int | None,
    max_simulations: int | None,
    time_ms: float | None,
    clock: str,
    max_nodes: int | None,
    pw_c: float,
    pw_alpha: float,
    heuristic: str | Heuristic,
    ordering: str | Ordering,
) -> MCTSBot:
    options = _bot_options(
        game,
        "dpw",
        max_simulations,
        time_ms,
        heuristic,
        ordering,
        uct_c=uct_c,
        rollout_depth=rollout_depth,
        pw_c=pw_c,
        pw_alpha=pw_alpha,
        max_nodes=max_nodes,
        clock=clock,
    )
    return MCTSBot(game, player, fresh_seed(seed), **options)
