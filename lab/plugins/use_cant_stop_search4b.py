"""Makes `cant_stop_search4b.json` (a third round: four plies on `cant_stop_search4.json`)
Can't Stop's learned value, for any command: `chancespiel --import
lab/plugins/use_cant_stop_search4b.py ...`."""

from pathlib import Path

from chancespiel.games.registry import register_value_model

register_value_model(
    "python_cant_stop",
    str(
        Path(__file__).resolve().parents[1]
        / "results"
        / "values"
        / "distilled"
        / "cant_stop_search4b.json"
    ),
)
