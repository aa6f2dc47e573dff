"""Luck-corrected scores: control variates over the chance nodes of recorded games.

For a value function V (player 0's expected return in a state), the luck of one chance node is
V(the child that was drawn) minus the probability-weighted mean of V over all its children.
Given the history up to the node, that term has mean zero whatever V is, so the outcome minus
the sum of a game's terms (its correction) has the same expectation as the outcome, and a much
smaller variance when V is good. This is the idea behind gnubg's variance-reduced rollouts and
AIVAT in poker. V only has to be a function of the state; it needs no knowledge of the agents.

Which V: a V that does not look at what the outcome allows corrects nothing (EinStein's static
heuristic is the same before and after the die roll that decides which cube may move). So:

- `exact`: Pig's exact solver (the optimal win probability, as a return).
- `lookahead`: at a decision node, the best move's value for the mover, each move valued by the
  game's heuristic averaged over the chance nodes before the next decision (one ply of
  expectimax); the heuristic itself at chance and terminal nodes.
- `heuristic`: the game's heuristic.
- `learned`, `learned_lookahead`, `learned_lookahead2`: the game's learned value model
  (games.learned, trained on other records by `chancespiel value train`), alone or under one
  or two plies of expectimax.
- `search(depth=D)`, `search(max_nodes=N)` (both: whichever ends first), with
  `heuristic=NAME` (default: the game's; `learned` for its learned value): Star2's value of a
  decision node, the exact expectimax value of D plies, or of the deepest depth completed in
  N nodes (the compiled engine's search, so deeper values cost what a move's search costs).
  No clock: a state always gets the same value, as V must. With `samples=K`, the mean of V
  over a chance node's outcomes is estimated from K sampled outcomes, with the search's own
  heuristic summed over all of them as a control variate (`SampledMean`): unbiased still, at
  K + 1 searches a chance node instead of one per outcome.
- `zero`: 0 everywhere (its corrections are 0: raw scores, for comparison).

The coefficient beta of `corrected = outcome - beta * correction` is fitted per pair on matches
(seat-swapped pairs of games, the unit of every interval here) by K-fold cross-fitting: each
match's beta comes from the other folds, so a match's own luck never tunes its correction. The
correction is used only when it lowers the variance of the match scores; otherwise the raw
scores stand (and the variance ratio is 1).

Forfeits and crashed games are left out (a forfeit stops the game at an arbitrary point, so its
result is not what the chance outcomes played to); their matches are counted.
"""

from __future__ import annotations

import functools
import math
import random
import re
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pyspiel
import tqdm
from numpy.typing import ArrayLike

from chancespiel.evaluation.lookahead import (
    Lookahead,
    distinct_children,
    terminal_or,
)
from chancespiel.evaluation.match import (
    GameKey,
    Record,
    a_score,
    canonical_game,
    game_key,
    is_known_game,
    load_game_cached,
    match_dice,
    rules_digest,
)
from chancespiel.evaluation.positions import ReplayError, replay
from chancespiel.evaluation.stats import MatchInterval, match_interval
from chancespiel.games.core import CHANCE, Core
from chancespiel.games.pig_core import PigCore
from chancespiel.games.registry import (
    DEFAULT_HEURISTIC,
    evaluation_for,
    parse_parameters,
)

T = TypeVar("T")
FOLDS = 10

ValueFunction = Callable[[Core], float]
"""V(state) -> player 0's expected return in [-1, 1] (a state of the search protocol)."""


class LuckError(ValueError):
    """A value function that cannot be used on a game, or a record that cannot be replayed."""


def _static(h: Callable[[Any, int], float]) -> ValueFunction:
    """h for player 0, at any state (see Lookahead)."""
    return Lookahead(h, 0)


def _lookahead(h: Callable[[Any, int], float], depth: int = 1) -> ValueFunction:
    """`depth` plies of expectimax on h (see Lookahead)."""
    return Lookahead(h, depth)


def heuristic_value(game: pyspiel.Game) -> ValueFunction:
    """The game's heuristic for player 0 (see _static)."""
    return _static(evaluation_for(game))


def lookahead_value(game: pyspiel.Game) -> ValueFunction:
    """One ply of expectimax on the game's heuristic (see _lookahead)."""
    return _lookahead(evaluation_for(game))


def _learned(game: pyspiel.Game) -> Callable[[Any, int], float]:
    from chancespiel.games.learned import ModelError, learned_heuristic

    try:
        return learned_heuristic(game)
    except ModelError as e:
        raise LuckError(f"value 'learned': {e}") from None


def _learned_lookahead(game: pyspiel.Game, depth: int) -> ValueFunction:
    """`depth` plies of expectimax on the learned value, with the game's symmetric outcomes
    (the learned value sees the features alone)."""
    from chancespiel.games.registry import symmetric_outcomes_for

    h = _learned(game)
    return Lookahead(h, depth, symmetric_outcomes_for(game.get_type().short_name))


def learned_value(game: pyspiel.Game) -> ValueFunction:
    """The game's learned value model (games.learned) for player 0, at every state."""
    return _learned_lookahead(game, 0)


def learned_lookahead_value(game: pyspiel.Game) -> ValueFunction:
    """One ply of expectimax on the learned value (see Lookahead)."""
    return _learned_lookahead(game, 1)


def learned_lookahead2_value(game: pyspiel.Game) -> ValueFunction:
    """Two plies of expectimax on the learned value (see Lookahead): the chance node between
    the plies averaged exactly, at about the branching factor squared times the cost."""
    return _learned_lookahead(game, 2)


def exact_pig_value(game: pyspiel.Game) -> ValueFunction:
    """Pig's optimal win probability of player 0 (exact solver), as a return 2p - 1: on
    python_pig (either number of dice), and on OpenSpiel's C++ `pig` with two players and no
    piglet rule, whose states are read into python_pig(dice=1) (games.pig)."""
    from chancespiel.games.pig_solver import default_cache_dir, solve_pig

    name = game.get_type().short_name
    params = game.get_parameters()
    if name == "pig" and params["players"] == 2 and not params["piglet"]:
        dice = 1
    elif name == "python_pig":
        dice = int(params.get("dice", 2))
    else:
        raise LuckError(f"value 'exact' needs python_pig or pig (2 players, no piglet), not {game}")
    try:
        solution = solve_pig(
            dice=dice,
            winscore=int(params.get("winscore", 100)),
            sides=int(params.get("diceoutcomes", 6)),
            cache_dir=default_cache_dir(),  # a solve takes a second or more; a read, ms
        )
    except ValueError as e:
        raise LuckError(f"value 'exact': {e}") from None

    def value(state: Core) -> float:
        assert isinstance(state, PigCore)  # the exact value exists for our Pig alone
        return 2.0 * solution.state_win_probability(state, 0) - 1.0

    return value


SEARCH = "search"
SEARCH_SPEC = (  # as help shows it
    f"{SEARCH}(depth=D|max_nodes=N[,heuristic=NAME][,samples=K][,chance_samples=C])"
)
SEARCH_PARAMS = ("depth", "max_nodes", "heuristic", "samples", "chance_samples")
MAX_SEARCH_DEPTH = 64  # a node budget alone deepens up to this many plies


def search_value(
    game: pyspiel.Game,
    depth: int | None = None,
    max_nodes: int | None = None,
    heuristic: str = DEFAULT_HEURISTIC,
    samples: int | None = None,
    chance_samples: int | None = None,
) -> ValueFunction:
    """Star2 on `heuristic` for player 0: to `depth` plies, or as deep as `max_nodes` nodes
    complete (both: whichever ends first); the heuristic itself at a chance node (a chance
    node's child that is one, as in EWN's setups). With `samples`, a `SampledMean` whose
    control is that same heuristic (cheap, what the search refines, and one set of stored
    learned values for both). With `chance_samples`, the search is MCMS's Star2 (star2ss),
    `chance_samples` outcomes drawn at each of its own chance nodes, seeded by the state, so
    that V stays a function of the state: a deeper search for the cost where chance nodes
    are wide (Can't Stop's 126 rolls), at the price of its sampling error in V.

    Raises:
      LuckError: without a bound (a search of a long game need not end), for a bound below 1,
        a heuristic the game does not know, a game Star2 cannot search, or samples not in
        1..MAX_SAMPLES (either of them).
    """
    from chancespiel.agents.search_common import check_two_player_zero_sum
    from chancespiel.agents.star_minimax import search

    try:
        check_two_player_zero_sum(game, "star2")
    except ValueError as e:
        raise LuckError(f"value 'search': {e}") from None

    if depth is None and max_nodes is None:
        raise LuckError(
            "value 'search' needs depth= or max_nodes= (without a bound a search need not end)"
        )
    for key, bound in (("depth", depth), ("max_nodes", max_nodes)):
        if bound is not None and (
            isinstance(bound, bool) or not isinstance(bound, int) or bound < 1
        ):
            raise LuckError(f"value 'search': {key} must be an integer >= 1, got {bound!r}")
    if depth is not None and depth > MAX_SEARCH_DEPTH:
        raise LuckError(f"value 'search': depth must be at most {MAX_SEARCH_DEPTH}, got {depth}")
    for key, count in (("samples", samples), ("chance_samples", chance_samples)):
        if count is not None and (
            isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_SAMPLES
        ):
            raise LuckError(
                f"value 'search': {key} must be an integer in 1..{MAX_SAMPLES}, got {count!r}"
            )
    try:
        h = evaluation_for(game, heuristic)
    except ValueError as e:
        raise LuckError(f"value 'search': {e}") from None
    # Always a max_depth: without one the search stops at one ply where the move is forced,
    # and V would be shallowest exactly where play has no choice.
    plies = depth if depth is not None else MAX_SEARCH_DEPTH

    def value(state: Core) -> float:
        terminal = terminal_or(state)
        if terminal is not None:
            return terminal
        player = state.current_player()
        if player == CHANCE:
            return h(state, 0)
        found = search(
            state,
            game,
            "star2",
            max_depth=plies,
            max_nodes=max_nodes,
            evaluation=h,
            samples=chance_samples,
            seed=_state_seed(state) if chance_samples else 0,
        )
        if found.depth == 0:  # not even one ply within the node budget
            return h(state, 0)
        return found.value if player == 0 else -found.value

    return value if samples is None else SampledMean(value, _static(h), samples)


MAX_SAMPLES = 10_000


def _state_seed(state: Core) -> int:
    """A seed that is a function of the state alone, in every process: its `state_key` where
    that hashes the state's fields (ints, so not salted per process), else a CRC of its text."""
    return state.state_key() if state.has_state_key() else zlib.crc32(str(state).encode())


@dataclass(frozen=True)
class SampledMean:
    """A costly value whose mean over a chance node's outcomes is estimated, not summed.

    V of the drawn outcome is computed; the mean of V over the outcomes is estimated as the
    mean of a cheap `control` C summed over every outcome, plus the mean of V - C over
    `samples` outcomes drawn by their probabilities (with replacement) by a generator seeded
    with the node's name (the record and the step, fixed before the draw; `luck_and_drift`)
    and `salt`. The samples do not depend on the draw and the estimate's error has mean zero
    over them, so each luck term keeps mean zero and the correction stays unbiased (a control
    variate inside the control variate); since every game's nodes get their own samples, the
    errors of different games are independent, so they average out over matches instead of
    repeating where games share a path. It adds the variance of V - C over the outcomes
    divided by `samples`, small where C follows V. A chance node costs `samples` + 1 values V
    instead of one per outcome: Can't Stop's rolls have 126.
    """

    value: ValueFunction
    control: ValueFunction
    samples: int
    salt: str = ""  # another salt, other samples (each salt is one draw of all of them)

    def __call__(self, state: Core) -> float:
        return self.value(state)

    def chance(self, state: Core, action: int | None, node: str) -> tuple[float, float]:
        """V of the child `action` (nan for None: the mean alone) and the estimated mean of V
        over the children of the chance node named `node` (the returns in place of V and C at
        children that end the game)."""
        outcomes: list[int] = []
        probs: list[float] = []
        valued: dict[int, float] = {}  # V of the children valued so far
        children: dict[int, Core] = {}
        mean_control = 0.0
        control: dict[int, float] = {}
        for outcome, prob, child, end in _children(state):
            c = self.control(child) if end is None else end
            if end is not None:
                valued[outcome] = end
            control[outcome] = c
            children[outcome] = child
            mean_control += prob * c
            outcomes.append(outcome)
            probs.append(prob)

        def v(outcome: int) -> float:
            if outcome not in valued:
                valued[outcome] = self.value(children[outcome])
            return valued[outcome]

        # a string seed is hashed with SHA-512: the same samples in every process and version
        picks = random.Random(f"{self.salt}|{node}").choices(
            outcomes, weights=probs, k=self.samples
        )
        gap = math.fsum(v(o) - control[o] for o in picks) / self.samples
        return (math.nan if action is None else v(action)), mean_control + gap


def _parametrized(game: pyspiel.Game, name: str) -> tuple[str, ValueFunction]:
    """A value function with parameters, `search(...)`, and its name as the user wrote it.

    Raises:
      LuckError: for a malformed name, another function, or bad parameters.
    """
    name = "".join(name.split())
    try:
        params = parse_parameters(name)
    except ValueError as e:
        raise LuckError(f"value {name!r}: {e}") from None
    if params.pop("name") != SEARCH:
        raise LuckError(f"unknown value function {name!r}; known: {', '.join(known_values())}")
    unknown = sorted(set(params) - set(SEARCH_PARAMS))
    if unknown:
        raise LuckError(
            f"value 'search': unknown parameter(s) {unknown}; known: {', '.join(SEARCH_PARAMS)}"
        )
    heuristic = params.get("heuristic", DEFAULT_HEURISTIC)
    if not isinstance(heuristic, str):
        raise LuckError(f"value 'search': heuristic must be a name, got {heuristic!r}")
    return name, search_value(
        game,
        params.get("depth"),
        params.get("max_nodes"),
        heuristic,
        params.get("samples"),
        params.get("chance_samples"),
    )


def value_names(text: str) -> list[str]:
    """Comma-separated value functions, commas inside parentheses kept: 'lookahead,
    search(depth=3,heuristic=learned)' is two names."""
    names, depth, start = [], 0, 0
    for i, char in enumerate(text + ","):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            if text[start:i].strip():
                names.append(text[start:i].strip())
            start = i + 1
    return names


def zero_value(game: pyspiel.Game) -> ValueFunction:
    """0 everywhere: every correction is 0 (raw scores, for comparison)."""

    def value(state: Core) -> float:
        return 0.0

    return value


VALUES: dict[str, Callable[[pyspiel.Game], ValueFunction]] = {
    "exact": exact_pig_value,
    "lookahead": lookahead_value,
    "heuristic": heuristic_value,
    "learned": learned_value,
    "learned_lookahead": learned_lookahead_value,
    "learned_lookahead2": learned_lookahead2_value,
    "zero": zero_value,
}


def default_value_name(game: pyspiel.Game) -> str:
    """The best value function available for `game`: Pig's solver if it applies, else the
    one-ply lookahead on the game's learned value if it has one (on held-out records of EWN
    and Can't Stop it saves more matches than the lookahead on the hand-written heuristic;
    results/values/luck_held_out), else the lookahead on the heuristic."""
    from chancespiel.games.learned import has_learned_value

    if game.get_type().short_name == "python_pig":
        try:
            exact_pig_value(game)
            return "exact"
        except LuckError:
            pass
    return "learned_lookahead" if has_learned_value(game) else "lookahead"


@functools.lru_cache(maxsize=16)
def value_function(game_string: str, name: str | None = None) -> tuple[str, ValueFunction]:
    """The value function `name` (default: the game's best) of a game, with its name.

    Raises:
      LuckError: for an unknown name or one that does not apply to the game.
    """
    if not is_known_game(game_string):
        raise LuckError(
            f"game {game_string!r} is not loaded here: the correction replays its games, so it "
            "needs the game's code (chancespiel --import MODULE)"
        )
    game = load_game_cached(game_string)
    if name is None:
        name = default_value_name(game)
    if name in VALUES:
        return name, VALUES[name](game)
    if "(" in name or name.strip() == SEARCH:
        return _parametrized(game, name)
    raise LuckError(f"unknown value function {name!r}; known: {', '.join(known_values())}")


def known_values() -> list[str]:
    """The value functions' names, the parametrized one with its parameters."""
    return [*VALUES, SEARCH_SPEC]


def chance_terms(
    game: pyspiel.Game, history: Sequence[int], value: ValueFunction, key: str = ""
) -> list[float]:
    """The luck of each chance node of a game: V(drawn child) - sum_o p(o) V(child o) (the
    mean estimated by a `SampledMean` value; `key` names the game, see `luck_and_drift`).

    Raises:
      LuckError: if the history is not a legal sequence of actions of the game.
    """
    return luck_and_drift(game, history, value, drift=False, key=key)[0]


def labelled_drift(
    game: pyspiel.Game, history: Sequence[int], value: ValueFunction
) -> list[tuple[str, float]]:
    """What V changes by apart from the luck of the draws, node by node, with the kind of
    node: across each move of the players, V(after the move) - V(before), labelled by the
    move's kind (`move_kind`); at a chance node, the mean of its outcomes' V minus V there,
    labelled CHANCE_GAP.

    V is taken as the returns at the end, so a game's return telescopes into V(start) + the
    chance terms + these, and what the correction leaves (at beta = 1) is their sum: a value
    corrects well only if it drifts little, across the players' moves above all.

    Raises:
      LuckError: if the history is not a legal sequence of actions of the game.
    """
    return luck_and_drift(game, history, value)[1]


def luck_and_drift(
    game: pyspiel.Game,
    history: Sequence[int],
    value: ValueFunction,
    drift: bool = True,
    key: str = "",
) -> tuple[list[float], list[tuple[str, float]]]:
    """`chance_terms` and, with `drift`, `labelled_drift` of a game in one replay: the two
    share V of every chance node's outcomes, the costly part.

    `key` names the game (`record_key`) for a `SampledMean` value: a chance node is named by
    the key and its step, or without a key by its path, and its samples drawn by that name.

    Raises:
      LuckError: if the history is not a legal sequence of actions of the game.
    """

    def exact_at_end(state: Core) -> float:  # (`zero` is 0 at the end too)
        end = terminal_or(state)
        return value(state) if end is None else end

    luck: list[float] = []
    changes: list[tuple[str, float]] = []
    here = 0.0  # with `drift`, V of the state about to be replayed: each state's V once
    try:
        for step, state, action in replay(game, history):
            player = state.current_player()
            if drift and step == 0:
                here = exact_at_end(state)
            if player == CHANCE:
                node = chance_node_name(key, history, step)
                drawn, mean, exact_drawn, exact_mean = chance_node_values(
                    state, action, value, node
                )
                luck.append(drawn - mean)
                if drift:
                    changes.append((CHANCE_GAP, exact_mean - here))
                    here = exact_drawn
            elif drift:
                after = exact_at_end(state.child(action))
                changes.append((move_kind(state.action_to_string(player, action)), after - here))
                here = after
    except ReplayError as e:
        raise LuckError(str(e)) from None
    return luck, changes


def chance_node_name(key: str, history: Sequence[int], step: int) -> str:
    """The name of the chance node at `step` of a game, which seeds a `SampledMean`'s samples
    there: the game's key (`record_key`) and the step, or without a key the path to the node.
    Fixed before the node's draw, never by it."""
    return f"{key}|{step}" if key else ",".join(map(str, history[:step]))


def chance_node_values(
    state: Core, action: int | None, value: ValueFunction, node: str
) -> tuple[float, float, float, float]:
    """At the chance node `state` named `node` (`chance_node_name`): V of the drawn child
    `action`, the mean of V over the children (estimated by a `SampledMean` value), and the
    same two with the returns in place of V at the children that end the game. The luck of
    the draw is the first minus the second. With `action` None, the means alone (nan for the
    drawn child)."""
    if isinstance(value, SampledMean):
        drawn, mean = value.chance(state, action, node)
        return drawn, mean, drawn, mean
    return _chance_values(state, action, value)


def _children(state: Core) -> Iterator[tuple[int, float, Core, float | None]]:
    """(outcome, probability, child, its returns for player 0 if it ends the game, else None)
    for each outcome of a chance node."""
    for outcome, prob in state.chance_outcomes():
        child = state.child(outcome)
        yield outcome, prob, child, terminal_or(child)


def _chance_values(
    state: Core, action: int | None, value: ValueFunction
) -> tuple[float, float, float, float]:
    """At a chance node: V of the drawn child (nan for None) and the mean of V over the
    children, and the same with the returns in place of V at the children that end the game."""
    drawn = exact_drawn = math.nan
    mean = exact_mean = 0.0
    outcomes, children = distinct_children(
        state, value.symmetric if isinstance(value, Lookahead) else None
    )
    values = [value(child) for child in children]
    ends = [terminal_or(child) for child in children]
    for outcome, prob, k in outcomes:
        v, end = values[k], ends[k]
        exact = v if end is None else end  # V itself unless the outcome ends the game
        mean += prob * v
        exact_mean += prob * exact
        if outcome == action:
            drawn, exact_drawn = v, exact
    return drawn, mean, exact_drawn, exact_mean


CHANCE_GAP = "chance"
"""The kind of the drift at chance nodes (the mean of the outcomes' V minus V there)."""


def move_kind(name: str) -> str:
    """A move's kind for the drift by kind: the leading letters of its name, in lower case
    ("Bid sun 9" -> "bid", "use 2 and 7" -> "use", "B1-diag" -> "b"), or "move"."""
    found = _KIND.match(name)
    return found.group(0).lower() if found else "move"


_KIND = re.compile(r"[A-Za-z]+")


def drift_terms(game: pyspiel.Game, history: Sequence[int], value: ValueFunction) -> list[float]:
    """The drift of V node by node (`labelled_drift` without the labels)."""
    return [term for _, term in labelled_drift(game, history, value)]


def game_correction(game: pyspiel.Game, history: Sequence[int], value: ValueFunction) -> float:
    """The correction of one game (player 0's return): the sum of its chance nodes' luck."""
    return math.fsum(chance_terms(game, history, value))


def _in_a_units(
    record: Record, terms: Callable[[pyspiel.Game, Sequence[int]], T]
) -> tuple[T, float]:
    """`terms(game, history)` of a record, and the factor that turns player 0's return units
    into A's score units (a score is (return + 1) / 2; A is player 1 in the second game).

    Raises:
      LuckError: naming the record, if its history does not replay.
    """
    game = load_game_cached(record["game"])
    warn_if_other_rules(record)
    try:
        found = terms(game, record["history"])
    except LuckError as e:
        raise LuckError(
            f"the game of match {record['match']} (game index {record['game_index']}, "
            f"{record['a']} vs {record['b']}) does not replay: {e}"
        ) from None
    return found, (0.5 if record["game_index"] == 0 else -0.5)


def record_key(record: Record) -> str:
    """A record's name, fixed before its game was played: its game, players, match and game
    index (never its history); it names the samples of a `SampledMean` (as written: the names
    of committed corrections' samples stay what they were). Not what tells games apart
    (`match.game_key` does): records of runs with other seeds share it."""
    return "|".join(str(record[k]) for k in ("game", "a", "b", "match", "game_index"))


def record_correction(record: Record, value: ValueFunction) -> float:
    """The correction of a record, in A's score units.

    Raises:
      LuckError: naming the record, if its history does not replay.
    """
    key = record_key(record)
    found, factor = _in_a_units(
        record, lambda game, history: chance_terms(game, history, value, key)
    )
    return factor * math.fsum(found)


class CachedCorrections:
    """`record_correction` of each record computed once, for one value function: replaying a
    game with a lookahead value costs up to a second, and a report or a sequential rule asks
    for the same records again (its text, its files and its plots; every look)."""

    def __init__(self) -> None:
        self.cache: dict[GameKey, float] = {}

    def __call__(self, record: Record, value: ValueFunction) -> float:
        # by the game's key: its dice (runs with other seeds reuse match numbers) and its
        # agents' models (one spec, two models: two games), never by how it is spelled
        key = game_key(record)
        if key not in self.cache:
            self.cache[key] = record_correction(record, value)
        return self.cache[key]


def record_luck_and_drift(record: Record, value: ValueFunction) -> tuple[float, dict[str, float]]:
    """A record's correction (`record_correction`) and the drift of V in it by kind of node
    (`labelled_drift`), both in A's score units, from one replay.

    Raises:
      LuckError: naming the record, if its history does not replay.
    """
    key = record_key(record)
    (luck, drift), factor = _in_a_units(
        record, lambda game, history: luck_and_drift(game, history, value, key=key)
    )
    by_kind: dict[str, list[float]] = {}
    for kind, term in drift:
        by_kind.setdefault(kind, []).append(term)
    return factor * math.fsum(luck), {k: factor * math.fsum(t) for k, t in by_kind.items()}


def warn_if_other_rules(record: Record) -> None:
    """Warns (once per game and digest) if a record was played under other rules or
    parameters than its game has here: it is replayed all the same."""
    digest = record.get("rules")  # absent in records of format 1
    if digest is not None and digest != rules_digest(record["game"]):
        _warn_rules(record["game"], digest)


@functools.lru_cache(maxsize=64)
def _warn_rules(game: str, digest: str) -> None:
    warnings.warn(
        f"records of {game} were played under other rules or parameters (digest {digest}, "
        f"now {rules_digest(game)}); replaying them anyway",
        stacklevel=4,
    )


def fitted_beta(raw: ArrayLike, corrections: ArrayLike) -> float:
    """The variance-minimizing coefficient Cov(raw, c) / Var(c) (0 below two points or when
    the corrections do not vary)."""
    x = np.asarray(raw, dtype=float)
    c = np.asarray(corrections, dtype=float)
    if len(x) < 2:
        return 0.0
    cm = c - c.mean()
    var = float(cm @ cm)
    return float(cm @ (x - x.mean())) / var if var > 1e-15 else 0.0


def cross_fitted(
    raw: ArrayLike, corrections: ArrayLike, folds: int = FOLDS
) -> tuple[np.ndarray, float]:
    """Corrected scores raw - beta_k * correction with beta_k fitted on the other folds (match
    m is in fold m mod folds), and the beta fitted on all matches (for display)."""
    x = np.asarray(raw, dtype=float)
    c = np.asarray(corrections, dtype=float)
    n = len(x)
    folds = max(1, min(folds, n))
    fold = np.arange(n) % folds
    corrected = x.copy()
    for k in range(folds):
        inside = fold == k
        corrected[inside] = x[inside] - fitted_beta(x[~inside], c[~inside]) * c[inside]
    return corrected, fitted_beta(x, c)


@dataclass
class LuckSummary:
    """Raw and luck-corrected score rates of A against B over the same whole clean matches."""

    value: str
    matches: int  # whole matches used (both games played out, no forfeit, no crash)
    excluded_matches: int  # matches with a forfeit, a crash or a missing game
    forfeits: int  # games
    crashes: int  # games
    raw: MatchInterval
    corrected: MatchInterval
    beta: float
    used: bool  # False: the correction did not lower the variance; corrected = raw

    @property
    def variance_ratio(self) -> float:
        """Raw over corrected variance of a match's score (the factor of matches saved)."""
        if not self.corrected.variance or math.isnan(self.corrected.variance):
            return math.nan
        return self.raw.variance / self.corrected.variance

    def as_dict(self) -> dict[str, Any]:
        """The `luck` object of `report --json --luck`."""
        return {
            "value": self.value,
            "rate": self.corrected.mean,
            "ci95": [self.corrected.low, self.corrected.high],
            "variance_ratio": self.variance_ratio,
            "raw_rate": self.raw.mean,
            "raw_ci95": [self.raw.low, self.raw.high],
            "beta": self.beta,
            "used": self.used,
            "matches": self.matches,
            "excluded_matches": self.excluded_matches,
            "forfeits": self.forfeits,
            "crashes": self.crashes,
        }


def whole_matches(records: Iterable[Record]) -> tuple[list[tuple[Record, Record]], int, int, int]:
    """The clean whole matches (both games, no error) in the order of their dice
    (`match_dice`: match order within one run), and the numbers of excluded matches,
    forfeited games and crashed games. The records are one pairing's (`game_key(r).pair`),
    each game once (`unique_records`)."""
    games: dict[int, dict[int, Record]] = {}
    forfeits = crashes = 0
    for record in records:
        games.setdefault(match_dice(record), {})[record["game_index"]] = record
        if record.get("error") is not None:
            if a_score(record) is None:
                crashes += 1
            else:
                forfeits += 1
    clean = []
    excluded = 0
    for match in sorted(games):
        pair = games[match]
        if len(pair) == 2 and all(r.get("error") is None for r in pair.values()):
            clean.append((pair[0], pair[1]))
        else:
            excluded += 1
    return clean, excluded, forfeits, crashes


def match_rates(matches: Sequence[tuple[Record, Record]]) -> list[float]:
    """A's score rate in each whole match (both games scored, as whole_matches keeps them)."""
    return [sum(a_score(r) or 0.0 for r in pair) / 2.0 for pair in matches]


def corrected_rates(
    matches: Sequence[tuple[Record, Record]],
    fn: ValueFunction,
    correct: Callable[[Record, ValueFunction], float] = record_correction,
    folds: int = FOLDS,
) -> tuple[list[float], np.ndarray, float]:
    """A's raw score rate in each whole match, its luck-corrected rate (cross-fitted) and the
    coefficient fitted on all of them."""
    raw = match_rates(matches)
    # a bar on a terminal only (disable=None): long games of Can't Stop take a while
    bar = tqdm.tqdm(matches, desc="luck correction", unit="match", leave=False, disable=None)
    corrections = [(correct(first, fn) + correct(second, fn)) / 2.0 for first, second in bar]
    corrected, beta = cross_fitted(raw, corrections, folds)
    return raw, corrected, beta


def luck_summary(
    records: Sequence[Record],
    value: str | None = None,
    folds: int = FOLDS,
    correction: Callable[[Record, ValueFunction], float] | None = None,
) -> LuckSummary:
    """Raw and corrected match-level score rates of one pair's records (one game, A vs B).

    `correction` replaces `record_correction`, e.g. by a cache for repeated summaries.

    Raises:
      LuckError: if the value function does not apply or a record cannot be replayed.
    """
    if not records:
        raise LuckError("no records")
    name, fn = value_function(canonical_game(records[0]["game"]), value)
    matches, excluded, forfeits, crashes = whole_matches(records)
    raw, corrected, beta = corrected_rates(matches, fn, correction or record_correction, folds)
    raw_interval = match_interval(raw)
    corrected_interval = match_interval(list(corrected))
    used = len(raw) >= 2 and corrected_interval.variance < raw_interval.variance
    if not used:
        corrected_interval = raw_interval
    return LuckSummary(
        name,
        len(matches),
        excluded,
        forfeits,
        crashes,
        raw_interval,
        corrected_interval,
        beta,
        used,
    )
