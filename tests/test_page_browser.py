"""The pages in a real browser: headless Chromium (Debian's, at /usr/bin/chromium; .ci/run
installs it) driven by playwright. The annotation's page: every move of a game of each of the
four games, the board changing at each step, the chart and the move list jumping to a
position. The search's page (`analyse --html`): its tree opened and closed node by node and
all at once. A game of `play --browser` played to the end by clicks. Each page fetches nothing
(the game's from its own server only), keeps its console free of errors, and is saved as a
screenshot."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chancespiel.evaluation import cli
from chancespiel.evaluation.annotate import annotate_record, reference_for
from chancespiel.evaluation.match import read_records
from chancespiel.evaluation.page import write_page

CHROMIUM = Path("/usr/bin/chromium")
# Chromium alone, quiet: no GPU, no calls home, a fresh profile (the fixture's folder).
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RESULTS = Path(__file__).parent.parent / "lab" / "results" / "figure2"
# A played game of each game (committed records) and a reference cheap enough for a test.
GAMES = {
    "pig": (RESULTS / "pig_lead" / "pig.jsonl.gz", None),
    "ewn": (RESULTS / "paper_200ms" / "ewn.jsonl.gz", "search(depth=1,heuristic=learned)"),
    "cant_stop": (
        RESULTS / "cant_stop_1000ms" / "cant_stop.jsonl.gz",
        "search(depth=1,heuristic=learned)",
    ),
    "ra": (RESULTS / "paper_200ms" / "ra.jsonl.gz", "search(depth=1,heuristic=learned)"),
}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A browser context on the system's Chromium, shared by the module's tests."""
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright  # a test dependency (pyproject's [test])

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            args=ARGS,
            headless=True,
            viewport={"width": 1300, "height": 900},
        )
        yield context
        context.close()


@pytest.mark.parametrize("name", list(GAMES))
def test_stepping_through_every_move_in_chromium(browser, tmp_path, name) -> None:
    records, spec = GAMES[name]
    record = read_records(records)[0]
    reference = reference_for(record["game"], spec)
    path = tmp_path / f"{name}.html"
    write_page(path, record, annotate_record(record, reference), reference)
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    page.on(
        "request",
        lambda r: None if r.url.startswith(("file:", "data:")) else problems.append(r.url),
    )
    page.goto(path.as_uri())
    last = len(record["history"])

    def board() -> str:
        html: str = page.inner_html("#board")
        return html

    def counter() -> str:
        shown: str = page.inner_text("#counter")
        return shown

    assert board().startswith("<svg") and counter() == f"position 0 of {last}"
    shown = board()
    for position in range(1, last + 1):
        page.keyboard.press("ArrowRight")
        now = board()
        assert now != shown, f"position {position}: the board did not change"
        shown = now
    assert counter() == f"position {last} of {last}"
    page.keyboard.press("ArrowRight")  # past the end: stays
    assert counter() == f"position {last} of {last}" and board() == shown
    page.keyboard.press("Home")
    assert counter() == f"position 0 of {last}"
    middle = last // 2
    page.click(f"#chart .col[data-step='{middle}']")
    assert counter() == f"position {middle} of {last}"
    page.click(f"#rows tr:nth-child({middle + 2})")
    assert counter() == f"position {middle + 1} of {last}"
    page.click("#prev")
    assert counter() == f"position {middle} of {last}"
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    assert (tmp_path / f"{name}.png").stat().st_size > 10_000
    assert problems == []
    page.close()


def watched(page: Any, local: tuple[str, ...] = ("file:", "data:")) -> list[str]:
    """Console errors, uncaught errors and requests outside `local`, as they come."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    page.on("request", lambda r: None if r.url.startswith(local) else problems.append(r.url))
    return problems


def test_the_search_tree_opens_and_closes_in_chromium(browser, tmp_path) -> None:
    """`analyse --html`: Star2's tree, collapsible node by node and all at once."""
    path = tmp_path / "search.html"
    argv = ["analyse", "python_pig", "--history", "0 7 0 12", "--agent", "star2(max_depth=3)"]
    assert cli.main([*argv, "--html", str(path)]) == 0
    page = browser.new_page()
    problems = watched(page)
    page.goto(path.as_uri())
    last = page.locator("details.iteration").last
    root = last.locator("ul.tree > li > details").first
    assert root.get_attribute("open") is not None  # the last iteration's top levels are open
    roll = root.locator(":scope > ul > li > details").first  # the root's first child: roll
    assert roll.locator(":scope > summary .move").inner_text() == "roll"
    outcome = roll.locator(":scope > ul > li > details").first  # a roll of the dice
    assert outcome.get_attribute("open") is None and not outcome.locator("ul").first.is_visible()
    outcome.locator(":scope > summary").click()  # opens it
    assert outcome.get_attribute("open") is not None
    assert outcome.locator(":scope > ul > li").first.is_visible()
    roll.locator(":scope > summary").click()  # closes its parent: the outcome is hidden
    assert not outcome.is_visible()
    page.click("#expand")
    closed = page.locator("#trees details:not([open])")
    assert closed.count() == 0 and page.locator("td.st.pruned").first.is_visible()
    page.click("#collapse")
    assert page.locator("#trees details.iteration[open]").count() == 3  # roots still shown
    assert page.locator("#trees details[open]:not(.iteration)").count() == 0
    root.locator(":scope > summary").click()
    page.screenshot(path=str(tmp_path / "search.png"), full_page=True)
    assert (tmp_path / "search.png").stat().st_size > 10_000
    assert problems == []
    page.close()


def test_a_game_played_to_the_end_by_clicks(browser) -> None:
    """`play --browser`: a person's game against an agent, every move a click on the page;
    the command prints the game and its result as in the terminal."""
    process = subprocess.Popen(
        [sys.executable, "-m", "chancespiel", "play", "python_pig(winscore=20)", "human",
         "hold(n=8)", "--browser", "--seed", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split(": ", 1)[1].strip()
        assert url.startswith("http://127.0.0.1:")
        page = browser.new_page()
        problems = watched(page, ("http://127.0.0.1:",))
        page.goto(url)
        clicks = 0
        enabled = "#moves button:not([disabled])"
        while True:
            page.wait_for_selector(f"{enabled}, body.over", timeout=60_000)
            if page.evaluate("document.body.classList.contains('over')"):
                break
            buttons = page.locator(enabled)
            names = buttons.all_inner_texts()
            # two rolls, then stop (where stopping is legal)
            choice = "stop" if clicks % 3 == 2 and "stop" in names else names[0]
            buttons.nth(names.index(choice)).click()
            clicks += 1
        status = page.inner_text("#status")
        played = page.locator("#played li").all_inner_texts()
        page.close()
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    ending = out.strip().splitlines()[-1]
    assert ending.startswith(("winner: player 0 (human)", "winner: player 1 (hold(n=8))"))
    assert status.startswith(ending) and "returns [" in status
    assert out.count("player 0 (human): ") == clicks > 2
    assert [line for line in played if line.startswith("player 0")] == [
        line.strip().split(" (forced")[0]
        for line in out.splitlines()
        if line.startswith("  player 0")
    ]
    assert problems == []
