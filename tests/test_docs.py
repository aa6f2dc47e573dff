"""The guides stay short, their links resolve, and the figures they quote that are cheap to
recompute are recomputed here: a change that moves one must change the guide too."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from chancespiel.evaluation.match import read_records
from chancespiel.evaluation.report import agent_stats
from chancespiel.games.pig_solver import solve_pig

ROOT = Path(__file__).parent.parent
GUIDES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
MAX_LINES = 300
LINK = re.compile(r"\]\(([^)\s]+)\)")
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".cfg", ".ini", ".sh", ".yml", ".yaml", ".csv"}


def _repository_files() -> list[Path]:
    """The files git tracks (a source checkout), else every file under the root."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return [p for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]
    return [ROOT / name for name in listed.decode().split("\0") if name]


def test_the_guides_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in GUIDES}
    assert {"README.md", "docs/agents.md", "docs/evaluation.md", "docs/games/pig.md"} <= names


@pytest.mark.parametrize("path", GUIDES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_guides_are_short(path):
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (at most {MAX_LINES})"


@pytest.mark.parametrize("path", GUIDES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(path):
    broken = []
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address, or an anchor in the same page
        if not (path.parent / target.split("#")[0]).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)}: links to missing files: {broken}"


def test_no_text_names_files_outside_the_repository():
    """The project speaks of itself alone: no text names the background notes it was built
    from."""
    names = ("DESIGN" + ".md", "RULES" + ".md")
    found = []
    for path in _repository_files():
        if path.suffix not in TEXT_SUFFIXES and path.name != "Makefile":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {n}" for n in names if n in text]
    assert not found, found


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_bab_sign_pgame_row():
    """lab/results/bab_nodes/HISTORY.md quotes a rerun of the sign P-game family: BAB at every
    bound searches exactly alpha-beta's nodes, and expectimax the whole tree."""
    from chancespiel.studies.bab_nodes import bab_node_counts  # studies load only when used

    history = (ROOT / "lab/results/bab_nodes/HISTORY.md").read_text(encoding="utf-8")
    quoted = re.search(
        r"gives alpha-beta ([\d,.]+) nodes on average .*? BAB ([\d,.]+) at every\s+epsilon and "
        r"gamma \(1\.000 of alpha-beta\) and expectimax ([\d,]+) \(([\d.]+) times\)",
        history,
        re.DOTALL,
    )
    assert quoted, "the rerun of the sign P-game row is not quoted"
    series = bab_node_counts("python_pgame(branching=4,depth=8)", 40)
    mean = {s.label: sum(s.nodes) / len(s.nodes) for s in series}
    alpha_beta = mean.pop("alpha-beta")
    expectimax = mean.pop("expectimax")
    assert alpha_beta == pytest.approx(_number(quoted[1]), abs=0.05)
    assert len(mean) == 7 and set(mean.values()) == {alpha_beta}  # 5 epsilons, 2 gammas
    assert _number(quoted[2]) == _number(quoted[1])
    assert expectimax == _number(quoted[3])
    assert round(expectimax / alpha_beta, 2) == float(quoted[4])


PAPER_GAMES = {"Pig": "pig", "EWN": "ewn", "Can't Stop": "cant_stop", "Ra": "ra"}


def test_nodes_a_move_of_the_figure2_run():
    """docs/paper.md's table of the classic searches' mean nodes a move in the Figure 2 run,
    from its committed records (to the nearest thousand), and docs/speed.md's range."""
    paper = (ROOT / "docs/paper.md").read_text(encoding="utf-8")
    row = r"^  \| (Pig|EWN|Can't Stop|Ra) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|$"
    rows = re.findall(row, paper, re.MULTILINE)
    assert [name for name, *_ in rows] == list(PAPER_GAMES)
    measured = {}
    for name, exp, star1, star2 in rows:
        path = ROOT / "lab/results/figure2/paper_mcms" / f"{PAPER_GAMES[name]}.jsonl.gz"
        agents = agent_stats(read_records(path))
        stats = {s.spec.split("(")[0]: s.as_dict()["mean_nodes"] for s in agents}
        classic = ("expectimax", "star1", "star2")
        for agent, quoted in zip(classic, (exp, star1, star2), strict=True):
            assert round(stats[agent], -3) == _number(quoted), (name, agent, stats[agent])
            measured[(name, agent)] = _number(quoted)
    speed = (ROOT / "docs/speed.md").read_text(encoding="utf-8")
    low, high = min(measured.values()), max(measured.values())
    assert f"from {low:,.0f} (Star1 in Ra) to {high:,.0f} (expectimax in Pig)" in speed
    assert measured[("Ra", "star1")] == low and measured[("Pig", "expectimax")] == high


def test_two_dice_pig_value():
    page = (ROOT / "docs/games/pig.md").read_text(encoding="utf-8")
    value = solve_pig(dice=2, winscore=100).first_player_win_probability
    assert f"{value:.6f}" == "0.519559" and "0.519559" in page
