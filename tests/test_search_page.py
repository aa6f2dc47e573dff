"""`analyse --html`: the search of one position as a page (evaluation.search_page), and
`report --out`'s index.html (evaluation.report_index). Their browser tests are in
tests/test_page_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chancespiel.evaluation import cli

RECORDS = Path(__file__).parent.parent / "lab" / "results" / "figure2" / "pig_lead" / "pig.jsonl.gz"
PIG = ["analyse", "python_pig", "--history", "0 7 0 12"]


def status(argv: list[str]) -> int:
    """The exit status of `chancespiel ARGV` (argparse's own errors exit)."""
    try:
        return cli.main(argv)
    except SystemExit as e:
        return int(e.code or 0)


def analyse_page(tmp_path: Path, *argv: str) -> str:
    path = tmp_path / "search.html"
    assert cli.main([*PIG, *argv, "--html", str(path)]) == 0
    return path.read_text()


def test_a_star2_search_is_drawn_with_its_probes_cuts_and_iterations(tmp_path, capsys):
    html = analyse_page(tmp_path, "--agent", "star2(max_depth=3)")
    printed = capsys.readouterr()
    assert "roll (0), value +0.1280" in printed.out  # the analysis as without --html
    assert printed.err.strip() == f"wrote {tmp_path / 'search.html'}"
    for depth in (1, 2, 3):
        assert f"search to depth {depth}," in html
    assert "probe: first action only" in html and ">probed, searched<" in html
    assert ">pruned<" in html and "cut while searching: fail low" in html
    assert "pruned (not searched): " in html  # a decision node's cut-off actions
    assert "\u2264 +0.1155" in html  # stop's value, a bound as the text output says
    assert "Drawn: 4 levels below the root" in html and "the 6 children" in html
    assert "<svg" in html and "Pig to 100" in html  # the position's board
    assert " src=" not in html and "href=" not in html  # nothing to fetch


def test_the_limits_are_options_and_bound_the_page(tmp_path):
    big = analyse_page(tmp_path, "--agent", "star2(max_depth=3)")
    (tmp_path / "search.html").unlink()
    small = analyse_page(
        tmp_path, "--agent", "star2(max_depth=3)", "--tree-levels", "2", "--tree-children", "1"
    )
    assert "Drawn: 2 levels below the root" in small and "the 1 children" in small
    assert small.count("<li") < big.count("<li") / 5
    assert "more children not drawn" in small


def test_sampled_and_mcts_searches_are_drawn(tmp_path):
    sampled = analyse_page(tmp_path, "--agent", "star2ss(max_depth=2,samples=3)")
    assert "sampled search to depth 2" in sampled
    assert re.search(r"sampled: \d distinct outcomes of 21, 3 draws", sampled)
    path = tmp_path / "mcts.html"
    argv = [*PIG, "--agent", "mcts(max_simulations=300)", "--html", str(path)]
    assert cli.main(argv) == 0
    html = path.read_text()
    assert "The tree: 300 simulations" in html and "300 visits" in html
    assert re.search(r"sampled \d+ of 21 outcomes", html)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--tree-levels", "3"], "--tree-levels limits the tree of --html: give --html FILE too"),
        (["--html", "{tmp}/x.txt"], "--html must name an .html file"),
        (["--html", "{tmp}/old.html"], "--html {tmp}/old.html exists: a result is not written"),
        (["--html", "{tmp}/x.html", "--tree-levels", "0"], "--tree-levels: "),
        (["--html", "{tmp}/x.html", "--tree-children", "101"], "--tree-children: "),
        (["--html", "{tmp}/x.html", "--agent", "hold(n=20)"], "not hold(n=20)'s"),
        (
            ["--html", "{tmp}/x.html", "--agent", "bab(max_depth=2)"],
            "--html draws the searches of expectimax, star1, star2",
        ),
        (
            ["--html", "{tmp}/x.html", "--agent", "star2cpc(max_depth=3)"],
            "cannot draw the search of star2cpc",
        ),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, argv, message):
    (tmp_path / "old.html").write_text("kept")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    message = message.replace("{tmp}", str(tmp_path))
    assert status([*PIG, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.html"]
    assert (tmp_path / "old.html").read_text() == "kept"


# report --out: index.html -------------------------------------------------------------------


def test_the_report_index_links_every_file_it_names(tmp_path, capsys):
    out = tmp_path / "report"
    assert cli.main(["report", str(RECORDS), "--out", str(out), "--pages", "1"]) == 0
    html = (out / "index.html").read_text()
    links = re.findall(r'href="([^"]+)"', html)
    assert links and all((out / link).is_file() for link in links)
    pairs = len(re.findall(r"<tr><td>", html))
    assert pairs == 3
    for number in range(1, pairs + 1):
        assert f"pair-{number}.png" in links and f"pair-{number}-game-1.html" in links
        assert f"pair-{number}-game-2.html" not in links
    assert {"report.json", "pairs.csv", "agents.csv", "score.png"} <= set(links)
    assert "the first 1 games of each pairing" in html
    game = (out / "pair-1-game-1.html").read_text()
    assert "Reference: exact" in game  # annotate's default reference on Pig
    assert "index.html" in capsys.readouterr().err


def test_report_pages_zero_writes_no_game_page_and_pages_needs_out(tmp_path, capsys):
    out = tmp_path / "report"
    assert cli.main(["report", str(RECORDS), "--out", str(out), "--pages", "0"]) == 0
    assert not list(out.glob("*-game-*.html")) and (out / "index.html").is_file()
    assert cli.main(["report", str(RECORDS), "--pages", "1"]) == 2
    assert "--pages annotates games for the index of --out DIR" in capsys.readouterr().err
    assert status(["report", str(RECORDS), "--out", str(tmp_path / "r2"), "--pages", "21"]) == 2
    assert not (tmp_path / "r2").exists()
