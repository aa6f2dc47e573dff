"""The annotation's page in a real browser: headless Chromium (Debian's, at /usr/bin/chromium;
.ci/run installs it) driven by playwright steps through every move of a game of each of the
four games, checks that the board changes at each step, that the chart and the move list
jump to a position, that nothing is fetched and that the console stays free of errors, and
saves a screenshot of each page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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
