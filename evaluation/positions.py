"""Positions to test and measure searches on: decision nodes met in random games."""

from __future__ import annotations

import random

import pyspiel


def random_decision_positions(
    game: pyspiel.Game, count: int, seed: int, max_moves: int = 30
) -> list[pyspiel.State]:
    """`count` decision nodes from random games (chance by probability, moves uniform).

    Each game stops after a uniform number of 0..max_moves decision moves; games that end
    first are replayed with the next random numbers.
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
            if stop_after == 0:
                positions.append(state)
                break
            stop_after -= 1
            state.apply_action(rng.choice(state.legal_actions()))
    return positions
