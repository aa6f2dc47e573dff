"""Makes `ra_round8.json` (eight rounds of self-play from the shipped model) Ra's learned
value, for any command: `chancespiel --import results/values/selfplay_rounds/use_ra_round8.py
...`."""

from pathlib import Path

from chancespiel.games.registry import register_value_model

register_value_model("python_ra", str(Path(__file__).resolve().parent / "ra_round8.json"))
