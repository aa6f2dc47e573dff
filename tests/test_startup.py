"""What each everyday command imports: only what it uses (its startup is measured, as seconds
over the bare import, by lab/benchmarks/bench_startup.py; here its cause is checked)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("scipy", "matplotlib", "sklearn", "ray", "chancespiel.studies")


def imported_by(argv: list[str]) -> set[str]:
    """The modules loaded after `chancespiel ARGV` runs in a fresh interpreter."""
    code = (
        "import json, sys\n"
        "from chancespiel.evaluation import cli\n"
        "try:\n"
        f"    cli.main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["games"],
        ["agents"],
        ["play", "python_pig(winscore=10)", "random", "random"],
        ["analyse", "python_pig(winscore=10)", "--agent", "star2(max_depth=1)"],
        ["match", "--help"],
        ["report", "--help"],
    ],
    ids=lambda argv: " ".join(argv[:1]),
)
def test_everyday_commands_import_no_heavy_library_and_no_study(argv):
    loaded = imported_by(argv)
    assert not {m for m in loaded for heavy in HEAVY if m == heavy or m.startswith(heavy + ".")}


def test_help_imports_no_command_module():
    loaded = imported_by(["--help"])
    assert not loaded & {f"chancespiel.evaluation.cli.{m}" for m in ("basics", "runs", "values")}


def test_an_experiment_imports_its_own_study_only():
    loaded = imported_by(["experiment", "node-counts", "--help"])
    studies = {m for m in loaded if m.startswith("chancespiel.studies.")}
    assert studies == {"chancespiel.studies.node_counts"}


def test_import_chancespiel_loads_the_api_when_first_used():
    code = (
        "import sys, chancespiel\n"
        "light = not {'pyspiel', 'chancespiel.evaluation.api', 'chancespiel.agents'} "
        "& set(sys.modules)\n"
        "print(light, chancespiel.match.__module__, 'report' in dir(chancespiel))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "chancespiel.evaluation.api", "True"]


@pytest.mark.parametrize("argv", [["--help"], ["match", "--help"], ["agents"]], ids=" ".join)
def test_the_commands_start_without_the_python_api(argv):
    assert "chancespiel.evaluation.api" not in imported_by(argv)
