"""Positions to test and measure searches on: decision nodes met in random games, and the
states of a recorded game replayed."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pyspiel

from chancespiel.agents.protocol import search_state
from chancespiel.games.contract import Referee
from chancespiel.games.core import CHANCE, TERMINAL, Core


class ReplayError(ValueError):
    """A recorded history that is not a legal sequence of actions of its game."""


def random_decision_positions(
    game: pyspiel.Game, count: int, seed: int, max_moves: int = 30
) -> list[pyspiel.State]:
    """`count` decision nodes from random games (chance by probability, moves uniform).

    Each game stops after a uniform number of 0..max_moves decision moves; games that end
    first are replayed with the next random numbers. The games are held to their contract
    (games.contract): a game that breaks it raises GameContractError, never loops.
    """
    rng = random.Random(seed)
    positions: list[pyspiel.State] = []
    while len(positions) < count:
        state = game.new_initial_state()
        referee = Referee(game, state)
        stop_after = rng.randint(0, max_moves)
        while (player := referee.player()) != TERMINAL:
            if player == CHANCE:
                outcomes = referee.outcomes()
                weights = [p for _, p in outcomes]
                referee.apply(player, rng.choices([a for a, _ in outcomes], weights)[0])
                continue
            if stop_after == 0:
                positions.append(state)
                break
            stop_after -= 1
            referee.apply(player, rng.choice(referee.legal))
    return positions


def replay(game: pyspiel.Game, history: Sequence[int]) -> Iterator[tuple[int, Core, int]]:
    """(step, state, action) for each action of a recorded game: the search state before the
    action, which is checked to be legal there (an outcome of the chance node, or a legal
    move) before it is yielded. The state is applied in place after the yield: read it then,
    or clone it.

    Raises:
      ReplayError: naming the step where the history stops being legal.
    """
    state = search_state(game.new_initial_state())
    for step, action in enumerate(history):
        if state.is_terminal():
            raise ReplayError(f"history continues after the end of the game at step {step}")
        if state.current_player() == CHANCE:
            if all(outcome != action for outcome, _ in state.chance_outcomes()):
                raise ReplayError(f"chance outcome {action} at step {step} is not possible")
        elif action not in state.legal_actions():
            raise ReplayError(f"action {action} at step {step} is not legal")
        yield step, state, action
        state.apply(action)


def translate_history(
    source: pyspiel.Game, target: pyspiel.Game, history: Sequence[int]
) -> list[int]:
    """`history`, a game of `source`, as the same game of `target`: each action replaced by
    the one action of `target` with the same name there (the same move; the same roll under
    another encoding of the dice, e.g. `ordered_dice=true`, where a merged roll's name lists
    its dice in the order of one of the ordered rolls).

    Raises:
      ReplayError: naming the step where the history stops being legal in `source` (as
        `replay`), or whose action has no counterpart in `target`, or more than one.
    """
    new = target.new_initial_state()
    out: list[int] = []
    for step, old, action in replay(source, history):  # checks each action is legal
        name = old.action_to_string(old.current_player(), action)
        player = new.current_player()
        found = [a for a in _choices(new) if new.action_to_string(player, a) == name]
        if len(found) != 1:
            count = "no action" if not found else f"{len(found)} actions"
            raise ReplayError(f"step {step}: {count} of {target} named {name!r}")
        new.apply_action(found[0])
        out.append(found[0])
    return out


def _choices(state: pyspiel.State) -> list[int]:
    """The chance outcomes of a chance node, else the legal actions."""
    if state.is_chance_node():
        return [outcome for outcome, _ in state.chance_outcomes()]
    return list(state.legal_actions())
