"""UCT convergence on synthetic trees: the P-game experiment of Kocsis and Szepesvari (2006,
Figure 4) and the implanted-strategy convergence times of Ramanujan, Sabharwal and Selman
(2010, section 6.1, Figure 3 and Table 2), at a scale this machine finishes in minutes
(lab/results/uct_convergence/HISTORY.md).

    chancespiel experiment uct-convergence

Reproduces "Improved Monte-Carlo Search" (Kocsis, Szepesvari and Willemson, 2006), Figure 4,
and "Understanding Sampling Style Adversarial Search Methods" (Ramanujan, Sabharwal and
Selman, 2010), section 6.1, Figure 3 and Table 2.

The `mcts` agent was not on main when this was written, so the UCT here is the papers' plain
UCT on deterministic trees, written for these studies only (no chance nodes, no heuristic):

- Each iteration walks down the tree by UCB1, Max maximising Q + c sqrt(ln n / n_a) and Min
  minimising Q - c sqrt(ln n / n_a), with Q the mean return for player 0 in [-1, 1]; an untried
  action is taken first (a random one); the first node off the tree is added to it; a uniformly
  random playout runs to a leaf; the leaf's return is added to every node on the path (averaging
  backups). c = 2 sqrt(2) on this [-1, 1] scale is UCB1's sqrt(2 ln n / n_a) on [0, 1] returns,
  the paper's canonical bias.
- Plain Monte Carlo (MC) plays uniformly random games from the root.
- Both recommend the root move that led to the most wins (a draw counts half): Kocsis and
  Szepesvari's "move leading most frequently to a win". One iteration evaluates one leaf, so
  iterations are the papers' leaf evaluations.
- Alpha-beta: plain alpha-beta in the natural move order; as in the paper it picks a random
  move until it has evaluated all the leaves it needs, the correct one after.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspiel

import chancespiel.games  # noqa: F401  (registers the synthetic games in worker processes)
from chancespiel.agents.search_common import MAX_CONSTANT, MAX_TREE_NODES
from chancespiel.evaluation import usage
from chancespiel.evaluation.figures import save_figure
from chancespiel.evaluation.parallel import worker_pool
from chancespiel.files import open_output, write_output
from chancespiel.games.exact import minimax_value
from chancespiel.games.implanted_tree import IMPLANTED_BOUNDS, correct_action
from chancespiel.games.pgame import pgame_action_values
from chancespiel.studies import Experiment

UCB1_C = 2.0 * math.sqrt(2.0)  # UCB1's sqrt(2 ln n / s) on [0, 1] returns, on the [-1, 1] scale
TAU = 0.7  # the sampling paper's convergence threshold on the root's value


# --- plain UCT and plain Monte Carlo on deterministic trees -------------------------------------


class UctNode:
    """A node of the UCT tree: visits, sum of returns for player 0, children by action."""

    __slots__ = ("kids", "n", "untried", "w")

    def __init__(self, actions: Sequence[int], rng: random.Random):
        self.kids: dict[int, UctNode] = {}
        self.n = 0
        self.w = 0.0
        self.untried = list(actions)
        rng.shuffle(self.untried)  # untried actions are taken in random order


def uct_iteration(root: UctNode, state: Any, c: float, rng: random.Random) -> float:
    """One UCT iteration from `root` on `state` (a private copy it may change): select, add one
    node, play out at random, back the return up. Returns the return for player 0."""
    node = root
    path = [root]
    sqrt, log = math.sqrt, math.log
    while True:
        player = state.current_player()
        if player < 0:
            break
        if node.untried:
            action = node.untried.pop()
            state.apply(action)
            child = UctNode(state.legal_actions(), rng)
            node.kids[action] = child
            path.append(child)
            break
        log_n = log(node.n)
        sign = 1.0 if player == 0 else -1.0
        best, best_action, best_child = -math.inf, -1, node
        for action, child in node.kids.items():  # ties: the first in (random) expansion order
            score = sign * child.w / child.n + c * sqrt(log_n / child.n)
            if score > best:
                best, best_action, best_child = score, action, child
        state.apply(best_action)
        node = best_child
        path.append(node)
    while state.current_player() >= 0:
        actions = state.legal_actions()
        state.apply(actions[int(rng.random() * len(actions))])
    value = state.returns()[0]
    for visited in path:
        visited.n += 1
        visited.w += value
    return value


def most_wins(stats: dict[int, tuple[int, float]]) -> int:
    """The action with the most wins, a draw counting half: (n + w) / 2 for returns in
    {-1, 0, 1}; ties go to the first action."""
    return max(sorted(stats), key=lambda a: stats[a][0] + stats[a][1])


def uct_recommendations(core: Any, checkpoints: Sequence[int], c: float, seed: int) -> list[int]:
    """UCT's recommended root move after each number of iterations in `checkpoints`."""
    rng = random.Random(seed)
    root = UctNode(core.legal_actions(), rng)
    choices = []
    done = 0
    for target in checkpoints:
        while done < target:
            uct_iteration(root, core.clone(), c, rng)
            done += 1
        choices.append(most_wins({a: (k.n, k.w) for a, k in root.kids.items()}))
    return choices


def mc_recommendations(core: Any, checkpoints: Sequence[int], seed: int) -> list[int]:
    """Plain Monte Carlo's recommended root move after each number of random games."""
    rng = random.Random(seed)
    stats: dict[int, list[float]] = {}
    choices = []
    done = 0
    for target in checkpoints:
        while done < target:
            state = core.clone()
            actions = state.legal_actions()
            first = actions[int(rng.random() * len(actions))]
            state.apply(first)
            while state.current_player() >= 0:
                actions = state.legal_actions()
                state.apply(actions[int(rng.random() * len(actions))])
            entry = stats.setdefault(first, [0, 0.0])
            entry[0] += 1
            entry[1] += state.returns()[0]
            done += 1
        choices.append(most_wins({a: (int(n), w) for a, (n, w) in stats.items()}))
    return choices


def uct_convergence_time(
    core: Any, c: float, seed: int, max_iterations: int, tau: float = TAU
) -> tuple[int | None, bool | None, float]:
    """Iterations until UCT's root value stays >= tau (the sampling paper's tau-convergence).

    Runs until the value has stayed >= tau for as many iterations as it took to get there (and
    at least 500), or `max_iterations`. Returns (t*, favourable, share of root visits to the
    trap side): t* is None if the value is below tau at the end; favourable says whether the
    first time the two root children's means differed, the correct root move looked better
    (None if the root is not critical or they never differed).
    """
    rng = random.Random(seed)
    root = UctNode(core.legal_actions(), rng)
    critical = core.is_critical()
    good = correct_action(core.key) if critical else None
    favourable = None
    last_below = 0
    t = 0
    while t < max_iterations:
        uct_iteration(root, core.clone(), c, rng)
        t += 1
        if root.w < tau * root.n:
            last_below = t
        elif t - last_below >= max(last_below, 500):
            break
        if good is not None and favourable is None and len(root.kids) == 2:
            means = {a: k.w / k.n for a, k in root.kids.items()}
            if means[0] != means[1]:
                favourable = means[good] > means[1 - good]
    converged = root.w >= tau * root.n
    trap_share = 0.0
    if good is not None and len(root.kids) == 2:
        trap_share = root.kids[1 - good].n / root.n
    return (last_below + 1 if converged else None), favourable, trap_share


# --- the P-game experiment (UCT paper, Figure 4) ------------------------------------------------


def checkpoints_up_to(max_iterations: int, per_octave: int = 2) -> list[int]:
    """A geometric grid of iteration counts from 2 to max_iterations."""
    grid = sorted(
        {
            round(2 ** (k / per_octave))
            for k in range(per_octave, 10 * per_octave * 8)
            if 2 ** (k / per_octave) <= max_iterations
        }
    )
    return grid


def _pgame(branching: int, depth: int, seed: int) -> Any:
    game = pyspiel.load_game(f"python_pgame(branching={branching},depth={depth},seed={seed})")
    return game.new_initial_state().core


def pgame_tree_task(args: tuple[int, int, int, int, Sequence[int], float]) -> dict[str, Any]:
    """One tree: its optimal moves, alpha-beta's leaf count, and each run's failures."""
    branching, depth, seed, runs, checkpoints, c = args
    core = _pgame(branching, depth, seed)
    values = pgame_action_values(core)
    best = max(values.values())
    optimal = {a for a, v in values.items() if v == best}
    stats: dict[str, int] = {}
    minimax_value(core, stats=stats)  # plain alpha-beta, natural move order
    failures: dict[str, list[list[int]]] = {"UCT": [], "MC": []}
    for run in range(runs):
        run_seed = seed * 1000 + run
        uct = uct_recommendations(core, checkpoints, c, run_seed)
        failures["UCT"].append([int(a not in optimal) for a in uct])
        mc = mc_recommendations(core, checkpoints, run_seed)
        failures["MC"].append([int(a not in optimal) for a in mc])
    return {
        "seed": seed,
        "optimal": len(optimal),
        "ab_leaves": stats["leaves"],
        "failures": failures,
    }


@dataclass
class FailureCurve:
    """Mean failure rate at each checkpoint, with a 95% interval over trees."""

    algorithm: str
    checkpoints: list[int]
    mean: list[float]
    low: list[float]
    high: list[float]


def _mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and a normal 95% interval of the mean."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def pgame_failure_curves(
    results: Sequence[dict[str, Any]], branching: int, checkpoints: Sequence[int]
) -> list[FailureCurve]:
    """Failure rates averaged per tree (over its runs), then over trees."""
    curves = []
    for algorithm in ("UCT", "MC"):
        per_tree = [
            [statistics.fmean(run[i] for run in r["failures"][algorithm]) for r in results]
            for i in range(len(checkpoints))
        ]
        stats = [_mean_interval(values) for values in per_tree]
        curves.append(
            FailureCurve(
                algorithm,
                list(checkpoints),
                [s[0] for s in stats],
                [s[1] for s in stats],
                [s[2] for s in stats],
            )
        )
    ab = []
    for t in checkpoints:
        values = [0.0 if r["ab_leaves"] <= t else 1.0 - r["optimal"] / branching for r in results]
        ab.append(_mean_interval(values))
    curves.append(
        FailureCurve(
            "alpha-beta",
            list(checkpoints),
            [s[0] for s in ab],
            [s[1] for s in ab],
            [s[2] for s in ab],
        )
    )
    return curves


# --- implanted strategies (sampling paper, Figure 3 and Table 2) -------------------------------


def implanted_string(
    depth: int, max_depths: Sequence[int], min_depths: Sequence[int] = (), seed: int = 0
) -> str:
    """The game string of a python_implanted_tree."""
    maxes = [*max_depths, -1, -1][:2]
    mins = [*min_depths, -1, -1][:2]
    return (
        f"python_implanted_tree(depth={depth},seed={seed},max_critical1={maxes[0]},"
        f"max_critical2={maxes[1]},min_critical1={mins[0]},min_critical2={mins[1]})"
    )


def implanted_task(args: tuple[str, float, int, int]) -> tuple[str, int | None, bool | None, float]:
    """One UCT run on one tree: (game string, t*, favourable, trap share)."""
    game_string, c, seed, max_iterations = args
    core = pyspiel.load_game(game_string).new_initial_state().core
    t_star, favourable, share = uct_convergence_time(core, c, seed, max_iterations)
    return game_string, t_star, favourable, share


# --- running and writing ------------------------------------------------------------------------


def _map(function: Callable, tasks: Sequence[Any], workers: int) -> list[Any]:
    """`function` over `tasks`, in order, on `workers` processes (1: in this process)."""
    if workers <= 1:
        return [function(task) for task in tasks]
    with worker_pool(workers) as pool:
        return list(pool.map(function, tasks, chunksize=1))


@dataclass
class Scale:
    """How much of each study to run (the papers used 200 trees x 200 runs, 100 runs)."""

    pgame_trees: int = 30
    pgame_runs: int = 2
    pgame_iterations: int = 2**15
    implanted_depth: int = 14
    implanted_runs: int = 12
    implanted_iterations: int = 2**16
    trap_depth: int = 20
    trap_runs: int = 20
    trap_iterations: int = 2**16
    uct_c: float = UCB1_C
    workers: int = 2


PGAME_SHAPES = ((2, 20), (8, 8))  # the UCT paper's Figure 4, left and right


def run_pgame_study(scale: Scale, progress: Callable[[str], None]) -> dict[tuple[int, int], Any]:
    """Failure curves for each P-game shape."""
    out = {}
    checkpoints = checkpoints_up_to(scale.pgame_iterations)
    for branching, depth in PGAME_SHAPES:
        start = time.perf_counter()
        tasks = [
            (branching, depth, seed, scale.pgame_runs, checkpoints, scale.uct_c)
            for seed in range(scale.pgame_trees)
        ]
        results = _map(pgame_tree_task, tasks, scale.workers)
        out[(branching, depth)] = {
            "results": results,
            "curves": pgame_failure_curves(results, branching, checkpoints),
        }
        progress(
            f"P-games B={branching} D={depth}: {scale.pgame_trees} trees x "
            f"{scale.pgame_runs} runs in {time.perf_counter() - start:.0f} s"
        )
    return out


def implanted_cases(depth: int) -> list[tuple[str, tuple[int, int]]]:
    """Figure 3's slices: d1 = 2 with d2 varied, and d2 = depth - 2 with d1 varied."""
    d2_top = depth - 2
    cases = [("fixed d1 = 2", (2, d2)) for d2 in range(4, d2_top + 1, 2)]
    cases += [(f"fixed d2 = {d2_top}", (d1, d2_top)) for d1 in range(0, d2_top, 2)]
    return cases


def trap_cases(depth: int) -> list[tuple[str, str, tuple[int, int], tuple[int, int]]]:
    """Table 2's grid: Max's second critical depth and Min's two, shallow / mid / deep.

    At depth 20, Max's x2 is 4, 8 or 12 and Min's (y1, y2) is (1, 3), (7, 9) or (15, 17): the
    paper does not give its depths; these put UCT's times in the paper's range.
    """
    third = depth // 3
    maxes = {
        "shallow": max(2, 2 * round(depth / 10)),
        "mid-level": max(2, 2 * round(depth / 5)),
        "deep": max(2, 2 * round(3 * depth / 10)),
    }
    mins = {
        "shallow": (1, 3),
        "mid-level": (third | 1, (third | 1) + 2),
        "deep": (depth - 5, depth - 3),
    }
    return [(mx, mn, (0, x2), ys) for mx, x2 in maxes.items() for mn, ys in mins.items()]


def run_implanted_study(scale: Scale, progress: Callable[[str], None]) -> dict[str, Any]:
    """Convergence times for Figure 3's slices and Table 2's grid."""
    start = time.perf_counter()
    tasks = []
    cases = implanted_cases(scale.implanted_depth)
    for _, depths in cases:
        for run in range(scale.implanted_runs):
            game_string = implanted_string(scale.implanted_depth, depths, seed=run)
            tasks.append((game_string, scale.uct_c, run, scale.implanted_iterations))
    slices = _map(implanted_task, tasks, scale.workers)
    progress(f"implanted slices: {len(tasks)} runs in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    tasks = []
    grid = trap_cases(scale.trap_depth)
    for _, _, maxes, mins in grid:
        game_string = implanted_string(scale.trap_depth, maxes, mins, seed=0)  # one fixed tree
        for run in range(scale.trap_runs):
            tasks.append((game_string, scale.uct_c, run, scale.trap_iterations))
    trap = _map(implanted_task, tasks, scale.workers)
    progress(f"trap table: {len(tasks)} runs in {time.perf_counter() - start:.0f} s")
    return {"cases": cases, "slices": slices, "grid": grid, "trap": trap}


def _summary(times: Sequence[int | None], cap: int) -> dict[str, Any]:
    """Mean and median t* over the runs (unconverged runs count as the cap) and how many."""
    counted = [cap if t is None else t for t in times]
    return {
        "runs": len(times),
        "unconverged": sum(t is None for t in times),
        "mean": statistics.fmean(counted) if counted else float("nan"),
        "median": statistics.median(counted) if counted else float("nan"),
    }


def write_pgame(out: Path, study: dict[tuple[int, int], Any], scale: Scale) -> str:
    """uct_pgame.csv and .png; returns the Markdown table."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(study), figsize=(12, 4.6))
    lines = []
    with open_output(out / "uct_pgame.csv", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["branching", "depth", "algorithm", "iterations", "failure", "low", "high"])
        for ax, ((branching, depth), data) in zip(axes, study.items(), strict=True):
            styles = {"UCT": "-", "MC": "--", "alpha-beta": ":"}
            for curve in data["curves"]:
                for t, m, lo, hi in zip(
                    curve.checkpoints, curve.mean, curve.low, curve.high, strict=True
                ):
                    writer.writerow([branching, depth, curve.algorithm, t, m, lo, hi])
                ax.plot(
                    curve.checkpoints,
                    curve.mean,
                    styles[curve.algorithm],
                    label=curve.algorithm,
                    linewidth=2 if curve.algorithm == "UCT" else 1.5,
                )
                if curve.algorithm == "UCT":
                    ax.fill_between(curve.checkpoints, curve.low, curve.high, alpha=0.25)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("iterations (leaf evaluations)")
            ax.set_ylabel("failure rate (wrong root move)")
            ax.set_ylim(-0.02, 1.0)
            ax.set_title(
                f"P-games B={branching}, D={depth}: {len(data['results'])} trees "
                f"x {scale.pgame_runs} runs"
            )
            ax.grid(alpha=0.3)
            ax.legend()
            leaves = [r["ab_leaves"] for r in data["results"]]
            lines.append(pgame_table_rows(branching, depth, data, leaves))
    save_figure(fig, out / "uct_pgame.png", dpi=110)
    header = (
        "| trees | failure at | UCT | MC | alpha-beta |\n|---|---|---|---|---|\n" if lines else ""
    )
    return header + "\n".join(line for block in lines for line in block)


def pgame_table_rows(
    branching: int, depth: int, data: dict[str, Any], leaves: Sequence[int]
) -> list[str]:
    """Table rows: failure rates at a few iteration counts, and alpha-beta's leaves."""
    curves = {c.algorithm: c for c in data["curves"]}
    rows = []
    grid = curves["UCT"].checkpoints
    picks = [t for t in grid if t in {16, 128, 1024, 8192, 32768} or t == grid[-1]]
    for t in dict.fromkeys(picks):
        i = grid.index(t)
        rows.append(
            f"| B={branching} D={depth} | {t} | {curves['UCT'].mean[i]:.3f} "
            f"| {curves['MC'].mean[i]:.3f} | {curves['alpha-beta'].mean[i]:.3f} |"
        )
    rows.append(
        f"| B={branching} D={depth} | alpha-beta leaves: median "
        f"{statistics.median(leaves):.0f}, max {max(leaves)} | | | |"
    )
    return rows


def write_implanted(out: Path, study: dict[str, Any], scale: Scale) -> str:
    """uct_implanted.csv, uct_trap.csv and uct_implanted.png; returns the Markdown tables."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_case: dict[tuple[int, int], list[int | None]] = {}
    for (_, depths), start in zip(
        study["cases"], range(0, len(study["slices"]), scale.implanted_runs), strict=True
    ):
        runs = study["slices"][start : start + scale.implanted_runs]
        by_case[depths] = [r[1] for r in runs]
    rows = []
    with open_output(out / "uct_implanted.csv", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["slice", "d1", "d2", "runs", "unconverged", "mean", "median"])
        for name, (d1, d2) in study["cases"]:
            s = _summary(by_case[(d1, d2)], scale.implanted_iterations)
            writer.writerow([name, d1, d2, s["runs"], s["unconverged"], s["mean"], s["median"]])
            rows.append((name, d1, d2, s))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for ax, key, xlabel in ((axes[0], "fixed d1", "d2"), (axes[1], "fixed d2", "d1")):
        points = [
            (d2 if key == "fixed d1" else d1, s) for n, d1, d2, s in rows if n.startswith(key)
        ]
        title = next(n for n, *_ in rows if n.startswith(key))
        xs = [p[0] for p in points]
        ax.plot(xs, [p[1]["median"] for p in points], "-o", label="median t*")
        ax.plot(xs, [p[1]["mean"] for p in points], "--s", label="mean t*")
        ax.set_yscale("log")
        ax.set_xlabel(f"depth of critical node {xlabel}")
        ax.set_ylabel("UCT iterations to tau-convergence (tau = 0.7)")
        ax.set_title(
            f"Implanted 2-step strategy, binary tree depth {scale.implanted_depth}, "
            f"c = {scale.uct_c:.2f}:\n{title}, {scale.implanted_runs} trees per point"
        )
        ax.grid(alpha=0.3, which="both")
        ax.legend()
    save_figure(fig, out / "uct_implanted.png", dpi=110)
    table = [
        "| slice | d1 | d2 | runs | unconverged | mean t* | median t* |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, d1, d2, s in rows:
        table.append(
            f"| {name} | {d1} | {d2} | {s['runs']} | {s['unconverged']} "
            f"| {s['mean']:,.0f} | {s['median']:,.0f} |"
        )
    trap_rows = trap_table(out, study, scale)
    return "\n".join(table) + "\n\n" + trap_rows


def trap_table(out: Path, study: dict[str, Any], scale: Scale) -> str:
    """Table 2 (mean t* by favourable / unfavourable start) and Table 3 (visits to the trap)."""
    results: dict[tuple[str, str], list[tuple[int | None, bool | None, float]]] = {}
    runs = scale.trap_runs
    for i, (mx, mn, _, _) in enumerate(study["grid"]):
        results[(mx, mn)] = [r[1:] for r in study["trap"][i * runs : (i + 1) * runs]]
    levels = list(dict.fromkeys(mx for mx, *_ in study["grid"]))
    depth_of = {(mx, mn): (maxes, mins) for mx, mn, maxes, mins in study["grid"]}
    lines = [
        "| Max's strategy (0, x2) | Min's strategy (y1, y2) | F runs | F mean t* | U runs "
        "| U mean t* | unconverged | visits to trap subtree |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with open_output(out / "uct_trap.csv", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["max", "min", "x2", "y1", "y2", "run", "t_star", "favourable", "trap"])
        for mx in levels:
            for mn in levels:
                maxes, mins = depth_of[(mx, mn)]
                cell = results[(mx, mn)]
                for run, (t, fav, share) in enumerate(cell):
                    writer.writerow([mx, mn, maxes[1], mins[0], mins[1], run, t, fav, share])
                fav_times = [t for t, f, _ in cell if f]
                unf_times = [t for t, f, _ in cell if f is False]
                cap = scale.trap_iterations
                f_mean = _summary(fav_times, cap)["mean"] if fav_times else float("nan")
                u_mean = _summary(unf_times, cap)["mean"] if unf_times else float("nan")
                share = statistics.fmean(s for _, _, s in cell)
                lines.append(
                    f"| {mx} (0, {maxes[1]}) | {mn} {mins} | {len(fav_times)} | {f_mean:,.0f} "
                    f"| {len(unf_times)} | {u_mean:,.0f} | {sum(t is None for t, _, _ in cell)} "
                    f"| {share:.1%} |"
                )
    return "\n".join(lines)


def run(scale: Scale, out: Path, studies: Sequence[str] = ("pgame", "implanted")) -> str:
    """Runs the studies and writes their tables (uct_pgame.md, uct_implanted.md), CSVs and plots
    into `out`; returns the Markdown."""
    out.mkdir(parents=True, exist_ok=True)

    def progress(message: str) -> None:
        print(message, flush=True)

    sections = []
    if "pgame" in studies:
        pgame = run_pgame_study(scale, progress)
        text = "### P-games: failure rate\n\n" + write_pgame(out, pgame, scale) + "\n"
        write_output(out / "uct_pgame.md", text)
        sections.append(text)
    if "implanted" in studies:
        implanted = run_implanted_study(scale, progress)
        text = (
            "### Implanted strategies: iterations to convergence\n\n"
            + write_implanted(out, implanted, scale)
            + "\n"
        )
        write_output(out / "uct_implanted.md", text)
        sections.append(text)
    return "\n".join(sections)


# Command line -------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        help="directory for tables, CSVs and plots (default: new in results/uct_convergence/)",
    )
    parser.add_argument("--studies", default="pgame,implanted", help="which studies to run")
    runs = usage.positions_arg
    iterations = usage.Bounded(int, 1, MAX_TREE_NODES)
    depth = usage.Bounded(int, *IMPLANTED_BOUNDS["depth"])
    parser.add_argument("--pgame-trees", type=runs, default=30, help="P-game trees per shape")
    parser.add_argument("--pgame-runs", type=runs, default=2, help="UCT and MC runs per tree")
    parser.add_argument(
        "--pgame-iterations", type=iterations, default=2**15, help="largest iteration count"
    )
    parser.add_argument("--implanted-depth", type=depth, default=14, help="tree depth (Figure 3)")
    parser.add_argument("--implanted-runs", type=runs, default=12, help="trees (one run each)")
    parser.add_argument(
        "--implanted-iterations", type=iterations, default=2**16, help="cap per run"
    )
    parser.add_argument("--trap-depth", type=depth, default=20, help="tree depth (Table 2)")
    parser.add_argument("--trap-runs", type=runs, default=20, help="runs on the fixed tree")
    parser.add_argument("--trap-iterations", type=iterations, default=2**16, help="cap per run")
    parser.add_argument(
        "--uct-c",
        type=usage.Bounded(float, 0.0, MAX_CONSTANT),
        help="exploration constant on [-1, 1] returns (default 2 sqrt 2)",
    )
    parser.add_argument("--workers", type=usage.workers_arg, default=2, help="processes")


def _run(args: argparse.Namespace) -> None:
    studies = args.studies.split(",")
    unknown = sorted(set(studies) - {"pgame", "implanted"})
    if unknown:
        raise usage.UsageError(f"--studies: unknown {unknown}; known: pgame, implanted")
    counts = {
        k: v for k, v in vars(args).items() if k.startswith(("pgame_", "implanted_", "trap_"))
    }
    scale = Scale(
        **counts, uct_c=UCB1_C if args.uct_c is None else args.uct_c, workers=args.workers
    )
    out = usage.output_dir(args.out, "uct_convergence")
    print(run(scale, out, studies), end="")
    print(f"wrote the tables (uct_*.md), CSV files and plots into {out}")


EXPERIMENT = Experiment.listed(
    "uct-convergence",
    _add_arguments,
    _run,
)
