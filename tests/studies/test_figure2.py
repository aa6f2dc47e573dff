"""The Figure 2 experiment: the paper's settings, the pairings, the table, a tiny run."""

from __future__ import annotations

import json

import pyspiel
import pytest

from chancespiel.agents import check_spec
from chancespiel.evaluation import cli
from chancespiel.evaluation.stats import wilson_interval
from chancespiel.studies import mcms_setup, search_depth
from chancespiel.studies import pig_estimators as pe
from chancespiel.studies.figure2 import plan, render, stats


def test_paper_parameters_are_converted_to_our_scale():
    cant_stop = mcms_setup.paper_specs(mcms_setup.SETUPS["cant_stop"], 200)
    # (C1, d_r, C2, alpha) = (50, 10, 25, 0.3); widths (25, 30, 15); no pruning at depth <= 2.
    assert cant_stop["dpw"] == "dpw(uct_c=0.5,rollout_depth=10,time_ms=200,pw_c=25,pw_alpha=0.3)"
    assert cant_stop["star2ss"] == "star2ss(samples=15,time_ms=200,prune_min_depth=2)"
    ewn = mcms_setup.paper_specs(mcms_setup.SETUPS["ewn"], 200)
    assert ewn["mcts"] == "mcts(uct_c=2,rollout_depth=100,time_ms=200)"
    assert ewn["expss"].startswith("expss(samples=1,")
    # the hybrid never samples a single outcome: at the paper's width of one it takes two
    assert ewn["exphs"].startswith("exphs(samples=2,")
    assert ewn["star1hs"].startswith("star1hs(samples=2,")
    assert cant_stop["star2hs"] == "star2hs(samples=15,time_ms=200,prune_min_depth=2)"
    assert pe.paper_specs(200) == mcms_setup.paper_specs(mcms_setup.SETUPS["pig"], 200)


@pytest.mark.parametrize("key", list(mcms_setup.SETUPS))
def test_every_spec_is_valid_for_its_game(key):
    setup = mcms_setup.SETUPS[key]
    game = pyspiel.load_game(setup.game)
    specs = mcms_setup.paper_specs(setup, 200)
    assert list(specs) == [*mcms_setup.AGENT_NAMES, *mcms_setup.HYBRID_NAMES]
    for spec in specs.values():
        check_spec(spec, game)


def test_pairings_use_the_papers_best_mcts_variant():
    pig = plan.pairings(mcms_setup.SETUPS["pig"])
    assert [p.label for p in pig] == list(plan.PAIRING_LABELS)
    assert pig[-1].b.startswith("mcts(")
    ra = plan.pairings(mcms_setup.SETUPS["ra"], ["Star1SS-MCTS", "ExpSS-Exp"])
    assert [p.label for p in ra] == ["ExpSS-Exp", "Star1SS-DPW"]  # the paper's order
    assert ra[1].b.startswith("dpw(")

    forced = plan.pairings(mcms_setup.SETUPS["ra"], ["Star1-MCTS"], mcts="mcts")
    assert forced[0].label == "Star1-MCTS" and forced[0].b.startswith("mcts(")
    assert len(plan.file_pairings(mcms_setup.SETUPS["ra"], 200)) == 9 + 6  # and the hybrid's
    with pytest.raises(ValueError, match="unknown pairing"):
        plan.pairings(mcms_setup.SETUPS["ra"], ["Star3-Exp"])
    with pytest.raises(ValueError, match="unknown game"):
        mcms_setup.setup_for("chess")


def _record(game, a, b, match, game_index, a_result):
    """A minimal record: A scores a_result (1, 0.5, 0) from its seat."""
    a_return = 2 * a_result - 1
    returns = [a_return, -a_return] if game_index == 0 else [-a_return, a_return]
    return {"game": game, "a": a, "b": b, "seed": 0, "match": match, "game_index": game_index,
            "returns": returns, "limit_ms": [200.0, 200.0]}  # fmt: skip


def test_summary_counts_draws_half_and_keeps_the_papers_order():
    setup = mcms_setup.SETUPS["ra"]
    first, second = plan.pairings(setup, ["ExpSS-Exp", "Star2SS-Star2"])
    results = [1, 0.5, 1, 0, 1, 1]  # 4.5 of 6
    records = [
        _record(setup.game, second.a, second.b, i // 2, i % 2, r) for i, r in enumerate(results)
    ] + [_record(setup.game, first.a, first.b, 0, 0, 0)]
    rows = stats.summarise({"ra": records})
    assert [r.pairing for r in rows] == ["ExpSS-Exp", "Star2SS-Star2"]
    row = rows[1]
    assert (row.game, row.matches, row.games, row.wins, row.draws, row.losses) == (
        "Ra",
        3,
        6,
        4,
        1,
        1,
    )
    assert row.rate == pytest.approx(0.75)
    assert (row.low, row.high) == pytest.approx(wilson_interval(4.5, 6))
    assert "| Ra | Star2SS-Star2 | 3 | 6 | 4-1-1 | 75.0% |" in render.markdown(rows)


def test_counterpart_pairings_are_pooled_per_game():
    setup = mcms_setup.SETUPS["pig"]
    chosen = plan.pairings(setup, ["ExpSS-Exp", "Star1SS-Star1", "Star1SS-ExpSS"])
    results = {"ExpSS-Exp": [1, 1, 0.5, 0], "Star1SS-Star1": [0, 0], "Star1SS-ExpSS": [1, 1]}
    records = [
        _record(setup.game, p.a, p.b, i // 2, i % 2, r)
        for p in chosen
        for i, r in enumerate(results[p.label])
    ]
    rows = stats.summarise({"pig": records})
    (row,) = stats.pooled(rows)  # Star1SS-ExpSS pits two MCMS variants: not pooled
    assert (row.game, row.pairing, row.matches, row.games) == ("Pig", stats.POOLED_LABEL, 3, 6)
    assert (row.wins, row.draws, row.losses) == (2, 1, 3)
    assert row.rate == pytest.approx(2.5 / 6)
    assert (row.low, row.high) == pytest.approx(wilson_interval(2.5, 6))
    assert row.a == f"{chosen[0].a}+{chosen[1].a}"
    assert stats.pooled([r for r in rows if r.pairing == "Star1SS-ExpSS"]) == []


def test_tiny_run_resumes_and_refuses_another_setup(tmp_path, capsys):
    args = ["experiment", "figure2", "--games", "ewn", "--pairings", "ExpSS-Exp,Star1SS-MCTS",
            "--matches", "1", "--time-ms", "2", "--workers", "1", "--no-progress",
            "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(args) == 0
    lines = (tmp_path / "ewn.jsonl").read_text().splitlines()
    assert len(lines) == 4 and all(json.loads(line)["error"] is None for line in lines)
    table = (tmp_path / "table.md").read_text()
    assert "| EWN | ExpSS-Exp | 1 | 2 |" in table and "| EWN | Star1SS-MCTS | 1 | 2 |" in table
    assert f"| EWN | {stats.POOLED_LABEL} | 1 | 2 |" in table
    assert (tmp_path / "figure2.png").stat().st_size > 0
    capsys.readouterr()
    assert cli.main(args) == 0  # everything is in the file already
    assert "nothing to play" in capsys.readouterr().out
    assert len((tmp_path / "ewn.jsonl").read_text().splitlines()) == 4
    # The same file with another time per move is another run: refused, file untouched.
    changed = [*args]
    changed[changed.index("--time-ms") + 1] = "3"
    assert cli.main(changed) == 2
    assert len((tmp_path / "ewn.jsonl").read_text().splitlines()) == 4
    # Other sample widths are another setup too: refused here, played in a directory of their own.
    assert cli.main([*args, "--samples", "ewn=2,2,2"]) == 2
    assert len((tmp_path / "ewn.jsonl").read_text().splitlines()) == 4
    retuned = tmp_path / "retuned"
    assert cli.main([*args[:-1], str(retuned), "--samples", "ewn=2,2,2"]) == 0
    specs = {json.loads(line)["a"] for line in (retuned / "ewn.jsonl").read_text().splitlines()}
    assert specs == {
        "expss(samples=2,time_ms=2,prune_min_depth=2)",
        "star1ss(samples=2,time_ms=2,prune_min_depth=2)",
    }
    assert "| EWN | ExpSS-Exp | 1 | 2 |" in (retuned / "table.md").read_text()
    for option, value in [("--games", "chess"), ("--pairings", "Exp-Star9"), ("--time-ms", "0"),
                          ("--samples", "ewn=2,2"), ("--samples", "go=1,1,1"),
                          ("--samples", "ewn=0,1,1"), ("--heuristic", "lead")]:  # fmt: skip
        bad = [*args]
        if option in bad:
            bad[bad.index(option) + 1] = value
        else:
            bad += [option, value]
        try:
            code = cli.main(bad)
        except SystemExit as e:  # argparse's (one-line) errors: a number outside its range
            code = e.code
        assert code == 2
    err = capsys.readouterr().err
    assert "known: pig, ewn, cant_stop, ra" in err and "ExpSS-Exp" in err


def test_a_run_past_its_time_limit_starts_nothing_and_resumes(tmp_path, capsys):
    args = ["experiment", "figure2", "--games", "ewn", "--pairings", "ExpSS-Exp",
            "--matches", "1", "--time-ms", "2", "--workers", "1", "--no-progress",
            "--out", str(tmp_path)]  # fmt: skip
    for sequential in ([], ["--sequential", "--matches", "2", "--min-matches", "2"]):
        assert cli.main([*args, *sequential, "--max-minutes", "1e-9"]) == 0
        assert "stopped after 1e-09 minutes; the same command resumes" in capsys.readouterr().out
    assert not (tmp_path / "ewn.jsonl").exists() or not (tmp_path / "ewn.jsonl").read_text()
    assert cli.main(args) == 0
    assert len((tmp_path / "ewn.jsonl").read_text().splitlines()) == 2


def test_search_depth_on_the_positions_of_a_run(tmp_path, capsys):
    run = ["experiment", "figure2", "--games", "ewn", "--pairings", "Star2SS-Star2",
           "--matches", "1", "--time-ms", "2", "--workers", "1", "--no-progress",
           "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(run) == 0
    setup = mcms_setup.SETUPS["ewn"]
    game = pyspiel.load_game(setup.game)
    records = plan.load_records(tmp_path)["ewn"]
    histories = search_depth.sample_positions(game, records, 5, seed=0)
    assert len(histories) == 5 and len({tuple(h) for h in histories}) == 5
    for history in histories:  # each a decision point of a recorded game
        assert any(r["history"][: len(history)] == history for r in records)
        state = game.new_initial_state()
        for action in history:
            state.apply_action(action)
        assert state.current_player() >= 0
    assert search_depth.sample_positions(game, records, 5, seed=0) == histories

    out = tmp_path / "depths.md"
    args = ["experiment", "search-depth", "--records", str(tmp_path), "--games", "ewn",
            "--positions", "2", "--time-ms", "5", "--out", str(out)]  # fmt: skip
    capsys.readouterr()
    assert cli.main(args) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| EWN |")]
    assert [row.split(" | ")[1] for row in rows] == list(search_depth.STAR_AGENTS)
    assert all(row.split(" | ")[2] == "2" for row in rows)
    assert "| EWN | star2ss |" in capsys.readouterr().out
    assert cli.main([*args[:4], "--games", "pig"]) == 2  # no Pig records there
    assert "no record file" in capsys.readouterr().err
    # At a node budget every player spends its nodes (the check comes every 256 of them).
    budgeted = search_depth.measure(setup, histories[:2], 5, agents=["exp", "star1ss"],
                                    max_nodes=700)  # fmt: skip
    assert [r.spec for r in budgeted] == [
        "expectimax(max_nodes=700,prune_min_depth=2)",
        "star1ss(samples=1,max_nodes=700,prune_min_depth=2)",
    ]
    assert all(r.mean_nodes <= 700 + 256 for r in budgeted)
    assert cli.main([*args, "--max-nodes", "700"]) == 2  # a result is not written over
    assert "not written over" in capsys.readouterr().err
    nodes = tmp_path / "nodes.md"
    assert cli.main([*args[:-1], str(nodes), "--max-nodes", "700"]) == 0
    assert "| mean depth at 700 nodes |" in nodes.read_text()

    # Against a reference: regret 0 exactly when the player plays the reference's move, up to
    # the rounding `measure` allows (a search that reaches deeper in its 5 ms may pick the other
    # of two tied moves, whose reference value differs in the last bits).
    judged = search_depth.measure(setup, histories[:3], 5, agents=["exp", "expss"],
                                  clock="cpu", reference="expectimax(max_depth=2)")  # fmt: skip
    values = search_depth.reference_values(
        game, [_replayed(game, h) for h in histories[:3]], "expectimax(max_depth=2)"
    )
    assert all(
        len(v) == len(_replayed(game, h).legal_actions())
        for v, h in zip(values, histories[:3], strict=True)
    )
    for row in judged:
        assert row.regret is not None and row.regret[0] >= 0 and 0 <= row.agreement <= 1
        assert (row.regret[0] <= 1e-9) == (row.agreement == 1)  # ties within rounding agree
    assert "regret vs reference" in search_depth.markdown(judged, "5 ms")
    # Sampled minus classic, position by position: the mean of the differences and the counts
    # of positions where the sampled move is better or worse.
    (pair,) = search_depth.paired(judged)
    exp, expss = judged
    differences = [s - c for s, c in zip(expss.regrets, exp.regrets, strict=True)]
    assert (pair.left, pair.right, pair.positions) == ("expss", "exp", 3)
    assert pair.difference == pytest.approx(sum(differences) / 3)
    assert pair.better == sum(d < -1e-9 for d in differences)
    assert pair.worse == sum(d > 1e-9 for d in differences)
    assert "| EWN | expss - exp | 3 |" in search_depth.markdown(judged, "5 ms")
    assert search_depth.paired(budgeted) == []  # nothing judged, nothing paired
    assert cli.main([*args, "--reference", "star2(max_depth=2)"]) == 2
    assert "must be an expectimax spec" in capsys.readouterr().err
    # The players' heuristic: a name the game does not have is refused before any search.
    learned = search_depth.measure(setup, histories[:1], 5, agents=["star2"], heuristic="learned")
    assert learned[0].spec == "star2(time_ms=5,prune_min_depth=2,heuristic=learned)"
    assert cli.main([*args, "--heuristic", "nonsense"]) == 2
    assert "--heuristic" in capsys.readouterr().err and not out.read_text().count("nonsense")


def test_search_depth_measures_the_players_of_other_pairings(tmp_path, capsys):
    """`--pairings` names pairings of the figure: their players are measured (MCTS as the
    game's variant) and compared left minus right; an unknown pairing is refused."""
    assert plan.pairing_names(mcms_setup.SETUPS["ra"], ["Star1-MCTS", "Star2SS-Star1SS"]) == [
        ("Star2SS-Star1SS", "star2ss", "star1ss"),
        ("Star1-DPW", "star1", "dpw"),
    ]
    assert search_depth.players(mcms_setup.SETUPS["pig"], ["Star1-MCTS", "Star1SS-MCTS"]) == (
        ["star1", "mcts", "star1ss"],
        [("star1", "mcts"), ("star1ss", "mcts")],
    )
    run = ["experiment", "figure2", "--games", "pig", "--pairings", "Star1-MCTS",
           "--matches", "1", "--time-ms", "2", "--workers", "1", "--no-progress",
           "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(run) == 0
    out = tmp_path / "mcts.md"
    args = ["experiment", "search-depth", "--records", str(tmp_path), "--games", "pig",
            "--positions", "2", "--time-ms", "5", "--clock", "cpu", "--pairings", "Star1-MCTS",
            "--reference", "expectimax(max_depth=2)", "--out", str(out)]  # fmt: skip
    assert cli.main(args) == 0
    text = out.read_text()
    rows = [line.split(" | ")[1] for line in text.splitlines() if line.startswith("| Pig |")]
    assert rows == ["star1", "mcts", "star1 - mcts"]
    assert "| left - right |" in text
    assert cli.main([*args[:-2], "--pairings", "Star1-Nobody", "--out", str(out)]) == 2
    assert "--pairings: unknown pairing(s) ['Star1-Nobody']" in capsys.readouterr().err
    assert out.read_text() == text


def test_search_depth_with_ordered_dice_on_the_positions_of_a_merged_run(tmp_path, capsys):
    run = ["experiment", "figure2", "--games", "pig", "--pairings", "ExpSS-Exp",
           "--matches", "1", "--time-ms", "2", "--workers", "1", "--no-progress",
           "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(run) == 0
    records = plan.load_records(tmp_path)["pig"]
    ordered = mcms_setup.with_ordered_dice(mcms_setup.SETUPS, ["pig"])["pig"]
    merged_game = pyspiel.load_game(mcms_setup.SETUPS["pig"].game)
    found = search_depth.positions_for(ordered, records, 4, seed=0)
    histories = found.histories
    merged = search_depth.sample_positions(merged_game, records, 4, seed=0)
    assert found.recorded == merged and str(found.recorded_game) == str(merged_game)
    ordered_game = pyspiel.load_game(ordered.game)
    for history, original in zip(histories, merged, strict=True):
        assert len(history) == len(original)
        one, two = _replayed(merged_game, original), _replayed(ordered_game, history)
        assert str(one) == str(two) and one.legal_actions() == two.legal_actions()
    # The merged setup takes the positions as they are.
    same = search_depth.positions_for(mcms_setup.SETUPS["pig"], records, 4, seed=0)
    assert same.histories == same.recorded == merged

    out = tmp_path / "ordered.md"
    args = ["experiment", "search-depth", "--records", str(tmp_path), "--games", "pig",
            "--positions", "2", "--time-ms", "5", "--ordered-dice", "--out", str(out)]  # fmt: skip
    assert cli.main(args) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| Pig, ordered")]
    assert len(rows) == len(search_depth.STAR_AGENTS)
    # Judged on the positions as recorded: the same values as the judge's on the merged game,
    # and the ordered players' regrets measured against them.
    reference = "expectimax(max_depth=2)"
    values = search_depth.reference_values(
        merged_game, [_replayed(merged_game, h) for h in merged[:2]], reference
    )
    judged = search_depth.measure(ordered, histories[:2], 5, agents=["exp"], clock="cpu",
                                  judged=values)  # fmt: skip
    assert judged[0].regret is not None and len(judged[0].regrets) == 2
    with pytest.raises(ValueError, match="position 0: the judged moves are not the legal"):
        search_depth.measure(ordered, histories[:1], 5, agents=["exp"], judged=[{99: 0.0}])
    judged_out = tmp_path / "judged.md"
    assert cli.main([*args[:-1], str(judged_out), "--reference", reference]) == 0
    assert "regret vs reference" in judged_out.read_text()


def _replayed(game, history):
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def test_labels_are_the_papers_names_whatever_the_widths_and_times():
    assert plan.pairing_label("star2ss(samples=3,time_ms=1000)", "star2(time_ms=1000)") == (
        "Star2SS-Star2"
    )
    assert plan.pairing_label("star1(time_ms=5)", "dpw(uct_c=0.5)") == "Star1-DPW"
    assert plan.pairing_label("random", "expectimax(max_depth=2)") == (
        "random-expectimax(max_depth=2)"
    )
    for setup in mcms_setup.SETUPS.values():
        for p in plan.file_pairings(setup, 200):
            assert plan.pairing_label(p.a, p.b) == p.label


def test_sample_width_overrides():
    changed = mcms_setup.with_samples(mcms_setup.SETUPS, ["ewn=3,3,4", "ra = 1,2,3"])
    assert changed["ewn"].samples == (3, 3, 4) and changed["ra"].samples == (1, 2, 3)
    assert changed["pig"] == mcms_setup.SETUPS["pig"]
    assert mcms_setup.SETUPS["ewn"].samples == (1, 1, 2)  # the paper's setup is untouched
    for bad in ["ewn", "ewn=1,2", "ewn=1,2,x", "ewn=1,0,2", "chess=1,1,1"]:
        with pytest.raises(ValueError):
            mcms_setup.with_samples(mcms_setup.SETUPS, [bad])


def test_sequential_run_stops_each_pairing_by_the_rule_and_resumes(tmp_path, capsys):
    args = ["experiment", "figure2", "--games", "ewn", "--pairings", "ExpSS-Exp,Star2SS-Star2",
            "--matches", "6", "--time-ms", "2", "--clock", "cpu", "--workers", "1",
            "--sequential", "--batch", "2", "--min-matches", "4", "--target-points", "45",
            "--no-progress", "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "EWN: ExpSS-Exp, Star2SS-Star2 up to 4 matches" in out
    records = [json.loads(line) for line in (tmp_path / "ewn.jsonl").read_text().splitlines()]
    assert {r["a"] for r in records} == {
        "expss(samples=1,time_ms=2,prune_min_depth=2,clock=cpu)",
        "star2ss(samples=2,time_ms=2,prune_min_depth=2,clock=cpu)",
    }
    answers = (tmp_path / "answers.md").read_text()
    rows = [line for line in answers.splitlines() if line.startswith("| ExpSS-Exp")]
    assert len(rows) == 1 and "| > 50% |" in rows[0]
    for agent in ("expss(", "star2ss("):
        mine = [r for r in records if r["a"].startswith(agent)]
        matches = {r["match"] for r in mine}
        assert matches == set(range(len(matches))) and len(mine) == 2 * len(matches)
        assert len(matches) in (4, 6)  # stopped at a look: the first at 4, the cap at 6
    assert (tmp_path / "answers.png").stat().st_size > 0
    assert cli.main(args) == 0  # every pairing is settled: nothing more to play
    assert " up to " not in capsys.readouterr().out
    assert len((tmp_path / "ewn.jsonl").read_text().splitlines()) == len(records)
    (tmp_path / "answers.md").unlink()
    assert cli.main([*args, "--matches", "20", "--summarise-only"]) == 0  # plays nothing
    assert " up to " not in capsys.readouterr().out
    assert len((tmp_path / "ewn.jsonl").read_text().splitlines()) == len(records)
    assert "| ExpSS-Exp |" in (tmp_path / "answers.md").read_text()
    assert not (tmp_path / "figure2_luck.png").exists()
    assert cli.main([*args, "--summarise-only", "--luck-figure"]) == 0
    assert (tmp_path / "figure2_luck.png").read_bytes().startswith(b"\x89PNG")
    assert "figure2_luck.png" in capsys.readouterr().out


def test_paper_rates_and_ordered_dice_setups():
    assert stats.paper_rate("cant_stop", "Star2SS-Star2") == 0.85
    assert stats.paper_rate("ra", "ExpSS-Exp") == 0.60
    assert stats.paper_rate("pig", "ExpSS-Exp") is None
    ordered = mcms_setup.with_ordered_dice(mcms_setup.SETUPS, ["pig", "cant_stop"])
    assert ordered["cant_stop"].game == "python_cant_stop(ordered_dice=true)"
    assert pyspiel.load_game(ordered["cant_stop"].game).max_chance_outcomes() == 1296
    assert pyspiel.load_game(ordered["pig"].game).max_chance_outcomes() == 36
    with pytest.raises(ValueError, match="ra has no dice encoding"):
        mcms_setup.with_ordered_dice(mcms_setup.SETUPS, ["ra"])


def test_equal_node_budgets_replace_the_time_of_the_star_minimax_players(tmp_path, capsys):
    specs = mcms_setup.paper_specs(mcms_setup.SETUPS["ewn"], 200, clock="cpu", max_nodes=5000)
    assert specs["star2ss"] == "star2ss(samples=2,max_nodes=5000,prune_min_depth=2)"
    assert specs["exp"] == "expectimax(max_nodes=5000,prune_min_depth=2)"
    assert specs["mcts"].endswith("time_ms=200,clock=cpu)")  # MCTS has no node budget here
    args = ["experiment", "figure2", "--games", "ewn", "--pairings", "ExpSS-Exp",
            "--matches", "1", "--max-nodes", "600", "--workers", "1", "--no-progress",
            "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(args) == 0
    records = [json.loads(line) for line in (tmp_path / "ewn.jsonl").read_text().splitlines()]
    assert len(records) == 2 and {r["a"] for r in records} == {
        "expss(samples=1,max_nodes=600,prune_min_depth=2)"
    }
    nodes = [n for r in records for seat in r["nodes"] for n in seat]
    # The budget is checked every 256 nodes; at least one search in a game spends it.
    assert max(nodes) <= 600 + 256 and max(nodes) > 600
    capsys.readouterr()
    assert cli.main([*args[:5], "ExpSS-Exp,Star1-MCTS", *args[6:]]) == 2
    assert "--max-nodes budgets the *-Minimax players only; Star1-MCTS" in capsys.readouterr().err
    assert len((tmp_path / "ewn.jsonl").read_text().splitlines()) == 2


def test_answers_say_when_the_raw_interval_stands_for_the_corrected_one():
    from chancespiel.evaluation.luck import LuckSummary
    from chancespiel.evaluation.sequential import Decision, SequentialRule
    from chancespiel.evaluation.stats import match_interval

    rule = SequentialRule(10, 150, 30, 0.05)
    raw = match_interval([1.0, 0.5, 1.0, 0.0, 1.0] * 6)

    def one(used: bool) -> stats.Answer:
        corrected = raw if not used else match_interval([0.8, 0.6, 0.7, 0.5, 0.9] * 6)
        summary = LuckSummary("lookahead", 30, 0, 0, 0, raw, corrected, 0.5, used)
        decision = Decision(30, None, corrected, rule.z)
        return stats.Answer("ra", "Ra", "python_ra", "ExpSS-Exp", "a", "b", 0.6, decision,
                              summary)  # fmt: skip

    kept = render.answers_markdown([one(False)], rule)
    assert f"{100 * raw.mean:.1f}% ({100 * raw.low:.1f}-{100 * raw.high:.1f}) = raw |" in kept
    assert '"= raw": the luck correction would not have lowered' in kept
    assert "= raw" not in render.answers_markdown([one(True)], rule)


def test_the_hybrid_pairings_are_chosen_by_name_and_labelled():
    """Beyond the paper: the hybrid search against its classic counterpart and the paper's
    sampled search of the same base, at the paper's widths; not in the default set."""
    cant_stop = mcms_setup.SETUPS["cant_stop"]
    chosen = plan.pairings(cant_stop, ["Star2HS-Star2SS", "Star2HS-Star2"], 200, clock="cpu")
    assert [p.label for p in chosen] == ["Star2HS-Star2", "Star2HS-Star2SS"]
    assert chosen[0].a.startswith("star2hs(samples=15,") and chosen[0].b.startswith("star2(")
    assert chosen[1].b.startswith("star2ss(samples=15,")
    assert all(plan.pairing_label(p.a, p.b) == p.label for p in chosen)
    assert not set(plan.PAIRING_LABELS) & {label for label, _, _ in plan.HYBRID_PAIRINGS}


def test_a_pairing_beyond_the_paper_is_judged_by_which_side_is_ahead():
    from chancespiel.evaluation.sequential import Decision
    from chancespiel.evaluation.stats import MatchInterval

    def answer(label, mean):  # 60 matches, a sequential half-width of about 0.035
        interval = MatchInterval(mean, mean - 0.03, mean + 0.03, 0.01, 60)
        decision = Decision(60, "decided", interval, 2.67)
        return stats.Answer("ra", "Ra", "python_ra", label, "a", "b", None, decision, None)

    assert answer("Star2HS-Star2", 0.62).verdict == "left agent ahead"
    assert answer("Star2HS-Star2", 0.38).verdict == "right agent ahead"
    assert answer("Star2HS-Star2", 0.52).verdict == "undecided"
    assert answer("Star2SS-Star2", 0.62).verdict == "agrees"  # the paper's claim: > 50%
