"""`python -m chancespiel`: the `chancespiel` command."""

import sys

from chancespiel.evaluation.cli import main

sys.exit(main())
