"""chancespiel games: importing this package registers them with pyspiel.

    import chancespiel.games  # registers python_pig, python_einstein_wurfelt_nicht, ...
    game = pyspiel.load_game("python_pig(dice=2,winscore=100)")

Each game module has the same parts: `Rules` (constants), `Core` (the state, implementing the
search protocol), the pyspiel adapter, and last its one declaration, `register_game(GameSpec(
...))`: everything chancespiel knows about the game (heuristics, move ordering, features,
OpenSpiel's versions of it, its entry in `chancespiel games`), kept by `registry`. `learned`
declares the learned value, a heuristic of every game with features and a model. One import
per line, so that branches adding games merge without conflicts.

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
from chancespiel.games import learned
from chancespiel.games.registry import GameSpec, register_game, register_heuristic
from chancespiel.games.registry import has_heuristic, heuristic_for, listed_games
