"""GEDLIB's edit costs for graphs with typed nodes and multi-part edges: GREC_1, GREC_2, PROTEIN.

In the IAM GREC and Protein sets an edge bundles ``frequency`` (1 or 2) parts, part ``i`` having
attributes ``"type<i>"`` and ``"angle<i>"`` (GREC) or ``"distance<i>"`` (Protein). GREC_2 and
PROTEIN price an edge substitution as an optimal assignment between the two edges' parts, where
a part costs ``c`` to insert or delete and ``2c`` to substitute by a part of another type (0 for
the same type). Since ``2c`` is exactly deletion plus insertion, that optimum has a closed form:
``c * (f1 + f2 - 2 * common)``, ``common`` being the size of the multiset intersection of the two
edges' part types. It is computed that way here, vectorised over all label pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gedkit.costs.attributes import (
    AttributeCosts,
    Parts,
    categories,
    category_key,
    coded,
    constant,
    differ,
    numbers,
    pairwise_distance,
    remembered,
    values,
)
from gedkit.errors import CostModelError
from gedkit.text import quoted

__all__ = ["Grec1Costs", "Grec2Costs", "ProteinCosts", "grec_1", "grec_2", "protein"]


def _frequencies(labels: Sequence[Any], model: str) -> np.ndarray:
    freq = numbers(labels, ("frequency",), model, "edge")[:, 0]
    bad = (freq < 0) | (freq != np.round(freq))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise CostModelError(
            f"cost model {model!r} needs a non-negative integer in edge attribute 'frequency', "
            f"got {quoted(values([labels[i]], 'frequency', model, 'edge')[0])}"
        )
    return freq.astype(np.int64)


def _joint(a: Sequence[Any], b: Sequence[Any], read) -> tuple[Any, Any]:
    """``read`` of both label lists, once when they are the same list."""
    if a is b:
        out = read(a)
        return out, out
    return read(a), read(b)


def _categories(a: Sequence[Any], b: Sequence[Any], name: str, model: str, kind: str):
    """Category codes of attribute ``name`` for ``a`` and for ``b``, from one coding (``b``'s
    kept when it is long: a vocabulary chunk the filters price every query against)."""
    if a is b:
        codes = categories(values(a, name, model, kind))
        return codes, codes
    codes_b, coding = remembered(b, ("categories", name, model, kind),
                                 lambda: coded(values(b, name, model, kind)))
    return coded(values(a, name, model, kind), coding)[0], codes_b


def _part_counts(labels: Sequence[Any], freq: np.ndarray, model: str, codes: dict) -> list:
    """Each edge's part types as codes (``codes`` shared across calls)."""
    return [[codes.setdefault(category_key(values([lab], f"type{i}", model, "edge")[0]),
                              len(codes)) for i in range(f)]
            for lab, f in zip(labels, freq.tolist(), strict=True)]


def _common_parts(a: Sequence[Any], fa: np.ndarray, b: Sequence[Any], fb: np.ndarray,
                  model: str) -> np.ndarray:
    """``(len a, len b)`` size of the multiset intersection of the part types of two edges."""
    codes: dict = {}
    parts_a = _part_counts(a, fa, model, codes)
    parts_b = parts_a if a is b else _part_counts(b, fb, model, codes)
    width = max(len(codes), 1)

    def counts(parts: list) -> np.ndarray:
        out = np.zeros((len(parts), width), dtype=np.int64)
        for row, types in enumerate(parts):
            for t in types:
                out[row, t] += 1
        return out

    ca = counts(parts_a)
    cb = ca if a is b else counts(parts_b)
    return np.minimum(ca[:, None, :], cb[None, :, :]).sum(axis=-1)


def _part_assignment_parts(a: Sequence[Any], b: Sequence[Any], model: str, c: float,
                           w: float) -> Parts:
    """Edge costs of GREC_2 / PROTEIN: part insertion / deletion ``c``, all scaled by ``w``."""
    fa, fb = _joint(a, b, lambda labels: _frequencies(labels, model))
    common = _common_parts(a, fa, b, fb, model)
    sub = w * c * (fa[:, None] + fb[None, :] - 2 * common)
    return sub, w * c * fa, w * c * fb


def _typed_points(a: Sequence[Any], b: Sequence[Any], model: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(type differs, Euclidean distance)`` between GREC node labels ``a`` and ``b``."""
    kinds_a, kinds_b = _categories(a, b, "type", model, "node")
    xy_a, xy_b = _joint(a, b, lambda labels: numbers(labels, ("x", "y"), model, "node"))
    return differ(kinds_a, kinds_b), pairwise_distance(xy_a, xy_b)


class Grec1Costs(AttributeCosts):
    """GREC_1; see :func:`grec_1`."""

    name = "grec_1"
    rectangular = True

    def _parts_between(self, kind: str, a: Sequence[Any], b: Sequence[Any]) -> Parts:
        p = self.params
        if kind == "node":
            other_type, dist = _typed_points(a, b, self.name)
            sub = np.where(other_type, p["node_type_sub"], p["coord_weight"] * dist)
            return sub, constant(len(a), p["node_ins_del"]), constant(len(b), p["node_ins_del"])
        fa, fb = _joint(a, b, lambda labels: _frequencies(labels, self.name))
        other_type = differ(*_categories(a, b, "type0", self.name, "edge"))
        single = (fa[:, None] == 1) & (fb[None, :] == 1)
        sub = np.where(
            fa[:, None] != fb[None, :],
            p["edge_ins_del"],
            np.where(single & other_type, p["edge_type_sub"], 0.0),
        )
        return sub, p["edge_ins_del"] * fa, p["edge_ins_del"] * fb


class Grec2Costs(AttributeCosts):
    """GREC_2; see :func:`grec_2`."""

    name = "grec_2"
    rectangular = True

    def _parts_between(self, kind: str, a: Sequence[Any], b: Sequence[Any]) -> Parts:
        al, c = self.params["alpha"], self.params["node_ins_del"]
        if kind == "edge":
            return _part_assignment_parts(a, b, self.name, self.params["edge_ins_del"], 1 - al)
        other_type, dist = _typed_points(a, b, self.name)
        return (np.where(other_type, 2 * al * c, al * dist), constant(len(a), al * c),
                constant(len(b), al * c))


class ProteinCosts(AttributeCosts):
    """PROTEIN; see :func:`protein`."""

    name = "protein"
    rectangular = True

    def _parts_between(self, kind: str, a: Sequence[Any], b: Sequence[Any]) -> Parts:
        al, c = self.params["alpha"], self.params["node_ins_del"]
        if kind == "edge":
            return _part_assignment_parts(a, b, self.name, self.params["edge_ins_del"], 1 - al)
        other_type = differ(*_categories(a, b, "type", self.name, "node"))
        seq_a, seq_b = _joint(a, b, lambda labels: [
            str(s) for s in values(labels, "sequence", self.name, "node")])
        if a is b:
            edits = _edit_distances(seq_a, ~other_type)
        else:
            # one square run over both lists, computing only the a x b block
            na = len(a)
            needed = np.zeros((na + len(b),) * 2, dtype=bool)
            needed[:na, na:] = ~other_type
            edits = _edit_distances(seq_a + seq_b, needed)[:na, na:]
        return (np.where(other_type, 2 * al * c, al * edits), constant(len(a), al * c),
                constant(len(b), al * c))


def _edit_distances(strings: Sequence[str], needed: np.ndarray) -> np.ndarray:
    """Levenshtein distances (unit costs) between the strings, where ``needed`` (0 elsewhere).

    >>> _edit_distances(["kitten", "sitting", "kit"], np.ones((3, 3), bool)).tolist()
    [[0.0, 3.0, 3.0], [3.0, 0.0, 5.0], [3.0, 5.0, 0.0]]
    """
    lengths = np.array([len(s) for s in strings], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)))
    from gedkit._kernels.levenshtein import levenshtein_matrix

    chars = np.array([ord(ch) for s in strings for ch in s], dtype=np.int64)
    return levenshtein_matrix(chars, starts, np.ascontiguousarray(needed, dtype=np.bool_))


def grec_1(
    node_ins_del: float = 45.0,
    node_type_sub: float = 90.0,
    coord_weight: float = 0.5,
    edge_ins_del: float = 7.5,
    edge_type_sub: float = 15.0,
) -> Grec1Costs:
    """GEDLIB's ``GREC_1`` edit costs (IAM GREC line drawings), with GEDLIB's fixed constants
    as defaults.

    - node insertion / deletion: ``node_ins_del``
    - node substitution: ``node_type_sub`` if the ``"type"`` differs, else
      ``coord_weight * ||(x1, y1) - (x2, y2)||``
    - edge insertion / deletion: ``edge_ins_del * frequency``
    - edge substitution: ``edge_ins_del`` if the frequencies differ; for two single-part edges
      ``edge_type_sub`` if ``"type0"`` differs; 0 otherwise (two-part edges always match free)

    Reads node attributes ``"x"``, ``"y"``, ``"type"`` and edge attributes ``"frequency"``,
    ``"type0"``; angles are ignored. Source: Abu-Aisheh et al., "Graph edit distance contest:
    Results and future challenges", Pattern Recognition Letters 100 (2017),
    https://doi.org/10.1016/j.patrec.2017.10.007.

    Examples
    --------
    >>> m = grec_1()
    >>> a = {"x": 0, "y": 0, "type": "corner"}
    >>> m.node_sub(a, {"x": 6, "y": 8, "type": "corner"}), m.node_sub(a, {**a, "type": "end"})
    (5.0, 90.0)
    >>> m.edge_sub({"frequency": 1, "type0": "line"}, {"frequency": 1, "type0": "arc"})
    15.0
    """
    return Grec1Costs(
        node_ins_del=node_ins_del, node_type_sub=node_type_sub, coord_weight=coord_weight,
        edge_ins_del=edge_ins_del, edge_type_sub=edge_type_sub,
    )


def grec_2(
    node_ins_del: float = 90.0, edge_ins_del: float = 15.0, alpha: float = 0.5
) -> Grec2Costs:
    """GEDLIB's ``GREC_2`` edit costs (IAM GREC line drawings), as used by GDR4GED.

    With ``a = alpha``, ``cn = node_ins_del``, ``ce = edge_ins_del``, ``f`` an edge's
    ``"frequency"``:

    - node insertion / deletion: ``a * cn``
    - node substitution: ``2 * a * cn`` if the ``"type"`` differs, else
      ``a * ||(x1, y1) - (x2, y2)||``
    - edge insertion / deletion: ``(1 - a) * ce * f``
    - edge substitution: ``(1 - a)`` times the optimal assignment cost between the two edges'
      parts ``"type0"``, ``"type1"``... (part insertion / deletion ``ce``, substitution 0 for the
      same type, ``2 * ce`` otherwise), i.e. ``(1 - a) * ce * (f1 + f2 - 2 * common)``

    Reads node attributes ``"x"``, ``"y"``, ``"type"`` and edge attributes ``"frequency"`` and
    ``"type<i>"`` for ``i < frequency``; angles are ignored. Sources: Abu-Aisheh, Raveaux &
    Ramel, GbRPR 2015, https://doi.org/10.1007/978-3-319-18224-7_14; Riesen & Bunke, "Graph
    data" (2010), https://doi.org/10.1142/9789814304726_0004.

    Examples
    --------
    >>> m = grec_2()
    >>> line, arc = {"frequency": 1, "type0": "line"}, {"frequency": 1, "type0": "arc"}
    >>> both = {"frequency": 2, "type0": "arc", "type1": "line"}
    >>> m.edge_sub(line, arc), m.edge_sub(line, both), m.edge_del(both)
    (15.0, 7.5, 15.0)
    """
    return Grec2Costs(node_ins_del=node_ins_del, edge_ins_del=edge_ins_del, alpha=alpha)


def protein(
    node_ins_del: float = 11.0, edge_ins_del: float = 1.0, alpha: float = 0.75
) -> ProteinCosts:
    """GEDLIB's ``PROTEIN`` edit costs (IAM Protein graphs: secondary-structure elements).

    With ``a = alpha``, ``cn = node_ins_del``, ``ce = edge_ins_del``:

    - node insertion / deletion: ``a * cn``
    - node substitution: ``2 * a * cn`` if the ``"type"`` differs, else ``a`` times the
      Levenshtein distance (unit costs) between the amino-acid ``"sequence"`` strings
    - edges: as in :func:`grec_2` (parts ``"type<i>"``, ``i < "frequency"``)

    Reads node attributes ``"type"``, ``"sequence"`` and edge attributes ``"frequency"``,
    ``"type<i>"``; ``"aaLength"`` and the distances are ignored. Sources: Abu-Aisheh, Raveaux &
    Ramel, GbRPR 2015, https://doi.org/10.1007/978-3-319-18224-7_14; Riesen & Bunke, "Graph
    data" (2010), https://doi.org/10.1142/9789814304726_0004.

    Examples
    --------
    >>> m = protein()
    >>> m.node_sub({"type": 1, "sequence": "MVTFH"}, {"type": 1, "sequence": "MVSFHA"})
    1.5
    """
    return ProteinCosts(node_ins_del=node_ins_del, edge_ins_del=edge_ins_del, alpha=alpha)
