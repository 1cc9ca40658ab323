"""Cost models made from user callables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gedkit.costs.base import CostModel
from gedkit.errors import CostModelError

__all__ = ["CallableCosts", "custom"]

Number = float | int


def _as_callable(value, arity: int, key: str) -> Callable:
    if callable(value):
        return value
    try:
        const = float(value)
    except (TypeError, ValueError):
        raise CostModelError(f"{key} must be a number or a callable, got {value!r}") from None
    if arity == 1:
        return lambda a: const
    return lambda a, b: 0.0 if a == b else const


class CallableCosts(CostModel):
    """A cost model whose six costs are user functions (or constants)."""

    def __init__(self, name: str = "custom", symmetric: bool = False, **funcs: Any):
        arity = {"node_sub": 2, "node_del": 1, "node_ins": 1,
                 "edge_sub": 2, "edge_del": 1, "edge_ins": 1}
        unknown = set(funcs) - set(arity)
        if unknown:
            raise CostModelError(
                f"unknown cost function(s) {sorted(unknown)}; expected {sorted(arity)}"
            )
        self._funcs = {k: _as_callable(funcs.get(k, 1.0), a, k) for k, a in arity.items()}
        self.name = name
        self.symmetric = symmetric

    def node_sub(self, a, b):
        return self._funcs["node_sub"](a, b)

    def node_del(self, a):
        return self._funcs["node_del"](a)

    def node_ins(self, b):
        return self._funcs["node_ins"](b)

    def edge_sub(self, a, b):
        return self._funcs["edge_sub"](a, b)

    def edge_del(self, a):
        return self._funcs["edge_del"](a)

    def edge_ins(self, b):
        return self._funcs["edge_ins"](b)


def custom(
    node_sub: Callable[[Any, Any], Number] | Number = 1.0,
    node_del: Callable[[Any], Number] | Number = 1.0,
    node_ins: Callable[[Any], Number] | Number = 1.0,
    edge_sub: Callable[[Any, Any], Number] | Number = 1.0,
    edge_del: Callable[[Any], Number] | Number = 1.0,
    edge_ins: Callable[[Any], Number] | Number = 1.0,
    *,
    name: str = "custom",
    symmetric: bool = False,
) -> CallableCosts:
    """A cost model from functions of labels; a number stands for a constant cost (for a
    substitution: free between equal labels, that number otherwise).

    Functions are called once per ordered pair of the distinct labels of the two graphs
    together (each distinct label once, not once per node; a pair may hold two labels of
    the same graph, or of g2 then g1), equal labels included: ``node_sub(a, a)`` is charged
    as it returns, so return 0 there for a distance of 0 between identical graphs (a
    number given instead of a function is free between equal labels).
    ``symmetric=True`` says every substitution costs the same both ways and each insertion
    as much as the deletion of its label (``pairwise`` then solves one of each pair of
    graphs); a model that is not is refused when its costs are computed.

    Examples
    --------
    >>> from gedkit import Graph, ged
    >>> dist = custom(node_sub=lambda a, b: abs(a - b), node_del=5, node_ins=5)
    >>> ged(Graph({0: 1.0}), Graph({0: 3.5}), costs=dist).distance
    2.5
    """
    return CallableCosts(
        name=name,
        symmetric=symmetric,
        node_sub=node_sub,
        node_del=node_del,
        node_ins=node_ins,
        edge_sub=edge_sub,
        edge_del=edge_del,
        edge_ins=edge_ins,
    )
