"""Makes the models in lab/results/values/distilled/ the games' learned values (instead of the
shipped ones), for any command: `chancespiel --import lab/plugins/use_distilled_models.py ...`."""

from pathlib import Path

from chancespiel.games.registry import register_value_model

HERE = Path(__file__).resolve().parents[1] / "results" / "values" / "distilled"
MODELS = {
    "python_einstein_wurfelt_nicht": "ewn_search4.json",
    "python_cant_stop": "cant_stop_search2.json",
    "python_ra": "ra_search2.json",
}

for game, name in MODELS.items():
    if (HERE / name).exists():
        register_value_model(game, str(HERE / name))
