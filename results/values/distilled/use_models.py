"""Makes the models of this directory the games' learned values (instead of the shipped ones),
for any command: `chancespiel --import results/values/distilled/use_models.py ...`."""

from pathlib import Path

from chancespiel.games.registry import register_value_model

HERE = Path(__file__).resolve().parent
MODELS = {
    "python_einstein_wurfelt_nicht": "ewn_search4.json",
    "python_cant_stop": "cant_stop_search2.json",
    "python_ra": "ra_search2.json",
}

for game, name in MODELS.items():
    if (HERE / name).exists():
        register_value_model(game, str(HERE / name))
