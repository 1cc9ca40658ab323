"""The cost-model interface: labels in, cost arrays out.

A cost model prices the six edit operations on labels. :meth:`CostModel.compile` interns the
labels of both graphs jointly (equal labels get one id), asks the model for a cost matrix over the
distinct labels only, and hands solvers a :class:`~gedkit.problem.Problem` of plain arrays.
Solvers never see labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gedkit.errors import CostModelError
from gedkit.graph import Graph, label_key, mixed_directions
from gedkit.text import MESSAGE_WIDTH, clipped, quoted

__all__ = ["CostModel", "intern_labels"]


class CostModel:
    """Base class of cost models.

    Subclasses implement the six per-label costs below; they may override
    :meth:`node_matrix` / :meth:`edge_matrix` with a vectorised version. All costs must be
    finite and non-negative.
    """

    name: str = "custom"
    #: True when every cost is symmetric (sub(a, b) == sub(b, a) and ins == del).
    symmetric: bool = False
    #: ``(node_ins, node_del, node_sub, edge_ins, edge_del, edge_sub)`` when costs depend on
    #: label equality alone (lets solvers count instead of match); None otherwise.
    equality_costs: tuple[float, ...] | None = None
    #: True when the model's matrices are valid by construction (skips the checks).
    trusted_matrices: bool = False
    #: True when :meth:`costs_between` prices the rectangle alone (not a square around it).
    rectangular: bool = False

    def node_sub(self, a: Any, b: Any) -> float:
        raise NotImplementedError

    def node_del(self, a: Any) -> float:
        raise NotImplementedError

    def node_ins(self, b: Any) -> float:
        raise NotImplementedError

    def edge_sub(self, a: Any, b: Any) -> float:
        raise NotImplementedError

    def edge_del(self, a: Any) -> float:
        raise NotImplementedError

    def edge_ins(self, b: Any) -> float:
        raise NotImplementedError

    # -- matrices over distinct labels -------------------------------------------------------
    def node_matrix(self, labels: Sequence[Any]) -> np.ndarray:
        """``(k+1) × (k+1)`` costs over ``k`` distinct labels: last column deletion, last row
        insertion, ``[k, k]`` = 0."""
        return _label_matrix(labels, self.node_sub, self.node_del, self.node_ins, "node")

    def edge_matrix(self, labels: Sequence[Any]) -> np.ndarray:
        """Same as :meth:`node_matrix` for edge labels."""
        return _label_matrix(labels, self.edge_sub, self.edge_del, self.edge_ins, "edge")

    def costs_between(self, kind: str, a: Sequence[Any], b: Sequence[Any]
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rectangular costs of ``kind`` (``"node"`` or ``"edge"``) labels: substitutions
        ``(len(a), len(b))``, the deletions of ``a`` and the insertions of ``b`` (what the
        search filters price a query's labels against a whole vocabulary with). This default
        slices the square matrix over ``a + b``; models override it where the rectangle alone
        is much cheaper."""
        matrix = self.node_matrix if kind == "node" else self.edge_matrix
        na, nb = len(a), len(b)
        m = np.asarray(matrix(list(a) + list(b)), dtype=np.float64)
        k = na + nb
        return m[:na, na:k], m[:na, k], m[k, na:k]

    # -- compilation ------------------------------------------------------------------------------
    def compile(self, g1: Graph, g2: Graph):
        """Turn a pair of graphs into a :class:`~gedkit.problem.Problem`.

        Both graphs are undirected, or both directed (every model prices an arc as it prices
        an edge with that label); one of each is a :class:`~gedkit.errors.GraphError`.
        """
        from gedkit.problem import Problem

        if g1.directed != g2.directed:
            d, u = (g1, g2) if g1.directed else (g2, g1)
            raise mixed_directions(f"graph {quoted(d.name or 'g' + ('1' if d is g1 else '2'))}",
                                   f"graph {quoted(u.name or 'g' + ('1' if u is g1 else '2'))}")
        node_labels, (nid1, nid2) = intern_labels(
            g1.node_labels, g2.node_labels, keys=(g1.node_keys, g2.node_keys)
        )
        edge_labels, (eid1, eid2) = intern_labels(
            g1.edge_labels, g2.edge_labels, keys=(g1.edge_keys, g2.edge_keys)
        )
        node_matrix = self.node_matrix(node_labels)
        edge_matrix = self.edge_matrix(edge_labels)
        if not self.trusted_matrices:
            node_matrix = _checked(node_matrix, len(node_labels), self, "node")
            edge_matrix = _checked(edge_matrix, len(edge_labels), self, "edge")
            if self.symmetric:  # (pairwise solves one of each pair on that word)
                _check_symmetric(self, node_matrix, "node")
                _check_symmetric(self, edge_matrix, "edge")
        _check_scale(self, _largest(node_matrix, edge_matrix), g1.n + g2.n + g1.m + g2.m)
        loops = None
        if g1.loops or g2.loops:
            node_matrix, nid1, nid2, loops = self._fold_loops(g1, g2, node_matrix, nid1, nid2)
        return Problem(
            g1,
            g2,
            node_label_matrix=node_matrix,
            node_labels1=nid1,
            node_labels2=nid2,
            edge_label_matrix=edge_matrix,
            edge_labels1=eid1,
            edge_labels2=eid2,
            cost_model=self,
            loops=loops,
        )

    def _fold_loops(self, g1: Graph, g2: Graph, node_matrix: np.ndarray, nid1: np.ndarray,
                    nid2: np.ndarray):
        """Self-loops priced into the node costs: a loop maps with its node, so what it costs
        depends on the node pair alone. Each node's label becomes the pair (its label, its
        loop's label or none), priced as the node's cost plus the loop's edge cost (a
        substitution capped at deletion + insertion, as for every edge); equal pairs, equal
        ids, so that what compares label ids stays right."""
        from gedkit.problem import LoopCosts, capped_edge_costs

        loop_labels, (lid1, lid2) = intern_labels(
            list(g1.loops.values()), list(g2.loops.values()),
            keys=(list(g1.loop_keys.values()), list(g2.loop_keys.values())))
        kl = len(loop_labels)
        raw = self.edge_matrix(loop_labels)
        if not self.trusted_matrices:
            raw = _checked(raw, kl, self, "edge")
        capped, split = capped_edge_costs(raw)
        loop1 = np.full(g1.n, kl, dtype=np.int32)
        loop1[list(g1.loops)] = lid1
        loop2 = np.full(g2.n, kl, dtype=np.int32)
        loop2[list(g2.loops)] = lid2
        ids: dict[tuple[int, int], int] = {}
        c1, c2 = (np.array([ids.setdefault(k, len(ids))
                            for k in zip(nid.tolist(), loop.tolist(), strict=True)],
                           dtype=np.int32)
                  for nid, loop in ((nid1, loop1), (nid2, loop2)))
        kn = node_matrix.shape[0] - 1
        base = np.array([b for b, _ in ids] + [kn], dtype=np.int64)
        loop = np.array([x for _, x in ids] + [kl], dtype=np.int64)
        folded = (np.asarray(node_matrix, dtype=np.float64)[np.ix_(base, base)]
                  + capped[np.ix_(loop, loop)])
        folded.setflags(write=False)
        parts = LoopCosts(node_matrix, np.asarray(nid1, dtype=np.int32),
                          np.asarray(nid2, dtype=np.int32), raw, capped, split, loop1, loop2)
        return folded, c1, c2, parts

    def __repr__(self) -> str:
        return f"<CostModel {self.name}>"


def intern_labels(
    *label_lists: Sequence[Any], keys: Sequence[Sequence[Any]] | None = None
) -> tuple[list[Any], list[np.ndarray]]:
    """Give equal labels one id across all lists.

    ``keys`` (optional) are the labels' precomputed :func:`~gedkit.graph.label_key` values.

    >>> labels, (a, b) = intern_labels(["C", "O", "C"], ["N", "C"])
    >>> labels, a.tolist(), b.tolist()
    (['C', 'O', 'N'], [0, 1, 0], [2, 0])
    """
    if keys is None:
        keys = [list(map(label_key, labels)) for labels in label_lists]
    ids: dict[Any, int] = {}
    distinct: list[Any] = []
    out = []
    for labels, label_keys in zip(label_lists, keys, strict=True):
        # gedkit.graph.intern, keeping each distinct label as well: in one loop, since this
        # runs for every pair compiled (numpy's unique on it costs 3.5x)
        arr = []
        for key, label in zip(label_keys, labels, strict=True):
            k = ids.get(key)
            if k is None:
                k = ids[key] = len(distinct)
                distinct.append(label)
            arr.append(k)
        out.append(np.array(arr, dtype=np.int32))
    return distinct, out


def _label_matrix(labels, sub, delete, insert, kind: str) -> np.ndarray:
    k = len(labels)
    mat = np.zeros((k + 1, k + 1), dtype=np.float64)
    for i, a in enumerate(labels):
        mat[i, k] = _call(delete, (a,), f"{kind} deletion", a)
        mat[k, i] = _call(insert, (a,), f"{kind} insertion", a)
        for j, b in enumerate(labels):
            mat[i, j] = _call(sub, (a, b), f"{kind} substitution", (a, b))
    return mat


def _call(function, args: tuple, what: str, labels: Any) -> Any:
    """``function(*args)``, with a failure reported as the exact cost and labels it was
    asked for."""
    try:
        value = function(*args)
    except CostModelError:
        raise
    except Exception as exc:  # a user callable failed on these labels: say which
        raise CostModelError(f"the {what} cost of {quoted(labels)} failed: "
                             f"{type(exc).__name__}: "
                             f"{clipped(str(exc), 4 * MESSAGE_WIDTH, length=True)}") from exc
    try:
        if isinstance(value, str | bytes):  # float("1") would take it: a slip, not a cost
            raise TypeError
        return float(value)
    except (TypeError, ValueError):
        raise CostModelError(f"the {what} cost of {quoted(labels)} is {quoted(value)}, not a "
                             "number") from None


#: the largest cost of a model must be at least this: costs are compared with an absolute
#: slack of 1e-9 below 1 (:func:`gedkit.numeric.tolerance`), and a model of costs near it
#: had every solver stop at distances it took for equal (7e-10 "optimal" against 5e-10)
SMALLEST_SCALE = 1e-6
#: and the sum of a pair's edits at that cost at most this (beyond, sums overflow to inf:
#: exact search never ended, other methods answered inf or raised)
LARGEST_SUM = 1e300


def _largest(node_matrix: np.ndarray, edge_matrix: np.ndarray) -> float:
    """The largest cost of a model's two matrices."""
    return max(float(node_matrix.max(initial=0.0)), float(edge_matrix.max(initial=0.0)))


def _check_scale(model: CostModel, largest: float, items: int) -> None:
    """Refuse a model whose costs, ``largest`` the largest, are all too small to tell apart,
    or so large that the edits of a pair of graphs with ``items`` nodes and edges in all
    overflow when summed."""
    if 0 < largest < SMALLEST_SCALE:
        raise CostModelError(
            f"cost model {model.name!r}: its largest cost is {largest:g}, and costs are "
            "compared to 1e-9, so distances this small are not told apart: scale the model "
            "up (every cost times one factor gives the same optimal edit paths)")
    if largest * (items + 1) > LARGEST_SUM:
        raise CostModelError(
            f"cost model {model.name!r}: costs up to {largest:g} overflow when summed over "
            f"{items} nodes and edges: scale the model down (every cost times one factor "
            "gives the same optimal edit paths)")


def _check_symmetric(model: CostModel, matrix: np.ndarray, kind: str) -> None:
    """Refuse a model declared symmetric whose ``kind`` costs are not (substitutions both
    ways alike, insertion as deletion): ``pairwise`` mirrored its one answer of each pair
    (8.4 for a pair whose distance the other way is 2.4)."""
    if not np.allclose(matrix, matrix.T, rtol=1e-9, atol=0.0):
        i, j = np.unravel_index(np.argmax(np.abs(matrix - matrix.T)), matrix.shape)
        last = len(matrix) - 1
        what = (f"deleting and inserting a {kind} label cost {matrix[min(i, j), last]:g} "
                f"and {matrix[last, min(i, j)]:g}" if last in (i, j) else
                f"{kind} substitutions cost {matrix[i, j]:g} one way and {matrix[j, i]:g} "
                "the other")
        raise CostModelError(f"cost model {model.name!r} is declared symmetric, but {what}: "
                             "leave symmetric=True out")


def _checked(mat: np.ndarray, k: int, model: CostModel, kind: str) -> np.ndarray:
    mat = np.asarray(mat, dtype=np.float64)
    if mat.shape != (k + 1, k + 1):
        raise CostModelError(
            f"cost model {model.name!r} returned a {kind} matrix of shape {mat.shape}, "
            f"expected {(k + 1, k + 1)}"
        )
    if not np.all(np.isfinite(mat)):
        raise CostModelError(f"cost model {model.name!r} produced a non-finite {kind} cost")
    if np.any(mat < 0):
        raise CostModelError(f"cost model {model.name!r} produced a negative {kind} cost")
    mat[k, k] = 0.0
    mat.setflags(write=False)
    return mat
