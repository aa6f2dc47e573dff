"""Bad input, table by table: a one-line error naming the input, the right exit status, no
traceback, and nothing written or changed."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chancespiel.evaluation import cli

RECORDS = Path(__file__).parent.parent / "lab" / "results" / "figure2" / "pig_lead" / "pig.jsonl.gz"
PIG = "python_pig"

# (command line, exit status, a fragment the one-line message must contain)
CASES = [
    # games and agents that do not exist or do not fit
    (["play", "python_pgi", "random", "random"], 2, "did you mean python_pig"),
    (["play", "python_pig(dcie=2)", "random", "random"], 2, "unknown parameter(s) dcie"),
    (["play", "python_pig(dice=7)", "random", "random"], 2, "dice must be in"),
    (["play", "goofspiel", "random", "random"], 2, "simultaneous moves"),
    (["play", "pig(players=3)", "random", "random"], 2, "3 players (needs 2)"),
    (["play", "catch", "random", "random"], 2, "1 player (needs 2)"),
    (["match", "goofspiel", "random", "random", "--matches", "1"], 2, "simultaneous moves"),
    (["play", PIG, "stra2", "random"], 2, "did you mean star2"),
    (["play", PIG, "star2(", "random"], 2, "malformed agent spec"),
    (["play", PIG, "hold(m=3)", "random"], 2, "unknown parameter(s) ['m']"),
    (["play", PIG, "rule_of_28", "random"], 2, "plays only python_cant_stop"),
    # agent parameters out of range or not numbers
    (["play", PIG, "star2(time_ms=nan)", "random"], 2, "time_ms"),
    (["play", PIG, "star2(time_ms=inf)", "random"], 2, "time_ms"),
    (["play", PIG, "star2(time_ms=1e400)", "random"], 2, "time_ms"),
    (["play", PIG, "star2(max_depth=-1)", "random"], 2, "max_depth must be in [1, "),
    (["play", PIG, "star2(samples=0)", "random"], 2, "samples must be in [1, "),
    (["play", PIG, "star2(prune_min_depth=-3)", "random"], 2, "prune_min_depth must be in [0, "),
    (["play", PIG, "mcts(max_simulations=0)", "random"], 2, "max_simulations must be in [1, "),
    (["play", PIG, "dpw(pw_alpha=nan)", "random"], 2, "pw_alpha"),
    (["play", PIG, "hold(n=-5)", "random"], 2, "n must be in [1, "),
    (["play", PIG, "greedy(heuristic=foo)", "random"], 2, "no heuristic 'foo'"),
    (["play", PIG, "openspiel_mcts(uct_c=nan)", "random"], 2, "uct_c"),
    (["play", PIG, "openspiel_mcts_cpp(max_memory_mb=0)", "random"], 2, "max_memory_mb"),
    # run options
    (["match", PIG, "random", "random", "--matches", "0"], 2, "--matches"),
    (
        ["match", PIG, "random", "random", "--matches", "1", "--move-timeout-s", "inf"],
        2,
        "--move-timeout-s: must be at most 86400",
    ),
    (
        ["match", PIG, "random", "random", "--matches", "1", "--move-timeout-s", "nan"],
        2,
        "--move-timeout-s: must be in [0, 86400]",
    ),
    (
        ["match", PIG, "random", "random", "--matches", "1", "--move-timeout-s", "1e12"],
        2,
        "--move-timeout-s: must be at most 86400",
    ),
    (
        ["match", PIG, "random", "random", "--matches", "1", "--overrun-ms", "nan"],
        2,
        "--overrun-ms: must be in [0, 3600000]",
    ),
    (
        ["match", PIG, "random", "random", "--matches", "1", "--overrun-ms", "-1"],
        2,
        "--overrun-ms: must be >= 0",
    ),
    (["match", PIG, "random", "random", "--matches", "1", "--out", ""], 2, "--out must name"),
    (
        ["match", PIG, "random", "random", "--matches", "1", "--out", "/dev/full"],
        2,
        "/dev/full is not a regular file",
    ),
    (["match", PIG, "random", "random", "--matches", "1", "--out", "."], 2, "Is a directory"),
    (["match", PIG, "random", "random", "--matches", "1", "--sprt", "0,5,2,0.05"], 2, "--sprt"),
    (["match", PIG, "human", "random", "--matches", "1"], 2, "human seat plays only"),
    (["tournament", PIG, "random", "random", "--matches", "1"], 2, "two distinct"),
    (["tune", PIG, "hold", "--param", "n=5", "--matches", "1"], 2, "two candidates"),
    # reading and plotting records
    (["report", "no/such/file.jsonl"], 2, "cannot read no/such/file.jsonl"),
    (
        [
            "match",
            "python_pig",
            "random",
            "random",
            "--matches",
            "1",
            "--out",
            "no/such/dir/x.jsonl",
        ],
        2,
        "cannot open no/such/dir/x.jsonl: No such file or directory",
    ),
    (["plot", str(RECORDS), "--out", "."], 2, "must name a .png file"),
    (["plot", str(RECORDS), "--out", "figure.txt"], 2, "must name a .png file"),
    # experiments, checked before any position is searched
    (["experiment", "pig-estimators", "--time-ms", "0"], 2, "--time-ms: must be > 0"),
    (["experiment", "pig-estimators", "--states", "0"], 2, "--states: must be >= 1"),
    (["experiment", "pig-estimators", "--heuristic", "foo"], 2, "no heuristic 'foo'"),
    (["experiment", "pig-estimators", "--estimators", "exp,nope"], 2, "unknown estimator"),
    (["experiment", "pig-estimators", "--summarise-only"], 2, "--summarise-only needs --out"),
    (["experiment", "figure2", "--matches", "1", "--games", "chess"], 2, "--games: unknown"),
    (["experiment", "figure2", "--matches", "1", "--time-ms", "nan"], 2, "--time-ms"),
    (["experiment", "figure2", "--matches", "1", "--pairings", "X-Y"], 2, "--pairings: unknown"),
    (["experiment", "figure2", "--matches", "9", "--ordered-dice"], 2, "ewn has no dice encoding"),
    (["experiment", "figure2", "--matches", "9", "--sequential", "--batch", "0"], 2, "--batch"),
    (
        ["experiment", "figure2", "--matches", "9", "--sequential", "--target-points", "60"],
        2,
        "target half-width must be in (0, 0.5)",
    ),
    (["experiment", "figure2", "--matches", "9", "--max-minutes", "inf"], 2, "--max-minutes"),
    (["experiment", "figure2", "--matches", "9", "--clock", "gpu"], 2, "--clock: invalid choice"),
    (["experiment", "figure2", "--matches", "9", "--summarise-only"], 2, "needs --out"),
    (["experiment", "figure2", "--matches", "9", "--max-nodes", "0"], 2, "--max-nodes: must be"),
    (["experiment", "figure2", "--matches", "9", "--max-nodes", "9"], 2, "Star1SS-MCTS would mix"),
    (["experiment", "node-counts", "--game", "python_pig", "--depths", "0"], 2, "--depths"),
    (["experiment", "node-counts", "--game", "nope", "--depths", "1"], 2, "unknown game"),
    (["experiment", "search-depth", "--records", ".", "--time-ms", "0"], 2, "--time-ms"),
    (["experiment", "bab-nodes", "--trees", "0"], 2, "--trees: must be >= 1"),
    (["experiment", "bab-nodes", "--epsilons", "a,b"], 2, "--epsilons"),
    (["experiment", "uct-convergence", "--studies", "nope"], 2, "--studies: unknown"),
    (["experiment", "uct-convergence", "--pgame-trees", "0"], 2, "--pgame-trees: must be >= 1"),
    (["experiment", "uct-convergence", "--uct-c", "nan"], 2, "--uct-c"),
    # strict parsing: repeated keys and trailing text would silently change a parameter
    (["play", "python_pig(dice=2,dice=1)", "random", "random"], 2, "'dice' given twice"),
    (["play", "python_pig()x", "random", "random"], 2, "after the closing parenthesis"),
    (["play", PIG, "hold(n=20,n=25)", "random"], 2, "'n' given twice"),
    (["play", PIG, "star2(max_depth=2)x", "random"], 2, "after the closing parenthesis"),
    (["play", PIG, "hold(n=20,)", "random"], 2, "expected key=value"),
    (["analyse", PIG, "--history", "5", "--agent", "star2"], 2, "item 1 (5) is not legal"),
    (["analyse", PIG, "--history", "0 99", "--agent", "star2"], 2, "item 2 (99) is not legal"),
    (["analyse", PIG, "--history", "0 -1", "--agent", "star2"], 2, "item 2 (-1) is not legal"),
    # analyse: the reason a game cannot be searched, not where its first node is chance
    (["analyse", "catch"], 2, "catch: 1 player (needs 2); general_sum utility (needs zero-sum)"),
    (["analyse", "2048", "--agent", "random"], 2, "1 player (needs 2)"),
    (["analyse", "kuhn_poker"], 2, "imperfect information (needs perfect information): analyse"),
    (["analyse", "goofspiel"], 2, "simultaneous moves (needs sequential): analyse"),
    (["analyse", "pig(players=3)"], 2, "3 players (needs 2): analyse"),
    (["analyse", "matrix_rps"], 2, "simultaneous moves"),
    (["analyse", "coop_box_pushing"], 2, "identical utility (needs zero-sum)"),
    (["analyse", PIG, "--history", "0"], 2, "after the history is a chance node"),
    (["analyse", PIG, "--agent", "hold"], 2, "'hold' has no search to show (it plays without"),
    (["analyse", PIG, "--agent", "openspiel_mcts"], 2, "OpenSpiel's MCTS does not report its"),
    (["tournament", PIG, "hold", "hold(n=20)", "--matches", "1"], 2, "are the same agent"),
    # seeds: random.Random(-n) draws what random.Random(n) draws
    (["match", PIG, "random", "random", "--matches", "1", "--seed", "-5"], 2, "--seed: must"),
    (["play", PIG, "random", "random", "--seed", "-1"], 2, "--seed: must be >= 0"),
    (["demo", "--seed", "-1"], 2, "--seed: must be >= 0"),
    (["demo", "--matches", "0"], 2, "--matches: must be >= 1"),
    (["experiment", "node-counts", "--game", PIG, "--seed", "-1"], 2, "--seed: must be >= 0"),
    # experiments given games or bounds they cannot run
    (["experiment", "node-counts", "--game", "kuhn_poker"], 2, "imperfect information"),
    (["experiment", "bab-nodes", "--game", PIG], 2, "no seed parameter"),
    (["experiment", "bab-nodes", "--gammas", "1.5"], 2, "--gammas: each item must be at most 1"),
    (["experiment", "bab-nodes", "--gammas", "1"], 2, "gamma must be in [0, 1)"),
    (["experiment", "bab-nodes", "--epsilons", "-1"], 2, "--epsilons: each item must be >= 0"),
    # solving, and parameters that would allocate without bound
    (["solve", "pig", "--dice", "3"], 2, "dice"),
    (["solve", "pig", "--winscore", "500"], 2, "needs about 2.8 GiB"),
    (["solve", "pig", "--sides", "100"], 2, "--sides: must be at most 20"),
    (["play", "python_pig(diceoutcomes=100000)", "random", "random"], 2, "must be in [2, 20]"),
    (["play", "python_pig(winscore=10000000)", "random", "random"], 2, "must be in [1, 1000]"),
    (["play", "python_cant_stop(horizon=10000000)", "random", "random"], 2, "[1, 100000]"),
]


@pytest.mark.parametrize(("argv", "status", "fragment"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_line_and_writes_nothing(
    argv, status, fragment, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    records = tmp_path / "records.jsonl"
    records.write_bytes(gzip.decompress(RECORDS.read_bytes()))  # a plain record file
    before = records.read_bytes()
    try:
        code = cli.main([a.replace(str(RECORDS), str(records)) for a in argv])
    except SystemExit as e:  # argparse's own usage errors
        code = e.code
    out, err = capsys.readouterr()
    assert code == status, err
    assert fragment in err, err
    assert "Traceback" not in err
    assert out == "", out  # refused before anything is announced
    assert len(err.strip().splitlines()) == 1 and err.startswith("chancespiel"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.jsonl"]  # nothing written
    assert records.read_bytes() == before  # existing records untouched


# Each command that makes a result, pointed at a result already there: refused before any work.
EXISTING = [
    (["experiment", "search-depth", "--records", str(RECORDS.parent), "--out", "old.md"], "old.md"),
    (["experiment", "node-counts", "--game", PIG, "--depths", "1", "--out", "old.md"], "old.md"),
    (["experiment", "pig-estimators", "--regret-of", str(RECORDS), "--out", "old.md"], "old.md"),
    (["experiment", "luck-values", str(RECORDS), "--out", "old"], "old/table.md"),
    (["experiment", "bab-nodes", "--trees", "1", "--out", "old"], "old/table.md"),
    (["report", str(RECORDS), "--out", "old"], "old/report.json"),
    (["plot", str(RECORDS), "--out", "old.png"], "old.png"),
]


@pytest.mark.parametrize(("argv", "result"), EXISTING, ids=[" ".join(c[0][:2]) for c in EXISTING])
def test_a_result_is_not_written_over(argv, result, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / result).parent.mkdir(exist_ok=True)
    (tmp_path / result).write_text("a committed result\n")
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "not written over" in err or "holds a report already" in err, err
    assert (tmp_path / result).read_text() == "a committed result\n"
    assert len(list(tmp_path.rglob("*"))) == (2 if "/" in result else 1)  # nothing else written


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "pig", "--winscore", "1000"],
        ["play", "python_pig(diceoutcomes=100000)", "random", "random"],
    ],
)
def test_oversized_parameters_are_refused_under_a_memory_limit(argv):
    """Refused before allocating: the command runs in 2 GiB of address space."""
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); "
        "from chancespiel.evaluation.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("chancespiel: error:") and "Traceback" not in done.stderr


def _record_lines() -> list[str]:
    return gzip.decompress(RECORDS.read_bytes()).decode().splitlines(keepends=True)[:4]


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("match", -3, "match must be an integer >= 0"),
        ("match", 1.5, "match must be an integer >= 0"),
        ("game_index", 2, "game_index must be 0 or 1"),
        ("returns", [float("nan"), 1.0], "outside the game's utilities"),
        ("returns", [5.0, -5.0], "outside the game's utilities"),
        ("returns", [1.0], "list of two numbers"),
        ("game", "python_pig(dice=9)", "does not load"),
        ("game", "python_pig(", "does not parse"),
        ("a", "star2(", "does not parse"),
        ("b", "", "must be an agent spec"),
        ("seed", "7", "seed must be an integer"),
        ("seats", ["random", "random"], "are not the record's agents"),
    ],
)
def test_a_record_that_cannot_be_right_is_refused_naming_file_and_line(
    field, value, fragment, tmp_path, capsys
):
    lines = _record_lines()
    record = json.loads(lines[2])
    record[field] = value
    lines[2] = json.dumps(record) + "\n"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines))
    for command in (["report", str(path)], ["plot", str(path), "--out", str(tmp_path / "p.png")]):
        assert cli.main(command) == 2
        err = capsys.readouterr().err
        assert f"{path}: line 3: " in err and fragment in err, err
        assert len([line for line in err.splitlines() if "chancespiel" in line]) == 1, err
    assert not (tmp_path / "p.png").exists()


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.update(returns=[-x for x in r["returns"]]), "are not the history's"),
        (lambda r: r["history"].append(0), "after the end of the game"),
        (lambda r: r["history"].pop(), "ends before the game does"),
        (lambda r: r["history"].__setitem__(0, 99), "history move 1 (99) is not legal"),
        (lambda r: r["history"].__setitem__(0, "x"), "list of action ids"),
        (lambda r: r["move_ms"][0].__setitem__(0, -1.0), "finite and >= 0"),
        (lambda r: r["move_ms"][1].__setitem__(0, float("nan")), "finite and >= 0"),
        (lambda r: r.update(move_ms=[[1.0]]), "two lists of move times"),
    ],
)
def test_a_record_that_contradicts_itself_is_refused_naming_its_line(
    tmp_path, capsys, change, message
):
    """Reports count what records say, so a record the game cannot have produced is refused."""
    lines = _record_lines()
    record = json.loads(lines[0])
    change(record)
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines[1:3]) + json.dumps(record) + "\n")
    assert cli.main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and message in err and len(err.strip().splitlines()) == 1, err


def test_a_write_failure_stops_the_run_keeps_its_games_and_the_rerun_resumes(tmp_path):
    """A file size limit stands in for a full disk: the write fails part-way through a run."""
    out = tmp_path / "full.jsonl"
    argv = ["match", PIG, "random", "random", "--matches", "40", "--out", str(out)]
    argv += ["--workers", "2", "--no-progress"]
    limited = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000)); "
        "from chancespiel.evaluation.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run([sys.executable, "-c", limited, *argv], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "cannot write" in done.stderr and "Traceback" not in done.stderr
    kept = out.read_bytes()
    assert 0 < kept.count(b"\n") < 80
    again = subprocess.run([sys.executable, "-m", "chancespiel", *argv], capture_output=True)
    assert again.returncode == 0, again.stderr
    assert len(out.read_text().splitlines()) == 80


@pytest.mark.parametrize("path", ["/dev/zero", "fifo", "big.jsonl", "."])
def test_record_and_regression_files_are_read_within_bounds(path, tmp_path, monkeypatch, capsys):
    """A device, a FIFO, a directory or a file with a 65 MiB line: a one-line error at once,
    without reading it all (the FIFO has no writer: an unguarded open would block forever)."""
    monkeypatch.chdir(tmp_path)
    os.mkfifo("fifo")
    with open("big.jsonl", "wb") as f:
        f.write(b'{"v":2,' + b"x" * (65 << 20) + b"\n")
    for argv in (["report", path], ["play", PIG, f"star2cpc(regression={path})", "random"]):
        if path == "." and argv[0] == "play":
            continue  # '.' is no value OpenSpiel parses (refused as a malformed spec)
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err
        assert any(
            words in err
            for words in ("not a regular file", "longer than 64 MiB", "Is a directory", "larger")
        ), err


def test_an_error_without_a_seat_is_reported_as_the_reader_accepts_it(tmp_path, capsys):
    """The reader takes an error of just kind and message (seat and spec may be left out):
    the report counts it as no seat's failure."""
    lines = _record_lines()
    record = json.loads(lines[0])
    record["error"] = {"kind": "Crash", "message": "the worker died"}
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(record) + "\n" + "".join(lines[1:]))
    for argv in (["report", str(path)], ["report", str(path), "--json"]):
        assert cli.main(argv) == 0
        out, err = capsys.readouterr()
        assert "Traceback" not in err and ("4 games" in out or '"records": 4' in out), err
