"""The edge part of GED as a quadratic form over (fractional) node assignments, compiled.

An assignment is a matrix ``X`` of shape ``(n1+1) × (n2+1)`` (last row: insertions, last
column: deletions). With ``B1``/``B2`` the edge labels of the two graphs, extended by "no edge"
(also for every pair that involves ε), and ``C`` the edge cost between two such labels (zero
between two non-edges), the edge cost of a binary ``X`` is ``½ Σ X[i,k] X[j,l] C[B1[i,j],
B2[k,l]]``: each edge of either graph is priced once, by the pair of assignments of its ends.
:func:`quadratic_product` computes ``Q(X)[i,k] = Σ_{j,l} C[B1[i,j], B2[k,l]] X[j,l]`` without
visiting the many zero terms: in O(n1·n2 + |E1|·|E2|).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["quadratic_product"]


@njit(cache=True, nogil=True)
def quadratic_product(x, emat, ptr1, nbr1, lab1, ptr2, nbr2, lab2):
    """``Q(x)`` as above: the gradient of the edge cost at ``x`` (linear in ``x``)."""
    n1 = ptr1.shape[0] - 1
    n2 = ptr2.shape[0] - 1
    K = emat.shape[0] - 1
    rows = np.zeros(n1)  # mass of each node of g1, deletion included
    cols = np.zeros(n2)
    for j in range(n1):
        for c in range(n2 + 1):
            rows[j] += x[j, c]
    for c in range(n2):
        for j in range(n1 + 1):
            cols[c] += x[j, c]
    # an edge of g1 at i whose other end does not land on a g2 edge at k is deleted, an edge
    # of g2 at k whose preimage is no g1 edge at i is inserted; a pair of edges is substituted
    dele = np.zeros(n1)
    for i in range(n1):
        for t in range(ptr1[i], ptr1[i + 1]):
            dele[i] += emat[lab1[t], K] * rows[nbr1[t]]
    ins = np.zeros(n2)
    for k in range(n2):
        for u in range(ptr2[k], ptr2[k + 1]):
            ins[k] += emat[K, lab2[u]] * cols[nbr2[u]]
    q = np.zeros((n1 + 1, n2 + 1))
    for i in range(n1):
        q[i, n2] = dele[i]
        for k in range(n2):
            s = dele[i] + ins[k]
            for t in range(ptr1[i], ptr1[i + 1]):
                j = nbr1[t]
                e = lab1[t]
                for u in range(ptr2[k], ptr2[k + 1]):
                    g = lab2[u]
                    s += (emat[e, g] - emat[e, K] - emat[K, g]) * x[j, nbr2[u]]
            q[i, k] = s
    for k in range(n2):
        q[n1, k] = ins[k]
    return q
