"""A researcher's plugin: a tiny dice game, a heuristic for it and an agent, in one module.

Load it into any chancespiel command (and its workers) with --import:

    chancespiel --import examples/dice_race.py match example_dice_race \\
        "star2(max_depth=3)" example_hold --matches 20 --workers 2 --out race.jsonl
    chancespiel report race.jsonl                       # records are data: no --import needed
    chancespiel --import examples/dice_race.py analyse example_dice_race --agent star2

Dice race: on your turn you roll a four-sided die as often as you like; a 1 ends the turn
with nothing, any other face adds to the turn's total; stopping banks the total. The first to
reach `goal` wins (after `max_moves` moves the game is a draw, so it always ends). The game
is an OpenSpiel Python game like any other; nothing in it knows about chancespiel. One
declaration, `register_game(GameSpec(...))`, registers it with pyspiel and tells chancespiel
its heuristic and its features (`pyspiel.register_game` alone would do for the game).
"""

from __future__ import annotations

from typing import Any

import pyspiel

from chancespiel.agents import register_agent
from chancespiel.agents.registry import Param
from chancespiel.games import GameSpec, register_game

ROLL, STOP = 0, 1
FACES = 4
MAX_MOVES = 400

_GAME_TYPE = pyspiel.GameType(
    short_name="example_dice_race",
    long_name="Dice race (a chancespiel plugin example)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={"goal": 12},
)


class DiceRaceGame(pyspiel.Game):
    """The game: players race to `goal` points."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = params or {}
        self.goal = params.get("goal", 12)
        if isinstance(self.goal, bool) or not isinstance(self.goal, int) or self.goal < 1:
            # (a goal of 0 or less would end the game before its first roll)
            raise ValueError(f"parameter goal must be a positive integer, got {self.goal!r}")
        info = pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=FACES,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_MOVES,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> DiceRaceState:
        return DiceRaceState(self)


class DiceRaceState(pyspiel.State):
    """Scores, the turn's total and whose turn it is: attributes of this game's own."""

    def __init__(self, game: DiceRaceGame):
        super().__init__(game)
        self.goal = game.goal
        self.scores = [0, 0]
        self.turn_total = 0
        self.mover = 0
        self.rolling = False  # a roll was chosen: the die is next
        self.moves = 0
        self.winner: int | None = None
        self.drawn = False

    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE if self.rolling else self.mover

    def _legal_actions(self, player: int) -> list[int]:
        return [ROLL, STOP]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(face - 1, 1.0 / FACES) for face in range(1, FACES + 1)]

    def _apply_action(self, action: int) -> None:
        if self.rolling:
            self.rolling = False
            face = action + 1
            if face == 1:
                self._end_turn(bank=False)
            else:
                self.turn_total += face
                if self.scores[self.mover] + self.turn_total >= self.goal:
                    self.scores[self.mover] += self.turn_total
                    self.winner = self.mover
        elif action == ROLL:
            self.rolling = True
        else:
            self._end_turn(bank=True)
        self.moves += 1
        self.drawn = self.winner is None and self.moves >= MAX_MOVES

    def _end_turn(self, bank: bool) -> None:
        if bank:
            self.scores[self.mover] += self.turn_total
        self.turn_total = 0
        self.mover = 1 - self.mover

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"rolled {action + 1}"
        return "roll" if action == ROLL else "stop"

    def is_terminal(self) -> bool:
        return self.winner is not None or self.drawn

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        return (
            f"scores {self.scores[0]} {self.scores[1]}, turn total {self.turn_total}, "
            f"player {self.mover} {'rolling' if self.rolling else 'to move'}"
        )


def race_heuristic(state: DiceRaceState, player: int) -> float:
    """Who is ahead, counting the turn's total half: in [-1, 1] for `player`, exact at the end.

    It reads this game's own attributes (`scores`, `turn_total`): chancespiel's search agents
    hand a registered heuristic the game's own state object.
    """
    if state.is_terminal():
        return state.returns()[player]
    mine = state.scores[player] + (state.turn_total / 2 if state.mover == player else 0)
    theirs = state.scores[1 - player] + (state.turn_total / 2 if state.mover != player else 0)
    return max(-0.99, min(0.99, (mine - theirs) / state.goal))


def race_features(state: DiceRaceState, player: int) -> list[float]:
    """The position as `player` sees it, for a learned value (`chancespiel value train`):
    both scores and the turn's total as fractions of the goal, and whose turn it is."""
    mine = state.mover == player
    return [
        state.scores[player] / state.goal,
        state.scores[1 - player] / state.goal,
        state.turn_total / state.goal if mine else 0.0,
        0.0 if mine else state.turn_total / state.goal,
        1.0 if mine else 0.0,
    ]


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=DiceRaceGame,
        heuristic=race_heuristic,
        features=race_features,
        feature_names=("mine", "theirs", "my_turn_total", "their_turn_total", "my_turn"),
    )
)


class HoldBot(pyspiel.Bot):
    """Rolls until the turn's total reaches `n` (or the goal is in reach), then stops: a
    plain pyspiel.Bot, as an OpenSpiel user writes one."""

    def __init__(self, player: int, n: int):
        pyspiel.Bot.__init__(self)
        self.player, self.n = player, n

    def step(self, state: DiceRaceState) -> int:
        reached = state.scores[self.player] + state.turn_total >= state.goal
        return STOP if state.turn_total >= self.n or reached else ROLL


@register_agent(
    "example_hold",
    "dice race: roll until the turn's total reaches n (a plugin's agent)",
    {"n": Param(5, "turn total to stop at", high=100)},
)
def make_hold(game: pyspiel.Game, player: int, n: int, seed: int | None) -> pyspiel.Bot:
    if game.get_type().short_name != _GAME_TYPE.short_name:
        raise ValueError(f"example_hold plays only {_GAME_TYPE.short_name}")
    if n < 1:
        raise ValueError(f"example_hold: n must be >= 1, got {n}")
    return HoldBot(player, n)
