"""Makes `cant_stop_first_model.json`, Can't Stop's learned value until the distilled value
replaced it, Can't Stop's learned value again, for any command: `chancespiel --import
lab/plugins/use_cant_stop_first_model.py ...` reproduces the Can't Stop figures made with
it."""

from pathlib import Path

from chancespiel.games.registry import register_value_model

register_value_model(
    "python_cant_stop",
    str(Path(__file__).resolve().parents[1] / "results" / "values" / "cant_stop_first_model.json"),
)
