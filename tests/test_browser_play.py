"""`play --browser`: the human seat on a page served on 127.0.0.1 (evaluation.browser_play),
driven here over HTTP as the page drives it; tests/test_page_browser.py plays a game by clicks
in Chromium."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import parse_qs, urlsplit

from test_startup import imported_by

from chancespiel.evaluation import cli

PLAY = [sys.executable, "-m", "chancespiel", "play", "python_pig(winscore=10)", "human"]


class Page:
    """What the page does: read the position, send a move, leave."""

    def __init__(self, url: str):
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1"
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.token = parse_qs(parts.query)["t"][0]

    def call(self, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body))
        request = urllib.request.Request(
            f"{self.base}{path}?t={self.token if token is None else token}",
            data=data.encode() if isinstance(data, str) else data,
            method="GET" if body is None else "POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def position(self, asking: bool = True) -> dict[str, Any]:
        """The position, once it asks for a move or the game is over (if `asking`)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, position = self.call("/position")
            assert status == 200
            if not asking or position.get("moves") or position.get("over"):
                return position
            time.sleep(0.05)
        raise AssertionError("the page never asked for a move")


def start(*argv: str) -> tuple[subprocess.Popen, Page]:
    process = subprocess.Popen(
        [*PLAY, *argv, "--browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("play in your browser: http://127.0.0.1:"), line
    return process, Page(line.split(": ", 1)[1].strip())


def test_a_game_played_over_http_ends_as_in_the_terminal():
    process, page = start("hold(n=5)", "--seed", "2")
    try:
        first = page.position()
        assert "<svg" in first["board"] and first["status"] == "player 0 (human): your move"
        assert [name for _, name in first["moves"]] == ["roll", "stop"]
        # refused, and nothing played: a wrong token, a move not legal, a stale position,
        # a body that is no move, a body too long
        assert page.call("/position", token="wrong")[0] == 403
        assert page.call("/move", {"number": first["number"], "action": 0}, token="x")[0] == 403
        status, answer = page.call("/move", {"number": first["number"], "action": 7})
        assert (status, answer["error"]) == (409, "7 is not a legal move here")
        status, answer = page.call("/move", {"number": first["number"] - 1, "action": 0})
        assert status == 409 and "has passed" in answer["error"]
        assert page.call("/move", b"[1, 2]")[0] == 400
        assert page.call("/move", b" " * 5000)[0] == 413
        assert page.position()["number"] == first["number"]
        moves = 0
        while not (position := page.position())["over"]:
            action = position["moves"][0][0]
            assert page.call("/move", {"number": position["number"], "action": action}) == (
                200, {"ok": True},
            )  # fmt: skip
            moves += 1
        # the page says it shows the end; only then does the command stop serving it
        assert page.call("/seen", {}) == (200, {"ok": True})
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert out.count("player 0 (human): ") == moves  # each click, printed as a move
    ending = out.strip().splitlines()[-1]
    assert ending.startswith("winner: player") and position["status"].startswith(ending)
    assert position["moves"] == [] and position["log"][-1] in out


def test_leaving_abandons_the_game():
    process, page = start("random", "--seed", "1")
    try:
        page.position()
        assert page.call("/leave", {}) == (200, {"ok": True})
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 1
    assert err.strip() == (
        "chancespiel: error: the person left the game in the browser: the game is abandoned"
    )


def test_browser_needs_a_person_and_open_needs_browser(capsys):
    assert cli.main(["play", "python_pig", "random", "random", "--browser"]) == 2
    assert "--browser is for a person" in capsys.readouterr().err
    assert cli.main(["play", "python_pig", "human", "random", "--open"]) == 2
    assert "--open opens the page of --browser" in capsys.readouterr().err


def test_the_web_library_is_imported_only_for_the_browser():
    assert not {"bottle", "chancespiel.evaluation.browser_play"} & imported_by(
        ["play", "python_pig(winscore=10)", "random", "random"]
    )
    assert "chancespiel.evaluation.search_page" not in imported_by(
        ["analyse", "python_pig(winscore=10)", "--agent", "star2(max_depth=1)"]
    )
