"""OpenSpiel's own MCTS as agents: a legal move whatever the budget."""

from __future__ import annotations

import pyspiel
import pytest

from chancespiel.agents import make_bot
from chancespiel.evaluation.positions import random_decision_positions


@pytest.mark.parametrize("spec", ["openspiel_mcts", "openspiel_mcts_cpp"])
@pytest.mark.parametrize("game_string", ["python_cant_stop", "python_pig", "pig", "python_ra"])
def test_a_budget_too_small_for_one_simulation_still_gives_a_legal_move(spec, game_string):
    game = pyspiel.load_game(game_string)
    for state in random_decision_positions(game, 6, seed=4):
        player = state.current_player()
        bot = make_bot(f"{spec}(time_ms=0.001)", game, player, seed=1)
        assert bot.step(state) in state.legal_actions()
