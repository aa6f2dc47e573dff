"""Makes `ra_round8.json` (eight rounds of self-play from the first model; the same file has
been Ra's shipped value since 2026-11-28) Ra's learned value, for any command: `chancespiel
--import lab/plugins/use_ra_round8.py ...`."""

from pathlib import Path

from chancespiel.games.registry import register_value_model

register_value_model(
    "python_ra",
    str(
        Path(__file__).resolve().parents[1]
        / "results"
        / "values"
        / "selfplay_rounds"
        / "ra_round8.json"
    ),
)
