"""Verification of many candidates per compiled call (:mod:`gedkit._kernels.batch`).

Used for exact search (``astar``/``exact`` with default options) when the collection's label
vocabularies are small enough for one global node matrix and one global edge matrix (molecules,
typed graphs; not continuous attributes). A candidate the kernel does not finish within its
expansion cap goes back to the per-pair driver, which holds the time limit and memory cap.
"""

from __future__ import annotations

import math

import numpy as np

from gedkit.costs.base import CostModel, _checked
from gedkit.problem import _constant_structure
from gedkit.search.filters import GedFilter
from gedkit.solvers.base import Solver

__all__ = ["BatchVerifier"]

#: largest vocabulary (distinct node or edge labels) the global matrices are built for
MAX_VOCABULARY = 1024
#: expansions per candidate inside the kernel; a pair needing more is solved one by one
EXPANSIONS = 3000
#: frontier states the kernel may hold per candidate
STATES = 1 << 15
#: candidates per kernel call (Ctrl-C and the clock are checked between calls)
CHUNK = 128
_EXACT = ("astar", "exact")


class BatchVerifier:
    """The global cost arrays of one query, and the kernel's reusable frontier."""

    def __init__(self, nmat: np.ndarray, emat: np.ndarray, const, query_record: np.ndarray):
        from gedkit.solvers.exact.tree_search import _label_costs

        self.nmat, self.emat = nmat, emat
        self.nmat_t = np.ascontiguousarray(nmat.T)
        self.emat_t = np.ascontiguousarray(emat.T)
        self.counting = const is not None
        flipped = None if const is None else (const[1], const[0], const[2], const[4],
                                              const[3], const[5])
        self.nconst, self.econst = (_label_costs(None if const is None else const[:3]),
                                    _label_costs(None if const is None else const[3:]))
        self.nconst_t, self.econst_t = (_label_costs(None if flipped is None else flipped[:3]),
                                        _label_costs(None if flipped is None else flipped[3:]))
        if const is not None:
            self.integral = all(float(c).is_integer() for c in const)
            largest = max(const, default=0.0)
        else:
            self.integral = bool(np.all(nmat == np.rint(nmat)) and np.all(emat == np.rint(emat)))
            largest = float(max(nmat.max(initial=0.0), emat.max(initial=0.0)))
        self.tol = 1e-9 * max(1.0, largest)
        self.query = query_record
        self.n1 = int(query_record[0])
        self.frontier = None

    @classmethod
    def build(cls, model: CostModel, solver: Solver, filt: GedFilter,
              timeout: float | None) -> BatchVerifier | None:
        """The batch path for this query, or None where it does not apply (another method,
        large vocabularies, kernels not compiled within ``timeout``)."""
        from gedkit._kernels import warm
        from gedkit.budget import Budget

        if solver.name not in _EXACT or solver.config != type(solver).options:
            return None
        views = filt.views
        if max(len(views["node"]), len(views["edge"])) > MAX_VOCABULARY:
            return None
        if not warm.wait(("search",), Budget(timeout=timeout)):
            return None
        return cls.prepare(model, filt)

    @classmethod
    def prepare(cls, model: CostModel, filt: GedFilter) -> BatchVerifier:
        """The batch path for this query (no checks)."""
        views = filt.views
        nk, ek = len(views["node"]), len(views["edge"])
        nmat = np.asarray(model.node_matrix(views["node"].all_values()), dtype=np.float64)
        emat = np.asarray(model.edge_matrix(views["edge"].all_values()), dtype=np.float64)
        if not model.trusted_matrices:  # as CostModel.compile checks them
            nmat = _checked(nmat, nk, model, "node")
            emat = _checked(emat, ek, model, "edge")
        emat = _capped(emat)
        const = model.equality_costs
        if const is None:
            node, edge = _constant_structure(nmat), _constant_structure(emat)
            const = None if node is None or edge is None else node + edge
        return cls(np.ascontiguousarray(nmat), emat, const, filt.record)

    def run(self, records: list[bytes], threshold: float | None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bounds of every candidate record within ``threshold`` (None: unbounded) and
        whether the kernel finished it."""
        from gedkit._kernels import warm
        from gedkit._kernels.batch import FINISHED, verify_many

        count = len(records)
        lower, upper = np.zeros(count), np.full(count, math.inf)
        status = np.zeros(count, dtype=np.int8)
        if not count:
            return lower, upper, status == FINISHED
        sizes = np.fromiter((len(r) // 4 for r in records), dtype=np.int64, count=count)
        offsets = np.zeros(count, dtype=np.int64)
        np.cumsum(sizes[:-1], out=offsets[1:])
        flat = np.frombuffer(b"".join(records), dtype=np.int32)
        n_max = max(self.n1, 1)
        if self.frontier is None:
            self.frontier = (np.empty(STATES * n_max, dtype=np.int32), np.empty(STATES),
                             np.empty(STATES), np.empty(STATES, dtype=np.int32),
                             np.empty(STATES, dtype=np.int64), np.empty(STATES, dtype=np.int64))
        cutoff = math.inf if threshold is None else float(threshold)
        for first in range(0, count, CHUNK):
            verify_many(
                self.query, flat, offsets, first, min(count, first + CHUNK),
                self.nmat, self.nmat_t, self.emat, self.emat_t,
                self.nconst, self.econst, self.nconst_t, self.econst_t,
                self.counting, True, self.integral, self.tol, cutoff, -math.inf,
                EXPANSIONS, 256, *self.frontier, lower, upper, status,
            )
            from gedkit.budget import interrupted

            if interrupted():
                status[first + CHUNK:] = 1
                break
        warm.mark_started()
        return lower, upper, status == FINISHED


def _capped(emat: np.ndarray) -> np.ndarray:
    """Edge substitutions capped at deletion + insertion, as :class:`~gedkit.problem.Problem`
    prices them."""
    k = emat.shape[0] - 1
    out = np.array(emat, dtype=np.float64)
    via = emat[:k, k:k + 1] + emat[k:k + 1, :k]
    out[:k, :k] = np.minimum(emat[:k, :k], via)
    return np.ascontiguousarray(out)
