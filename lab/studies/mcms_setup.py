"""The MCMS paper's experimental setup (section 4.2) as agent specs, for its Table 1 and Figure 2.

Per game the paper tuned the sample widths of (expSS, star1SS, star2SS) and the MCTS / DPW
parameters (C1, d_r, C2, alpha), and pruned only at depths above 2. Its MCTS values are in
[-100, 100] and ours in [-1, 1], so the exploration constant C1 becomes uct_c = C1 / 100 (the
UCT bonus is added to a mean value; C2 and alpha count children and do not depend on the
scale). d_r is the number of random decision moves before the evaluation function
(`rollout_depth`). The paper played the better of MCTS and DPW in each game (500 matches of
one against the other): classic MCTS in Pig and EWN, DPW in Can't Stop and Ra.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from chancespiel.agents.star_minimax import MIN_HYBRID_SAMPLES

PAPER_SCALE = 100.0  # the paper's utilities are in [-100, 100]
PRUNE_MIN_DEPTH = 2  # "pruning is ignored at search depths 2 or lower"
TIME_MS = 200.0  # the paper's search time per move


@dataclass(frozen=True)
class GameSetup:
    """One game of the paper with its tuned parameters (on the paper's scale)."""

    key: str  # short name used on the command line and in file names
    title: str  # the paper's name of the game
    game: str  # our game string
    samples: tuple[int, int, int]  # sample widths of expss, star1ss, star2ss
    c1: float  # UCT exploration constant on the [-100, 100] scale
    rollout_depth: int  # d_r
    pw_c: float  # C2
    pw_alpha: float  # alpha
    best_mcts: str  # 'mcts' or 'dpw': the variant the paper played against *-Minimax


SETUPS: dict[str, GameSetup] = {
    s.key: s
    for s in (
        GameSetup("pig", "Pig", "python_pig", (20, 25, 18), 50, 0, 5, 0.2, "mcts"),
        GameSetup(
            "ewn", "EWN", "python_einstein_wurfelt_nicht", (1, 1, 2), 200, 100, 4, 0.25, "mcts"
        ),
        GameSetup(
            "cant_stop", "Can't Stop", "python_cant_stop", (25, 30, 15), 50, 10, 25, 0.3, "dpw"
        ),
        GameSetup("ra", "Ra", "python_ra", (5, 5, 2), 50, 0, 2, 0.1, "dpw"),
    )
}

# The paper's names of the agents, in the order of its Table 1.
AGENT_NAMES = ("mcts", "dpw", "exp", "star1", "star2", "expss", "star1ss", "star2ss")
# Beyond the paper: the hybrid sampled searches at the paper's widths, or at the hybrid's
# narrowest (MIN_HYBRID_SAMPLES) where the paper's is below it (EinStein's one outcome).
HYBRID_NAMES = ("exphs", "star1hs", "star2hs")


def setup_for(key: str) -> GameSetup:
    """The setup of the game `key` (pig, ewn, cant_stop, ra).

    Raises:
      ValueError: for an unknown key, listing the known ones.
    """
    try:
        return SETUPS[key]
    except KeyError:
        raise ValueError(f"unknown game {key!r}; known: {', '.join(SETUPS)}") from None


def paper_specs(
    setup: GameSetup,
    time_ms: float = TIME_MS,
    heuristic: str = "default",
    clock: str = "wall",
    max_nodes: int | None = None,
) -> dict[str, str]:
    """Agent specs of the paper's players in `setup`'s game, keyed by AGENT_NAMES (and the
    hybrid searches at the same widths but never below MIN_HYBRID_SAMPLES, keyed by
    HYBRID_NAMES); all of them
    evaluate with the game's heuristic `heuristic` (see games.registry.evaluation_for) and
    measure time_ms on `clock` (agents.search_common.CLOCKS). With `max_nodes` the six
    *-Minimax players search that many nodes per move instead, with no time limit: a budget
    that does not depend on the speed of the machine or of Python (MCTS keeps time_ms)."""
    heuristic_param = "" if heuristic == "default" else f",heuristic={heuristic}"
    own = heuristic_param + ("" if clock == "wall" else f",clock={clock}")
    if max_nodes is None:
        star = f"time_ms={time_ms:g},prune_min_depth={PRUNE_MIN_DEPTH}{own}"
    else:
        star = f"max_nodes={max_nodes},prune_min_depth={PRUNE_MIN_DEPTH}{heuristic_param}"
    mcts = (
        f"uct_c={setup.c1 / PAPER_SCALE:g},rollout_depth={setup.rollout_depth},time_ms={time_ms:g}"
        f"{own}"
    )
    exp_w, star1_w, star2_w = setup.samples
    return {
        "mcts": f"mcts({mcts})",
        "dpw": f"dpw({mcts},pw_c={setup.pw_c:g},pw_alpha={setup.pw_alpha:g})",
        "exp": f"expectimax({star})",
        "star1": f"star1({star})",
        "star2": f"star2({star})",
        "expss": f"expss(samples={exp_w},{star})",
        "star1ss": f"star1ss(samples={star1_w},{star})",
        "star2ss": f"star2ss(samples={star2_w},{star})",
        "exphs": f"exphs(samples={max(exp_w, MIN_HYBRID_SAMPLES)},{star})",
        "star1hs": f"star1hs(samples={max(star1_w, MIN_HYBRID_SAMPLES)},{star})",
        "star2hs": f"star2hs(samples={max(star2_w, MIN_HYBRID_SAMPLES)},{star})",
    }


def with_samples(setups: dict[str, GameSetup], overrides: list[str]) -> dict[str, GameSetup]:
    """`setups` with the sample widths of some games replaced, each override 'KEY=W1,W2,W3'
    (widths of expss, star1ss, star2ss), e.g. 'ewn=3,3,3' for widths re-tuned to our evaluation.

    Raises:
      ValueError: for a malformed override, an unknown game or a width below 1.
    """
    changed = dict(setups)
    for text in overrides:
        key, sep, widths = text.partition("=")
        setup = setup_for(key.strip()) if sep else None
        try:
            samples = tuple(int(w) for w in widths.split(","))
        except ValueError:
            samples = ()
        if setup is None or len(samples) != 3 or min(samples) < 1:
            raise ValueError(f"--samples: KEY=W1,W2,W3 with three widths >= 1, not {text!r}")
        changed[setup.key] = dataclasses.replace(setup, samples=samples)
    return changed


# Games whose dice have an ordered encoding beside our default unordered one.
ORDERED_DICE = ("pig", "cant_stop")


def with_ordered_dice(setups: dict[str, GameSetup], keys: list[str]) -> dict[str, GameSetup]:
    """`setups` with the games `keys` played under ordered dice (36 rolls of two dice in Pig,
    1296 of four in Can't Stop, as the MCMS paper's implementation presumably had them).

    Raises:
      ValueError: for a game without an ordered encoding.
    """
    changed = dict(setups)
    for key in keys:
        if key not in ORDERED_DICE:
            known = ", ".join(ORDERED_DICE)
            raise ValueError(f"--ordered-dice: {key} has no dice encoding to choose; only {known}")
        setup = changed[key]
        changed[key] = dataclasses.replace(
            setup, title=f"{setup.title}, ordered dice", game=f"{setup.game}(ordered_dice=true)"
        )
    return changed
