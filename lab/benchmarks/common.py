"""The random-game loop every game benchmark uses, over either API.

One loop serves both the search protocol (`apply`) and pyspiel (`apply_action`), so the two
sides of a ratio run exactly the same Python code.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pyspiel

from chancespiel.games.core import CHANCE


def random_steps_per_second(
    make: Callable[[], object],
    seconds: float,
    seed: int,
    apply: str = "apply",
    counts: dict[str, float] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Steps per second of uniformly random games (chance by its probabilities).

    Args:
      make: returns a fresh initial state.
      seconds: how long to play.
      seed: seed of the random moves.
      apply: the state's method that applies an action: "apply" for our cores,
        "apply_action" for pyspiel states.
      counts: if given, receives "games" (finished), "steps" and "seconds" of the run.
      clock: the clock of the budget and the rate (time.process_time: CPU seconds of this
        process, which other processes on a shared machine disturb much less).
    """
    rng = random.Random(seed)
    steps = games = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        state = make()
        do = getattr(state, apply)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]  # if rounding leaves u just above 0
                u = rng.random()
                for outcome, prob in outcomes:
                    u -= prob
                    if u < 0:
                        action = outcome
                        break
                do(action)
            else:
                do(rng.choice(state.legal_actions()))
            steps += 1
        games += 1
    elapsed = clock() - start
    if counts is not None:
        counts.update(games=games, steps=steps, seconds=elapsed)
    return steps / elapsed


def best_of(rows: dict[str, Callable[[int], float]], repeats: int) -> dict[str, float]:
    """Best rate of each row over `repeats` interleaved rounds (drift hits every row alike)."""
    best = dict.fromkeys(rows, 0.0)
    for repeat in range(repeats):
        for name, run in rows.items():
            best[name] = max(best[name], run(repeat))
    return best


def decision_positions(
    game: pyspiel.Game, count: int, seed: int, max_moves: int = 30, choice: bool = False
) -> list[pyspiel.State]:
    """`count` decision nodes of random games (chance by probability, moves uniform).

    Each game stops after a uniform number of 0..max_moves decision moves; games that end
    first are replayed with the next random numbers. With `choice`, a position with a single
    legal action is passed by (the game goes on to the next decision).

    The same draws as `chancespiel.evaluation.positions.random_decision_positions`, kept here on
    purpose: before/after comparisons run these scripts against older libraries (docs/speed.md),
    which must be measured on the same positions whatever they contain.
    """
    rng = random.Random(seed)
    positions: list[pyspiel.State] = []
    while len(positions) < count:
        state = game.new_initial_state()
        stop_after = rng.randint(0, max_moves)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                weights = [p for _, p in outcomes]
                state.apply_action(rng.choices([a for a, _ in outcomes], weights)[0])
                continue
            if stop_after <= 0 and (not choice or len(state.legal_actions()) > 1):
                positions.append(state)
                break
            stop_after -= 1
            state.apply_action(rng.choice(state.legal_actions()))
    return positions
