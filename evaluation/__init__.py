"""chancespiel evaluation: play, measure and compare agents.

    chancespiel match python_pig pig_optimal "hold(n=20)" --matches 200

The toolkit modules are `play` (one game, one match), `match` (records), `runner` and
`parallel` (many games, local or Ray), `stats`, `ratings`, `sprt`, `tune`, `report`, `plot` and
`positions`; `usage` (errors, checked input, output paths) and `run_options` (the options of
playing commands) serve every command; `cli` is the command line and `experiments` the paper
studies that use them.

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
