"""Label-equality cost models: six constants, and the unit-cost special case."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gedkit.costs.base import CostModel
from gedkit.errors import CostModelError

__all__ = ["ConstantCosts", "constant", "uniform"]


class ConstantCosts(CostModel):
    """Substituting a label by an equal one is free, by a different one costs ``*_sub``;
    insertion and deletion cost a constant each."""

    def __init__(
        self,
        node_ins: float = 1.0,
        node_del: float = 1.0,
        node_sub: float = 1.0,
        edge_ins: float = 1.0,
        edge_del: float = 1.0,
        edge_sub: float = 1.0,
        name: str = "constant",
    ):
        values = dict(
            node_ins=node_ins,
            node_del=node_del,
            node_sub=node_sub,
            edge_ins=edge_ins,
            edge_del=edge_del,
            edge_sub=edge_sub,
        )
        for key, val in values.items():
            try:
                val = float(val)
            except (TypeError, ValueError):
                raise CostModelError(f"{key} must be a number, got {val!r}") from None
            if not np.isfinite(val) or val < 0:
                raise CostModelError(f"{key} must be finite and non-negative, got {val!r}")
            values[key] = val
        self.costs = values
        self.name = name
        self.equality_costs = tuple(values.values())
        self.trusted_matrices = True
        self.symmetric = values["node_ins"] == values["node_del"] and (
            values["edge_ins"] == values["edge_del"]
        )

    def _matrix(self, k: int, sub: float, delete: float, insert: float) -> np.ndarray:
        mat = np.full((k + 1, k + 1), sub)
        np.fill_diagonal(mat, 0.0)
        mat[:k, k] = delete
        mat[k, :k] = insert
        mat.setflags(write=False)
        return mat

    def node_matrix(self, labels: Sequence[Any]) -> np.ndarray:
        c = self.costs
        return self._matrix(len(labels), c["node_sub"], c["node_del"], c["node_ins"])

    def edge_matrix(self, labels: Sequence[Any]) -> np.ndarray:
        c = self.costs
        return self._matrix(len(labels), c["edge_sub"], c["edge_del"], c["edge_ins"])

    def node_sub(self, a, b):
        return 0.0 if a == b else self.costs["node_sub"]

    def node_del(self, a):
        return self.costs["node_del"]

    def node_ins(self, b):
        return self.costs["node_ins"]

    def edge_sub(self, a, b):
        return 0.0 if a == b else self.costs["edge_sub"]

    def edge_del(self, a):
        return self.costs["edge_del"]

    def edge_ins(self, b):
        return self.costs["edge_ins"]

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v:g}" for k, v in self.costs.items())
        return f"<CostModel {self.name}({args})>"


def constant(
    node_ins: float = 1.0,
    node_del: float = 1.0,
    node_sub: float = 1.0,
    edge_ins: float = 1.0,
    edge_del: float = 1.0,
    edge_sub: float = 1.0,
) -> ConstantCosts:
    """A cost model of six constants; labels only decide whether a substitution is free.

    A substitution dearer than a deletion and an insertion is never paid: the element is
    deleted and another inserted instead (nodes and edges alike; the edit path lists the
    two), so ``edge_sub=3`` with unit deletions and insertions prices an edge whose label
    changes at 2.

    Examples
    --------
    >>> from gedkit import Graph, ged
    >>> g1 = Graph({0: "C", 1: "O"}, [(0, 1)])
    >>> g2 = Graph({0: "C", 1: "N"}, [(0, 1)])
    >>> ged(g1, g2, costs=constant(node_sub=3, node_del=1, node_ins=1)).distance
    3.0
    >>> ged(g1, g2, costs=constant(node_sub=5, node_del=1, node_ins=1)).distance  # O out, N in
    4.0
    """
    return ConstantCosts(node_ins, node_del, node_sub, edge_ins, edge_del, edge_sub)


def uniform() -> ConstantCosts:
    """Unit costs: every insertion, deletion and label-changing substitution costs 1."""
    return ConstantCosts(name="uniform")
