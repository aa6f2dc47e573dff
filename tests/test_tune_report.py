"""Tuning by elimination, tournaments, reports and plots."""

from __future__ import annotations

import json
import math

import pytest

from chancespiel.evaluation import cli, plot
from chancespiel.evaluation.luck import luck_summary
from chancespiel.evaluation.match import game_key, read_records
from chancespiel.evaluation.plot import plot_pairs
from chancespiel.evaluation.report import PairSummary, format_pair, pair_summaries
from chancespiel.evaluation.tune import candidate_specs, eliminate, parse_param

GAME = "python_pig(winscore=20)"


def test_parse_param_and_candidates():
    assert parse_param("samples=5, 10,20") == ("samples", ["5", "10", "20"])
    specs = candidate_specs(
        "star2ss(time_ms=50)", [("samples", ["5", "10"]), ("max_depth", ["2", "3"])]
    )
    assert specs == [
        "star2ss(time_ms=50,samples=5,max_depth=2)",
        "star2ss(time_ms=50,samples=5,max_depth=3)",
        "star2ss(time_ms=50,samples=10,max_depth=2)",
        "star2ss(time_ms=50,samples=10,max_depth=3)",
    ]
    assert candidate_specs("hold", [("n", ["5", "10"])]) == ["hold(n=5)", "hold(n=10)"]
    for bad in ("n", "n=", "=1,2", "n=1,,2", "n=1,1"):
        with pytest.raises(ValueError):
            parse_param(bad)
    with pytest.raises(ValueError, match="given twice"):
        candidate_specs("hold", [("n", ["1"]), ("n", ["2"])])


def _fake_round(strength: dict[str, float], log: list):
    """play_round for `eliminate`: A wins round(100 * p) of 100 games, p from the strengths."""

    def play_round(pairs):
        log.append(pairs)
        records = []
        for a, b in pairs:
            p = strength[a] / (strength[a] + strength[b])
            for game in range(100):
                won = game < round(100 * p)
                returns = [1.0, -1.0] if won == (game % 2 == 0) else [-1.0, 1.0]
                records.append(
                    {"game": "g", "a": a, "b": b, "seed": 0, "match": game // 2}
                    | {"game_index": game % 2}
                    | {"returns": returns}
                )
        return records

    return play_round


def test_elimination_bracket_winners_advance_and_byes():
    strength = {"c1": 1.0, "c2": 3.0, "c3": 2.0, "c4": 1.5, "c5": 2.5}
    log: list = []
    result = eliminate(list(strength), _fake_round(strength, log))
    # round 1: c1-c2 and c3-c4, c5 waits; round 2: the winners, c5 waits again; final
    assert log == [[("c1", "c2"), ("c3", "c4")], [("c2", "c3")], [("c2", "c5")]]
    assert [[bout.winner for bout in r] for r in result.rounds] == [["c2", "c3"], ["c2"], ["c2"]]
    assert result.byes == ["c5", "c5", None]
    assert result.champion == "c2"
    assert result.rounds[0][0].summary.rate == 0.25


def test_elimination_ties_advance_the_earlier_candidate():
    strength = {"x": 1.0, "y": 1.0}
    result = eliminate(["x", "y"], _fake_round(strength, []))
    assert result.rounds[0][0].summary.rate == 0.5 and result.champion == "x"


def test_cli_tune_prints_the_champion_and_resumes(tmp_path, capsys):
    out = tmp_path / "tune.jsonl"
    args = ["tune", GAME, "hold", "--param", "n=2,20,5", "--matches", "30", "--out", str(out)]
    assert cli.main([*args, "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "round 1: 1 pairing(s)" in text and "hold(n=5): bye" in text
    assert "round 2: 1 pairing(s)" in text
    assert text.strip().splitlines()[-1] == "champion: n=20  (hold(n=20))"
    assert len(read_records(out)) == 2 * 2 * 30
    assert cli.main([*args, "--no-progress"]) == 0
    again = capsys.readouterr().out
    assert again.count("nothing to play") == 2 and again.endswith("(hold(n=20))\n")


def test_tournament_table_ratings_and_report(tmp_path, capsys):
    out = tmp_path / "rr.jsonl"
    specs = ["hold(n=20)", "hold(n=5)", "random"]
    args = ["tournament", GAME, *specs, "--matches", "40", "--out", str(out), "--no-progress"]
    assert cli.main(args) == 0
    text = capsys.readouterr().out
    assert "round robin of 3 agents" in text and "relative to hold(n=20)" in text
    assert len(read_records(out)) == 3 * 2 * 40
    assert cli.main(["report", str(out), "--json"]) == 0
    (summary,) = json.loads(capsys.readouterr().out)["games"]
    pairs = {(p["a"], p["b"]): p for p in summary["pairs"]}
    assert set(pairs) == {(specs[0], specs[1]), (specs[0], specs[2]), (specs[1], specs[2])}
    for p in pairs.values():
        assert p["games"] == 80 and p["score"] == p["wins"] + p["draws"] / 2
        assert p["wilson95"][0] <= p["rate"] <= p["wilson95"][1]
    elo = summary["ratings"]["elo"]
    assert elo[specs[0]] == {"elo": 0.0, "se": 0.0}  # the anchor
    assert elo["random"]["elo"] < elo[specs[0]]["elo"]
    # the ratings follow the table: the better score against the anchor, the higher rating
    by_rate = sorted(specs[1:], key=lambda s: -pairs[(specs[0], s)]["rate"])
    assert sorted(specs[1:], key=lambda s: elo[s]["elo"]) == by_rate
    assert cli.main(["report", str(out)]) == 0
    report = capsys.readouterr().out
    assert "score rate of the row agent against the column agent" in report
    assert "Elo (Bradley-Terry" in report and "per-move time" in report


def test_report_counts_a_game_read_twice_once(tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    args = ["match", GAME, "hold(n=20)", "random", "--matches", "5", "--out", str(out)]
    assert cli.main([*args, "--no-progress"]) == 0
    capsys.readouterr()
    assert cli.main(["report", str(out), str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert "10 game(s) appear more than once" in captured.err
    assert json.loads(captured.out)["games"][0]["pairs"][0]["games"] == 10


def test_report_and_plot_refuse_missing_or_empty_files(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli.main(["plot", str(empty), "--out", str(tmp_path / "x.png")]) == 2
    assert "no game records" in capsys.readouterr().err


def test_plot_writes_a_png_with_one_panel_per_game(tmp_path, capsys):
    files = []
    for game in (GAME, "python_pig(winscore=15)"):
        out = tmp_path / f"{len(files)}.jsonl"
        args = ["tournament", game, "hold(n=20)", "hold(n=5)", "random", "--matches", "10"]
        assert cli.main([*args, "--out", str(out), "--no-progress"]) == 0
        files.append(str(out))
    png = tmp_path / "fig.png"
    assert cli.main(["plot", *files, "--out", str(png), "--title", "Pig"]) == 0
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    width = int.from_bytes(data[16:20], "big")
    records = read_records(files[0]) + read_records(files[1])
    assert len(pair_summaries(records)) == 6
    assert width > 800  # two panels of three bars
    with pytest.raises(ValueError, match="no scored games"):
        plot_pairs([], tmp_path / "none.png")
    # with --luck each bar gets its pair's corrected rate, as luck_summary computes it
    lucky = tmp_path / "luck.png"
    assert cli.main(["plot", *files, "--out", str(lucky), "--luck", "--value", "lookahead"]) == 0
    assert lucky.read_bytes().startswith(b"\x89PNG") and lucky.read_bytes() != data
    corrected = plot._corrected(records, "lookahead")
    assert len(corrected) == 6
    first = [r for r in records if (r["a"], r["b"]) == (records[0]["a"], records[0]["b"])]
    first = [r for r in first if r["game"] == records[0]["game"]]
    assert corrected[game_key(records[0]).pair] == luck_summary(first, "lookahead").corrected
    capsys.readouterr()
    assert cli.main(["plot", *files, "--out", str(tmp_path / "v.png"), "--value", "exact"]) == 2
    assert "--value needs --luck" in capsys.readouterr().err
    assert cli.main(["plot", *files, "--out", str(tmp_path / "w.png"), "--luck", "--value",
                     "nope"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "--luck: unknown value function 'nope'" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "v.png").exists() and not (tmp_path / "w.png").exists()


def test_elimination_reports_undecided_steps():
    strength = {"x": 1.0, "y": 1.05, "z": 10.0}
    result = eliminate(list(strength), _fake_round(strength, []))
    first, final = result.rounds[0][0], result.rounds[1][0]
    assert not first.decided and first.verdict.low < 0.5 < first.verdict.high
    assert final.decided and final.winner == "z"
    assert not result.decided and result.undecided == [first]
    assert result.champion == "z"  # provisional


def test_cli_tune_with_sprt_and_luck_names_undecided_steps(tmp_path, capsys):
    out = tmp_path / "tune.jsonl"
    args = ["tune", GAME, "hold", "--param", "n=2,20,21", "--matches", "40", "--out", str(out)]
    assert cli.main([*args, "--sprt=-40,40", "--luck", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "luck-corrected (exact); SPRT H0 after" in text  # n=2 loses to n=20 quickly
    assert "NOT SIGNIFICANT" in text  # n=20 and n=21 are too close for 40 matches
    assert text.strip().splitlines()[-1].startswith("no champion: 1 step(s) not significant")
    with pytest.raises(SystemExit):
        cli.main(["tune", GAME, "hold", "--param", "n=2,3", "--value", "exact"])


def test_report_out_writes_json_csv_and_plots(tmp_path, capsys):
    """pairs.csv and agents.csv hold report --json's numbers; score.png and elo.png exist."""
    import csv

    from chancespiel.evaluation import cli

    records = tmp_path / "t.jsonl"
    argv = ["tournament", "python_pig(winscore=20)", "hold(n=5)", "hold(n=10)", "random"]
    assert (
        cli.main(
            [*argv, "--matches", "6", "--workers", "1", "--no-progress", "--out", str(records)]
        )
        == 0
    )
    out = tmp_path / "report"
    assert cli.main(["report", str(records), "--luck", "--out", str(out)]) == 0
    pages = [f"pair-{n}{suffix}" for n in (1, 2, 3) for suffix in (".png", "-game-1.html",
             "-game-2.html")]  # fmt: skip
    assert sorted(p.name for p in out.iterdir()) == sorted([  # .chancespiel: the files it wrote
        ".chancespiel", "agents.csv", "elo.png", "index.html", "pairs.csv", "report.json",
        "score.png", *pages,
    ])  # fmt: skip
    summary = json.loads((out / "report.json").read_text())
    assert summary["made"]["command"].startswith("chancespiel report ")
    assert {"chancespiel", "engine", "date"} <= set(summary["made"])
    # a report is a result: a second one into the same directory is refused, nothing changed
    before = (out / "report.json").read_bytes()
    assert cli.main(["report", str(records), "--out", str(out)]) == 2
    assert (out / "report.json").read_bytes() == before
    with open(out / "pairs.csv") as f:
        pairs = list(csv.DictReader(f))
    assert len(pairs) == 3 and {p["a"] for p in pairs} <= {"hold(n=5)", "hold(n=10)"}
    assert [float(p["rate"]) for p in pairs] == [p["rate"] for p in summary["games"][0]["pairs"]]
    assert all(0.0 <= x <= 1.0 for p in pairs for x in json.loads(p["luck.ci95"]))
    with open(out / "agents.csv") as f:
        assert len(list(csv.DictReader(f))) == 3
    (tmp_path / "file").write_text("x")
    assert cli.main(["report", str(records), "--out", str(tmp_path / "file")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_report_luck_out_replays_each_game_once(tmp_path, capsys, monkeypatch):
    """The text, report.json and score.png share one correction per record: a lookahead
    value replays a long game for seconds, and three passes tripled a report's time."""
    from chancespiel.evaluation import cli, luck

    records = tmp_path / "t.jsonl"
    argv = ["match", "python_pig(winscore=20)", "hold(n=5)", "hold(n=10)", "--matches", "4"]
    assert cli.main([*argv, "--workers", "1", "--no-progress", "--out", str(records)]) == 0
    computed = luck.record_correction
    calls = []

    def counted(record, value):
        calls.append((record["match"], record["game_index"]))
        return computed(record, value)

    monkeypatch.setattr(luck, "record_correction", counted)
    assert cli.main(["report", str(records), "--luck", "--out", str(tmp_path / "r")]) == 0
    assert sorted(calls) == sorted(set(calls)) and len(calls) == 8
    assert (tmp_path / "r" / "score.png").stat().st_size > 0


def test_plot_makes_the_folders_of_its_out_as_annotate_and_analyse_do(tmp_path, capsys):
    """A new folder for the figure is made, not found missing after the plot is drawn."""
    records = tmp_path / "r.jsonl"
    argv = ["match", GAME, "hold(n=20)", "random", "--matches", "2", "--no-progress"]
    assert cli.main([*argv, "--out", str(records)]) == 0
    png = tmp_path / "figures" / "new" / "fig.png"
    assert cli.main(["plot", str(records), "--out", str(png)]) == 0, capsys.readouterr().err
    assert png.read_bytes().startswith(b"\x89PNG")


def test_report_json_is_strict_json_where_a_pair_has_no_scored_game(tmp_path, capsys):
    """The rate of no games is NaN: --json and report.json write it as null, not NaN."""
    records = tmp_path / "r.jsonl"
    argv = ["match", GAME, "hold(n=20)", "random", "--matches", "1", "--no-progress"]
    assert cli.main([*argv, "--out", str(records)]) == 0
    lost = [json.loads(line) for line in records.read_text().splitlines()]
    for record in lost:  # both games lost with their worker: none scored
        record.update(returns=None, history=[], error={"kind": "Crash", "message": "died"})
    records.write_text("".join(json.dumps(r) + "\n" for r in lost))
    capsys.readouterr()
    assert cli.main(["report", str(records), "--json", "--out", str(tmp_path / "rep")]) == 0

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    for text in (capsys.readouterr().out, (tmp_path / "rep" / "report.json").read_text()):
        (pair,) = json.loads(text, parse_constant=refuse)["games"][0]["pairs"]
        assert pair["games"] == 0 and pair["rate"] is None


@pytest.mark.parametrize("points", [0, 2, 4])  # every match lost, drawn or won
def test_matches_that_all_scored_alike_get_no_interval_of_no_width(points):
    """A normal interval of matches without spread has no width: 50.0% to 50.0% from two
    drawn matches would claim certainty. The report says they scored alike instead."""
    counts = [0] * 5
    counts[points] = 2
    games = {0: (0, 0, 4), 2: (0, 4, 0), 4: (4, 0, 0)}[points]
    wins, draws, losses = games
    summary = PairSummary(GAME, "a", "b", 4, wins, draws, losses, matches=2, pentanomial=counts)
    low, high = summary.pentanomial_interval
    assert math.isnan(low) and math.isnan(high)
    text = format_pair(summary)
    assert "(pentanomial)" not in text
    assert f"all 2 whole matches scored {100 * points / 4:.1f}% alike" in text
    counts[points - 1 if points else 1] += 1  # a third match that differs: an interval
    summary = PairSummary(GAME, "a", "b", 6, wins, draws, losses, matches=3, pentanomial=counts)
    assert "from 3 whole matches (pentanomial)" in format_pair(summary)
