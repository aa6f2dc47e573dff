"""Depth completed and nodes searched by star2 and star2ss in 200 ms, per game.

    .venv/bin/python lab/benchmarks/bench_depth.py [--positions 20] [--games python_pig ...]
        [--specs "star2(time_ms=200,clock=cpu)" "star2(time_ms=200,clock=cpu,heuristic=learned)"]

A game may be given with parameters, e.g. "python_cant_stop(ordered_dice=true)".

The MCMS paper's settings (time_ms=200, prune_min_depth=2; star2ss with its sample widths:
Pig 18, EWN 2, Can't Stop 15, Ra 2) on `--positions` decision positions of seeded random play
per game (lab/benchmarks/common.py). Prints per game and agent the mean deepest completed
iteration and the mean nodes per search; `--specs` measures other agents instead (e.g. a
heuristic's cost in depth: with `clock=cpu` the budget is the search's CPU time). The paper's
budget is the wall clock (libraries from before the `clock` parameter have no other), so run
it on a quiet machine, and compare two libraries
in alternating processes (one of them through PYTHONPATH, as lab/results/speed/ shows). Only what
older libraries also offer is imported: `make_bot` and a bot's `analyse` (or, failing that,
`step` and `last_result`).
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import pyspiel
from common import decision_positions

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents import make_bot

SETTINGS = "time_ms=200,prune_min_depth=2"
SAMPLES = {  # star2ss sample widths of the paper's setup
    "python_pig": 18,
    "python_einstein_wurfelt_nicht": 2,
    "python_cant_stop": 15,
    "python_ra": 2,
}


def specs(game_name: str) -> dict[str, str]:
    """Agent name -> spec of star2 and star2ss with the paper's settings for `game_name`."""
    return {
        "star2": f"star2({SETTINGS})",
        "star2ss": f"star2ss(samples={SAMPLES[base_name(game_name)]},{SETTINGS})",
    }


def base_name(game: str) -> str:
    """The name of a game string without its parameters."""
    return game.split("(")[0]


def game_string(text: str) -> str:
    """`text`, if it names one of the paper's games (with parameters or not)."""
    if base_name(text) not in SAMPLES:
        raise argparse.ArgumentTypeError(f"one of {', '.join(SAMPLES)}, with parameters or not")
    return text


def analyse(spec: str, game: pyspiel.Game, state: pyspiel.State, seed: int) -> Any:
    """The search result of a fresh bot of `spec` at `state` (which is not changed)."""
    bot = make_bot(spec, game, state.current_player(), seed)
    if hasattr(bot, "analyse"):
        return bot.analyse(state.clone())
    bot.step(state.clone())  # a library without `analyse`: the result of the move's search
    return getattr(bot, "last_result", None)


def measure(spec: str, game: pyspiel.Game, positions: list[pyspiel.State]) -> dict[str, float]:
    """Mean, least and greatest completed depth and mean nodes of `spec` over `positions`
    (nan where the library reports no such field)."""
    depths: list[int] = []
    nodes: list[int] = []
    for index, state in enumerate(positions):
        result = analyse(spec, game, state, index)
        if getattr(result, "depth", None) is not None:
            depths.append(result.depth)
        if getattr(result, "nodes", None) is not None:
            nodes.append(result.nodes)
    nan = float("nan")
    return {
        "depth": statistics.fmean(depths) if depths else nan,
        "min_depth": min(depths) if depths else nan,
        "max_depth": max(depths) if depths else nan,
        "nodes": statistics.fmean(nodes) if nodes else nan,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=20, help="positions per game")
    parser.add_argument("--games", nargs="+", default=list(SAMPLES), type=game_string)
    parser.add_argument("--seed", type=int, default=1, help="seed of the positions")
    parser.add_argument("--specs", nargs="+", help="agent specs instead of star2 and star2ss")
    args = parser.parse_args()
    width = max([9, *(len(spec) + 1 for spec in args.specs or ())])
    print(f"{'game':<40}{'agent':<{width}}{'depth':>7}{'min':>5}{'max':>5}{'nodes':>12}")
    for game_name in args.games:
        game = pyspiel.load_game(game_name)
        positions = decision_positions(game, args.positions, seed=args.seed, choice=True)
        agents = {spec: spec for spec in args.specs} if args.specs else specs(game_name)
        for agent, spec in agents.items():
            row = measure(spec, game, positions)
            print(
                f"{game_name:<40}{agent:<{width}}{row['depth']:>7.2f}{row['min_depth']:>5.0f}"
                f"{row['max_depth']:>5.0f}{row['nodes']:>12,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
