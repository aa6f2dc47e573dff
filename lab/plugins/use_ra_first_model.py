"""Makes `ra_first_model.json`, Ra's learned value until the self-play value replaced it,
Ra's learned value again, for any command: `chancespiel --import
lab/plugins/use_ra_first_model.py ...` reproduces the Ra figures made with it."""

from pathlib import Path

from chancespiel.games.registry import register_value_model

register_value_model(
    "python_ra",
    str(Path(__file__).resolve().parents[1] / "results" / "values" / "ra_first_model.json"),
)
