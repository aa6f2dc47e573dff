"""ChanceProbCut's regression for a game, and what its pruning saves and costs.

Fits the deep-vs-shallow regression of "ChanceProbCut: Forward Pruning in Chance Nodes"
(Schadd, Winands and Uiterwijk, IEEE CIG 2009, section III) from positions of real games
(agents.chance_probcut.fit_regression) and stores it as `regression.json`, the file
`star2cpc(regression=FILE)` reads. With `--measure-depth D` it also searches random positions
with Star2 and with star2cpc at each `--confidence` and compares both with exhaustive
expectimax at depth D: nodes, the root value error and the regret of the chosen move.

    chancespiel experiment chance-probcut --game python_einstein_wurfelt_nicht --depth 3 \\
        --shallow 1 --measure-depth 4 --positions 20

Reproduces the measurements of the ChanceProbCut paper's section IV (tree size and move
quality against the unpruned search) on our games.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import pyspiel

from chancespiel.agents import search_state
from chancespiel.agents.chance_probcut import (
    ChanceProbCutSearch,
    Regression,
    check_cpc_params,
    fit_regression,
)
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.evaluation.usage import (
    MAX_FIXED_DEPTH,
    Bounded,
    UsageError,
    load_game,
    output_dir,
    positions_arg,
    seed_arg,
    write_text,
)
from chancespiel.studies import Experiment


@dataclass
class PruningRow:
    """star2cpc at one confidence against Star2 and expectimax, over the same positions."""

    confidence: float
    positions: int
    star2_nodes: int
    cpc_nodes: int
    mean_abs_error: float
    max_abs_error: float
    mean_regret: float
    max_regret: float
    same_move: int


def measure(
    game: pyspiel.Game,
    regression: Regression,
    depth: int,
    confidences: Sequence[float],
    positions: int,
    seed: int,
) -> list[PruningRow]:
    """Nodes, |value - expectimax| and regret (expectimax's values) of star2cpc at each
    confidence, and Star2's nodes, at `depth` on random positions with a choice to make."""
    states = [
        s
        for s in random_decision_positions(game, 3 * positions, seed)
        if len(s.legal_actions()) > 1
    ][:positions]
    exact = [search(search_state(s), game, "expectimax", max_depth=depth) for s in states]
    star2 = [search(search_state(s), game, "star2", max_depth=depth).nodes for s in states]
    rows = []
    for confidence in confidences:
        errors, regrets, nodes, same = [], [], 0, 0
        for state, truth in zip(states, exact, strict=True):
            result = search(
                search_state(state),
                game,
                "star2",
                max_depth=depth,
                search_class=ChanceProbCutSearch,
                search_options={"regression": regression, "confidence": confidence},
            )
            nodes += result.nodes
            errors.append(abs(result.value - truth.value))
            regrets.append(truth.value - truth.action_values[result.action])
            same += result.action == truth.action
        rows.append(
            PruningRow(
                confidence,
                len(states),
                sum(star2),
                nodes,
                statistics.fmean(errors),
                max(errors),
                statistics.fmean(regrets),
                max(regrets),
                same,
            )
        )
    return rows


def markdown(regression: Regression, depth: int, rows: Sequence[PruningRow]) -> str:
    """The regression and the measurements as Markdown."""
    r = regression
    lines = [
        f"Regression for `{r.game}` (heuristic {r.heuristic}), depth pair ({r.depth}, "
        f"{r.shallow}): v_deep = {r.a:.4f} v_shallow + {r.b:+.4f}, sigma {r.sigma:.4f}, "
        f"{r.pairs} pairs.",
    ]
    if rows:
        lines += [
            "",
            f"Search depth {depth}, {rows[0].positions} random positions; errors against "
            "exhaustive expectimax at the same depth:",
            "",
            "| confidence | star2 nodes | star2cpc nodes | ratio | mean abs error | max abs error "
            "| mean regret | max regret | expectimax's move |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row in rows:
            lines.append(
                f"| {row.confidence:g} | {row.star2_nodes:,} | {row.cpc_nodes:,} | "
                f"{row.cpc_nodes / row.star2_nodes:.3f} | {row.mean_abs_error:.4f} | "
                f"{row.max_abs_error:.4f} | {row.mean_regret:.4f} | {row.max_regret:.4f} | "
                f"{row.same_move}/{row.positions} |"
            )
    return "\n".join(lines)


# Command line -------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="game string")
    depth = Bounded(int, 1, MAX_FIXED_DEPTH)
    parser.add_argument("--depth", type=depth, default=3, help="deep depth d of the depth pair")
    parser.add_argument("--shallow", type=depth, default=1, help="shallow depth d' < d")
    parser.add_argument(
        "--games", type=positions_arg, default=10, help="games played to collect positions"
    )
    parser.add_argument("--agent", default="greedy", help="agent spec playing those games")
    parser.add_argument(
        "--fit-positions", type=positions_arg, default=200, help="positions fitted on"
    )
    parser.add_argument("--heuristic", default="default", help="the game's heuristic to fit")
    parser.add_argument(
        "--measure-depth",
        type=Bounded(int, 0, MAX_FIXED_DEPTH),
        default=0,
        help="also measure pruning at this depth (0: no)",
    )
    parser.add_argument("--positions", type=positions_arg, default=20, help="positions measured")
    parser.add_argument(
        "--confidence",
        type=Bounded(float, 0.0, 1.0).each,
        default="0.8,0.9,0.95",
        help="comma-separated confidences to measure",
    )
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the games and positions")
    parser.add_argument(
        "--out", help="output directory (default: a new one in results/chance_probcut/)"
    )


def _run(args: argparse.Namespace) -> None:
    game = load_game(args.game)
    try:
        confidences = args.confidence
        for confidence in confidences:
            check_cpc_params(Regression(args.depth, args.shallow), confidence)
    except ValueError as e:
        raise UsageError(str(e)) from None
    out = output_dir(args.out, "chance_probcut")
    print(f"fitting ({args.depth}, {args.shallow}) on positions of {args.games} games ...")
    try:
        regression = fit_regression(
            game,
            args.depth,
            args.shallow,
            games=args.games,
            agent=args.agent,
            max_positions=args.fit_positions,
            seed=args.seed,
            heuristic=args.heuristic,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None
    out.mkdir(parents=True, exist_ok=True)
    regression.save(out / "regression.json")
    rows = []
    if args.measure_depth > 0:
        rows = measure(game, regression, args.measure_depth, confidences, args.positions, args.seed)
    text = markdown(regression, args.measure_depth, rows)
    write_text(out / "table.md", text + "\n")
    print(text)
    print(f"written to {out}/regression.json, table.md")


EXPERIMENT = Experiment.listed(
    "chance-probcut",
    _add_arguments,
    _run,
)
