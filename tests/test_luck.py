"""Luck-corrected scores: unbiasedness by enumeration, exact Pig values, statistics by hand."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from golden import expectimax, golden_positions

import chancespiel.games  # noqa: F401  (registers the games)
from chancespiel.agents import make_bot
from chancespiel.agents.protocol import search_state
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation import luck
from chancespiel.evaluation.luck import (
    LuckError,
    chance_terms,
    cross_fitted,
    drift_terms,
    game_correction,
    lookahead_value,
    luck_summary,
    move_kind,
    record_correction,
    record_luck_and_drift,
    value_function,
    whole_matches,
)
from chancespiel.evaluation.match import read_records
from chancespiel.evaluation.play import play_game
from chancespiel.evaluation.positions import replay
from chancespiel.evaluation.report import records_by_pair
from chancespiel.evaluation.stats import Z95, match_interval
from chancespiel.games.pig_solver import hold_at_policy, policy_win_probability
from chancespiel.games.registry import evaluation_for

CHANCE = int(pyspiel.PlayerId.CHANCE)


def hashed_value(state) -> float:
    """An arbitrary, badly calibrated V: a hash of the state's text in [-1, 1]."""
    digest = hashlib.sha256(str(state).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**31 - 1.0


def all_paths(game: pyspiel.Game) -> list[tuple[float, list[int], float]]:
    """(probability, history, player 0's return) of every chance path, with fixed policies:
    player 0 plays its first legal action, player 1 its last."""
    paths = []

    def walk(state, prob: float, history: list[int]) -> None:
        if state.is_terminal():
            paths.append((prob, history, float(state.returns()[0])))
            return
        player = state.current_player()
        if player == CHANCE:
            for outcome, p in state.chance_outcomes():
                child = state.clone()
                child.apply(outcome)
                walk(child, prob * p, [*history, outcome])
            return
        actions = state.legal_actions()
        action = actions[0] if player == 0 else actions[-1]
        child = state.clone()
        child.apply(action)
        walk(child, prob, [*history, action])

    walk(search_state(game.new_initial_state()), 1.0, [])
    return paths


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_corrected_expectation_equals_raw_by_enumeration(seed: int) -> None:
    game = pyspiel.load_game(f"python_chance_tree(seed={seed},depth=4,chance_prob=0.6)")
    paths = all_paths(game)
    assert math.isclose(sum(p for p, _, _ in paths), 1.0, abs_tol=1e-12)
    raw = sum(p * r for p, _, r in paths)
    deeper = luck._lookahead(evaluation_for(game), 2)
    _, searched = value_function(str(game), "search(depth=2)")
    for value in (hashed_value, lookahead_value(game), deeper, searched):
        corrections = [game_correction(game, h, value) for _, h, _ in paths]
        assert any(abs(c) > 1e-6 for c in corrections)  # the oracle is not trivial
        corrected = sum(p * (r - c) for (p, _, r), c in zip(paths, corrections, strict=True))
        assert corrected == pytest.approx(raw, abs=1e-12)


@pytest.mark.parametrize(
    ("game_string", "value"),
    [("python_pig(winscore=20)", "heuristic"), ("python_einstein_wurfelt_nicht", "lookahead")],
)
def test_a_return_is_the_start_value_the_luck_and_the_changes_at_moves(game_string, value):
    # the decomposition the luck-values experiment reports: it telescopes, V exact at the end
    game = pyspiel.load_game(game_string)
    _, fn = value_function(game_string, value)
    for seed in range(3):
        played = play_game(game, [make_bot("random", game, p, seed + p) for p in (0, 1)], seed)
        start = fn(search_state(game.new_initial_state()))
        chance = chance_terms(game, played.history, fn)
        moves = drift_terms(game, played.history, fn)
        assert len(chance) > 0 and len(moves) > 0 and any(abs(t) > 1e-6 for t in moves)
        total = start + math.fsum(chance) + math.fsum(moves)
        assert total == pytest.approx(played.returns[0], abs=1e-9)


def test_drift_by_kind_adds_up_to_the_drift_of_a_record() -> None:
    assert [move_kind(n) for n in ("Bid sun 9", "use 2 and 7", "B1-diag*", "", "9")] == [
        "bid",
        "use",
        "b",
        "move",
        "move",
    ]
    game = pyspiel.load_game("python_pig(winscore=20)")
    _, fn = value_function("python_pig(winscore=20)", "heuristic")
    played = play_game(game, [make_bot("random", game, p, p) for p in (0, 1)], 7)
    for index in (0, 1):  # A is player 0 in the first game, player 1 in the second
        record = {"game": "python_pig(winscore=20)", "history": played.history, "match": 0}
        record.update({"game_index": index, "a": "x", "b": "y"})
        luck, kinds = record_luck_and_drift(record, fn)
        assert luck == record_correction(record, fn)
        assert {"roll", "chance"} <= set(kinds) <= {"roll", "stop", "chance"}
        total = (0.5 if index == 0 else -0.5) * math.fsum(drift_terms(game, played.history, fn))
        assert math.fsum(kinds.values()) == pytest.approx(total, abs=1e-12)
        assert total != 0.0


def test_constant_value_gives_zero_correction() -> None:
    game = pyspiel.load_game("python_chance_tree(seed=5,depth=4,chance_prob=0.6)")
    for _, history, _ in all_paths(game):
        assert all(t == 0.0 for t in chance_terms(game, history, lambda s: 0.37))
    _, zero = value_function("python_pig(winscore=20)", "zero")
    pig = pyspiel.load_game("python_pig(winscore=20)")
    history = play_game(pig, [make_bot("random", pig, p, p) for p in (0, 1)], 4).history
    assert game_correction(pig, history, zero) == 0.0


def test_bad_history_and_value_names_are_errors() -> None:
    game = pyspiel.load_game("python_pig(winscore=20)")
    with pytest.raises(LuckError, match="not possible"):
        chance_terms(game, [0, 99], lambda s: 0.0)
    with pytest.raises(LuckError, match="unknown value function"):
        value_function("python_pig(winscore=20)", "oracle")
    with pytest.raises(LuckError, match="needs python_pig"):
        value_function("python_cant_stop", "exact")


@pytest.mark.parametrize(
    "game_string", ["python_einstein_wurfelt_nicht(setup=random)", "python_ra", "python_cant_stop"]
)
def test_search_value_is_expectimax_on_the_heuristic(game_string: str) -> None:
    # the oracle: a plain recursion, apart from the compiled Star2
    game = pyspiel.load_game(game_string)
    h = evaluation_for(game)
    depths = (1, 2) if "cant_stop" not in game_string else (1,)
    for core in golden_positions(game, 6, seed=len(game_string)):
        for depth in depths:
            _, value = value_function(game_string, f"search(depth={depth})")
            assert value(core) == pytest.approx(expectimax(core, h, depth), abs=1e-9)
        _, unbounded = value_function(game_string, "search(depth=1,max_nodes=1000000000)")
        assert unbounded(core) == pytest.approx(expectimax(core, h, 1), abs=1e-9)
        # a node budget: the value of the deepest depth it completes
        _, budgeted = value_function(game_string, "search(max_nodes=3000)")
        reached = search(core, game, "star2", max_depth=64, max_nodes=3000).depth
        assert reached >= 1
        assert budgeted(core) == pytest.approx(expectimax(core, h, reached), abs=1e-9)


def test_search_value_without_a_completed_ply_is_the_heuristic(monkeypatch) -> None:
    # budgets are checked every 256 nodes, so no game here fails to complete one ply; a
    # search that did (result depth 0, its value meaningless) must not become V
    from chancespiel.agents import star_minimax

    game = pyspiel.load_game("python_ra")
    core = golden_positions(game, 1, seed=0)[0]
    monkeypatch.setattr(
        star_minimax, "search", lambda *args, **kwargs: star_minimax.StarResult(value=0.9, action=0)
    )
    value = luck.search_value(game, max_nodes=10)
    assert value(core) == evaluation_for(game)(core, 0)


def test_search_value_on_the_learned_value() -> None:
    from chancespiel.games.learned import learned_heuristic

    game_string = "python_einstein_wurfelt_nicht(setup=random)"
    game = pyspiel.load_game(game_string)
    h = learned_heuristic(game)
    _, value = value_function(game_string, "search(depth=2, heuristic=learned)")
    for core in golden_positions(game, 4, seed=3):
        assert value(core) == pytest.approx(expectimax(core, h, 2), abs=1e-9)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("search", "needs depth= or max_nodes="),
        ("search(depth=0)", "depth must be an integer >= 1, got 0"),
        ("search(max_nodes=2.5)", "max_nodes must be an integer >= 1"),
        ("search(depth=65)", "depth must be at most 64"),
        ("search(depth=2,width=3)", "unknown parameter"),
        ("search(depth=2,heuristic=oracle)", "no heuristic 'oracle'"),
        ("search(depth=2", "unbalanced parentheses"),
        ("serch(depth=2)", "unknown value function"),
    ],
)
def test_bad_search_values_are_one_line_errors(name: str, message: str) -> None:
    with pytest.raises(LuckError, match=message) as raised:
        value_function("python_einstein_wurfelt_nicht(setup=random)", name)
    assert "\n" not in str(raised.value)


def test_a_search_value_needs_a_game_star2_can_search() -> None:
    with pytest.raises(LuckError, match="imperfect information"):
        value_function("kuhn_poker", "search(depth=2)")


def test_value_names_keep_commas_inside_parentheses() -> None:
    assert luck.value_names("lookahead, search(depth=3,heuristic=learned),exact,") == [
        "lookahead",
        "search(depth=3,heuristic=learned)",
        "exact",
    ]


def test_pig_corrected_score_matches_exact_policy_value() -> None:
    """hold(n=8) against hold(n=12) on Pig to 30: the exact solver as V; the corrected mean
    of player 0's score must match the policies' exact win probability."""
    game = pyspiel.load_game("python_pig(winscore=30)")
    exact = policy_win_probability(
        hold_at_policy(8, 30), hold_at_policy(12, 30), dice=2, winscore=30
    )
    _, value = value_function(str(game), "exact")
    raw, corrected = [], []
    for seed in range(300):
        bots = [make_bot("hold(n=8)", game, 0, seed), make_bot("hold(n=12)", game, 1, seed)]
        played = play_game(game, bots, seed)
        score = (played.returns[0] + 1.0) / 2.0
        raw.append(score)
        corrected.append(score - game_correction(game, played.history, value) / 2.0)
    se = np.std(corrected, ddof=1) / math.sqrt(len(corrected))
    assert se < 0.015  # raw: about 0.029
    assert abs(np.mean(corrected) - exact) < 4 * se
    assert np.var(raw) / np.var(corrected) > 4


def test_match_interval_by_hand() -> None:
    interval = match_interval([1.0, 0.0, 0.5, 0.5])
    # mean 1/2, sample variance (1/4 + 1/4 + 0 + 0) / 3 = 1/6, half-width z * sqrt(1/6 / 4)
    assert interval.mean == 0.5
    assert interval.variance == pytest.approx(1 / 6)
    assert interval.high - 0.5 == pytest.approx(Z95 * math.sqrt(1 / 24))
    assert math.isnan(match_interval([1.0]).low)


def test_cross_fitting() -> None:
    rng = np.random.default_rng(0)
    luck = rng.normal(size=200)
    skill = rng.normal(scale=0.1, size=200)
    corrected, beta = cross_fitted(0.5 + skill + 2.0 * luck, luck)
    assert beta == pytest.approx(2.0, abs=0.05)
    assert np.var(corrected) < 0.02
    same, beta = cross_fitted([0.0, 1.0, 0.5, 1.0], [0.3, 0.3, 0.3, 0.3])
    assert list(same) == [0.0, 1.0, 0.5, 1.0] and beta == 0.0


def _records(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_luck_summary_on_a_match(tmp_path) -> None:
    from chancespiel.evaluation.runner import RunConfig, run

    out = tmp_path / "m.jsonl"
    run(
        RunConfig(
            "python_pig(winscore=30)",
            [("pig_optimal", "hold(n=10)")],
            matches=30,
            workers=1,
            out=str(out),
            progress=False,
        )
    )
    records = _records(out)
    luck = luck_summary(records)
    assert luck.value == "exact" and luck.matches == 30 and luck.used
    assert luck.variance_ratio > 3
    assert luck.corrected.high - luck.corrected.low < luck.raw.high - luck.raw.low
    # a forfeit is left out of the correction and counted
    records[0]["error"] = {"seat": 0, "spec": "pig_optimal", "kind": "X", "message": "m"}
    luck = luck_summary(records)
    assert (luck.matches, luck.excluded_matches, luck.forfeits) == (29, 1, 1)


def test_equivalent_game_strings_are_one_game(tmp_path) -> None:
    from chancespiel.evaluation.match import FORMAT_VERSION, RunIdentity
    from chancespiel.evaluation.report import summarize
    from chancespiel.evaluation.runner import RunConfig, run

    out = tmp_path / "m.jsonl"
    config = RunConfig(
        "python_pig(winscore=20)", [("hold(n=8)", "hold(n=12)")], 4, workers=1, out=str(out)
    )
    run(config)
    records = _records(out)
    assert records[0]["v"] == FORMAT_VERSION and len(records[0]["rules"]) == 16
    for record in records[:3]:
        record["game"] = "python_pig(dice=2,winscore=20,horizon=1000)"
    summary = summarize(records, luck=True)
    (game,) = summary["games"]
    assert game["game"] == str(pyspiel.load_game("python_pig(winscore=20)"))
    (pair,) = game["pairs"]
    assert pair["games"] == 8 and pair["luck"]["matches"] == 4
    assert set(pair["luck"]) >= {"rate", "ci95", "variance_ratio", "value"}
    RunIdentity("python_pig(dice=2,winscore=20)", 0, (("hold(n=8)", "hold(n=12)"),)).check(
        records, "x"
    )
    # resuming under an equivalent game string plays nothing new
    again = run(RunConfig("python_pig(winscore=20,dice=2)", config.pairs, 4, out=str(out)))
    assert again.played == 0


def test_runs_with_other_seeds_are_other_matches_with_their_own_corrections(tmp_path) -> None:
    from chancespiel.evaluation.report import summarize
    from chancespiel.evaluation.runner import RunConfig, run

    records = []
    for seed in (0, 1000):  # the same match numbers, other dice
        out = tmp_path / f"seed{seed}.jsonl"
        pairs = [("hold(n=8)", "pig_optimal")]
        run(RunConfig("python_pig(winscore=20)", pairs, 5, seed=seed, workers=1, out=str(out)))
        records += _records(out)
    matches, *_ = whole_matches(records)
    assert len(matches) == 10  # not 5: match m of one run is not match m of the other
    assert all(a["seed"] == b["seed"] for a, b in matches)
    # each record's correction is its own, not that of the record with its match number
    cached = luck.CachedCorrections()
    value = value_function("python_pig(winscore=20)", "exact")[1]
    for record in records:
        assert cached(record, value) == luck.record_correction(record, value)
    (game,) = summarize(records, luck=True)["games"]
    (pair,) = game["pairs"]
    assert pair["luck"]["matches"] == 10 and pair["games"] == 20


def test_games_lost_by_the_infrastructure_are_played_again(tmp_path) -> None:
    from chancespiel.evaluation.match import LOST, GameTask, crash_record, unique_records
    from chancespiel.evaluation.runner import RunConfig, run

    out = tmp_path / "m.jsonl"
    pairs = [("hold(n=8)", "hold(n=12)")]
    lost = crash_record(GameTask("python_pig(winscore=20)", *pairs[0], 0, 1, 0), "x", kind=LOST)
    out.write_text(json.dumps(lost) + "\n")
    result = run(RunConfig("python_pig(winscore=20)", pairs, 2, workers=1, out=str(out)))
    assert result.played == 4  # the lost game too
    records, repeats = unique_records(_records(out))
    assert len(records) == 4 and repeats == 0
    assert all(r["error"] is None for r in records)


def test_corrected_sprt_by_hand() -> None:
    from chancespiel.evaluation.sprt import (
        CorrectedSprt,
        SprtParams,
        logistic_score,
        normal_llr,
    )

    scores = [0.9, 0.7, 0.8, 0.6]  # mean 3/4, variance (2 * 0.15^2 + 2 * 0.05^2) / 3
    s0, s1 = 0.5, logistic_score(40)
    expected = 4 * (s1 - s0) * (2 * 0.75 - s0 - s1) / (2 * (0.05 / 3))
    assert normal_llr(scores, 0, 40) == pytest.approx(expected)
    assert math.isnan(normal_llr([0.5, 0.5], 0, 40))
    test = CorrectedSprt(SprtParams(0, 40))
    for score in scores * 2:  # LLR already above the bound, but 8 < 10 matches
        assert test.add(score) is None
    assert test.add(0.9) is None and test.add(0.7) == "H1"
    assert test.result().pairs == 10 and "normal approximation" in test.result().describe()


def test_match_luck_without_sprt_prints_the_corrected_rate(tmp_path, capsys):
    from chancespiel.evaluation import cli

    out = tmp_path / "m.jsonl"
    argv = ["match", "python_pig(winscore=30)", "pig_optimal", "hold(n=10)", "--matches", "12"]
    assert cli.main([*argv, "--luck", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    line = next(line for line in text.splitlines() if "luck-corrected" in line)
    assert "value exact, 12 whole matches" in line
    assert cli.main(["report", "--luck", str(out)]) == 0
    assert line.strip() in capsys.readouterr().out


def test_tournament_luck_prints_each_pairings_corrected_rate_as_report_does(tmp_path, capsys):
    from chancespiel.evaluation import cli

    out = tmp_path / "t.jsonl"
    argv = ["tournament", "python_pig(winscore=30)", "pig_optimal", "hold(n=10)", "random"]
    argv += ["--matches", "6", "--luck", "--workers", "1", "--no-progress", "--out", str(out)]
    assert cli.main(argv) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "luck-corrected" in line]
    assert len(lines) == 3 and "value exact, 6 whole matches" in lines[0]
    assert cli.main(["report", "--luck", str(out)]) == 0
    reported = [line for line in capsys.readouterr().out.splitlines() if "luck-corrected" in line]
    assert lines == reported
    assert cli.main([*argv[:-2], "--value", "nosuch", "--out", str(tmp_path / "u")]) == 2
    assert "--luck" in capsys.readouterr().err and not (tmp_path / "u").exists()


def test_a_sampled_mean_is_unbiased_and_exact_with_a_perfect_control() -> None:
    game = pyspiel.load_game("python_cant_stop")
    state = search_state(game.new_initial_state())
    assert state.current_player() == CHANCE  # the first roll: 126 outcomes
    _, searched = value_function("python_cant_stop", "search(depth=1)")
    drawn, mean, _, _ = luck._chance_values(state, 5, searched)
    # the control equal to V: the estimate is the mean itself, whatever the samples
    perfect = luck.SampledMean(searched, searched, 2)
    assert perfect.chance(state, 5, "node") == (drawn, mean)
    # a control that knows nothing: the estimates scatter about the mean, unbiased
    blind = [luck.SampledMean(searched, lambda s: 0.0, 4, str(salt)) for salt in range(400)]
    estimates = [value.chance(state, 5, "node")[1] for value in blind]
    assert np.std(estimates) > 0.01  # the oracle is not trivial
    error = np.mean(estimates) - mean
    assert abs(error) < 4 * np.std(estimates) / math.sqrt(len(estimates))
    # the samples follow the node's name, never the draw: another draw, the same estimate
    assert blind[0].chance(state, 9, "node")[1] == estimates[0]
    assert blind[0].chance(state, 5, "another node")[1] != estimates[0]


def test_a_sampled_search_value_keeps_returns_telescoping_and_names_bad_samples() -> None:
    game_string = "python_cant_stop"
    game = pyspiel.load_game(game_string)
    _, fn = value_function(game_string, "search(depth=1,samples=3)")
    assert isinstance(fn, luck.SampledMean) and fn.samples == 3
    played = play_game(game, [make_bot("random", game, p, p) for p in (0, 1)], 0)
    chance, changes = luck.luck_and_drift(game, played.history, fn)
    start = fn(search_state(game.new_initial_state()))
    total = start + math.fsum(chance) + math.fsum(t for _, t in changes)
    assert total == pytest.approx(played.returns[0], abs=1e-9)
    # each record's nodes get their own samples, the same ones every time it is replayed
    record = {"game": game_string, "a": "x", "b": "y", "match": 0, "game_index": 0}
    record["history"] = played.history
    again = dict(record, match=1)
    assert record_correction(record, fn) == record_correction(dict(record), fn)
    assert record_correction(record, fn) != record_correction(again, fn)
    for bad in ("0", "True", "2.5", "10001"):
        with pytest.raises(LuckError, match=r"samples must be an integer in 1\.\.10000"):
            value_function(game_string, f"search(depth=1,samples={bad})")
        with pytest.raises(LuckError, match=r"chance_samples must be an integer in 1\.\.10000"):
            value_function(game_string, f"search(depth=1,chance_samples={bad})")


def test_a_search_value_with_sampled_chance_nodes_is_a_function_of_the_state() -> None:
    """MCMS inside the value, seeded by the state: the same state gets the same value whatever
    was valued before it, in every value function made anew."""
    game_string = "python_cant_stop"
    game = pyspiel.load_game(game_string)
    _, sampled = value_function(game_string, "search(depth=2,chance_samples=4)")
    _, full = value_function(game_string, "search(depth=2)")
    positions = golden_positions(game, 4, seed=5)
    first = [sampled(core) for core in positions]
    assert [sampled(core) for core in reversed(positions)] == first[::-1]
    _, again = value_function(game_string, "search(depth=2,chance_samples=4)")
    assert [again(core.clone()) for core in positions] == first
    exact = [full(core) for core in positions]
    assert first != exact  # four of up to 126 rolls: an estimate, not the full mean
    assert all(-1.0 <= v <= 1.0 for v in first)


# The luck correction as it stands, pinned so that a faster one can be shown to give the same
# values: tests/data/luck_sample.jsonl.gz holds three whole matches of EWN, Can't Stop and Ra
# (the first of one pairing each, from lab/results/figure2/paper_mcms). Each record's
# correction by the game's default value (learned_lookahead; Ra's over its first RA_STEPS
# actions, to keep the test short on pure Python) and each pair's corrected rate and beta.
LUCK_SAMPLE = Path(__file__).parent / "data" / "luck_sample.jsonl.gz"
RA_STEPS = 60
PINNED_CORRECTIONS = {
    ("python_einstein_wurfelt_nicht", 0, 0): 0.4938685925293789,
    ("python_einstein_wurfelt_nicht", 0, 1): -0.1604684180630849,
    ("python_einstein_wurfelt_nicht", 1, 0): -0.2359045766971855,
    ("python_einstein_wurfelt_nicht", 1, 1): -0.014069249826561131,
    ("python_einstein_wurfelt_nicht", 2, 0): -0.21784894120008222,
    ("python_einstein_wurfelt_nicht", 2, 1): 0.41315728220828435,
    ("python_cant_stop", 0, 0): -0.040764429757193216,
    ("python_cant_stop", 0, 1): -0.5132117835378047,
    ("python_cant_stop", 1, 0): 0.6987011361900605,
    ("python_cant_stop", 1, 1): 0.7451553147110137,
    ("python_cant_stop", 2, 0): -0.5068762094733104,
    ("python_cant_stop", 2, 1): 0.825603065313614,
    ("python_ra", 0, 0): 0.1893127624533912,
    ("python_ra", 0, 1): -0.2339569153850231,
    ("python_ra", 1, 0): -0.1619896630941303,
    ("python_ra", 1, 1): 0.10296939704040406,
    ("python_ra", 2, 0): 0.05750648567761357,
    ("python_ra", 2, 1): -0.03520347188983151,
}
PINNED_RATES = {  # game: (corrected rate, beta)
    "python_einstein_wurfelt_nicht": (0.15274498832513458, 1.8445580981633458),
    "python_cant_stop": (0.2531382039845839, 0.995785812742733),
}


def test_corrections_of_committed_records_are_pinned() -> None:
    records = read_records(LUCK_SAMPLE)
    found = {}
    for record in records:
        name = record["game"].split("(")[0]
        if name == "python_ra":
            record = {**record, "history": record["history"][:RA_STEPS]}
        _, fn = value_function(record["game"])
        found[name, record["match"], record["game_index"]] = record_correction(record, fn)
    # within the last bits: a network's sums may be ordered otherwise by a faster evaluation
    assert found == pytest.approx(PINNED_CORRECTIONS, rel=0, abs=1e-12)
    for pair in records_by_pair(records).values():
        name = pair[0]["game"].split("(")[0]
        if name in PINNED_RATES:
            summary = luck_summary(pair)
            assert (summary.value, summary.matches) == ("learned_lookahead", 3)
            expected = PINNED_RATES[name]
            assert (summary.corrected.mean, summary.beta) == pytest.approx(expected, abs=1e-12)


def test_symmetric_outcomes_and_batched_leaves_give_the_plain_walks_values() -> None:
    # Ra's learned lookahead values one draw of each class of exchangeable kinds and runs the
    # network over the leaves below each child at once: at every chance node of a game, the
    # values of the walk over every outcome, leaf by leaf, within the last bits. Merging the
    # kinds of a group without regard to where their tiles are would change them.
    from chancespiel.games.ra_core import CIVS, MONUMENTS, ra_features, ra_symmetric_outcomes
    from chancespiel.games.value_model import LearnedValue

    def by_group(state) -> list[int]:
        first = {}
        return [
            first.setdefault(0 if k in CIVS else 1 if k in MONUMENTS else k, k)
            for k, _ in state.chance_outcomes()
        ]

    record = next(r for r in read_records(LUCK_SAMPLE) if r["game"].startswith("python_ra"))
    game = pyspiel.load_game(record["game"])
    _, fast = value_function(record["game"])
    assert isinstance(fast, luck.Lookahead) and fast.symmetric is ra_symmetric_outcomes
    model = fast.h.model
    leaf_by_leaf = LearnedValue(model, ra_features)  # called as a function: one leaf at a time
    plain = luck.Lookahead(lambda state, player: leaf_by_leaf(state, player))
    wrong = luck.Lookahead(LearnedValue(model, ra_features), symmetric=by_group)
    merged = differ = 0
    # by then both sides hold civilizations and monuments, some of a kind alike, some not
    for _, state, action in replay(game, record["history"][:110]):
        if state.current_player() != CHANCE:
            continue
        expected = luck._chance_values(state, action, plain)
        assert luck._chance_values(state, action, fast) == pytest.approx(expected, abs=1e-12)
        classes = ra_symmetric_outcomes(state)
        merged += len(set(classes)) < len(classes)
        differ += abs(luck._chance_values(state, action, wrong)[1] - expected[1]) > 1e-9
    assert merged > 0 and differ > 0
