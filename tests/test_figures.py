"""Readable figures: `layout_problems` finds text cut off or drawn over other text, and the
toolkit's figures (plot, report --out) have none, with long names and titles too."""

from __future__ import annotations

from pathlib import Path

import pytest

from chancespiel.evaluation import cli
from chancespiel.evaluation.figures import fit_layout, layout_problems

COMMITTED = Path(__file__).parent.parent / "lab" / "results" / "figure2" / "paper_200ms"
PIG = "python_pig(winscore=30)"
# Agents with long specs: their pairings' labels are wide
AGENTS = ["hold(n=20)", "hold(n=10)", "star2(max_depth=1,heuristic=lead)",
          "mcts(max_simulations=20,rollout_depth=0,uct_c=0.5)"]  # fmt: skip


def test_the_checker_finds_text_cut_off_and_text_over_text():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_title("a title far wider than the figure it belongs to, cut off at both ends")
    ax.set_xticks(range(4), [f"a long tick label {i}" for i in range(4)])
    problems = layout_problems(fig)
    assert any("panel 1's title" in p and "cut off" in p for p in problems)
    assert any("x tick label 'a long tick label 0' overlaps" in p for p in problems)
    fit_layout(fig)  # the repairs: the title wrapped, the labels turned, the figure wider
    assert layout_problems(fig) == []
    assert "\n" in ax.get_title() and ax.get_xticklabels()[0].get_rotation() > 0
    plt.close(fig)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("figures") / "t.jsonl"
    argv = ["tournament", PIG, *AGENTS, "--matches", "2", "--workers", "1", "--no-progress"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    return out


def test_plot_is_readable_with_long_names_and_a_long_title(tournament, tmp_path, figure_problems):
    title = "Four agents on Pig to thirty: hold twice, Star2 on the lead and MCTS at 20 simulations"
    argv = ["plot", str(tournament), "--out", str(tmp_path / "t.png"), "--title", title]
    assert cli.main(argv) == 0
    assert len(figure_problems) == 1 and figure_problems[0][1] == []


def test_plot_of_one_pairing_has_its_title_inside(tmp_path, figure_problems):
    records = tmp_path / "m.jsonl"
    argv = ["match", PIG, "hold(n=20)", "hold(n=10)", "--matches", "2", "--workers", "1"]
    assert cli.main([*argv, "--no-progress", "--out", str(records)]) == 0
    title = "Hold at twenty against hold at ten on Pig to thirty, two matches"
    assert cli.main(["plot", str(records), "--out", str(tmp_path / "m.png"), "--title", title]) == 0
    assert figure_problems[0][1] == []


def test_plot_of_the_committed_figure2_records_is_readable(tmp_path, figure_problems):
    files = [str(COMMITTED / f"{game}.jsonl.gz") for game in ("pig", "ewn", "ra", "cant_stop")]
    assert cli.main(["plot", *files, "--out", str(tmp_path / "f.png")]) == 0
    assert figure_problems[0][1] == []


def test_report_figures_are_readable(tournament, tmp_path, figure_problems):
    assert cli.main(["report", str(tournament), "--luck", "--out", str(tmp_path / "r")]) == 0
    # (saved through temporary names: '.tmp-<id>-score.png')
    names = [Path(path).name.split("-", 2)[-1] for path, _ in figure_problems]
    assert names == ["score.png", "elo.png", *(f"pair-{i}.png" for i in range(1, 7))]
    assert all(problems == [] for _, problems in figure_problems)
