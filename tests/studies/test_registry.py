"""The studies' registry: every study is one module and one row of `STUDIES`, found by the CLI,
apart from the toolkit."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import chancespiel.evaluation
from chancespiel import studies
from chancespiel.evaluation import cli

ROOT = Path(__file__).resolve().parents[2]
STUDIES = {
    "bab-nodes",
    "chance-probcut",
    "chance-tree-regret",
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


def test_the_table_names_every_study_module_and_the_cli_offers_them(capsys):
    defined = set()
    for info in pkgutil.iter_modules(studies.__path__):
        module = __import__(f"chancespiel.studies.{info.name}", fromlist=["EXPERIMENT"])
        if hasattr(module, "EXPERIMENT"):
            defined.add(module.EXPERIMENT.name)
            assert studies.STUDIES[module.EXPERIMENT.name][0] == info.name
    assert defined == set(studies.STUDIES) == STUDIES
    assert set(studies.experiments()) == STUDIES
    try:
        cli.main(["experiment", "--help"])
    except SystemExit as e:
        assert e.code == 0
    shown = capsys.readouterr().out
    assert all(name in shown for name in STUDIES)


def test_each_study_names_the_paper_and_result_it_reproduces():
    for name in STUDIES:
        experiment = studies.experiments()[name]
        module = __import__(experiment.run.__module__, fromlist=["__doc__"])
        doc = module.__doc__ or ""
        assert "Reproduces" in doc or "Explains" in doc, name
        assert any(word in doc for word in ("Table", "Figure", "section")), name


def test_no_study_lives_in_the_toolkit_and_the_toolkit_never_imports_one():
    toolkit = [m.name for m in pkgutil.iter_modules(chancespiel.evaluation.__path__)]
    assert not set(toolkit) & {m.replace("-", "_") for m in STUDIES} - {"figure2"}
    assert "figure2" not in toolkit and "mcms_setup" not in toolkit
    library = [ROOT / folder for folder in ("games", "agents", "evaluation", "chancespiel")]
    for path in (path for folder in library for path in folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                assert not name.startswith("chancespiel.studies"), f"{path} imports {name}"


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
