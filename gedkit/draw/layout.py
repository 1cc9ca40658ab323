"""Where nodes go: a deterministic layout of g1, and g2's layout seeded from it.

Positions are in units of one typical edge length. g1 is laid out component by component
(Kamada–Kawai for small components, a seeded spring layout for larger ones, the compiled force
layout of :mod:`gedkit.draw.force` above 500 nodes) and the components
are packed in rows, largest first, so disconnected graphs stay compact. g2's nodes that keep
an edge under the node map are pinned where their g1 counterparts are; the others start next
to their placed neighbours and settle by a spring layout in which the pinned nodes do not
move. Graphs whose node labels carry ``x`` and ``y`` coordinates (IAM Letter, Fingerprint...)
are drawn where those say.

Only NetworkX (and numba, for components of more than 500 nodes) is needed, not matplotlib.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gedkit.graph import Graph

__all__ = ["label_coordinates", "layout", "seeded_layout", "spacing"]

#: components larger than this are laid out by springs (Kamada–Kawai is quadratic per step)
_KAMADA_KAWAI_MAX = 60
#: ... and larger than this by the compiled force layout (:mod:`gedkit.draw.force`): NetworkX's
#: spring layout takes 10-20 s on 2,000 nodes
_SPRING_MAX = 500
#: steps of the compiled force layout
_FORCE_STEPS = 60
_SEED = 7


def label_coordinates(g: Graph) -> np.ndarray | None:
    """Node positions read from labels with numeric ``x`` and ``y`` entries, else None.

    >>> label_coordinates(Graph({0: {"x": 1.0, "y": 2.0}, 1: {"x": 0, "y": 0}})).tolist()
    [[1.0, 2.0], [0.0, 0.0]]
    >>> label_coordinates(Graph({0: "C"})) is None
    True
    """
    if g.n == 0:
        return None
    out = np.empty((g.n, 2))
    for i, lab in enumerate(g.node_labels):
        if not isinstance(lab, dict):
            return None
        try:
            out[i] = float(lab["x"]), float(lab["y"])
        except (KeyError, TypeError, ValueError):
            return None
    return out if np.all(np.isfinite(out)) else None


def layout(g: Graph, seed: int = _SEED) -> np.ndarray:
    """Deterministic positions of ``g``'s nodes, shape ``(n, 2)``, about one unit per edge.

    >>> pos = layout(Graph(range(4), [(0, 1), (1, 2), (2, 3)]))
    >>> pos.shape, bool(np.allclose(pos, layout(Graph(range(4), [(0, 1), (1, 2), (2, 3)]))))
    ((4, 2), True)
    >>> layout(Graph()).shape
    (0, 2)
    """
    coords = label_coordinates(g)
    if coords is not None:
        return _unit_edges(coords, g.edges)
    if g.n == 0:
        return np.zeros((0, 2))
    import networkx as nx

    h = nx.Graph()
    h.add_nodes_from(range(g.n))
    h.add_edges_from(g.edges.tolist())
    # components in a fixed order: largest first, ties by smallest node index
    comps = sorted((sorted(c) for c in nx.connected_components(h)), key=lambda c: (-len(c), c[0]))
    blocks = [_component(h.subgraph(c), c, seed) for c in comps]
    return _pack(blocks, comps, g.n)


def seeded_layout(g2: Graph, pos1: np.ndarray, forward: np.ndarray, anchored: np.ndarray,
                  seed: int = _SEED) -> np.ndarray:
    """g2's positions: nodes ``forward[i]`` of anchored ``i`` sit at ``pos1[i]``, the others
    settle around them.

    Parameters
    ----------
    g2 : Graph
        The graph to place.
    pos1 : ndarray, shape (n1, 2)
        g1's positions.
    forward : ndarray of int, shape (n1,)
        The node map (-1 = deleted).
    anchored : ndarray of bool, shape (n1,)
        Which g1 nodes pin their counterpart (see :func:`gedkit.draw.scene.kept_anchors`).
    seed : int
        Seed of the spring layout that places the free nodes.

    Returns
    -------
    ndarray, shape (n2, 2)

    Examples
    --------
    >>> g = Graph(range(3), [(0, 1), (1, 2)])
    >>> pos1 = layout(g)
    >>> pos2 = seeded_layout(g, pos1, np.array([0, 1, 2]), np.ones(3, bool))
    >>> bool(np.allclose(pos1, pos2))
    True
    """
    coords = label_coordinates(g2)
    if coords is not None:
        return _unit_edges(coords, g2.edges)
    forward = np.asarray(forward, dtype=np.int64)
    pins = {int(forward[i]): pos1[i] for i in np.flatnonzero(anchored & (forward >= 0))}
    if not pins:
        return layout(g2, seed)
    starts = {int(forward[i]): pos1[i] for i in np.flatnonzero(forward >= 0)}
    import networkx as nx

    h = nx.Graph()
    h.add_nodes_from(range(g2.n))
    h.add_edges_from(g2.edges.tolist())
    comps = sorted((sorted(c) for c in nx.connected_components(h)), key=lambda c: (-len(c), c[0]))
    held = [c for c in comps if any(j in pins for j in c)]
    loose = [c for c in comps if not any(j in pins for j in c)]
    pos = np.zeros((g2.n, 2))
    nodes = [j for c in held for j in c]
    init = _starting_positions(g2, pins, starts)
    free = [j for j in nodes if j not in pins]
    if free and len(nodes) > _SPRING_MAX:
        pos[nodes] = _forces(_local_edges(h.subgraph(nodes), nodes), init[nodes],
                             np.array([j in pins for j in nodes]))
    else:
        placed = (nx.spring_layout(h.subgraph(nodes), pos={j: init[j] for j in nodes},
                                   fixed=list(pins), k=1.0, iterations=60, seed=seed) if free
                  else {j: init[j] for j in nodes})
        for j in nodes:
            pos[j] = placed[j]
    if loose:
        # components with nothing pinned have no place in g1's picture: packed below it
        ref = np.vstack([pos1, pos[nodes]])
        lo, hi = ref.min(axis=0), ref.max(axis=0)
        blocks = [_component(h.subgraph(c), c, seed) for c in loose]
        packed = _pack(blocks, loose, g2.n, width=max(hi[0] - lo[0], 4.0))
        idx = [j for c in loose for j in c]
        below = packed[idx]
        pos[idx] = below - np.array([below[:, 0].min() - lo[0], below[:, 1].max() - lo[1] + 1.5])
    return pos


def _starting_positions(g2: Graph, pins: dict, starts: dict) -> np.ndarray:
    """Pinned nodes where pinned; mapped free nodes where their counterpart is; the others
    next to the mean of their placed neighbours, breadth first; what is left in a row below."""
    pos = np.full((g2.n, 2), np.nan)
    for j, p in {**starts, **pins}.items():
        pos[j] = p
    rng = np.random.default_rng(_SEED)
    adj = [[] for _ in range(g2.n)]
    for a, b in g2.edges.tolist():
        adj[a].append(b)
        adj[b].append(a)
    changed = True
    while changed:
        changed = False
        for j in range(g2.n):
            if np.isnan(pos[j, 0]):
                near = [pos[k] for k in adj[j] if not np.isnan(pos[k, 0])]
                if near:
                    pos[j] = np.mean(near, axis=0) + rng.uniform(-0.6, 0.6, 2)
                    changed = True
    rest = np.flatnonzero(np.isnan(pos[:, 0]))
    if len(rest):
        known = pos[~np.isnan(pos[:, 0])]
        x0, y0 = known[:, 0].min(), known[:, 1].min() - 1.5
        for k, j in enumerate(rest.tolist()):
            pos[j] = (x0 + k % 12, y0 - k // 12)
    return pos


def _component(sub: Any, nodes: list[int], seed: int) -> np.ndarray:
    import networkx as nx

    n = len(nodes)
    if n == 1:
        return np.zeros((1, 2))
    if n == 2:
        return np.array([[0.0, 0.0], [1.0, 0.0]])
    edges = _local_edges(sub, nodes)
    if n > _SPRING_MAX:
        # from seeded random spots in a square of about one unit per node
        start = np.random.default_rng(seed).uniform(0.0, math.sqrt(n), (n, 2))
        pos = _forces(edges, start, np.zeros(n, dtype=bool))
    else:
        if n <= _KAMADA_KAWAI_MAX:
            # start from a circle, not from NetworkX's default, so the result is fixed
            start = {u: (math.cos(2 * math.pi * k / n), math.sin(2 * math.pi * k / n))
                     for k, u in enumerate(nodes)}
            placed = nx.kamada_kawai_layout(sub, pos=start)
        else:
            placed = nx.spring_layout(sub, seed=seed, iterations=80)
        pos = np.array([placed[u] for u in nodes], dtype=float)
    return _spread(_unit_edges(pos, edges))


def _local_edges(sub: Any, nodes: list[int]) -> np.ndarray:
    """The edges of ``sub`` as positions in ``nodes``, shape ``(m, 2)``."""
    where = {u: k for k, u in enumerate(nodes)}
    return np.array([(where[a], where[b]) for a, b in sub.edges()], dtype=np.int64).reshape(-1, 2)


def _forces(edges: np.ndarray, start: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """:func:`gedkit.draw.force.force_layout` from ``start`` over ``edges`` (node positions in
    rows, as :func:`_local_edges` gives them), an edge about one unit long."""
    from gedkit.draw.force import force_layout

    return force_layout(np.asarray(start, dtype=float), edges,
                        np.asarray(fixed, dtype=np.bool_), _FORCE_STEPS, 1.0)


def _spread(pos: np.ndarray) -> np.ndarray:
    """``pos`` scaled up (at most threefold) when nodes crowd: layouts place some nodes much
    closer than an edge is long, and their markers would overlap."""
    close = spacing(pos)
    return pos * min(3.0, 0.55 / close) if 0 < close < 0.55 else pos


def spacing(*positions: np.ndarray) -> float:
    """How close nodes come: the 10th percentile of nearest-neighbour distances (at most 1).

    >>> spacing(np.array([[0.0, 0.0], [0.5, 0.0], [3.0, 0.0]]))
    0.5
    """
    near = []
    for pos in positions:
        pos = np.asarray(pos, dtype=float).reshape(-1, 2)[:400]
        if len(pos) < 2:
            continue
        d = np.linalg.norm(pos[:, None, :] - pos[None, :, :], axis=2)
        d[d < 1e-6] = np.inf  # nodes on one spot (a degenerate layout) say nothing of spacing
        near.append(d.min(axis=1))
    near = np.concatenate(near) if near else np.zeros(0)
    near = near[np.isfinite(near)]
    if not len(near):
        return 1.0
    return float(min(1.0, max(np.percentile(near, 10), 0.05)))


def _unit_edges(pos: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """``pos`` scaled so that the median edge is one unit long, and centred."""
    pos = np.array(pos, dtype=float)
    edges = np.asarray(edges).reshape(-1, 2)
    if len(pos) == 0:
        return pos.reshape(0, 2)
    pos -= pos.mean(axis=0)
    if len(edges):
        lengths = np.linalg.norm(pos[edges[:, 0]] - pos[edges[:, 1]], axis=1)
        scale = float(np.median(lengths[lengths > 0])) if np.any(lengths > 0) else 0.0
    else:  # no edge to measure: the nearest-neighbour spacing stands in for it
        scale = _spacing(pos)
    return pos / scale if scale > 0 else pos


def _spacing(pos: np.ndarray) -> float:
    if len(pos) < 2:
        return 0.0
    sample = pos[:200]
    d = np.linalg.norm(sample[:, None, :] - sample[None, :, :], axis=2)
    d[d == 0] = np.inf
    near = d.min(axis=1)
    return float(np.median(near[np.isfinite(near)])) if np.any(np.isfinite(near)) else 0.0


def _pack(blocks: list[np.ndarray], comps: list[list[int]], n: int,
          width: float | None = None) -> np.ndarray:
    """Components side by side in rows about as wide as the whole is tall (or ``width``),
    a unit apart."""
    boxes = [(b - b.min(axis=0), np.ptp(b, axis=0)) for b in blocks]
    area = sum((w + 1) * (h + 1) for _, (w, h) in boxes)
    row_width = max(max(w for _, (w, _) in boxes), width or math.sqrt(area) * 1.3)
    pos = np.zeros((n, 2))
    x = y = row_height = 0.0
    for (b, (w, h)), nodes in zip(boxes, comps, strict=True):
        if x > 0 and x + w > row_width:
            x, y, row_height = 0.0, y - row_height - 1.0, 0.0
        # rows grow downwards; each block hangs from the row's top
        pos[nodes] = b + np.array([x, y - h])
        x += w + 1.0
        row_height = max(row_height, h)
    return pos - pos.mean(axis=0)
