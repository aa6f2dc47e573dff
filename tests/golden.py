"""Golden playthrough files (a random game recorded line by line, replayed by the tests), and
the seeded random positions of the golden searches.

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
    if core.current_player() == pyspiel.PlayerId.CHANCE:
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
        while not core.is_terminal() and core.current_player() == pyspiel.PlayerId.CHANCE:
            random_step(core, rng)
        if not core.is_terminal() and len(core.legal_actions()) > 1:
            found.append(core)
    return found


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    write(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
