"""The annotation's page without a browser: every game's board changes at every step, the page
fetches nothing, and its data is what the script reads (tests/test_page_browser.py opens it)."""

from __future__ import annotations

import itertools
import json
import re
from html import unescape
from pathlib import Path

import pytest

from chancespiel.agents.protocol import search_state
from chancespiel.evaluation import cli
from chancespiel.evaluation.annotate import annotate_record, reference_for
from chancespiel.evaluation.boards import Frame, draw
from chancespiel.evaluation.match import load_game_cached, read_records
from chancespiel.evaluation.page import boards, page
from chancespiel.evaluation.runner import RunConfig, run

GAMES = [
    "python_pig(winscore=30)",
    "python_einstein_wurfelt_nicht",
    "python_cant_stop",
    "python_ra",
]
CHEAP = "search(depth=1,heuristic=learned)"  # a reference for the tests, where not Pig


def random_game(tmp_path: Path, game: str) -> dict:
    """One recorded game of random play."""
    out = tmp_path / "game.jsonl"
    run(RunConfig(game, [("random", "random")], matches=1, workers=1, out=str(out), progress=False))
    return read_records(out)[0]


def page_data(html: str) -> dict:
    found = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S)
    assert found
    data: dict = json.loads(found.group(1))
    return data


@pytest.mark.parametrize("game", GAMES)
def test_every_step_changes_the_board(tmp_path, game) -> None:
    record = random_game(tmp_path, game)
    pictures = boards(game, record["history"])
    assert len(pictures) == len(record["history"]) + 1
    assert all(p.startswith("<svg") and p.endswith("</svg>") for p in pictures)
    for step, (before, after) in enumerate(itertools.pairwise(pictures)):
        assert before != after, f"step {step}: the board did not change"


@pytest.mark.parametrize("game", GAMES)
def test_the_page_is_self_contained(tmp_path, game) -> None:
    record = random_game(tmp_path, game)
    reference = reference_for(game, None if "pig" in game else CHEAP)
    html = page(record, annotate_record(record, reference), reference)
    # nothing is fetched: no stylesheet, script or image by address; the only URL is SVG's name
    assert not re.search(r"<link|<img|<iframe|\bsrc=|\bhref=|@import|url\(", html)
    assert set(re.findall(r"https?://[^\s\"'<\\]+", html)) <= {"http://www.w3.org/2000/svg"}
    data = page_data(html)
    assert len(data["frames"]) == len(record["history"]) + 1
    assert [s["action"] for s in data["steps"]] == record["history"]
    assert unescape(reference.name) in html
    for marker in ("<!--TITLE-->", "<!--HEADER-->", "<!--CHART-->", "/*DATA*/"):
        assert marker not in html


def test_text_that_looks_like_markup_stays_text(tmp_path) -> None:
    record = random_game(tmp_path, "python_pig(winscore=20)")
    record["seats"] = ["</script><script>alert(1)</script>", "<b>bold</b>"]
    reference = reference_for(record["game"])
    html = page(record, annotate_record(record, reference), reference)
    assert "<script>alert(1)" not in html and "<b>bold" not in html
    assert page_data(html)["seats"][0] == record["seats"][0]


def test_other_games_show_the_state_string() -> None:
    game = load_game_cached("pig(winscore=20,piglet=true)")  # no reader into our core
    state = game.new_initial_state()
    picture = draw(Frame(search_state(state)))
    assert "Scores: 0 0, Turn total: 0" in unescape(picture)


def test_the_command_writes_the_page(tmp_path, capsys) -> None:
    record = random_game(tmp_path, "python_pig(winscore=20)")
    path = tmp_path / "game.html"
    argv = ["annotate", str(tmp_path / "game.jsonl"), "--line", "1", "--html", str(path)]
    assert cli.main(argv) == 0
    assert f"wrote {path}" in capsys.readouterr().err
    assert len(page_data(path.read_text())["frames"]) == len(record["history"]) + 1
