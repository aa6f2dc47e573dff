"""Where the hybrid's node budget goes: classic trials given up, and the depth at equal nodes.

    .venv/bin/python lab/benchmarks/classic_trials.py [--game "python_cant_stop(ordered_dice=true)"]
        [--algorithm star1] [--samples 30] [--positions 40] [--nodes 700000] [--seed 5]
        [--on first_cap_two_back]

On `--positions` decision positions of seeded random play (lab/benchmarks/common.py, with a
choice), the hybrid agent of `--algorithm` with its defaults (`hybrid_options`, and each
option of `--on` turned on) and the
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
from chancespiel.agents.star_minimax import MIN_HYBRID_SAMPLES, hybrid_options, search
from chancespiel.agents.star_trace import SearchTrace, TracedStarSearch
from chancespiel.evaluation.usage import Bounded, UsageError, load_game

GIVEN_UP = "given up"  # the trace's note on a classic depth given up at its cap
HYBRID_NAMES = {"expectimax": "exphs", "star1": "star1hs", "star2": "star2hs"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="python_cant_stop(ordered_dice=true)")
    parser.add_argument("--algorithm", default="star1", choices=("expectimax", "star1", "star2"))
    parser.add_argument("--samples", type=Bounded(int, MIN_HYBRID_SAMPLES, MAX_SAMPLES), default=30)
    parser.add_argument("--positions", type=Bounded(int, 1, 100_000), default=40)
    parser.add_argument("--nodes", type=Bounded(int, 1, MAX_NODES), default=700_000)
    parser.add_argument("--seed", type=Bounded(int, 0, 2**63 - 1), default=5)
    parser.add_argument(
        "--on", action="append", default=[], metavar="OPTION", help="a switch to turn on"
    )
    args = parser.parse_args()
    # The hybrid agent's options that are off by default, checked together as its spec is.
    name = HYBRID_NAMES[args.algorithm]
    switches = [key for key, param in AGENTS[name].params.items() if param.default is False]
    unknown = [option for option in args.on if option not in switches]
    if unknown:
        parser.error(
            f"--on {unknown[0]}: not an option of {name} that is off by default; those are "
            + ", ".join(switches)
        )
    try:
        game = load_game(args.game)
        on = "".join(f",{option}=true" for option in args.on)
        check_spec(f"{name}(samples={args.samples},max_nodes={args.nodes}{on})", game)
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
            **{**hybrid_options(args.samples, args.algorithm), **dict.fromkeys(args.on, True)},
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
    print(
        f"{args.algorithm}{''.join(f' +{name}' for name in args.on)} on {args.game}, {count} "
        f"positions at {args.nodes:,} nodes: mean depth "
        f"hybrid {hybrid_depths / count:.2f}, paper's sampled search {paper_depths / count:.2f}; "
        f"classic depths given up took {given_up / (count * args.nodes):.1%} of the nodes"
    )


if __name__ == "__main__":
    main()
