"""Bounded alpha-beta (agents/bab.py) against the exact solvers of the synthetic trees.

The bounds are checked in the paper's form, written out here independently of the module:
additive, U - L <= epsilon; multiplicative, V - gamma|V| <= L <= U <= V + gamma|V|; with both
given, the larger allowance.
"""

from __future__ import annotations

import json
import random
import zlib

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from chancespiel.agents import make_bot, search_state
from chancespiel.agents.bab import bab_search
from chancespiel.agents.bab_core import BabSearch, Tolerance
from chancespiel.agents.search_core import Budget
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation import cli
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.games.chance_tree import solve_chance_tree
from chancespiel.games.implanted_tree import solve_implanted_tree
from chancespiel.games.pgame import solve_pgame

SLACK = 1e-12  # rounding of sums of probabilities
FULL = 64  # a depth no test tree reaches: searches go to the leaves


def random_tree(kind: str, rng: random.Random, large: bool = False) -> str:
    """A game string for a random small tree of `kind` (bigger ones if `large`)."""
    seed = rng.randrange(10**9)
    if kind == "pgame":
        b = rng.randint(2, 4)
        d = rng.randint(1, {2: 12, 3: 8, 4: 6}[b] if large else {2: 9, 3: 6, 4: 5}[b])
        scoring = rng.choice(["sign", "margin"])
        return f"python_pgame(seed={seed},branching={b},depth={d},scoring={scoring})"
    if kind == "implanted":
        depth = rng.randint(2, 14 if large else 10)
        evens = list(range(0, depth, 2))
        maxes = sorted(rng.sample(evens, rng.randint(1, min(2, len(evens)))))
        mins: list[int] = []
        odds = list(range(1, depth, 2))
        if maxes[0] == 0 and odds and rng.random() < 0.3:
            mins = sorted(rng.sample(odds, rng.randint(1, min(2, len(odds)))))
        maxes += [-1] * (2 - len(maxes))
        mins += [-1] * (2 - len(mins))
        return (
            f"python_implanted_tree(seed={seed},depth={depth},max_critical1={maxes[0]},"
            f"max_critical2={maxes[1]},min_critical1={mins[0]},min_critical2={mins[1]})"
        )
    depth = rng.randint(1, 5 if large else 4)
    width = 3 if depth >= 4 else 4
    return (
        f"python_chance_tree(seed={seed},depth={depth},branching={rng.randint(2, width)},"
        f"outcomes={rng.randint(2, width)},chance_prob={rng.choice([0.2, 0.5, 0.8, 1.0])})"
    )


SOLVERS = {"pgame": solve_pgame, "implanted": solve_implanted_tree, "chance": solve_chance_tree}


def random_bound(rng: random.Random) -> tuple[float, float]:
    """(epsilon, gamma): additive, multiplicative or both, from round and random values."""
    kind = rng.randrange(3)
    epsilon = rng.choice([0.05, 0.1, 0.2, 0.5, 1.0, rng.random()]) if kind != 1 else 0.0
    gamma = rng.choice([0.05, 0.1, 0.3, 0.6, 0.9, rng.random()]) if kind != 0 else 0.0
    return epsilon, gamma


def check_bound(lower: float, upper: float, value: float, epsilon: float, gamma: float) -> None:
    """The paper's guarantee: V in [L, U], and L, U within the allowance of V."""
    allowed = max(epsilon, gamma * abs(value))
    assert lower - SLACK <= value <= upper + SLACK
    assert value - allowed - SLACK <= lower
    assert upper <= value + allowed + SLACK
    assert upper - lower <= allowed + SLACK


def check_trees(kind: str, count: int, large: bool) -> None:
    """`count` random trees: the exact solver, exact alpha-beta / expectimax, BAB at epsilon = 0
    and BAB with a random bound (iterative deepening on every other tree)."""
    rng = random.Random(f"{kind}-{count}-{large}")
    kinds_seen = set()
    for i in range(count):
        game_string = random_tree(kind, rng, large)
        game = pyspiel.load_game(game_string)
        core = game.new_initial_state().core
        exact = SOLVERS[kind](core)
        # Exhaustive expectimax (= minimax without chance), and Star1 (= alpha-beta without
        # chance): their move is the first best one in the natural order of the actions.
        full = search(core.clone(), game, "expectimax", max_depth=FULL, iterative=False)
        star1 = search(core.clone(), game, "star1", max_depth=FULL, iterative=False)
        assert full.value == pytest.approx(exact, abs=SLACK), game_string
        assert star1.action == full.action, game_string

        zero = bab_search(core.clone(), game, max_depth=FULL, iterative=False)
        assert zero.exact_tree and zero.depth == FULL
        assert zero.lower == pytest.approx(exact, abs=SLACK), game_string
        assert zero.upper == pytest.approx(exact, abs=SLACK), game_string
        assert zero.action == full.action, game_string

        epsilon, gamma = random_bound(rng)
        result = bab_search(
            core.clone(), game, epsilon=epsilon, gamma=gamma, max_depth=FULL, iterative=i % 2 == 0
        )
        assert result.exact_tree, game_string
        check_bound(result.lower, result.upper, exact, epsilon, gamma)
        # The move: the child with the highest L is within the allowance of the best move.
        allowed = max(epsilon, gamma * abs(exact))
        move_value = full.action_values[result.action]
        assert move_value >= exact - allowed - SLACK, (game_string, epsilon, gamma)
        assert result.lower == max(lu[0] for lu in result.action_bounds.values())
        for action, (low, up) in result.action_bounds.items():
            assert low - SLACK <= full.action_values[action] <= up + SLACK
        kinds_seen.add((epsilon > 0, gamma > 0))
    assert kinds_seen == {(True, False), (False, True), (True, True)}


@pytest.mark.parametrize("kind", ["pgame", "implanted", "chance"])
def test_bab_bounds_and_exactness_on_1000_random_trees(kind):
    check_trees(kind, 1000, large=False)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["pgame", "implanted", "chance"])
def test_bab_bounds_and_exactness_on_1000_larger_random_trees(kind):
    check_trees(kind, 1000, large=True)


# --- the contract of every node ----------------------------------------------------------------


def _up(x: float, epsilon: float, gamma: float) -> float:
    """The largest U with [x, U] within the bound (written independently of the module)."""
    mult = x * (1 + gamma) if x >= 0 else x / (1 + gamma)
    return max(x + epsilon, mult)


def _down(y: float, epsilon: float, gamma: float) -> float:
    mult = y / (1 + gamma) if y >= 0 else y * (1 + gamma)
    return min(y - epsilon, mult)


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    depth=st.integers(1, 3),
    chance_prob=st.sampled_from([0.3, 0.6, 1.0]),
    window=st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0)),
    epsilon=st.sampled_from([0.0, 0.02, 0.1, 0.4]),
    gamma=st.sampled_from([0.0, 0.1, 0.5]),
    walk=st.integers(0, 3),
)
def test_every_window_returns_a_true_interval_that_meets_the_contract(
    seed, depth, chance_prob, window, epsilon, gamma, walk
):
    """In window (a, b), [L, U] holds V and is tight (U <= up(max(a, L))) or proves V >= b
    within the bound (L >= down(b)): what each parent relies on, chance nodes included."""
    alpha, beta = sorted(window)
    game = pyspiel.load_game(
        f"python_chance_tree(seed={seed},depth=5,branching=3,outcomes=3,chance_prob={chance_prob})"
    )
    core = game.new_initial_state().core
    rng = random.Random(seed)
    for _ in range(walk):  # start below the root sometimes, at a chance node too
        if core.current_player() == pyspiel.PlayerId.CHANCE:
            core.apply(rng.choice(core.chance_outcomes())[0])
        elif not core.is_terminal() and core.plies < 2:
            core.apply(rng.choice(core.legal_actions()))
    value = exact_value(core, depth)
    context = BabSearch(0, game_heuristic, -1.0, 1.0, None, Budget(None, None))
    lower, upper = context.search(core.clone(), depth, alpha, beta, Tolerance(epsilon, gamma), 1)
    assert lower - SLACK <= value <= upper + SLACK
    assert (
        upper <= _up(max(alpha, lower), epsilon, gamma) + SLACK
        or lower >= _down(beta, epsilon, gamma) - SLACK
    )


def game_heuristic(core, player: int) -> float:
    """python_chance_tree's hashed values (exact at leaves)."""
    v = core.value()
    return v if player == 0 else -v


def exact_value(core, depth: int) -> float:
    """Depth-limited expectimax for player 0 with the hashed heuristic, by plain recursion."""
    player = core.current_player()
    if player == pyspiel.PlayerId.TERMINAL:
        return core.returns()[0]
    if depth == 0:
        return game_heuristic(core, 0)
    if player == pyspiel.PlayerId.CHANCE:
        total = 0.0
        for outcome, prob in core.chance_outcomes():
            child = core.clone()
            child.apply(outcome)
            total += prob * exact_value(child, depth)
        return total
    values = []
    for action in core.legal_actions():
        child = core.clone()
        child.apply(action)
        values.append(exact_value(child, depth - 1))
    return max(values) if player == 0 else min(values)


# --- real games: depth-limited search with a heuristic ----------------------------------------


def hashed_evaluation(state, player: int) -> float:
    """A deterministic, varied evaluation in (-1, 1) of any state."""
    if state.is_terminal():
        return state.returns()[player]
    h = zlib.crc32(f"{player}:{state}".encode()) / 2**32
    return 1.8 * h - 0.9


@pytest.mark.parametrize(
    "game_string, depth",
    [("python_pig(winscore=30)", 4), ("pig(winscore=25)", 3), ("python_cant_stop", 2)],
)
def test_depth_limited_bounds_hold_the_expectimax_value_on_real_games(game_string, depth):
    game = pyspiel.load_game(game_string)
    rng = random.Random(depth)
    for state in random_decision_positions(game, 4, seed=depth):
        reference = search(
            search_state(state), game, "expectimax", max_depth=depth, evaluation=hashed_evaluation
        )
        zero = bab_search(search_state(state), game, max_depth=depth, evaluation=hashed_evaluation)
        assert zero.lower == pytest.approx(reference.value, abs=1e-9)
        assert zero.upper == pytest.approx(reference.value, abs=1e-9)
        epsilon, gamma = random_bound(rng)
        bounded = bab_search(
            search_state(state),
            game,
            epsilon=epsilon,
            gamma=gamma,
            max_depth=depth,
            evaluation=hashed_evaluation,
        )
        check_bound(bounded.lower, bounded.upper, reference.value, epsilon, gamma)
        assert bounded.depth == depth and len(bounded.bounds_by_depth) == depth


def test_multiplicative_bound_is_exact_at_value_zero_and_loose_far_from_it():
    """gamma * |V| allows nothing at V = 0 (a drawn P-game) and up to gamma at |V| = 1."""
    game = pyspiel.load_game("python_pgame(seed=299,branching=3,depth=4)")
    assert solve_pgame(game.new_initial_state().core) == 0.0  # a drawn tree
    result = bab_search(
        search_state(game.new_initial_state()), game, gamma=0.9, max_depth=FULL, iterative=False
    )
    assert result.lower == result.upper == 0.0
    assert Tolerance(gamma=0.5).up(1.0) == 1.5 and Tolerance(gamma=0.5).down(-1.0) == -1.5
    assert Tolerance(gamma=0.5).up(-0.3) == pytest.approx(-0.2)
    assert Tolerance(0.1, 0.5).up(0.1) == pytest.approx(0.2)  # the larger allowance


def test_larger_epsilon_searches_fewer_nodes_than_star1():
    """Mean nodes over 15 trees: epsilon = 0 equals Star1's count, and they fall with epsilon.
    The paper's per-child epsilon (share_slack=False) stays sound and searches more nodes."""
    means: dict[str, float] = {}
    for label, kwargs in [
        ("star1", None),
        ("0", {"epsilon": 0.0}),
        ("0.1", {"epsilon": 0.1}),
        ("0.1 paper", {"epsilon": 0.1, "share_slack": False}),
        ("0.5", {"epsilon": 0.5}),
    ]:
        nodes = []
        for seed in range(15):
            game = pyspiel.load_game(
                f"python_chance_tree(seed={seed},depth=5,branching=3,outcomes=3)"
            )
            core = game.new_initial_state().core
            if kwargs is None:
                result = search(core, game, "star1", max_depth=FULL, iterative=False)
            else:
                result = bab_search(core, game, max_depth=FULL, iterative=False, **kwargs)
                check_bound(
                    result.lower, result.upper, solve_chance_tree(core), kwargs["epsilon"], 0.0
                )
            nodes.append(result.nodes)
        means[label] = float(np.mean(nodes))
    assert means["0"] == means["star1"]
    assert means["0.5"] < means["0.1"] < means["0"]
    assert means["0.1"] < means["0.1 paper"] < means["0"]


# --- budgets, bots, errors ---------------------------------------------------------------------


def test_budgets_stop_the_search_with_a_legal_move_and_a_completed_interval():
    game = pyspiel.load_game("python_pig")
    state = random_decision_positions(game, 1, seed=2)[0]
    result = bab_search(search_state(state), game, epsilon=0.05, max_nodes=3000)
    assert not result.completed and result.depth >= 1
    assert result.action in state.legal_actions()
    assert result.nodes <= 3000 + 256
    assert -1.0 <= result.lower <= result.upper <= 1.0
    assert len(result.bounds_by_depth) == result.depth
    timed = bab_search(search_state(state), game, time_ms=30)
    assert timed.action in state.legal_actions() and timed.time_s < 1.0


def test_search_stops_when_the_tree_is_exhausted():
    game = pyspiel.load_game("python_chance_tree(seed=1,depth=3)")
    result = bab_search(search_state(game.new_initial_state()), game, time_ms=5000)
    assert result.exact_tree and result.depth == 3 and result.time_s < 1.0
    assert result.lower == pytest.approx(solve_chance_tree(game.new_initial_state().core))


def test_bot_plays_ours_and_openspiel_games_and_analyses():
    for game_string in ("python_pig(winscore=30)", "pig(winscore=30)", "python_pgame(depth=6)"):
        game = pyspiel.load_game(game_string)
        bots = [
            make_bot("bab(epsilon=0.1,max_depth=3)", game, 0),
            make_bot("random(seed=2)", game, 1),
        ]
        returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
        assert len(returns) == 2 and returns[0] == -returns[1]
    game = pyspiel.load_game("python_chance_tree(seed=2,depth=4)")
    bot = make_bot("bab(gamma=0.2,max_depth=8)", game, 0)
    result = bot.analyse(game.new_initial_state())
    assert result.exact_tree and result.action in result.action_values
    assert make_bot("bab", game, 0).options["time_ms"] == 200.0


def test_analyse_shows_the_interval(capsys):
    argv = ["analyse", "python_pig", "--history", "0 7", "--agent", "bab(epsilon=0.05,max_depth=2)"]
    assert cli.main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["upper"] - report["lower"] <= 0.05 + SLACK
    assert report["action_bounds"]["0"][0] == report["lower"]
    assert cli.main(argv) == 0
    assert "interval [" in capsys.readouterr().out


@pytest.mark.parametrize(
    "spec, message",
    [
        ("bab(epsilon=-0.1)", "epsilon must be"),
        ("bab(gamma=1.0)", r"gamma must be in \[0, 1\)"),
        ("bab(gamma=-0.5)", r"gamma must be in \[0, 1\)"),
        ("bab(max_depth=0)", r"max_depth must be in \[1, "),
        ("bab(time_ms=0)", r"time_ms must be in \(0, "),
        ("bab(max_nodes=0)", r"max_nodes must be in \[1, "),
        ("bab(eps=0.1)", "unknown parameter"),
        ("bab(epsilon=none)", "cannot be none"),
    ],
)
def test_bad_parameters(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec, pyspiel.load_game("python_pig"), 0)


def test_unsupported_games_and_roots():
    with pytest.raises(ValueError, match="3 players"):
        make_bot("bab(max_depth=2)", pyspiel.load_game("pig(players=3)"), 0)
    game = pyspiel.load_game("python_pig")
    state = game.new_initial_state()
    state.apply_action(0)
    with pytest.raises(ValueError, match="decision node"):
        bab_search(search_state(state), game, max_depth=2)
    with pytest.raises(ValueError, match="needs gamma = 0"):
        root = search_state(game.new_initial_state())
        bab_search(root, game, gamma=0.1, max_depth=1, share_slack=False)
    with pytest.raises(ValueError, match="iterative=False needs max_depth"):
        bab_search(search_state(game.new_initial_state()), game, time_ms=10, iterative=False)
