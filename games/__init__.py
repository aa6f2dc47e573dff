"""chancespiel games: importing this package registers them with pyspiel.

    import chancespiel.games  # registers python_pig, python_einstein_wurfelt_nicht, ...
    game = pyspiel.load_game("python_pig(dice=2,winscore=100)")

Each game module has the same parts: `Rules` (constants), `Core` (the state, implementing the
search protocol), the pyspiel adapter, and registration last; `registry` holds the heuristics
agents use and the entries `chancespiel games` lists. One import per line, so that branches
adding games merge without conflicts.

The package layout, and the one direction of imports between its parts, is in the
docstring of `chancespiel` (chancespiel/__init__.py) and docs/architecture.md.
"""

from chancespiel.games import pig
from chancespiel.games import einstein
from chancespiel.games import cant_stop
from chancespiel.games import ra
from chancespiel.games import chance_tree
from chancespiel.games import pgame
from chancespiel.games import implanted_tree
from chancespiel.games import openspiel_games
from chancespiel.games.registry import GAMES, has_heuristic, heuristic_for, register_heuristic
