"""Exact solution of Pig (one or two dice, any goal and die size) by value iteration.

A decision state is (i, j, k): the mover's banked score i, the opponent's j, the turn total k.
`P(i, j, k)` is the probability that the mover wins under optimal play by both (Neller and
Presser, "Optimal Play of the Dice Game Pig", 2004):

    P(i, j, k) = 1                                   if i + k >= goal (stop wins)
    P(i, j, k) = max(P_roll, P_hold)                 otherwise
    P_hold     = 1 - P(j, i + k, 0)
    P_roll     = p_bust (1 - P(j, i, 0)) + p_reset (1 - P(j, 0, 0)) + sum_s p_s P(i, j, k + s)

where p_reset is the double-1 probability (two dice only) and p_s the probability of adding s.
The state graph is cyclic through turn changes, so we iterate on the turn-start values
T[i, j] = P(i, j, 0). Given T, one backward sweep over k solves every turn exactly (a roll only
increases k), so each iteration is a fixed number of numpy operations on goal x goal arrays.
The same sweep with a fixed roll/hold policy evaluates that policy, which gives the win
probabilities of any two policies against each other.

The horizon of the OpenSpiel game is ignored: the solution is for the unbounded game (with the
default horizon of 1000 moves the difference is far below the solver's tolerance).
"""

from __future__ import annotations

import functools
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from chancespiel.games.pig_core import _BUST, _RESET, CHANCE, ROLL, STOP, PigCore, PigRules

DEFAULT_TOLERANCE = 1e-13
MAX_ITERATIONS = 100_000


@dataclass(frozen=True)
class _Chance:
    """Probabilities of a roll's effects: bust, reset, and each amount added."""

    bust: float
    reset: float
    gains: tuple[tuple[int, float], ...]


def _chance_of(rules: PigRules) -> _Chance:
    bust = reset = 0.0
    gains: dict[int, float] = {}
    for (outcome, prob), gain in zip(rules.outcomes, rules.gains, strict=True):
        del outcome
        if gain == _BUST:
            bust += prob
        elif gain == _RESET:
            reset += prob
        else:
            assert gain > 0
            gains[gain] = gains.get(gain, 0.0) + prob
    return _Chance(bust, reset, tuple(sorted(gains.items())))


def _sweep(
    chance: _Chance, goal: int, start: np.ndarray, policy: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Solves every turn given the opponent's turn-start values.

    Args:
      chance: the roll's effect probabilities.
      goal: the winning score.
      start: start[a, b] = win probability of the player who starts a turn with banked a
        against b (for the opponent of the player whose turns we solve).
      policy: roll[i, j, k] booleans to evaluate, or None to maximise.

    Returns:
      (win, roll): win[i, j, k] for i + k < goal (1.0 elsewhere) and the roll decisions taken.
    """
    top_gain = max((s for s, _ in chance.gains), default=0)
    # k is the leading axis so that each step of the sweep reads contiguous (i, j) planes.
    win = np.ones((goal + top_gain, goal, goal), dtype=np.float64)
    roll = np.zeros((goal, goal, goal), dtype=bool)
    # Turn-ending outcomes do not depend on k: the opponent then starts at (j, i) or (j, 0).
    start_t = np.ascontiguousarray(start.T)  # start_t[i, j] = start[j, i]
    ended = chance.bust * (1.0 - start_t) + chance.reset * (1.0 - start_t[0][np.newaxis, :])
    # hold_t[i + k, j] = 1 - start[j, i + k] while i + k < goal; holding at >= goal wins.
    hold_t = np.ones((2 * goal, goal), dtype=np.float64)
    hold_t[:goal] = 1.0 - start_t
    for k in range(goal - 1, -1, -1):
        p_roll = ended.copy()
        for gain, prob in chance.gains:
            p_roll += prob * win[k + gain]
        p_hold = hold_t[k : k + goal]
        rolls = p_roll > p_hold if policy is None else policy[:, :, k]
        live = goal - k  # rows i < goal - k are live: stopping does not win yet
        win[k, :live] = np.where(rolls[:live], p_roll[:live], p_hold[:live])
        roll[k, :live] = rolls[:live]
    return win[:goal].transpose(1, 2, 0), roll.transpose(1, 2, 0)


@dataclass(frozen=True)
class PigSolution:
    """Optimal play of one Pig variant.

    `win[i, j, k]` is the probability that the player to move wins from banked score i against
    j with turn total k (defined for i + k < winscore; 1.0 elsewhere), and `roll[i, j, k]` is
    True where rolling is optimal (ties go to stopping).
    """

    dice: int
    sides: int
    winscore: int
    win: np.ndarray
    roll: np.ndarray
    iterations: int

    @property
    def first_player_win_probability(self) -> float:
        """Win probability of the first player at the start of the game."""
        return float(self.win[0, 0, 0])

    def win_probability(self, i: int, j: int, k: int) -> float:
        """Win probability of the mover with banked i, opponent j, turn total k."""
        if i + k >= self.winscore:
            return 1.0
        return float(self.win[i, j, k])

    def best_action(self, i: int, j: int, k: int) -> int:
        """ROLL or STOP for the mover at (i, j, k); STOP once it wins."""
        if i + k >= self.winscore:
            return STOP
        return ROLL if self.roll[i, j, k] else STOP

    def state_win_probability(self, core: PigCore, player: int) -> float:
        """Win probability of `player` in any state of a matching game, chance nodes included."""
        if core.is_terminal():
            return (core.returns()[player] + 1.0) / 2.0
        if core.current_player() == CHANCE:
            total = 0.0
            for outcome, prob in core.chance_outcomes():
                child = core.clone()
                child.apply(outcome)
                total += prob * self.state_win_probability(child, player)
            return total
        mover = core.turn_player
        p = self.win_probability(core.scores[mover], core.scores[1 - mover], core.turn_total)
        return p if player == mover else 1.0 - p


MEMORY_LIMIT_BYTES = 2 * 1024**3  # the solver refuses goals whose arrays would exceed this


def solver_bytes(winscore: int) -> int:
    """Memory the solver needs for goal `winscore`: its (goal, goal, goal) arrays of win
    probabilities (float64) and decisions (bool), and the sweep's temporaries of the same
    shape, about 24 bytes per cell."""
    return 24 * winscore**3


MAX_SOLVER_WINSCORE = int((MEMORY_LIMIT_BYTES / 24) ** (1 / 3))


def _check_rules(rules: PigRules) -> None:
    needed = solver_bytes(rules.winscore)
    if needed > MEMORY_LIMIT_BYTES:
        raise ValueError(
            f"winscore {rules.winscore} needs about {needed / 1024**3:.1f} GiB in the exact "
            f"solver (limit {MEMORY_LIMIT_BYTES / 1024**3:.0f} GiB: "
            f"winscore <= {MAX_SOLVER_WINSCORE})"
        )


@functools.lru_cache(maxsize=8)
def solve_pig(
    dice: int = 2,
    winscore: int = 100,
    sides: int = 6,
    tolerance: float = DEFAULT_TOLERANCE,
    cache_dir: str | None = None,
) -> PigSolution:
    """Solves Pig exactly (to `tolerance` in every turn-start value).

    Args:
      dice: 1 (OpenSpiel's pig) or 2 (the MCMS paper's variant).
      winscore: the goal.
      sides: faces per die.
      tolerance: stop when no turn-start value changes by more than this.
      cache_dir: a folder that keeps solutions between processes (`default_cache_dir`):
        the turn-start values the last sweep started from, from which one sweep rebuilds
        the same arrays bit for bit (milliseconds instead of a second or more). A file
        there that does not hold them is solved again and replaced.

    Returns:
      The optimal win probabilities and decisions (cached per argument set).

    Raises:
      ValueError: on parameters python_pig would reject, or a goal too large to solve here.
    """
    rules = PigRules(dice=dice, winscore=winscore, diceoutcomes=sides)
    _check_rules(rules)
    chance = _chance_of(rules)
    path = None
    if cache_dir:
        path = Path(cache_dir) / f"pig-{dice}x{sides}-to{winscore}-tol{tolerance:g}-v{_FORMAT}.npz"
        kept = _read_kept(path, winscore)
        if kept is not None:
            start, iteration = kept
            win, roll = _sweep(chance, winscore, start, None)
            return PigSolution(dice, sides, winscore, win, roll, iteration)
    start = np.full((winscore, winscore), 0.5)
    for iteration in range(1, MAX_ITERATIONS + 1):
        win, roll = _sweep(chance, winscore, start, None)
        new_start = win[:, :, 0]
        delta = float(np.max(np.abs(new_start - start)))
        if delta <= tolerance:
            if path is not None:
                _keep(path, start, iteration)
            return PigSolution(dice, sides, winscore, win, roll, iteration)
        start = new_start.copy()
    raise RuntimeError(f"value iteration did not converge in {MAX_ITERATIONS} iterations")


_FORMAT = 1  # of the kept files; a change of the solver that changes its values raises it
CACHE_ENV = "CHANCESPIEL_CACHE_DIR"


def default_cache_dir() -> str | None:
    """Where solutions are kept between processes: $CHANCESPIEL_CACHE_DIR (empty: nowhere),
    else chancespiel/ in $XDG_CACHE_HOME or ~/.cache."""
    given = os.environ.get(CACHE_ENV)
    if given is not None:
        return given or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "chancespiel")


def _read_kept(path: Path, winscore: int) -> tuple[np.ndarray, int] | None:
    """The turn-start values and iterations kept at `path`, or None if it holds none valid
    (missing, damaged, of another shape, not probabilities, or larger than such a file)."""
    try:
        if path.stat().st_size > 8 * winscore**2 + 4096:
            return None
        with np.load(path, allow_pickle=False) as kept:
            start = np.asarray(kept["start"])
            iterations = int(kept["iterations"])
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile):
        return None
    if (
        start.shape != (winscore, winscore)
        or start.dtype != np.float64
        or not np.all((start >= 0.0) & (start <= 1.0))
        or not 1 <= iterations <= MAX_ITERATIONS
    ):
        return None
    return start, iterations


def _keep(path: Path, start: np.ndarray, iterations: int) -> None:
    """Writes the kept values atomically (a reader never sees half a file). A folder that
    cannot be written keeps nothing: the cache saves time, and its absence costs only that."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".pig-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, start=start, iterations=np.int64(iterations))
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass


def hold_at_policy(n: int, winscore: int) -> np.ndarray:
    """roll[i, j, k] of "hold at n or at the goal": roll while k < n and i + k < goal."""
    k = np.arange(winscore)
    i = np.arange(winscore)[:, np.newaxis, np.newaxis]
    return np.broadcast_to((k < n) & (i + k < winscore), (winscore, winscore, winscore)).copy()


def policy_win_probability(
    first: np.ndarray,
    second: np.ndarray,
    dice: int = 2,
    winscore: int = 100,
    sides: int = 6,
    tolerance: float = DEFAULT_TOLERANCE,
) -> float:
    """Win probability of the first player when the players follow fixed roll/hold policies.

    Args:
      first, second: roll[i, j, k] boolean arrays of shape (winscore,) * 3, for the first and
        the second player (e.g. `hold_at_policy(20, 100)` or `solve_pig(...).roll`).
      dice, winscore, sides: the variant.
      tolerance: convergence threshold on turn-start values.
    """
    rules = PigRules(dice=dice, winscore=winscore, diceoutcomes=sides)
    _check_rules(rules)
    shape = (winscore, winscore, winscore)
    for name, policy in (("first", first), ("second", second)):
        if policy.shape != shape or policy.dtype != bool:
            raise ValueError(f"{name} policy must be a bool array of shape {shape}")
    chance = _chance_of(rules)
    start_first = np.full((winscore, winscore), 0.5)
    start_second = np.full((winscore, winscore), 0.5)
    for _ in range(MAX_ITERATIONS):
        new_first = _sweep(chance, winscore, start_second, first)[0][:, :, 0].copy()
        new_second = _sweep(chance, winscore, new_first, second)[0][:, :, 0].copy()
        delta = max(
            float(np.max(np.abs(new_first - start_first))),
            float(np.max(np.abs(new_second - start_second))),
        )
        start_first, start_second = new_first, new_second
        if delta <= tolerance:
            return float(start_first[0, 0])
    raise RuntimeError(f"policy evaluation did not converge in {MAX_ITERATIONS} iterations")
