"""The studies of lab/results/bab_nodes/ and lab/results/uct_convergence/: their UCT / MC on cases
worked out by hand, and both commands end to end on tiny inputs."""

from __future__ import annotations

import csv
import random

import pyspiel
import pytest

from chancespiel.evaluation import cli
from chancespiel.games.pgame import pgame_action_values
from chancespiel.studies.uct_convergence import (
    UCB1_C,
    UctNode,
    checkpoints_up_to,
    implanted_string,
    mc_recommendations,
    most_wins,
    pgame_failure_curves,
    uct_convergence_time,
    uct_iteration,
    uct_recommendations,
)


def test_most_wins_counts_a_draw_as_half_and_breaks_ties_by_action():
    # (visits, sum of returns): wins + draws / 2 = (n + w) / 2
    assert most_wins({0: (10, 2.0), 1: (4, 4.0), 2: (12, -1.0)}) == 0  # 6, 4, 5.5
    assert most_wins({3: (2, 0.0), 1: (1, 1.0)}) == 1  # 1 and 1: the lower action
    assert most_wins({1: (8, 0.0), 0: (1, 1.0)}) == 1  # 8 draws beat 1 win


def test_uct_visits_add_up_and_values_are_averages():
    game = pyspiel.load_game("python_pgame(branching=3,depth=4,seed=1)")
    core = game.new_initial_state().core
    rng = random.Random(0)
    root = UctNode(core.legal_actions(), rng)
    returns = [uct_iteration(root, core.clone(), UCB1_C, rng) for _ in range(300)]
    assert root.n == 300 and root.w == pytest.approx(sum(returns))
    assert sum(child.n for child in root.kids.values()) == 300
    assert set(root.kids) == {0, 1, 2}
    for child in root.kids.values():  # every child was expanded further, by the same rule
        assert child.n == 1 + sum(grandchild.n for grandchild in child.kids.values())


def test_uct_and_mc_find_the_winning_move_of_a_one_ply_pgame():
    """Max picks one of 8 leaves; any leaf with a positive sum wins (no sampling noise)."""
    for seed in range(5):
        core = pyspiel.load_game(f"python_pgame(branching=8,depth=1,seed={seed})")
        core = core.new_initial_state().core
        values = pgame_action_values(core)
        best = max(values.values())
        uct = uct_recommendations(core, [8, 64], UCB1_C, seed)
        mc = mc_recommendations(core, [400], seed)
        assert values[uct[-1]] == best and values[mc[-1]] == best


def test_uct_finds_an_optimal_move_of_a_deep_pgame():
    core = pyspiel.load_game("python_pgame(branching=2,depth=10,seed=3)").new_initial_state().core
    values = pgame_action_values(core)
    optimal = {a for a, v in values.items() if v == max(values.values())}
    assert uct_recommendations(core, [4000], UCB1_C, 1)[-1] in optimal


def test_alpha_beta_failure_is_random_until_it_has_seen_its_leaves():
    results = [
        {"ab_leaves": 10, "optimal": 1, "failures": {"UCT": [[1, 0]], "MC": [[1, 1]]}},
        {"ab_leaves": 100, "optimal": 2, "failures": {"UCT": [[0, 0]], "MC": [[0, 1]]}},
    ]
    curves = {c.algorithm: c for c in pgame_failure_curves(results, 4, [10, 99])}
    assert curves["alpha-beta"].mean == [pytest.approx((0 + 0.5) / 2), pytest.approx(0.25)]
    assert curves["UCT"].mean == [0.5, 0.0]
    assert curves["MC"].mean == [0.5, 1.0]
    assert checkpoints_up_to(16) == [2, 3, 4, 6, 8, 11, 16]


def test_convergence_time_on_implanted_strategies():
    """A strategy at the root and at depth 2 of a depth-6 tree is found quickly; the time is
    when the root value last fell below 0.7, and later values stay above it."""
    game_string = implanted_string(6, (0, 2), seed=4)
    core = pyspiel.load_game(game_string).new_initial_state().core
    t_star, favourable, share = uct_convergence_time(core, UCB1_C, seed=1, max_iterations=20000)
    assert t_star is not None and 2 <= t_star < 5000
    assert favourable in (True, False)
    assert 0.0 < share < 0.5
    capped = uct_convergence_time(core, UCB1_C, seed=1, max_iterations=t_star - 1)
    assert capped[0] is None


def test_experiment_commands_write_their_files(tmp_path):
    out = tmp_path / "bab"
    status = cli.main(
        [
            "experiment",
            "bab-nodes",
            "--game",
            "python_pgame(branching=2,depth=5,scoring=margin)",
            "--game",
            "python_chance_tree(depth=3)",
            "--trees",
            "3",
            "--epsilons",
            "0,0.2",
            "--gammas",
            "0.3",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    rows = list(csv.DictReader((out / "bab_nodes.csv").open()))
    assert {r["algorithm"] for r in rows} >= {"expectimax", "alpha-beta", "star1", "bab"}
    assert (out / "bab_nodes.png").stat().st_size > 10_000
    assert "| bab | 0.2 |" in (out / "bab_nodes.md").read_text()

    uct = tmp_path / "uct"
    status = cli.main(
        [
            "experiment",
            "uct-convergence",
            "--out",
            str(uct),
            "--pgame-trees",
            "2",
            "--pgame-runs",
            "1",
            "--pgame-iterations",
            "64",
            "--implanted-depth",
            "6",
            "--implanted-runs",
            "1",
            "--implanted-iterations",
            "2000",
            "--trap-depth",
            "8",
            "--trap-runs",
            "1",
            "--trap-iterations",
            "2000",
            "--workers",
            "1",
        ]
    )
    assert status == 0
    for name in ("uct_pgame.png", "uct_implanted.png", "uct_pgame.csv", "uct_trap.csv"):
        assert (uct / name).stat().st_size > 100
    text = (uct / "uct_pgame.md").read_text() + (uct / "uct_implanted.md").read_text()
    assert "B=8 D=8" in text and "fixed d1 = 2" in text and "deep" in text
    assert cli.main(["experiment", "uct-convergence", "--studies", "nope"]) == 2
