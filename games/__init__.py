"""chancespiel games: importing this package registers them with pyspiel.

    import chancespiel.games  # registers python_pig, python_einstein_wurfelt_nicht, ...
    game = pyspiel.load_game("python_pig(dice=2,winscore=100)")

Each game module has the same parts: `Rules` (constants), `Core` (the state, implementing the
search protocol), the pyspiel adapter, and registration last; `registry` holds the heuristics
agents use and the entries `chancespiel games` lists. One import per line, so that branches
adding games merge without conflicts.

The layout (imports point one way: games <- agents <- evaluation <- evaluation.experiments):

    games/                   chancespiel.games: rules engines behind thin OpenSpiel adapters,
                             heuristics, exact solvers. A new game is one module here.
    agents/                  chancespiel.agents: search algorithms as OpenSpiel bots, one module
                             per family, and the agent registry. A new agent is one module here.
    evaluation/              chancespiel.evaluation: the toolkit (matches, runner, parallel and
                             Ray backends, statistics, ratings, SPRT, tuning, reports, plots).
    evaluation/cli/          the `chancespiel` command: parsing and printing, one module per
                             group of subcommands.
    evaluation/experiments/  the paper studies, one module per table or figure. A new experiment
                             is one module defining EXPERIMENT.
    results/  docs/          committed results (with command, machine, date); guides.
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
