"""Expectimax, Star1 and Star2 (*-Minimax), and Monte Carlo *-Minimax (sampled chance nodes).

This module runs the searches (iterative deepening, the sampled search's options, results) and
wraps them as bots; the recursive procedures are agents.star_core, compiled with the engine.

The specification is the MCMS paper ("Monte Carlo *-Minimax Search", Lanctot et al. 2013),
Algorithms 1 and 2 and Section 3, in its alpha-beta (not negamax) form: values are for the root
player (the Max player); whether a node is Max or Min is read from its current player, so games
where a chance outcome decides who moves next (Pig, Can't Stop, Ra) are handled.

- Depth counts decision plies; chance nodes do not count. A non-terminal node at depth 0 is
  evaluated by the heuristic, a terminal node by its returns; this is exactly OpenSpiel's
  `expectiminimax`, which the tests use as the reference.
- `samples=c` replaces every chance node by c outcomes drawn with replacement (weights 1/c,
  duplicates merged): expss / star1ss / star2ss. Within one search a node's sample is a pure
  function of its path from the root and the search's sample stream (its i-th uniform number is
  SplitMix64's i-th output from its key, the path key mixed with the stream's seed:
  search_core.uniform), so the three sample identically and Star2 probes and searches the same
  sample (MCMS paper, section 3.1). With `shared_samples`, a chance node's sample key is only "the
  n-th chance node after player p's moves" on its path (neither moves nor outcomes): sibling
  subtrees use the same uniform numbers for each player's n-th roll, hence the same outcomes when
  the distributions are equal (common random numbers, like dice dealt in advance to each player, so
  the difference between two moves carries less noise). Each node's sample is still an
  independent-looking draw from its own distribution; only the correlation between nodes changes.
- Sampled iterative deepening is the paper's (sections 3.1 and 4.2): one search per depth, each
  drawing from a fresh sample stream (the n-th depth from stream n, so expss, star1ss and
  star2ss with one seed sample alike), and on timeout the best move of the last completed
  depth. Under a budget a sample that never met the horizon ends the deepening, as in the
  classic search; with `max_depth` alone every depth 1..max_depth is searched once. Root
  pruning is that of Star1/Star2. `result.iterations` lists every completed search.
- Opt-in additions to the paper's sampled search (`SampledOptions`, each a bot parameter):
  `resample` (repeat a depth with fresh samples and average where going deeper cannot help),
  `full_root_window` (exact sampled root values), `distrust_decided` (a sampled vmin/vmax
  does not replace the shallower depth), `solve_exhausted` (a sample that drew every
  outcome above the horizon triggers the classic search of the real tree), and
  `shared_samples` above. lab/results/pig_regret/HISTORY.md tabulates their measured effects.
- Star1 keeps per-outcome bounds [l_o, u_o] at chance nodes, with pess = sum p_o l_o and
  opti = sum p_o u_o, and searches outcome o with the window
  alpha' = max(vmin, (alpha - opti + p_o u_o) / p_o),
  beta' = min(vmax, (beta - pess + p_o l_o) / p_o).
  We cut when pess >= beta or opti <= alpha (within FP_SLACK) rather than on v >= beta' as
  printed: with windows clipped to [vmin, vmax] the printed test can fire without a proof.
- Star2 first probes each outcome's child with its first action only (after move ordering). At a
  Max child the probe is a lower bound, at a Min child an upper bound, but only if the probe did
  not fail on the other side of its window (a fail-low probe of a Max child bounds nothing).
  A probe that cannot cause a cut (a Max child while beta = vmax, a Min child while
  alpha = vmin) is skipped, and an exact probe value is reused when the full search reaches the
  same action, so probing on the principal variation costs nothing.
- A child that fails high/low only tightens one side of its outcome's bounds, so a bound is never
  taken for an exact value.
- Root action values: expectimax's are exact; a Star1/Star2 root child searched with the
  window (best so far, vmax) that fails low is an upper bound (`action_value_kinds` says
  which); once a child is worth vmax the later ones are not searched and get the bound vmax.
  With `full_root_window` every root value is exact.
- `evaluations` counts heuristic calls (terminal returns are not heuristic calls), `nodes` the
  nodes visited, so searches can be compared at equal work.
- Iterative deepening under `time_ms` / `max_nodes` keeps the best move of the last completed
  depth; a transposition table keyed by state (`state_key()` of the cores; `table="path"`
  keys it by path, the only choice for states without a key of their own, those of the
  pyspiel adapter: `has_state_key()`) stores each decision node's best move, searched first at
  the next depth and wherever the state recurs; games may declare a static move ordering
  (the `ordering` of their GameSpec).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

import pyspiel

from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.registry import HEURISTIC, ORDERING, Param, register_agent
from chancespiel.agents.result import Iteration, SearchResult
from chancespiel.agents.search_common import (
    DEPTH_FIRST_BUDGET,
    MAX_DEPTH,
    MAX_SAMPLES,
    Limits,
    check_budget,
    check_two_player_zero_sum,
    deepen,
)
from chancespiel.agents.search_core import Budget, SearchTimeout
from chancespiel.agents.star_core import (
    ALGORITHMS,
    EXACT,
    LOWER,
    TABLES,
    UPPER,
    RootValues,
    StarSearch,
)
from chancespiel.games.core import CHANCE, Core, Heuristic, Ordering
from chancespiel.games.registry import DEFAULT_ORDERING, evaluation_for, move_ordering_for
from chancespiel.games.tree_hash import MASK64, mix64, signed64

__all__ = ["EXACT", "LOWER", "UPPER", "StarMinimaxBot", "StarResult", "StarSearch", "search"]


@dataclass(frozen=True)
class SampledOptions:
    """Opt-in additions to the paper's sampled search (all off: the MCMS paper's algorithm).

    resample: under a budget, repeat a depth with fresh samples instead of going deeper when
      the sample never met the horizon, when the root value is vmin or vmax, or at max_depth
      with budget left; the result averages each root action's value over the searches of
      the deepest depth (implies full_root_window: a mean of bounds is no estimate).
    full_root_window: sampled Star1/Star2 search every root child with the full window
      (exact root values, no root pruning).
    distrust_decided: a depth whose (mean) sampled root value is vmin or vmax does not
      replace the shallower depth's result (a sample cannot prove a win).
    solve_exhausted: a sampled search that met neither the horizon nor an omitted outcome
      triggers the classic search of the real tree at that depth; if it also ends above
      the horizon, the position is solved and the search stops.
    systematic: draw a chance node's sample systematically (one uniform number, evenly spaced
      points) instead of independently: each outcome is drawn within one of its expected
      count.
    stratified: draw a chance node's sample by stratified sampling (one uniform number in each
      of `samples` equal strata of the cumulative probabilities): within about one of each
      outcome's expected count, like `systematic`, and blind to a period in the outcomes'
      order, which one number for every point is not (ordered dice sampled at half their
      number).
    exact_up_to: enumerate a chance node with at most this many outcomes instead of sampling.
    exact_plies: enumerate every chance node within this many decision plies of the root.
    classic_first: under a budget, deepen with the classic search while the next depth's
      cost (the last depth's, times its growth over the depth before) fits what is left;
      sampling starts at the first depth the classic search cannot afford, so a sample never
      replaces an exact search of the same depth.
    classic_trial: with classic_first, a classic depth whose cost cannot be predicted yet (the
      first two) gets half of what is left, and sampling takes over at that depth if it does
      not finish; the sampled depths then enumerate the chance nodes within `exact_plies` only
      where the classic search completed a depth beyond them (at most its depth minus one
      plies). Where the budget cannot see past the root's chance nodes classically,
      enumerating them would cost the depth the sample is there to buy.
    fit_exact_plies: under a budget, where the chance nodes right after the root's moves have
      at least MIN_FIT_FACTOR (3) times the outcomes the search draws there, the chance nodes
      within `exact_plies` are sampled until a search meets them; they are enumerated from
      that depth on (the depth searched again) only if that search's cost, each such node's
      subtree weighed by its outcomes over its draws, fits what is left. Where the root's
      next chance nodes have many times the width's outcomes (Can't Stop's 1296 ordered
      rolls, and a bust's roll nested in each) the enumeration would take the budget, and
      sampling them buys the depth.
    capped_trial: with classic_trial, every classic depth is a trial given up where it runs
      past its cap, and sampling takes over at that depth: a depth predicted from the two
      before is capped at TRIAL_SLACK (4) times its prediction, and where the chance nodes
      right after the root's moves have at least MIN_FIT_FACTOR times the outcomes drawn
      there, the second depth at what the sampled search TRIAL_PLIES (2) plies deeper costs
      (searched first, within SAMPLED_SHARE of what is left; beyond that, and elsewhere, half
      of what is left, as without the option). In Can't Stop a depth can cost a million
      times the one before, where the first roll enters the tree (a second depth of 9 nodes,
      a third of 1.4 to 2.1 million), or after a bust with the 1296 ordered rolls (a second
      depth of about 600,000 nodes, dozens of times the sampled fourth): classic_first spent
      the whole budget on such a depth, and the trial half of it. (Predicting the second
      depth from one sampled search instead, each chance node weighed by its outcomes over
      its draws as `fit_exact_plies` does, ranged from 7,500 to 2.3 million nodes with the
      seed, as the sample held busts or not.)
    fit_within_ply: with fit_exact_plies, the enumeration is chosen only where it costs at
      most one ply: the search with those nodes enumerated no dearer than the sampled search
      one ply deeper is predicted to be. A sampled ply's growth is the last sampled search's
      nodes over the one before; for the first after the classic depths, the last sampled
      ply `classic_within_ply` measured, else the classic search's last growth over the
      root's enumeration factor (a sampled chance node has that many times fewer outcomes);
      where none is known they stay sampled. In Ra
      (up to 23 tiles a draw, two drawn) the enumerated search of a depth cost about 11 times
      the sampled one, more than two plies, and Star2HS lost to the paper's Star2SS; on
      EinStein's die (6 outcomes, two drawn) it costs 3 times, within a ply, and is kept.
      A default of star1hs and star2hs, with classic_within_ply and growth_two_back.
    classic_within_ply: with classic_first, a classic depth from the second on is searched
      only where it costs at most one sampled ply: no more than the sampled search
      one depth deeper, predicted as the sampled search of its depth (searched first, within
      what the classic depth may spend; where it draws nothing it is the classic depth)
      times that search's growth over the depth before. A depth predicted past that is not
      searched, one that runs past it is given up, and sampling takes over at that depth;
      the measuring ends at a classic depth that costs less than MIN_FIT_FACTOR times the
      sampled one (Pig's 21 rolls at the paper's widths: the searches are those without the
      option). The classic depths' result is replaced by the first
      deeper sampled one, so a classic depth that costs several sampled plies buys nothing
      the move is chosen by: in Ra (a classic fourth depth of about 37,000 nodes against 70
      for the sampled one, at Star2's width of 2) the classic depths took a fifth to two
      fifths of the budget, and with this option and fit_within_ply Star2HS is level with
      Star2SS. A default of star1hs and star2hs with growth_two_back: without it, in Can't
      Stop with 126 rolls it made Star2HS 1.2 plies deeper and lost to classic Star2 (43.8%).
    growth_two_back: with classic_first, every growth the classic depths are judged by is
      taken two depths back rather than from the last one: a classic depth's cost is the
      last depth's times the growth of the depth before it (the first depth's over the
      root), and with classic_within_ply a sampled ply's cost the next sampled search's times
      the growth of the sampled ply measured before. Where a chance node enters the tree
      every other depth the growth alternates: in Can't Stop with 126 rolls about 250 where
      a roll enters and 2 where it does not, so the last growth predicts the next depth a
      hundred times off either way. From it the hybrid samples a fourth depth that costs a
      few thousand nodes classically, or spends the rest of the budget on a fifth it
      predicted at ten thousand; and classic_within_ply, pricing a sampled ply at the
      cheap growth, gives up classic depths of a few thousand nodes. In Pig, EinStein and Ra
      successive growths from the second depth on are within a factor of 1.5, and with
      classic_within_ply and fit_within_ply, on 16 positions of each and of ordered dice at
      a budget of 200 ms, the searches reach the same mean depth as without the option. The
      first depth's growth over the root (2 to 4) is no guide there: at the second depth it
      can predict a classic third too cheap, which is then tried (under a budget too small
      for it, ordered Pig at 3,000 nodes, the search stays classic search's second depth).
    first_cap_two_back: with growth_two_back and classic_within_ply, the first sampled ply
      that caps a classic depth is priced from the growth of the depth before the one just
      measured, as every later one is, rather than from that growth itself (no sampled ply was
      measured before it). Where a roll entered the tree at the depth just measured, that
      growth is about a hundred times the next ply's: under Can't Stop's ordered dice the
      first cap of Star1HS let classic depths take 9.8% of its nodes before they were given
      up (lab/benchmarks/classic_trials.py), and in some positions the whole budget. On in
      star1hs and star2hs since version 0.4.0.
    se_gap: a sampled chance node searched without a window (expectimax's; Star1's and
      Star2's within prune_min_depth of the horizon, whose children's values are exact)
      draws `samples` outcomes more at a time until the standard error of its mean is at
      most se_gap times the root's move gap at the last completed depth, or it has drawn as
      many times as it has outcomes: the noise measured against what it could change. The
      costs that fit_exact_plies and classic_within_ply predict do not allow for it (the
      first counts a node's extra draws as part of its sample, the second measures sampled
      plies without them).
    """

    resample: bool = False
    full_root_window: bool = False
    distrust_decided: bool = False
    solve_exhausted: bool = False
    systematic: bool = False
    stratified: bool = False
    exact_up_to: int = 0
    exact_plies: int = 0
    classic_first: bool = False
    classic_trial: bool = False
    fit_exact_plies: bool = False
    capped_trial: bool = False
    fit_within_ply: bool = False
    classic_within_ply: bool = False
    growth_two_back: bool = False
    first_cap_two_back: bool = False
    se_gap: float = 0.0


@dataclass(kw_only=True)
class StarResult(SearchResult):
    """What a search found (agents.result.StarResult's fields, and these).

    `action_values` are exact for expectimax. For star1/star2 the best action's value is exact
    and the others may be upper bounds (proved no better, not evaluated exactly):
    `action_value_kinds` maps every action to "exact", "upper" or "lower". Sampled searches
    repeated at one depth report the mean over the `searches` completed searches of that depth;
    their `values_by_depth` has the value after every completed search.
    """

    values_by_depth: list[float] = field(default_factory=list)
    action_value_kinds: dict[int, str] = field(default_factory=dict)
    searches: int = 1  # completed searches averaged at `depth` (`resample`)
    solved: bool = False  # a classic search of the real tree finished without the horizon

    def details(self) -> dict[str, Any]:
        """The kind of every root action value, the searches averaged, whether solved."""
        kinds = self.action_value_kinds
        return {
            "action_value_kinds": {str(a): kinds[a] for a in self.action_values},
            "searches": self.searches,
            "solved": self.solved,
        }


class _Average:
    """Root action values averaged over the completed searches at one depth (`resample`; all
    exact, since it implies the full root window)."""

    def __init__(self) -> None:
        self.depth = 0
        self.count = 0
        self.sums: dict[int, float] = {}

    def add(self, depth: int, values: dict[int, float]) -> None:
        """Adds one completed search; a deeper search replaces the shallower ones."""
        if depth != self.depth:
            self.depth, self.count, self.sums = depth, 0, {}
        self.count += 1
        for action, value in values.items():
            self.sums[action] = self.sums.get(action, 0.0) + value

    def value(self) -> float:
        """The best mean action value."""
        return max(self.sums.values()) / self.count

    def store(self, result: StarResult) -> None:
        """Writes the averaged values, kinds and best action (first on ties) into `result`."""
        values = {action: total / self.count for action, total in self.sums.items()}
        best = max(values, key=values.__getitem__)  # the first maximum, in search order
        result.action, result.value, result.action_values = best, values[best], values
        result.action_value_kinds = dict.fromkeys(values, EXACT)
        result.depth, result.searches = self.depth, self.count


def search(
    state: Core,
    game: pyspiel.Game,
    algorithm: str = "star2",
    *,
    max_depth: int | None = None,
    time_ms: float | None = None,
    max_nodes: int | None = None,
    samples: int | None = None,
    shared_samples: bool = False,
    seed: int = 0,
    prune_min_depth: int = 0,
    evaluation: Heuristic | None = None,
    ordering: str | Ordering = DEFAULT_ORDERING,
    iterative: bool = True,
    search_class: type[StarSearch] | None = None,
    search_options: dict[str, Any] | None = None,
    clock: str = "wall",
    table: str = "state",
    resample: bool = False,
    full_root_window: bool = False,
    distrust_decided: bool = False,
    solve_exhausted: bool = False,
    systematic: bool = False,
    stratified: bool = False,
    exact_up_to: int = 0,
    exact_plies: int = 0,
    classic_first: bool = False,
    classic_trial: bool = False,
    fit_exact_plies: bool = False,
    capped_trial: bool = False,
    fit_within_ply: bool = False,
    classic_within_ply: bool = False,
    growth_two_back: bool = False,
    first_cap_two_back: bool = False,
    se_gap: float = 0.0,
) -> StarResult:
    """Iterative-deepening expectimax / Star1 / Star2 from a decision node.

    Args:
      state: a search-protocol state (see agents.protocol.search_state); not modified.
      game: the game, for its utility bounds, heuristic and move ordering.
      algorithm: "expectimax", "star1" or "star2".
      max_depth: deepest iteration (decision plies); None to deepen until the budget ends.
      time_ms: wall-clock budget; the best move of the last completed depth is returned.
      max_nodes: node budget, as time_ms.
      samples: None for the classic algorithm, c >= 1 to sample c outcomes at every chance
        node (MCMS: expss, star1ss, star2ss). Sampled searches draw fresh samples at every
        iteration (module docstring).
      shared_samples: sample keys from the chance outcomes of the path only, so that sibling
        subtrees share samples (common random numbers); ignored without `samples`.
      seed: seed of the chance samples.
      prune_min_depth: chance nodes with at most this remaining depth are averaged without
        pruning (the MCMS paper uses 2).
      evaluation: h(state, player) in [vmin, vmax]; default: the game's registered heuristic.
      ordering: the static move ordering, as games.registry.move_ordering_for takes it.
      iterative: deepen from depth 1 (best moves of each depth order the next); False searches
        max_depth only, for node counts of the bare algorithm.
      search_class, search_options: a subclass of the search context and its extra keyword
        arguments, for variants that change one procedure (agents.chance_probcut).
      clock: what time_ms measures, "wall" or "cpu" (search_common.CLOCKS).
      table: key of the best-move table, "state" (a transposition table: equal states share
        their best move) or "path" (one entry per path from the root).
      resample, full_root_window, distrust_decided, solve_exhausted, systematic, stratified,
        exact_up_to, exact_plies, classic_first, classic_trial, fit_exact_plies,
        capped_trial, fit_within_ply, classic_within_ply, growth_two_back,
        first_cap_two_back, se_gap: opt-in additions to the sampled search (SampledOptions);
        refused without `samples`.

    Returns:
      The value and best action of the last completed depth, with counters.

    Raises:
      ValueError: on a bad parameter, an unsupported game or a root that is not a decision node.
    """
    limits = check_search_params(
        algorithm, max_depth, time_ms, max_nodes, samples, prune_min_depth, clock, table
    )
    check_two_player_zero_sum(game, algorithm)
    options = SampledOptions(
        resample,
        full_root_window or resample,
        distrust_decided,
        solve_exhausted,
        systematic,
        stratified,
        exact_up_to,
        exact_plies,
        classic_first,
        classic_trial,
        fit_exact_plies,
        capped_trial,
        fit_within_ply,
        classic_within_ply,
        growth_two_back,
        first_cap_two_back,
        se_gap,
    )
    check_sampled_options(samples, options, algorithm, prune_min_depth)
    player = state.current_player()
    if player < 0:
        raise ValueError(f"search needs a decision node at the root, got player {player}")
    start = time.perf_counter()
    budget = Budget(limits.time_ms, limits.max_nodes, limits.timer)
    context = (search_class or StarSearch)(
        algorithm,
        player,
        evaluation or evaluation_for(game),
        game.min_utility(),
        game.max_utility(),
        samples,
        signed64(mix64(seed & MASK64)),
        prune_min_depth,
        move_ordering_for(game, ordering),
        budget,
        shared_samples and samples is not None,
        table,
        options.full_root_window,
        options.systematic,
        options.exact_up_to,
        options.exact_plies,
        options.stratified,
        **(search_options or {}),
    )
    result = run_iterations(context, state, max_depth, iterative, time_ms, max_nodes, options)
    result.nodes = budget.nodes
    result.evaluations = context.evaluations
    result.time_s = time.perf_counter() - start
    return result


def run_iterations(
    context: StarSearch,
    state: Core,
    max_depth: int | None,
    iterative: bool,
    time_ms: float | None,
    max_nodes: int | None,
    options: SampledOptions | None = None,
) -> StarResult:
    """Iterative deepening of `context` from `state` (counters are left to the caller)."""
    actions = list(state.legal_actions())
    result = StarResult(value=0.0, action=actions[0])
    forced = len(actions) == 1 and max_depth is None  # nothing to decide

    if context.samples is None:

        def iteration(depth: int) -> bool:
            return _classic_depth(context, state, depth, result)

        result.completed = deepen(iteration, max_depth, iterative, forced)
        return result

    has_budget = time_ms is not None or max_nodes is not None
    result.completed = _sampled_iterations(
        context, state, result, max_depth, iterative, forced, has_budget,
        options or SampledOptions(),
    )  # fmt: skip
    return result


def _classic_depth(context: StarSearch, state: Core, depth: int, result: StarResult) -> bool:
    """One search of `context` to `depth` made the result (and an iteration of it); whether
    it met the horizon anywhere."""
    context.horizon_reached = False
    context.probes.clear()
    nodes = context.budget.nodes
    _keep(result, depth, context.root_search(state, depth), context.budget.nodes - nodes)
    return context.horizon_reached


def _keep(result: StarResult, depth: int, found: RootValues, nodes: int) -> None:
    """A search of `depth` that found `found` in `nodes` made the result (and an iteration)."""
    value, action, values, kinds = found
    _store(result, depth, value, action, values, kinds)
    result.iterations.append(Iteration(depth, value, action, nodes))


def _store(
    result: StarResult,
    depth: int,
    value: float,
    action: int,
    values: dict[int, float],
    kinds: dict[int, str],
) -> None:
    """Makes one completed search at `depth` the result."""
    result.value, result.action, result.action_values = value, action, values
    result.action_value_kinds = kinds
    result.depth, result.searches = depth, 1
    result.values_by_depth.append(value)


def _sampled_iterations(
    context: StarSearch,
    state: Core,
    result: StarResult,
    max_depth: int | None,
    iterative: bool,
    forced: bool,
    has_budget: bool,
    options: SampledOptions,
) -> bool:
    """Iterative deepening of a sampled search: one search per depth, each with a fresh sample
    stream (the MCMS paper, sections 3.1 and 4.2), plus the opt-in `options` (module
    docstring).

    Returns False if the budget ran out during an iteration, True otherwise.
    """
    if not iterative and max_depth is None:
        raise ValueError("iterative=False needs max_depth")
    budget, vmin, vmax = context.budget, context.vmin, context.vmax
    base_seed = context.seed
    average = _Average() if options.resample else None
    depth = max_depth - 1 if not iterative and max_depth is not None else 0
    # Where the root's next chance nodes have many times the outcomes drawn, an exact search
    # near the root can cost many sampled plies (capped_trial measures what, fit_exact_plies
    # samples them first).
    factor = (
        _root_enumeration_factor(context, state)
        if (options.capped_trial or options.fit_exact_plies) and has_budget
        else 1.0
    )
    many = factor >= MIN_FIT_FACTOR
    plies: list[float] = []  # sampled plies' growths measured by classic_within_ply
    if options.classic_first and has_budget and iterative:
        try:
            depth, over = _classic_iterations(
                context,
                state,
                result,
                max_depth,
                forced,
                options.classic_trial,
                options.capped_trial,
                options.capped_trial and many,
                options.classic_within_ply,
                plies,
                options.growth_two_back,
                options.first_cap_two_back,
            )
        except SearchTimeout:
            return False
        if over:
            return True
        if options.classic_trial or options.classic_within_ply:
            context.exact_plies = min(context.exact_plies, max(depth - 1, 0))
    # fit_exact_plies: exact_plies' chance nodes are sampled until a search met them, then
    # enumerated from that depth on if the enumeration is predicted to fit.
    fit_plies = 0
    if options.fit_exact_plies and context.exact_plies and many:
        fit_plies, context.exact_plies = context.exact_plies, 0
    # fit_within_ply: a sampled ply's growth, the last sampled search's nodes over those of
    # the one before; before a second, the last one classic_within_ply measured, else the
    # classic search's last growth over the root's enumeration factor (a sampled chance node
    # has that many times fewer outcomes; where a depth is the first with a roll, Can't
    # Stop's second, that growth is thousands); 0 if none is known (after a classic phase of
    # two depths or a sampled first depth, never).
    classic = [it.nodes for it in result.iterations[-2:]]
    predicted = classic[1] / max(classic[0], 1) / factor if len(classic) == 2 else 0.0
    if plies:
        predicted = plies[-1]
    before = 0  # nodes of the sampled search before, 0 if none
    deeper, again = True, False
    stream = 0  # the n-th search draws from stream n: depth n in plain iterative deepening
    solve_tried = 0
    try:
        while True:
            if deeper and not again:
                depth += 1
            again = False
            stream += 1
            context.seed = signed64(mix64((base_seed + stream * 0x9E3779B97F4A7C15) & MASK64))
            context.horizon_reached = context.partial_sample = context.drew = False
            context.probes.clear()
            context.count_enumeration(fit_plies)
            context.se_target = _se_target(result, options.se_gap)
            nodes, start = budget.nodes, budget.clock()
            value, action, values, kinds = context.root_search(state, depth)
            spent = int(budget.nodes - nodes)
            result.iterations.append(Iteration(depth, value, action, spent, context.drew))
            estimate = value
            if average is not None:
                average.add(depth, values)
                estimate = average.value()
            # distrust_decided: a sample cannot prove a win or a loss, so a depth whose
            # estimate is vmin or vmax does not replace the shallower depth's.
            kept = options.distrust_decided and not vmin < estimate < vmax
            if not kept or result.depth in (0, depth):
                if average is None:
                    _store(result, depth, value, action, values, kinds)
                else:
                    average.store(result)
                    result.values_by_depth.append(result.value)
            if forced or not iterative:
                return True
            if fit_plies and context.counted_nodes:
                extra = context.enumeration_extra
                growth = spent / before if before else predicted
                if _enumeration_fits(budget, spent, budget.clock() - start, extra) and (
                    not options.fit_within_ply or spent + extra <= spent * growth
                ):
                    context.exact_plies = fit_plies
                    again = extra > 0  # this depth once more, with them enumerated
                fit_plies = 0
                context.count_enumeration(0)
                if again:
                    continue
            before = spent
            exhausted = not context.horizon_reached and not context.partial_sample
            if options.solve_exhausted and exhausted and solve_tried < depth:
                solve_tried = depth  # once per depth: a failed attempt would fail again
                if _solve(context, state, depth, result):
                    return True
            at_max = max_depth is not None and depth >= max_depth
            if average is not None and has_budget:
                # resample: deeper only if the horizon could matter; after a sample that never
                # met it, a root value of vmin / vmax (decided by the sample's terminal nodes
                # alone), or at max_depth, a fresh sample at the same depth.
                deeper = context.horizon_reached and vmin < value < vmax and not at_max
            elif at_max or (has_budget and not context.horizon_reached):
                # Under a budget, a sample that never met the horizon ends the deepening as
                # in the classic search (a deeper iteration would only redraw the sample);
                # with max_depth alone every depth is searched once.
                return True
    except SearchTimeout:
        return False


# capped_trial gives the classic second depth what the sampled search this many plies deeper
# costs. At one ply it would give up the second depth of Pig at widths 3 to 5 (it costs 1.2
# to 1.3 times the sampled third at width 3) and of some EinStein positions at width 2 (up
# to 1.4), where the exact root rolls are what decides moves; at two, among 12 positions of
# each game (Pig, EinStein, Can't Stop with 126 and 1296 rolls, Ra, at the paper's widths)
# only Can't Stop's ordered rolls after a bust (1.1 and 68 times the sampled fourth depth)
# and three Ra positions at width 2 (1.1 to 1.4) exceed it.
TRIAL_PLIES: Final = 2
# ... and searches that sampled depth within this share of the budget left: beyond it the
# sampled search ends near that depth anyway, and the trial gets its half.
SAMPLED_SHARE: Final = 0.1
# capped_trial gives a classic depth predicted from the growth of the two before at most this
# many times its prediction.
TRIAL_SLACK: Final = 4.0


# fit_exact_plies samples first only where the root's next chance nodes have at least this
# many times the outcomes it would draw there: the sampled search then costs at most a third
# of the enumerated one. Below, the enumeration is nearly as cheap, and sampling the root's
# rolls is the noise that decides Pig's moves: at twice (ordered Pig's 36 rolls at Star2's
# width 18) the hybrid's regret against Pig's solver rose by 0.9 x 1e-3 at 30,000 nodes, three
# standard errors (lab/results/pig_regret/HISTORY.md); EinStein's die at width 2 is three
# times, and there the hybrid stayed level with classic search. capped_trial measures the cap
# of the classic second depth only there too: elsewhere that depth costs at most a few times
# the sampled one, and the measurement would only spend nodes (the whole search on Pig at the
# paper's widths is then the same with and without it).
MIN_FIT_FACTOR: Final = 3.0


# se_gap's error bound where the last depth's two best root values are equal: drawing up to
# a node's number of outcomes (`StarSearch.drawn_average`), not no bound at all.
MIN_GAP: Final = 1e-9


def _se_target(result: StarResult, se_gap: float) -> float:
    """se_gap's bound on the standard error of a sampled chance node searched without a
    window: `se_gap` times the root's move gap at the last completed depth (its best value
    less the next; where that is a bound, the gap is understated and the node draws more);
    0, no further draws, before a depth is completed or without the option."""
    values = sorted(result.action_values.values(), reverse=True)
    if se_gap <= 0.0 or result.depth == 0 or len(values) < 2:
        return 0.0
    return se_gap * max(values[0] - values[1], MIN_GAP)


def _root_enumeration_factor(context: StarSearch, state: Core) -> float:
    """The outcomes of the chance nodes right after the root's moves over the outcomes the
    sampled search draws there (at most `samples`, all of a node of at most `exact_up_to`);
    1 where no root move leads to a chance node."""
    outcomes = drawn = 0
    width = context.samples or 0
    for action in state.legal_actions():
        child = state.child(action)
        if child.current_player() == CHANCE:
            count = len(child.chance_outcomes())
            outcomes += count
            drawn += count if count <= context.exact_up_to else min(count, width)
    return outcomes / drawn if drawn else 1.0


def _enumeration_fits(budget: Budget, nodes: int, seconds: float, extra: float) -> bool:
    """Whether a search that cost `nodes` and `seconds` with some chance nodes sampled fits
    what is left of `budget` with them enumerated, which adds `extra` nodes
    (StarSearch.count_enumeration: each one's subtree times its outcomes over its draws,
    expectimax's expected factor; pruning makes it an estimate), at the same time a node."""
    return budget.affords(int(nodes + extra), seconds * (nodes + extra) / max(nodes, 1))


def _classic_iterations(
    context: StarSearch,
    state: Core,
    result: StarResult,
    max_depth: int | None,
    forced: bool,
    trial: bool = False,
    capped: bool = False,
    measured: bool = False,
    within_ply: bool = False,
    plies: list[float] | None = None,
    two_back: bool = False,
    first_two_back: bool = False,
) -> tuple[int, bool]:
    """Iterative deepening of the classic search while the next depth is predicted to fit
    the budget (`classic_first`): its cost is the last depth's times the growth from the
    depth before, in nodes and in time. With `trial` (`classic_trial`), a depth that cannot
    be predicted yet gets half of what is left, and is given up if it does not finish there;
    with `capped` (`capped_trial`) every depth is such a trial, a predicted one given up past
    TRIAL_SLACK times its prediction, and with `measured` the second gets at most what a
    sampled search TRIAL_PLIES plies deeper cost (searched first). With `within_ply`
    (`classic_within_ply`) every depth from the second is a trial capped at a sampled ply:
    the sampled search of its depth, searched first, times that search's growth; a depth
    predicted past the cap is not searched; each sampled ply's growth measured is appended
    to `plies`. The measuring ends at a classic depth that cost less than MIN_FIT_FACTOR
    times the sampled one. With `two_back` (`growth_two_back`) a depth from the third is
    predicted from the growth of the depth before the last (the first's over the root),
    and a sampled ply's cap from the growth of the sampled ply measured before; with
    `first_two_back` (`first_cap_two_back`) the first cap too, from the growth of the depth
    before the one measured.

    Returns:
      The deepest depth completed, and whether the search is over (the whole tree searched,
      max_depth reached, or a forced move).

    Raises:
      SearchTimeout: if a depth ran out of budget; `result` keeps the depth before.
    """
    budget, samples = context.budget, context.samples
    depth, costs = 0, [(0, 0.0)]  # (nodes, seconds) of every completed depth
    sampled = 0.0  # nodes of the sampled search of the last depth (within_ply)
    measuring = within_ply
    plies = [] if plies is None else plies  # sampled plies' growths measured (within_ply)
    with _widths(context, None):
        while max_depth is None or depth < max_depth:
            predicted = depth >= 2
            share = 0.5 if trial and not predicted else None
            if predicted:
                nodes, seconds = costs[-1]
                growth = _growth(costs, 2 if two_back else 1)
                if not budget.affords(int(nodes * growth), seconds * growth):
                    return depth, False
                if capped:  # a depth far above its prediction is given up
                    share = _share(
                        budget, TRIAL_SLACK * nodes * growth, TRIAL_SLACK * seconds * growth
                    )
            elif measured and depth == 1 and (max_depth is None or max_depth > 2):
                # (At depth 1 a chance node is a leaf: the classic search costs the sampled.
                # Where max_depth is 2 the second depth is the last: nothing to measure.)
                deeper = 2 + TRIAL_PLIES if max_depth is None else min(2 + TRIAL_PLIES, max_depth)
                share = min(0.5, _sampled_share(context, state, samples, deeper))
            if measuring and depth >= 1:
                # The sampled search of the next depth, then a sampled ply past it: its growth
                # over the depth before (at depth 1 a chance node is a leaf, and the classic
                # first depth is the sampled one). It gets what the classic depth would: where
                # it draws nothing it is that depth's classic search.
                limit = 1.0 if share is None else share
                cost = _sampled_cost(context, state, samples, depth + 1, result, limit)
                if cost is None:
                    _note(context, "measured a classic depth's cap; did not finish")
                    return depth, False
                if not context.drew:  # it searched the classic tree: that depth is done
                    depth += 1
                    costs.append((int(cost[0]), cost[1]))
                    sampled = cost[0]
                    if not context.horizon_reached or forced:
                        return depth, True
                    continue
                _note(context, "measured a classic depth's cap (not a result)")
                ply = cost[0] / max(sampled or costs[-1][0], 1.0)
                # the next sampled ply grows as this one (two_back: as the one before; the
                # first, with first_two_back, as the last classic depth grew)
                if two_back and plies:
                    step = plies[-1]
                elif first_two_back:
                    step = _growth(costs, 1)
                else:
                    step = ply
                sampled, cap = cost[0], (cost[0] * step, cost[1] * step)
                plies.append(ply)
                if predicted and nodes * growth > cap[0]:
                    return depth, False  # predicted past a sampled ply: sampling takes over
                share = min(_share(budget, *cap), 1.0 if share is None else share)
            depth += 1
            nodes, start = budget.nodes, budget.clock()
            limits = budget.narrow(share) if share is not None else None
            try:
                horizon_reached = _classic_depth(context, state, depth, result)
            except SearchTimeout:
                if limits is None:
                    raise
                budget.widen(limits)
                if budget.spent():
                    raise
                _note(context, "a classic trial given up at its cap: sampling takes over here")
                return depth - 1, False
            if limits is not None:
                budget.widen(limits)
            costs.append((budget.nodes - nodes, budget.clock() - start))
            if measuring and costs[-1][0] < MIN_FIT_FACTOR * sampled:
                # Sampling saves too little here for its measurement to pay (Pig's 21 rolls
                # at a width of 18): the classic search deepens as without the option.
                measuring = False
            if not horizon_reached or forced:
                return depth, True
        return depth, True


def _growth(costs: list[tuple[int, float]], back: int) -> float:
    """The growth of the classic depth `back` depths before the next one: its nodes over the
    depth before's. costs[-k] is the cost of the last depth but k - 1, and the root's (depth
    0) is 0 nodes, taken as 1."""
    return costs[-back][0] / max(costs[-back - 1][0], 1)


def _sampled_share(context: StarSearch, state: Core, samples: int | None, depth: int) -> float:
    """The share of the budget left that a sampled search of `depth` takes, in nodes or time
    (the larger), measured by `_sampled_cost`; the trial's half where that search does not
    finish within SAMPLED_SHARE of it."""
    cost = _sampled_cost(context, state, samples, depth)
    if cost is None:
        _note(context, "measured the cap of the classic second depth; did not finish")
        return 0.5
    _note(context, "measured the cap of the classic second depth (not a result)")
    return _share(context.budget, *cost)


def _sampled_cost(
    context: StarSearch,
    state: Core,
    samples: int | None,
    depth: int,
    result: StarResult | None = None,
    share: float = SAMPLED_SHARE,
) -> tuple[float, float] | None:
    """The nodes and seconds of a sampled search of `depth`, searched as the sampled depths
    after a classic first depth are (nothing enumerated for being near the root), within
    `share` of the budget left; None where it does not finish there. Where it drew no
    sample (`context.drew` false) it searched the classic tree: given `result`, it is stored
    there as the classic search of `depth`.

    Raises:
      SearchTimeout: if the whole budget is spent.
    """
    budget = context.budget
    limits = budget.narrow(share)
    nodes, start = budget.nodes, budget.clock()
    context.horizon_reached = context.drew = False
    context.probes.clear()
    try:
        with _widths(context, samples, exact_plies=0):
            found = context.root_search(state, depth)
    except SearchTimeout:
        budget.widen(limits)
        if budget.spent():
            raise
        return None
    budget.widen(limits)
    if result is not None and not context.drew:
        _keep(result, depth, found, budget.nodes - nodes)
    return float(budget.nodes - nodes), budget.clock() - start


@contextmanager
def _widths(
    context: StarSearch, samples: int | None, exact_plies: int | None = None
) -> Iterator[None]:
    """`context` searching with `samples` (None: classic) and, if given, `exact_plies`, for
    the searches that are not the deepening's own; its own restored after."""
    own = context.samples, context.exact_plies
    context.samples = samples
    if exact_plies is not None:
        context.exact_plies = exact_plies
    try:
        yield
    finally:
        context.samples, context.exact_plies = own


def _note(context: StarSearch, note: str) -> None:
    """Tells a traced search (agents.star_trace) what its last search was for, where that
    was not a result of the deepening."""
    label = getattr(context, "note_last_search", None)
    if label is not None:
        label(note)


def _share(budget: Budget, nodes: float, seconds: float) -> float:
    """The share of what is left of `budget` that `nodes` and `seconds` take (the larger;
    at most all of it)."""
    shares = [0.0]
    if budget.max_nodes is not None:
        shares.append(nodes / max(float(budget.max_nodes - budget.nodes), 1.0))
    if budget.deadline is not None:
        shares.append(seconds / max(budget.deadline - budget.clock(), 1e-9))
    return min(max(shares), 1.0)


def _solve(context: StarSearch, state: Core, depth: int, result: StarResult) -> bool:
    """Runs the classic search of the real tree at `depth`; True (result stored) if it finished
    without meeting the horizon, i.e. the position is solved."""
    context.horizon_reached = False
    context.probes.clear()
    nodes = context.budget.nodes
    with _widths(context, None):
        found = context.root_search(state, depth)
    if context.horizon_reached:
        return False
    _keep(result, depth, found, context.budget.nodes - nodes)
    result.solved = True
    return True


def check_search_params(
    algorithm: str,
    max_depth: int | None,
    time_ms: float | None,
    max_nodes: int | None,
    samples: int | None,
    prune_min_depth: int,
    clock: str = "wall",
    table: str = "state",
) -> Limits:
    """The search's limits, after checking every search parameter.

    Raises:
      ValueError: naming the first bad parameter.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    limits = check_budget(max_depth, time_ms, max_nodes, clock)
    if samples is not None and samples < 1:
        raise ValueError(f"samples must be >= 1 (or none for the classic algorithm), got {samples}")
    if prune_min_depth < 0:
        raise ValueError(f"prune_min_depth must be >= 0, got {prune_min_depth}")
    if table not in TABLES:
        raise ValueError(f"table must be one of {', '.join(TABLES)}, got {table!r}")
    return limits


# (option, the option it needs, what for), each after the one it needs (the studies name
# their flags by it too).
OPTION_NEEDS: Final = (
    ("classic_trial", "classic_first", "it changes how that deepens"),
    ("fit_exact_plies", "exact_plies", "the chance nodes it decides on"),
    ("capped_trial", "classic_trial", "the trial it caps"),
    ("fit_within_ply", "fit_exact_plies", "the enumeration it prices"),
    ("classic_within_ply", "classic_first", "the classic depths it prices"),
    ("growth_two_back", "classic_first", "the classic depths it predicts"),
    ("first_cap_two_back", "classic_within_ply", "the cap it prices"),
    ("first_cap_two_back", "growth_two_back", "the growth it prices the cap by"),
)


def _turned_off(options: SampledOptions, option: str, itself: bool = True) -> str:
    """'option=false' (unless not `itself`), and each option on in `options` that needs it,
    directly or through another, as settings."""
    off = [option]
    for dependent, needed, _ in OPTION_NEEDS:
        if needed in off and getattr(options, dependent) and dependent not in off:
            off.append(dependent)
    return " and ".join(f"{name}=false" for name in off[0 if itself else 1 :])


def check_sampled_options(
    samples: int | None,
    options: SampledOptions,
    algorithm: str = "expectimax",
    prune_min_depth: int = 0,
) -> None:
    """Raises ValueError if an option of the sampled search is set without `samples`, or a
    count is negative, or an option would do nothing in `algorithm`'s search."""
    for name in ("exact_up_to", "exact_plies"):
        if getattr(options, name) < 0:
            raise ValueError(f"{name} must be >= 0, got {getattr(options, name)}")
    if not 0.0 <= options.se_gap <= MAX_SE_GAP:  # (NaN too)
        raise ValueError(f"se_gap must be in [0, {MAX_SE_GAP:g}], got {options.se_gap}")
    if options.se_gap and algorithm != "expectimax" and prune_min_depth == 0:
        raise ValueError(
            "se_gap draws again at chance nodes searched without a window, which star1 and "
            "star2 have only within prune_min_depth of the horizon: set prune_min_depth >= 1 "
            "(the MCMS paper's setup has 2)"
        )
    if options.systematic and options.stratified:
        raise ValueError(
            "systematic and stratified are two ways to draw: choose one (exphs draws "
            "systematically unless systematic=false, star1hs and star2hs stratified unless "
            "stratified=false)"
        )
    # The options that need another are on by default in the hybrid agents, so the message
    # names every option to turn off with the one that is off.
    for option, needed, why in OPTION_NEEDS:
        if getattr(options, option) and not getattr(options, needed):
            raise ValueError(
                f"{option} needs {needed} ({why}): without {needed}, set "
                f"{_turned_off(options, needed, itself=False)} too"
            )
    if options.fit_exact_plies and options.resample:
        # resample averages the searches of a depth; fit_exact_plies searches one again
        # differently, and the sampled search would enter the mean.
        raise ValueError(
            "fit_exact_plies and resample cannot be combined: set resample=false or "
            f"{_turned_off(options, 'fit_exact_plies')}"
        )
    if samples is None:
        given = [name for name, on in dataclasses.asdict(options).items() if on]
        if given:
            verb = "needs" if len(given) == 1 else "need"
            raise ValueError(f"{', '.join(given)} {verb} samples (options of sampled search)")


class StarMinimaxBot(PolicyBot):
    """A pyspiel bot running `search` on a private copy of the state at every move."""

    def __init__(
        self, game: pyspiel.Game, player: int, seed: int | None, algorithm: str, **options: Any
    ):
        super().__init__(game, player, seed)
        self.algorithm = algorithm
        self.options = options
        self.limits = Limits.of(options)

    def choose(self, state: Core) -> int:
        """The best move of the deepest search completed within the budget."""
        return self.run_search(state).action

    def run_search(self, state: Core, **extra: Any) -> StarResult:
        """The bot's search from `state`, kept in `last_result`; `extra` are further keywords
        of `search` (a traced search's `search_class`, say)."""
        result = search(
            state, self.game, self.algorithm, seed=self.rng.getrandbits(63), **self.options, **extra
        )
        self.last_result = result
        return result


_COMMON = {
    **DEPTH_FIRST_BUDGET,
    "prune_min_depth": Param(
        0, "no pruning at chance nodes with remaining depth <= this", high=MAX_DEPTH, low=0
    ),
    "shared_samples": Param(
        False, "siblings share chance samples (common random numbers; with samples only)"
    ),
    "heuristic": HEURISTIC,
    "ordering": ORDERING,
    "table": Param("state", "key of the best-move table: state (transpositions) or path"),
}
# se_gap's largest value: a bound of 100 times the move gap is no bound at all.
MAX_SE_GAP: Final = 100.0
# Opt-in additions to the paper's sampled search (SampledOptions; with samples only).
_SAMPLED = {
    "resample": Param(
        False,
        "repeat a depth with fresh samples and average, where deeper search cannot help "
        "(implies full_root_window)",
    ),
    "full_root_window": Param(False, "search every root child exactly (no root pruning)"),
    "distrust_decided": Param(
        False, "a depth whose sampled value is vmin/vmax does not replace the shallower one"
    ),
    "solve_exhausted": Param(
        False, "a sample that drew every outcome above the horizon triggers a classic search"
    ),
    "systematic": Param(False, "draw samples systematically (evenly spaced), not independently"),
    "stratified": Param(False, "draw one sample in each of c equal strata, not independently"),
    "exact_up_to": Param(
        0, "enumerate chance nodes with at most this many outcomes", high=MAX_SAMPLES, low=0
    ),
    "exact_plies": Param(
        0, "enumerate chance nodes within this many plies of the root", high=MAX_DEPTH, low=0
    ),
    "classic_first": Param(
        False, "deepen classically while the next depth fits the budget, then sample"
    ),
    "classic_trial": Param(
        False,
        "with classic_first: try the unpredictable first depths classically within half the "
        "budget left, and enumerate exact_plies only below the classic search's depth",
    ),
    "fit_exact_plies": Param(
        False,
        "sample exact_plies' chance nodes until a search meets them, then enumerate them if "
        "that search's cost times their outcomes over the draws fits the budget left",
    ),
    "capped_trial": Param(
        False,
        "with classic_trial: give up a classic depth past its cap (the second: what the "
        "sampled search two plies deeper costs; later ones: 4 times their prediction)",
    ),
    "fit_within_ply": Param(
        False,
        "with fit_exact_plies: enumerate only where that costs at most a ply (no dearer than "
        "the sampled search a ply deeper, predicted from the growth of the depths before)",
    ),
    "classic_within_ply": Param(
        False,
        "with classic_first: search a classic depth only where it costs at most a ply (no "
        "dearer than the sampled search a depth deeper, measured and predicted first)",
    ),
    "growth_two_back": Param(
        False,
        "with classic_first: predict classic depths and sampled plies from the growth two "
        "depths back (where a chance node enters every other depth), not the last one",
    ),
    "first_cap_two_back": Param(
        False,
        "with growth_two_back and classic_within_ply: price the first sampled ply that caps a "
        "classic depth from the growth of the depth before too, not the growth just measured",
    ),
    "se_gap": Param(
        0.0,
        "draw again at a sampled chance node searched without a window (expectimax's; star1's "
        "and star2's within prune_min_depth of the horizon) until its standard error is at "
        "most this times the root's move gap at the last depth (0: never)",
        high=MAX_SE_GAP,
        low=0.0,
    ),
}


def _make(algorithm: str) -> Callable[..., StarMinimaxBot]:
    def factory(
        game: pyspiel.Game,
        player: int,
        seed: int | None,
        samples: int | None,
        max_depth: int | None,
        time_ms: float | None,
        clock: str,
        max_nodes: int | None,
        prune_min_depth: int,
        shared_samples: bool,
        heuristic: str | Heuristic,
        ordering: str | Ordering,
        table: str,
        **sampled: Any,
    ) -> StarMinimaxBot:
        if max_depth is None and time_ms is None and max_nodes is None:
            time_ms = 200.0  # the MCMS paper's budget per move
        if sampled.get("exact_up_to", 0) is None:  # the hybrid agents' default
            sampled["exact_up_to"] = hybrid_exact_up_to(samples or 0, algorithm)
        check_search_params(
            algorithm, max_depth, time_ms, max_nodes, samples, prune_min_depth, clock, table
        )
        check_two_player_zero_sum(game, algorithm)
        check_sampled_options(samples, SampledOptions(**sampled), algorithm, prune_min_depth)
        evaluation = evaluation_for(game, heuristic)
        move_ordering_for(game, ordering)  # checked now, not at the first move
        seed = seed if seed is not None else random.SystemRandom().getrandbits(63)
        return StarMinimaxBot(
            game,
            player,
            seed,
            algorithm,
            max_depth=max_depth,
            time_ms=time_ms,
            clock=clock,
            max_nodes=max_nodes,
            samples=samples,
            shared_samples=shared_samples,
            prune_min_depth=prune_min_depth,
            evaluation=evaluation,
            ordering=ordering,
            table=table,
            **sampled,
        )

    return factory


_HELP = {
    "expectimax": "depth-limited expectimax with iterative deepening",
    "star1": "Star1 (*-Minimax with chance-node pruning, Ballard 1983; MCMS Algorithm 1)",
    "star2": "Star2 (Star1 plus probing; MCMS Algorithm 2)",
}
_PAPER_NAMES = {"expectimax": "expss", "star1": "star1ss", "star2": "star2ss"}
HYBRID_NAMES = {"expectimax": "exphs", "star1": "star1hs", "star2": "star2hs"}
# The hybrid sampled search as first defined: the paper's, with chance nodes of at most
# `samples` outcomes and those right after the root's move enumerated (where the classic search
# completed a depth beyond them, and the enumeration is predicted to fit the budget),
# systematic draws elsewhere, and the classic search for every depth it can afford. ExpHS's
# definition, and every hybrid agent's before version 0.3.0.
FIRST_HYBRID = {
    "systematic": dataclasses.replace(_SAMPLED["systematic"], default=True),
    "exact_up_to": Param(
        None,
        "enumerate chance nodes with at most this many outcomes (none: the width)",
        int,
        high=MAX_SAMPLES,
        low=0,
    ),
    "exact_plies": dataclasses.replace(_SAMPLED["exact_plies"], default=1),
    "classic_first": dataclasses.replace(_SAMPLED["classic_first"], default=True),
    "classic_trial": dataclasses.replace(_SAMPLED["classic_trial"], default=True),
    "fit_exact_plies": dataclasses.replace(_SAMPLED["fit_exact_plies"], default=True),
}
# One setting for every game with Star1 and Star2 (star1hs, star2hs): the enumeration only
# where it costs at most a ply, a classic depth only where it costs at most a sampled ply, each
# judged by the growth two depths back (the first cap too, since version 0.4.0), and
# stratified draws. Expectimax, which cannot prune, finds its classic depths dearer than a
# sampled ply far more often: with the setting it was level with classic expectimax only by a
# hair in EinStein and worse on random chance trees, where the first definition is level in
# both (docs/sampled.md gives the measurements behind each).
HYBRID = {
    **{name: param for name, param in FIRST_HYBRID.items() if name != "systematic"},
    "exact_up_to": dataclasses.replace(
        FIRST_HYBRID["exact_up_to"],
        help="enumerate chance nodes with at most this many outcomes (none: those whose "
        "outcomes the width covers by at least three quarters)",
    ),
    "stratified": dataclasses.replace(_SAMPLED["stratified"], default=True),
    "fit_within_ply": dataclasses.replace(_SAMPLED["fit_within_ply"], default=True),
    "classic_within_ply": dataclasses.replace(_SAMPLED["classic_within_ply"], default=True),
    "growth_two_back": dataclasses.replace(_SAMPLED["growth_two_back"], default=True),
    "first_cap_two_back": dataclasses.replace(_SAMPLED["first_cap_two_back"], default=True),
}
HYBRID_DEFAULTS: Final = {"expectimax": FIRST_HYBRID, "star1": HYBRID, "star2": HYBRID}


# The hybrid's narrowest width. At one outcome a sampled chance node is a single roll and a
# sampled tree a game with its dice known: in EinStein, Star1HS at one outcome went 3.6 plies
# past the classic search on such trees and lost to Star1 (33.5%); at two it was level
# (docs/sampled.md, "At 200 ms a move").
MIN_HYBRID_SAMPLES: Final = 2


def hybrid_exact_up_to(samples: int, algorithm: str) -> int:
    """The most outcomes of a chance node that the hybrid agent of `algorithm` enumerates at
    width `samples` by default: the width in `exphs` (its first definition); in `star1hs`
    and `star2hs` (since version 0.5.0) every node whose outcomes the width covers by at
    least three quarters, where a sample would skip at most a quarter of them.

    Such a sample saves too little work to buy depth and still costs noise: drawing 18 of
    Pig's 21 rolls, Star2HS searched as deep as Star2 (4.93 plies against 4.92) and scored
    49.907% (49.818-49.996) against it, luck-corrected with Pig's exact values. Elsewhere
    the hybrid's widths draw at most half of a node's outcomes (EinStein's 6 at 2, Ra's 20
    to 23 kinds of tile at 2 and 5, Can't Stop's 126 or 1296 rolls at 15 and 30, random
    chance trees' 16 or more outcomes at 8), and the rule leaves those searches as they were.
    """
    return samples if algorithm == "expectimax" else samples * 4 // 3


def hybrid_options(samples: int, algorithm: str) -> dict[str, Any]:
    """The keywords of `search` that make the sampled search of width `samples` the hybrid
    agent of `algorithm` (exphs, star1hs, star2hs) with its defaults.

    Raises:
      ValueError: for a width below MIN_HYBRID_SAMPLES or an unknown algorithm.
    """
    if samples < MIN_HYBRID_SAMPLES:
        raise ValueError(
            f"the hybrid samples at least {MIN_HYBRID_SAMPLES} outcomes, not {samples}"
        )
    if algorithm not in HYBRID_DEFAULTS:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(HYBRID_DEFAULTS)}")
    params = HYBRID_DEFAULTS[algorithm]
    options = {name: param.default for name, param in params.items()}
    options["exact_up_to"] = hybrid_exact_up_to(samples, algorithm)
    return options


for _algorithm in ALGORITHMS:
    register_agent(
        _algorithm,
        _HELP[_algorithm] + "; samples=c samples c outcomes per chance node (MCMS)",
        {
            "samples": Param(
                None, "outcomes sampled per chance node (none: all)", int, high=MAX_SAMPLES, low=1
            ),
            **_COMMON,
            **_SAMPLED,
        },
    )(_make(_algorithm))
    register_agent(
        _PAPER_NAMES[_algorithm],
        f"MCMS: {_algorithm} with samples=10 outcomes per chance node by default",
        {
            "samples": Param(
                10, "outcomes sampled with replacement per chance node", high=MAX_SAMPLES, low=1
            ),
            **_COMMON,
            **_SAMPLED,
        },
    )(_make(_algorithm))
    register_agent(
        HYBRID_NAMES[_algorithm],
        f"hybrid sampling: {_algorithm} with samples=10, chance nodes enumerated when small "
        + (
            "(at most the width) or right after the root's move, and the classic search "
            "first: systematic draws, every classic depth that fits"
            if _algorithm == "expectimax"
            else "(the width at least three quarters of their outcomes) or right after the "
            "root's move, and the classic search first: stratified draws, classic depths "
            "that cost at most a sampled ply"
        ),
        {
            "samples": Param(
                10,
                "outcomes sampled per chance node (at least 2: one outcome "
                "makes a sampled tree a game with known dice)",
                high=MAX_SAMPLES,
                low=MIN_HYBRID_SAMPLES,
            ),
            **_COMMON,
            **_SAMPLED,
            **HYBRID_DEFAULTS[_algorithm],
        },
    )(_make(_algorithm))
