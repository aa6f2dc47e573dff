"""Pig with one die (OpenSpiel's `pig`) or two dice (the MCMS paper's variant, "Pig Out").

Rules (Neller and Presser, "Optimal Play of the Dice Game Pig", 2004; two dice: "Pig Out"):
players race to bank `winscore` points. On a turn the player rolls until they stop (banking the
turn total) or the dice end the turn.

- One die: a 1 loses the turn total and ends the turn; 2..6 adds the face to the turn total.
- Two dice: a single 1 loses the turn total and ends the turn; double 1s also reset the
  player's banked score to 0; otherwise the sum is added to the turn total.

Conventions follow OpenSpiel's C++ `pig` so that `python_pig(dice=1)` equals it move for move:

- Actions: 0 = roll, 1 = stop. Stopping with a turn total of 0 is legal. Once banked score plus
  turn total reaches `winscore` the only legal action is stop, which wins.
- After `horizon` decision moves (rolls and stops) the game ends in a draw, even at a chance
  node; the C++ game does the same.
- Chance outcomes: one die, outcome `x` is face `x + 1` ("Roll 4"). Two dice, the 36 ordered
  rolls are merged into the unordered pairs a <= b, numbered in lexicographic order: with six
  sides 0 = 1+1, 1 = 1+2, ..., 5 = 1+6, 6 = 2+2, ..., 20 = 6+6 ("Roll 2+5").
- Returns: +1 to the winner, -1 to the loser, 0 to both at the horizon.

Parameters: `dice` (1 or 2, default 2), `winscore` (>= 1, default 100), `horizon` (>= 1,
default 1000), `diceoutcomes` (sides per die, >= 2, default 6; small dice and goals give
games small enough for exhaustive search in tests) and `ordered_dice` (boolean, default false):
with two dice, true enumerates the 36 ordered rolls (a, b), outcome (a - 1) * sides + b - 1,
each 1/36, "Roll 5+2" in the order drawn, instead of the 21 merged pairs: the same game with
the same probabilities, offered because classic search pays for every outcome of a chance
node and sampling does not. With one die it changes nothing.
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

import numpy as np
import pyspiel

from chancespiel.games._adapter import (
    CHANCE,
    TERMINAL,
    CoreGame,
    CoreState,
    SharedRules,
    SlotsCore,
    chance_game_type,
    check_int_param,
    register_game,
    replayed_core,
)
from chancespiel.games.registry import (
    GameEntry,
    register_core_reader,
    register_entry,
    register_heuristic,
    register_move_note,
    register_move_ordering,
)

ROLL = 0
STOP = 1

# Effects of a chance outcome on the turn.
_ADD = 0  # add the amount to the turn total, the turn goes on
_BUST = 1  # lose the turn total, the turn passes
_RESET = 2  # lose the turn total and the banked score, the turn passes

_ROLL_OR_STOP = (ROLL, STOP)
_STOP_ONLY = (STOP,)

# Parameter ranges: wide enough for every variant studied, small enough that no table or
# game becomes unbounded (a die of 20 faces gives 210 unordered or 400 ordered rolls).
MAX_WINSCORE = 1000
MAX_HORIZON = 100_000
MAX_SIDES = 20

_DEFAULTS = {
    "dice": 2,
    "winscore": 100,
    "horizon": 1000,
    "diceoutcomes": 6,
    "ordered_dice": False,
}

_GAME_TYPE = chance_game_type("python_pig", "Python Pig (one or two dice)", _DEFAULTS)


class PigRules(SharedRules):
    """Constants of one Pig variant: chance table, effects and limits. Shared, never copied."""

    def __init__(
        self,
        dice: int = 2,
        winscore: int = 100,
        horizon: int = 1000,
        diceoutcomes: int = 6,
        ordered_dice: bool = False,
    ):
        if not isinstance(ordered_dice, bool):
            raise ValueError(f"parameter ordered_dice must be a boolean, got {ordered_dice!r}")
        self.ordered_dice = ordered_dice
        self.dice = check_int_param("dice", dice, 1, 2)
        self.winscore = check_int_param("winscore", winscore, 1, MAX_WINSCORE)
        self.horizon = check_int_param("horizon", horizon, 1, MAX_HORIZON)
        self.sides = check_int_param("diceoutcomes", diceoutcomes, 2, MAX_SIDES)
        outcomes: list[tuple[int, float]] = []
        effects: list[tuple[int, int]] = []
        names: list[str] = []
        if self.dice == 1:
            for face in range(1, self.sides + 1):
                outcomes.append((face - 1, 1.0 / self.sides))
                effects.append((_BUST, 0) if face == 1 else (_ADD, face))
                names.append(f"Roll {face}")
        else:
            for a in range(1, self.sides + 1):
                for b in range(1 if ordered_dice else a, self.sides + 1):
                    ways = 1 if a == b or ordered_dice else 2
                    outcomes.append((len(outcomes), ways / self.sides**2))
                    if a == 1 or b == 1:
                        effects.append((_RESET, 0) if a == b else (_BUST, 0))
                    else:
                        effects.append((_ADD, a + b))
                    names.append(f"Roll {a}+{b}")
        self.outcomes: tuple[tuple[int, float], ...] = tuple(outcomes)
        self.effects: tuple[tuple[int, int], ...] = tuple(effects)
        self.outcome_names: tuple[str, ...] = tuple(names)
        # For samplers: outcome ids and cumulative probabilities (the form bisection needs).
        self.outcome_ids: tuple[int, ...] = tuple(o for o, _ in outcomes)
        self.outcome_cum: list[float] = list(accumulate(p for _, p in outcomes))
        # For the heuristic: sqrt(max(0, 1 - points / W)) for points < W (0.0 from W on), the
        # same floats as `_race_value` computes, looked up instead of computed at every leaf.
        self.near_goal: tuple[float, ...] = tuple(
            math.sqrt(max(0.0, 1.0 - points / self.winscore)) for points in range(self.winscore)
        )

    def params(self) -> dict[str, Any]:
        """The game parameters these rules were built from."""
        return {
            "dice": self.dice,
            "winscore": self.winscore,
            "horizon": self.horizon,
            "diceoutcomes": self.sides,
            "ordered_dice": self.ordered_dice,
        }

    def initial_core(self) -> PigCore:
        """The state before the first move: scores 0-0, player 0 to decide."""
        return PigCore(self)

    def game_info(self) -> pyspiel.GameInfo:
        """OpenSpiel's size facts for these parameters."""
        return pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=len(self.outcomes),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.horizon,
        )

    # Observation: the first piece equals the C++ game's [3, winscore + 1] tensor (turn total,
    # then each player's score, one-hot, the last bin meaning >= winscore); the C++ tensor does
    # not say whose turn it is, so a second piece does.
    def observation_pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and shapes of the observation tensor's pieces."""
        return [("scores", (3, self.winscore + 1)), ("turn_player", (2,))]

    def fill_observation(self, core: PigCore, player: int, views: dict[str, np.ndarray]) -> None:
        """Writes the one-hot encoding of `core` into the zeroed `views`."""
        top = self.winscore
        scores = views["scores"]
        scores[0, min(core.turn_total, top)] = 1.0
        scores[1, min(core.scores[0], top)] = 1.0
        scores[2, min(core.scores[1], top)] = 1.0
        views["turn_player"][core.turn_player] = 1.0

    def observation_string(self, core: PigCore, player: int) -> str:
        """The whole state as text (Pig has no hidden information)."""
        return str(core)


class PigCore(SlotsCore):
    """Mutable Pig state implementing the search protocol of DESIGN.md."""

    __slots__ = ("moves", "over", "rolling", "rules", "scores", "turn_player", "turn_total")

    def __init__(self, rules: PigRules):
        self.rules = rules
        self.scores = (0, 0)
        self.turn_total = 0
        self.turn_player = 0
        self.rolling = False  # True at the chance node after a roll
        self.moves = 0  # decision moves made, for the horizon
        self.over = False

    def clone(self) -> PigCore:
        """An independent copy sharing the rules."""
        c = PigCore.__new__(PigCore)
        c.rules = self.rules
        c.scores = self.scores
        c.turn_total = self.turn_total
        c.turn_player = self.turn_player
        c.rolling = self.rolling
        c.moves = self.moves
        c.over = self.over
        return c

    def child(self, action: int) -> PigCore:
        """A copy with `action` applied, each field written once (what `apply` does to a
        clone; searches make every child this way)."""
        c = PigCore.__new__(PigCore)
        c.rules = rules = self.rules
        if self.rolling:
            c.rolling = False
            c.moves = self.moves
            c.over = self.over
            kind, amount = rules.effects[action]
            if kind == _ADD:
                c.scores = self.scores
                c.turn_total = self.turn_total + amount
                c.turn_player = self.turn_player
                return c
            c.turn_total = 0
            p = self.turn_player
            if kind == _RESET:
                c.scores = (0, self.scores[1]) if p == 0 else (self.scores[0], 0)
            else:
                c.scores = self.scores
            c.turn_player = 1 - p
            return c
        c.moves = moves = self.moves + 1
        over = self.over
        if action == ROLL:
            c.rolling = True
            c.scores = self.scores
            c.turn_total = self.turn_total
            c.turn_player = self.turn_player
        else:
            c.rolling = False
            p = self.turn_player
            banked = self.scores[p] + self.turn_total
            c.scores = (banked, self.scores[1]) if p == 0 else (self.scores[0], banked)
            c.turn_total = 0
            c.turn_player = 1 - p  # also on a win, as the C++ game does
            if banked >= rules.winscore:
                over = True
        c.over = over or moves >= rules.horizon
        return c

    def state_key(self) -> int:
        """A hash of every field (SlotsCore.state_key), without the generic field walk."""
        return hash(
            (self.scores, self.turn_total, self.turn_player, self.rolling, self.moves, self.over)
        )

    def current_player(self) -> int:
        """0 or 1 to decide, CHANCE after a roll, TERMINAL at the end."""
        if self.over:
            return TERMINAL
        return CHANCE if self.rolling else self.turn_player

    def is_terminal(self) -> bool:
        """True once someone has won or the horizon is reached."""
        return self.over

    def legal_actions(self) -> tuple[int, ...]:
        """(ROLL, STOP), or (STOP,) once stopping wins; empty at chance and terminal nodes."""
        if self.over or self.rolling:
            return ()
        if self.scores[self.turn_player] + self.turn_total >= self.rules.winscore:
            return _STOP_ONLY
        return _ROLL_OR_STOP

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """The roll's (outcome, probability) pairs; shared, do not mutate."""
        return self.rules.outcomes

    def apply(self, action: int) -> None:
        """Applies a decision or a chance outcome in place. Assumes it is legal."""
        # The rules are written once, in `child` (the searches' hot path); apply takes its fields.
        c = self.child(action)
        self.scores, self.turn_total, self.turn_player = c.scores, c.turn_total, c.turn_player
        self.rolling, self.moves, self.over = c.rolling, c.moves, c.over

    def random_rollout(
        self, max_moves: int, rand: Callable[[], float], evaluate: Callable[[Any, int], float]
    ) -> float:
        """Player 0's value after up to `max_moves` uniformly random decision moves (-1: to the
        end): the return at the end, else `evaluate(self, 0)`.

        The fast path of agents.mcts.rollout: the same rules and the same draws from `rand`
        (one per decision, forced ones included, and one per roll, found by bisection of the
        cumulative probabilities), played on local variables and written back to the core.
        """
        rules = self.rules
        ids, cum, effects = rules.outcome_ids, rules.outcome_cum, rules.effects
        total = cum[-1]
        winscore, horizon = rules.winscore, rules.horizon
        over, rolling = self.over, self.rolling
        player, turn_total, moves = self.turn_player, self.turn_total, self.moves
        scores = list(self.scores)
        made = 0
        while not over:
            if rolling:
                rolling = False
                kind, amount = effects[ids[bisect_right(cum, rand() * total)]]
                if kind == _ADD:
                    turn_total += amount
                    continue
                turn_total = 0
                if kind == _RESET:
                    scores[player] = 0
                player = 1 - player
                continue
            if made == max_moves:
                break
            made += 1
            moves += 1
            if scores[player] + turn_total >= winscore:
                rand()  # stop is the only action, drawn as any forced move is
                action = STOP
            else:
                action = ROLL if rand() < 0.5 else STOP  # int(rand() * 2) == 0
            if action == ROLL:
                rolling = True
            else:
                scores[player] += turn_total
                turn_total = 0
                if scores[player] >= winscore:
                    over = True
                player = 1 - player  # also on a win, as the C++ game does
            if moves >= horizon:
                over = True
        self.over, self.rolling, self.turn_player = over, rolling, player
        self.turn_total, self.moves = turn_total, moves
        self.scores = (scores[0], scores[1])
        if over:
            return self.returns()[0]
        return evaluate(self, 0)

    def returns(self) -> tuple[float, float]:
        """(+1, -1) or (-1, +1) for a win, (0, 0) at the horizon or before the end."""
        if self.over:
            if self.scores[0] >= self.rules.winscore:
                return (1.0, -1.0)
            if self.scores[1] >= self.rules.winscore:
                return (-1.0, 1.0)
        return (0.0, 0.0)

    def action_to_string(self, player: int, action: int) -> str:
        """'roll', 'stop', or the roll's name ('Roll 4', 'Roll 2+5') for CHANCE."""
        if player == CHANCE:
            return self.rules.outcome_names[action]
        return "roll" if action == ROLL else "stop"

    def __str__(self) -> str:
        # Same text as the C++ game's ToString().
        rolling = " (rolling)\n" if self.rolling else "\n"
        return (
            f"Scores: {self.scores[0]} {self.scores[1]}, Turn total: {self.turn_total}\n"
            f"Current player: {self.turn_player}{rolling}"
        )


class PigState(CoreState):
    """OpenSpiel state of python_pig; everything lives in `self.core` (a PigCore)."""


class PigGame(CoreGame):
    """OpenSpiel game python_pig."""

    game_type = _GAME_TYPE
    state_class = PigState
    rules_class = PigRules


def _race_value(
    scores: tuple[int, int], turn_total: int, turn_player: int, player: int, winscore: int
) -> float:
    """tanh(2 (sqrt(1 - theirs / W) - sqrt(1 - mine / W))): a race to the goal.

    The turn total counts as banked (it is one stop away). Square roots of the distances to
    the goal make a lead count more near the end. The form and the constant 2 were chosen
    against the exact two-dice solution at W = 100: mean squared error 80 (points^2 on the
    paper's [-100, 100] scale) over all states, against 490 for tanh(3 x lead / W).
    """
    mine = scores[player] + (turn_total if turn_player == player else 0)
    theirs = scores[1 - player] + (turn_total if turn_player != player else 0)
    near_mine = math.sqrt(max(0.0, 1.0 - mine / winscore))
    near_theirs = math.sqrt(max(0.0, 1.0 - theirs / winscore))
    return math.tanh(2.0 * (near_theirs - near_mine))


def pig_heuristic(core: PigCore, player: int) -> float:
    """Evaluation for `player` in [-1, 1]: exact at the end, else a race to the goal.

    See `_race_value`; the same heuristic fits every `winscore`. Its sign agrees with the exact
    solver's value in most positions (tests/test_pig.py measures this).
    """
    if core.over:
        return core.returns()[player]
    # _race_value, with the square roots from the rules' table (the same floats).
    scores = core.scores
    mine, theirs = scores[player], scores[1 - player]
    if core.turn_player == player:
        mine += core.turn_total
    else:
        theirs += core.turn_total
    near = core.rules.near_goal
    last = len(near)
    near_mine = near[mine] if mine < last else 0.0
    near_theirs = near[theirs] if theirs < last else 0.0
    return math.tanh(2.0 * (near_theirs - near_mine))


def pig_lead_heuristic(core: PigCore, player: int) -> float:
    """A plain evaluation, `heuristic=lead` in agent specs: tanh(3 lead / W), the turn total
    counted as banked. Its mean squared error against the exact solution is about six times
    the default's (490 against 80 points^2), the kind of evaluation the MCMS paper's errors
    suggest; for experiments that should not start from a near-exact one.
    """
    if core.over:
        return core.returns()[player]
    lead = core.scores[player] - core.scores[1 - player]
    lead += core.turn_total if core.turn_player == player else -core.turn_total
    return math.tanh(3.0 * lead / core.rules.winscore)


@functools.lru_cache(maxsize=16)
def _one_die_pig(sides: int, winscore: int, horizon: int) -> pyspiel.Game:
    return pyspiel.load_game(
        f"python_pig(dice=1,diceoutcomes={sides},winscore={winscore},horizon={horizon})"
    )


def read_openspiel_pig(state: pyspiel.State) -> PigCore | None:
    """Our core of a state of OpenSpiel's C++ `pig` with two players and no piglet rule, by
    replaying its history on python_pig(dice=1) with the same sides, goal and horizon (the
    same game move for move: actions, chance outcomes, returns; tested); None for the other
    variants, which agents search through the adapter."""
    params = state.get_game().get_parameters()
    if params["players"] != 2 or params["piglet"]:
        return None
    game = _one_die_pig(params["diceoutcomes"], params["winscore"], params["horizon"])
    core: PigCore = replayed_core(game, state)
    return core


def openspiel_pig_heuristic(state: Any, player: int) -> float:
    """The same evaluation for OpenSpiel's C++ `pig` (2 players): on our core of one (what
    agents search when the variant has a reader), or read from the state string.

    `state` is then a pyspiel state or the agents' adapter around one (anything whose str()
    is the C++ ToString: "Scores: 12 30, Turn total: 5\nCurrent player: 1 (rolling)").
    """
    if isinstance(state, PigCore):
        return pig_heuristic(state, player)
    if state.is_terminal():
        return state.returns()[player]
    head, tail = str(state).split("\n", 1)
    scores_text, turn_total_text = head[len("Scores: ") :].split(", Turn total: ")
    first, second = scores_text.split()
    pyspiel_state = getattr(state, "state", state)
    winscore = pyspiel_state.get_game().get_parameters()["winscore"]
    turn_player = int(tail.split()[2])
    return _race_value(
        (int(first), int(second)), int(turn_total_text), turn_player, player, winscore
    )


def pig_move_note(core: Any, player: int, action: int) -> str | None:
    """Announces a roll that busts (what it costs), for `chancespiel play` (None but on our
    core: variants of OpenSpiel's pig that agents do not read into it)."""
    if not isinstance(core, PigCore) or not core.rolling:
        return None
    kind, _ = core.rules.effects[action]
    p = core.turn_player
    if kind == _ADD:
        return None
    if kind == _RESET:
        return (
            f"bust: player {p} loses the turn total of {core.turn_total} and all "
            f"{core.scores[p]} banked points; the turn passes"
        )
    return f"bust: player {p} loses the turn total of {core.turn_total}; the turn passes"


def openspiel_pig_move_ordering(state: Any, actions: Sequence[int]) -> Sequence[int]:
    """pig_move_ordering on our core of OpenSpiel's `pig`; other variants keep their order."""
    return pig_move_ordering(state, actions) if isinstance(state, PigCore) else actions


def pig_move_ordering(core: PigCore, actions: Sequence[int]) -> Sequence[int]:
    """Stop first once the turn total reaches 20 (Knizia's rule of thumb), else roll first."""
    if core.turn_total >= 20 and actions == _ROLL_OR_STOP:
        return (STOP, ROLL)
    return actions


register_game(_GAME_TYPE, PigGame)
register_heuristic(_GAME_TYPE.short_name, pig_heuristic)
register_heuristic("pig", openspiel_pig_heuristic)
register_core_reader("pig", read_openspiel_pig)
register_move_ordering("pig", openspiel_pig_move_ordering)
register_move_note(_GAME_TYPE.short_name, pig_move_note)
register_move_note("pig", pig_move_note)
register_heuristic(_GAME_TYPE.short_name, pig_lead_heuristic, name="lead")
register_move_ordering(_GAME_TYPE.short_name, pig_move_ordering)
register_entry(
    GameEntry(
        short_name=_GAME_TYPE.short_name,
        description="Pig: one die (= OpenSpiel's pig) or two dice (MCMS paper, default)",
        chance="a roll after every 'roll': 6 faces, 21 unordered pairs or 36 ordered rolls",
        status="done",
    )
)
