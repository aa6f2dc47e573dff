"""chancespiel from a notebook or a script: agents from Python objects, no spec strings.

    python examples/notebook.py              # a few games in seconds
    python examples/notebook.py --matches 200

Each step is a cell of a notebook: agents built from functions and bot objects, a match, a
small tournament, raw and luck-corrected rates, and MCTS's visit policy at one position
(docs/python.md says what each call takes and returns).
"""

from __future__ import annotations

import argparse
import random

import pyspiel

import chancespiel
from chancespiel import agents

GAME = "python_pig(winscore=30)"


def lead(state, player):
    """A heuristic: the score lead of `player`, in [-1, 1]. `state` is Pig's rules core
    (its `scores` and `turn_total`), as every search hands it to a heuristic."""
    if state.is_terminal():
        return state.returns()[player]
    mine, theirs = state.scores[player], state.scores[1 - player]
    return max(-1.0, min(1.0, (mine - theirs) / 30))


def stop_first(state, actions):
    """A move ordering: the same actions, most promising first (here: stop before rolling)."""
    return sorted(actions, reverse=True)


class HoldAt(pyspiel.Bot):
    """A plain OpenSpiel bot: rolls until its turn total reaches `n`, with a random whim."""

    def __init__(self, n: int, seed: int | None):
        super().__init__()
        self.n = n
        self.rng = random.Random(seed)

    def step(self, state: pyspiel.State) -> int:
        roll, stop = 0, 1  # Pig's actions
        total = state.core.turn_total  # Pig's pyspiel state holds its rules core
        whim = total > 0 and self.rng.random() < 0.05
        return stop if total >= self.n or whim or roll not in state.legal_actions() else roll

    def restart_at(self, state: pyspiel.State) -> None:
        pass


def hold_at_15(game: pyspiel.Game, player: int, seed: int | None) -> pyspiel.Bot:
    """A bot factory: one fresh bot per game, seeded by the game's seed."""
    return HoldAt(15, seed)


def main(matches: int, workers: int | None) -> None:
    # Cell 1: agents from Python objects and functions.
    searcher = agents.star2(max_depth=2, heuristic=lead, ordering=stop_first)
    tree = agents.mcts(max_simulations=200)  # an agent without functions is its spec
    print("agents:", searcher, "|", tree.spec, "|", hold_at_15.__name__)

    # Cell 2: a match; str() prints what `chancespiel match` prints.
    result = chancespiel.match(GAME, searcher, hold_at_15, matches=matches, seed=1, workers=workers)
    print(result)
    low, high = result.interval
    print(f"A's score rate {result.rate:.3f}, 95% Wilson [{low:.3f}, {high:.3f}]")

    # Cell 3: raw and luck-corrected rates from the match's records.
    report = chancespiel.report(result, luck=True)
    print(report)
    corrected = report.games[0].luck[0].corrected  # type: ignore[index]
    print(f"luck-corrected rate {corrected.mean:.3f} [{corrected.low:.3f}, {corrected.high:.3f}]")

    # Cell 4: a small tournament; a dict names the agents that are not specs.
    table = chancespiel.tournament(
        GAME,
        {"lead-star2": searcher, "mcts(max_simulations=200)": tree, "hold15": hold_at_15},
        matches=max(1, matches // 2),
        seed=2,
        workers=workers,
    )
    print(table)

    # Cell 5: MCTS's visit distribution at one position.
    game = pyspiel.load_game(GAME)
    state = game.new_initial_state()
    state.apply_action(0)  # player 0 rolls
    state.apply_action(max(state.chance_outcomes(), key=lambda o: o[1])[0])  # the likeliest sum
    bot = tree(game, state.current_player(), seed=7)
    policy, action = bot.step_with_policy(state)
    shown = ", ".join(f"{state.action_to_string(a)} {p:.2f}" for a, p in policy)
    print(f"MCTS visit policy: {shown}; plays {state.action_to_string(action)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--workers", type=int, default=None)
    options = parser.parse_args()
    main(options.matches, options.workers)
