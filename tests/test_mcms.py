"""Monte Carlo *-Minimax as sections 3.1 and 4.2 of the MCMS paper mean it (fresh samples per
depth, the last completed depth's move), the opt-in additions, shared samples, root value
kinds, sampling tables, work counters."""

from __future__ import annotations

import json
import math

import pyspiel
import pytest
from golden import former_hybrid, ordered_cant_stop_decision

from chancespiel.agents import make_bot, search_state
from chancespiel.agents.search_common import sample_outcomes_linear
from chancespiel.agents.search_core import (
    Budget,
    outcome_table,
    sample_outcomes,
    stratified_outcomes,
    systematic_outcomes,
)
from chancespiel.agents.star_core import EXACT, LOWER, UPPER, StarSearch
from chancespiel.agents.star_minimax import hybrid_options, search
from chancespiel.evaluation.positions import random_decision_positions as random_positions


def _contested_positions(game: pyspiel.Game, count: int, seed: int, max_moves: int) -> list:
    """Decision nodes with more than one legal action (a single one is played at once)."""
    found = []
    for state in random_positions(game, 4 * count, seed=seed, max_moves=max_moves):
        if len(state.legal_actions()) > 1:
            found.append(state)
        if len(found) == count:
            break
    assert len(found) == count
    return found


def test_the_default_is_the_papers_iterative_deepening():
    """One search per depth with fresh samples, the move and value of the last completed depth
    (MCMS paper, sections 3.1 and 4.2), and root pruning as in Star1/Star2."""
    game = pyspiel.load_game("python_pig(winscore=60)")
    kinds = set()
    for state in _contested_positions(game, 4, seed=3, max_moves=12):
        for algorithm in ("expectimax", "star1", "star2"):
            result = search(
                search_state(state), game, algorithm, max_nodes=20_000, samples=5, seed=4
            )
            depths = [it.depth for it in result.iterations]
            assert depths == list(range(1, len(depths) + 1)) and not result.completed
            last = result.iterations[-1]
            assert (result.depth, result.action, result.value) == (
                last.depth, last.action, last.value
            )  # fmt: skip
            assert result.searches == 1 and sum(it.nodes for it in result.iterations) < result.nodes
            kinds |= set(result.action_value_kinds.values())
    assert UPPER in kinds  # the sampled root prunes


def test_expss_star1ss_star2ss_with_one_seed_sample_each_depth_alike():
    game = pyspiel.load_game("python_chance_tree(seed=11,depth=7,outcomes=6)")
    for state in random_positions(game, 3, seed=9):
        runs = [
            search(search_state(state), game, algorithm, max_depth=5, samples=3, seed=8)
            for algorithm in ("expectimax", "star1", "star2")
        ]
        for run in runs[1:]:
            assert [it.depth for it in run.iterations] == [1, 2, 3, 4, 5]
            for mine, reference in zip(run.iterations, runs[0].iterations, strict=True):
                assert mine.value == pytest.approx(reference.value, abs=1e-9)


def test_resample_spends_the_budget_and_distrust_decided_keeps_an_undecided_value():
    """One die drawn per chance node makes a sampled tree deterministic and quickly exhausted.
    With `resample` that neither ends the search early; with `distrust_decided` it does not
    produce a +-1 root value (a 'proof' about dice drawn once) unless the classic search also
    finds the position decided. The paper's plain search does both, which the options exist
    to change."""
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    positions = _contested_positions(game, 22, seed=5, max_moves=16)
    plain_decided = 0
    for index, state in enumerate(positions):
        player = state.current_player()
        options = "resample=true,distrust_decided=true,solve_exhausted=true"
        bot = make_bot(f"star1ss(samples=1,time_ms=200,seed={index},{options})", game, player)
        result = bot.analyse(state)
        classic = search(search_state(state), game, "star1", max_depth=4)
        if abs(classic.value) < 1.0:
            assert result.time_s >= 0.9 * 0.2, (index, result)
            assert abs(result.value) < 1.0 or result.depth == 1, (index, result.value)
            plain = make_bot(f"star1ss(samples=1,time_ms=200,seed={index})", game, player)
            plain_decided += abs(plain.analyse(state).value) == 1.0
    assert plain_decided > 0


def test_resample_spends_a_node_budget_on_an_exhausted_tree():
    game = pyspiel.load_game("python_chance_tree(seed=3,depth=3,outcomes=6)")
    state = search_state(game.new_initial_state())
    classic = search(state, game, "star2", max_nodes=20_000)
    assert classic.completed and classic.nodes < 1000  # the real tree is small: solved
    plain = search(state, game, "star2", max_nodes=20_000, samples=2, seed=1)
    assert plain.completed and plain.nodes < 1000 and plain.searches == 1
    sampled = search(state, game, "star2", max_nodes=20_000, samples=2, seed=1, resample=True)
    assert sampled.nodes > 20_000 and not sampled.completed
    assert sampled.searches > 10 and sampled.depth <= 4
    assert len(sampled.iterations) > sampled.searches  # every search is listed
    assert set(sampled.action_value_kinds.values()) == {EXACT}  # the full root window


def test_solve_exhausted_stops_when_the_real_tree_is_solved():
    """Samples that draw every outcome of every chance node on a tree that ends above the
    horizon trigger the classic search of the real tree, whose value is exact."""
    game = pyspiel.load_game("python_chance_tree(seed=4,depth=3,outcomes=2)")
    state = search_state(game.new_initial_state())
    exact = search(state, game, "expectimax", max_depth=3)
    result = search(state, game, "star1", time_ms=5000, samples=60, seed=3, solve_exhausted=True)
    assert result.solved and result.time_s < 2.0
    assert result.value == pytest.approx(exact.value, abs=1e-9)
    plain = search(state, game, "star1", time_ms=5000, samples=60, seed=3)
    assert not plain.solved and plain.time_s < 2.0


def test_full_root_window_makes_every_sampled_root_value_exact():
    game = pyspiel.load_game("python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)")
    for state in _contested_positions(game, 5, seed=2, max_moves=25):
        reference = search(search_state(state), game, "expectimax", max_depth=3, samples=4, seed=5)
        for algorithm in ("star1", "star2"):
            result = search(
                search_state(state), game, algorithm, max_depth=3, samples=4, seed=5,
                full_root_window=True,
            )  # fmt: skip
            assert set(result.action_value_kinds.values()) == {EXACT}
            for action, value in reference.action_values.items():
                assert result.action_values[action] == pytest.approx(value, abs=1e-9)


def test_sampled_options_need_samples():
    game = pyspiel.load_game("python_pig")
    with pytest.raises(ValueError, match="resample needs samples"):
        make_bot("star2(resample=true)", game, 0)
    with pytest.raises(ValueError, match="needs samples"):
        search(search_state(game.new_initial_state()), game, "star1", max_depth=1,
               solve_exhausted=True)  # fmt: skip


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize(
    "game_string", ["python_pig(winscore=40)", "python_cant_stop(sides=4,shortest=2)"]
)
def test_expss_action_values_are_unbiased(game_string, shared):
    """At depth 1 every root action value of expss is a plain sample mean of the chance node
    below it, so its mean over seeds must equal expectimax's (the root value, a maximum of
    noisy means, is biased upward, and deeper maxima likewise: Jensen's inequality)."""
    game = pyspiel.load_game(game_string)
    runs = 300
    for state in _contested_positions(game, 3, seed=8, max_moves=20):
        exact = search(search_state(state), game, "expectimax", max_depth=1).action_values
        sums = dict.fromkeys(exact, 0.0)
        squares = dict.fromkeys(exact, 0.0)
        for seed in range(runs):
            result = search(
                search_state(state),
                game,
                "expectimax",
                max_depth=1,
                samples=3,
                shared_samples=shared,
                seed=seed,
            )
            for action, value in result.action_values.items():
                sums[action] += value
                squares[action] += value * value
        for action, value in exact.items():
            mean = sums[action] / runs
            sd = math.sqrt(max(squares[action] / runs - mean * mean, 0.0))
            # 4.5 standard errors: a few hundred comparisons in the suite stay far from a
            # false alarm, while a biased sampler (wrong weights) is off by many.
            assert abs(mean - value) <= 4.5 * sd / math.sqrt(runs) + 1e-9, (action, mean, value)


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("game_string", ["python_pig", "python_einstein_wurfelt_nicht"])
def test_expss_root_value_at_depth_2_is_unbiased_where_one_move_is_clearly_best(
    game_string, shared
):
    """The mean of expss's root value at depth 2 over 200 seeds equals expectimax's within
    4.5 standard errors on positions where expectimax's best move leads the second by at
    least 0.05. (Where two moves are close, the maximum of two noisy means is biased upward,
    by up to 10 standard errors here: Jensen's inequality, a property of the estimator.)"""
    game = pyspiel.load_game(game_string)
    checked = 0
    for state in _contested_positions(game, 12, seed=21, max_moves=20):
        exact = search(search_state(state), game, "expectimax", max_depth=2)
        first, second = sorted(exact.action_values.values(), reverse=True)[:2]
        if first - second < 0.05:
            continue
        checked += 1
        values = [
            search(
                search_state(state),
                game,
                "expectimax",
                max_depth=2,
                samples=10,
                shared_samples=shared,
                seed=seed,
            ).value
            for seed in range(200)
        ]
        mean = sum(values) / len(values)
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
        assert abs(mean - exact.value) <= 4.5 * sd / math.sqrt(len(values)) + 1e-9
    assert checked >= 4


class _LoggingSearch(StarSearch):
    """Records the sample each chance node drew, with the chance outcomes above it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.drawn: list[tuple[int, tuple, list]] = []

    def outcomes(self, state, depth, ckey):
        sample = super().outcomes(state, depth, ckey)
        self.drawn.append((ckey, state.chance_outcomes(), list(sample)))
        return sample


@pytest.mark.parametrize("shared", [False, True])
def test_shared_samples_give_siblings_the_same_outcomes(shared):
    """In Pig every chance node rolls the same dice. With shared samples, a player's n-th roll
    draws the same outcomes on every line (my opponent's first roll after my 'stop' and after
    my 'roll ... stop' alike), while my rolls and my opponent's stay apart; without shared
    samples every chance node has a key of its own."""
    game = pyspiel.load_game("python_pig(winscore=60)")
    state = search_state(random_positions(game, 1, seed=3)[0])
    context = _LoggingSearch(
        "expectimax", state.current_player(), lambda s, p: 0.0, -1.0, 1.0, 5, 99, 0, None,
        Budget(None, None), shared,
    )  # fmt: skip
    context.root_search(state, 4)
    by_key: dict[object, list] = {}
    for ckey, _, sample in context.drawn:
        if shared:  # (last mover, chance nodes after that player's moves): see StarSearch
            last = ckey & 1
            ckey = (last, ckey >> 33 if last else (ckey >> 1) & (2**32 - 1))
        by_key.setdefault(ckey, []).append(sample)
    if shared:
        assert max(len(samples) for samples in by_key.values()) >= 2
        assert all(all(s == samples[0] for s in samples) for samples in by_key.values())
        assert {last for last, _ in by_key} == {0, 1}
        assert by_key[0, 0][0] != by_key[1, 0][0]  # my first roll is not my opponent's
    else:
        assert all(len(samples) == 1 for samples in by_key.values())
        assert len({tuple(s) for (s,) in by_key.values()}) > 1


@pytest.mark.parametrize("shared", [False, True])
def test_sampled_star_equals_expss_with_shared_samples(shared):
    game = pyspiel.load_game("python_chance_tree(seed=11,depth=7,outcomes=6)")
    for state in random_positions(game, 4, seed=9):
        values = {
            algorithm: search(
                search_state(state),
                game,
                algorithm,
                max_depth=5,
                samples=3,
                shared_samples=shared,
                seed=77,
            )
            for algorithm in ("expectimax", "star1", "star2")
        }
        for algorithm in ("star1", "star2"):
            assert values[algorithm].value == pytest.approx(values["expectimax"].value, abs=1e-9)
            assert values[algorithm].action == values["expectimax"].action


KIND_GAMES = {
    "python_pig(winscore=40)": 3,
    "python_einstein_wurfelt_nicht": 3,
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)": 3,
    "python_cant_stop": 2,
    "python_ra(epochs=1)": 2,
}


@pytest.mark.parametrize("game_string", list(KIND_GAMES))
def test_action_value_kinds_against_expectimax(game_string):
    """Every root action value of star1/star2 is what its kind says: equal to expectimax's
    action value ("exact") or at least it ("upper"); the best action's is exact."""
    game = pyspiel.load_game(game_string)
    kinds_seen = set()
    for state in _contested_positions(game, 6, seed=13, max_moves=25):
        for depth in range(1, KIND_GAMES[game_string] + 1):
            exact = search(search_state(state), game, "expectimax", max_depth=depth)
            assert set(exact.action_value_kinds.values()) == {EXACT}
            for algorithm in ("star1", "star2"):
                result = search(search_state(state), game, algorithm, max_depth=depth)
                assert result.action_value_kinds[result.action] == EXACT
                assert set(result.action_value_kinds) == set(result.action_values)
                for action, value in result.action_values.items():
                    kind = result.action_value_kinds[action]
                    kinds_seen.add(kind)
                    reference = exact.action_values[action]
                    if kind == EXACT:
                        assert value == pytest.approx(reference, abs=1e-9), (action, depth)
                    else:
                        assert kind == UPPER and value >= reference - 1e-9, (action, depth)
    assert EXACT in kinds_seen


def test_action_value_kinds_include_bounds():
    """The kinds are not all 'exact' by construction: Star1 proves moves worse by bounds."""
    game = pyspiel.load_game("python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)")
    kinds = set()
    for state in _contested_positions(game, 10, seed=2, max_moves=25):
        kinds |= set(
            search(search_state(state), game, "star1", max_depth=3).action_value_kinds.values()
        )
    assert UPPER in kinds


def _check_labels(result, reference, where) -> set[str]:
    """Asserts every root value of `result` is what its kind says about `reference`'s."""
    assert result.action_value_kinds[result.action] == EXACT, where
    assert set(result.action_value_kinds) == set(reference.action_values), where
    for action, value in result.action_values.items():
        kind, truth = result.action_value_kinds[action], reference.action_values[action]
        if kind == EXACT:
            assert value == pytest.approx(truth, abs=1e-9), (where, action, value, truth)
        elif kind == UPPER:
            assert value >= truth - 1e-9, (where, action, value, truth)
        else:
            assert kind == LOWER and value <= truth + 1e-9, (where, action, value, truth)
    return set(result.action_value_kinds.values())


def test_root_labels_where_the_best_move_wins():
    """The best move 18 is worth vmax = 1: the other root move is not searched with an empty
    window (whose value bounds nothing) but labelled with the bound vmax."""
    game = pyspiel.load_game(
        "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2,horizon=40)"
    )
    state = game.new_initial_state()
    for action in (2, 10, 1, 11, 18, 0, 9, 19, 0, 8, 18, 1, 9, 19, 1, 8):
        state.apply_action(action)
    exact = search(search_state(state), game, "expectimax", max_depth=2)
    assert exact.action_values == pytest.approx({18: 1.0, 16: 0.375})
    for algorithm in ("star1", "star2"):
        result = search(search_state(state), game, algorithm, max_depth=2)
        assert _check_labels(result, exact, algorithm) == {EXACT, UPPER}
        assert result.action_values[16] == 1.0


# Game -> deepest checked depth: small variants of every registered game, positions from
# random play long enough to reach decided endgames (where vmin / vmax windows arise).
LABEL_GAMES = {
    "python_pig(winscore=20)": 4,
    "python_pig(dice=1,winscore=15)": 4,
    "python_einstein_wurfelt_nicht": 3,
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2,horizon=40)": 3,
    "python_ra(epochs=1)": 2,
    "python_chance_tree(seed=5,depth=6,outcomes=4)": 4,
    "python_pgame(seed=3,depth=8)": 4,
    "python_implanted_tree(seed=2,depth=8)": 4,
}
pytestmark = pytest.mark.filterwarnings("ignore:.*no heuristic")


def _label_positions(game: pyspiel.Game) -> list:
    """Twelve contested positions from random play, first (up to eight) those with a move
    worth vmin or vmax at depth 2: a window at the bounds is where labels went wrong."""
    decided, others = [], []
    for state in random_positions(game, 150, seed=17, max_moves=80):
        if len(state.legal_actions()) < 2:
            continue
        values = search(search_state(state), game, "expectimax", max_depth=2).action_values
        bounds = (game.min_utility(), game.max_utility())
        (decided if any(v in bounds for v in values.values()) else others).append(state)
    return (decided[:8] + others)[:12]


@pytest.mark.parametrize("game_string", list(LABEL_GAMES))
def test_root_labels_on_random_positions(game_string):
    """Randomized: an exact root value equals expectimax's (or expss's with the same samples),
    an upper bound is >= it, a lower bound <= it, for classic and sampled Star1/Star2, with
    and without iterative deepening, pruning at every depth or above 2."""
    game = pyspiel.load_game(game_string)
    positions = _label_positions(game)
    kinds: set[str] = set()
    for index, state in enumerate(positions):
        for depth in range(1, LABEL_GAMES[game_string] + 1):
            for samples in (None, 3):
                reference = search(
                    search_state(state), game, "expectimax", max_depth=depth, samples=samples,
                    seed=index,
                )  # fmt: skip
                for algorithm in ("star1", "star2"):
                    for iterative, prune_min_depth in ((True, 0), (False, 2)):
                        result = search(
                            search_state(state), game, algorithm, max_depth=depth,
                            samples=samples, seed=index, iterative=iterative,
                            prune_min_depth=prune_min_depth,
                        )  # fmt: skip
                        if not iterative and samples is not None:
                            continue  # one search from stream 1, not the reference's last
                        where = (index, depth, samples, algorithm, iterative)
                        kinds |= _check_labels(result, reference, where)
    assert EXACT in kinds


def test_bisection_sampling_equals_the_linear_scan():
    outcomes = tuple((o, p) for o, p in zip(range(10, 136), [1 / 126] * 126, strict=True))
    skewed = [(0, 0.5), (3, 0.0), (7, 0.25), (9, 0.125), (11, 0.125)]
    for key in range(500):
        assert sample_outcomes(outcomes, 7, key) == sample_outcomes_linear(outcomes, 7, key)
        assert sample_outcomes(skewed, 5, key) == sample_outcomes_linear(skewed, 5, key)
    cache: dict = {}
    ids, cum, _, _, _ = outcome_table(outcomes, cache)
    assert outcome_table(outcomes, cache)[1] is cum  # cached for a shared tuple
    assert ids[0] == 10 and cum[-1] == pytest.approx(1.0)
    assert outcome_table(skewed, cache)[1] is not outcome_table(skewed, cache)[1]  # lists not
    assert outcome_table(skewed, None)[0] == [0, 7, 9, 11]  # no outcome of probability 0
    drawn = {o for key in range(300) for o, _ in sample_outcomes(skewed, 4, key)}
    assert 3 not in drawn


def test_heuristic_evaluations_are_counted():
    game = pyspiel.load_game("python_pig(winscore=40)")
    state = search_state(random_positions(game, 1, seed=6)[0])
    calls = []

    def counting(s, p):
        calls.append(1)
        return 0.1

    for algorithm in ("expectimax", "star1", "star2"):
        calls.clear()
        result = search(state, game, algorithm, max_depth=3, evaluation=counting)
        assert result.evaluations == len(calls) > 0
        assert result.nodes > result.evaluations


def test_shared_samples_parameter_of_the_bots():
    game = pyspiel.load_game("python_pig")
    bot = make_bot("star2ss(samples=5,shared_samples=true,max_depth=2,seed=1)", game, 0)
    assert bot.options["shared_samples"] is True
    assert make_bot("star2(seed=1)", game, 0).options["shared_samples"] is False


@pytest.mark.parametrize(
    "spec",
    [
        "expectimax",
        "star1",
        "star2",
        "expss",
        "star1ss",
        "star2ss(shared_samples=true)",
        "bab(epsilon=0.1)",
        "mcts(rollout_depth=0)",
        "dpw(rollout_depth=0)",
    ],
)
def test_search_agents_take_a_node_budget_and_count_evaluations(spec):
    """Equal-work comparisons: every searching agent stops on `max_nodes` (checked every 256
    nodes by the depth-first searches, every node by MCTS) and reports its heuristic calls."""
    game = pyspiel.load_game("python_pig(winscore=60)")
    state = _contested_positions(game, 1, seed=4, max_moves=10)[0]
    name, _, params = spec.partition("(")
    params = params.rstrip(")")
    full = f"{name}({params + ',' if params else ''}max_nodes=3000,seed=2)"
    result = make_bot(full, game, state.current_player()).analyse(state)
    if name in ("mcts", "dpw"):
        assert result.nodes == 3000
    else:
        assert 3000 < result.nodes <= 3000 + 256
    assert 0 < result.evaluations < result.nodes


def test_mcts_evaluations_are_heuristic_calls_only():
    game = pyspiel.load_game("python_pig(winscore=60)")
    state = _contested_positions(game, 1, seed=4, max_moves=10)[0]
    to_the_end = make_bot("mcts(max_nodes=500,seed=1)", game, 0).analyse(state)
    assert to_the_end.evaluations == 0 and to_the_end.nodes == 500
    with pytest.raises(ValueError, match=r"max_nodes must be in \[1, "):
        make_bot("dpw(max_nodes=0)", game, 0)


def test_analyse_reports_action_value_kinds(capsys):
    from chancespiel.evaluation import cli

    game = "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)"
    argv = ["analyse", game, "--history", "2 10", "--agent", "star1(max_depth=2)"]
    assert cli.main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["action_value_kinds"] == {"0": "exact", "1": "upper"}
    assert report["evaluations"] > 0
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert f"(1): <={report['action_values']['1']:+.4f}" in out
    assert f"(0):   {report['action_values']['0']:+.4f}" in out


# --- How a chance node is sampled: systematic draws, and nodes enumerated exactly -----------


@pytest.mark.parametrize("samples", [1, 5, 18, 40])
@pytest.mark.parametrize(
    ("draw", "within"), [(systematic_outcomes, 1.0), (stratified_outcomes, 2.0)]
)
def test_even_draws_keep_each_outcome_near_its_expected_count(draw, within, samples):
    """Systematic draws give every outcome floor or ceil of its expected count; stratified
    ones one draw per stratum its interval meets, at most, and one per stratum it covers, at
    least."""
    game = pyspiel.load_game("python_cant_stop")  # 126 outcomes of unequal probability
    outcomes = game.new_initial_state().chance_outcomes()
    probability = dict(outcomes)
    for key in range(200):
        sample = draw(outcomes, samples, key)
        assert sum(weight for _, weight in sample) == pytest.approx(1.0)
        counts = {outcome: round(weight * samples) for outcome, weight in sample}
        for outcome, p in outcomes:
            assert abs(counts.get(outcome, 0) - samples * p) < within + 1e-9, (key, outcome)
        assert all(outcome in probability for outcome in counts)
    # stratified points differ from stratum to stratum, systematic ones do not
    assert stratified_outcomes(outcomes, 40, 1) != systematic_outcomes(outcomes, 40, 1)


def test_systematic_draws_are_unbiased_and_closer_than_independent_ones():
    outcomes = [(0, 0.1), (1, 0.25), (2, 0.05), (3, 0.6)]
    value = {0: -1.0, 1: 0.3, 2: 1.0, 3: 0.1}
    exact = sum(p * value[o] for o, p in outcomes)
    runs = 2000

    def errors(draw) -> list[float]:
        return [sum(w * value[o] for o, w in draw(outcomes, 6, k)) - exact for k in range(runs)]

    systematic, independent = errors(systematic_outcomes), errors(sample_outcomes)
    sd = math.sqrt(sum(e * e for e in systematic) / runs)
    assert abs(sum(systematic) / runs) <= 4.5 * sd / math.sqrt(runs)
    assert sum(e * e for e in systematic) < 0.5 * sum(e * e for e in independent)


def test_stratified_draws_are_blind_to_a_period_in_the_outcomes_order():
    """Ordered dice listed by first die then second, drawn at half their number: every
    systematic point falls on one parity of the second die, so the share of rolls with a 1
    is 3/18 or 8/18, noisier than independent draws; stratified draws are not, and like the
    others unbiased."""
    game = pyspiel.load_game("python_pig(ordered_dice=true)")
    state = game.new_initial_state()
    state.apply_action(0)  # roll
    outcomes = state.chance_outcomes()
    ones = {a for a, _ in outcomes if "1" in state.action_to_string(a)[len("Roll ") :].split("+")}
    exact = sum(p for a, p in outcomes if a in ones)

    def spread(draw) -> tuple[float, float]:
        shares = [sum(w for a, w in draw(outcomes, 18, key) if a in ones) for key in range(2000)]
        mean = sum(shares) / len(shares)
        return mean, math.sqrt(sum((x - mean) ** 2 for x in shares) / len(shares))

    (m_sys, sd_sys), (m_str, sd_str) = spread(systematic_outcomes), spread(stratified_outcomes)
    _, sd_ind = spread(sample_outcomes)
    assert sd_str < 0.7 * sd_ind < 0.7 * sd_sys
    for mean, sd in ((m_sys, sd_sys), (m_str, sd_str)):
        assert abs(mean - exact) <= 4.5 * sd / math.sqrt(2000)


class _KnownChildren(StarSearch):
    """A search whose chance node's children have known values, each search of one listed."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.searched: list[int] = []

    def child_value(self, state, depth, key, ckey, outcome) -> float:
        self.searched.append(outcome)
        return _known_value(outcome)


def _known_value(outcome: int) -> float:
    return (outcome * 7919 % 101) / 50.0 - 1.0


def test_se_gap_draws_until_the_standard_error_is_small():
    """With a bound on the error (`se_target`, which se_gap sets from the root's move gap), a
    sampled chance node searched without a window draws `samples` more outcomes at a time
    until the standard error of its mean is within the bound, or it has drawn as many times
    as it has outcomes; an outcome drawn again is not searched again. The smaller the bound,
    the closer its mean to the node's exact value."""
    game = pyspiel.load_game(
        "python_chance_tree(seed=3,depth=3,branching=2,outcomes=40,chance_prob=1.0)"
    )
    state = game.new_initial_state().core
    while state.current_player() != pyspiel.PlayerId.CHANCE:
        state.apply(state.legal_actions()[0])
    outcomes = state.chance_outcomes()
    exact = sum(p * _known_value(o) for o, p in outcomes)
    squared: dict[float, float] = {}
    for target in (1e9, 0.25, 0.18, 1e-12):
        context = _KnownChildren(
            "expectimax", 0, lambda s, p: 0.0, -1.0, 1.0, 4, 7, 5, None, Budget(None, None),
            stratified=True,
        )  # fmt: skip
        context.se_target = target
        context.root_depth = 1
        squared[target] = 0.0
        for key in range(300):
            context.searched.clear()
            value = context.chance_average(state, 1, key, key)
            squared[target] += (value - exact) ** 2
            searched = context.searched
            assert len(searched) == len(set(searched))  # each outcome searched once
            if target == 1e9:  # one sample: the mean of the plain sampled search
                assert len(searched) <= 4
                plain = _KnownChildren(
                    "expectimax", 0, lambda s, p: 0.0, -1.0, 1.0, 4, 7, 5, None,
                    Budget(None, None), stratified=True,
                )  # fmt: skip
                shares = plain.outcomes(state, 1, key)
                plain_value = 0.0
                for outcome, share in shares:  # as the plain node sums, to the last bit
                    plain_value += share * _known_value(outcome)
                assert value == plain_value
            elif target == 1e-12:  # draws up to the node's outcomes, 4 at a time
                assert 4 < len(searched) <= len(outcomes)
    assert squared[1e-12] < squared[0.18] < squared[0.25] < squared[1e9]
    assert squared[0.18] < 0.75 * squared[1e9] and squared[1e-12] < 0.25 * squared[1e9]


def test_se_gap_is_a_sampled_option_bounded_by_the_move_gap():
    game = pyspiel.load_game("python_pig(winscore=40)")
    root = search_state(random_positions(game, 1, seed=4)[0])
    for bad in (-0.1, math.nan, 101.0):
        with pytest.raises(ValueError, match=r"se_gap must be in \[0, 100\]"):
            search(root, game, "star2", max_depth=2, samples=5, se_gap=bad)
    with pytest.raises(ValueError, match="se_gap needs samples"):
        search(root, game, "star2", max_depth=2, prune_min_depth=2, se_gap=0.5)
    # Star1 and Star2 search a chance node without a window only near the horizon
    with pytest.raises(ValueError, match=r"set prune_min_depth >= 1"):
        search(root, game, "star1", max_depth=2, samples=5, se_gap=0.5)
    with pytest.raises(ValueError, match=r"set prune_min_depth >= 1"):
        make_bot("star2hs(se_gap=0.5)", game, 0)
    make_bot("star2hs(se_gap=0.5,prune_min_depth=2)", game, 0)
    make_bot("expss(se_gap=0.5)", game, 0)
    plain = search(root, game, "star2", max_nodes=20_000, samples=5, seed=2, prune_min_depth=2)
    drawn = search(
        root, game, "star2", max_nodes=20_000, samples=5, seed=2, prune_min_depth=2, se_gap=0.1
    )
    # the first depth draws as the plain search does (no gap is known before it)
    assert drawn.iterations[0] == plain.iterations[0]
    assert [it.nodes for it in drawn.iterations] != [it.nodes for it in plain.iterations]
    # a node that drew as many times as it has outcomes draws no more: at a width of 25 of
    # Pig's 21 rolls the search is the plain one, value for value
    two_dice = pyspiel.load_game("python_pig")
    for state in _contested_positions(two_dice, 4, seed=5, max_moves=20):
        wide = [
            search(search_state(state), two_dice, "star1", max_nodes=20_000, samples=25,
                   seed=3, prune_min_depth=2, se_gap=se_gap)
            for se_gap in (0.0, 0.5)
        ]  # fmt: skip
        assert wide[0].action_values == wide[1].action_values
        assert wide[0].nodes == wide[1].nodes


def test_stratified_is_a_sampled_option_and_not_systematic_too():
    game = pyspiel.load_game("python_pig")
    root = search_state(game.new_initial_state())
    with pytest.raises(ValueError, match="systematic and stratified"):
        search(root, game, "star2", max_depth=2, samples=5, systematic=True, stratified=True)
    with pytest.raises(ValueError, match="needs samples"):
        make_bot("star2(stratified=true)", game, 0)
    plain = search(root, game, "expectimax", max_depth=3, samples=5, seed=1)
    found = search(root, game, "expectimax", max_depth=3, samples=5, seed=1, stratified=True)
    assert found.action_values != plain.action_values  # other draws from the same seed


@pytest.mark.parametrize("algorithm", ["expectimax", "star1", "star2"])
@pytest.mark.parametrize(
    "options",
    [{"exact_up_to": 21}, {"exact_plies": 3}],
    ids=["exact_up_to", "exact_plies"],
)
def test_a_sampled_search_that_enumerates_every_node_is_the_classic_search(algorithm, options):
    """Two-dice Pig has 21 outcomes per roll: enumerating nodes of up to 21 outcomes, or every
    node within the 3 plies searched, leaves nothing sampled, so the values are exhaustive
    expectimax's (the reference of every sampled variant)."""
    game = pyspiel.load_game("python_pig(winscore=40)")
    for state in _contested_positions(game, 4, seed=3, max_moves=20):
        exact = search(search_state(state), game, "expectimax", max_depth=3)
        found = search(
            search_state(state), game, algorithm, max_depth=3, samples=4, seed=5, **options
        )
        assert found.value == pytest.approx(exact.value, abs=1e-9)
        assert found.action == exact.action


def test_exact_plies_enumerates_near_the_root_and_samples_below():
    """At depth 3 with exact_plies=1 the chance nodes after the root's move are enumerated and
    those after the second move sampled (a chance node at depth 0 is a leaf): the root values
    differ from both the classic search's and the fully sampled search's (same seed)."""
    game = pyspiel.load_game("python_pig(winscore=40)")
    state = _contested_positions(game, 1, seed=4, max_moves=10)[0]

    def values(**options) -> dict[int, float]:
        return search(search_state(state), game, "expectimax", max_depth=3, **options).action_values

    classic = values()
    sampled = values(samples=3, seed=1)
    near = values(samples=3, seed=1, exact_plies=1)
    other_seed = values(samples=3, seed=2, exact_plies=1)
    assert near != classic and near != sampled and near != other_seed
    assert values(samples=3, seed=1, exact_plies=1) == near  # a pure function of the seed
    assert values(samples=3, seed=1, exact_plies=2) == classic  # every expanded node enumerated


def _pig_position_and_search():
    """A contested two-dice Pig position and a search of it at width 3 (seed 1), whose
    iterations are (depth, nodes) pairs."""
    game = pyspiel.load_game("python_pig(winscore=40)")
    state = _contested_positions(game, 1, seed=4, max_moves=10)[0]

    def run(algorithm: str, **options):
        found = search(search_state(state), game, algorithm, samples=3, seed=1, **options)
        return found, [(it.depth, it.nodes) for it in found.iterations]

    return game, state, run


@pytest.mark.parametrize("algorithm", ["expectimax", "star1", "star2"])
def test_fit_exact_plies_enumerates_the_root_nodes_when_that_fits(algorithm):
    """With a budget to spare, depth 2 is searched twice: first with the root's next roll
    nodes sampled (3 of 21 outcomes), then, as 7 times that fits, enumerated, which at depth
    2 leaves nothing sampled (a chance node at depth 0 is a leaf): the classic value."""
    game, state, run = _pig_position_and_search()
    fit, iterations = run(
        algorithm, max_depth=2, max_nodes=10**6, exact_plies=1, fit_exact_plies=True
    )
    assert [depth for depth, _ in iterations] == [1, 2, 2]
    assert iterations[2][1] > 3 * iterations[1][1]  # the enumerated search of depth 2
    classic = search(search_state(state), game, algorithm, max_depth=2)
    assert fit.action_values == pytest.approx(classic.action_values, abs=1e-12)
    sampled, _ = run(algorithm, max_depth=2, max_nodes=10**6)
    assert sampled.action_values != classic.action_values


@pytest.mark.parametrize("algorithm", ["expectimax", "star1", "star2"])
def test_fit_exact_plies_keeps_sampling_where_the_enumeration_would_not_fit(algorithm):
    """Where the first search that meets the root's next roll nodes leaves less than its cost
    times their outcomes over the draws, they stay sampled: the very searches of
    exact_plies=0 (the same streams), not those of exact_plies=1."""
    _, _, run = _pig_position_and_search()
    _, enumerated = run(algorithm, max_nodes=10**6, exact_plies=1, fit_exact_plies=True)
    sampled_two = enumerated[1][1]
    budget = 2 + sampled_two + 4 * sampled_two  # below 7 times depth 2's sampled cost
    fit, iterations = run(algorithm, max_nodes=budget, exact_plies=1, fit_exact_plies=True)
    root_sampled, root_iterations = run(algorithm, max_nodes=budget)
    assert iterations == root_iterations
    assert fit.action_values == root_sampled.action_values
    assert len({depth for depth, _ in iterations}) == len(iterations) >= 3
    _, near = run(algorithm, max_nodes=budget, exact_plies=1)
    assert near != iterations


def test_fit_exact_plies_weighs_the_chance_nodes_nested_in_a_sampled_one():
    """Can't Stop with ordered dice, a roll-or-stop decision with three runners out: a roll
    busts often, and the opponent's roll (1296 outcomes) follows at once, inside the root's
    next roll node. Enumerating both costs about (1296 / 15) squared times the sampled
    search's nodes where they nest (depth 2 enumerated: 629,305 nodes), not 1296 / 15 times:
    with 60,000 nodes the enumeration must not be tried, and the searches are those of
    exact_plies=0."""
    game, state = ordered_cant_stop_decision(4)

    def iterations(**options):
        found = search(
            search_state(state), game, "expectimax", samples=15, seed=1, max_nodes=60_000,
            **options,
        )  # fmt: skip
        return [(it.depth, it.nodes) for it in found.iterations], found.action_values

    fit = iterations(exact_plies=1, fit_exact_plies=True)
    assert fit == iterations(exact_plies=0)
    assert len(fit[0]) >= 4 and fit[0][1][1] < 1000  # depth 2 sampled: a few hundred nodes
    assert iterations(exact_plies=1)[0] == [(1, 2)]  # enumerated, depth 2 does not finish


@pytest.mark.parametrize("ordered", [False, True])
def test_fit_exact_plies_leaves_rolls_of_few_more_outcomes_than_drawn_to_exact_plies(ordered):
    """Two-dice Pig's rolls at width 18 (the paper's Star2SS width), 21 of them or 36 ordered:
    sampling them first would cost a half or more of enumerating them (MIN_FIT_FACTOR), so the
    search is the hybrid's without the option, search for search, where at width 3 (7 or 12
    times) it differs."""
    game = pyspiel.load_game(f"python_pig(winscore=40,ordered_dice={str(ordered).lower()})")
    state = _contested_positions(game, 1, seed=4, max_moves=10)[0]

    def iterations(width: int, **options):
        found = search(
            search_state(state), game, "star2", samples=width, seed=1, max_nodes=20_000,
            exact_plies=1, **options,
        )  # fmt: skip
        return [(it.depth, it.nodes) for it in found.iterations], found.action_values

    assert iterations(18, fit_exact_plies=True) == iterations(18)
    assert iterations(3, fit_exact_plies=True) != iterations(3)


def _iterations(found) -> list[tuple[int, int]]:
    return [(it.depth, it.nodes) for it in found.iterations]


def test_fit_within_ply_keeps_sampling_where_enumerating_costs_more_than_a_ply():
    """Ra at width 2 (up to 23 tiles a draw): `fit_exact_plies` alone enumerates the root's
    next draws at depth 2, where that search fits: about 7 times the sampled one, when depth 2
    cost 5.5 times depth 1 and the plies after it about 3 times the one before; it ends two or
    more plies shallower. With `fit_within_ply` the search samples them: the very searches of
    exact_plies=0 (the same streams)."""
    game = pyspiel.load_game("python_ra")
    positions = _contested_positions(game, 4, seed=1, max_moves=30)
    for state in (positions[0], positions[3]):

        def run(state=state, **options):
            found = search(
                search_state(state), game, "star2", samples=2, seed=1, max_nodes=100_000,
                **options,
            )  # fmt: skip
            return _iterations(found), found.action_values

        sampled = run(exact_plies=0)
        fit = run(exact_plies=1, fit_exact_plies=True)
        within = run(exact_plies=1, fit_exact_plies=True, fit_within_ply=True)
        assert within == sampled and fit != sampled
        (one, before), (two, cost), (again, enumerated) = fit[0][:3]
        assert one == 1 and two == again == 2  # depth 2 enumerated after its sampled search
        assert enumerated / cost > cost / before  # dearer than a ply
        assert within[0][-1][0] >= fit[0][-1][0] + 2


@pytest.mark.parametrize("algorithm", ["expectimax", "star1", "star2"])
def test_fit_within_ply_enumerates_where_that_costs_less_than_a_ply(algorithm):
    """Pig at width 3: the enumerated search of depth 2 costs about 5 times the sampled one
    and depth 2 cost about 6 times depth 1, so the enumeration is within a ply: the search is
    the one of `fit_exact_plies` alone, depth 2 searched again with the root's rolls
    enumerated."""
    _, _, run = _pig_position_and_search()
    fit = run(algorithm, max_nodes=10**5, exact_plies=1, fit_exact_plies=True)
    within = run(
        algorithm, max_nodes=10**5, exact_plies=1, fit_exact_plies=True, fit_within_ply=True
    )
    assert within[1] == fit[1] and within[0].action_values == fit[0].action_values
    (_, before), (_, cost), (again, enumerated) = within[1][:3]
    assert again == 2 and enumerated / cost <= cost / before


def test_fit_within_ply_predicts_a_sampled_ply_from_the_classic_search():
    """The hybrid agents' searches with the option: after the classic depths, the first sampled
    search decides, a sampled ply's growth predicted as the classic search's last growth over
    the root's enumeration factor. EinStein at width 2 (a die of 6: factor 3, the classic depths
    grow about 10 to 14 times): the root's die is enumerated after the first sampled depth, as
    without the option. Ra at width 2 (factor about 11, the classic depths grow about 20 times):
    the root's draws stay sampled, and the search ends two or more plies deeper."""

    def depths(name: str, max_moves: int, nodes: int, index: int, within: bool) -> list[int]:
        game = pyspiel.load_game(name)
        state = _contested_positions(game, 4, seed=1, max_moves=max_moves)[index]
        options = {**former_hybrid(2), "fit_within_ply": within}
        found = search(
            search_state(state), game, "star2", samples=2, seed=1, max_nodes=nodes, **options
        )
        return [it.depth for it in found.iterations]

    for index in (0, 1):
        ewn = depths("python_einstein_wurfelt_nicht", 8, 300_000, index, True)
        assert ewn == depths("python_einstein_wurfelt_nicht", 8, 300_000, index, False)
        assert ewn[5:7] == [6, 6]  # classic to depth 5, depth 6 sampled, then enumerated
    for index in (0, 3):
        ra, without = (depths("python_ra", 30, 150_000, index, w) for w in (True, False))
        assert without[4:6] == [5, 5] and ra[4:6] == [5, 6]
        assert ra[-1] >= without[-1] + 2


def _hybrid_steps(game, state, algorithm, width, max_nodes, **options):
    """The iterations ((depth, nodes, sampled) triples), nodes and root values of the hybrid's
    search (as before version 0.3.0, at `width`, and `options`) under a node budget."""
    found = search(
        search_state(state), game, algorithm, samples=width, seed=1, max_nodes=max_nodes,
        **{**former_hybrid(width), **options},
    )  # fmt: skip
    steps = [(it.depth, it.nodes, it.sampled) for it in found.iterations]
    return steps, found.nodes, found.action_values


def test_an_iteration_says_whether_it_sampled():
    """Classic search never draws; the paper's sampled search draws from the second depth (at
    the first, the chance nodes are leaves); a node of at most `exact_up_to` outcomes is
    enumerated; the hybrid samples after its classic depths."""
    game = pyspiel.load_game("python_pig(winscore=40)")
    state = _contested_positions(game, 1, seed=4, max_moves=10)[0]

    def sampled(algorithm, samples=None, **options):
        found = search(
            search_state(state), game, algorithm, samples=samples, seed=1, max_depth=4,
            **options,
        )  # fmt: skip
        return [it.sampled for it in found.iterations]

    assert sampled("star2") == [False] * 4
    assert sampled("star2", 18) == [False, True, True, True]
    assert sampled("star2", 18, exact_up_to=21) == [False] * 4  # the 21 rolls enumerated
    ordered, decision = ordered_cant_stop_decision(1)
    steps = _hybrid_steps(ordered, decision, "star2", 15, 400_000)[0]
    assert [step[2] for step in steps] == [False] * 3 + [True] * 3  # three classic depths


def test_classic_within_ply_samples_where_a_classic_depth_costs_plies():
    """Can't Stop with ordered dice: the classic third depth, where the first roll enters the
    tree, costs 15,000 nodes or the whole budget, the sampled one 160 to 250 (a sampled ply
    about 2 to 40 times). With `classic_within_ply` the third depth is sampled, and where the
    classic one took the budget the search ends 4 plies deeper."""
    for decision, deeper in ((1, 0), (3, 4), (7, 4), (10, 0)):
        game, state = ordered_cant_stop_decision(decision)
        options = {"fit_within_ply": True}
        before = _hybrid_steps(game, state, "star2", 15, 400_000, **options)[0]
        within = _hybrid_steps(
            game, state, "star2", 15, 400_000, classic_within_ply=True, **options
        )[0]
        assert within[:2] == before[:2]  # the first depths cost what the sampled ones do
        assert len(before) == 2 or (before[2][1] > 10_000 and not before[2][2])
        assert within[2] == (3, within[2][1], True) and within[2][1] < 1_000
        assert within[-1][0] == before[-1][0] + deeper


def test_classic_within_ply_searches_ras_later_depths_sampled():
    """Ra at width 2: the classic third and fourth depths cost about 1,700 and 37,000 nodes,
    the sampled ones 27 and 80; with the option they are sampled, the first two searched
    as before."""
    game = pyspiel.load_game("python_ra")
    for state in _contested_positions(game, 4, seed=1, max_moves=30)[::3]:
        before, _, _ = _hybrid_steps(game, state, "star2", 2, 150_000, fit_within_ply=True)
        within, _, _ = _hybrid_steps(
            game, state, "star2", 2, 150_000, fit_within_ply=True, classic_within_ply=True
        )
        assert within[:2] == before[:2] and not any(step[2] for step in within[:2])
        assert before[2][1] > 1_000 and before[3][1] > 30_000
        assert not before[2][2] and not before[3][2]  # searched classically
        assert within[2][1] < 100 and within[3][1] < 200 and within[2][2] and within[3][2]
        assert within[-1][0] >= before[-1][0]


def test_growth_two_back_predicts_the_classic_depths_where_rolls_enter_every_other_depth():
    """Can't Stop with 126 rolls: a classic depth where a roll enters costs about 250 times the
    one before, the next about twice. From the last growth the hybrid (width 15, 400,000
    nodes) misjudges both ways: after a roll's growth it samples a fourth depth that costs
    about 4,000 nodes classically, and after a cheap one it spends the rest of the budget on
    a fifth it predicted at 10,000. From the growth two depths back it searches the fourth
    classically and the fifth and sixth sampled."""
    game = pyspiel.load_game("python_cant_stop")
    positions = _contested_positions(game, 7, seed=1, max_moves=20)
    for index, fourth in ((0, False), (6, True)):
        plain, _, _ = _hybrid_steps(game, positions[index], "star2", 15, 400_000)
        back, _, _ = _hybrid_steps(
            game, positions[index], "star2", 15, 400_000, growth_two_back=True
        )
        assert back[:3] == plain[:3] and not any(step[2] for step in back[:3])
        third = back[2][1]
        assert 1_000 < third < 3_000 and back[1][1] < 20  # where the first roll enters
        assert not back[3][2] and back[3][1] < 3 * third  # the fourth, classic and cheap
        assert [(depth, sampled) for depth, _, sampled in back[4:]] == [(5, True), (6, True)]
        if fourth:  # predicted from the third's growth, the fourth was sampled
            assert plain[3][2] and len(plain) == 6
        else:  # predicted from the fourth's, the fifth was tried classically and never ended
            assert plain == back[:4]


def test_first_cap_two_back_prices_the_first_cap_by_the_depth_before():
    """Under ordered dice, after classic depths of 5 and 15 nodes the sampled third costs about
    3,500 (a roll enters the tree there). Priced at that growth, the first cap lets a classic
    third depth run to the end of 700,000 nodes, and Star1HS ends at its second depth; priced
    at the second depth's growth (3), the classic third is given up at about 10,000 nodes and
    the search samples to the fifth, as the paper's Star1SS does."""
    game = pyspiel.load_game("python_cant_stop(ordered_dice=true)")
    state = search_state(_contested_positions(game, 40, seed=5, max_moves=30)[18])

    def depth(samples: int | None = 30, **options) -> int:
        found = search(state, game, "star1", samples=samples, seed=1, max_nodes=700_000,
                       prune_min_depth=2, **options)  # fmt: skip
        return found.depth

    star1hs = hybrid_options(30, "star1")  # (with the option since version 0.4.0)
    assert depth(**{**star1hs, "first_cap_two_back": False}) == 2
    assert depth(**star1hs) == depth() == 5


def test_growth_two_back_caps_classic_within_ply_at_the_ply_of_the_same_parity():
    """Can't Stop with 126 rolls at width 15 and 400,000 nodes: the sampled fourth depth costs
    about 400 nodes and the third 200, the fifth 20,000. With `classic_within_ply` a classic
    depth is capped at the sampled search a depth deeper, predicted from the last sampled
    ply's growth (about 2): the classic fourth (about 3,000) or third (1,200 where the roll
    enters at the second) is given up. From the ply before (about 30, a roll's) it is kept,
    and sampling takes over a depth later."""
    game = pyspiel.load_game("python_cant_stop")
    positions = _contested_positions(game, 3, seed=2, max_moves=20)
    options = {"fit_within_ply": True, "classic_within_ply": True}
    for index, kept in ((0, 3), (2, 4)):
        plain, _, _ = _hybrid_steps(game, positions[index], "star2", 15, 400_000, **options)
        back, _, _ = _hybrid_steps(
            game, positions[index], "star2", 15, 400_000, growth_two_back=True, **options
        )
        assert back[: kept - 1] == plain[: kept - 1]
        assert [step[2] for step in plain[:kept]] == [False] * (kept - 1) + [True]
        assert [step[2] for step in back[:kept]] == [False] * kept
        assert back[kept - 1][1] > 3 * plain[kept - 1][1]  # what the classic depth costs
        assert back[kept][0] == kept + 1 and back[kept][2]  # sampled from the next depth


@pytest.mark.parametrize("algorithm", ["expectimax", "star1", "star2"])
@pytest.mark.parametrize("width", [18, 25])
def test_classic_within_ply_keeps_the_classic_depths_where_sampling_saves_little(algorithm, width):
    """Two-dice Pig (21 rolls): at width 18 the sampled second depth costs nearly the classic
    one, and the measuring ends there; at 25 nothing is drawn, and the measuring search is
    the classic depth. Either way the search is the one without the option, node for node."""
    game = pyspiel.load_game("python_pig(winscore=40)")
    state = _contested_positions(game, 1, seed=4, max_moves=10)[0]
    plain = _hybrid_steps(game, state, algorithm, width, 300_000)
    within = _hybrid_steps(game, state, algorithm, width, 300_000, classic_within_ply=True)
    assert within == plain and [depth for depth, _, _ in plain[0]] == [1, 2, 3, 4]


def test_fit_exact_plies_acts_under_a_budget_only():
    """With max_depth alone there is no budget to fit: exact_plies' nodes are enumerated as
    without the option, search for search."""
    _, _, run = _pig_position_and_search()
    fit = run("star2", max_depth=3, exact_plies=1, fit_exact_plies=True)
    plain = run("star2", max_depth=3, exact_plies=1)
    assert fit[1] == plain[1] and fit[0].action_values == plain[0].action_values


def _trial_searches(state, game, algorithm, max_depth, max_nodes=300_000, **options):
    """The iterations ((depth, nodes) pairs) of a sampled search at width 15 deepening
    classically first with a trial, and the nodes it spent outside them (given-up trials and
    the searches that measured their caps)."""
    found = search(
        search_state(state), game, algorithm, samples=15, seed=1, max_nodes=max_nodes,
        max_depth=max_depth, classic_first=True, classic_trial=True, **options,
    )  # fmt: skip
    assert found.completed
    steps = [(it.depth, it.nodes) for it in found.iterations]
    return steps, found.nodes - sum(nodes for _, nodes in steps)


@pytest.mark.parametrize("algorithm", ["expectimax", "star1", "star2"])
def test_capped_trial_gives_up_a_second_depth_dearer_than_the_sampled_fourth(algorithm):
    """After a bust with ordered dice the classic second depth costs about 629,000 nodes (the
    roll's 1296 outcomes, the opponent's nested in each bust), the sampled fourth about
    10,000: the trial gives up the second depth at that cost, not at half the budget, and
    the sampled searches that follow are of the same depths."""
    game, state = ordered_cant_stop_decision(4)
    half, lost_half = _trial_searches(state, game, algorithm, 5)
    capped, lost_capped = _trial_searches(state, game, algorithm, 5, capped_trial=True)
    assert lost_half >= 150_000  # the trial's half of the budget
    fourth = dict(capped)[4]
    # the sampled fourth depth searched once to measure the cap (without the move ordering of
    # the shallower depths) and the trial it caps
    assert lost_capped <= 4 * fourth < 100_000
    assert [depth for depth, _ in capped] == [depth for depth, _ in half] == [1, 2, 3, 4, 5]
    assert capped[1][1] < 1000  # the second depth sampled, not classic


def test_capped_trial_gives_up_a_later_depth_far_above_its_prediction():
    """Where the root's moves and the roll-or-stop decision after them come before any roll,
    the classic second depth costs 6 nodes and predicts a third of 18; it costs 19,622 (the
    first roll enters the tree). The capped trial gives it up at four times the prediction,
    and sampling takes over at the third depth."""
    game, state = ordered_cant_stop_decision(1)
    classic, _ = _trial_searches(state, game, "expectimax", 4)
    capped, lost = _trial_searches(state, game, "expectimax", 4, capped_trial=True)
    assert classic[:3] == [(1, 2), (2, 6), (3, 19_622)]
    assert capped[:2] == classic[:2] and capped[2][0] == 3 and capped[2][1] < 1000
    # the third's trial, given up past 4 * 18 nodes (the budget is checked every 256); the
    # root's moves lead to decisions, not rolls, so no sampled search measured a cap
    assert lost <= 4 * 18 + 256


def test_capped_trial_keeps_the_half_where_the_measure_does_not_fit_or_max_depth_is_two():
    """After a bust with ordered dice: within 60,000 nodes the sampled fourth depth does not
    finish in a tenth of the budget, and the trial gets its half as without the option (the
    same searches, node for node, but for the tenth spent measuring); with max_depth 2 there
    is no deeper depth to measure, and the classic second depth (629,305 nodes) is the
    result."""
    game, state = ordered_cant_stop_decision(4)
    half, lost_half = _trial_searches(state, game, "expectimax", 4, 60_000)
    capped, lost_capped = _trial_searches(state, game, "expectimax", 4, 60_000, capped_trial=True)
    assert capped == half and lost_half < lost_capped <= lost_half + 6_000 + 256
    exact = _trial_searches(state, game, "expectimax", 2, 1_500_000, capped_trial=True)
    assert exact == ([(1, 2), (2, 629_305)], 0)


def test_capped_trial_keeps_the_classic_depths_that_cost_what_they_should():
    """Two-dice Pig: the classic second depth costs less than the sampled fourth and every
    later depth about its prediction, so the classic searches are those without the option,
    depth for depth (expectimax: no move ordering for the sampled searches that measured the
    cap to change). At width 3 (21 rolls, 7 times the draws) the sampled fourth depth is
    searched to measure the cap; at width 18 (fewer than three times) it is not, and the
    search is the same node for node."""
    game = pyspiel.load_game("python_pig(winscore=40)")
    state = _contested_positions(game, 1, seed=4, max_moves=10)[0]

    def steps(width: int, **options):
        found = search(
            search_state(state), game, "expectimax", samples=width, seed=1, max_nodes=10**6,
            max_depth=4, classic_first=True, classic_trial=True, **options,
        )  # fmt: skip
        return [(it.depth, it.nodes) for it in found.iterations], found.action_values, found.nodes

    plain, capped = steps(3), steps(3, capped_trial=True)
    assert capped[:2] == plain[:2] and capped[2] > plain[2]
    assert plain[0][-1][1] > 10_000  # the classic fourth depth (the sampled costs ~230)
    assert steps(18, capped_trial=True) == steps(18)


def test_sampling_options_are_checked():
    game = pyspiel.load_game("python_pig")
    with pytest.raises(ValueError, match="needs samples"):
        make_bot("star2(systematic=true)", game, 0)
    with pytest.raises(ValueError, match=r"exact_plies must be in \[0, "):
        make_bot("star2ss(exact_plies=-1)", game, 0)
    with pytest.raises(ValueError, match="classic_trial needs classic_first"):
        make_bot("star2ss(classic_trial=true)", game, 0)
    # The hybrid's defaults need each other: the message says what else to turn off, and that
    # is enough.
    for spec, other in (
        ("classic_first=false", "classic_trial=false and classic_within_ply=false and "
         "growth_two_back=false and first_cap_two_back=false"),
        ("exact_plies=0", "fit_exact_plies=false and fit_within_ply=false"),
    ):  # fmt: skip
        with pytest.raises(ValueError, match=f"set {other} too"):
            make_bot(f"star2hs({spec})", game, 0)
        make_bot(f"star2hs({spec},{other.replace(' and ', ',')})", game, 0)
    for spec, message in (
        ("star2ss(fit_exact_plies=true)", "fit_exact_plies needs exact_plies"),
        ("star2hs(fit_exact_plies=true,resample=true)", "fit_exact_plies and resample cannot"),
        (
            "star2hs(resample=true,fit_within_ply=true)",
            r"fit_exact_plies=false and fit_within_ply=false$",
        ),
        ("star2ss(capped_trial=true)", "capped_trial needs classic_trial"),
        ("star2hs(fit_exact_plies=false,fit_within_ply=true)", "fit_within_ply needs fit_exact"),
        ("star2ss(classic_within_ply=true)", "classic_within_ply needs classic_first"),
        ("star2ss(growth_two_back=true)", "growth_two_back needs classic_first"),
        (
            "star2hs(first_cap_two_back=true,classic_within_ply=false)",
            "first_cap_two_back needs classic_within_ply",
        ),
        (
            "star2hs(first_cap_two_back=true,growth_two_back=false)",
            r"first_cap_two_back needs growth_two_back .*: without growth_two_back, set "
            r"first_cap_two_back=false too$",
        ),
        (
            "star2hs(first_cap_two_back=true,classic_first=false)",
            r"classic_trial=false and classic_within_ply=false and growth_two_back=false and "
            r"first_cap_two_back=false too$",
        ),
        (
            "star2hs(classic_first=false,classic_within_ply=true)",
            r"classic_trial=false and classic_within_ply=false",
        ),
    ):
        with pytest.raises(ValueError, match=message):
            make_bot(spec, game, 0)
    make_bot("star2hs(resample=true,fit_exact_plies=false,fit_within_ply=false)", game, 0)
    make_bot("star2hs(fit_exact_plies=true)", game, 0)
    # Star2HS draws stratified: systematic draws are the other way, asked for with it off
    with pytest.raises(ValueError, match=r"star1hs and star2hs stratified unless stratified="):
        make_bot("star2hs(systematic=true)", game, 0)
    make_bot("star2hs(systematic=true,stratified=false)", game, 0)
    # ExpHS draws systematically: the message names the switch that turns it off too
    with pytest.raises(ValueError, match=r"exphs draws systematically unless systematic=false"):
        make_bot("exphs(stratified=true)", game, 0)
    make_bot("exphs(stratified=true,systematic=false)", game, 0)


def test_the_hybrid_refuses_a_single_outcome_per_chance_node():
    game = pyspiel.load_game("python_pig(winscore=40)")
    for name in ("exphs", "star1hs", "star2hs"):
        with pytest.raises(ValueError, match=r"samples must be in \[2, "):
            make_bot(f"{name}(samples=1)", game, 0)
        make_bot(f"{name}(samples=2)", game, 0)
    with pytest.raises(ValueError, match="at least 2 outcomes, not 1"):
        hybrid_options(1, "star2")
    with pytest.raises(ValueError, match="unknown algorithm 'star3'"):
        hybrid_options(2, "star3")
    assert hybrid_options(2, "star2")["exact_up_to"] == 2
    assert hybrid_options(18, "star2")["exact_up_to"] == 24  # a third more than the width
    # exphs keeps the hybrid's first definition, every hybrid agent's before version 0.3.0
    assert hybrid_options(8, "expectimax") == former_hybrid(8)


def test_the_hybrid_agents_are_the_sampled_search_with_the_hybrid_options():
    game = pyspiel.load_game("python_pig(winscore=40)")
    setting = dict(stratified=True, fit_within_ply=True, classic_within_ply=True,
                   growth_two_back=True, first_cap_two_back=True)  # fmt: skip
    for state in _contested_positions(game, 3, seed=6, max_moves=20):
        for hybrid, algorithm, own in (
            ("exphs", "expectimax", {"systematic": True}),
            ("star1hs", "star1", setting),
            ("star2hs", "star2", setting),
        ):
            bot = make_bot(f"{hybrid}(samples=8,max_depth=3)", game, state.current_player(), 4)
            bot.step(state)
            # the bot draws its search seed from its own generator, seeded by the bot's seed
            seed = make_bot("random", game, 0, 4).rng.getrandbits(63)
            expected = search(
                search_state(state), game, algorithm, max_depth=3, samples=8, seed=seed,
                exact_up_to=8, exact_plies=1, classic_first=True, classic_trial=True,
                fit_exact_plies=True, **own,
            )  # fmt: skip
            assert bot.last_result.action_values == expected.action_values
            # the search of every hybrid agent before version 0.3.0, by its options
            former = make_bot(
                f"{hybrid}(samples=8,max_depth=3,systematic=true,stratified=false,"
                "fit_within_ply=false,classic_within_ply=false,growth_two_back=false,"
                "first_cap_two_back=false)",
                game, state.current_player(), 4,
            )  # fmt: skip
            former.step(state)
            expected = search(
                search_state(state), game, algorithm, max_depth=3, samples=8, seed=seed,
                **former_hybrid(8),
            )  # fmt: skip
            assert former.last_result.action_values == expected.action_values
        # at a width of the roll's 21 outcomes nothing is sampled: the classic search
        bot = make_bot("star2hs(samples=21,max_depth=3)", game, state.current_player(), 4)
        bot.step(state)
        classic = search(search_state(state), game, "star2", max_depth=3)
        assert bot.last_result.value == pytest.approx(classic.value, abs=1e-12)


@pytest.mark.parametrize(
    "game_string, algorithm, width, outcomes",
    [("python_pig", "star2", 18, 21), ("python_einstein_wurfelt_nicht", "star1", 5, 6)],
)
def test_the_hybrid_enumerates_a_node_its_width_nearly_covers(
    game_string, algorithm, width, outcomes
):
    """Star1HS and Star2HS enumerate a chance node whose outcomes the width covers by at least
    three quarters: at the paper's width in Pig (18 of 21 rolls) Star2HS is Star2, and in
    EinStein at a width of 5 (of 6) Star1HS is Star1, move, value, nodes and depth; a
    narrower width still samples, as `exphs` (its first definition) does at any width below
    the outcomes."""
    game = pyspiel.load_game(game_string)
    width_below = outcomes * 3 // 4 - (outcomes * 3 % 4 == 0)  # just below three quarters
    assert hybrid_options(width, algorithm)["exact_up_to"] >= outcomes
    assert hybrid_options(width_below, algorithm)["exact_up_to"] < outcomes
    assert hybrid_options(width, "expectimax")["exact_up_to"] == width

    def hybrid(state, samples: int):
        options = hybrid_options(samples, algorithm)
        return search(search_state(state), game, algorithm, max_nodes=20_000,
                      samples=samples, seed=3, **options)  # fmt: skip

    sampled_any = False
    for state in _contested_positions(game, 6, seed=8, max_moves=20):
        classic = search(search_state(state), game, algorithm, max_nodes=20_000)
        same = hybrid(state, width)
        assert (same.action, same.value, same.nodes, same.depth) == (
            classic.action, classic.value, classic.nodes, classic.depth,
        )  # fmt: skip
        narrower = hybrid(state, width_below)
        sampled_any |= (narrower.action_values, narrower.nodes) != (
            classic.action_values, classic.nodes,
        )  # fmt: skip
    assert sampled_any


def _steps(result) -> list[tuple[int, float, int, int]]:
    return [(it.depth, it.value, it.action, it.nodes) for it in result.iterations]


@pytest.mark.parametrize("algorithm", ["expectimax", "star1", "star2"])
def test_classic_first_deepens_classically_until_a_depth_does_not_fit(algorithm):
    """With classic_first the first depths are the classic search's (same values, moves and
    nodes), and sampling starts at the first depth predicted not to fit: the result is deeper
    than the classic search's under the same budget, never a sample at a depth it completed."""
    game = pyspiel.load_game("python_pig(winscore=60)")
    for state in _contested_positions(game, 4, seed=3, max_moves=12):
        root = search_state(state)
        exact = _steps(search(root, game, algorithm, max_nodes=20_000))
        found = search(
            root, game, algorithm, max_nodes=20_000, samples=5, seed=4, classic_first=True
        )
        steps = _steps(found)
        classic = next(
            i for i, step in enumerate([*steps, None]) if i >= len(exact) or step != exact[i]
        )
        assert classic >= 2
        sampled = [depth for depth, *_ in steps[classic:]]
        assert sampled == list(range(classic + 1, classic + 1 + len(sampled)))
        assert sampled and found.depth > len(exact)
        # without a budget there is nothing to predict: the plain sampled search
        assert _steps(
            search(root, game, algorithm, max_depth=3, samples=5, seed=4, classic_first=True)
        ) == _steps(search(root, game, algorithm, max_depth=3, samples=5, seed=4))


def test_budget_narrow_limits_to_a_share_of_what_is_left_and_widen_puts_it_back():
    now = [10.0]
    budget = Budget(1000.0, 1000, lambda: now[0])
    budget.nodes = 200
    limits = budget.narrow(0.5)
    assert budget.max_nodes == 600 and budget.deadline == pytest.approx(10.5)
    budget.nodes = 601
    assert budget.spent()
    budget.widen(limits)
    assert not budget.spent() and budget.max_nodes == 1000 and budget.deadline == 11.0
    now[0] = 11.5
    assert budget.spent()


@pytest.mark.parametrize("algorithm", ["expectimax", "star1", "star2"])
def test_classic_trial_samples_the_depth_the_classic_search_cannot_finish_in_half(algorithm):
    """On trees whose chance nodes are large, the classic search's second depth often costs
    more than half of a small budget: with classic_trial it is then given up and sampled
    instead, root chance nodes included (exact_plies capped at the classic depth minus one);
    a second depth that fits in half is the classic search's, as with classic_first alone."""
    hybrid = {"samples": 8, "seed": 4, "systematic": True, "exact_up_to": 8}
    hybrid |= {"exact_plies": 1, "classic_first": True}
    trials = 0
    for seed in range(3, 10):
        game = pyspiel.load_game(f"python_chance_tree(seed={seed},depth=3,outcomes=64)")
        root = search_state(game.new_initial_state())
        classic = _steps(search(root, game, algorithm, max_depth=2))
        first = search(root, game, algorithm, max_nodes=1000, **hybrid)
        found = search(root, game, algorithm, max_nodes=1000, classic_trial=True, **hybrid)
        assert _steps(found)[0] == _steps(first)[0] == classic[0]
        # (a budget is checked every 256 nodes: far enough from the half to be decided)
        if len(classic) < 2 or classic[1][3] <= (1000 - classic[0][3]) // 2 - 256:
            assert _steps(found) == _steps(first)  # nothing to try, or the try fitted
            continue
        trials += 1
        assert found.depth >= 2
        # the sampled depth 2 is the one searched without exact_plies (root nodes sampled)
        plain = {**hybrid, "exact_plies": 0, "classic_first": False}
        unexact = search(root, game, algorithm, max_depth=2, iterative=False, **plain)
        assert _steps(found)[1][:3] == _steps(unexact)[0][:3]
        assert found.iterations[1].nodes < 500
    assert trials >= 3


def test_classic_trial_changes_nothing_where_the_first_depths_fit():
    """Pig's first two depths cost about a hundred nodes: from 1,000 nodes on, classic_trial
    gives the search of classic_first alone."""
    game = pyspiel.load_game("python_pig(ordered_dice=true)")
    hybrid = {"samples": 18, "seed": 2, "systematic": True, "exact_up_to": 18}
    hybrid |= {"exact_plies": 1, "classic_first": True}
    for state in _contested_positions(game, 4, seed=5, max_moves=16):
        root = search_state(state)
        for budget in (1000, 10_000):
            first = search(root, game, "star2", max_nodes=budget, **hybrid)
            found = search(root, game, "star2", max_nodes=budget, classic_trial=True, **hybrid)
            assert _steps(found) == _steps(first) and found.depth >= 2
