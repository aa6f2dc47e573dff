"""Nodes searched by bounded alpha-beta (BAB) against epsilon, with alpha-beta / Star1 and
exhaustive expectimax on the same trees (lab/results/bab_nodes/HISTORY.md).

Reproduces "Bounded Suboptimal Game Tree Search" (Atzmon, Stern and Saffidine), the node
counts against the bound in its experimental section, on our P-games and chance trees.

    chancespiel experiment bab-nodes --trees 40

Every tree is searched to its leaves (no horizon, no iterative deepening), so the counts are
those of the bare algorithms and every value is exact: the interval width, the error of its
midpoint and the regret of BAB's move (exact value of the best move minus that of BAB's move)
are measured against exhaustive expectimax on the same tree.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyspiel

from chancespiel.agents.bab import bab_search, check_bab_params
from chancespiel.agents.search_common import MAX_COEFFICIENT
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation import usage
from chancespiel.evaluation.figures import save_figure
from chancespiel.files import open_output, write_output
from chancespiel.studies import Experiment

DEFAULT_GAMES = (
    "python_pgame(branching=4,depth=8)",
    "python_pgame(branching=4,depth=8,scoring=margin)",
    "python_chance_tree(depth=6,branching=4,outcomes=4)",
)
DEFAULT_EPSILONS = (0.0, 0.05, 0.1, 0.2, 0.5)
DEFAULT_GAMMAS = (0.1, 0.5)


@dataclass
class Series:
    """One algorithm with one setting over the trees of one game family."""

    game: str
    algorithm: str  # "expectimax", "alpha-beta / star1", "bab", "bab (paper's chance rule)"
    epsilon: float | None = None
    gamma: float | None = None
    nodes: list[int] = field(default_factory=list)
    widths: list[float] = field(default_factory=list)
    errors: list[float] = field(default_factory=list)  # |midpoint - V|
    regrets: list[float] = field(default_factory=list)  # V - V(move)
    seconds: float = 0.0

    @property
    def label(self) -> str:
        """How the row is named in tables and legends."""
        if self.epsilon is None and self.gamma is None:
            return self.algorithm
        bound = f"epsilon={self.epsilon:g}" if self.gamma is None else f"gamma={self.gamma:g}"
        return f"{self.algorithm} {bound}"


def with_seed(game_string: str, seed: int) -> pyspiel.Game:
    """`game_string` loaded with its `seed` parameter set to `seed`."""
    params = dict(pyspiel.game_parameters_from_string(game_string))
    name = params.pop("name")
    params["seed"] = seed
    return pyspiel.load_game(name, params)


def is_chance_game(game_string: str) -> bool:
    """True if the game has chance nodes (so the baseline is Star1, not plain alpha-beta)."""
    game_type = pyspiel.load_game(game_string).get_type()
    return game_type.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC


def bab_node_counts(
    game_string: str,
    trees: int,
    epsilons: Sequence[float] = DEFAULT_EPSILONS,
    gammas: Sequence[float] = DEFAULT_GAMMAS,
    first_seed: int = 0,
) -> list[Series]:
    """Searches trees with seeds first_seed.. with every algorithm; one Series per setting.

    Raises:
      AssertionError: if a bound or an exact value is violated, which would be a bug.
    """
    baseline = "star1" if is_chance_game(game_string) else "alpha-beta"
    series: list[Series] = [Series(game_string, "expectimax"), Series(game_string, baseline)]
    for eps in epsilons:
        series.append(Series(game_string, "bab", epsilon=eps))
        if eps > 0 and baseline == "star1":
            series.append(Series(game_string, "bab (paper's chance rule)", epsilon=eps))
    series.extend(Series(game_string, "bab", gamma=g) for g in gammas)
    for seed in range(first_seed, first_seed + trees):
        game = with_seed(game_string, seed)
        root = game.new_initial_state().core
        depth = game.max_game_length()
        start = time.perf_counter()
        exact = search(root.clone(), game, "expectimax", max_depth=depth, iterative=False)
        series[0].seconds += time.perf_counter() - start
        series[0].nodes.append(exact.nodes)
        value = exact.value
        for row in series[1:]:
            start = time.perf_counter()
            if row.algorithm in ("star1", "alpha-beta"):
                result = search(root.clone(), game, "star1", max_depth=depth, iterative=False)
                row.seconds += time.perf_counter() - start
                row.nodes.append(result.nodes)
                assert abs(result.value - value) < 1e-9, (game, row.label)
                continue
            bab = bab_search(
                root.clone(),
                game,
                epsilon=row.epsilon or 0.0,
                gamma=row.gamma or 0.0,
                max_depth=depth,
                iterative=False,
                share_slack=row.algorithm == "bab",
            )
            row.seconds += time.perf_counter() - start
            allowed = max(row.epsilon or 0.0, (row.gamma or 0.0) * abs(value))
            assert bab.lower - 1e-9 <= value <= bab.upper + 1e-9, (str(game), row.label)
            assert bab.upper - bab.lower <= allowed + 1e-9, (str(game), row.label)
            row.nodes.append(bab.nodes)
            row.widths.append(bab.upper - bab.lower)
            row.errors.append(abs(bab.value - value))
            row.regrets.append(value - exact.action_values[bab.action])
    return series


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def summary_rows(series: Sequence[Series]) -> list[dict[str, object]]:
    """One dict per series: means over the trees, nodes relative to the baseline."""
    rows: list[dict[str, object]] = []
    baselines = {s.game: _mean(s.nodes) for s in series if s.algorithm in ("star1", "alpha-beta")}
    for s in series:
        nodes = _mean(s.nodes)
        rows.append(
            {
                "game": s.game,
                "algorithm": s.algorithm,
                "epsilon": "" if s.epsilon is None else s.epsilon,
                "gamma": "" if s.gamma is None else s.gamma,
                "trees": len(s.nodes),
                "mean_nodes": round(nodes, 1),
                "nodes_vs_baseline": round(nodes / baselines[s.game], 4),
                "mean_width": "" if not s.widths else round(_mean(s.widths), 5),
                "max_width": "" if not s.widths else round(max(s.widths), 5),
                "mean_midpoint_error": "" if not s.errors else round(_mean(s.errors), 5),
                "mean_regret": "" if not s.regrets else round(_mean(s.regrets), 5),
                "max_regret": "" if not s.regrets else round(max(s.regrets), 5),
                "seconds": round(s.seconds, 2),
            }
        )
    return rows


def markdown_table(rows: Sequence[dict[str, object]]) -> str:
    """The summary as a Markdown table, one block per game."""
    lines = []
    for game in dict.fromkeys(r["game"] for r in rows):
        block = [r for r in rows if r["game"] == game]
        lines += [
            f"**`{game}`**, {block[0]['trees']} trees (seeds 0..{int(str(block[0]['trees'])) - 1})",
            "",
            "| algorithm | epsilon | gamma | mean nodes | vs baseline | mean width | max width "
            "| mean regret | max regret | seconds |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in block:
            lines.append(
                f"| {r['algorithm']} | {r['epsilon']} | {r['gamma']} | {r['mean_nodes']:,.0f} "
                f"| {r['nodes_vs_baseline']:.3f} | {r['mean_width']} | {r['max_width']} "
                f"| {r['mean_regret']} | {r['max_regret']} | {r['seconds']} |"
            )
        lines.append("")
    return "\n".join(lines)


def plot(series: Sequence[Series], path: Path) -> None:
    """Nodes relative to alpha-beta / Star1 against epsilon (left), regret of the move (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    games = list(dict.fromkeys(s.game for s in series))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for color, game in zip(colors, games, strict=False):
        mine = [s for s in series if s.game == game]
        base = next(s for s in mine if s.algorithm in ("star1", "alpha-beta"))
        base_nodes = _mean(base.nodes)
        for algorithm, style in (("bab", "-o"), ("bab (paper's chance rule)", "--s")):
            points = sorted(
                (s.epsilon, _mean(s.nodes) / base_nodes, _mean(s.regrets))
                for s in mine
                if s.algorithm == algorithm and s.gamma is None
            )
            if algorithm != "bab":
                zero = next(s for s in mine if s.algorithm == "bab" and s.epsilon == 0.0)
                points = [(0.0, _mean(zero.nodes) / base_nodes, 0.0), *points]
            if len(points) < 2:
                continue
            xs, ys, regrets = zip(*points, strict=True)
            name = f"{game} ({'BAB' if algorithm == 'bab' else 'paper rule'})"
            left.plot(xs, ys, style, color=color, label=name)
            if algorithm == "bab":
                right.plot(xs, regrets, style, color=color, label=game)
    left.axhline(1.0, color="black", linewidth=0.8)
    left.set_xlabel("epsilon (additive bound)")
    left.set_ylabel("mean nodes / nodes of alpha-beta or Star1")
    left.set_title("Nodes searched by BAB, relative to exact alpha-beta / Star1")
    left.set_ylim(bottom=0)
    left.legend(fontsize=7, loc="lower left")
    top = max(s.epsilon or 0.0 for s in series)
    right.plot([0, top], [0, top], ":", color="gray", label="guarantee: regret <= epsilon")
    right.set_xlabel("epsilon (additive bound)")
    right.set_ylabel("mean regret of BAB's move (exact values)")
    right.set_title("Cost of the bound: value lost by playing the highest L")
    right.legend(fontsize=7, loc="upper left")
    save_figure(fig, path, dpi=110)


def run(
    games: Sequence[str],
    trees: int,
    epsilons: Sequence[float],
    gammas: Sequence[float],
    out: Path,
    progress: bool = True,
) -> list[dict[str, object]]:
    """The whole experiment: writes bab_nodes.md, bab_nodes.csv and bab_nodes.png into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    series: list[Series] = []
    for game_string in games:
        start = time.perf_counter()
        series.extend(bab_node_counts(game_string, trees, epsilons, gammas))
        if progress:
            print(
                f"{game_string}: {trees} trees in {time.perf_counter() - start:.0f} s", flush=True
            )
    rows = summary_rows(series)
    write_output(out / "bab_nodes.md", markdown_table(rows))
    with open_output(out / "bab_nodes.csv", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot(series, out / "bab_nodes.png")
    return rows


# Command line -------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        action="append",
        help="tree family as a game string without seed (repeatable; default: P-games B=4 D=8 "
        "with sign and margin scoring, chance trees depth 6)",
    )
    parser.add_argument(
        "--trees", type=usage.positions_arg, default=40, help="trees per family (seeds 0..)"
    )
    parser.add_argument(
        "--epsilons",
        type=usage.Bounded(float, 0.0, MAX_COEFFICIENT).each,
        default="0,0.05,0.1,0.2,0.5",
        help="additive bounds",
    )
    parser.add_argument(
        "--gammas",
        type=usage.BoundedList(usage.Bounded(float, 0.0, 1.0), empty=True),
        default="0.1,0.5",
        help="multiplicative bounds ('' for none)",
    )
    parser.add_argument(
        "--out", help="directory for the table, CSV and plot (default: new in results/bab_nodes/)"
    )


def _run(args: argparse.Namespace) -> None:
    games = args.game or list(DEFAULT_GAMES)
    for game_string in games:
        game = usage.load_game(game_string)
        if "seed" not in game.get_type().parameter_specification:
            raise usage.UsageError(
                f"--game {game_string}: not a family of generated trees (no seed parameter); "
                "give python_pgame(...) or python_chance_tree(...)"
            )
        usage.checked_specs(game, ["star1"])
    epsilons, gammas = args.epsilons, args.gammas
    try:
        for epsilon in epsilons:
            check_bab_params(epsilon, 0.0, 1, None, None)
        for gamma in gammas:
            check_bab_params(0.0, gamma, 1, None, None)
    except ValueError as e:
        raise usage.UsageError(f"--epsilons/--gammas: {e}") from None
    out = usage.output_dir(args.out, "bab_nodes")
    rows = run(games, args.trees, epsilons, gammas, out)
    print(markdown_table(rows))
    print(f"wrote {out}/bab_nodes.md, bab_nodes.csv, bab_nodes.png ({len(rows)} rows)")


EXPERIMENT = Experiment.listed(
    "bab-nodes",
    _add_arguments,
    _run,
)
