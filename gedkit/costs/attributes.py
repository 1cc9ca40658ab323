"""Shared machinery of the attribute-reading (literature) cost models.

A model here states its costs once, as arrays over ``k`` distinct labels (``_node_parts`` /
``_edge_parts``); the cost matrices and the six per-label methods are derived from that single
definition, so the vectorised and the per-label views cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gedkit.costs.base import CostModel
from gedkit.errors import CostModelError, Option
from gedkit.graph import label_key
from gedkit.text import MESSAGE_WIDTH, clipped, quoted

__all__ = [
    "AttributeCosts",
    "categories",
    "constant",
    "differ",
    "numbers",
    "pairwise_distance",
    "values",
]

#: ``(substitution (k, k), deletion (k,), insertion (k,))`` over k distinct labels.
Parts = tuple[np.ndarray, np.ndarray, np.ndarray]


class AttributeCosts(CostModel):
    """Base class of cost models defined by formulas on label attributes.

    Subclasses set ``name`` and implement ``_node_parts(labels)`` and ``_edge_parts(labels)``.
    Constructor constants are validated here: finite and non-negative, ``alpha`` in [0, 1].
    """

    symmetric = True

    def __init__(self, **params: float):
        checked = {}
        for key, val in params.items():
            try:
                val = float(val)
            except (TypeError, ValueError):
                raise CostModelError(f"{self.name}: {key} must be a number, got {val!r}") from None
            if not np.isfinite(val) or val < 0:
                raise CostModelError(
                    f"{self.name}: {key} must be finite and non-negative, got {val!r}"
                )
            if key == "alpha" and val > 1:
                raise CostModelError(f"{self.name}: alpha must lie in [0, 1], got {val!r}")
            checked[key] = val
        self.params = checked

    # subclasses that state their costs between two label lists (``_parts_between``) set
    # ``rectangular`` and get the square matrices and the rectangles from that one formula

    def _node_parts(self, labels: Sequence[Any]) -> Parts:
        if self.rectangular:
            return self._parts_between("node", labels, labels)
        raise NotImplementedError

    def _edge_parts(self, labels: Sequence[Any]) -> Parts:
        if self.rectangular:
            return self._parts_between("edge", labels, labels)
        raise NotImplementedError

    def _parts_between(self, kind: str, a: Sequence[Any], b: Sequence[Any]) -> Parts:
        """``(substitution (len a, len b), deletion of a, insertion of b)``."""
        raise NotImplementedError

    def costs_between(self, kind: str, a: Sequence[Any], b: Sequence[Any]) -> Parts:
        if not self.rectangular:
            return super().costs_between(kind, a, b)
        sub, delete, insert = self._parts_between(kind, a, b)
        return (np.asarray(sub, dtype=np.float64).reshape(len(a), len(b)),
                np.asarray(delete, dtype=np.float64), np.asarray(insert, dtype=np.float64))

    def node_matrix(self, labels: Sequence[Any]) -> np.ndarray:
        return _assemble(self._node_parts(labels))

    def edge_matrix(self, labels: Sequence[Any]) -> np.ndarray:
        return _assemble(self._edge_parts(labels))

    def node_sub(self, a: Any, b: Any) -> float:
        return float(self.node_matrix([a, b])[0, 1])

    def node_del(self, a: Any) -> float:
        return float(self.node_matrix([a])[0, 1])

    def node_ins(self, b: Any) -> float:
        return float(self.node_matrix([b])[1, 0])

    def edge_sub(self, a: Any, b: Any) -> float:
        return float(self.edge_matrix([a, b])[0, 1])

    def edge_del(self, a: Any) -> float:
        return float(self.edge_matrix([a])[0, 1])

    def edge_ins(self, b: Any) -> float:
        return float(self.edge_matrix([b])[1, 0])

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v:g}" for k, v in self.params.items())
        return f"<CostModel {self.name}({args})>"


def _assemble(parts: Parts) -> np.ndarray:
    sub, delete, insert = parts
    k = len(delete)
    mat = np.zeros((k + 1, k + 1), dtype=np.float64)
    mat[:k, :k] = sub
    mat[:k, k] = delete
    mat[k, :k] = insert
    return mat


def constant(k: int, value: float) -> np.ndarray:
    """``value`` for each of ``k`` labels."""
    return np.full(k, value, dtype=np.float64)


#: label lists at least this long have their attribute reads kept (:func:`remembered`)
MEMO_FROM = 256
_MEMO: dict[tuple, tuple[Sequence[Any], Any]] = {}


def remembered(labels: Sequence[Any], key: tuple, compute):
    """``compute()``, kept for this very ``labels`` object when it is long: the search
    filters price every query against the same vocabulary chunks, whose attributes would
    otherwise be parsed again for each query."""
    if len(labels) < MEMO_FROM:
        return compute()
    hit = _MEMO.get((id(labels), *key))
    if hit is not None and hit[0] is labels:
        return hit[1]
    if len(_MEMO) >= 4096:
        _MEMO.clear()
    value = compute()
    _MEMO[(id(labels), *key)] = (labels, value)  # the list is kept, so its id stays its own
    return value


def values(labels: Sequence[Any], name: str, model: str, kind: str) -> list[Any]:
    """Attribute ``name`` of every label, which must be an attribute dict holding it."""
    return remembered(labels, ("values", name, model, kind),
                      lambda: _values(labels, name, model, kind))


def _values(labels: Sequence[Any], name: str, model: str, kind: str) -> list[Any]:
    out = []
    for lab in labels:
        if not isinstance(lab, Mapping):
            what = (f"cost model {model!r} reads {kind} attribute {name!r}, but got the {kind} "
                    f"label {quoted(lab)}")
            err = CostModelError(what, "; read the graphs with ", Option(f"{kind}_label", "*"),
                                 " to keep all attributes")
            err.needs = (what, f"{kind}_label")  # for a collection's words, which differ
            raise err
        if name not in lab:
            have = clipped(", ".join(sorted(map(str, lab))), MESSAGE_WIDTH) or "none"
            raise CostModelError(
                f"cost model {model!r} needs {kind} attribute {name!r}, missing from the {kind} "
                f"label {quoted(lab)} (it has: {have})"
            )
        out.append(lab[name])
    return out


def numbers(labels: Sequence[Any], names: Sequence[str], model: str, kind: str) -> np.ndarray:
    """``(k, len(names))`` float array of numeric attributes (numbers or numeric strings)."""
    return remembered(labels, ("numbers", tuple(names), model, kind),
                      lambda: _numbers(labels, names, model, kind))


def _numbers(labels: Sequence[Any], names: Sequence[str], model: str, kind: str) -> np.ndarray:
    out = np.empty((len(labels), len(names)), dtype=np.float64)
    for col, name in enumerate(names):
        for row, val in enumerate(values(labels, name, model, kind)):
            out[row, col] = _number(val, name, model, kind)
    return out


def _number(val: Any, name: str, model: str, kind: str) -> float:
    try:
        x = float(val)
    except (TypeError, ValueError):
        x = np.nan
    if not np.isfinite(x):
        raise CostModelError(
            f"cost model {model!r} needs a finite number in {kind} attribute {name!r}, "
            f"got {quoted(val)}"
        )
    return x


def categories(vals: Sequence[Any]) -> np.ndarray:
    """Integer codes of categorical values: equal values, equal codes.

    Strings are compared without surrounding blanks (IAM files pad atom symbols: ``"C  "``);
    numbers by value (``1 == 1.0``).

    >>> categories(["C", "O ", "C", "O"]).tolist()
    [0, 1, 0, 1]
    """
    return coded(vals)[0]


def category_key(value: Any) -> Any:
    """What :func:`categories` compares: strings without surrounding blanks, other values by
    their :func:`~gedkit.graph.label_key`."""
    return value.strip() if isinstance(value, str) else label_key(value)


def coded(vals: Sequence[Any], coding: dict | None = None) -> tuple[np.ndarray, dict]:
    """:func:`categories` and the coding (key -> code) it used; with ``coding``, the codes of
    an earlier call are kept and new keys get the next ones (the dict given is not changed)."""
    codes: dict[Any, int] = dict(coding or {})
    out = np.array([codes.setdefault(category_key(v), len(codes)) for v in vals],
                   dtype=np.int64)
    return out, codes


def differ(codes: np.ndarray, other: np.ndarray | None = None) -> np.ndarray:
    """``(k, k)`` bool: do the categories of two labels differ? (``(k, j)`` between ``codes``
    and ``other``, codes of one :func:`categories` call.)"""
    return codes[:, None] != (codes if other is None else other)[None, :]


def pairwise_distance(points: np.ndarray, other: np.ndarray | None = None) -> np.ndarray:
    """Euclidean distances between the rows of ``points`` (and those of ``other``)."""
    diff = points[:, None, :] - (points if other is None else other)[None, :, :]
    return np.sqrt((diff**2).sum(axis=-1))
