"""Admissible costs of turning one label multiset into another."""

from __future__ import annotations

from numba import njit

from gedkit._kernels.lsap import lsape_multiset

__all__ = ["count_cost", "multiset_cost"]


@njit(cache=True, nogil=True, inline="always")
def count_cost(p, q, common, c):
    """LSAPE cost of two multisets under label-equality costs c = (ins, del, capped sub)."""
    mn = min(p, q)
    return (mn - common) * c[2] + (p - mn) * c[1] + (q - mn) * c[0]


# inlined: these run per node pair, where a call's reference counting on its array
# arguments would cost more than the work itself
@njit(cache=True, nogil=True, inline="always")
def multiset_cost(a, na, b, nb, const, ins, dele, sub, mat, hist, ws):
    """Admissible cost of turning label multiset a into b: exact LSAPE over labels.

    With label-equality costs (``const``) it is a count; otherwise an assignment."""
    if const:
        common = 0
        for i in range(na):
            hist[a[i]] += 1
        for j in range(nb):
            if hist[b[j]] > 0:
                hist[b[j]] -= 1
                common += 1
        for i in range(na):
            hist[a[i]] = 0
        mn = min(na, nb)
        return (mn - common) * sub + (na - mn) * dele + (nb - mn) * ins
    return lsape_multiset(a, na, b, nb, mat, ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6])
