"""The common edges of a node map, as plain Python that numba compiles
(:func:`gedkit._kernels.mces_search.common_edges`). Called only through
``MCESProblem.common``, which runs this source as it is until compiled kernels run in the
process, so that no answer ever waits for numba (or its import).
"""

from __future__ import annotations

__all__ = ["BAD_LABEL", "BAD_NODE", "NOT_INJECTIVE", "common_edges"]

# what common_edges found when the map is not valid (MCESProblem.check_map words it); a
# valid map's answer is its number of common edges, never negative
BAD_NODE, NOT_INJECTIVE, BAD_LABEL = -1, -2, -3


def common_edges(forward, used, labels1, labels2, edges1, edge_labels1, index2, edge_labels2,
                 keep):
    """Mark in ``keep`` (False on entry, one per edge of g1) the edges ``forward`` keeps:
    both ends mapped, their images joined by an edge of the same label, and return how many
    (``index2``: g2's dense edge-index matrix, -1 for no edge, the one the graph caches, so
    no label matrix is built per pair). ``used`` (False on entry, one per node of g2) is
    scratch for the injectivity check. Returns the count, or the first fault found (< 0;
    ``keep`` is then incomplete)."""
    n2 = used.shape[0]
    for i in range(forward.shape[0]):
        j = forward[i]
        if j < 0:
            if j != -1:
                return BAD_NODE
            continue
        if j >= n2:
            return BAD_NODE
        if used[j]:
            return NOT_INJECTIVE
        used[j] = True
        if labels1[i] != labels2[j]:
            return BAD_LABEL
    count = 0
    for e in range(edges1.shape[0]):
        a = forward[edges1[e, 0]]
        b = forward[edges1[e, 1]]
        if a >= 0 and b >= 0:
            k = index2[a, b]
            if k >= 0 and edge_labels2[k] == edge_labels1[e]:
                keep[e] = True
                count += 1
    return count
