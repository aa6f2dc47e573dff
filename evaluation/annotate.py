"""A played game analysed move by move against a reference, as gnubg analyses a match.

The reference is a value function V (player 0's expected return, `evaluation.luck`): Pig's
exact solver where it applies, else a named search on the game's learned value. Every number
below is in expected score, (return + 1) / 2: the win probability where a game has no draws.

- A decision's *error* is the mover's expected score after the reference's best move minus
  after the move played (>= 0). The value after a move is V of the position it leads to, or,
  where chance comes next, the mean of V over the outcomes (the mean the luck of that draw is
  measured from). Errors are flagged doubtful, bad or blunder from `THRESHOLDS` up.
- A chance event's *luck* is V after the outcome minus the mean of V over the outcomes: the
  term the luck correction sums (`luck.chance_node_values`, the same function). It is player
  0's; player 1's is its negative.

The position's value P is V at a decision node, the mean over the outcomes at a chance node,
and the result at the end. Across a move P changes by the best move's value minus V there,
less the error; across a draw, by the luck. So for each player

    final = initial + own luck - own errors + the opponent's errors + residual,

a sum that telescopes: nothing is lost. The residual is the reference's inconsistency: what
its best move's value differs from its value of the position (a search one ply deeper than
at the position), and at chained chance nodes (EWN's setup) the mean of the outcomes'
values against V of the node. For the exact solver V is the value of optimal play, so the
residual vanishes (up to the solver's tolerance) and the errors are its regrets, as
`experiment pig-regret` measures them. The luck-adjusted result is the result less the luck:
what the luck correction counts for the game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import pyspiel

from chancespiel.agents.protocol import search_state
from chancespiel.evaluation.luck import (
    CHANCE,
    SEARCH,
    LuckError,
    ValueFunction,
    chance_node_name,
    chance_node_values,
    exact_pig_value,
    record_key,
    value_function,
    warn_if_other_rules,
)
from chancespiel.evaluation.match import (
    Record,
    is_known_game,
    load_game_cached,
    record_seats,
)
from chancespiel.evaluation.positions import ReplayError, replay
from chancespiel.games.core import Core

# Errors in the mover's expected score from which a move is flagged (gnubg's 0.04, 0.08 and
# 0.16 of equity, which spans twice the range of a win probability).
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.08), ("bad", 0.04), ("doubtful", 0.02))
FLAGS = tuple(name for name, _ in reversed(THRESHOLDS))  # mildest first
SEARCH_DEPTH = 2  # the default reference's plies, elsewhere than Pig


class AnnotateError(ValueError):
    """A record or a reference that cannot be annotated."""


@dataclass(frozen=True)
class Reference:
    """The value function the moves are judged by, with its name as the output states it."""

    name: str
    value: ValueFunction
    exact: bool  # Pig's exact solver: the decomposition has no residual


def default_reference(game: pyspiel.Game) -> str:
    """Pig's exact solver where it applies, else Star2 to `SEARCH_DEPTH` plies on the game's
    learned value (on its heuristic for a game without one)."""
    from chancespiel.games.learned import has_learned_value

    try:
        exact_pig_value(game)
        return "exact"
    except LuckError:
        pass
    heuristic = "learned" if has_learned_value(game) else "default"
    return f"search(depth={SEARCH_DEPTH},heuristic={heuristic})"


def reference_for(game_string: str, spec: str | None = None) -> Reference:
    """The reference `spec` (a value function's name, as `report --luck --value` takes it;
    default: `default_reference`) for a game.

    Raises:
      AnnotateError: for a game that is not loaded or not two-player zero-sum, or a spec that
        does not apply to it.
    """
    from chancespiel.agents.search_common import check_two_player_zero_sum

    if not is_known_game(game_string):
        raise AnnotateError(
            f"game {game_string!r} is not loaded: annotating replays it, so it needs the "
            "game's code (chancespiel --import MODULE)"
        )
    game = load_game_cached(game_string)
    try:
        check_two_player_zero_sum(game, "annotate")
    except ValueError as e:
        raise AnnotateError(str(e).replace("agent annotate", "annotate")) from None
    name = spec if spec is not None else default_reference(game)
    try:
        name, value = value_function(str(game), name)
    except LuckError as e:
        raise AnnotateError(f"--reference: {e}") from None
    return Reference(name, value, name == "exact")


def describe_reference(reference: Reference) -> str:
    """One line on what the reference is."""
    if reference.exact:
        return "exact: Pig's exact solver (optimal play's win probability)"
    if reference.name.startswith(SEARCH):
        return f"{reference.name}: Star2's value of each position with these parameters"
    return f"{reference.name}: the luck correction's value function of that name"


@dataclass
class Step:
    """One action of the game: a decision (player >= 0) or a chance event (player CHANCE).

    `value` is player 0's expected score in the position before the action (its P). At a
    decision, `played_value` and `best_value` are the mover's expected score after the move
    played and after the reference's best, `error` their difference; at a chance event, `luck`
    is player 0's. `residual` is player 0's share of the change of P that neither explains.
    """

    step: int
    player: int
    action: int
    text: str
    value: float
    best: int | None = None
    best_text: str = ""
    played_value: float = math.nan
    best_value: float = math.nan
    error: float = 0.0
    flag: str = ""
    forced: bool = False
    luck: float = 0.0
    residual: float = 0.0

    @property
    def decision(self) -> bool:
        return self.player != CHANCE


@dataclass
class PlayerTotals:
    """One player's sums over a game (expected score): final = initial + luck - errors +
    opponent_errors + residual; adjusted = final - luck."""

    player: int
    agent: str
    initial: float
    final: float
    luck: float
    errors: float
    opponent_errors: float
    residual: float
    decisions: int  # not forced
    flags: dict[str, int] = field(default_factory=dict)

    @property
    def adjusted(self) -> float:
        """The luck-adjusted result: the final value less the luck."""
        return self.final - self.luck


@dataclass
class Annotation:
    """A game analysed: its steps, both players' totals, and the final position."""

    game: str
    reference: str
    seats: tuple[str, str]
    match: int | None
    game_index: int | None
    seed: int | None
    ended: bool  # the history reaches the end of the game (not cut by a forfeit or crash)
    error: str  # how the record says the game ended early, or ""
    returns: list[float] | None  # as recorded
    steps: list[Step]
    players: list[PlayerTotals]

    def as_dict(self) -> dict[str, Any]:
        """The annotation as JSON data (`annotate --json`)."""
        return {
            "game": self.game,
            "reference": self.reference,
            "units": "expected score (return + 1) / 2: the win probability without draws",
            "thresholds": dict(THRESHOLDS),
            "seats": list(self.seats),
            "match": self.match,
            "game_index": self.game_index,
            "seed": self.seed,
            "ended": self.ended,
            "error": self.error,
            "returns": self.returns,
            "steps": [_finite(asdict(s)) for s in self.steps],
            "players": [{**asdict(p), "adjusted": p.adjusted} for p in self.players],
        }


def _finite(row: dict[str, Any]) -> dict[str, Any]:
    """NaN (no value: a chance event's move values) as JSON null."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


def flag_of(error: float) -> str:
    """The flag of an error (`THRESHOLDS`), "" below the mildest."""
    for name, threshold in THRESHOLDS:
        if error >= threshold:
            return name
    return ""


def _score(value: float) -> float:
    """Player 0's return as player 0's expected score."""
    return (value + 1.0) / 2.0


def _ends(state: Core) -> float | None:
    return float(state.returns()[0]) if state.is_terminal() else None


def annotate_history(
    game: pyspiel.Game, history: Sequence[int], reference: Reference, key: str = ""
) -> tuple[list[Step], float, float]:
    """The steps of a game, and P at its start and at its end (player 0's return).

    `key` names the game's chance nodes for a sampled reference (`luck.chance_node_name`):
    every chance node after a decision is named by its step, whichever move leads to it, so
    the moves compared share their samples.

    Raises:
      AnnotateError: if the history is not a legal sequence of actions of the game.
    """
    value = reference.value

    def at(state: Core) -> float:  # V, and the returns at the end
        end = _ends(state)
        return value(state) if end is None else end

    steps: list[Step] = []
    pending: dict[int, tuple[float, float, float, float]] = {}  # the played move's draw
    here: float | None = None  # P of the position about to be replayed, once known
    initial = 0.0
    try:
        for step, state, action in replay(game, history):
            player = state.current_player()
            text = state.action_to_string(player, action)
            if player == CHANCE:
                found = pending.pop(step, None)
                if found is None:
                    node = chance_node_name(key, history, step)
                    found = chance_node_values(state, action, value, node)
                drawn, mean, exact_drawn, exact_mean = found
                residual = 0.0 if here is None else exact_mean - here  # chained chance nodes
                if step == 0:
                    initial = exact_mean
                luck = drawn - mean
                # P after the draw: V of the outcome, or (a chance node again) its own mean,
                # settled at the next step as that node's residual
                residual += exact_drawn - exact_mean - luck
                steps.append(
                    Step(
                        step,
                        player,
                        action,
                        text,
                        _score(exact_mean),
                        luck=luck / 2.0,
                        residual=residual / 2.0,
                    )
                )
                here = exact_drawn
                continue
            if here is None:
                here = at(state)
                initial = here
            legal = state.legal_actions()
            after: dict[int, float] = {}
            for move in legal if len(legal) > 1 else [action]:
                child = state.clone()
                child.apply(move)
                if child.current_player() == CHANCE:
                    played = move == action and step + 1 < len(history)
                    following = history[step + 1] if played else None  # the draw, if made
                    found = chance_node_values(
                        child, following, value, chance_node_name(key, history, step + 1)
                    )
                    if played:
                        pending[step + 1] = found
                    after[move] = found[3]
                else:
                    after[move] = at(child)
            sign = 1.0 if player == 0 else -1.0
            best = max(after, key=lambda a: (sign * after[a], a == action))  # ties: the move
            error = sign * (after[best] - after[action]) / 2.0 + 0.0  # (never -0.0)
            steps.append(
                Step(
                    step,
                    player,
                    action,
                    text,
                    _score(here),
                    best=best,
                    best_text=state.action_to_string(player, best),
                    played_value=_score(sign * after[action]),
                    best_value=_score(sign * after[best]),
                    error=error,
                    flag=flag_of(error),
                    forced=len(legal) == 1,
                    residual=(after[best] - here) / 2.0,  # the reference's inconsistency
                )
            )
            here = after[action]
    except ReplayError as e:
        raise AnnotateError(str(e)) from None
    if here is None:  # an empty history
        here = initial = at(search_state(game.new_initial_state()))
    return steps, initial, here


def totals(
    steps: Sequence[Step], initial: float, final: float, seats: Sequence[str]
) -> list[PlayerTotals]:
    """Both players' sums (player 0's P at the start and end given as returns)."""
    out = []
    for player in (0, 1):
        sign = 1.0 if player == 0 else -1.0
        own = [s for s in steps if s.player == player]
        theirs = [s for s in steps if s.player == 1 - player]
        flags = {name: sum(s.flag == name for s in own) for name in FLAGS}
        out.append(
            PlayerTotals(
                player,
                seats[player],
                _score(sign * initial),
                _score(sign * final),
                sign * math.fsum(s.luck for s in steps),
                math.fsum(s.error for s in own),
                math.fsum(s.error for s in theirs),
                sign * math.fsum(s.residual for s in steps),
                sum(not s.forced for s in own),
                flags,
            )
        )
    return out


def annotate_record(record: Record, reference: Reference | None = None) -> Annotation:
    """The annotation of one game record (`reference`: default for its game).

    Raises:
      AnnotateError: for a game that cannot be annotated or a history that does not replay.
    """
    if reference is None:
        reference = reference_for(record["game"])
    game = load_game_cached(record["game"])
    warn_if_other_rules(record)
    try:
        steps, initial, final = annotate_history(
            game, record["history"], reference, record_key(record)
        )
    except AnnotateError as e:
        raise AnnotateError(
            f"the game of match {record.get('match')} (game index {record.get('game_index')}) "
            f"does not replay: {e}"
        ) from None
    seats = record_seats(record)
    state = game.new_initial_state()
    for action in record["history"]:
        state.apply_action(action)
    error = record.get("error") or {}
    return Annotation(
        record["game"],
        reference.name,
        seats,
        record.get("match"),
        record.get("game_index"),
        record.get("seed"),
        state.is_terminal(),
        f"{error.get('kind')}: {error.get('message')}" if error else "",
        record.get("returns"),
        steps,
        totals(steps, initial, final, seats),
    )


def fixed(value: float, signed: bool = False) -> str:
    """A value to three decimals ("" for NaN), never "-0.000" (a sum that cancels to -1e-17
    is no loss)."""
    if math.isnan(value):
        return ""
    value = round(value, 3) + 0.0  # (-0.0 + 0.0 is 0.0)
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def format_annotation(annotation: Annotation, reference: Reference) -> str:
    """The annotation as text: a line per step, then each player's sums."""
    a = annotation
    lines = [
        f"{a.game}, match {a.match} game {a.game_index} (seed {a.seed}): "
        f"player 0 {a.seats[0]}, player 1 {a.seats[1]}",
        f"reference: {describe_reference(reference)}",
        "values: the mover's expected score (win probability) after the move; error = best "
        "- played; luck: player 0's (player 1's is its negative)",
        f"{'step':>5} {'who':>6}  {'move':<22} {'best':<22} {'played':>6} {'best':>6} "
        f"{'error':>6}  {'flag':<8} {'luck':>7}",
    ]
    for s in a.steps:
        if s.decision:
            best = "" if s.best == s.action else s.best_text
            lines.append(
                f"{s.step:>5} {'p' + str(s.player):>6}  {s.text[:22]:<22} {best[:22]:<22} "
                f"{fixed(s.played_value):>6} {fixed(s.best_value):>6} "
                f"{'' if s.forced else fixed(s.error):>6}  {s.flag:<8}"
            )
        else:
            lines.append(
                f"{s.step:>5} {'chance':>6}  {s.text[:22]:<22} {'':<22} {'':>6} {'':>6} "
                f"{'':>6}  {'':<8} {fixed(s.luck, True):>7}"
            )
    if not a.ended:
        lines.append(
            f"the game did not end ({a.error or 'the history stops'}): the sums run to the "
            "last position's value, not to the result"
        )
    for p in a.players:
        flags = ", ".join(f"{p.flags[name]} {name}" for name in FLAGS)
        lines.append(
            f"player {p.player} ({p.agent}): {'result' if a.ended else 'final value'} "
            f"{fixed(p.final)} = initial {fixed(p.initial)} + luck {fixed(p.luck, True)} - own "
            f"errors {fixed(p.errors)} + opponent's errors {fixed(p.opponent_errors)} + "
            f"residual {fixed(p.residual, True)}; luck-adjusted {fixed(p.adjusted)}; "
            f"{p.decisions} decisions: "
            f"{flags}"
        )
    return "\n".join(lines)
