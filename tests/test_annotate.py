"""`annotate`: each move's error and each draw's luck against a reference, and their sums.

On Pig with the exact solver the decomposition result = initial + luck - own errors +
opponent's errors holds exactly, the errors are the solver's regrets as `experiment
pig-regret` defines them, and the luck is the correction's own term."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from chancespiel.evaluation import cli
from chancespiel.evaluation.annotate import (
    THRESHOLDS,
    AnnotateError,
    annotate_record,
    flag_of,
    reference_for,
)
from chancespiel.evaluation.luck import CHANCE, chance_terms, record_key
from chancespiel.evaluation.match import load_game_cached, read_records
from chancespiel.evaluation.runner import RunConfig, run
from chancespiel.games import pig_solver

RESULTS = Path(__file__).parent.parent / "lab" / "results" / "figure2"
PIG_LEAD = RESULTS / "pig_lead" / "pig.jsonl.gz"  # 120 games of two-dice Pig to 100
ORDERED = RESULTS / "mcms_sequential_ordered_dice" / "pig.jsonl.gz"  # 60, ordered dice
EXACT = 1e-9  # the solver converges to 1e-13 per value; sums of ~100 terms stay far below


def _played(tmp_path: Path, game: str, matches: int) -> list[dict]:
    """Seat-swapped games of random play against hold at 12 (Pig) or random play."""
    tmp_path.mkdir(exist_ok=True)
    out = tmp_path / "games.jsonl"
    b = "hold(n=12)" if "pig" in game else "random"
    run(RunConfig(game, [("random", b)], matches=matches, workers=1, out=str(out), progress=False))
    return read_records(out)


def _deviations(records: list[dict]) -> list[float]:
    """|result - (initial + luck - own errors + opponent's errors)| of every player of every
    game, from the steps alone (not from the reported residual)."""
    found = []
    for record in records:
        annotation = annotate_record(record, reference_for(record["game"]))
        assert annotation.reference == "exact" and annotation.ended
        for p in annotation.players:
            sign = 1.0 if p.player == 0 else -1.0
            luck = sign * math.fsum(s.luck for s in annotation.steps)
            own = math.fsum(s.error for s in annotation.steps if s.player == p.player)
            theirs = math.fsum(s.error for s in annotation.steps if s.player == 1 - p.player)
            result = (record["returns"][p.player] + 1.0) / 2.0
            assert p.final == pytest.approx(result, abs=1e-12)
            found.append(abs(result - (p.initial + luck - own + theirs)))
    return found


def test_the_decomposition_adds_up_exactly_on_pig_with_the_solver(tmp_path) -> None:
    committed = read_records(PIG_LEAD) + read_records(ORDERED)
    one_die = _played(tmp_path / "one", "python_pig(dice=1,winscore=30)", 50)
    cpp = _played(tmp_path / "cpp", "pig(winscore=30)", 50)
    deviations = {
        "two dice": _deviations(committed),
        "one die": _deviations(one_die),
        "OpenSpiel's pig": _deviations(cpp),
    }
    for name, found in deviations.items():
        assert len(found) >= 200, name  # 100 games or more, two players each
        assert max(found) < EXACT, name


def test_errors_are_the_solvers_regrets_as_pig_regret_defines_them() -> None:
    from chancespiel.studies.pig_estimators import SCALE, decision_regrets, exact_values, state_key

    records = read_records(PIG_LEAD)
    mine: dict[str, list[float]] = {}
    for record in records[:40]:
        annotation = annotate_record(record)
        game = load_game_cached(record["game"])
        state = game.new_initial_state()
        for step in annotation.steps:
            if step.player != CHANCE:
                # pig-regret: best_probability - (action_values[action] + 1) / 2
                best, values = exact_values(state_key(state.core))
                regret = (best + 1.0) / 2.0 - (values[step.action] + 1.0) / 2.0
                assert step.error == pytest.approx(max(0.0, regret), abs=1e-12)
                if not step.forced:
                    mine.setdefault(annotation.seats[step.player], []).append(step.error)
            state.apply_action(step.action)
    for row in decision_regrets(records[:40]):  # in SCALE x returns: twice a probability
        assert row.decisions == len(mine[row.agent])
        assert row.mean == pytest.approx(2 * SCALE * float(np.mean(mine[row.agent])), abs=1e-9)


@pytest.mark.parametrize(
    "game, reference",
    [
        ("python_pig(winscore=30)", None),
        ("python_einstein_wurfelt_nicht", "search(depth=1,heuristic=learned)"),
        ("python_cant_stop", "search(depth=1,heuristic=learned,samples=3)"),
    ],
)
def test_luck_is_the_corrections_term_and_the_sums_add_up(tmp_path, game, reference) -> None:
    records = _played(tmp_path, game, 1)
    found = reference_for(game, reference)
    for record in records:
        annotation = annotate_record(record, found)
        terms = chance_terms(
            load_game_cached(game), record["history"], found.value, record_key(record)
        )
        luck = [2.0 * s.luck for s in annotation.steps if s.player == CHANCE]
        assert luck == pytest.approx(terms, abs=1e-12)
        for p in annotation.players:  # with the residual, for any reference
            total = p.initial + p.luck - p.errors + p.opponent_errors + p.residual
            assert p.final == pytest.approx(total, abs=1e-9)
            assert p.final == (record["returns"][p.player] + 1.0) / 2.0
        decisions = [s for s in annotation.steps if s.player != CHANCE]
        assert all(s.error >= 0.0 and s.best_value >= s.played_value for s in decisions)
        assert all(s.flag == flag_of(s.error) for s in decisions)


def test_flags_by_threshold() -> None:
    assert [name for name, _ in THRESHOLDS] == ["blunder", "bad", "doubtful"]
    assert [flag_of(e) for e in (0.0, 0.019, 0.02, 0.05, 0.08, 0.5)] == [
        "",
        "",
        "doubtful",
        "bad",
        "blunder",
        "blunder",
    ]


def test_a_game_cut_by_a_forfeit_sums_to_its_last_position(tmp_path) -> None:
    record = read_records(PIG_LEAD)[0]
    record = {**record, "history": record["history"][:11]}  # decision, chance, ...: cut
    record["error"] = {"seat": 0, "spec": "x", "kind": "timeout", "message": "too slow"}
    annotation = annotate_record(record)
    assert not annotation.ended and annotation.error == "timeout: too slow"
    for p in annotation.players:
        total = p.initial + p.luck - p.errors + p.opponent_errors
        assert p.final == pytest.approx(total, abs=EXACT) and 0.0 < p.final < 1.0


def test_references_that_do_not_apply_are_errors() -> None:
    with pytest.raises(AnnotateError, match="needs python_pig or pig"):
        reference_for("python_cant_stop", "exact")
    with pytest.raises(AnnotateError, match="unknown value function"):
        reference_for("python_pig", "deep")
    with pytest.raises(AnnotateError, match="not loaded"):
        reference_for("no_such_game")
    assert reference_for("pig").name == "exact"
    assert reference_for("python_ra").name == "search(depth=2,heuristic=learned)"


def test_the_command_text_and_json(tmp_path, capsys) -> None:
    assert cli.main(["annotate", str(PIG_LEAD), "--line", "4"]) == 0
    text = capsys.readouterr().out
    assert "reference: exact: Pig's exact solver" in text
    assert text.count("luck-adjusted") == 2
    assert cli.main(["annotate", str(PIG_LEAD), "--line", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    record = read_records(PIG_LEAD)[3]
    assert data["reference"] == "exact" and len(data["steps"]) == len(record["history"])
    assert data["thresholds"] == dict(THRESHOLDS)
    chance = next(s for s in data["steps"] if s["player"] == CHANCE)
    assert chance["played_value"] is None and chance["error"] == 0.0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--line", "121"], "no game record on line 121 (its 120 records are on lines 1 to 120)"),
        (["--line", "1", "--reference", "exact(depth=2)"], "--reference:"),
        (["--html", "{tmp}/page.html"], "--html draws one game"),
        (["--line", "1", "--html", "{tmp}/page.txt"], "must name an .html file"),
        (["--line", "1", "--html", "{tmp}/taken.html"], "--html {tmp}/taken.html exists: a result"),
    ],
)
def test_bad_input_is_a_one_line_error_that_writes_nothing(tmp_path, capsys, argv, message):
    (tmp_path / "taken.html").write_text("mine")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    message = message.replace("{tmp}", str(tmp_path))
    assert cli.main(["annotate", str(PIG_LEAD), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.html"]
    assert (tmp_path / "taken.html").read_text() == "mine"


def test_a_file_that_is_not_records_is_an_error(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    assert cli.main(["annotate", str(bad)]) == 2
    assert "line 1 is not valid JSON" in capsys.readouterr().err
    longer = tmp_path / "longer.jsonl"
    record = read_records(PIG_LEAD)[0]
    longer.write_text(json.dumps({**record, "history": [*record["history"], 0]}) + "\n")
    assert cli.main(["annotate", str(longer)]) == 2
    assert "history goes on after the end of the game" in capsys.readouterr().err


def test_the_solvers_kept_solution_is_the_same_and_a_damaged_one_is_solved_again(tmp_path):
    fresh = pig_solver.solve_pig(dice=1, winscore=40)
    kept = pig_solver.solve_pig(dice=1, winscore=40, cache_dir=str(tmp_path))
    (path,) = tmp_path.iterdir()
    pig_solver.solve_pig.cache_clear()  # the next call reads the file
    read = pig_solver.solve_pig(dice=1, winscore=40, cache_dir=str(tmp_path))
    for solution in (kept, read):
        assert np.array_equal(solution.win, fresh.win) and np.array_equal(solution.roll, fresh.roll)
        assert solution.iterations == fresh.iterations
    path.write_bytes(b"not a numpy file")
    pig_solver.solve_pig.cache_clear()
    again = pig_solver.solve_pig(dice=1, winscore=40, cache_dir=str(tmp_path))
    assert np.array_equal(again.win, fresh.win)
    with np.load(path) as replaced:
        assert replaced["start"].shape == (40, 40)
    pig_solver.solve_pig.cache_clear()
