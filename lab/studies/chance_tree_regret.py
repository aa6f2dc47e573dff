"""Where does sampling chance nodes pay? Regret at equal node budgets on random chance trees.

pig-regret's question (lab/studies/pig_regret.py) on trees whose chance nodes have from 2 to 64
outcomes, the map the one game cannot draw: classic expectimax, Star1 and Star2, the MCMS
paper's sampled versions expSS, star1SS and star2SS (c outcomes drawn with replacement at every
chance node) and the hybrid sampled search exphs, star1hs and star2hs (systematic draws, chance
nodes of at most c outcomes, since version 0.5.0 a third more, and those right after the root's
move enumerated: `hybrid_options`; no committed map has trees of more than c and at most a
third more outcomes; `--exact-plies` changes how many plies below the root are enumerated, and
`--classic-first` adds the agents' classic search for every depth it can afford, and
`--classic-trial` their trial of the first classic depths within half the budget, sampling
beyond, with the plies of `--exact-plies` enumerated only below the classic depth, and
`--fit-exact-plies` their enumeration of those plies only where it is predicted to fit the
budget, `--fit-within-ply` only where that costs at most a ply, `--capped-trial` their
classic depths given up past a cap, `--classic-within-ply` those that cost more than a
sampled ply, `--growth-two-back` their predictions from the growth two depths back,
`--first-cap-two-back` the first cap's too, and `--stratified` stratified draws instead of
systematic ones; all off by default as the committed map was searched before the agents had
them)
search the same trees with the same node budget, and exhaustive expectimax over the whole
tree (`chance_tree_action_values`) gives the exact value of every root move. Explains where
the sampling of the MCMS paper ("Monte Carlo *-Minimax Search", Lanctot et al. 2013, section
3.1 and the bars of its Figure 2) pays, by the number of outcomes per chance node.
Regret = the exact value of the best root move minus that of the chosen move, for the mover,
in the game's returns ([-1, 1]); a move is wrong when its regret is above 1e-9. Each sampled
and hybrid algorithm is compared with its classic counterpart tree by tree (paired
differences).

Trees are `python_chance_tree(seed=S,depth=D,branching=B,outcomes=K,chance_prob=P)` for each K
of `--outcomes`, the other parameters fixed by the run (`--depth`, `--branching`,
`--chance-prob`); position i is the tree of the i-th seed of a seeded sequence whose root has
a choice (at least two actions), the same seeds for every K. The game's registered heuristic
is used, a hashed value that says nothing of the leaves below it: only what a search sees of
the leaves informs its move. Every sampled search uses one width c (`--width`) and
pig-regret's sample seed (`position_seed`: the same for the six sampled algorithms of a
position and budget).

    chancespiel experiment chance-tree-regret --positions 300 --outcomes 2,4,8,16,32,64 \\
        --budgets 100,300,1000,3000,10000,30000,100000 \\
        --out results/chance_tree_regret/RUN

The run appends one line per (outcomes, position) to `raw.jsonl` as it finishes, position by
position across the outcomes, so a chunk cut short (`--max-minutes`) leaves a map with fewer
trees rather than missing columns, and the same command resumes it; every run ends by writing
`regret.csv`, `README.md` and `regret.png` (also alone with `--summarise-only`).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspiel

from chancespiel.agents.search_common import MAX_SAMPLES
from chancespiel.agents.star_minimax import (
    MIN_HYBRID_SAMPLES,
    OPTION_NEEDS,
    hybrid_options,
    search,
)
from chancespiel.evaluation.figures import save_figure
from chancespiel.evaluation.match import package_version
from chancespiel.evaluation.resumable import (
    COMMANDS,
    check_resumed,
    git_commit,
    logged_commands,
    read_rows,
    run_directory,
)
from chancespiel.evaluation.usage import (
    Bounded,
    UsageError,
    command_text,
    positions_arg,
    write_text,
)
from chancespiel.files import open_output
from chancespiel.games.chance_tree import (
    CHANCE_PROB_RANGE,
    CHANCE_TREE_BOUNDS,
    ChanceTreeRules,
    chance_tree_action_values,
)
from chancespiel.studies import Experiment
from chancespiel.studies.pig_regret import (
    CLASSIC,
    SAMPLED,
    WRONG,
    add_run_arguments,
    cell_statistics,
    check_run_arguments,
    markdown,
    position_seed,
    read_positions,
    run_chunk,
    write_csv,
)

HYBRID = ("exphs", "star1hs", "star2hs")
ALGORITHMS = (*CLASSIC, *SAMPLED, *HYBRID)
COUNTERPART = dict(zip((*SAMPLED, *HYBRID), (*CLASSIC, *CLASSIC), strict=True))
SEARCHED = {**{name: name for name in CLASSIC}, **COUNTERPART}  # name -> search algorithm
COLORS = {name: f"C{i}" for i, name in enumerate(ALGORITHMS)}
DEFAULT_OUTCOMES = (2, 4, 8, 16, 32, 64)
DEFAULT_BUDGETS = (100, 300, 1000, 3000, 10000, 30000, 100000)
SEED_STRIDE = 1_000_003  # tree seeds of --seed s: a sequence of its own for each s
# The hybrid agents' options a run turns on by a flag of the same name (--classic-first, ...),
# each off unless given (the committed map was searched before the agents had them); the
# order of the `options` column.
SWITCHES = {
    "classic_first": "the hybrid searches deepen classically while the next depth fits the "
    "budget (the hybrid agents' default)",
    "classic_trial": "with --classic-first: the first classic depths are tried within half the "
    "budget left, and --exact-plies counts only below the classic depth (the hybrid agents' "
    "default)",
    "fit_exact_plies": "the hybrid searches enumerate the chance nodes of --exact-plies only "
    "where that is predicted to fit the budget, sampling them first (the hybrid agents' "
    "default)",
    "capped_trial": "with --classic-trial: a classic depth is given up past its cap (the "
    "second: what the sampled search two plies deeper costs; later ones: four times their "
    "prediction)",
    "fit_within_ply": "with --fit-exact-plies: enumerate only where that costs at most a ply "
    "(no dearer than the sampled search a ply deeper)",
    "classic_within_ply": "with --classic-first: a classic depth only where it costs at most a "
    "ply (no dearer than the sampled search a depth deeper)",
    "growth_two_back": "with --classic-first: classic depths and sampled plies predicted from "
    "the growth two depths back",
    "first_cap_two_back": "with --classic-within-ply and --growth-two-back: the first cap of a "
    "classic depth priced from the growth of the depth before too",
    "stratified": "the hybrid searches draw one outcome in each of c equal strata of a chance "
    "node's probabilities, not systematically (one number, evenly spaced)",
}


@dataclass(frozen=True)
class Trees:
    """What every task of one run shares: the trees' shape, their seeds, the searches."""

    seeds: tuple[int, ...]  # the tree of position i has seed seeds[i]
    depth: int
    branching: int
    chance_prob: float
    width: int
    prune_min_depth: int
    budgets: tuple[int, ...]
    seed: int  # of the samples
    exact_plies: int | None = None  # the hybrid's exact_plies; None: its default
    switches: frozenset[str] = frozenset()  # the SWITCHES on (all off in the first map)

    def hybrid(self, agent: str) -> dict[str, Any]:
        """The keywords of the hybrid search `agent` (exphs, star1hs, star2hs): its
        `hybrid_options`, with exact_plies and every switch of SWITCHES as given."""
        # (the bases' defaults differ in options every run sets, the switches and the draws,
        # and in exact_up_to: the width in exphs, a third more in star1hs and star2hs)
        options = hybrid_options(self.width, COUNTERPART[agent])
        options.update((name, name in self.switches) for name in SWITCHES)
        # one way to draw: systematic unless --stratified, whatever the agents' default
        options["systematic"] = "stratified" not in self.switches
        if self.exact_plies is not None:
            options["exact_plies"] = self.exact_plies
        return options

    def game_string(self, outcomes: int, index: int) -> str:
        """The game of position `index` with `outcomes` outcomes at most per chance node."""
        return (
            f"python_chance_tree(seed={self.seeds[index]},depth={self.depth},"
            f"branching={self.branching},outcomes={outcomes},chance_prob={self.chance_prob!r})"
        )

    def describe(self) -> str:
        """The fixed factors, for the `options` column."""
        return (
            f"depth={self.depth};branching={self.branching};chance_prob={self.chance_prob:g};"
            f"width={self.width};prune_min_depth={self.prune_min_depth}"
            + ("" if self.exact_plies is None else f";hybrid_exact_plies={self.exact_plies}")
            + "".join(f";hybrid_{name}" for name in SWITCHES if name in self.switches)
        )


def config_name(outcomes: int) -> str:
    """The `config` of the rows of trees with `outcomes` outcomes at most per chance node."""
    return f"outcomes{outcomes}"


def tree_seeds(count: int, seed: int, depth: int, branching: int) -> list[int]:
    """`count` distinct tree seeds, drawn from `seed`, whose root has at least two actions (the
    root's actions depend on the seed and `branching` only, so a seed gives a choice for every
    number of outcomes)."""
    draw = random.Random(seed * SEED_STRIDE)
    seeds: list[int] = []
    while len(seeds) < count:
        candidate = draw.randrange(1 << 31)
        root = ChanceTreeRules(seed=candidate, depth=depth, branching=branching).initial_core()
        if len(root.legal_actions()) >= 2 and candidate not in seeds:
            seeds.append(candidate)
    return seeds


def search_tree(task: tuple[Trees, int, int]) -> list[dict[str, Any]]:
    """Every algorithm at every budget on one tree: one raw row each, with the exact values."""
    trees, outcomes, index = task
    game = pyspiel.load_game(trees.game_string(outcomes, index))
    core = game.new_initial_state().core
    values = chance_tree_action_values(core, core.current_player())
    best = max(values.values())
    gap = best - max((v for v in values.values() if v < best), default=best)
    rows = []
    for algorithm in ALGORITHMS:
        sampled = algorithm not in CLASSIC
        for budget in trees.budgets:
            result = search(
                core.clone(),
                game,
                SEARCHED[algorithm],
                max_nodes=budget,
                samples=trees.width if sampled else None,
                seed=position_seed(trees.seed, index, budget),
                prune_min_depth=trees.prune_min_depth,
                **(trees.hybrid(algorithm) if algorithm in HYBRID else {}),
            )
            rows.append(
                {
                    "config": config_name(outcomes),
                    "position": index,
                    "algorithm": algorithm,
                    "budget": budget,
                    "action": result.action,
                    "regret": max(0.0, best - values[result.action]),
                    "depth": result.depth,
                    "nodes": result.nodes,
                    "value": result.value,
                    "gap": gap,
                }
            )
    return rows


# --- Summaries ------------------------------------------------------------------------------


def summarise(
    rows: Sequence[Mapping[str, Any]], outcomes: Sequence[int], trees: Trees
) -> list[dict[str, Any]]:
    """One summary row per (outcomes, algorithm, budget) with rows, in pig-regret's COLUMNS;
    a sampled or hybrid row is paired with its classic counterpart's at the same budget."""
    cell: dict[tuple[str, str, int], dict[int, Mapping[str, Any]]] = {}
    for row in rows:
        key = (row["config"], row["algorithm"], row["budget"])
        cell.setdefault(key, {})[row["position"]] = row
    out = []
    for k in outcomes:
        name = config_name(k)
        for algorithm in ALGORITHMS:
            for budget in trees.budgets:
                mine = cell.get((name, algorithm, budget))
                if not mine:
                    continue
                counterpart = COUNTERPART.get(algorithm)
                theirs = cell.get((name, counterpart, budget)) if counterpart else None
                out.append(
                    {
                        "algorithm": algorithm,
                        "options": trees.describe(),
                        "budget_nodes": budget,
                        "config": name,
                        "classic": f"{name}:{counterpart}" if counterpart else "",
                        **cell_statistics(mine, theirs),
                    }
                )
    return out


def verdict(diff: float, se: float) -> str:
    """'better', 'worse' (beyond one standard error `se`), or 'level'. A difference made by
    one position alone is exactly its own standard error: the slack keeps rounding from
    calling it beyond."""
    if math.isnan(diff) or (not math.isnan(se) and abs(diff) <= se * (1.0 + 1e-9)):
        return "level"
    return "better" if diff < 0.0 else "worse"


def goal_table(summary: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown lines: per (outcomes, budget), the classic regret of each algorithm and the
    paired differences hybrid - classic and MCMS - classic (x 1e3, standard error)."""
    by_key = {(r["config"], r["algorithm"], r["budget_nodes"]): r for r in summary}
    cells = sorted(
        {(r["config"], r["budget_nodes"]) for r in summary},
        key=lambda c: (int(c[0].removeprefix("outcomes")), c[1]),
    )

    def diff(config: str, algorithm: str, budget: int) -> str:
        r = by_key.get((config, algorithm, budget))
        if r is None or math.isnan(r["paired_diff"]):
            return ""
        mark = {"better": " +", "worse": " -", "level": ""}[
            verdict(r["paired_diff"], r["paired_stderr"])
        ]
        return f"{1e3 * r['paired_diff']:+.1f} ({1e3 * r['paired_stderr']:.1f}){mark}"

    lines = [
        "| outcomes | budget | trees | exp / star1 / star2 regret x1e3 | "
        "exphs - exp | star1hs - star1 | star2hs - star2 | "
        "expss - exp | star1ss - star1 | star2ss - star2 |",
        "|---:|---:|---:|---|---|---|---|---|---|---|",
    ]
    for config, budget in cells:
        classic = [by_key.get((config, a, budget)) for a in CLASSIC]
        regrets = " / ".join("" if r is None else f"{1e3 * r['mean_regret']:.1f}" for r in classic)
        trees = max((r["positions"] for r in classic if r is not None), default=0)
        lines.append(
            f"| {config.removeprefix('outcomes')} | {budget:,} | {trees} | {regrets} | "
            + " | ".join(diff(config, a, budget) for a in (*HYBRID, *SAMPLED))
            + " |"
        )
    return lines


def depth_table(summary: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown lines: the mean depth completed per (outcomes, budget) by each algorithm
    (depth 3 on trees of depth 3 sees every leaf, sampled or not)."""
    by_key = {(r["config"], r["algorithm"], r["budget_nodes"]): r for r in summary}
    cells = sorted(
        {(r["config"], r["budget_nodes"]) for r in summary},
        key=lambda c: (int(c[0].removeprefix("outcomes")), c[1]),
    )
    lines = [
        "| outcomes | budget | " + " | ".join(ALGORITHMS) + " |",
        "|---:|---:|" + "---:|" * len(ALGORITHMS),
    ]
    for config, budget in cells:
        depths = [by_key.get((config, a, budget)) for a in ALGORITHMS]
        lines.append(
            f"| {config.removeprefix('outcomes')} | {budget:,} | "
            + " | ".join("" if r is None else f"{r['mean_depth']:.2f}" for r in depths)
            + " |"
        )
    return lines


def verdict_counts(summary: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown lines: for the hybrid and the MCMS searches, the (outcomes, budget, algorithm)
    cells better than classic, level and worse beyond one standard error, and the worst."""
    lines = [
        "| search | cells | better (> 1 se) | better (> 2 se) | level | worse (> 1 se) | "
        "worse (> 2 se) | largest excess over classic x1e3 (se) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, names in (("hybrid", HYBRID), ("MCMS", SAMPLED)):
        rows = [r for r in summary if r["algorithm"] in names and not math.isnan(r["paired_diff"])]
        if not rows:
            continue
        kinds = [verdict(r["paired_diff"], r["paired_stderr"]) for r in rows]
        twice = [verdict(r["paired_diff"], 2.0 * r["paired_stderr"]) for r in rows]
        worst = max(rows, key=lambda r: r["paired_diff"])
        lines.append(
            f"| {label} | {len(rows)} | {kinds.count('better')} | {twice.count('better')} | "
            f"{kinds.count('level')} | {kinds.count('worse')} | {twice.count('worse')} | "
            f"{1e3 * worst['paired_diff']:+.2f} ({1e3 * worst['paired_stderr']:.2f}): "
            f"{worst['algorithm']}, {worst['config']}, {worst['budget_nodes']:,} nodes |"
        )
    return lines


def plot(summary: Sequence[Mapping[str, Any]], outcomes: Sequence[int], out: Path) -> None:
    """regret.png: regret against the budget, one panel per number of outcomes (log x axis,
    standard errors as bars; classic dashed, MCMS dotted, hybrid solid)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    present = {r["config"] for r in summary}
    names = [config_name(k) for k in outcomes if config_name(k) in present]
    if not names:
        return
    columns = min(3, len(names))
    rows = math.ceil(len(names) / columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False, sharey=True
    )
    for ax, name in zip(axes.flat, names, strict=False):
        for algorithm in ALGORITHMS:
            points = [r for r in summary if r["config"] == name and r["algorithm"] == algorithm]
            if not points:
                continue
            style = "--" if algorithm in CLASSIC else (":" if algorithm in SAMPLED else "-")
            ax.errorbar(
                [r["budget_nodes"] for r in points],
                [1e3 * r["mean_regret"] for r in points],
                yerr=[1e3 * r["stderr"] for r in points],
                label=algorithm, linestyle=style, marker="o", ms=3,
                color=COLORS[algorithm],
            )  # fmt: skip
        ax.set_xscale("log")
        ax.set_title(f"at most {name.removeprefix('outcomes')} outcomes", fontsize=9)
        ax.set_xlabel("nodes per move")
    for ax in axes.flat[len(names) :]:
        ax.set_visible(False)
    axes[0][0].set_ylabel("regret x 1e3")
    axes[0][0].legend(fontsize=6, ncol=3)
    fig.suptitle("Random chance trees: regret against exhaustive expectimax", fontsize=10)
    save_figure(fig, out / "regret.png", dpi=110)


def write_summaries(
    out: Path,
    rows: Sequence[Mapping[str, Any]],
    outcomes: Sequence[int],
    trees: Trees,
    command_line: Sequence[str] = (),
) -> None:
    """regret.csv, README.md and regret.png from the raw rows; the README names
    `command_line` (the arguments of `chancespiel`) as the summarising command."""
    present = sorted(set(outcomes) | {int(r["config"].removeprefix("outcomes")) for r in rows})
    summary = summarise(rows, present, trees)
    write_csv(out / "regret.csv", summary)
    plot(summary, present, out)
    gaps: dict[str, list[float]] = {}
    for r in rows:
        if r["algorithm"] == CLASSIC[0] and r["budget"] == trees.budgets[0]:
            gaps.setdefault(r["config"], []).append(r["gap"])
    decisions = ", ".join(
        f"{k}: {sum(g > WRONG for g in gaps[config_name(k)])}/{len(gaps[config_name(k)])}"
        for k in present
        if config_name(k) in gaps
    )
    readme = [
        "# Regret at equal node budgets on random chance trees",
        "",
        f"Summarised by `{command_text(command_line)}` (chancespiel "
        f"{package_version()}, commit {git_commit()}, {datetime.date.today().isoformat()}); "
        "the experiment is `lab/studies/chance_tree_regret.py`, whose docstring defines "
        f"every term. The rows were played in chunks, by these commands ({COMMANDS}):",
        "",
        "```",
        *logged_commands(out),
        "```",
        "",
        f"Trees: `python_chance_tree` with {trees.describe().replace(';', ', ')} and the "
        "outcomes below (at most that many per chance node; each node has 1 to that many). "
        f"Trees whose root moves differ in exact value (per outcomes): {decisions}. Regret "
        "in the game's returns x 1e3, against exhaustive expectimax; standard errors over "
        "trees in brackets; differences are paired tree by tree (negative: the sampled "
        "search is better). Raw rows: raw.jsonl; every cell: regret.csv; plot: regret.png.",
        "",
        "## Against classic search, cell by cell",
        "",
        "A difference marked + is better than classic search by more than one standard "
        "error, - worse by more than one.",
        "",
        *goal_table(summary),
        "",
        *verdict_counts(summary),
        "",
        "## Depth completed",
        "",
        "Mean depth of the last completed iteration (decision plies; the trees have "
        f"{trees.depth}):",
        "",
        *depth_table(summary),
        "",
        "## Every cell",
        "",
        markdown(summary),
        "",
    ]
    write_text(out / "README.md", "\n".join(readme))
    print("\n".join(goal_table(summary)))  # the main table; every cell is in the README
    print(f"written to {out}: regret.csv, README.md, regret.png")


# --- The run --------------------------------------------------------------------------------


def _seeds(out: Path, count: int, seed: int, depth: int, branching: int) -> tuple[int, ...]:
    """The trees' seeds: read from positions.csv, or drawn and written there."""
    path = out / "positions.csv"
    if path.exists():
        return read_positions(path, count, lambda row: int(row["tree_seed"]), "trees")
    seeds = tree_seeds(count, seed, depth, branching)
    with open_output(path, newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["index", "tree_seed"])
        writer.writerows(enumerate(seeds))
    return tuple(seeds)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--positions", type=positions_arg, default=300, help="trees per cell")
    parser.add_argument(
        "--outcomes",
        type=Bounded(int, *CHANCE_TREE_BOUNDS["outcomes"]).each,
        default=",".join(map(str, DEFAULT_OUTCOMES)),
        help="comma-separated maximum numbers of outcomes per chance node",
    )
    parser.add_argument(
        "--depth",
        type=Bounded(int, *CHANCE_TREE_BOUNDS["depth"]),
        default=3,
        help="decision plies of the trees",
    )
    parser.add_argument(
        "--branching",
        type=Bounded(int, *CHANCE_TREE_BOUNDS["branching"]),
        default=3,
        help="actions at most at a decision node",
    )
    parser.add_argument(
        "--chance-prob",
        type=Bounded(float, *CHANCE_PROB_RANGE),
        default=0.5,
        help="probability that a node is a chance node",
    )
    parser.add_argument(
        "--width",
        type=Bounded(int, MIN_HYBRID_SAMPLES, MAX_SAMPLES),
        default=8,
        help="outcomes sampled per chance node by the sampled and hybrid searches (at least "
        "the hybrid's narrowest width)",
    )
    parser.add_argument(
        "--prune-min-depth",
        type=Bounded(int, 0, 100),
        default=0,
        help="chance nodes with at most this remaining depth are averaged without pruning",
    )
    parser.add_argument(
        "--exact-plies",
        type=Bounded(int, 0, CHANCE_TREE_BOUNDS["depth"][1]),
        help="the hybrid searches enumerate chance nodes within this many plies of the root "
        "(default: the hybrid's own, 1)",
    )
    for name, text in SWITCHES.items():
        parser.add_argument(_flag(name), dest=name, action="store_true", help=text)
    add_run_arguments(parser, DEFAULT_BUDGETS, "chance_tree_regret")


OUTPUTS = ("regret.csv", "README.md", "regret.png")


def _flag(option: str) -> str:
    """The flag of an option of the hybrid: classic_first -> --classic-first."""
    return "--" + option.replace("_", "-")


def _run(args: argparse.Namespace) -> None:
    budgets = check_run_arguments(args)
    outcomes = tuple(args.outcomes)
    if len(set(outcomes)) != len(outcomes):
        raise UsageError(f"--outcomes: distinct numbers of outcomes, not {outcomes}")
    settings = {
        "positions": args.positions,
        "budgets": list(budgets),
        "seed": args.seed,
        "depth": args.depth,
        "branching": args.branching,
        "chance_prob": args.chance_prob,
        "width": args.width,
        "prune_min_depth": args.prune_min_depth,
    }
    if args.exact_plies is not None:  # (runs made without the option keep their settings)
        settings["exact_plies"] = args.exact_plies
    switches = frozenset(name for name in SWITCHES if getattr(args, name))
    on = {**{name: name in switches for name in SWITCHES}, "exact_plies": args.exact_plies != 0}
    for option, needed, why in OPTION_NEEDS:  # (--exact-plies unset: the hybrid's 1)
        if on.get(option) and not on[needed]:
            raise UsageError(f"{_flag(option)} needs {_flag(needed)} ({why})")
    settings.update((name, True) for name in SWITCHES if name in switches)
    hint = "--positions, --budgets, --seed, --depth, --branching, --chance-prob, --width and "
    hint += ", ".join(["--prune-min-depth", "--exact-plies", *map(_flag, SWITCHES)])
    out = run_directory(args.out, "chance_tree_regret", settings, hint, OUTPUTS, ("positions.csv",))
    seeds = _seeds(out, args.positions, args.seed, args.depth, args.branching)
    trees = Trees(
        seeds,
        args.depth,
        args.branching,
        args.chance_prob,
        args.width,
        args.prune_min_depth,
        budgets,
        args.seed,
        args.exact_plies,
        switches,
    )
    raw = out / "raw.jsonl"
    complete = True
    if not args.summarise_only:
        rows = read_rows(raw)
        done = {(r["config"], r["position"]) for r in rows}
        tasks = [
            (trees, k, index)
            for index in range(len(seeds))  # position by position: every column grows
            for k in outcomes
            if (config_name(k), index) not in done
        ]
        by_config = {config_name(k): k for k in outcomes}
        to_go = [(config_name(k), index) for _, k, index in tasks]
        check_resumed(raw, search_tree, rows, to_go, lambda name, i: (trees, by_config[name], i))
        print(
            f"chance-tree-regret: {len(seeds)} trees, outcomes {','.join(map(str, outcomes))}, "
            f"budgets {','.join(map(str, budgets))}; {len(done)} (outcomes, tree) tasks done, "
            f"{len(tasks)} to go; writing {raw}",
            flush=True,
        )
        complete = run_chunk(out, search_tree, tasks, args)
    write_summaries(out, read_rows(raw), outcomes, trees, args.command_line)
    if not complete:
        print(f"stopped at --max-minutes; the same command resumes ({out})")


EXPERIMENT = Experiment.listed("chance-tree-regret", _add_arguments, _run)
