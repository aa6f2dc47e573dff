"""When does sampling chance nodes pay? Regret at equal node budgets on two-dice Pig.

The MCMS paper's question ("Monte Carlo *-Minimax Search", Lanctot et al. 2013, sections 3.1
and 4.3-4.4) asked as a controlled experiment: expectimax, Star1 and Star2 and their sampled
versions expSS, star1SS and star2SS search the same positions with the same node budget, and
the exact solver says what each chosen move costs. Explains the Pig bars of the paper's
Figure 2 by measuring, position by position, what sampling gains and loses. Regret = the
solver's best win probability minus that of the chosen move (for the mover, in win
probability); a move is wrong when its regret is above 1e-9. Each sampled algorithm is
compared with its classic counterpart position by position (paired differences).

Positions are the paper's S_obs: decision states seen in games between the six players (the
paper's Pig widths, pruning ignored at depth <= 2, a small node budget so that the games are
reproducible), every ordered pair and both seats, forced moves and duplicates dropped, then a
seeded sample. A position has a real decision when rolling and stopping differ in win
probability by more than 1e-6.

Configurations are the factors that could decide the answer, each a '+'-joined list of tokens
(the rest as in `base`):

    base        unordered dice (21 outcomes), the paper's widths (20, 25, 18), the default
                heuristic
    ordered     ordered dice (36 outcomes: the same game, more work for classic search)
    widthN      sample width N for all three sampled algorithms
    lead        the plain score-lead heuristic (heuristic=lead)
    zero        no heuristic: 0 everywhere but at the end (heuristic=zero), so only the
                search's depth informs the move
    oracleS     a laboratory heuristic: the solver's own value plus Gaussian noise of standard
                deviation S (0 = perfect), a fixed function of the state, clipped to [-1, 1]
    resample, full_root_window, distrust_decided, solve_exhausted, shared_samples, systematic,
    stratified, classic_first, classic_trial, fit_exact_plies, capped_trial, fit_within_ply,
    classic_within_ply, growth_two_back, first_cap_two_back
                an opt-in option of the sampled search (docs/agents.md)
    hybrid      at the configuration's widths: systematic draws, nodes of at most the width or
                right after the root's move enumerated; with classic_first, classic_trial and
                fit_exact_plies, the hybrid agents (exphs, star1hs, star2hs); with stratified,
                stratified draws instead of systematic ones
    exactN      the sampled search enumerates chance nodes of at most N outcomes (exact_up_to)
    pliesN      the sampled search enumerates chance nodes within N plies of the root
                (exact_plies)
    segapX      the sampled search draws again at a chance node searched without a window
                until its standard error is at most X times the root's move gap (se_gap)
    path        the best-move table keyed by path (table=path) instead of by state

Classic algorithms are searched only where a token changes them (dice, heuristic, table); a
configuration that changes only the sampled search (a width, a sampled option) is compared
with the classic rows of the configuration without those tokens.

    chancespiel experiment pig-regret --positions 300 --configs base,ordered,width5,width50 \\
        --budgets 1000,3000,10000,30000,100000 --out results/pig_regret/RUN

The run appends one line per (configuration, position) to `raw.jsonl` as it finishes, so the
same command resumes a run cut short (`--max-minutes` ends one cleanly); every run ends by
writing `regret.csv`, `regret_real.csv` (positions with a real decision only), `README.md` and
the plots (also alone with `--summarise-only`).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import math
import os
import random
import re
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import pyspiel

from chancespiel.agents.search_common import MAX_NODES
from chancespiel.agents.star_minimax import SampledOptions, check_sampled_options, search
from chancespiel.evaluation.figures import save_figure
from chancespiel.evaluation.match import package_version
from chancespiel.evaluation.resumable import (
    COMMANDS,
    check_resumed,
    git_commit,
    log_command,
    logged_commands,
    read_rows,
    run_directory,
    run_tasks,
)
from chancespiel.evaluation.usage import (
    Bounded,
    UsageError,
    command_text,
    minutes_arg,
    positions_arg,
    seed_arg,
    workers_arg,
    write_text,
)
from chancespiel.files import open_output, open_text, stored
from chancespiel.games.pig_core import ROLL, PigCore
from chancespiel.games.pig_solver import solve_pig
from chancespiel.games.registry import evaluation_for
from chancespiel.studies import Experiment, mcms_setup
from chancespiel.studies.pig_estimators import (
    GAME,
    WINSCORE,
    collect_states,
    core_of,
    exact_values,
)

ORDERED_GAME = f"python_pig(dice=2,winscore={WINSCORE},ordered_dice=true)"
CLASSIC = ("expectimax", "star1", "star2")
SAMPLED = ("expss", "star1ss", "star2ss")
COUNTERPART = dict(zip(SAMPLED, CLASSIC, strict=True))
COLORS = {name: f"C{i}" for i, name in enumerate((*CLASSIC, *SAMPLED))}  # fixed in every panel
ALGORITHM = {**{name: name for name in CLASSIC}, **COUNTERPART}  # name -> search algorithm
PAPER_WIDTHS = dict(zip(SAMPLED, mcms_setup.SETUPS["pig"].samples, strict=True))
SAMPLED_OPTIONS = (
    "resample",
    "full_root_window",
    "distrust_decided",
    "solve_exhausted",
    "shared_samples",
    "systematic",
    "stratified",
    "hybrid",
    "classic_first",
    "classic_trial",
    "fit_exact_plies",
    "capped_trial",
    "fit_within_ply",
    "classic_within_ply",
    "growth_two_back",
    "first_cap_two_back",
)
COUNTED_OPTIONS = {"exact": "exact_up_to", "plies": "exact_plies"}  # token prefix: keyword
# The token 'hybrid' keeps the meaning its committed rows were searched with: systematic draws,
# nodes of at most the width (exact_up_to) and those after the root's move enumerated. The
# hybrid agents (hybrid_options in agents/star_minimax.py) star1hs and star2hs are
# 'classic_first+classic_trial+fit_exact_plies+fit_within_ply+classic_within_ply+
# growth_two_back+first_cap_two_back+hybrid+stratified' (with stratified, the token's draws are
# stratified; before version 0.4.0 without first_cap_two_back; since version 0.5.0 with
# exactN, N a third more than the width: `hybrid_exact_up_to`), and exphs (and the three before
# version 0.3.0) 'classic_first+classic_trial+fit_exact_plies+hybrid'.
HYBRID_TOKEN = {"systematic": True, "exact_plies": 1}
SE_GAP_TOKEN = "segap"  # segapX: se_gap=X
DEFAULT_BUDGETS = (1000, 3000, 10000, 30000, 100000)
DEFAULT_CONFIGS = (
    "base",
    "ordered",
    "width5",
    "width50",
    "lead",
    "oracle0",
    "oracle0.05",
    "oracle0.2",
)
COLLECT_NODES = 2000  # node budget of the players whose games give the positions
REAL_GAP = 1e-6  # win-probability gap between roll and stop that makes a real decision
WRONG = 1e-9  # a regret above this is a wrong move
COLUMNS: tuple[str, ...] = ("algorithm", "options", "budget_nodes", "positions")
COLUMNS += ("mean_regret", "stderr")
COLUMNS += ("mean_depth", "wrong_rate", "mean_nodes", "config", "classic")
COLUMNS += ("paired_diff", "paired_stderr")


@dataclass(frozen=True)
class Config:
    """One setting of the factors, parsed from its name (module docstring)."""

    name: str
    ordered: bool = False
    widths: Mapping[str, int] = field(default_factory=lambda: dict(PAPER_WIDTHS))
    heuristic: str = "default"  # a registered Pig heuristic, or "oracle"
    noise: float = 0.0  # the oracle's noise
    options: tuple[str, ...] = ()  # opt-in options of the sampled search
    path_table: bool = False

    @property
    def classic_reference(self) -> str:
        """The configuration whose classic rows this one's sampled rows are compared with."""
        tokens = [t for t in self.name.split("+") if _changes_classic(t)]
        return "+".join(tokens) or "base"

    @property
    def runs_classic(self) -> bool:
        """True if this configuration searches the classic algorithms itself."""
        return self.classic_reference == self.name

    def algorithms(self) -> tuple[str, ...]:
        return (*CLASSIC, *SAMPLED) if self.runs_classic else SAMPLED

    def describe(self) -> str:
        """Every factor, for the `options` column."""
        widths = (
            "paper"
            if dict(self.widths) == PAPER_WIDTHS
            else "/".join(str(self.widths[name]) for name in SAMPLED)
        )
        heuristic = (
            f"oracle(noise={self.noise:g})" if self.heuristic == "oracle" else self.heuristic
        )
        search_options = ",".join([*self.options, *(["table=path"] if self.path_table else [])])
        return (
            f"dice={'ordered' if self.ordered else 'unordered'};width={widths};"
            f"heuristic={heuristic};search={search_options or 'paper'}"
        )


def _counted(token: str) -> tuple[str, int] | None:
    """(keyword, count) of a counted option token such as 'plies1', else None."""
    for prefix, keyword in COUNTED_OPTIONS.items():
        if token.startswith(prefix) and _DIGITS.fullmatch(token[len(prefix) :]):
            return keyword, int(token[len(prefix) :])
    return None


def search_keywords(options: Sequence[str], width: int) -> dict[str, Any]:
    """The keywords of `search` that the option tokens set for a sampled search of `width`
    (shared_samples is passed apart)."""
    keywords: dict[str, Any] = {}
    for token in options:
        counted = _counted(token)
        if token.startswith(SE_GAP_TOKEN):
            keywords["se_gap"] = float(token[len(SE_GAP_TOKEN) :])
        elif counted is not None:
            keywords[counted[0]] = counted[1]
        elif token == "hybrid":  # the hybrid agents' first three options (HYBRID_TOKEN)
            keywords.update(HYBRID_TOKEN)
            keywords.setdefault("exact_up_to", width)  # an exactN token wherever it stands
            if "stratified" in options and "systematic" not in options:
                del keywords["systematic"]  # its draws stratified instead of systematic ones
        elif token != "shared_samples":
            keywords[token] = True
    return keywords


def _changes_classic(token: str) -> bool:
    return token in ("ordered", "lead", "zero", "path") or token.startswith("oracle")


def parse_config(name: str) -> Config:
    """The configuration named `name`, e.g. 'ordered+width5'.

    Raises:
      ValueError: for an unknown or repeated token, a bad width or noise, or options the
        sampled search refuses together (an option without the one it needs).
    """
    fields: dict[str, Any] = {"name": name}
    options: list[str] = []
    for token in name.split("+"):
        key: str
        value: Any
        if token == "base":
            continue
        if token == "ordered":
            key, value = "ordered", True
        elif token == "path":
            key, value = "path_table", True
        elif token in ("lead", "zero"):
            key, value = "heuristic", token
        elif token.startswith("width"):
            width = _number(token, "width", int)
            if width < 1:
                raise ValueError(f"{token}: a width must be >= 1")
            key, value = "widths", dict.fromkeys(SAMPLED, width)
        elif token.startswith("oracle"):
            noise = _number(token, "oracle", float)
            if not 0.0 <= noise <= 10.0:
                raise ValueError(f"{token}: the noise must be in [0, 10]")
            fields["noise"] = noise
            key, value = "heuristic", "oracle"
        elif token in SAMPLED_OPTIONS or _counted(token):
            options.append(token)
            continue
        elif token.startswith(SE_GAP_TOKEN):
            _number(token, SE_GAP_TOKEN, float)  # its range is checked with the options
            options.append(token)
            continue
        else:
            tokens = ("base, ordered, widthN, lead, zero, oracleS, path, segapX", *SAMPLED_OPTIONS)
            known = ", ".join((*tokens, *(f"{prefix}N" for prefix in COUNTED_OPTIONS)))
            raise ValueError(f"unknown configuration token {token!r}; known: {known}")
        if key in fields:
            raise ValueError(f"configuration {name!r} sets {key} twice")
        fields[key] = value
    # (exact24+exact25, segap0.5+segap1: the same keyword twice, the last one would win)
    keywords = [_keyword(token) for token in options]
    if len(set(keywords)) != len(keywords):
        raise ValueError(f"configuration {name!r} repeats an option")
    check_sampled_options(1, SampledOptions(**search_keywords(options, 1)))
    return Config(**fields, options=tuple(options))


def _keyword(token: str) -> str:
    """The keyword of `search` an option token sets (the token itself for a switch)."""
    counted = _counted(token)
    if counted is not None:
        return counted[0]
    return "se_gap" if token.startswith(SE_GAP_TOKEN) else token


# A number in a token: digits, and for a float one point with digits after it (no sign,
# space, exponent or underscore, which int() and float() would read).
_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")


def _number(token: str, prefix: str, kind: Callable[[str], Any]) -> Any:
    text = token[len(prefix) :]
    if not (_DIGITS if kind is int else _DECIMAL).fullmatch(text):
        raise ValueError(f"{token}: {prefix} needs a number, e.g. {prefix}5")
    return kind(text)


# --- The laboratory heuristic --------------------------------------------------------------

ORACLE_SEED = 20131  # the noise is a fixed function of (state, noise level, this seed)
MAX_CACHE = 1_000_000


def oracle_heuristic(noise: float) -> Callable[[PigCore, int], float]:
    """h(core, player): the exact value 2 P(win) - 1 of `player` plus N(0, noise^2), the same
    for the same state however it is reached, clipped to [-1, 1]; exact at the end."""
    solution = solve_pig(dice=2, winscore=WINSCORE)
    cache: dict[tuple[Any, ...], float] = {}

    def evaluate(core: PigCore, player: int) -> float:
        if core.over:
            return core.returns()[player]
        key = (core.scores, core.turn_total, core.turn_player, core.rolling, player)
        value = cache.get(key)
        if value is None:
            value = 2.0 * solution.state_win_probability(core, player) - 1.0
            if noise > 0.0:
                # The noise of the state, not of the player: -h for the other player.
                state = key[:4]
                sign = 1.0 if player == 0 else -1.0
                value += sign * noise * random.Random(hash((state, ORACLE_SEED))).gauss()
                value = min(1.0, max(-1.0, value))
            if len(cache) >= MAX_CACHE:
                cache.clear()
            cache[key] = value
        return value

    return evaluate


# --- Searching one position -----------------------------------------------------------------


@dataclass(frozen=True)
class Study:
    """What every task of one run shares."""

    positions: tuple[tuple[int, ...], ...]
    budgets: tuple[int, ...]
    seed: int


def position_seed(seed: int, index: int, budget: int) -> int:
    """The sample seed at one (position, budget): the same for the three sampled algorithms,
    so they sample alike."""
    return (seed * 1_000_003 + index * 7919 + budget) & ((1 << 63) - 1)


def search_position(task: tuple[Study, str, int]) -> list[dict[str, Any]]:
    """Every algorithm of the configuration at every budget on one position: one raw row each."""
    study, config_name, index = task
    config = parse_config(config_name)
    key = study.positions[index]
    game = pyspiel.load_game(ORDERED_GAME if config.ordered else GAME)
    core = core_of(key)
    if config.ordered:  # the same position in the ordered game
        ordered = game.new_initial_state().core
        for name in ("scores", "turn_total", "turn_player", "rolling", "moves", "over"):
            setattr(ordered, name, getattr(core, name))
        core = ordered
    evaluation = (
        oracle_heuristic(config.noise)
        if config.heuristic == "oracle"
        else evaluation_for(game, config.heuristic)
    )
    best, action_values = exact_values(key)
    best_probability = (best + 1.0) / 2.0
    rows = []
    for algorithm in config.algorithms():
        for budget in study.budgets:
            sampled = algorithm in SAMPLED
            result = search(
                core.clone(),
                game,
                ALGORITHM[algorithm],
                max_nodes=budget,
                samples=config.widths[algorithm] if sampled else None,
                shared_samples=sampled and "shared_samples" in config.options,
                seed=position_seed(study.seed, index, budget),
                prune_min_depth=mcms_setup.PRUNE_MIN_DEPTH,
                evaluation=evaluation,
                table="path" if config.path_table else "state",
                **(search_keywords(config.options, config.widths[algorithm]) if sampled else {}),
            )
            regret = best_probability - (action_values[result.action] + 1.0) / 2.0
            rows.append(
                {
                    "config": config_name,
                    "position": index,
                    "algorithm": algorithm,
                    "budget": budget,
                    "action": result.action,
                    "regret": max(0.0, regret),
                    "depth": result.depth,
                    "nodes": result.nodes,
                    "value": result.value,
                }
            )
    return rows


# --- Positions ------------------------------------------------------------------------------


def collection_specs() -> dict[str, str]:
    """The six players whose games give the positions (node budgets: reproducible games)."""
    star = f"max_nodes={COLLECT_NODES},prune_min_depth={mcms_setup.PRUNE_MIN_DEPTH}"
    return {
        "exp": f"expectimax({star})",
        "star1": f"star1({star})",
        "star2": f"star2({star})",
        **{name: f"{name}(samples={PAPER_WIDTHS[name]},{star})" for name in SAMPLED},
    }


def gap_of(key: tuple[int, ...]) -> float:
    """|P(win | roll) - P(win | stop)| of the mover at the decision state `key`."""
    _, values = exact_values(key)
    return abs(values[0] - values[1]) / 2.0


def roll_noise(key: tuple[int, ...]) -> float:
    """The standard deviation of the mover's exact win probability over the outcomes of the
    roll at the decision state `key`: a sampled chance node of width c estimates roll's value
    with a standard error of this / sqrt(c), even with exact values below it."""
    solution = solve_pig(dice=2, winscore=WINSCORE)
    core = core_of(key)
    mover = core.turn_player
    rolled = core.child(ROLL)
    outcomes = [(p, rolled.child(a)) for a, p in rolled.chance_outcomes()]
    values = [
        (p, solution.state_win_probability(cast(PigCore, child), mover)) for p, child in outcomes
    ]
    mean = sum(p * v for p, v in values)
    return math.sqrt(sum(p * (v - mean) ** 2 for p, v in values))


def predicted_by_root_noise(
    positions: Sequence[tuple[int, ...]], width: int
) -> tuple[float, float]:
    """(wrong rate, mean regret) of a search that knows every value exactly but samples the
    roll's outcomes once with `width` draws (a normal approximation of the sample mean): the
    error sampling alone causes, whatever the depth or the heuristic."""
    wrong, regret = [], []
    for key in positions:
        gap, sd = gap_of(key), roll_noise(key) / math.sqrt(width)
        p_wrong = 0.5 * math.erfc(gap / sd / math.sqrt(2.0)) if sd > 0.0 else 0.0
        wrong.append(p_wrong)
        regret.append(gap * p_wrong)
    return statistics.fmean(wrong), statistics.fmean(regret)


def noise_table(
    summary: Sequence[Mapping[str, Any]], positions: Sequence[tuple[int, ...]]
) -> list[str]:
    """Markdown lines: the regret predicted from the root's sampling noise against the regret
    the sampled algorithms measured (mean over their budgets), per width and configuration
    with unordered dice, no options and the default or the perfect (oracle0) heuristic."""
    measured: dict[tuple[int, str], list[Mapping[str, Any]]] = {}
    for row in summary:
        config = parse_config(str(row["config"]))
        heuristic_ok = config.heuristic == "default" or (
            config.heuristic == "oracle" and config.noise == 0.0
        )
        plain = not (config.ordered or config.options or config.path_table)
        if row["algorithm"] in SAMPLED and heuristic_ok and plain:
            key = (config.widths[row["algorithm"]], config.name)
            measured.setdefault(key, []).append(row)
    lines = [
        "| width | configuration | predicted wrong | predicted regret x1e3 | measured wrong "
        "| measured regret x1e3 | summary rows |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for width, name in sorted(measured):
        wrong, regret = predicted_by_root_noise(positions, width)
        rows = measured[width, name]
        lines.append(
            f"| {width} | {name} | {wrong:.1%} | {1e3 * regret:.2f} | "
            f"{statistics.fmean(r['wrong_rate'] for r in rows):.1%} | "
            f"{1e3 * statistics.fmean(r['mean_regret'] for r in rows):.2f} | {len(rows)} |"
        )
    return lines


# --- Summaries ------------------------------------------------------------------------------


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, statistics.stdev(values) / math.sqrt(len(values))


Cell = Mapping[int, Mapping[str, Any]]  # one (algorithm, budget)'s raw rows by position


def cell_statistics(mine: Cell, theirs: Cell | None = None) -> dict[str, Any]:
    """The statistics of one cell's rows (positions, mean_regret, stderr, mean_depth,
    wrong_rate, mean_nodes), and its regret minus that of `theirs` paired on the positions
    both have (paired_diff, paired_stderr; NaN without `theirs` or common positions)."""
    mean, se = _mean_se([r["regret"] for r in mine.values()])
    stats = {
        "positions": len(mine),
        "mean_regret": mean,
        "stderr": se,
        "mean_depth": statistics.fmean(r["depth"] for r in mine.values()),
        "wrong_rate": statistics.fmean(r["regret"] > WRONG for r in mine.values()),
        "mean_nodes": statistics.fmean(r["nodes"] for r in mine.values()),
        "paired_diff": math.nan,
        "paired_stderr": math.nan,
    }
    both = sorted(set(mine) & set(theirs or {}))
    if theirs and both:
        diffs = [mine[p]["regret"] - theirs[p]["regret"] for p in both]
        stats["paired_diff"], stats["paired_stderr"] = _mean_se(diffs)
    return stats


def summarise(
    rows: Sequence[Mapping[str, Any]],
    configs: Sequence[str],
    budgets: Sequence[int],
    only: set[int] | None = None,
) -> list[dict[str, Any]]:
    """One summary row per (configuration, algorithm, budget) with rows, in COLUMNS order;
    `only` restricts to those positions."""
    cell: dict[tuple[str, str, int], dict[int, Mapping[str, Any]]] = {}
    for row in rows:
        if only is None or row["position"] in only:
            cell.setdefault((row["config"], row["algorithm"], row["budget"]), {})[
                row["position"]
            ] = row
    out = []
    for name in configs:
        config = parse_config(name)
        for algorithm in (*CLASSIC, *SAMPLED):
            for budget in budgets:
                mine = cell.get((name, algorithm, budget))
                if not mine:
                    continue
                classic = theirs = None
                if algorithm in SAMPLED:
                    classic = (config.classic_reference, COUNTERPART[algorithm])
                    theirs = cell.get((*classic, budget))
                summary = {
                    "algorithm": algorithm,
                    "options": config.describe(),
                    "budget_nodes": budget,
                    "config": name,
                    "classic": ":".join(classic or ()),
                    **cell_statistics(mine, theirs),
                }
                out.append(summary)
    return out


def write_csv(path: Path, summary: Sequence[Mapping[str, Any]]) -> None:
    """`summary` as CSV with the COLUMNS header."""
    with open_output(path, newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for row in summary:
            writer.writerow(
                {k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()}
            )


def markdown(summary: Sequence[Mapping[str, Any]]) -> str:
    """Regret x 1e3 with its standard error, mean depth, and the paired difference."""
    lines = [
        "| config | algorithm | budget | positions | regret x1e3 (se) | wrong | depth | "
        "sampled - classic x1e3 (se) |",
        "|---|---|---:|---:|---|---:|---:|---|",
    ]
    for r in summary:
        paired = (
            ""
            if math.isnan(r["paired_diff"])
            else f"{1e3 * r['paired_diff']:+.2f} ({1e3 * r['paired_stderr']:.2f})"
        )
        lines.append(
            f"| {r['config']} | {r['algorithm']} | {r['budget_nodes']:,} | {r['positions']} | "
            f"{1e3 * r['mean_regret']:.2f} ({1e3 * r['stderr']:.2f}) | "
            f"{100 * r['wrong_rate']:.1f}% | {r['mean_depth']:.2f} | {paired} |"
        )
    return "\n".join(lines)


def plot(summary: Sequence[Mapping[str, Any]], configs: Sequence[str], out: Path) -> None:
    """regret.png (regret against budget per configuration) and paired.png (sampled minus
    classic against budget), log x axes, standard errors as bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [c for c in configs if any(r["config"] == c for r in summary)]
    if not names:
        return
    columns = min(4, len(names))
    rows = math.ceil(len(names) / columns)
    for kind in ("regret", "paired"):
        fig, axes = plt.subplots(
            rows, columns, figsize=(4 * columns, 3.2 * rows), squeeze=False, sharey=True
        )
        for ax, name in zip(axes.flat, names, strict=False):
            algorithms = (*CLASSIC, *SAMPLED) if kind == "regret" else SAMPLED
            for algorithm in algorithms:
                # a configuration without classic rows is drawn against its reference's
                source = parse_config(name).classic_reference if algorithm in CLASSIC else name
                points = [
                    r for r in summary if r["config"] == source and r["algorithm"] == algorithm
                ]
                if kind == "paired":
                    points = [r for r in points if not math.isnan(r["paired_diff"])]
                if not points:
                    continue
                x = [r["budget_nodes"] for r in points]
                key, se = (
                    ("mean_regret", "stderr")
                    if kind == "regret"
                    else ("paired_diff", "paired_stderr")
                )
                y = [1e3 * r[key] for r in points]
                err = [1e3 * r[se] for r in points]
                style = "--" if algorithm in CLASSIC else "-"
                ax.errorbar(
                    x, y, yerr=err, label=algorithm, linestyle=style, marker="o", ms=3,
                    color=COLORS[algorithm],
                )  # fmt: skip
            ax.set_xscale("log")
            if kind == "paired":
                ax.axhline(0.0, color="grey", linewidth=0.8)
            ax.set_title(name, fontsize=9)
            ax.set_xlabel("nodes per move")
        for ax in axes.flat[len(names) :]:
            ax.set_visible(False)
        axes[0][0].set_ylabel(
            "regret x 1e3 (win prob.)" if kind == "regret" else "sampled - classic x 1e3"
        )
        axes[0][0].legend(fontsize=7)
        title = (
            "Two-dice Pig: regret against the exact solver at equal node budgets"
            if kind == "regret"
            else "Sampled minus classic regret, paired by position (< 0: sampling pays)"
        )
        fig.suptitle(title, fontsize=10)
        save_figure(fig, out / f"{kind}.png", dpi=110)


# --- The run --------------------------------------------------------------------------------


T = TypeVar("T")


def read_positions(
    path: Path, count: int, parse: Callable[[dict[str, str]], T], what: str
) -> tuple[T, ...]:
    """The `count` positions a run wrote to `path` (positions.csv), each row parsed by `parse`;
    `what` names them in the error ('positions', 'trees').

    Raises:
      UsageError: for a file that cannot be read, is not this experiment's, or holds another
        number of positions.
    """
    try:
        with open_text(path, newline="") as f:
            found = [parse(row) for row in csv.DictReader(f)]
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    except (KeyError, TypeError, ValueError, csv.Error):  # (UnicodeDecodeError too)
        raise UsageError(f"{path}: not a positions.csv of this experiment") from None
    if len(found) != count:
        raise UsageError(
            f"{path} holds {len(found)} {what}, not --positions {count}: use another --out"
        )
    return tuple(found)


def _positions(out: Path, count: int, seed: int, games: int) -> tuple[tuple[int, ...], ...]:
    """The study's positions: read from positions.csv, or collected and written there."""
    path = out / "positions.csv"
    if path.exists():
        fields = ("mine", "theirs", "turn_total", "mover")
        return read_positions(
            path, count, lambda row: tuple(int(row[k]) for k in fields), "positions"
        )
    states = collect_states(collection_specs(), games, count, seed)
    if len(states) < count:
        raise UsageError(
            f"the games gave {len(states)} distinct positions, fewer than --positions {count}: "
            "raise --games"
        )
    with open_output(path, newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["index", "mine", "theirs", "turn_total", "mover", "gap", "real"])
        for index, key in enumerate(states):
            gap = gap_of(key)
            writer.writerow([index, *key, f"{gap:.9g}", int(gap > REAL_GAP)])
    return tuple(states)


def add_run_arguments(parser: argparse.ArgumentParser, budgets: Sequence[int], kind: str) -> None:
    """The options of a resumable regret study at equal node budgets: the budgets (default
    `budgets`), the seed, workers, chunks (--max-minutes), --summarise-only, the progress bar
    and the output directory (default: a new results/`kind`/run-*)."""
    parser.add_argument(
        "--budgets",
        type=Bounded(int, 1, MAX_NODES).each,
        default=",".join(map(str, budgets)),
        help="comma-separated node budgets per search",
    )
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of positions and samples")
    parser.add_argument("--workers", type=workers_arg, default=2, help="worker processes")
    parser.add_argument(
        "--max-minutes", type=minutes_arg, help="stop cleanly after about this long (resumable)"
    )
    parser.add_argument(
        "--summarise-only", action="store_true", help="only rewrite the summaries from raw.jsonl"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--out", help=f"output directory (default: a new results/{kind}/run-*)")


def check_run_arguments(args: argparse.Namespace) -> tuple[int, ...]:
    """The node budgets of `add_run_arguments`' options, once they are checked.

    Raises:
      UsageError: for repeated budgets, a bad worker count or seed, or --summarise-only
        without the rows of a run in --out.
    """
    budgets = tuple(args.budgets)
    if len(set(budgets)) != len(budgets):
        raise UsageError(f"--budgets: distinct node budgets, not {budgets}")
    if not 1 <= args.workers <= (os.cpu_count() or 1) * 4:
        raise UsageError(f"--workers must be in 1..{(os.cpu_count() or 1) * 4}, got {args.workers}")
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    if args.summarise_only and not (
        args.out and Path(stored(Path(args.out) / "raw.jsonl")).is_file()
    ):
        raise UsageError(f"--summarise-only: --out {args.out} has no raw.jsonl")
    return budgets


def run_chunk(
    out: Path,
    work: Callable[[Any], list[dict[str, Any]]],
    tasks: Sequence[Any],
    args: argparse.Namespace,
) -> bool:
    """Runs the `tasks` not yet done (`work` appends one task's rows to out/raw.jsonl) until
    --max-minutes, logging the command of a chunk that has work in out/commands.txt; True if
    every task ran."""
    if tasks:  # the run's history, beside its data: each chunk's command
        log_command(out, args.command_line)
    deadline = None if args.max_minutes is None else time.monotonic() + 60 * args.max_minutes
    return run_tasks(
        work, tasks, out / "raw.jsonl", args.workers, deadline, not args.no_progress, len(tasks)
    )


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--positions", type=positions_arg, default=300, help="positions (S_obs sample)"
    )
    parser.add_argument(
        "--configs",
        default=",".join(DEFAULT_CONFIGS),
        help="comma-separated configurations (module docstring), e.g. base,ordered+width5",
    )
    parser.add_argument(
        "--games",
        type=positions_arg,
        default=2,
        help="games per ordered pair of players for positions",
    )
    add_run_arguments(parser, DEFAULT_BUDGETS, "pig_regret")


def _parse(args: argparse.Namespace) -> tuple[list[str], tuple[int, ...]]:
    budgets = check_run_arguments(args)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not configs or len(set(configs)) != len(configs):
        raise UsageError(f"--configs: distinct configuration names, not {args.configs!r}")
    for name in configs:
        try:
            parse_config(name)
        except ValueError as e:
            raise UsageError(f"--configs: {e}") from None
    return configs, budgets


OUTPUTS = ("regret.csv", "regret_real.csv", "README.md", "regret.png", "paired.png")


def _run(args: argparse.Namespace) -> None:
    configs, budgets = _parse(args)
    settings = {"positions": args.positions, "budgets": list(budgets), "seed": args.seed}
    settings["games"] = args.games
    hint = "--positions, --budgets, --seed and --games"
    out = run_directory(args.out, "pig_regret", settings, hint, OUTPUTS, ("positions.csv",))
    positions = _positions(out, args.positions, args.seed, args.games)
    study = Study(positions, budgets, args.seed)
    raw = out / "raw.jsonl"
    rows = read_rows(raw)
    complete = True
    if not args.summarise_only:
        configs_needed = list(configs)
        for name in configs:  # the classic rows a configuration is compared with
            reference = parse_config(name).classic_reference
            if reference not in configs_needed:
                configs_needed.insert(0, reference)
        done = {(r["config"], r["position"]) for r in rows}
        tasks = [
            (name, index)
            for name in configs_needed
            for index in range(len(positions))
            if (name, index) not in done
        ]
        check_resumed(raw, search_position, rows, tasks, lambda name, i: (study, name, i))
        print(
            f"pig-regret: {len(positions)} positions, {len(configs_needed)} configurations, "
            f"budgets {','.join(map(str, budgets))}; {len(done)} (configuration, position) "
            f"tasks done, {len(tasks)} to go; writing {raw}",
            flush=True,
        )
        complete = run_chunk(out, search_position, [(study, *task) for task in tasks], args)
        rows = read_rows(raw)
        configs = configs_needed
    write_summaries(out, rows, configs, budgets, positions, args.command_line)
    if not complete:
        print(f"stopped at --max-minutes; the same command resumes ({out})")


def write_summaries(
    out: Path,
    rows: Sequence[Mapping[str, Any]],
    configs: Sequence[str],
    budgets: Sequence[int],
    positions: Sequence[tuple[int, ...]],
    command_line: Sequence[str] = (),
) -> None:
    """regret.csv, regret_real.csv, README.md and the plots from the raw rows; the README
    names `command_line` (the arguments of `chancespiel`) as the summarising command."""
    present = [c for c in configs if any(r["config"] == c for r in rows)]
    present += sorted({r["config"] for r in rows} - set(present))
    gaps = [gap_of(key) for key in positions]
    real = {i for i, gap in enumerate(gaps) if gap > REAL_GAP}
    clear = sum(gap > 0.01 for gap in gaps)
    summary = summarise(rows, present, budgets)
    write_csv(out / "regret.csv", summary)
    write_csv(out / "regret_real.csv", summarise(rows, present, budgets, real))
    plot(summary, present, out)
    readme = [
        "# Regret at equal node budgets on two-dice Pig",
        "",
        f"Summarised by `{command_text(command_line)}` (chancespiel "
        f"{package_version()}, commit {git_commit()}, {datetime.date.today().isoformat()}); "
        "the experiment is `lab/studies/pig_regret.py`, whose docstring defines "
        f"every term. The rows were played in chunks, by these commands ({COMMANDS}):",
        "",
        "```",
        *logged_commands(out),
        "```",
        "",
        f"{len(positions)} positions from games between the six players ({COLLECT_NODES:,} "
        f"nodes a move); {len(real)} have a real decision (win probabilities of roll and "
        f"stop differ by more than {REAL_GAP:g}), {clear} differ by more than 0.01. Regret "
        "in win probability x 1e3, standard error over positions in brackets; the last "
        "column is the sampled algorithm's regret minus its classic counterpart's, paired "
        "by position (negative: sampling pays). Raw rows: raw.jsonl; all positions: "
        "regret.csv; positions with a real decision: regret_real.csv; plots: regret.png, "
        "paired.png.",
        "",
        markdown(summary),
        "",
        "## What sampling alone costs",
        "",
        "A search that knew every value exactly but sampled the roll's outcomes once, with c "
        "draws, would still pick the wrong move wherever the sample mean's error exceeds the "
        "gap between roll and stop. Predicted from the exact values (`roll_noise`, a normal "
        "approximation), against what the sampled algorithms measured with unordered dice "
        "and the default or the perfect heuristic (oracle0), mean over their budgets (and "
        "algorithms, where they share a width):",
        "",
        *noise_table(summary, positions),
        "",
    ]
    write_text(out / "README.md", "\n".join(readme))
    print(markdown(summary))
    print(f"written to {out}: regret.csv, regret_real.csv, README.md, regret.png, paired.png")


EXPERIMENT = Experiment.listed(
    "pig-regret",
    _add_arguments,
    _run,
)
