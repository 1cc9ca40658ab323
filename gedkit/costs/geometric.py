"""GEDLIB's edit costs for geometric graphs: LETTER, LETTER_2, FINGERPRINT and CMU.

Labels are attribute dicts (read GXL with ``node_label="*"``, ``edge_label="*"``); numeric
attributes may be numbers or numeric strings. Attributes a model does not read may be absent,
and labels it ignores entirely may be anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gedkit.costs.attributes import AttributeCosts, Parts, constant, numbers, pairwise_distance

__all__ = [
    "CmuCosts",
    "FingerprintCosts",
    "Letter2Costs",
    "LetterCosts",
    "cmu",
    "fingerprint",
    "letter",
    "letter_2",
]


def _free_edges(k: int, ins: float, delete: float) -> Parts:
    return np.zeros((k, k)), constant(k, delete), constant(k, ins)


class LetterCosts(AttributeCosts):
    """LETTER; see :func:`letter`."""

    name = "letter"

    def _node_parts(self, labels: Sequence[Any]) -> Parts:
        a, c = self.params["alpha"], self.params["node_ins_del"]
        xy = numbers(labels, ("x", "y"), self.name, "node")
        k = len(labels)
        return a * pairwise_distance(xy), constant(k, a * c), constant(k, a * c)

    def _edge_parts(self, labels: Sequence[Any]) -> Parts:
        c = (1 - self.params["alpha"]) * self.params["edge_ins_del"]
        return _free_edges(len(labels), c, c)


class Letter2Costs(AttributeCosts):
    """LETTER_2; see :func:`letter_2`."""

    name = "letter_2"

    def __init__(self, **params: float):
        super().__init__(**params)
        p = self.params
        self.symmetric = p["node_ins"] == p["node_del"] and p["edge_ins"] == p["edge_del"]

    def _node_parts(self, labels: Sequence[Any]) -> Parts:
        p = self.params
        xy = numbers(labels, ("x", "y"), self.name, "node")
        k = len(labels)
        return (
            p["node_sub"] * pairwise_distance(xy),
            constant(k, p["node_del"]),
            constant(k, p["node_ins"]),
        )

    def _edge_parts(self, labels: Sequence[Any]) -> Parts:
        return _free_edges(len(labels), self.params["edge_ins"], self.params["edge_del"])


class _LabelBlindNodes(AttributeCosts):
    """Models whose nodes cost the same whatever their labels: free substitution, constant
    insertion and deletion (``alpha * node_ins_del``)."""

    def _node_parts(self, labels: Sequence[Any]) -> Parts:
        c = self.params["alpha"] * self.params["node_ins_del"]
        k = len(labels)
        return np.zeros((k, k)), constant(k, c), constant(k, c)


class FingerprintCosts(_LabelBlindNodes):
    """FINGERPRINT; see :func:`fingerprint`."""

    name = "fingerprint"

    def _edge_parts(self, labels: Sequence[Any]) -> Parts:
        w = 1 - self.params["alpha"]
        c = w * self.params["edge_ins_del"]
        orient = numbers(labels, ("orient",), self.name, "edge")[:, 0]
        # Orientations are undirected angles: compare them modulo pi (GEDLIB writes
        # min(d, pi - d), which agrees for the IAM range (-pi/2, pi/2] and stays >= 0 outside).
        d = np.abs(orient[:, None] - orient[None, :]) % np.pi
        k = len(labels)
        return w * np.minimum(d, np.pi - d), constant(k, c), constant(k, c)


class CmuCosts(_LabelBlindNodes):
    """CMU; see :func:`cmu`."""

    name = "cmu"

    def _edge_parts(self, labels: Sequence[Any]) -> Parts:
        w = 1 - self.params["alpha"]
        dist = numbers(labels, ("dist",), self.name, "edge")[:, 0]
        return w * np.abs(dist[:, None] - dist[None, :]), w * dist, w * dist


def letter(
    node_ins_del: float = 0.9, edge_ins_del: float = 1.7, alpha: float = 0.75
) -> LetterCosts:
    """GEDLIB's ``LETTER`` edit costs (IAM Letter graphs: nodes are 2-D points).

    With ``a = alpha``:

    - node insertion / deletion: ``a * node_ins_del``
    - node substitution: ``a * ||(x1, y1) - (x2, y2)||`` (Euclidean)
    - edge insertion / deletion: ``(1 - a) * edge_ins_del``
    - edge substitution: 0 (edges carry no attributes)

    Reads node attributes ``"x"`` and ``"y"``; edge labels are ignored. The defaults are the
    constants for Letter HIGH; use ``node_ins_del=0.7, edge_ins_del=1.9, alpha=0.75`` for Letter
    MED and ``node_ins_del=0.3, edge_ins_del=0.1, alpha=0.25`` for Letter LOW. Source: Riesen &
    Bunke, "Graph data", in *Graph Classification and Clustering Based on Vector Space
    Embedding* (2010), https://doi.org/10.1142/9789814304726_0004.

    Examples
    --------
    >>> m = letter()
    >>> m.node_sub({"x": 0, "y": 0}, {"x": 3, "y": 4}), m.node_del({"x": 0, "y": 0})
    (3.75, 0.675)
    """
    return LetterCosts(node_ins_del=node_ins_del, edge_ins_del=edge_ins_del, alpha=alpha)


def letter_2(
    node_ins: float = 0.675,
    node_del: float = 0.675,
    node_sub: float = 0.75,
    edge_ins: float = 0.425,
    edge_del: float = 0.425,
) -> Letter2Costs:
    """``LETTER2`` of GEDLIB's Python bindings (gedlibpy, Blumenthal & Jia 2020): LETTER with
    each cost set on its own.

    - node insertion: ``node_ins``; node deletion: ``node_del``
    - node substitution: ``node_sub * ||(x1, y1) - (x2, y2)||`` (Euclidean)
    - edge insertion: ``edge_ins``; edge deletion: ``edge_del``; edge substitution: 0

    Reads node attributes ``"x"`` and ``"y"``; edge labels are ignored. The defaults equal
    :func:`letter`'s (Letter HIGH). Symmetric only when ``node_ins == node_del`` and
    ``edge_ins == edge_del``.

    Examples
    --------
    >>> m = letter_2(node_ins=1, node_del=2)
    >>> m.node_ins({"x": 0, "y": 0}), m.node_del({"x": 0, "y": 0}), m.symmetric
    (1.0, 2.0, False)
    """
    return Letter2Costs(
        node_ins=node_ins, node_del=node_del, node_sub=node_sub, edge_ins=edge_ins,
        edge_del=edge_del,
    )


def fingerprint(
    node_ins_del: float = 0.9, edge_ins_del: float = 1.7, alpha: float = 0.75
) -> FingerprintCosts:
    """GEDLIB's ``FINGERPRINT`` edit costs (IAM Fingerprint graphs).

    With ``a = alpha`` and ``d = |orient1 - orient2|``:

    - node insertion / deletion: ``a * node_ins_del``; node substitution: 0
    - edge insertion / deletion: ``(1 - a) * edge_ins_del``
    - edge substitution: ``(1 - a) * min(d, pi - d)``

    Reads edge attribute ``"orient"`` (radians); node labels and the edge attribute ``"angle"``
    are ignored. ``d`` is taken modulo pi, which changes nothing for IAM orientations in
    (-pi/2, pi/2] and keeps costs non-negative otherwise. Note that the IAM Fingerprint files
    declare directed graphs. Source: Riesen & Bunke, "Graph data", in *Graph Classification
    and Clustering Based on Vector Space Embedding* (2010),
    https://doi.org/10.1142/9789814304726_0004.

    Examples
    --------
    >>> round(fingerprint().edge_sub({"orient": 1.5}, {"orient": -1.5}), 6)  # 3.0 rad apart
    0.035398
    """
    return FingerprintCosts(node_ins_del=node_ins_del, edge_ins_del=edge_ins_del, alpha=alpha)


def cmu(node_ins_del: float = 100000.0, alpha: float = 0.5) -> CmuCosts:
    """GEDLIB's ``CMU`` edit costs (CMU house sequence, as in GDR4GED).

    With ``a = alpha`` and ``d`` the edge attribute ``"dist"`` (length of the edge):

    - node insertion / deletion: ``a * node_ins_del`` (prohibitive by default); node
      substitution: 0
    - edge insertion / deletion: ``(1 - a) * d``
    - edge substitution: ``(1 - a) * |d1 - d2|``

    Reads edge attribute ``"dist"``; node labels (``"x"``, ``"y"``) are ignored. Sources:
    Abu-Aisheh, Raveaux & Ramel, GbRPR 2015, https://doi.org/10.1007/978-3-319-18224-7_14, and
    Abu-Aisheh et al., Pattern Recognition Letters 100 (2017),
    https://doi.org/10.1016/j.patrec.2017.10.007.

    Examples
    --------
    >>> m = cmu()
    >>> m.edge_sub({"dist": 10.0}, {"dist": 4.0}), m.edge_del({"dist": 10.0}), m.node_del(None)
    (3.0, 5.0, 50000.0)
    """
    return CmuCosts(node_ins_del=node_ins_del, alpha=alpha)
