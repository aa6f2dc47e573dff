"""chancespiel games: importing this package registers them with pyspiel.

    import chancespiel.games  # registers python_pig, python_einstein_wurfelt_nicht, ...
    game = pyspiel.load_game("python_pig(dice=2,winscore=100)")

Each game module follows the Rules / Core / adapter pattern of DESIGN.md; `registry` holds the
heuristics agents use and the entries `chancespiel games` lists. One import per line, so that
branches adding games merge without conflicts.
"""

from chancespiel.games import pig
from chancespiel.games import einstein
from chancespiel.games import cant_stop
from chancespiel.games import ra
from chancespiel.games import chance_tree
from chancespiel.games import pgame
from chancespiel.games import implanted_tree
from chancespiel.games.registry import GAMES, has_heuristic, heuristic_for, register_heuristic
