"""Where the hybrid's node budget goes: classic trials given up, and the depth at equal nodes.

    .venv/bin/python lab/benchmarks/classic_trials.py [--game "python_cant_stop(ordered_dice=true)"]
        [--algorithm star1] [--samples 30] [--positions 40] [--nodes 700000] [--seed 5]
        [--on OPTION] [--off OPTION]

On `--positions` decision positions of seeded random play (lab/benchmarks/common.py, with a
choice), the hybrid agent of `--algorithm` with its defaults (`hybrid_options`, each option
of `--on` turned on and each of `--off` off) and the
paper's sampled search of the same width each search `--nodes` nodes (prune_min_depth=2, as
in the paper's setup). The hybrid's search is traced (agents/star_trace.py): the nodes of its
classic depths given up at their cap (`classic_trial`, `classic_within_ply`) are summed, and
a classic depth that runs to the end of the budget shows as a shallower result. Prints each
position where the hybrid gave a depth up or ended at another depth than the paper's search,
then the mean depths and the share of all nodes the given-up depths took.
"""

from __future__ import annotations

import argparse

from common import decision_positions

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents import search_state
from chancespiel.agents.registry import AGENTS, check_spec
from chancespiel.agents.search_common import MAX_NODES, MAX_SAMPLES
from chancespiel.agents.star_minimax import (
    HYBRID_NAMES,
    MIN_HYBRID_SAMPLES,
    hybrid_options,
    search,
)
from chancespiel.agents.star_trace import SearchTrace, TracedStarSearch
from chancespiel.evaluation.usage import Bounded, UsageError, load_game

GIVEN_UP = "given up"  # the trace's note on a classic depth given up at its cap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="python_cant_stop(ordered_dice=true)")
    parser.add_argument("--algorithm", default="star1", choices=("expectimax", "star1", "star2"))
    parser.add_argument("--samples", type=Bounded(int, MIN_HYBRID_SAMPLES, MAX_SAMPLES), default=30)
    parser.add_argument("--positions", type=Bounded(int, 1, 100_000), default=40)
    parser.add_argument("--nodes", type=Bounded(int, 1, MAX_NODES), default=700_000)
    parser.add_argument("--seed", type=Bounded(int, 0, 2**63 - 1), default=5)
    for flag, state in (("--on", "on"), ("--off", "off")):
        parser.add_argument(
            flag, action="append", default=[], metavar="OPTION", help=f"a switch to turn {state}"
        )
    args = parser.parse_args()
    # The hybrid agent's switches turned the other way, checked together as its spec is.
    name = HYBRID_NAMES[args.algorithm]
    params = AGENTS[name].params
    for flag, given, default in (("--on", args.on, False), ("--off", args.off, True)):
        switches = [key for key, param in params.items() if param.default is default]
        unknown = [option for option in given if option not in switches]
        if unknown:
            parser.error(
                f"{flag} {unknown[0]}: not an option of {name} that is "
                f"{'on' if default else 'off'} by default; those are {', '.join(switches)}"
            )
    switched = {**dict.fromkeys(args.on, True), **dict.fromkeys(args.off, False)}
    try:
        game = load_game(args.game)
        spec = "".join(f",{option}={str(on).lower()}" for option, on in switched.items())
        check_spec(f"{name}(samples={args.samples},max_nodes={args.nodes}{spec})", game)
    except (UsageError, ValueError) as e:
        parser.error(str(e))
    common = {"samples": args.samples, "seed": 1, "max_nodes": args.nodes, "prune_min_depth": 2}
    hybrid_depths, paper_depths, given_up = 0, 0, 0
    positions = decision_positions(game, args.positions, args.seed, choice=True)
    print("position  hybrid depth  paper depth  nodes given up")
    for index, state in enumerate(positions):
        trace = SearchTrace()
        hybrid = search(
            search_state(state), game, args.algorithm, **common,
            **{**hybrid_options(args.samples, args.algorithm), **switched},
            search_class=TracedStarSearch, search_options={"trace": trace},
        )  # fmt: skip
        paper = search(search_state(state), game, args.algorithm, **common)
        lost = sum(it.nodes for it in trace.iterations if GIVEN_UP in it.note)
        given_up += lost
        hybrid_depths += hybrid.depth
        paper_depths += paper.depth
        if lost or hybrid.depth != paper.depth:
            print(f"{index:8d}  {hybrid.depth:12d}  {paper.depth:11d}  {lost:14,d}", flush=True)
    count = len(positions)
    turned = "".join(f" {'+' if on else '-'}{option}" for option, on in switched.items())
    print(
        f"{args.algorithm}{turned} on {args.game}, {count} "
        f"positions at {args.nodes:,} nodes: mean depth "
        f"hybrid {hybrid_depths / count:.2f}, paper's sampled search {paper_depths / count:.2f}; "
        f"classic depths given up took {given_up / (count * args.nodes):.1%} of the nodes"
    )


if __name__ == "__main__":
    main()
