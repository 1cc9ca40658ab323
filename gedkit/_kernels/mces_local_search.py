"""The MCES local searches, compiled: single moves and swaps, and the iterated search of kicks.

:mod:`gedkit.mces.refine` drives them (budgets, chunks, seeds) and documents the moves. Maps are
node maps of g1 (``-1``: unmapped); g1 is read through its neighbour lists with edge labels
(``ptr``, ``nbr``, ``lab``), g2 through its dense edge-label matrix ``adj2`` (-1: no edge).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["iterated_search", "kept_edges", "local_search"]


@njit(cache=True, nogil=True)
def kept_edges(f, ptr, nbr, lab, adj2):
    """Common edges of the map ``f`` (g1's neighbour lists, g2's dense edge labels)."""
    kept = 0
    for i in range(ptr.shape[0] - 1):
        if f[i] < 0:
            continue
        for k in range(ptr[i], ptr[i + 1]):
            a = nbr[k]
            if a > i and f[a] >= 0 and adj2[f[i], f[a]] == lab[k]:
                kept += 1
    return kept


@njit(cache=True, nogil=True)
def _ball(centre, reach, ptr, nbr, ball, depth, seen):
    """Breadth-first from ``centre`` up to ``reach`` edges away: fills ``ball`` and returns its
    size (``seen`` is left all False)."""
    size = 1
    ball[0] = centre
    depth[0] = 0
    seen[centre] = True
    head = 0
    while head < size:
        u = ball[head]
        if depth[head] < reach:
            for k in range(ptr[u], ptr[u + 1]):
                a = nbr[k]
                if not seen[a]:
                    seen[a] = True
                    ball[size] = a
                    depth[size] = depth[head] + 1
                    size += 1
        head += 1
    for t in range(size):
        seen[ball[t]] = False
    return size


@njit(cache=True, nogil=True)
def iterated_search(best, current, nl1, nl2, ptr1, nbr1, lab1, ptr2, nbr2, adj2, kicks, radius,
              g2_balls, downhill, ceiling, seed):
    """``kicks`` kicks from ``current``; ``best`` and ``current`` are updated in place. Returns
    the number of kicks made since ``best`` last improved (``kicks`` when it did not), or -1
    once ``best`` keeps ``ceiling`` edges. Kick ``k`` draws from seed ``seed + k``, so a
    search is the same however its kicks are split between calls."""
    n1 = nl1.shape[0]
    n2 = nl2.shape[0]
    best_count = kept_edges(best, ptr1, nbr1, lab1, adj2)
    current_count = kept_edges(current, ptr1, nbr1, lab1, adj2)
    if best_count >= ceiling:
        return -1
    mapped = np.empty(n1, dtype=np.int64)
    chosen = np.empty(n1, dtype=np.int64)
    ball = np.empty(max(n1, n2), dtype=np.int64)
    depth = np.empty(max(n1, n2), dtype=np.int64)
    seen1 = np.zeros(n1, dtype=np.bool_)
    seen2 = np.zeros(n2, dtype=np.bool_)
    owner = np.empty(n2, dtype=np.int64)
    used = np.zeros(n2, dtype=np.bool_)
    since = kicks
    for kick_no in range(kicks):
        np.random.seed(seed + kick_no)
        g = current.copy()
        m = 0
        for i in range(n1):
            if g[i] >= 0 and ptr1[i] < ptr1[i + 1]:
                mapped[m] = i
                m += 1
        if m == 0:  # nothing mapped yet: start from any node with an edge
            for i in range(n1):
                if ptr1[i] < ptr1[i + 1]:
                    mapped[m] = i
                    m += 1
        if m == 0:
            break
        centre = mapped[np.random.randint(m)]
        reach = 1 + np.random.randint(radius)
        size = 0
        if g[centre] >= 0 and np.random.random() < g2_balls:
            # the ball around the centre's image in g2; its nodes' owners are unmapped
            owner[:] = -1
            for i in range(n1):
                if g[i] >= 0:
                    owner[g[i]] = i
            for t in range(_ball(g[centre], reach, ptr2, nbr2, ball, depth, seen2)):
                if owner[ball[t]] >= 0:
                    chosen[size] = owner[ball[t]]
                    size += 1
        else:
            size = _ball(centre, reach, ptr1, nbr1, ball, depth, seen1)
            chosen[:size] = ball[:size]
        for t in range(size):
            g[chosen[t]] = -1
        used[:] = False
        for i in range(n1):
            if g[i] >= 0:
                used[g[i]] = True
        # greedy re-mapping in random order, ties broken at random
        for t in range(size - 1, 0, -1):
            r = np.random.randint(t + 1)
            chosen[t], chosen[r] = chosen[r], chosen[t]
        for t in range(size):
            u = chosen[t]
            # a node that keeps no edge yet is still mapped (onto a random free node): that
            # costs nothing and lets the nodes after it attach to it
            top, choice, ties = -1, -1, 0
            for v in range(n2):
                if used[v] or nl2[v] != nl1[u]:
                    continue
                gain = _gain(u, v, -1, g, ptr1, nbr1, lab1, adj2)
                if gain > top:
                    top, choice, ties = gain, v, 1
                elif gain == top:
                    ties += 1
                    if np.random.randint(ties) == 0:
                        choice = v
            if choice >= 0:
                g[u] = choice
                used[choice] = True
        local_search(g, nl1, nl2, ptr1, nbr1, lab1, adj2, 0, 0, 50 * n1)
        count = kept_edges(g, ptr1, nbr1, lab1, adj2)
        if count >= current_count or (count == current_count - 1
                                      and np.random.random() < downhill):
            current[:] = g
            current_count = count
            if count > best_count:
                best[:] = g
                best_count = count
                since = kicks - kick_no - 1
                if best_count >= ceiling:
                    return -1
    return since


@njit(cache=True, nogil=True)
def _gain(i, v, skip, f, ptr, nbr, lab, adj2):
    """Edges of node ``i`` kept if ``i`` maps onto ``v``, ignoring neighbour ``skip``."""
    kept = 0
    for k in range(ptr[i], ptr[i + 1]):
        a = nbr[k]
        if a != skip and f[a] >= 0 and adj2[v, f[a]] == lab[k]:
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def local_search(f, nl1, nl2, ptr, nbr, lab, adj2, at, stale, max_visits):
    """Moves and swaps, first improvement, visiting g1's nodes in turn from node ``at`` for at
    most ``max_visits`` visits, or until ``stale`` (visits since the last improvement, carried
    over from a call before) reaches the number of nodes: then no move improves ``f``, a
    local optimum. ``f`` is improved in place. Returns the next node to visit and ``stale``;
    the search resumes where a call stopped, so a sweep can be cut to fit a time limit."""
    n1 = nl1.shape[0]
    n2 = nl2.shape[0]
    owner = np.full(n2, -1, dtype=np.int64)
    for i in range(n1):
        if f[i] >= 0:
            owner[f[i]] = i
    visits = 0
    while visits < max_visits and stale < n1:
        i = at
        at = at + 1 if at + 1 < n1 else 0
        visits += 1
        stale += 1
        if ptr[i] == ptr[i + 1]:
            continue
        now = _gain(i, f[i], -1, f, ptr, nbr, lab, adj2) if f[i] >= 0 else 0
        for v in range(n2):
            if v == f[i] or nl2[v] != nl1[i]:
                continue
            j = owner[v]
            if j < 0:
                if _gain(i, v, -1, f, ptr, nbr, lab, adj2) > now:
                    if f[i] >= 0:
                        owner[f[i]] = -1
                    f[i] = v
                    owner[v] = i
                    stale = 0
                    now = _gain(i, v, -1, f, ptr, nbr, lab, adj2)
                continue
            # swap the images of i and j (an edge between them is kept either way)
            before = _gain(j, v, i, f, ptr, nbr, lab, adj2)
            if f[i] >= 0:
                before += _gain(i, f[i], j, f, ptr, nbr, lab, adj2)
            after = _gain(i, v, j, f, ptr, nbr, lab, adj2)
            if f[i] >= 0:
                after += _gain(j, f[i], i, f, ptr, nbr, lab, adj2)
            if after > before:
                w = f[i]
                f[i] = v
                owner[v] = i
                f[j] = w
                if w >= 0:
                    owner[w] = j
                stale = 0
                now = _gain(i, v, -1, f, ptr, nbr, lab, adj2)
    return at, stale
