"""The search of one position as a page (`chancespiel analyse --html`): one self-contained
HTML file (nothing fetched, no server) with the position's board, what the search found, and
its tree as nested collapsible nodes.

Two kinds of search are drawn. *-Minimax (expectimax, Star1, Star2 and their sampled forms,
traced by agents.star_trace): every iteration of the iterative deepening, and in its tree
each node's window, value (exact or a bound) and node count, each chance node's outcomes as
searched, probed, pruned or sampled with their bounds, each decision node's actions cut off.
MCTS and DPW (their kept tree, agents.mcts): each child's visits and mean value. Both trees
are first cut to a readable size (`TreeLimits`), and the page states the limits.

The page is `search_page.html` with its parts filled in, as the annotation's page is
(evaluation.page)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import pyspiel

from chancespiel.agents.mcts import MCTSResult
from chancespiel.agents.mcts_core import Node
from chancespiel.agents.result import SearchResult
from chancespiel.agents.star_trace import (
    AVERAGED,
    DEFAULT_CHILDREN,
    DEFAULT_LEVELS,
    MAX_CHILDREN,
    MAX_LEVELS,
    MAX_TREES,
    PROBED,
    SearchTrace,
    TraceNode,
)
from chancespiel.evaluation.page import boards
from chancespiel.games.core import CHANCE, TERMINAL, Core

TEMPLATE = Path(__file__).with_name("search_page.html")
OPEN_LEVELS = 2  # levels of a tree shown open when the page opens
MAX_OUTCOME_ROWS = 40  # a chance node's outcomes listed one by one; the rest summed up


@dataclass(frozen=True)
class TreeLimits:
    """How much of a search tree a page draws: `levels` below the root (decision and chance
    nodes alike), at each node the `children` that took the most nodes (MCTS: visits)."""

    levels: int = DEFAULT_LEVELS
    children: int = DEFAULT_CHILDREN

    def __post_init__(self) -> None:
        SearchTrace(self.levels, self.children)  # the same ranges: ValueError past them

    def text(self) -> str:
        """The limits in a sentence, for the page."""
        return (
            f"Drawn: {self.levels} levels below the root (decision and chance nodes alike) and "
            f"at each node the {self.children} children that took the most work (nodes; "
            "MCTS: visits), in the order searched, with the chosen root action always; what "
            f"is left out is counted. Change them with --tree-levels (1 to {MAX_LEVELS}) and "
            f"--tree-children (1 to {MAX_CHILDREN})."
        )


@dataclass
class Drawn:
    """One node as the page draws it: its move from the parent, its kind (a CSS class:
    max, min, chance, terminal, horizon), what the search did with it (`role`), facts shown
    in its line, notes and a table of outcomes shown when it is opened, and its children."""

    label: str
    kind: str
    role: str = ""
    facts: list[tuple[str, str]] = field(default_factory=list)  # (CSS class, text)
    notes: list[str] = field(default_factory=list)
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)  # move, p, status, bounds
    children: list[Drawn] = field(default_factory=list)
    more: str = ""


def _value(x: float | None) -> str:
    return "?" if x is None else f"{x:+.4f}"


def _move_text(state: Core, move: int | None) -> str:
    """The name of `move` from `state` (a search-protocol state), or "root"."""
    if move is None:
        return "root"
    return state.action_to_string(state.current_player(), move)


# *-Minimax ----------------------------------------------------------------------------------

BOUND_WORDS = {"=": "", ">=": "\u2265 ", "<=": "\u2264 "}


def drawn_star(node: TraceNode, parent: TraceNode | None = None) -> Drawn:
    """A traced *-Minimax node (and its kept subtree) as the page draws it."""
    label = _move_text(parent.state, node.move) if parent is not None else "root"
    kind = node.kind
    role = "probe: first action only" if node.role == PROBED else ""
    if node.role == AVERAGED:
        role = "averaged"
    facts = []
    if node.prob is not None:
        facts.append(("p", f"p {node.prob:.3f}"))
    facts.append(("val", BOUND_WORDS[node.bound()] + _value(node.value)))
    if node.alpha is not None and node.beta is not None:
        facts.append(("win", f"[{node.alpha:+.3f}, {node.beta:+.3f}]"))
    facts.append(("n", f"{node.nodes} nodes"))
    facts.append(("d", f"depth {node.depth}"))
    drawn = Drawn(label, kind, role, facts, list(node.notes))
    if node.reused is not None:
        drawn.notes.append(
            f"{_move_text(node.state, node.reused)}: its value is the probe's (exact, not "
            "searched again)"
        )
    if node.pruned:
        names = ", ".join(_move_text(node.state, a) for a in node.pruned[:12])
        more = f" and {len(node.pruned) - 12} more" if len(node.pruned) > 12 else ""
        drawn.notes.append(f"pruned (not searched): {names}{more}")
    if node.outcomes:
        rows = node.outcomes
        for row in rows[:MAX_OUTCOME_ROWS]:
            bounds = "" if row.lower is None else f"[{row.lower:+.3f}, {row.upper:+.3f}]"
            drawn.rows.append(
                (_move_text(node.state, row.outcome), f"{row.prob:.3f}", row.status, bounds)
            )
        if len(rows) > MAX_OUTCOME_ROWS:
            rest = rows[MAX_OUTCOME_ROWS:]
            counts: dict[str, int] = {}
            for row in rest:
                counts[row.status or "not drawn"] = counts.get(row.status or "not drawn", 0) + 1
            summary = ", ".join(f"{n} {status}" for status, n in counts.items())
            drawn.rows.append(
                (f"{len(rest)} more", f"{sum(r.prob for r in rest):.3f}", summary, "")
            )
    drawn.children = [drawn_star(child, node) for child in node.children]
    if node.omitted:
        drawn.more = f"{node.omitted} more children not drawn ({node.omitted_nodes} nodes)"
    elif not node.children and node.kind in ("max", "min", "chance") and node.nodes > 1:
        drawn.more = f"below the levels drawn: {node.nodes - 1} nodes"
    return drawn


def star_trees(trace: SearchTrace) -> list[tuple[str, Drawn | None]]:
    """Each iteration's heading and tree (None where it was not kept)."""
    trees = []
    for number, it in enumerate(trace.iterations, start=1):
        root = it.root
        action = "" if it.action is None or root is None else _move_text(root.state, it.action)
        what = "sampled search" if it.sampled else "search"
        heading = (
            f"Iteration {number}: {what} to depth {it.depth}, "
            + (
                f"value {_value(it.value)}, best {action}"
                if it.completed
                else "stopped by the budget"
            )
            + (f" ({it.note})" if it.note else "")
            + f", {it.nodes} nodes"
        )
        trees.append((heading, None if root is None else drawn_star(root)))
    return trees


# MCTS ----------------------------------------------------------------------------------------


def drawn_mcts(
    node: Node,
    limits: TreeLimits,
    sign: float,
    label: str = "root",
    prob: float | None = None,
    level: int = 0,
    chosen: int | None = None,
) -> Drawn:
    """An MCTS node and its most visited children, values for the root player (`sign`: +1 if
    the root player is player 0)."""
    kinds = {CHANCE: "chance", TERMINAL: "terminal"}
    kind = kinds.get(node.player, "max" if sign * (1 if node.player == 0 else -1) > 0 else "min")
    facts = []
    if prob is not None:
        facts.append(("p", f"p {prob:.3f}"))
    facts += [("val", _value(sign * node.mean())), ("n", f"{node.visits} visits")]
    drawn = Drawn(label, kind, "", facts)
    actions, children = node.actions or [], node.children or []
    tried = [(i, c) for i, c in enumerate(children) if c is not None]
    if node.player == CHANCE and node.cum is not None:
        probs = [c - (node.cum[i - 1] if i else 0.0) for i, c in enumerate(node.cum)]
        unsampled = [i for i, c in enumerate(children) if c is None]
        if unsampled:
            mass = sum(probs[i] for i in unsampled)
            drawn.notes.append(
                f"sampled {len(actions) - len(unsampled)} of {len(actions)} outcomes; never "
                f"drawn: {len(unsampled)} (probability {mass:.3f})"
            )
    else:
        probs = []
        if node.player >= 0 and len(children) < len(actions):
            drawn.notes.append(
                f"{len(actions) - len(children)} of {len(actions)} actions never tried "
                "(progressive widening, or too few simulations)"
            )
    if level >= limits.levels or not tried:
        if tried:
            drawn.more = f"below the levels drawn: {sum(c.visits for _, c in tried)} visits"
        return drawn
    ranked = sorted(tried, key=lambda ic: -ic[1].visits)
    kept = ranked[: limits.children]
    if chosen is not None and all(actions[i] != chosen for i, _ in kept):
        kept = [*kept[:-1], next(ic for ic in tried if actions[ic[0]] == chosen)]
    kept.sort(key=lambda ic: ic[0])
    state = node.state
    for i, child in kept:
        name = _move_text(state, actions[i]) if state is not None else str(actions[i])
        share = probs[i] if probs else None
        drawn.children.append(drawn_mcts(child, limits, sign, name, share, level + 1))
    left = [c for i, c in tried if all(i != k for k, _ in kept)]
    if left:
        drawn.more = f"{len(left)} more children not drawn ({sum(c.visits for c in left)} visits)"
    return drawn


# The page ------------------------------------------------------------------------------------


def _tree_html(drawn: Drawn, level: int = 0) -> str:
    """A node and its children as nested lists; a node with anything to open is a
    <details>, open down to OPEN_LEVELS."""
    facts = "".join(f'<span class="{cls}">{escape(text)}</span>' for cls, text in drawn.facts)
    role = f'<span class="role">{escape(drawn.role)}</span>' if drawn.role else ""
    line = (
        f'<span class="move">{escape(drawn.label)}</span>'
        f'<span class="kind">{escape(drawn.kind)}</span>{facts}{role}'
    )
    inner = "".join(f'<p class="note">{escape(note)}</p>' for note in drawn.notes)
    if drawn.rows:
        body = "".join(
            f'<tr><td>{escape(move)}</td><td class="num">{p}</td>'
            f'<td class="st {escape(status.split(",")[0].split(":")[0].replace(" ", "-"))}">'
            f'{escape(status)}</td><td class="num">{bounds}</td></tr>'
            for move, p, status, bounds in drawn.rows
        )
        inner += (
            '<table class="outcomes"><tr><th>outcome</th><th>p</th><th>what the search did'
            f"</th><th>bounds</th></tr>{body}</table>"
        )
    children = "".join(_tree_html(child, level + 1) for child in drawn.children)
    if drawn.more:
        children += f'<li class="more">{escape(drawn.more)}</li>'
    if children:
        inner += f"<ul>{children}</ul>"
    kind = escape(drawn.kind)
    if not inner:
        return f'<li class="leaf {kind}"><div class="line">{line}</div></li>'
    opened = " open" if level < OPEN_LEVELS else ""
    return (
        f'<li class="{kind}"><details{opened}><summary class="line">{line}</summary>'
        f"{inner}</details></li>"
    )


def _summary(result: SearchResult, state: pyspiel.State, player: int) -> str:
    """What the search found, as a few lines of HTML."""
    lines = [
        f"Chosen: <b>{escape(state.action_to_string(player, result.action))}</b>, value "
        f"{_value(result.value)} for player {player}; depth {result.depth}, {result.nodes} "
        f"nodes, {result.evaluations} heuristic evaluations, {result.time_s:.3f} s"
        + ("" if result.completed else " (the budget ran out: the last iteration is unfinished)")
        + "."
    ]
    if isinstance(result, MCTSResult):
        lines.append(f"{result.simulations} simulations.")
    return "<p>" + " ".join(lines) + "</p>"


def _iterations_table(result: SearchResult, state: pyspiel.State, player: int) -> str:
    if not result.iterations:
        return ""
    rows = "".join(
        f"<tr><td>{it.depth}</td><td>{'sampled' if it.sampled else 'every outcome'}</td>"
        f"<td>{escape(state.action_to_string(player, it.action))}</td>"
        f'<td class="num">{_value(it.value)}</td><td class="num">{it.nodes}</td></tr>'
        for it in result.iterations
    )
    return (
        '<table class="iterations"><tr><th>depth</th><th>chance nodes</th><th>best action</th>'
        f"<th>value</th><th>nodes</th></tr>{rows}</table>"
    )


def search_page(
    game: pyspiel.Game,
    state: pyspiel.State,
    agent: str,
    result: SearchResult,
    limits: TreeLimits,
    trace: SearchTrace | None = None,
) -> str:
    """The page of one analysed position: `result` of `agent`'s search from `state`, with its
    tree from `trace` (*-Minimax) or from the MCTS result's kept root.

    Raises:
      ValueError: if there is no tree to draw (neither a trace nor a kept MCTS tree).
    """
    player = state.current_player()
    vmin, vmax = game.min_utility(), game.max_utility()
    if trace is not None:
        trees = star_trees(trace)
        kind = "star"
    elif isinstance(result, MCTSResult) and result.root is not None:
        sign = 1.0 if player == 0 else -1.0
        root = drawn_mcts(result.root, limits, sign, chosen=result.action)
        trees = [(f"The tree: {result.simulations} simulations", root)]
        kind = "mcts"
    else:
        raise ValueError("there is no search tree to draw")
    sections = []
    for number, (heading, tree) in enumerate(trees, start=1):
        last = number == len(trees)
        body = (
            f'<ul class="tree">{_tree_html(tree)}</ul>'
            if tree is not None
            else f'<p class="note">Not kept: the page keeps the trees of the last {MAX_TREES} '
            "iterations.</p>"
        )
        sections.append(
            f'<details class="iteration"{" open" if last else ""}><summary>{escape(heading)}'
            f"</summary>{body}</details>"
        )
    parts = {
        "<!--TITLE-->": escape(f"{agent} on {game}"),
        "<!--HEADER-->": (
            f"<h1>{escape(agent)} for player {player}</h1>"
            f'<p class="sub">{escape(str(game))}, after {len(state.history())} moves '
            f"(history {escape(' '.join(map(str, state.history())) or 'empty')}). Values are "
            f"for player {player}, between {vmin:g} and {vmax:g}.</p>"
        ),
        "<!--BOARD-->": boards(str(game), state.history())[-1],
        "<!--SUMMARY-->": _summary(result, state, player)
        + _iterations_table(result, state, player),
        "<!--LIMITS-->": escape(limits.text()),
        "<!--LEGEND-->": LEGENDS[kind],
        "<!--TREES-->": "\n".join(sections),
    }
    html = TEMPLATE.read_text(encoding="utf-8")
    for marker, content in parts.items():
        html = html.replace(marker, content, 1)
    return html


LEGENDS = {
    "star": (
        "Each line: the move that leads to the node, its kind (max: player to move is the "
        "searching player; min: the opponent; chance; horizon: valued by the heuristic; "
        "terminal), its probability under a chance node, its value (\u2265 or \u2264: the "
        "search returned a bound, having proved the value outside its window), its window "
        "[\u03b1, \u03b2], the nodes its subtree visited and the depth left. A chance node "
        "lists its outcomes: <i>searched</i>, <i>probed</i> (Star2 searched the first action "
        "of the child for a bound), <i>pruned</i> (never searched: the bounds already cut), "
        "<i>terminal</i>, each with the bounds the node ended with; under sampling, only the "
        "outcomes drawn are listed, weighted by their share of the draws."
    ),
    "mcts": (
        "Each line: the move that leads to the node, its kind (max: the searching player to "
        "move; min: the opponent; chance; terminal), its probability under a chance node, the "
        "mean value of the simulations through it and their number. A chance node says how "
        "many of its outcomes the simulations drew."
    ),
}
