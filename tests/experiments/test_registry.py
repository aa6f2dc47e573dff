"""The experiments registry: every study is one module, found by the CLI, apart from the toolkit."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import chancespiel.evaluation
from chancespiel.evaluation import cli, experiments

ROOT = Path(__file__).resolve().parents[2]
STUDIES = {
    "bab-nodes",
    "chance-probcut",
    "figure2",
    "luck-compare",
    "luck-values",
    "node-counts",
    "pig-estimators",
    "pig-regret",
    "sampling-noise",
    "search-depth",
    "uct-convergence",
}


def test_the_registry_finds_every_study_and_the_cli_offers_them(capsys):
    assert set(experiments.experiments()) == STUDIES
    try:
        cli.main(["experiment", "--help"])
    except SystemExit as e:
        assert e.code == 0
    shown = capsys.readouterr().out
    assert all(name in shown for name in STUDIES)


def test_each_study_names_the_paper_and_result_it_reproduces():
    for name in STUDIES:
        experiment = experiments.experiments()[name]
        module = __import__(experiment.run.__module__, fromlist=["__doc__"])
        doc = module.__doc__ or ""
        assert "Reproduces" in doc or "Explains" in doc, name
        assert any(word in doc for word in ("Table", "Figure", "section")), name


def test_no_study_lives_in_the_toolkit_and_the_toolkit_never_imports_one():
    toolkit = [m.name for m in pkgutil.iter_modules(chancespiel.evaluation.__path__)]
    assert not set(toolkit) & {m.replace("-", "_") for m in STUDIES} - {"figure2"}
    assert "figure2" not in toolkit and "mcms_setup" not in toolkit
    for path in (ROOT / "evaluation").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert "experiments" not in node.module, f"{path.name} imports {node.module}"


def test_an_experiment_without_out_writes_a_fresh_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = [
        "experiment",
        "node-counts",
        "--game",
        "python_pig",
        "--depths",
        "1",
        "--positions",
        "2",
    ]
    assert cli.main(argv) == 0
    assert cli.main(argv) == 0
    written = sorted((tmp_path / "results" / "node_counts").iterdir())
    assert len(written) == 2 and all(p.name.startswith("run-") for p in written)
    assert "| `python_pig" in written[0].read_text()
