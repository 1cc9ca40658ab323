"""Automorphism orbits of a labelled graph, for breaking a search's symmetry at its root.

Two nodes lie in one *orbit* when some automorphism (a permutation of the nodes keeping every
node label, every edge and its label, and every non-edge) maps one onto the other. A search
that has decided nothing yet explores isomorphic subtrees below ``u -> v`` and ``u -> w`` for
``v`` and ``w`` in one orbit of g2, and after it has finished every map that uses ``u``, every
map that uses a node of ``u``'s orbit in g1 is the image of one already looked at. So
:func:`seed_classes` says which images a first decision needs and which nodes need a first
decision at all.

Orbits are found without a group-theory library: colour refinement (each node's colour
replaced by a hash of its colour and its neighbours' edge labels and colours, until the
number of colours stops growing) puts every orbit inside one colour class; then, within each
class, a backtracking search looks for an automorphism taking the class's first node onto
each other member, and merges the cycles of each one it finds. Every merge rests on a
permutation that was checked edge by edge, so hash collisions or a search stopped at its step
limit can only leave orbits split (less pruning), never merge nodes that are not symmetric.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["fixed_orbits", "orbits", "seed_classes"]

# a search for one automorphism stops after this many steps per node (molecules need about
# one: refined colours leave almost no choice), and all of them together after this many per
# node and edge (highly regular graphs, where refinement separates nothing); past either the
# nodes not yet compared stay apart
_STEPS_PER_NODE = 20
_TOTAL_STEPS_PER_ELEMENT = 200


@njit(cache=True, nogil=True)
def _mix(x):
    """A 64-bit finaliser (splitmix64's, wrapping): spreads nearby integers apart."""
    x = (x ^ (x >> 30)) * -4658895280553007687
    x = (x ^ (x >> 27)) * -7723592293110705685
    return x ^ (x >> 31)


@njit(cache=True, nogil=True)
def _renumber(old, key):
    """Dense ids of the pairs (``old[x]``, ``key[x]``), in their sorted order, so that the
    new partition refines ``old``; and how many there are."""
    n = old.shape[0]
    by_key = np.argsort(key, kind="mergesort")
    by_both = by_key[np.argsort(old[by_key], kind="mergesort")]
    new = np.empty(n, dtype=np.int64)
    count = 0
    for i in range(n):
        x = by_both[i]
        if i > 0:
            y = by_both[i - 1]
            if old[x] != old[y] or key[x] != key[y]:
                count += 1
        new[x] = count
    return new, count + 1 if n else 0


@njit(cache=True, nogil=True)
def _refine(ptr, nbr, cls, labels):
    """The stable colouring from ``labels`` (see the module docstring)."""
    n = labels.shape[0]
    colours, count = _renumber(np.zeros(n, dtype=np.int64), labels.astype(np.int64))
    key = np.empty(n, dtype=np.int64)
    while True:
        for x in range(n):
            s = 0
            for k in range(ptr[x], ptr[x + 1]):
                s += _mix(cls[k] * 1000003 + colours[nbr[k]] + 1)
            key[x] = _mix(s)
        colours, grown = _renumber(colours, key)
        if grown == count:
            return colours
        count = grown


@njit(cache=True, nogil=True)
def _automorphism(r, w, ptr, nbr, cls, adj, colours, order, parent, img, inv, limit):
    """Whether an automorphism maps ``r`` onto ``w`` (found within ``limit`` steps; if so it
    is left in ``img``), and the steps taken. ``order`` lists the nodes breadth first from
    ``r`` (each node after ``parent[node]``, -1 for the first node of each component)."""
    n = order.shape[0]
    img[:] = -1
    inv[:] = -1
    pos = np.zeros(n + 1, dtype=np.int64)  # per depth, the next candidate to try
    depth = 0
    steps = 0
    while depth >= 0:
        if depth == n:
            return True, steps
        x = order[depth]
        if img[x] >= 0:  # coming back: undo this depth's choice
            inv[img[x]] = -1
            img[x] = -1
        found = -1
        while True:
            steps += 1
            if steps > limit:
                return False, steps
            p = pos[depth]
            pos[depth] = p + 1
            if depth == 0:
                y = w if p == 0 else -1
            elif parent[x] >= 0:  # an image among the neighbours of the parent's image
                q = img[parent[x]]
                y = nbr[ptr[q] + p] if p < ptr[q + 1] - ptr[q] else -1
            else:  # a component's first node: any node of its colour
                y = p if p < n else -1
            if y < 0:
                break
            if inv[y] >= 0 or colours[y] != colours[x]:
                continue
            ok = True
            links_x = 0
            for k in range(ptr[x], ptr[x + 1]):
                a = nbr[k]
                if img[a] >= 0:
                    links_x += 1
                    if adj[y, img[a]] != cls[k]:
                        ok = False
                        break
            if not ok:
                continue
            links_y = 0
            for k in range(ptr[y], ptr[y + 1]):
                if inv[nbr[k]] >= 0:
                    links_y += 1
            if links_y == links_x:  # no edge of y's among the images that x lacks
                found = y
                break
        if found < 0:
            pos[depth] = 0
            depth -= 1
            continue
        img[x] = found
        inv[found] = x
        depth += 1
    return False, steps


@njit(cache=True, nogil=True)
def _breadth_first(s, ptr, nbr, order, parent, seen):
    """Every node in breadth-first order from ``s``, component after component, into
    ``order``, with each node's ``parent`` (-1 for the first node of each component)."""
    n = order.shape[0]
    seen[:] = False
    top = 0
    for start in range(-1, n):
        root = s if start < 0 else start
        if seen[root]:
            continue
        seen[root] = True
        order[top] = root
        parent[root] = -1
        head = top
        top += 1
        while head < top:
            a = order[head]
            head += 1
            for k in range(ptr[a], ptr[a + 1]):
                b = nbr[k]
                if not seen[b]:
                    seen[b] = True
                    parent[b] = a
                    order[top] = b
                    top += 1


@njit(cache=True, nogil=True)
def _find(rep, x):
    while rep[x] != x:
        rep[x] = rep[rep[x]]
        x = rep[x]
    return x


@njit(cache=True, nogil=True)
def _union(rep, a, b):
    a, b = _find(rep, a), _find(rep, b)
    if a != b:
        rep[max(a, b)] = min(a, b)


@njit(cache=True, nogil=True)
def orbits(ptr, nbr, cls, adj, labels, rep):
    """Merge into ``rep`` (union-find parents, one per node; the identity when nothing is
    known) the orbits of the graph given by CSR neighbour lists with edge labels ``cls``
    (``adj``: the same as a dense matrix, -1 for no edge) and node ``labels``; returns each
    node's orbit id, its smallest member."""
    n = labels.shape[0]
    colours = _refine(ptr, nbr, cls, labels)
    order = np.empty(n, dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    img = np.empty(n, dtype=np.int64)
    inv = np.empty(n, dtype=np.int64)
    # per colour, the first node of each orbit found in it (a chain through ``following``)
    first = np.full(n, -1, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    following = np.full(n, -1, dtype=np.int64)
    budget = _TOTAL_STEPS_PER_ELEMENT * (n + ptr[n]) + 10_000
    for r in range(n):
        c = colours[r]
        s = first[c]
        joined = False
        while s >= 0 and not joined and budget > 0:
            if _find(rep, r) == _find(rep, s):
                joined = True
                break
            _breadth_first(s, ptr, nbr, order, parent, seen)
            budget -= n + ptr[n]
            found, steps = _automorphism(s, r, ptr, nbr, cls, adj, colours, order, parent,
                                         img, inv, min(_STEPS_PER_NODE * n + 1000, budget))
            budget -= steps
            if found:
                for x in range(n):
                    _union(rep, x, img[x])
                joined = True
            s = following[s]
        if not joined:  # the first of a new orbit (as far as the search could tell)
            if first[c] < 0:
                first[c] = r
            else:
                following[last[c]] = r
            last[c] = r
    out = np.empty(n, dtype=np.int64)
    for x in range(n):
        out[x] = _find(rep, x)
    return out


@njit(cache=True, nogil=True)
def fixed_orbits(ptr, nbr, cls, adj, labels, v0):
    """:func:`orbits` of the automorphisms that fix ``v0`` (given a label of its own)."""
    own = labels.astype(np.int64)
    own[v0] = own.max() + 1
    return orbits(ptr, nbr, cls, adj, own, np.arange(labels.shape[0]))


@njit(cache=True, nogil=True)
def seed_classes(ptr1, nbr1, cls1, labels1, rank, ptr2, nbr2, cls2, adj2, labels2, twin2):
    """What a search's first decisions need (see the module docstring): per node of g1,
    whether it comes first of its orbit in the matching order (``rank``; the others need no
    first decision), and per node of g2 its class among first images (its orbit, joined with
    its ``twin2`` class): one image per class is tried."""
    n1, n2 = labels1.shape[0], labels2.shape[0]
    adj1 = np.full((n1, n1), -1, dtype=np.int64)
    for x in range(n1):
        for k in range(ptr1[x], ptr1[x + 1]):
            adj1[x, nbr1[k]] = cls1[k]
    orbit1 = orbits(ptr1, nbr1, cls1, adj1, labels1, np.arange(n1))
    rep2 = np.arange(n2)
    for v in range(n2):
        _union(rep2, v, twin2[v])
    class2 = orbits(ptr2, nbr2, cls2, adj2, labels2, rep2)
    lowest = np.full(n1, -1, dtype=np.int64)  # per orbit, its node of lowest rank
    for u in range(n1):
        if rank[u] >= 0:
            o = orbit1[u]
            if lowest[o] < 0 or rank[u] < rank[lowest[o]]:
                lowest[o] = u
    seed1 = np.zeros(n1, dtype=np.bool_)
    for u in range(n1):
        seed1[u] = rank[u] >= 0 and lowest[orbit1[u]] == u
    return seed1, class2
