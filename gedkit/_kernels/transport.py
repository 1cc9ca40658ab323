"""The most two small groups of items can save by being paired: a transportation problem
between a few classes, solved exactly in compiled code.

Rows ``i`` hold ``a[i]`` items, columns ``j`` take ``b[j]``; pairing one item of row ``i``
with one of column ``j`` saves ``s[i, j]``; items may stay unpaired (saving nothing). The
answer is the largest total saving. BRANCH's lower bound over two graphs' branch classes is
of this form (:func:`gedkit._kernels.filters.window_bounds`): every node deleted and every
node inserted, less what the assignment saves by pairing nodes instead.

Successive longest augmenting paths (the min-cost-flow method, run for profit), each found
by Bellman-Ford over the residual graph, whose size is the classes' (a molecule has 5-10
branch classes). The paths' profits never grow, which gives a valid bound at every step: the
savings so far plus the last path's profit for every item still unpaired. A caller asking
only whether the largest saving stays below a target gets that answer from the first step
that settles it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["max_savings", "transport_work"]

_NONE = -1e300  # a class not reached by any path
_EPS = 1e-9  # profits closer than this are equal (costs are sums of a few label costs)


@njit(cache=True, nogil=True)
def transport_work(rows, cols):
    """Scratch for :func:`max_savings` on up to ``rows`` × ``cols`` classes: the flow, the
    residual supplies and demands, path lengths and predecessors, the queue of rows and
    which rows are in it."""
    f, i = np.float64, np.int64
    return (np.zeros((rows, cols), f), np.empty(rows, f), np.empty(cols, f), np.empty(rows, f),
            np.empty(cols, f), np.empty(rows, i), np.empty(cols, i), np.empty(rows, i),
            np.zeros(rows, np.bool_))


@njit(cache=True, nogil=True)
def max_savings(p, r, a, b, s, target, work):
    """The largest ``Σ s[i, j] x[i, j]`` over ``x >= 0`` with row sums at most ``a[:p]``
    and column sums at most ``b[:r]``, solved only as far as telling it from ``target``:
    returns ``(value, upper)``. With ``upper``, ``value`` is at least the largest and below
    ``target`` whenever the largest is (but where rounding cut the solve short);
    without, ``value`` is savings found, at least ``target`` (the largest is then too).
    ``work``: :func:`transport_work` of at least ``p`` × ``r``.

    Two cheap answers first: every item at its best partner's saving (:func:`_cap`), and
    the greedy pairing, best savings first (:func:`_greedy`); only when neither settles it
    (about half of BRANCH's candidates in a range search) the exact solve."""
    x, ra, rb, dr, dc, pr, pc, queue, queued = work
    cap = _cap(s, p, r, a, b, dc)
    if cap < target:
        return cap, True
    found = _greedy(p, r, a, b, s, ra, rb)
    if found >= target:
        return found, False
    supply = 0.0
    for i in range(p):
        ra[i] = a[i]
        supply += a[i]
        for j in range(r):
            x[i, j] = 0.0
    demand = 0.0
    for j in range(r):
        rb[j] = b[j]
        demand += b[j]
    left = min(supply, demand)  # items that may still be paired
    total = 0.0
    while left > 0:
        for i in range(p):
            dr[i] = 0.0 if ra[i] > 0 else _NONE
            pr[i] = -1
        for j in range(r):
            dc[j] = _NONE
            pc[j] = -1
        # longest paths by a queue of rows (Bellman-Ford relaxing only from rows whose
        # length changed): forward arcs of positive saving, backward arcs of positive flow.
        # Successive longest paths leave no cycle of positive profit, so no row enters the
        # queue more than p + r times (more would mean rounding went astray: then the cap)
        head, size = 0, 0
        for i in range(p):
            queued[i] = ra[i] > 0
            if queued[i]:
                queue[size] = i
                size += 1
        pops = 0
        while size > 0:
            i = queue[head]
            head = head + 1 if head + 1 < p else 0
            size -= 1
            queued[i] = False
            pops += 1
            if pops > p * (p + r + 1):
                return cap, True
            for j in range(r):
                if s[i, j] > 0 and dr[i] + s[i, j] > dc[j] + _EPS:
                    dc[j] = dr[i] + s[i, j]
                    pc[j] = i
                    for k in range(p):
                        if x[k, j] > 0 and dc[j] - s[k, j] > dr[k] + _EPS:
                            dr[k] = dc[j] - s[k, j]
                            pr[k] = j
                            if not queued[k]:
                                queued[k] = True
                                tail = head + size if head + size < p else head + size - p
                                queue[tail] = k
                                size += 1
        profit = _EPS
        end = -1
        for j in range(r):
            if rb[j] > 0 and dc[j] > profit:
                profit = dc[j]
                end = j
        if end < 0:
            return total, True
        # no later path profits more than this one: at most this much per item left
        if total + profit * left < target:
            return total + profit * left, True
        amount = rb[end]
        j = end
        while True:  # the path's bottleneck
            i = pc[j]
            if pr[i] < 0:
                amount = min(amount, ra[i])
                break
            amount = min(amount, x[i, pr[i]])
            j = pr[i]
        rb[end] -= amount
        j = end
        while True:
            i = pc[j]
            x[i, j] += amount
            if pr[i] < 0:
                ra[i] -= amount
                break
            x[i, pr[i]] -= amount
            j = pr[i]
        total += amount * profit
        left -= amount
        if total >= target:
            return total, False
    return total, True


@njit(cache=True, nogil=True)
def _cap(s, p, r, a, b, best_col):
    """At least the largest saving: each row's items at their best column's saving, or each
    column's at their best row's, the smaller (``best_col``: scratch of ``r``)."""
    best_col[:r] = 0.0
    by_rows = 0.0
    for i in range(p):
        best = 0.0
        for j in range(r):
            best = max(best, s[i, j])
            best_col[j] = max(best_col[j], s[i, j])
        by_rows += a[i] * best
    by_cols = 0.0
    for j in range(r):
        by_cols += b[j] * best_col[j]
    return min(by_rows, by_cols)


@njit(cache=True, nogil=True)
def _greedy(p, r, a, b, s, ra, rb):
    """At most the largest saving: the pairing that takes the best saving left each time
    (``ra``, ``rb``: scratch)."""
    for i in range(p):
        ra[i] = a[i]
    for j in range(r):
        rb[j] = b[j]
    total = 0.0
    while True:
        best, bi, bj = 0.0, -1, -1
        for i in range(p):
            if ra[i] > 0:
                for j in range(r):
                    if rb[j] > 0 and s[i, j] > best:
                        best, bi, bj = s[i, j], i, j
        if bi < 0:
            return total
        amount = min(ra[bi], rb[bj])
        ra[bi] -= amount
        rb[bj] -= amount
        total += amount * best
