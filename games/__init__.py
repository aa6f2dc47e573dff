"""chancespiel games: importing this package registers them with pyspiel.

    import chancespiel.games  # registers python_pig, ...
    game = pyspiel.load_game("python_pig(dice=2,winscore=100)")

Each game module follows the Rules / Core / adapter pattern of DESIGN.md; `registry` holds the
heuristics agents use and the entries `chancespiel games` lists.
"""

from chancespiel.games import cant_stop, pig
from chancespiel.games.registry import GAMES, has_heuristic, heuristic_for, register_heuristic

__all__ = ["GAMES", "cant_stop", "has_heuristic", "heuristic_for", "pig", "register_heuristic"]
