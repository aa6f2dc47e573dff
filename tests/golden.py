"""Golden playthrough files (a random game recorded line by line, replayed by the tests), the
seeded random positions of the golden searches and of the searches' other tests, and the plain
expectimax recursion that the compiled searches are checked against.

Regenerate one after an intended change of behaviour (and say why in the commit):

    .venv/bin/python tests/golden.py tests/playthroughs/python_pig.txt "python_pig(winscore=30)" 7
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pyspiel
from absl import flags
from open_spiel.python.algorithms import generate_playthrough

import chancespiel.games  # noqa: F401  (registers the games the files name)

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"
CHANCE = int(pyspiel.PlayerId.CHANCE)


def _parse_flags() -> None:
    # generate_playthrough reads an absl flag; parse the defaults once outside absl.app.
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


def replay(path: Path) -> tuple[str, str]:
    """(recorded text, text of the same actions replayed now) for a playthrough file."""
    _parse_flags()
    return generate_playthrough.replay(str(path))


def write(path: Path, game_string: str, seed: int) -> None:
    """Records a random playthrough of `game_string` to `path`."""
    _parse_flags()
    text = generate_playthrough.playthrough(game_string, None, seed=seed)
    path.write_text(text, encoding="utf-8")


def random_step(core: Any, rng: random.Random) -> None:
    """Applies one uniformly random action or chance outcome to `core` (one `rng.randrange`)."""
    if core.current_player() == CHANCE:
        outcomes = core.chance_outcomes()
        core.apply(outcomes[rng.randrange(len(outcomes))][0])
    else:
        actions = core.legal_actions()
        core.apply(actions[rng.randrange(len(actions))])


def play_randomly(core: Any, rng: random.Random, steps: int) -> None:
    """Applies up to `steps` random steps to `core` (fewer if the game ends)."""
    for _ in range(steps):
        if core.is_terminal():
            return
        random_step(core, rng)


def golden_positions(game: pyspiel.Game, count: int, seed: int) -> list[Any]:
    """`count` decision cores with at least two legal actions, from seeded random play."""
    rules = game.rules
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        core = rules.initial_core()
        play_randomly(core, rng, rng.randrange(4, 60))
        while not core.is_terminal() and core.current_player() == CHANCE:
            random_step(core, rng)
        if not core.is_terminal() and len(core.legal_actions()) > 1:
            found.append(core)
    return found


def former_hybrid(width: int) -> dict[str, Any]:
    """The search keywords of the hybrid agents before version 0.3.0 at `width`: systematic
    draws, the classic depths judged by the last growth, without fit_within_ply and
    classic_within_ply (the tests of the options measured against it)."""
    return {
        "systematic": True,
        "exact_up_to": width,
        "exact_plies": 1,
        "classic_first": True,
        "classic_trial": True,
        "fit_exact_plies": True,
    }


def ordered_cant_stop_decision(n: int) -> tuple[pyspiel.Game, Any]:
    """Can't Stop with ordered dice and the n-th decision of a random game (seed 7) among the
    decisions with a choice, each drawn with probability 0.3."""
    game = pyspiel.load_game("python_cant_stop(ordered_dice=true)")
    rng = random.Random(7)
    state, decisions = game.new_initial_state(), 0
    while True:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        if len(state.legal_actions()) > 1 and rng.random() < 0.3:
            decisions += 1
            if decisions == n:
                return game, state
        state.apply_action(rng.choice(state.legal_actions()))


def expectimax(state, h, depth: int) -> float:
    """Player 0's expectimax value with depth counting decision plies and h at any
    non-terminal node of depth 0, chance nodes included (the convention of the searches)."""
    if state.is_terminal():
        return float(state.returns()[0])
    if depth == 0:
        return h(state, 0)
    player = state.current_player()
    values = []
    for action, prob in (
        state.chance_outcomes() if player == CHANCE else ((a, 1.0) for a in state.legal_actions())
    ):
        child = state.clone()
        child.apply(action)
        values.append((prob, expectimax(child, h, depth - (player != CHANCE))))
    if player == CHANCE:
        return sum(p * v for p, v in values)
    return (max if player == 0 else min)(v for _, v in values)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    write(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
