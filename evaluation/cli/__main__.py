"""`python -m chancespiel.evaluation.cli`: the `chancespiel` command."""

import sys

from chancespiel.evaluation.cli import main

sys.exit(main())
