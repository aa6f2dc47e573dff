"""node-counts: the heuristic and the best-move table it searches with."""

from __future__ import annotations

from chancespiel.evaluation import cli
from chancespiel.studies.node_counts import node_counts


def test_the_heuristic_and_the_table_change_the_pruning_not_expectimax():
    """Star1/Star2 cuts depend on leaf values and on move order; expectimax prunes nothing."""
    (default,) = node_counts("python_pig", [3], 20, heuristic="default", table="state")
    (lead,) = node_counts("python_pig", [3], 20, heuristic="lead", table="state")
    assert default.mean_nodes["expectimax"] == lead.mean_nodes["expectimax"]
    assert lead.mean_nodes["star1"] < default.mean_nodes["star1"]
    (by_state,) = node_counts("python_einstein_wurfelt_nicht", [3], 20, table="state")
    (by_path,) = node_counts("python_einstein_wurfelt_nicht", [3], 20, table="path")
    assert by_state.mean_nodes["expectimax"] == by_path.mean_nodes["expectimax"]
    assert by_state.mean_nodes["star2"] != by_path.mean_nodes["star2"]


def test_an_unknown_heuristic_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "table.md"
    argv = ["experiment", "node-counts", "--game", "python_pig", "--heuristic", "nope"]
    assert cli.main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--heuristic" in err and "nope" in err
    assert not out.exists()
