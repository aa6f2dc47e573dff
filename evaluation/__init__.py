"""chancespiel evaluation: play, measure and compare agents.

    chancespiel match python_pig pig_optimal "hold(n=20)" --matches 200

The toolkit modules are `play` (one game, one match), `match` (records), `runner` and
`parallel` (many games, local or Ray), `stats`, `ratings`, `sprt`, `tune`, `report`, `plot`,
`figures` (readable layouts) and `positions`; `usage` (errors, checked input, output paths)
and `run_options` (the options of playing commands) serve every command; `cli` is the command
line and `experiments` the paper studies that use them.

The package layout, and the one direction of imports between its parts, is in the
docstring of `chancespiel` (chancespiel/__init__.py) and docs/architecture.md.
"""
