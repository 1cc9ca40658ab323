"""Drawing one panel of a general graph on a matplotlib Axes.

Edges are lines and nodes are markers, both in their role's colour, line style and marker
shape (see :mod:`gedkit.draw.style`), node labels written in the markers. Elements that show
an operation are separate artists whose SVG id is ``op-K`` (``op-K-g2`` for the g2 side of a
substitution), so each operation can be found, counted and given a tooltip; kept elements are
drawn as one collection per role, which keeps large graphs fast, and so are operations where a
panel has more than :data:`OP_ARTISTS` of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gedkit.draw.scene import Panel
from gedkit.draw.style import ROLES
from gedkit.text import label_text

__all__ = ["Context", "draw_panel", "gid"]

#: node labels are left out above this many nodes in one panel (markers get too small)
LABEL_LIMIT = 80
#: above this many operations in one panel, their elements are drawn as one collection per
#: role too, without an SVG id each: thousands of artists took matplotlib ~13 s (a 2,000-node
#: pair), and no one points at one operation among thousands
OP_ARTISTS = 500


@dataclass
class Context:
    """What every element of one picture shares.

    Attributes
    ----------
    ppu : float
        Points per data unit (one unit is about one edge).
    spacing : float
        How close nodes come (data units; a low percentile of nearest-neighbour distances):
        markers are sized to stay apart.
    labels : bool
        Write node labels.
    ids : bool
        Write node ids (next to the node; inside it when unlabelled).
    edge_labels : bool
        Write the labels of kept edges.
    tooltips : dict
        Filled while drawing: SVG id -> tooltip text.
    describe : dict
        Operation index -> its text (the tooltip of its elements).
    """

    ppu: float
    spacing: float = 1.0
    labels: bool = True
    ids: bool = False
    edge_labels: bool = False
    tooltips: dict = field(default_factory=dict)
    describe: dict = field(default_factory=dict)

    @property
    def node_size(self) -> float:
        """Marker diameter in points."""
        return float(np.clip(min(0.44, 0.8 * self.spacing) * self.ppu, 3.0, 24.0))

    @property
    def font(self) -> float:
        return float(np.clip(0.5 * self.node_size, 5.0, 10.0))

    @property
    def thin(self) -> float:
        """Factor on line widths: dense pictures get thinner lines."""
        return float(np.clip(self.ppu / 40.0, 0.35, 1.0))


def gid(panel: Panel, role: str, op: int | None) -> str | None:
    """The SVG id of an element showing operation ``op``: ``op-K`` on the side that names the
    operation (g1, or g2 for insertions), ``op-K-g2`` for a substitution's other side.

    >>> from gedkit.draw.scene import plain_panel
    >>> from gedkit.graph import Graph
    >>> p = plain_panel(Graph([0]), side="g2")
    >>> gid(p, "relabelled", 3), gid(p, "inserted", 4), gid(p, "kept", None)
    ('op-3-g2', 'op-4', None)
    """
    if op is None:
        return None
    twin = panel.side == "g2" and role in ("relabelled", "common")
    return f"op-{op}-g2" if twin else f"op-{op}"


def _tip(ctx: Context, name: str | None, op: int | None) -> None:
    if name is not None and op in ctx.describe:
        ctx.tooltips[name] = ctx.describe[op]


def draw_panel(ax: Any, panel: Panel, pos: np.ndarray, ctx: Context) -> None:
    """Draw ``panel`` with node ``i`` at ``pos[i]`` (data units).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; its limits are the caller's business.
    panel : Panel
        What to draw.
    pos : ndarray, shape (n, 2)
        Node positions.
    ctx : Context
        Sizes and options shared by the picture.
    """
    from matplotlib.collections import LineCollection

    pos = np.asarray(pos, dtype=float).reshape(-1, 2)
    bent = _bends(panel, pos, 0.8 * ctx.node_size / ctx.ppu)
    ops = sum(op is not None for op in panel.edge_ops) + sum(
        op is not None for op in panel.node_ops)
    grouped = ops > OP_ARTISTS  # operations drawn per role too
    # edges: kept ones grouped per role, operations one artist each (or per role: grouped)
    groups: dict[tuple[str, bool], list] = {}
    for k, ((a, b), role, op) in enumerate(zip(panel.edges.tolist(), panel.edge_roles,
                                               panel.edge_ops, strict=True)):
        if a == b:  # a self-loop: a small circle on top of its node
            seg = _loop(pos[a], 0.5 * ctx.node_size / ctx.ppu)
        else:
            seg = _arc(pos[a], pos[b], bent[k]) if bent[k] else [pos[a], pos[b]]
        if op is None or grouped:
            groups.setdefault((role, op is not None), []).append(seg)
            continue
        st = ROLES[role]
        name = gid(panel, role, op)
        (line,) = ax.plot(*np.array(seg).T, color=st.color, linestyle=st.linestyle,
                          linewidth=st.linewidth * ctx.thin, solid_capstyle=st.capstyle,
                          dash_capstyle=st.capstyle, zorder=2)
        line.set_gid(name)
        _tip(ctx, name, op)
        if panel.edge_notes[k]:
            ends = ((seg[len(seg) // 2], seg[len(seg) // 2]) if bent[k] or a == b
                    else (pos[a], pos[b]))
            _edge_text(ax, *ends, panel.edge_notes[k], st.color, ctx, bold=True)
    if panel.directed:
        _arrowheads(ax, panel, pos, bent, ctx)
    for (role, is_op), segs in groups.items():
        st = ROLES[role]
        ax.add_collection(LineCollection([np.asarray(g) for g in segs], colors=st.color,
                                         linestyles=st.linestyle,
                                         linewidths=st.linewidth * ctx.thin,
                                         zorder=2 if is_op else 1,
                                         **({"capstyle": st.capstyle} if is_op else {})))
    if ctx.edge_labels:
        for k, ((a, b), op, lab) in enumerate(zip(panel.edges.tolist(), panel.edge_ops,
                                                  panel.edge_labels, strict=True)):
            text = label_text(lab, 8)
            if op is None and text:
                if a == b:  # above its loop
                    top = pos[a] + np.array([0.0, 2.0 * ctx.node_size / ctx.ppu])
                    _edge_text(ax, top, top, text, "#555555", ctx)
                elif bent[k]:  # on its curve (an arc and its reverse: one label each)
                    curve = _arc(pos[a], pos[b], bent[k])
                    middle = curve[len(curve) // 2]
                    _edge_text(ax, middle, middle, text, "#555555", ctx)
                else:
                    _edge_text(ax, pos[a], pos[b], text, "#555555", ctx)

    # nodes
    size = ctx.node_size
    plain: dict[tuple[str, bool], list[int]] = {}
    for i, (role, op) in enumerate(zip(panel.node_roles, panel.node_ops, strict=True)):
        if op is None or grouped:
            plain.setdefault((role, op is not None), []).append(i)
            continue
        st = ROLES[role]
        coll = ax.scatter(*pos[i], s=(size * _GROW.get(st.marker, 1.0)) ** 2, marker=st.marker,
                          c=st.fill, edgecolors=st.color, linewidths=max(1.0, 2.0 * ctx.thin),
                          zorder=4)
        name = gid(panel, role, op)
        coll.set_gid(name)
        _tip(ctx, name, op)
    for (role, is_op), idx in plain.items():
        st = ROLES[role]
        grow = _GROW.get(st.marker, 1.0) if is_op else 1.0
        ax.scatter(pos[idx, 0], pos[idx, 1], s=(size * grow) ** 2, marker=st.marker, c=st.fill,
                   edgecolors=st.color,
                   linewidths=max(1.0, 2.0 * ctx.thin) if is_op else max(0.6, 1.2 * ctx.thin),
                   zorder=4 if is_op else 3)
    _node_texts(ax, panel, pos, ctx)


#: marker sizes of operations, for the same visual weight as a circle
_GROW = {"s": 1.05, "h": 1.15}


#: how far an edge drawn as a curve bulges (of its length): one that would run through a
#: node, and each of an arc and its reverse (which drawn straight lay on one line, their
#: labels on one spot)
BLOCKED_BEND, MUTUAL_BEND = 0.4, 0.15


def _bends(panel: Any, pos: np.ndarray, radius: float) -> np.ndarray:
    """Each edge's bulge as a curve (:func:`_arc`), 0 where it is drawn straight: blocked by
    a node (:func:`_blocked`), or an arc whose reverse is drawn too (each bulges to its
    left, so the two part)."""
    bends = np.where(_blocked(pos, panel.edges, radius), BLOCKED_BEND, 0.0)
    if panel.directed and len(panel.edges):
        arcs = {(a, b) for a, b in panel.edges.tolist() if a != b}
        for k, (a, b) in enumerate(panel.edges.tolist()):
            if not bends[k] and a != b and (b, a) in arcs:
                bends[k] = MUTUAL_BEND
    return bends


def _blocked(pos: np.ndarray, edges: np.ndarray, radius: float) -> np.ndarray:
    """Which edges pass within ``radius`` of a node they do not join (their straight line
    would run through it and read as two edges); they are drawn as arcs instead. Only on
    graphs small enough for labels: in a dense picture arcs add clutter, not clarity."""
    out = np.zeros(len(edges), dtype=bool)
    if len(edges) == 0 or len(pos) < 3 or len(pos) > LABEL_LIMIT:
        return out
    p, q = pos[edges[:, 0]], pos[edges[:, 1]]
    d = q - p
    length2 = np.maximum((d**2).sum(axis=1), 1e-12)
    # projection of every node on every edge, clamped to the segment
    t = np.clip(((pos[None, :, :] - p[:, None, :]) * d[:, None, :]).sum(axis=2)
                / length2[:, None], 0.0, 1.0)
    closest = p[:, None, :] + t[:, :, None] * d[:, None, :]
    dist = np.linalg.norm(pos[None, :, :] - closest, axis=2)
    dist[np.arange(len(edges)), edges[:, 0]] = np.inf
    dist[np.arange(len(edges)), edges[:, 1]] = np.inf
    inner = (t > 0.02) & (t < 0.98)
    return np.any((dist < radius) & inner, axis=1)


def _loop(p: np.ndarray, radius: float, points: int = 32) -> list:
    """A self-loop at ``p``: a circle of ``radius`` resting on top of the node, starting and
    ending at its centre (so that its middle point is the loop's top)."""
    t = np.linspace(-np.pi / 2, 1.5 * np.pi, points)[:, None]
    return list(np.asarray(p) + radius * np.hstack([np.cos(t), 1.0 + np.sin(t)]))


def _arc(p: np.ndarray, q: np.ndarray, bend: float = 0.4, points: int = 24) -> list:
    """A quadratic curve from ``p`` to ``q``, bulging ``bend`` of its length to the left."""
    d = q - p
    control = (p + q) / 2 + bend * np.array([-d[1], d[0]])
    t = np.linspace(0.0, 1.0, points)[:, None]
    return list((1 - t) ** 2 * p + 2 * (1 - t) * t * control + t**2 * q)


def node_text(panel: Panel, i: int, ctx: Context) -> str:
    """What is written in node ``i``: its label, or its id when unlabelled (or asked)."""
    text = label_text(panel.labels[i], 5) if ctx.labels else ""
    if not text and (ctx.ids or panel.labels[i] is None) and ctx.labels:
        text = label_text(panel.ids[i], 5)
    return text


def _node_texts(ax: Any, panel: Panel, pos: np.ndarray, ctx: Context) -> None:
    size, font = ctx.node_size, ctx.font
    for i in range(panel.n):
        text = node_text(panel, i, ctx)
        if text:
            fs = font * (1.0 if len(text) <= 2 else 2.2 / len(text) ** 0.8)
            ax.text(*pos[i], text, ha="center", va="center", fontsize=max(fs, 4.0),
                    zorder=6, color="#111111")
        if ctx.ids and panel.labels[i] is not None:
            _offset_text(ax, pos[i], str(panel.ids[i]), (0.55 * size, 0.55 * size),
                         "#777777", 0.7 * font, ha="left", va="bottom")
        if panel.node_notes[i] and ctx.labels:
            _offset_text(ax, pos[i], panel.node_notes[i], (0, -0.75 * size - 1.5),
                         ROLES["relabelled"].color, 0.95 * font, ha="center", va="top",
                         bold=True)


def _offset_text(ax: Any, xy: np.ndarray, text: str, offset: tuple, color: str, fs: float,
                 ha: str, va: str, bold: bool = False) -> None:
    ax.annotate(text, xy, xytext=offset, textcoords="offset points", ha=ha, va=va,
                fontsize=fs, color=color, zorder=7,
                fontweight="bold" if bold else "normal",
                bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.85})


def _edge_text(ax: Any, p: np.ndarray, q: np.ndarray, text: str, color: str, ctx: Context,
               bold: bool = False) -> None:
    mid = (np.asarray(p) + np.asarray(q)) / 2
    ax.text(*mid, text, ha="center", va="center", fontsize=0.85 * ctx.font, color=color,
            zorder=5, fontweight="bold" if bold else "normal",
            bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.9})


def _arrowheads(ax: Any, panel: Any, pos: np.ndarray, bent: np.ndarray, ctx: Any) -> None:
    """An arrowhead at the head of each arc of a directed panel, just outside its node (a
    deleted arc and its reverse inserted read alike without them)."""
    radius = 0.5 * ctx.node_size / ctx.ppu
    for k, ((a, b), role) in enumerate(zip(panel.edges.tolist(), panel.edge_roles,
                                           strict=True)):
        if a == b:
            continue
        # the direction the line arrives in: for an arc bent around a node (or away from its
        # reverse) from its last point clear of the head's node (its last piece lies under
        # the node: a pair of mutual arcs had no heads)
        tail = pos[a]
        if bent[k]:
            curve = np.asarray(_arc(pos[a], pos[b], bent[k]), dtype=float)
            clear = np.flatnonzero(np.hypot(*(curve - pos[b]).T) > 2.5 * radius)
            tail = curve[clear[-1]] if len(clear) else pos[a]
        way = pos[b] - np.asarray(tail, dtype=float)
        length = float(np.hypot(*way))
        if length <= 2 * radius:
            continue
        tip = pos[b] - way / length * radius
        st = ROLES[role]  # a head as wide as the line is thick, several times over
        ax.annotate("", xy=tip, xytext=tip - way / length * radius,
                    arrowprops={"arrowstyle": "-|>", "color": st.color, "lw": 0,
                                "shrinkA": 0, "shrinkB": 0,
                                "mutation_scale": max(8.0, 6.0 * st.linewidth * ctx.thin)},
                    zorder=3)
