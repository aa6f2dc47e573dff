"""Makes the model file named by the environment variable RA_ROUND_MODEL Ra's learned value
(unset or empty: the shipped model), for `rounds.sh`: `RA_ROUND_MODEL=FILE chancespiel
--import lab/plugins/use_round.py ...`."""

import os

from chancespiel.games.registry import register_value_model

if os.environ.get("RA_ROUND_MODEL"):
    register_value_model("python_ra", os.environ["RA_ROUND_MODEL"])
