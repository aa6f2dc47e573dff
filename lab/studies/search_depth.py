"""How deep the paper's players search in the time they are given, and how good their moves are
(MCMS Figure 2).

MCMS trades exactness at chance nodes for depth, so whether it wins depends on how many more
decision plies the sampling variants complete than the classic ones in the same time. This
measures that directly: positions are drawn from the games of a Figure 2 run (the positions
the agents actually met), and each of the six *-Minimax players of `mcms_setup.paper_specs`
searches each of them with the time budget; the table gives the deepest completed iteration
and the nodes searched. `--pairings` names other pairings of the figure (e.g. `Star1-MCTS`):
their players are measured instead, MCTS being the game's variant (UCT or DPW), whose "depth"
is the deepest decision ply a simulation reached in its tree and whose nodes are tree nodes.

With `--reference SPEC` (an expectimax with a larger budget, whose root action values are all
exact), the table also gives each player's regret against it: the reference's value of its
best move minus its value of the player's move, in the paper's points ([-100, 100]), and how
often the player picks the reference's move. A deeper classic search is not the truth, but it
is the judge the paper's argument appeals to: sampling pays if it buys moves that a deeper
search prefers. A second table pairs the two players of each pairing position by position
(left minus right regret; for the default pairings, sampled minus classic), the comparison the
matches make. A reference with
a node budget (`expectimax(max_nodes=...)`) is the same judge in every run, so runs that vary
one condition (`--heuristic`, `--max-nodes`, `--ordered-dice`) can be set side by side; with
`--ordered-dice` the players search the positions with ordered dice and the judge searches them
as recorded, so that it stays the same judge.

    chancespiel experiment search-depth --records results/figure2/paper_200ms --positions 30

Explains "Monte Carlo *-Minimax Search" (Lanctot et al., 2013), section 4.4, Figure 2.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import pyspiel

from chancespiel.agents.registry import make_bot, parse_spec
from chancespiel.agents.search_common import CLOCKS, MAX_NODES
from chancespiel.evaluation import usage
from chancespiel.evaluation.match import Record, RecordFileError
from chancespiel.evaluation.positions import translate_history
from chancespiel.evaluation.stats import match_interval
from chancespiel.studies import Experiment, mcms_setup
from chancespiel.studies.figure2.plan import PAIRINGS, load_records, pairing_names
from chancespiel.studies.figure2.stats import COUNTERPARTS as COUNTERPART_LABELS

STAR_AGENTS = ("exp", "star1", "star2", "expss", "star1ss", "star2ss")
# Each sampled player and its classic counterpart, as the paper pairs them.
COUNTERPARTS = tuple((a, b) for label, a, b in PAIRINGS if label in COUNTERPART_LABELS)


@dataclass(frozen=True)
class DepthRow:
    """One agent's completed depths and nodes over the positions of one game."""

    game: str  # the paper's name of the game
    agent: str  # a name of mcms_setup.paper_specs
    spec: str
    positions: int
    mean_depth: float
    depths: dict[int, int]  # completed depth -> positions
    mean_nodes: float
    regret: tuple[float, float] | None = None  # mean regret against the reference, 95% half
    agreement: float | None = None  # fraction of positions where it plays the reference's move
    regrets: tuple[float, ...] = ()  # per position, in the order of the positions


@dataclass(frozen=True)
class PairedRow:
    """Left minus right regret over the same positions of one game (for a pairing of
    COUNTERPARTS: sampled minus classic)."""

    game: str
    left: str  # a name of mcms_setup.paper_specs
    right: str
    positions: int
    difference: float  # mean of left minus right regret, in points
    half: float  # half-width of its 95% interval
    better: int  # positions where the left player's move has the smaller regret
    worse: int


def sample_positions(
    game: pyspiel.Game, records: Sequence[Record], count: int, seed: int
) -> list[list[int]]:
    """`count` histories of distinct decision positions met in `records` (fewer if there are
    not that many), drawn uniformly over all decision points of all games.

    Raises:
      ValueError: if no record is of `game` or a history cannot be replayed.
    """
    points: set[tuple[int, ...]] = set()
    names = {name: str(pyspiel.load_game(name)) for name in {r["game"] for r in records}}
    for record in records:
        if names[record["game"]] != str(game):
            continue
        state = game.new_initial_state()
        history = record["history"]
        for i, action in enumerate(history):
            if not state.is_chance_node() and not state.is_terminal():
                points.add(tuple(history[:i]))
            try:
                state.apply_action(action)
            except pyspiel.SpielError as e:
                raise ValueError(f"a record of {game} cannot be replayed: {e}") from None
    if not points:
        raise ValueError(f"no decision positions of {game} in the records")
    ordered = sorted(points)
    random.Random(seed).shuffle(ordered)
    return [list(h) for h in ordered[:count]]


@dataclass(frozen=True)
class Positions:
    """Positions of a run's games: as recorded, and as histories of the game searched."""

    recorded_game: pyspiel.Game
    recorded: list[list[int]]  # histories of `recorded_game`
    histories: list[list[int]]  # the same positions in the searched game


def positions_for(
    setup: mcms_setup.GameSetup, records: Sequence[Record], count: int, seed: int
) -> Positions:
    """`sample_positions` of the records' game, and the same positions in `setup`'s game: a
    game that differs only in its encoding of the dice (`ordered_dice`) gets the histories
    translated by `translate_history`.

    Raises:
      ValueError: if there are no records, or a history has no counterpart in `setup`'s game.
    """
    if not records:
        raise ValueError(f"no records of {setup.title}")
    source = pyspiel.load_game(records[0]["game"])
    target = pyspiel.load_game(setup.game)
    recorded = sample_positions(source, records, count, seed)
    if str(source) == str(target):
        return Positions(source, recorded, recorded)
    translated = [translate_history(source, target, history) for history in recorded]
    return Positions(source, recorded, translated)


def states_after(game: pyspiel.Game, histories: Sequence[Sequence[int]]) -> list[pyspiel.State]:
    """The state after each history (as sample_positions gives them)."""
    states = []
    for history in histories:
        state = game.new_initial_state()
        for action in history:
            state.apply_action(action)
        states.append(state)
    return states


def check_reference(reference: str) -> None:
    """Raises ValueError unless `reference` is an expectimax spec (only its root action values
    are all exact)."""
    if parse_spec(reference)[0] != "expectimax":
        raise ValueError(f"the reference must be an expectimax spec, not {reference!r}")


def reference_values(
    game: pyspiel.Game, states: Sequence[pyspiel.State], reference: str, seed: int = 0
) -> list[dict[int, float]]:
    """The root action values of `reference` (an expectimax spec) in every state, for the
    player to move.

    Raises:
      ValueError: if `reference` is not an expectimax agent (only its values are all exact).
    """
    check_reference(reference)
    values = []
    for i, state in enumerate(states):
        result = make_bot(reference, game, state.current_player(), seed + i).analyse(state)
        values.append(dict(result.action_values))
    return values


def _regret(values: dict[int, float], action: int) -> float:
    """The reference's loss, in the paper's points, of `action` against its best move."""
    return mcms_setup.PAPER_SCALE * (max(values.values()) - values[action])


def measure(
    setup: mcms_setup.GameSetup,
    histories: Sequence[Sequence[int]],
    time_ms: float,
    seed: int = 0,
    agents: Sequence[str] = STAR_AGENTS,
    clock: str = "wall",
    reference: str | None = None,
    max_nodes: int | None = None,
    heuristic: str = "default",
    judged: Sequence[dict[int, float]] | None = None,
) -> list[DepthRow]:
    """Searches every position with every agent of `agents` at `time_ms` per search (or
    `max_nodes`, as in mcms_setup.paper_specs), each evaluating with the game's `heuristic`,
    and with `reference` first if given (see `reference_values`); or judged by the root action
    values `judged` of each position, found elsewhere (the same moves, other encodings).

    Raises:
      ValueError: if a position's judged moves are not its legal moves.
    """
    game = pyspiel.load_game(setup.game)
    specs = mcms_setup.paper_specs(
        setup, time_ms, heuristic=heuristic, clock=clock, max_nodes=max_nodes
    )
    states = states_after(game, histories)
    if judged is None and reference:
        judged = reference_values(game, states, reference, seed)
    if judged is not None:
        for i, (values, state) in enumerate(zip(judged, states, strict=True)):
            if sorted(values) != sorted(state.legal_actions()):
                raise ValueError(f"position {i}: the judged moves are not the legal moves")
    rows = []
    for name in agents:
        depths, nodes, regrets, agreed = [], [], [], []
        for i, state in enumerate(states):
            bot = make_bot(specs[name], game, state.current_player(), seed + i)
            result = bot.analyse(state)
            depths.append(result.depth)
            nodes.append(result.nodes)
            if judged is not None:
                regrets.append(_regret(judged[i], result.action))
                agreed.append(regrets[-1] <= 1e-9)
        regret = None
        if regrets:
            interval = match_interval(regrets, bounds=(-math.inf, math.inf))
            regret = (interval.mean, interval.half_width)
        rows.append(
            DepthRow(
                game=setup.title,
                agent=name,
                spec=specs[name],
                positions=len(states),
                mean_depth=statistics.fmean(depths),
                depths=dict(sorted(Counter(depths).items())),
                mean_nodes=statistics.fmean(nodes),
                regret=regret,
                agreement=statistics.fmean(agreed) if agreed else None,
                regrets=tuple(regrets),
            )
        )
    return rows


def paired(
    rows: Sequence[DepthRow], pairs: Sequence[tuple[str, str]] = COUNTERPARTS
) -> list[PairedRow]:
    """For each game and each (left, right) of `pairs` judged in `rows` (a pair whose players
    a game has no rows for, such as another game's MCTS variant, is passed by), the left
    player's regret minus the right one's, position by position, with a 95% interval."""
    found = {(r.game, r.agent): r for r in rows if r.regrets}
    chosen = []
    for game in dict.fromkeys(r.game for r in rows):
        for left, right in dict.fromkeys(pairs):
            a, b = found.get((game, left)), found.get((game, right))
            if a is None or b is None:
                continue
            differences = [x - y for x, y in zip(a.regrets, b.regrets, strict=True)]
            interval = match_interval(differences, bounds=(-math.inf, math.inf))
            chosen.append(
                PairedRow(
                    game=game,
                    left=left,
                    right=right,
                    positions=len(differences),
                    difference=interval.mean,
                    half=interval.half_width,
                    better=sum(d < -1e-9 for d in differences),
                    worse=sum(d > 1e-9 for d in differences),
                )
            )
    return chosen


def budget_label(time_ms: float, max_nodes: int | None = None) -> str:
    """The budget per search as a table says it: '200 ms' or '800,000 nodes'."""
    return f"{time_ms:g} ms" if max_nodes is None else f"{max_nodes:,} nodes"


def markdown(
    rows: Sequence[DepthRow], budget: str, pairs: Sequence[tuple[str, str]] = COUNTERPARTS
) -> str:
    """A Markdown table of the rows: mean completed depth at `budget` (see `budget_label`),
    its distribution, mean nodes, and regret and agreement against the reference if any; then
    the `pairs` compared position by position (see `paired`)."""
    judged = any(r.regret is not None for r in rows)
    extra = " regret vs reference (points, 95%) | plays the reference's move |" if judged else ""
    lines = [
        f"| game | agent | positions | mean depth at {budget} | depths (positions) "
        f"| mean nodes |{extra}",
        "|---|---|---|---|---|---|" + ("---|---|" if judged else ""),
    ]
    for r in rows:
        spread = ", ".join(f"{d}: {n}" for d, n in r.depths.items())
        line = (
            f"| {r.game} | {r.agent} | {r.positions} | {r.mean_depth:.2f} | {spread} "
            f"| {r.mean_nodes:,.0f} |"
        )
        if judged and r.regret is not None and r.agreement is not None:
            line += f" {r.regret[0]:.2f} +- {r.regret[1]:.2f} | {100 * r.agreement:.0f}% |"
        lines.append(line)
    compared = paired(rows, pairs)
    if compared:
        lines += [
            "",
            "| game | left - right | positions | regret difference (points, 95%) "
            "| left's move better | left's move worse |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {p.game} | {p.left} - {p.right} | {p.positions} "
            f"| {p.difference:+.2f} +- {p.half:.2f} | {p.better} | {p.worse} |"
            for p in compared
        ]
    return "\n".join(lines) + "\n"


# Command line -------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--records", required=True, help="directory of figure2 record files")
    parser.add_argument("--games", help="comma-separated subset of pig,ewn,cant_stop,ra")
    parser.add_argument(
        "--positions", type=usage.positions_arg, default=30, help="positions per game"
    )
    parser.add_argument(
        "--time-ms", type=usage.time_ms_arg, default=200.0, help="search time per position"
    )
    parser.add_argument(
        "--max-nodes",
        type=usage.Bounded(int, 1, MAX_NODES),
        help="search this many nodes per position instead of --time-ms (figure2 --max-nodes)",
    )
    parser.add_argument(
        "--seed", type=usage.seed_arg, default=0, help="seed of the positions and searches"
    )
    parser.add_argument(
        "--clock", choices=tuple(CLOCKS), default="wall", help="what the players' time measures"
    )
    parser.add_argument(
        "--reference",
        help="an expectimax spec with a larger budget, e.g. 'expectimax(time_ms=3000,clock=cpu)':"
        " each player's regret and agreement against its root action values",
    )
    parser.add_argument(
        "--ordered-dice",
        action="store_true",
        help="search with ordered dice (Pig, Can't Stop); positions from records of either"
        " encoding, translated move by move",
    )
    parser.add_argument(
        "--heuristic",
        default="default",
        help="the game's heuristic every player evaluates with (e.g. learned)",
    )
    parser.add_argument(
        "--pairings",
        help="comma-separated pairings of Figure 2 whose players are measured and compared"
        f" (default: {','.join(COUNTERPART_LABELS)}); MCTS is the game's variant",
    )
    parser.add_argument(
        "--out", help="Markdown file for the table (default: a new file in results/search_depth/)"
    )


def players(
    setup: mcms_setup.GameSetup, labels: Sequence[str] | None
) -> tuple[list[str], list[tuple[str, str]]]:
    """The players to measure in `setup`'s game and the (left, right) pairs to compare: the
    six *-Minimax players and COUNTERPARTS by default, else those of the pairings `labels`.

    Raises:
      ValueError: for an unknown pairing.
    """
    if labels is None:
        return list(STAR_AGENTS), list(COUNTERPARTS)
    pairs = [(a, b) for _, a, b in pairing_names(setup, labels)]
    return list(dict.fromkeys(name for pair in pairs for name in pair)), pairs


def _run(args: argparse.Namespace) -> None:
    keys = usage.choices("--games", args.games, list(mcms_setup.SETUPS))
    labels = None if args.pairings is None else [x.strip() for x in args.pairings.split(",")]
    setups = mcms_setup.SETUPS
    try:
        if args.ordered_dice:
            setups = mcms_setup.with_ordered_dice(setups, keys)
        for key in keys:  # a heuristic a game does not have is named before any search
            usage.check_heuristic(setups[key].game, args.heuristic)
        if args.reference:
            usage.checked_specs(usage.load_game(setups[keys[0]].game), [args.reference])
            try:
                check_reference(args.reference)
            except ValueError as e:
                raise usage.UsageError(f"--reference: {e}") from None
        records = load_records(args.records, setups)
    except (RecordFileError, ValueError) as e:
        raise usage.UsageError(str(e)) from None
    missing = [k for k in keys if k not in records]
    if missing and args.games:
        raise usage.UsageError(f"no record file in {args.records} for: {', '.join(missing)}")
    if not any(k in records for k in keys):
        raise usage.UsageError(f"no Figure 2 record files in {args.records}")
    try:
        chosen = {key: players(setups[key], labels) for key in keys}
    except ValueError as e:
        raise usage.UsageError(f"--pairings: {e}") from None
    out = usage.new_output(args.out, "search_depth", ".md")
    rows = []
    pairs: list[tuple[str, str]] = []
    for key in keys:
        if key not in records:
            continue
        setup = setups[key]
        agents, game_pairs = chosen[key]
        pairs += game_pairs
        try:
            found = positions_for(setup, records[key], args.positions, args.seed)
        except ValueError as e:
            raise usage.UsageError(str(e)) from None
        histories = found.histories
        judged = None
        if args.reference and found.histories is not found.recorded:
            # The judge searches the positions as recorded: one judge, whatever encoding of
            # the dice the players search (a chance node of 1296 ordered rolls would cost it
            # its depth).
            judged = reference_values(
                found.recorded_game,
                states_after(found.recorded_game, found.recorded),
                args.reference,
                args.seed,
            )
        try:
            rows += measure(
                setup,
                histories,
                args.time_ms,
                args.seed,
                agents=agents,
                clock=args.clock,
                reference=args.reference,
                max_nodes=args.max_nodes,
                heuristic=args.heuristic,
                judged=judged,
            )
        except ValueError as e:
            raise usage.UsageError(f"{setup.title}: {e}") from None
        print(f"{setup.title}: {len(histories)} positions", flush=True)
    table = markdown(rows, budget_label(args.time_ms, args.max_nodes), pairs)
    print(table, end="")
    usage.write_text(out, table)
    print(f"written to {out}")


EXPERIMENT = Experiment.listed(
    "search-depth",
    _add_arguments,
    _run,
)
