"""Playing games between bots, with chance outcomes from a seeded stream.

The i-th chance node of a game uses the i-th uniform number of `random.Random(seed)`, so the
two games of a seat-swapped match with one seed share their dice as far as they go alike
(common random numbers, DESIGN.md).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pyspiel

from chancespiel.agents import make_bot

CHANCE = int(pyspiel.PlayerId.CHANCE)

MoveObserver = Callable[[pyspiel.State, int, int], None]
"""observer(state_before, player, action), called before every move (chance included)."""


def sample_outcome(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """The outcome whose cumulative probability interval contains `u` in [0, 1)."""
    total = 0.0
    for outcome, prob in outcomes:
        total += prob
        if u < total:
            return outcome
    return outcomes[-1][0]  # u within rounding error of 1


@dataclass
class GameRecord:
    """The result of one game."""

    returns: list[float]
    moves: int  # decision moves
    history: list[int]
    move_seconds: list[float] = field(default_factory=list)


def play_game(
    game: pyspiel.Game,
    bots: Sequence[pyspiel.Bot],
    seed: int,
    observer: MoveObserver | None = None,
) -> GameRecord:
    """Plays one game; chance outcomes come from `random.Random(seed)`."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    for bot in bots:
        bot.restart_at(state)
    move_seconds: list[float] = []
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            action = sample_outcome(state.chance_outcomes(), rng.random())
        else:
            start = time.perf_counter()
            action = bots[player].step(state)
            move_seconds.append(time.perf_counter() - start)
        if observer is not None:
            observer(state, player, action)
        for other, bot in enumerate(bots):
            if other != player:
                bot.inform_action(state, player, action)
        state.apply_action(action)
    return GameRecord(state.returns(), len(move_seconds), state.history(), move_seconds)


def play_match(
    game: pyspiel.Game, spec_a: str, spec_b: str, seed: int
) -> tuple[GameRecord, GameRecord]:
    """Two games with seats swapped and the same dice: A seats 0 then 1.

    Bots are built from their specs for each game and seeded from the match seed.
    """
    first = play_game(
        game, [make_bot(spec_a, game, 0, seed), make_bot(spec_b, game, 1, seed + 1)], seed
    )
    second = play_game(
        game, [make_bot(spec_b, game, 0, seed + 1), make_bot(spec_a, game, 1, seed)], seed
    )
    return first, second


def score_of(returns: Sequence[float], player: int) -> float:
    """1 for a win, 0.5 for a draw, 0 for a loss of `player` in a zero-sum game."""
    value = returns[player]
    return 1.0 if value > 0 else 0.0 if value < 0 else 0.5
