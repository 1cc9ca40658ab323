"""The step strip: g1 → … → g2, one edit operation per panel.

The operations run in an order that is valid at every step (an edge is deleted before its
ends, a node inserted before its edges): edge deletions, node deletions, relabellings,
node insertions, edge insertions. Each panel shows the graph after its step, with the element
just edited in that operation's style (a deleted element is shown once more, dashed, in the
panel that removes it). Nodes keep one place through the whole strip: g1's nodes where g1's
picture has them, inserted nodes where g2's has them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gedkit.draw import MAX_STEPS
from gedkit.draw.caption import ged_caption
from gedkit.draw.figure import LABELS_LEFT_OUT, draw_cell, legend_handles
from gedkit.draw.output import escaped, new_figure
from gedkit.draw.pictures import pair_positions, treat_as_molecules
from gedkit.draw.scene import Panel
from gedkit.draw.style import LEGENDS
from gedkit.errors import OptionError, counted

__all__ = ["draw_steps", "step_order"]

_ORDER = ("edge_del", "node_del", "node_sub", "edge_sub", "node_ins", "edge_ins")


def step_order(ops: list) -> list[int]:
    """Indices of ``ops`` in an order valid at every step.

    >>> from gedkit.problem import EditOperation as Op
    >>> step_order([Op("node_del", 1, None, 1), Op("edge_ins", None, (0, 2), 1),
    ...             Op("edge_del", (0, 1), None, 1), Op("node_ins", None, 2, 1)])
    [2, 0, 3, 1]
    """
    return sorted(range(len(ops)), key=lambda k: (_ORDER.index(ops[k].kind), k))


def draw_steps(result: Any, *, max_steps: int = MAX_STEPS, ncols: int | None = None,
               molecule: bool | None = None, labels: bool | None = None, ids: bool = False,
               carbons: bool = False, figsize: tuple | None = None, dpi: float = 100,
               ax: Any = None) -> Any:
    """The strip of a GED result's edit path, one operation per panel.

    Parameters
    ----------
    result : Result
        A GED result.
    max_steps : int
        Refuse paths of more operations than this (at most :data:`MAX_STEPS`).
    ncols : int, optional
        Panels per row (default: up to 5).
    molecule, labels, ids, carbons, figsize, dpi
        As for :func:`gedkit.draw.draw`.
    ax : None
        Not supported: a strip is a figure of its own.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    OptionError
        The path is longer than ``max_steps``, or ``max_steps`` is out of range.

    Examples
    --------
    >>> import gedkit
    >>> g1 = gedkit.Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 1)])
    >>> g2 = gedkit.Graph({0: "C", 1: "C", 2: "N"}, [(0, 1, 1), (1, 2, 2)])
    >>> fig = draw_steps(gedkit.ged(g1, g2))
    >>> len([a for a in fig.axes if a.get_gid() and a.get_gid().startswith("step")])
    3
    """
    if ax is not None:
        raise OptionError("a step strip is a figure of its own: ax= is for draw(result)")
    if not isinstance(max_steps, int) or not 1 <= max_steps <= MAX_STEPS:
        raise OptionError(f"max_steps={max_steps!r}: give a whole number from 1 to {MAX_STEPS}")
    ops = result.edit_path
    if len(ops) > max_steps:
        raise OptionError(
            f"the edit path has {len(ops)} operations, more than a step strip of "
            f"{max_steps} shows (max_steps=, at most {MAX_STEPS}); draw(result) shows the "
            "whole path in one picture")
    g1, g2 = result.problem.g1, result.problem.g2
    chem = treat_as_molecules([g1, g2], molecule)
    pos1, pos2 = pair_positions(g1, g2, result.assignment, chem)
    states = _states(result, ops, pos1, pos2)

    count = len(states)
    cols = ncols or math.ceil(count / math.ceil(count / 5))  # rows as even as can be
    rows = math.ceil(count / cols)
    allpos = np.vstack([s[1] for s in states if len(s[1])] or [np.zeros((1, 2))])
    lo, hi = allpos.min(axis=0) - 0.9, allpos.max(axis=0) + 0.9
    w, h = hi - lo
    cell = min(3.2, 14.0 / cols)  # inches per panel
    ch = float(np.clip(cell * h / max(w, 1e-9), 1.6, 3.4))
    # (at least the legend's width: a path of no step, one panel, cut it at both ends)
    size = figsize or (max(cell * cols + 0.3, _LEGEND_INCHES), ch * rows + 0.45 * rows + 1.4)
    fig = new_figure(size, dpi)
    fh = fig.get_size_inches()[1]
    top, bottom = 1.0 - 0.85 / fh, 0.55 / fh
    row_h = (top - bottom) / rows
    tips: dict[str, str] = {}
    hidden = False  # some panel's labels left out
    for k, (panel, pos, title) in enumerate(states):
        r, c = divmod(k, cols)
        ax_k = fig.add_axes((c / cols + 0.005, top - (r + 1) * row_h + 0.3 / fh,
                             1 / cols - 0.01, row_h - 0.42 / fh))
        ax_k.set_gid(f"step-{k}")
        describe = {op_k: f"{k}. {ops[op_k].describe(cost=True)}" for op_k in
                    (o for o in (*panel.node_ops, *panel.edge_ops) if o is not None)}
        tips_k, left_out = draw_cell(ax_k, panel, pos, lo, hi, molecule=chem, labels=labels,
                                     ids=ids, carbons=carbons, describe=describe)
        tips.update(tips_k)
        hidden = hidden or left_out
        # wrapped: its dollars escaped, not left to literal_text (see escaped)
        ax_k.set_title(escaped(title), fontsize=8.5, pad=3, wrap=True, parse_math=True)
    head, _ = ged_caption(result)
    fig.text(0.5, 1.0 - 0.12 / fh, head, ha="center", va="top", fontsize=12.5,
             fontweight="bold")
    fig.text(0.5, 1.0 - 0.42 / fh, f"edit path step by step: {counted(len(ops), 'operation')}"
             + (f"  ·  {LABELS_LEFT_OUT}" if hidden else ""),
             ha="center", va="top", fontsize=9, color="#444444")
    fig.legend(handles=legend_handles("ged"), loc="lower center", ncol=len(LEGENDS["ged"]),
               frameon=False, fontsize=8.5, handlelength=3)
    fig._gedkit_tooltips = {k: v for k, v in tips.items()}
    fig._gedkit_caption = head
    return fig


#: inches the legend's one row takes, with a margin (5.4 drawn)
_LEGEND_INCHES = 5.8


def _states(result: Any, ops: list, pos1: np.ndarray,
            pos2: np.ndarray) -> list[tuple[Panel, np.ndarray, str]]:
    """(panel, positions, title) of g1 and of the graph after each step."""
    g1, g2 = result.problem.g1, result.problem.g2
    # the nodes of the strip: g1's (keys ("g1", i)) then g2's inserted ones (("g2", j))
    forward = np.asarray(result.assignment)
    inv = np.full(g2.n, -1, dtype=np.int64)
    inv[forward[forward >= 0]] = np.flatnonzero(forward >= 0)
    start: dict[tuple, np.ndarray] = {("g1", i): pos1[i] for i in range(g1.n)}
    start.update({("g2", j): pos2[j] for j in range(g2.n) if inv[j] < 0})
    end = dict(start)
    end.update({("g1", i): pos2[forward[i]] for i in range(g1.n) if forward[i] >= 0})
    total = max(len(ops), 1)

    def where(t: int) -> dict:
        f = t / total
        return {key: (1 - f) * start[key] + f * end[key] for key in start}

    def key1(u: Any) -> tuple:
        return ("g1", g1.index(u))

    def key2(v: Any) -> tuple:
        j = g2.index(v)
        return ("g1", int(inv[j])) if inv[j] >= 0 else ("g2", j)

    def key(a: tuple, b: tuple) -> Any:
        # an arc is ordered: "delete 0 -> 1, insert 1 -> 0" were one edge drawn twice
        return (a, b) if g1.directed else frozenset((a, b))

    nodes: dict[tuple, list] = {("g1", i): [g1.ids[i], g1.node_labels[i]] for i in range(g1.n)}
    edges: dict[Any, Any] = {
        key(("g1", a), ("g1", b)): lab
        for (a, b), lab in zip(g1.edges.tolist(), g1.edge_labels, strict=True)}
    edges.update({key(("g1", a), ("g1", a)): lab for a, lab in g1.loops.items()})  # self-loops
    directed = g1.directed

    def named(stage: str) -> Any:
        """How a node is named in a panel: g1's panels by g1's ids, g2's (the last) by g2's,
        those between with a kept node's both where they differ (``0→9``): the titles name
        deletions by g1's ids and insertions by g2's (the last panel, "= g2", showed g1's
        ids, one of them twice beside an inserted node of g2's)."""
        def name(key: tuple, own: Any) -> Any:
            side, i = key
            if side == "g2" or stage == "g1" or forward[i] < 0:
                return own
            there = g2.ids[forward[i]]
            if stage == "g2":
                return there
            return g1.ids[i] if there == g1.ids[i] else f"{g1.ids[i]}→{there}"
        return name

    out = [(_panel(nodes, edges, None, None, None, directed, named("g1")),
            _positions(nodes, where(0)), "g1")]
    for step, k in enumerate(step_order(ops), start=1):
        op = ops[k]
        ghost_nodes, ghost_edges = dict(nodes), dict(edges)
        mark: Any
        if op.kind == "edge_del":
            mark = key(key1(op.source[0]), key1(op.source[1]))
            del edges[mark]
            role = "deleted"
        elif op.kind == "node_del":
            mark = key1(op.source)
            del nodes[mark]
            role = "deleted"
        elif op.kind == "node_sub":
            mark = key1(op.source)
            nodes[mark] = [nodes[mark][0], op.target_label]
            ghost_nodes = nodes
            role = "relabelled"
        elif op.kind == "edge_sub":
            mark = key(key1(op.source[0]), key1(op.source[1]))
            edges[mark] = op.target_label
            ghost_edges = edges
            role = "relabelled"
        elif op.kind == "node_ins":
            mark = key2(op.target)
            nodes[mark] = [op.target, op.target_label]
            ghost_nodes = nodes
            role = "inserted"
        else:
            mark = key(key2(op.target[0]), key2(op.target[1]))
            edges[mark] = op.target_label
            ghost_edges = edges
            role = "inserted"
        # a deletion is shown in the panel that removes it, on the graph before it
        last = step == len(ops)
        panel = _panel(ghost_nodes, ghost_edges, mark, role, k, directed,
                       named("g2" if last else "between"))
        title = f"{step}. {op.describe()}"
        out.append((panel, _positions(ghost_nodes, where(step)), title))
    out[-1] = (out[-1][0], out[-1][1], out[-1][2] + "  (= g2)")
    return out


def _positions(nodes: dict, node_pos: dict) -> np.ndarray:
    return np.array([node_pos[key] for key in nodes], dtype=float).reshape(-1, 2)


def _panel(nodes: dict, edges: dict, mark: Any, role: str | None, op: int | None,
           directed: bool = False, name: Any = None) -> Panel:
    """The panel of one state: ``edges`` keyed by their ends (a frozenset, one end for a
    self-loop; an ordered pair when ``directed``), each node named by ``name(key, id)``
    (default its id in ``nodes``)."""
    keys = list(nodes)
    where = {key: i for i, key in enumerate(keys)}
    edge_keys = [e for e in edges if all(end in where for end in e)]
    pairs = np.array([[where[a] for a in e] if directed else
                      sorted(where[end] for end in e) * (2 // len(e)) for e in edge_keys],
                     dtype=np.int64).reshape(-1, 2)
    node_roles = ["kept"] * len(keys)
    edge_roles = ["kept"] * len(edge_keys)
    node_ops: list = [None] * len(keys)
    edge_ops: list = [None] * len(edge_keys)
    if mark in where:
        node_roles[where[mark]], node_ops[where[mark]] = role, op
    elif mark in edge_keys:
        e = edge_keys.index(mark)
        edge_roles[e], edge_ops[e] = role, op
    return Panel(
        ids=tuple(nodes[key][0] if name is None else name(key, nodes[key][0]) for key in keys),
        labels=tuple(nodes[key][1] for key in keys),
        edges=pairs, edge_labels=tuple(edges[e] for e in edge_keys), node_roles=node_roles,
        edge_roles=edge_roles, node_ops=node_ops, edge_ops=edge_ops,
        node_notes=[None] * len(keys), edge_notes=[None] * len(edge_keys),
        side="g2" if role == "inserted" else "g1", directed=directed)
