"""Star2 on a plugin's compiled rules core against Star2 on compiled Pig, in the same run.

The plugin is examples/fast_race.py (its core examples/race_core.py, compiled by `chancespiel
compile examples/race_core.py`): a dice race as large as Pig with one die, searched on its
core as chancespiel's own games are (`GameSpec.trusted_core`). Rows: nodes per CPU second of
classic Star2 (iterative deepening, `--time-ms` per search) on python_pig(dice=1), on the
plugin's core, and on the plugin through the checked adapter (what agents search when a
plugin's core is not trusted); each the best of `--repeats` interleaved rounds.

    chancespiel compile examples/race_core.py
    .venv/bin/python lab/benchmarks/bench_plugin_core.py [--time-ms 1000] [--positions 2]
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path

import pyspiel
from bench_summary import star2_rate
from common import best_of, decision_positions

from chancespiel import engine
from chancespiel.agents.protocol import PyspielAdapter, search_state
from chancespiel.games import registry
from chancespiel.plugins import load_plugins

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fast_race.py"
PIG = "python_pig(dice=1)"
PLUGIN = "example_fast_race"


def untrusted(run: Callable[[int], float], repeat: int) -> float:
    """`run(repeat)` with the plugin's core not trusted: its hooks checked, on its own states
    inside the adapter, as agents search a plugin's core by default."""
    trusted = registry._SPECS[PLUGIN]
    registry._SPECS[PLUGIN] = dataclasses.replace(trusted, trusted_core=False)
    try:
        return run(repeat)
    finally:
        registry._SPECS[PLUGIN] = trusted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-ms", type=float, default=1000.0, help="per search")
    parser.add_argument("--positions", type=int, default=2, help="searches per row and round")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    load_plugins([str(EXAMPLE)])
    import race_core  # loaded by the plugin: compiled if `chancespiel compile` built it

    core_engine = "compiled" if not str(race_core.__file__).endswith(".py") else "pure Python"
    rows = {}
    for name in (PIG, PLUGIN):
        game = pyspiel.load_game(name)
        states = decision_positions(game, args.positions, seed=1, choice=True)
        rows[f"{name} star2"] = star2_rate(game, [search_state(s) for s in states], args.time_ms)
    plugin = pyspiel.load_game(PLUGIN)
    adapted = [
        PyspielAdapter(s) for s in decision_positions(plugin, args.positions, seed=1, choice=True)
    ]
    checked = star2_rate(plugin, adapted, args.time_ms)
    rows[f"{PLUGIN} star2, checked adapter"] = lambda repeat: untrusted(checked, repeat)
    best = best_of(rows, args.repeats)
    base = best[f"{PIG} star2"]
    print(
        f"Star2 nodes per CPU second, best of {args.repeats} rounds, {args.positions} positions "
        f"x {args.time_ms:g} ms; {engine.describe()}, the plugin's core {core_engine}"
    )
    for name, rate in best.items():
        print(f"  {name:44s} {rate:12,.0f}   {rate / base:6.3f}x {PIG}")
    print(f"ratio plugin core / {PIG}: {best[f'{PLUGIN} star2'] / base:.3f}")


if __name__ == "__main__":
    main()
