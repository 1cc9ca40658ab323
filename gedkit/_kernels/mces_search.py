"""The exact MCES kernel: depth-first branch and bound over node maps, compiled with numba.

The search decides the nodes of g1 one at a time, each onto an unused node of g2 with the same
label or onto nothing; the next node is the undecided one with the most edges to mapped nodes
(ties: a fixed matching order). ``g`` counts the common edges among the decided nodes. A
child's bound ``f`` is the smaller of two upper bounds on every completion:

- *combinatorial*: ``g`` plus two parts that cannot share an edge. *Inner*: edges of g1
  between undecided nodes can only land on edges of g2 between unused nodes; per edge class,
  at most the smaller count. *Anchored*: an edge from a mapped node ``a → b`` to an undecided
  node can only land on an edge from ``b`` to an unused node; per anchor and class, at most
  the smaller count. Both parts are counted once per expansion; each child then corrects them
  for its own image ``v`` (O(deg v)).
- *Lagrangian*: the bound of the linear relaxation (:class:`gedkit.mces.bounds.
  LinearRelaxation`) minus what the state's decisions remove from it: every node pair a
  decision rules out, every forced pair, every node left unmapped. Kept per state in fixed
  point (rounded so that the bound only loosens) and updated in O(1) per child.

Two rules drop children without losing an optimum:

- *unused nodes*: a map whose mapped nodes each touch a common edge reaches every count, so
  a mapped node must keep an edge: a child ``u → v`` that keeps none now and cannot later is
  dropped (the child leaving ``u`` unmapped covers it), and so is a state where some mapped
  node without a common edge has no way left to get one;
- *twins*: nodes of g2 that swapping leaves the graph unchanged (same label, same edges to
  every other node) are interchangeable while both are unused; only the first is tried.

With ``ctl[CONNECTED]`` set, only connected common subgraphs are looked for. Until a node is
mapped, the search is as above (the first node mapped is the fragment's seed; a node left
unmapped before it stays out). Then only nodes with an edge to the fragment are decided, and
their children split the maps in two: ``u → v`` keeping at least one edge to the fragment, or
``u`` *deferred*: none of its edges to the nodes mapped so far will be common (a later image of
``u`` must respect that), so ``u`` may still join through an edge to a node mapped later. The
fragment thus grows one attached node at a time and every connected common subgraph is reached
exactly once; a state with no undecided node left to attach is a leaf. The inner part then
counts only the edges still reachable from the fragment through undecided (g1) or unused (g2)
nodes, and a deferred child's bound adds back its node's own edges to undecided nodes.

Children are tried best ``f`` first; a child whose ``f`` does not beat the incumbent (or a
higher floor the driver sets) is dropped. The kernel is resumable: its whole state lives in
arrays the caller owns, and each call runs at most ``max_steps`` expansions, so the driver
reads the clock between calls.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from gedkit._kernels.bundles import MCESPair, MCESState, Relaxation
from gedkit._kernels.mces_count import common_edges as _common_edges_source
from gedkit._kernels.order import matching_order, neighbour_lists, twin_classes
from gedkit._kernels.symmetry import fixed_orbits

__all__ = [
    "CONNECTED", "DEFER", "DEPTH", "DONE", "ENUMERATE", "EXPANDED", "FLOOR", "FOUND", "FRESH",
    "INCUMBENT", "PAUSED", "common_edges", "first_search", "new_state", "open_bound", "search",
    "search_inputs", "unpack_state",
]

DONE = 0  # search space exhausted: no map beats the incumbent and the floor
PAUSED = 1  # max_steps reached: call again
FOUND = 2  # enumerating: best_map holds the next map above the floor; call again for more
# (inside search only) the loop needs the orbits of g2 with its one used node fixed
_NEED_ORBITS = 3

# ctl slots; a child needs f above both the incumbent and FLOOR (set by the driver to look
# for large maps only, see gedkit.mces.exact); CONNECTED = 1 grows one fragment only
# ENUMERATE = 1 reports every map above FLOOR in turn (FOUND) instead of improving one
DEPTH, FRESH, INCUMBENT, EXPANDED, FLOOR, CONNECTED, ENUMERATE = 0, 1, 2, 3, 4, 5, 6
# the child "u deferred" (connected mode) among the images of u
DEFER = -2
# node pairs the connected bound's walk may reach, per node of the two graphs, at each step
# (beyond: each graph's own reach, weaker): keeps a step's price near the rest of its work
PAIR_REACH = 4


# The helpers a search step calls are inlined into it (numba's IR inliner): as separate
# functions each call booked the reference counts of the dozens of arrays in the bundles it
# takes in and out, 15% of a connected search's time on NCI pairs (measured side by side).

# the compiled edge count of MCESProblem.common (its source stays numba-free)
common_edges = njit(cache=True, nogil=True)(_common_edges_source)


@njit(cache=True, nogil=True)
def search_inputs(n1, n2, edges1, classes1, edges2, classes2, labels1, labels2, n_classes):
    """The fields of :class:`MCESPair` for one pair, in one compiled call (on molecules the
    same steps as numpy calls took longer than the whole search): edges whose class the other
    graph lacks left out, the shared classes renumbered ``0..K-1`` in id order, ``rank``
    (each node of g1 with an edge left: its place in :func:`matching_order`), and per node
    of g1 its candidates: the nodes of g2 with its label and an edge left, in node order."""
    seen1 = np.zeros(n_classes, dtype=np.bool_)
    seen2 = np.zeros(n_classes, dtype=np.bool_)
    for c in classes1:
        seen1[c] = True
    for c in classes2:
        seen2[c] = True
    renumber = np.full(n_classes, -1, dtype=np.int64)
    k = 0
    for c in range(n_classes):
        if seen1[c] and seen2[c]:
            renumber[c] = k
            k += 1
    e1, ec1, cadj1 = _kept_edges(n1, edges1, classes1, renumber)
    e2, ec2, cadj2 = _kept_edges(n2, edges2, classes2, renumber)
    ptr1, nbr1, cls1 = neighbour_lists(cadj1)
    ptr2, nbr2, cls2 = neighbour_lists(cadj2)
    order = matching_order(cadj1, labels1, labels2)
    rank = np.full(n1, -1, dtype=np.int64)
    r = 0
    for u in order:
        if ptr1[u + 1] > ptr1[u]:
            rank[u] = r
            r += 1
    # nodes of g2 with an edge left, bucketed by label in node order
    top = 0
    for v in range(n2):
        top = max(top, labels2[v] + 1)
    for u in range(n1):
        top = max(top, labels1[u] + 1)
    start = np.zeros(top + 1, dtype=np.int64)
    for v in range(n2):
        if ptr2[v + 1] > ptr2[v]:
            start[labels2[v] + 1] += 1
    for a in range(top):
        start[a + 1] += start[a]
    bucket = np.empty(start[top], dtype=np.int64)
    fill = start[:top].copy()
    for v in range(n2):
        if ptr2[v + 1] > ptr2[v]:
            bucket[fill[labels2[v]]] = v
            fill[labels2[v]] += 1
    cand_ptr = np.zeros(n1 + 1, dtype=np.int64)
    for u in range(n1):
        size = 0
        if ptr1[u + 1] > ptr1[u]:
            size = start[labels1[u] + 1] - start[labels1[u]]
        cand_ptr[u + 1] = cand_ptr[u] + size
    cand_list = np.empty(cand_ptr[n1], dtype=np.int64)
    for u in range(n1):
        first = start[labels1[u]]
        for t in range(cand_ptr[u + 1] - cand_ptr[u]):
            cand_list[cand_ptr[u] + t] = bucket[first + t]
    twin2 = twin_classes(cadj2, labels2).astype(np.int64)
    return (rank, cadj2, ptr1, nbr1, cls1, ptr2, nbr2, cls2, cand_ptr, cand_list,
            e1, ec1, e2, ec2, max(k, 1), twin2, rank >= 0, twin2.copy(),
            labels2.astype(np.int64), np.zeros((0, 0), dtype=np.int64))


@njit(cache=True, nogil=True)
def new_state(rank, cand_ptr, n_edges1, connected, forbid, top):
    """A fresh search's state (the fields of :class:`MCESState`, in order) and its matching
    order: a depth per branched node of g1 (``rank`` >= 0), in connected mode room for a
    deferral per end of each edge too; per depth room for every candidate and "unmapped".
    ``forbid``: the relaxation's losses (zeros without one), ``top`` its bound at the root."""
    n1, n2 = forbid.shape
    depths = 0
    for u in range(n1):
        if rank[u] >= 0:
            depths += 1
    if connected:
        depths += 2 * n_edges1
    rows = max(depths, 1)
    width = 1
    for u in range(n1):
        width = max(width, cand_ptr[u + 1] - cand_ptr[u] + 1)
    lval = np.zeros(depths + 1, dtype=np.int64)
    lval[0] = top
    rowfree = np.zeros(n1, dtype=np.int64)
    colund = np.zeros(n2, dtype=np.int64)
    for u in range(n1):
        for v in range(n2):
            rowfree[u] += forbid[u, v]
            colund[v] += forbid[u, v]
    state = (np.full(n1, -1, dtype=np.int64), np.zeros(n2, dtype=np.bool_),
             np.zeros(n1, dtype=np.bool_), np.zeros(n1, dtype=np.int64),
             np.zeros(depths + 1, dtype=np.int64), lval, rowfree, colund,
             np.zeros((rows, width), dtype=np.int64), np.zeros((rows, width), dtype=np.int64),
             np.zeros((rows, width), dtype=np.int64), np.zeros((rows, width), dtype=np.int64),
             np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64),
             np.full(n1, -1, dtype=np.int64), np.zeros(n1, dtype=np.int64),
             np.zeros(rows, dtype=np.bool_), np.zeros(rows, dtype=np.int64))
    return state, np.full(depths, -1, dtype=np.int64)


@njit(cache=True, nogil=True)
def _kept_edges(n, edges, classes, renumber):
    """The edges whose class is shared (ends, renumbered classes) and their class adjacency."""
    m = 0
    for e in range(edges.shape[0]):
        if renumber[classes[e]] >= 0:
            m += 1
    ends = np.empty((m, 2), dtype=np.int64)
    kept = np.empty(m, dtype=np.int64)
    adj = np.full((n, n), -1, dtype=np.int64)
    m = 0
    for e in range(edges.shape[0]):
        c = renumber[classes[e]]
        if c >= 0:
            a, b = edges[e, 0], edges[e, 1]
            ends[m, 0], ends[m, 1], kept[m] = a, b, c
            adj[a, b] = c
            adj[b, a] = c
            m += 1
    return ends, kept, adj


class _Work(NamedTuple):
    """Work arrays of one :func:`search` call, cleared after each expansion."""

    inner1: np.ndarray  # per edge class: edges of g1 between undecided nodes
    inner2: np.ndarray  # ... of g2 between unused nodes
    anc1: np.ndarray  # (depth, class): edges from each mapped node into g1's undecided part
    anc2: np.ndarray  # ... from its image into g2's unused part
    anchor_of: np.ndarray  # per node of g2: the depth of the node mapped onto it, -1 none
    own1: np.ndarray  # per class: edges from the node being decided into the undecided part
    own1w: np.ndarray  # ... a copy consumed child by child
    near_u: np.ndarray  # per node of g1: a neighbour of the node being decided
    twin_seen: np.ndarray  # per twin class of g2: already tried as an image
    reach1: np.ndarray  # connected mode: g1 nodes the fragment can still reach
    reach2: np.ndarray  # ... g2 nodes likewise
    queue: np.ndarray  # breadth-first queue of node pairs (x * n2 + y), or of nodes, for those
    visited: np.ndarray  # (n1, n2): node pairs the breadth-first search reached
    every2: np.ndarray  # zeros: every used node of g2 is a source (each graph's own reach)


@njit(cache=True, nogil=True, inline="always")
def _choose(d, order, pair, state):
    """The next node to decide: most edges to mapped nodes (those mapped after its last
    deferral), then lowest ``rank``. Returns those edges and how many nodes are mapped."""
    rank, ptr1, nbr1 = pair.rank, pair.ptr1, pair.nbr1
    fwd, assigned1, deferred, when1 = state.fwd, state.assigned1, state.deferred, state.when1
    best, best_links, mapped = -1, -1, 0
    for x in range(rank.shape[0]):
        if rank[x] < 0:
            continue
        if assigned1[x]:
            if fwd[x] >= 0:
                mapped += 1
            continue
        links = 0
        for k in range(ptr1[x], ptr1[x + 1]):
            a = nbr1[k]
            if assigned1[a] and fwd[a] >= 0 and when1[a] > deferred[x]:
                links += 1
        if links > best_links or (links == best_links and rank[x] < rank[best]):
            best, best_links = x, links
    order[d] = best
    return best_links, mapped


@njit(cache=True, nogil=True, inline="always")
def _expand(d, order, pair, lag, state, threshold, attach, seeding, classes, work):
    """Children of the state at depth ``d`` whose f beats ``threshold``, best first.
    ``attach``: each child must keep an edge to a mapped node (connected mode, once a node
    is mapped), and the inner part counts only edges the fragment can still reach.
    One image is tried per class of ``classes`` (nodes of g2 that are interchangeable in
    this state: twins, or orbits while at most one node is used); ``seeding`` (nothing
    mapped yet): none for a node whose orbit came earlier (``seed1``)."""
    cadj2, ptr1, nbr1, cls1 = pair.cadj2, pair.ptr1, pair.nbr1, pair.cls1
    ptr2, nbr2, cls2 = pair.ptr2, pair.nbr2, pair.cls2
    cand_ptr, cand_list = pair.cand_ptr, pair.cand_list
    twin2 = classes
    e1, ec1, e2, ec2 = pair.e1, pair.ec1, pair.e2, pair.ec2
    forbid, force, unmapped, scale = lag.forbid, lag.force, lag.unmapped, lag.scale
    fwd, used2, assigned1, kept = state.fwd, state.used2, state.assigned1, state.kept
    gval, lval, rowfree, colund = state.gval, state.lval, state.rowfree, state.colund
    cand, cf, cg, cl = state.cand, state.cf, state.cg, state.cl
    ncand, pos, deferred, when1 = state.ncand, state.pos, state.deferred, state.when1
    isdefer = state.isdefer
    inner1, inner2, anc1, anc2 = work.inner1, work.inner2, work.anc1, work.anc2
    anchor_of, own1, own1w, near_u = work.anchor_of, work.own1, work.own1w, work.near_u
    twin_seen, reach1, reach2 = work.twin_seen, work.reach1, work.reach2
    queue, every2 = work.queue, work.every2
    u = order[d]
    g = gval[d]
    lag = lval[d]
    assigned1[u] = True
    # from the mapped nodes (and u, which may join them) through undecided nodes, as node
    # pairs; where there are too many of them to walk at every step (large graphs, few
    # labels): each graph's own reach, a weaker bound at the old price
    if attach and not _pair_reach(pair, state, u, work):
        _reach(ptr1, nbr1, assigned1, fwd, u, reach1, queue)
        _reach(ptr2, nbr2, used2, every2, -1, reach2, queue)
    # inner part
    for e in range(e1.shape[0]):
        if (not assigned1[e1[e, 0]] and not assigned1[e1[e, 1]]
                and (not attach or (reach1[e1[e, 0]] and reach1[e1[e, 1]]))):
            inner1[ec1[e]] += 1
    for e in range(e2.shape[0]):
        if (not used2[e2[e, 0]] and not used2[e2[e, 1]]
                and (not attach or (reach2[e2[e, 0]] and reach2[e2[e, 1]]))):
            inner2[ec2[e]] += 1
    base = 0
    for c in range(inner1.shape[0]):
        base += min(inner1[c], inner2[c])
    for k in range(ptr1[u], ptr1[u + 1]):
        near_u[nbr1[k]] = True
    # anchored part, one row per decided node with an image
    dead = False
    for t in range(d):
        a = order[t]
        b = fwd[a]
        if b < 0 or isdefer[t]:
            continue
        anchor_of[b] = t
        for k in range(ptr1[a], ptr1[a + 1]):
            if not assigned1[nbr1[k]]:
                anc1[t, cls1[k]] += 1
        for k in range(ptr2[b], ptr2[b + 1]):
            if not used2[nbr2[k]]:
                anc2[t, cls2[k]] += 1
        row = 0
        for k in range(ptr2[b], ptr2[b + 1]):
            c = cls2[k]
            if not used2[nbr2[k]] and anc2[t, c] > 0:
                row += min(anc1[t, c], anc2[t, c])
                anc2[t, c] = -anc2[t, c]  # counted: flip sign so each class counts once
        for k in range(ptr2[b], ptr2[b + 1]):
            c = cls2[k]
            if anc2[t, c] < 0:
                anc2[t, c] = -anc2[t, c]
        base += row
        if kept[a] == 0 and row == 0 and not near_u[a]:
            dead = True  # a mapped node that can no longer keep an edge
    # u's edges into the undecided part: the g1 side of u's own anchor row
    own = 0
    for k in range(ptr1[u], ptr1[u + 1]):
        if not assigned1[nbr1[k]]:
            own1[cls1[k]] += 1
            own1w[cls1[k]] += 1
            own += 1

    n = 0
    if not dead:
        if attach:
            # u deferred: its edges to the fragment are lost, those to undecided nodes not
            f = min(g + base + own, lag // scale)
            if f > threshold:
                cand[d, n], cg[d, n], cf[d, n], cl[d, n] = DEFER, g, f, lag
                n += 1
        else:
            # u left unmapped: its edges are lost
            lc = lag - rowfree[u] - unmapped[u]
            f = min(g + base, lc // scale)
            if f > threshold:
                cand[d, n], cg[d, n], cf[d, n], cl[d, n] = -1, g, f, lc
                n += 1
        for j in range(cand_ptr[u], cand_ptr[u + 1]):
            v = cand_list[j]
            if seeding and not pair.seed1[u]:
                break  # u's orbit had its first decisions: every map using u was seen
            if used2[v] or twin_seen[twin2[v]]:
                continue
            twin_seen[twin2[v]] = True
            gain = 0
            broken = False
            for k in range(ptr1[u], ptr1[u + 1]):
                a = nbr1[k]
                if assigned1[a] and a != u and fwd[a] >= 0 and cadj2[v, fwd[a]] == cls1[k]:
                    gain += 1
                    broken = broken or when1[a] <= deferred[u]
            if attach and (gain == 0 or broken):
                continue  # v would start a second fragment, or keep an edge u gave up
            h = base
            later = 0  # edges u may still keep with undecided neighbours
            for k in range(ptr2[v], ptr2[v + 1]):
                y = nbr2[k]
                c = cls2[k]
                if not used2[y] and (not attach or (reach2[v] and reach2[y])):
                    # edge (v, y) leaves the inner part and may join u's own row
                    if inner2[c] <= inner1[c]:
                        h -= 1
                    inner2[c] -= 1
                    if own1w[c] > 0:
                        h += 1
                        later += 1
                        own1w[c] -= 1
                else:
                    t = anchor_of[y]
                    if t >= 0 and anc2[t, c] <= anc1[t, c]:
                        h -= 1
            for k in range(ptr2[v], ptr2[v + 1]):
                y = nbr2[k]
                if not used2[y] and (not attach or (reach2[v] and reach2[y])):
                    c = cls2[k]
                    inner2[c] += 1
                    own1w[c] = own1[c]
            if gain == 0 and later == 0:
                continue
            lc = lag - rowfree[u] - colund[v] + 2 * forbid[u, v] - force[u, v]
            f = min(g + gain + h, lc // scale)
            if f > threshold:
                cand[d, n], cg[d, n], cf[d, n], cl[d, n] = v, g + gain, f, lc
                n += 1
        for j in range(cand_ptr[u], cand_ptr[u + 1]):
            twin_seen[twin2[cand_list[j]]] = False
    # best first (insertion sort: a few dozen children at most in practice)
    for i in range(1, n):
        vf, vg, vv, vl = cf[d, i], cg[d, i], cand[d, i], cl[d, i]
        j = i - 1
        while j >= 0 and (cf[d, j] < vf or (cf[d, j] == vf and cg[d, j] < vg)):
            cf[d, j + 1], cg[d, j + 1] = cf[d, j], cg[d, j]
            cand[d, j + 1], cl[d, j + 1] = cand[d, j], cl[d, j]
            j -= 1
        cf[d, j + 1], cg[d, j + 1], cand[d, j + 1], cl[d, j + 1] = vf, vg, vv, vl
    ncand[d] = n
    pos[d] = 0

    # clear the work arrays for the next expansion
    inner1[:] = 0
    inner2[:] = 0
    for k in range(ptr1[u], ptr1[u + 1]):
        own1[cls1[k]] = 0
        own1w[cls1[k]] = 0
        near_u[nbr1[k]] = False
    for t in range(d):
        a = order[t]
        b = fwd[a]
        if b < 0 or isdefer[t]:
            continue
        anchor_of[b] = -1
        for k in range(ptr1[a], ptr1[a + 1]):
            anc1[t, cls1[k]] = 0
        for k in range(ptr2[b], ptr2[b + 1]):
            anc2[t, cls2[k]] = 0
    assigned1[u] = False


@njit(cache=True, nogil=True, inline="always")
def _pair_reach(pair, state, u, work):
    """Connected mode: ``reach1[x]`` (``reach2[y]``) when some node pair ``(x, y)`` can still
    join the fragment: a breadth-first search over node pairs from the mapped ones
    ``(a, fwd[a])``, stepping from ``(x, y)`` to ``(x', y')`` along an edge of g1 and one of
    g2 of the same class (so ``x'`` and ``y'`` have equal labels), onto undecided nodes of g1
    (``u`` included) and unused ones of g2. Every common edge a completion adds joins two
    such pairs (the path that connects it to the fragment is one such walk), so edges with
    an end outside the reach cannot be common. Returns False, the reach unfinished, once
    the walk has reached as many pairs as ``queue`` holds (:data:`PAIR_REACH` per node)."""
    ptr1, nbr1, cls1 = pair.ptr1, pair.nbr1, pair.cls1
    ptr2, nbr2, cls2 = pair.ptr2, pair.nbr2, pair.cls2
    fwd, assigned1, used2 = state.fwd, state.assigned1, state.used2
    reach1, reach2, queue, visited = work.reach1, work.reach2, work.queue, work.visited
    n2 = used2.shape[0]
    reach1[:] = False
    reach2[:] = False
    n = 0
    for a in range(fwd.shape[0]):
        if assigned1[a] and a != u and fwd[a] >= 0:
            visited[a, fwd[a]] = True
            reach1[a] = True
            reach2[fwd[a]] = True
            queue[n] = a * n2 + fwd[a]
            n += 1
    head = 0
    while head < n:
        x, y = queue[head] // n2, queue[head] % n2
        head += 1
        for k in range(ptr1[x], ptr1[x + 1]):
            x2 = nbr1[k]
            if assigned1[x2] and x2 != u:
                continue  # mapped (a source already) or left out
            c = cls1[k]
            for j in range(ptr2[y], ptr2[y + 1]):
                y2 = nbr2[j]
                if cls2[j] == c and not used2[y2] and not visited[x2, y2]:
                    if n == queue.shape[0]:
                        for i in range(n):
                            visited[queue[i] // n2, queue[i] % n2] = False
                        return False
                    visited[x2, y2] = True
                    reach1[x2] = True
                    reach2[y2] = True
                    queue[n] = x2 * n2 + y2
                    n += 1
    for i in range(n):
        visited[queue[i] // n2, queue[i] % n2] = False
    return True


@njit(cache=True, nogil=True, inline="always")
def _reach(ptr, nbr, closed, source, extra, reach, queue):
    """``reach[x]``: ``x`` is a source (``closed`` with ``source[x] >= 0``, or ``extra``) or
    joined to one through nodes not ``closed``."""
    n = 0
    for x in range(reach.shape[0]):
        reach[x] = False
    for x in range(reach.shape[0]):
        if (closed[x] and source[x] >= 0) or x == extra:
            reach[x] = True
            queue[n] = x
            n += 1
    head = 0
    while head < n:
        x = queue[head]
        head += 1
        for k in range(ptr[x], ptr[x + 1]):
            y = nbr[k]
            if not reach[y] and not closed[y]:
                reach[y] = True
                queue[n] = y
                n += 1


@njit(cache=True, nogil=True, inline="always")
def _decide(u, v, sign, pair, lag, state):
    """Book ``u → v`` (``v = -1``: unmapped) into ``kept``, ``rowfree`` and ``colund``
    (``sign = 1``), or take it back out (``sign = -1``). ``u`` must not be marked decided.
    ``scale == 1`` means no relaxation (``forbid`` is all zero)."""
    cadj2, ptr1, nbr1, cls1 = pair.cadj2, pair.ptr1, pair.nbr1, pair.cls1
    forbid, scale = lag.forbid, lag.scale
    fwd, assigned1, kept = state.fwd, state.assigned1, state.kept
    rowfree, colund = state.rowfree, state.colund
    if v >= 0:
        for k in range(ptr1[u], ptr1[u + 1]):
            a = nbr1[k]
            if assigned1[a] and fwd[a] >= 0 and cadj2[v, fwd[a]] == cls1[k]:
                kept[a] += sign
                kept[u] += sign
    if scale == 1:
        return
    if v >= 0:
        for z in range(rowfree.shape[0]):
            rowfree[z] -= sign * forbid[z, v]
    for w in range(colund.shape[0]):
        colund[w] -= sign * forbid[u, w]


@njit(cache=True, nogil=True)
def search(order, pair, lag, state, ctl, best_map, upper, max_steps):
    """Run up to ``max_steps`` expansions; return DONE or PAUSED (or FOUND, enumerating).
    ``pair``, ``lag`` and ``state`` are plain tuples in the field order of
    :class:`~gedkit._kernels.bundles.MCESPair`, :class:`~gedkit._kernels.bundles.Relaxation`
    and :class:`~gedkit._kernels.bundles.MCESState` (the latter's arrays updated in place),
    named on entry (see :func:`gedkit._kernels.tree_search.tree_search` for why); the names
    below are their fields.

    ``ctl[INCUMBENT]``/``best_map`` hold the best map so far (seed them with a heuristic's);
    only strictly better maps replace it. The search stops early once the incumbent reaches
    ``upper``, a bound proven elsewhere. Only states whose f exceeds ``ctl[FLOOR]`` are
    explored, so DONE with a smaller incumbent proves that no map beats the floor.
    ``lval[0]``, ``rowfree`` and ``colund`` start as the relaxation's bound and the row and
    column sums of ``forbid``, all scaled by ``scale``. ``deferred`` (per node of g1, -1
    at the start) is the depth of its last deferral, ``when1`` the depth its map was
    decided at, ``isdefer``/``undefer`` per depth whether that decision deferred its node
    and the deferral it replaced (connected mode; the depth arrays then have room for every
    deferral, up to one per end of each edge).
    """
    pair, lag, state = MCESPair(*pair), Relaxation(*lag), MCESState(*state)
    n_classes = pair.n_classes
    fwd, used2 = state.fwd, state.used2
    N = order.shape[0]
    n2 = used2.shape[0]
    inner1 = np.zeros(n_classes, dtype=np.int64)
    inner2 = np.zeros(n_classes, dtype=np.int64)
    anc1 = np.zeros((max(N, 1), n_classes), dtype=np.int64)
    anc2 = np.zeros((max(N, 1), n_classes), dtype=np.int64)
    anchor_of = np.full(n2, -1, dtype=np.int64)
    own1 = np.zeros(n_classes, dtype=np.int64)
    own1w = np.zeros(n_classes, dtype=np.int64)
    near_u = np.zeros(fwd.shape[0], dtype=np.bool_)
    twin_seen = np.zeros(n2, dtype=np.bool_)
    connected = ctl[CONNECTED] == 1
    n1 = fwd.shape[0]
    reach1 = np.zeros(n1 if connected else 0, dtype=np.bool_)
    reach2 = np.zeros(n2 if connected else 0, dtype=np.bool_)
    queue = np.zeros(PAIR_REACH * (n1 + n2) if connected else 0, dtype=np.int64)
    visited = np.zeros((n1, n2) if connected else (0, 0), dtype=np.bool_)
    every2 = np.zeros(n2 if connected else 0, dtype=np.int64)  # every used node is a source
    work = _Work(inner1, inner2, anc1, anc2, anchor_of, own1, own1w, near_u, twin_seen,
                 reach1, reach2, queue, visited, every2)
    start = ctl[EXPANDED]  # the loop counts every step there: a resumed loop gets the rest
    while True:
        status = _search_loop(order, pair, lag, state, ctl, best_map, upper,
                              max_steps - (ctl[EXPANDED] - start), work)
        if status != _NEED_ORBITS:
            return status
        # the loop allocates nothing: the orbits it asked for are computed here, and it goes
        # on from the same state (it stopped before marking it expanded)
        v0 = _first_used(used2)
        pair.fixed2[v0] = fixed_orbits(pair.ptr2, pair.nbr2, pair.cls2, pair.cadj2,
                                       pair.labels2, v0)


@njit(cache=True, nogil=True, _nrt=False)
def _search_loop(order, pair, lag, state, ctl, best_map, upper, max_steps, work):
    """The steps of :func:`search` (its arguments, and its work arrays), compiled without
    reference counting: it allocates nothing, and numba's counting of every array read out
    of the bundles, at every step, took half the time of a small pair's search."""
    fwd, used2, assigned1, gval = state.fwd, state.used2, state.assigned1, state.gval
    cand, cf, cg, cl = state.cand, state.cf, state.cg, state.cl
    lval, ncand, pos = state.lval, state.ncand, state.pos
    deferred, when1 = state.deferred, state.when1
    isdefer, undefer = state.isdefer, state.undefer
    N = order.shape[0]
    connected = ctl[CONNECTED] == 1
    steps = 0
    while steps < max_steps:
        d = ctl[DEPTH]
        if d < 0 or ctl[INCUMBENT] >= upper:
            return DONE
        if ctl[FRESH] == 1:
            if d == N:
                ctl[FRESH] = 0
                found = _leaf(gval[N], fwd, best_map, ctl)
                _retreat(d, order, pair, lag, state, ctl)
                if found:
                    return FOUND
                continue
            links, mapped = _choose(d, order, pair, state)
            if connected and (links < 0 or (mapped > 0 and links == 0)):
                ctl[FRESH] = 0
                # the fragment is closed: nothing undecided touches it, so this is a leaf
                found = _leaf(gval[d], fwd, best_map, ctl)
                _retreat(d, order, pair, lag, state, ctl)
                steps += 1
                ctl[EXPANDED] += 1
                if found:
                    return FOUND
                continue
            attach = connected and mapped > 0
            # nothing mapped yet, or one node: symmetric decisions are left out (unless
            # every map is wanted), see gedkit._kernels.symmetry
            seeding = mapped == 0 and ctl[ENUMERATE] == 0
            classes = pair.seed2 if seeding else pair.twin2
            if mapped == 1 and ctl[ENUMERATE] == 0 and pair.fixed2.shape[0] > 0:
                # the orbits of g2 with its one used node fixed (computed the first time,
                # by search): images in one orbit give isomorphic subtrees while nothing
                # else is used
                v0 = _first_used(used2)
                if pair.fixed2[v0, 0] == -2:
                    return _NEED_ORBITS
                classes = pair.fixed2[v0]
            ctl[FRESH] = 0
            _expand(d, order, pair, lag, state, max(ctl[INCUMBENT], ctl[FLOOR]), attach,
                    seeding, classes, work)
            steps += 1
            ctl[EXPANDED] += 1
            continue
        p = pos[d]
        if p < ncand[d] and cf[d, p] > max(ctl[INCUMBENT], ctl[FLOOR]):
            v = cand[d, p]
            pos[d] = p + 1
            u = order[d]
            if v == DEFER:
                isdefer[d] = True
                undefer[d] = deferred[u]
                deferred[u] = d
            else:
                _decide(u, v, 1, pair, lag, state)
                fwd[u] = v
                if v >= 0:
                    used2[v] = True
                assigned1[u] = True
                when1[u] = d
            gval[d + 1] = cg[d, p]
            lval[d + 1] = cl[d, p]
            ctl[DEPTH] = d + 1
            ctl[FRESH] = 1
        else:
            pos[d] = ncand[d]
            _retreat(d, order, pair, lag, state, ctl)
    return PAUSED


@njit(cache=True, nogil=True, inline="always")
def _first_used(used2):
    """The first node of g2 marked used (one is, where this is asked)."""
    v = 0
    while not used2[v]:
        v += 1
    return v


@njit(cache=True, nogil=True, inline="always")
def _copy(source, target):
    """``target[:] = source`` without an array temporary (the search loop has no NRT)."""
    for i in range(source.shape[0]):
        target[i] = source[i]


@njit(cache=True, nogil=True, inline="always")
def _leaf(g, fwd, best_map, ctl):
    """A complete map keeping ``g`` edges: the new incumbent if better, or, enumerating,
    reported (True) if above the floor."""
    if ctl[ENUMERATE] == 1:
        if g > ctl[FLOOR]:
            _copy(fwd, best_map)
            return True
        return False
    if g > ctl[INCUMBENT]:
        ctl[INCUMBENT] = g
        _copy(fwd, best_map)
    return False


@njit(cache=True, nogil=True, inline="always")
def _retreat(d, order, pair, lag, state, ctl):
    """Back from depth ``d`` to its parent, undoing the parent's choice."""
    fwd, used2, assigned1 = state.fwd, state.used2, state.assigned1
    deferred, isdefer, undefer = state.deferred, state.isdefer, state.undefer
    ctl[DEPTH] = d - 1
    if d >= 1 and isdefer[d - 1]:
        isdefer[d - 1] = False
        deferred[order[d - 1]] = undefer[d - 1]
    elif d >= 1:
        u = order[d - 1]
        v = fwd[u]
        assigned1[u] = False
        _decide(u, v, -1, pair, lag, state)
        if v >= 0:
            used2[v] = False
        fwd[u] = -1


@njit(cache=True, nogil=True)
def open_bound(state, ctl, root):
    """Largest f of any state not yet explored (the incumbent aside): a proven upper bound
    on every map the paused search has not looked at. ``state`` as in :func:`search`."""
    state = MCESState(*state)
    cf, ncand, pos = state.cf, state.ncand, state.pos
    d = ctl[DEPTH]
    if d < 0:
        return -1
    if ctl[FRESH] == 1 and d == 0:
        return root
    best = -1
    levels = d + 1
    if ctl[FRESH] == 1:
        best = cf[d - 1, pos[d - 1] - 1]  # the state about to be expanded
        levels = d  # level d holds no children of it yet
    for t in range(levels):
        if pos[t] < ncand[t]:
            best = max(best, cf[t, pos[t]])
    return best


@njit(cache=True, nogil=True)
def first_search(n1, n2, edges1, classes1, edges2, classes2, labels1, labels2, n_classes,
                 ctl, best_map, upper, max_steps):
    """:func:`search_inputs`, :func:`new_state` and up to ``max_steps`` expansions of
    :func:`search` without a relaxation, in one call: on small pairs, handing the inputs'
    and the state's thirty-odd arrays to Python one by one took longer than the search.
    Returns the status, the state packed into one array (empty when DONE: nothing to resume;
    see :func:`unpack_state`) and the matching order; ``best_map`` and ``ctl`` as in
    :func:`search`."""
    pair = search_inputs(n1, n2, edges1, classes1, edges2, classes2, labels1, labels2,
                         n_classes)
    forbid = np.zeros((n1, n2), dtype=np.int64)
    lag = (forbid, np.zeros((n1, n2), dtype=np.int64), np.zeros(n1, dtype=np.int64), 1)
    state, order = new_state(pair[0], pair[8], pair[10].shape[0], ctl[CONNECTED] == 1,
                             forbid, upper)
    status = search(order, pair, lag, state, ctl, best_map, upper, max_steps)
    if status == DONE:
        return status, np.zeros(0, dtype=np.int64), order
    return status, _pack_state(state), order


@njit(cache=True, nogil=True)
def _put(buf, at, values):
    """Copy ``values`` (any shape, bools as 0/1) into ``buf`` from ``at``; the next free slot."""
    flat = values.ravel()
    for k in range(flat.shape[0]):
        buf[at + k] = flat[k]
    return at + flat.shape[0]


@njit(cache=True, nogil=True)
def _pack_state(state):
    """The state's arrays (see :class:`MCESState`) in one int64 array, after a header of
    the sizes that shape them: nodes of g1 and g2, depths + 1, rows, width."""
    st = MCESState(*state)
    n1, n2, levels = st.fwd.shape[0], st.used2.shape[0], st.gval.shape[0]
    rows, width = st.cand.shape
    buf = np.empty(5 + 6 * n1 + 2 * n2 + 2 * levels + 4 * rows * width + 4 * rows,
                   dtype=np.int64)
    buf[0], buf[1], buf[2], buf[3], buf[4] = n1, n2, levels, rows, width
    at = 5
    for a in (st.fwd, st.kept, st.rowfree, st.deferred, st.when1, st.colund, st.gval,
              st.lval, st.ncand, st.pos, st.undefer):
        at = _put(buf, at, a)
    for a in (st.cand, st.cf, st.cg, st.cl):
        at = _put(buf, at, a)
    for a in (st.used2, st.assigned1, st.isdefer):
        at = _put(buf, at, a)
    return buf


@njit(cache=True, nogil=True)
def unpack_state(buf):
    """The state :func:`first_search` packed, as the tuple :func:`search` takes."""
    n1, n2, levels, rows, width = buf[0], buf[1], buf[2], buf[3], buf[4]
    at = 5
    ints = []
    for size in (n1, n1, n1, n1, n1, n2, levels, levels, rows, rows, rows):
        ints.append(buf[at:at + size].copy())
        at += size
    grids = []
    for _ in range(4):
        grids.append(buf[at:at + rows * width].copy().reshape((rows, width)))
        at += rows * width
    used2 = buf[at:at + n2] != 0
    at += n2
    assigned1 = buf[at:at + n1] != 0
    at += n1
    isdefer = buf[at:at + rows] != 0
    fwd, kept, rowfree, deferred, when1, colund, gval, lval, ncand, pos, undefer = (
        ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], ints[6], ints[7], ints[8],
        ints[9], ints[10])
    return (fwd, used2, assigned1, kept, gval, lval, rowfree, colund, grids[0], grids[1],
            grids[2], grids[3], ncand, pos, deferred, when1, isdefer, undefer)
