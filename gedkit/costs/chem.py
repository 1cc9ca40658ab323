"""GEDLIB's edit costs for molecules: CHEM_1 and CHEM_2.

Both compare atoms and bonds by equality only. Node labels are read as follows: an attribute
dict gives its ``"chem"`` attribute (IAM AIDS / Mutagenicity, GREYC sets), else its
``"symbol"``, else its ``"atom"`` (gedkit's molecule readers); any other label (``"C"``, ``6``)
is the atom itself. Edge labels: a dict gives its ``"valence"``, else its ``"bond"``; any other
label is the bond order itself. Strings are compared without surrounding blanks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gedkit.costs.attributes import AttributeCosts, Parts, categories, constant, differ
from gedkit.errors import CostModelError, Option
from gedkit.text import MESSAGE_WIDTH, clipped, quoted

__all__ = ["Chem1Costs", "Chem2Costs", "chem_1", "chem_2"]

_ATOM_KEYS = ("chem", "symbol", "atom")
_BOND_KEYS = ("valence", "bond")


def _symbols(labels: Sequence[Any], keys: tuple[str, ...], model: str, kind: str) -> list[Any]:
    out = []
    for lab in labels:
        if isinstance(lab, Mapping):
            key = next((k for k in keys if k in lab), None)
            if key is None:
                have = clipped(", ".join(sorted(map(str, lab))), MESSAGE_WIDTH) or "none"
                wanted = " or ".join(repr(k) for k in keys)
                raise CostModelError(
                    f"cost model {model!r} needs {kind} attribute {wanted}, missing from the "
                    f"{kind} label {quoted(lab)} (it has: {have})"
                )
            out.append(lab[key])
        elif lab is None:
            raise CostModelError(
                f"cost model {model!r} needs {kind} labels, got an unlabelled {kind}; read the "
                "graphs with ", Option(f"{kind}_label", "*"), " (or the attribute holding "
                f"{'the atom' if kind == 'node' else 'the bond order'})",
            )
        else:
            out.append(lab)
    return out


class _ChemCosts(AttributeCosts):
    # Subclasses give the four resulting constants.
    def _constants(self) -> tuple[float, float, float, float]:
        raise NotImplementedError

    def _node_parts(self, labels: Sequence[Any]) -> Parts:
        ins_del, sub, _, _ = self._constants()
        atoms = categories(_symbols(labels, _ATOM_KEYS, self.name, "node"))
        k = len(labels)
        return sub * differ(atoms), constant(k, ins_del), constant(k, ins_del)

    def _edge_parts(self, labels: Sequence[Any]) -> Parts:
        _, _, ins_del, sub = self._constants()
        bonds = categories(_symbols(labels, _BOND_KEYS, self.name, "edge"))
        k = len(labels)
        return sub * differ(bonds), constant(k, ins_del), constant(k, ins_del)


class Chem1Costs(_ChemCosts):
    """CHEM_1; see :func:`chem_1`."""

    name = "chem_1"

    def _constants(self):
        p = self.params
        return p["node_ins_del"], p["node_sub"], p["edge_ins_del"], p["edge_sub"]


class Chem2Costs(_ChemCosts):
    """CHEM_2; see :func:`chem_2`."""

    name = "chem_2"

    def _constants(self):
        p = self.params
        a = p["alpha"]
        node, edge = a * p["node_ins_del"], (1 - a) * p["edge_ins_del"]
        return node, 2 * node, edge, edge


def chem_1(
    node_ins_del: float = 4.0,
    node_sub: float = 2.0,
    edge_ins_del: float = 1.0,
    edge_sub: float = 1.0,
) -> Chem1Costs:
    """GEDLIB's ``CHEM_1`` edit costs for molecular graphs.

    - node insertion / deletion: ``node_ins_del``
    - node substitution: ``node_sub`` if the atoms differ, else 0
    - edge insertion / deletion: ``edge_ins_del``
    - edge substitution: ``edge_sub`` if the bond orders (valences) differ, else 0

    Reads node attribute ``"chem"`` (or ``"symbol"``) and edge attribute ``"valence"`` from
    attribute-dict labels, or takes plain labels as the atom / bond order (see the module
    docstring). The defaults are those of the GED contest 2016: Abu-Aisheh et al., "Graph edit
    distance contest: Results and future challenges", Pattern Recognition Letters 100 (2017),
    https://doi.org/10.1016/j.patrec.2017.10.007.

    Examples
    --------
    >>> from gedkit import Graph, ged
    >>> g1 = Graph({0: "C", 1: "O"}, [(0, 1, 2)])
    >>> g2 = Graph({0: "C", 1: "N"}, [(0, 1, 1)])
    >>> ged(g1, g2, costs=chem_1()).distance    # relabel O -> N (2) and the bond (1)
    3.0
    """
    return Chem1Costs(
        node_ins_del=node_ins_del, node_sub=node_sub, edge_ins_del=edge_ins_del, edge_sub=edge_sub
    )


def chem_2(
    node_ins_del: float = 11.0, edge_ins_del: float = 1.1, alpha: float = 0.25
) -> Chem2Costs:
    """GEDLIB's ``CHEM_2`` edit costs for molecular graphs.

    With ``a = alpha``:

    - node insertion / deletion: ``a * node_ins_del``
    - node substitution: ``2 * a * node_ins_del`` if the atoms differ, else 0
    - edge insertion / deletion: ``(1 - a) * edge_ins_del``
    - edge substitution: ``(1 - a) * edge_ins_del`` if the valences differ, else 0

    Reads the same attributes as :func:`chem_1`. Defaults as in GEDLIB, after Abu-Aisheh,
    Raveaux & Ramel, "A graph database repository and performance evaluation metrics for graph
    edit distance", GbRPR 2015, https://doi.org/10.1007/978-3-319-18224-7_14, and Riesen & Bunke,
    "Graph data", in *Graph Classification and Clustering Based on Vector Space Embedding*
    (2010), https://doi.org/10.1142/9789814304726_0004.

    Note that the Mutagenicity ground truth of GDR4GED (same paper) was computed with other
    effective costs: node insertion / deletion / substitution 5.5, edge insertion / deletion
    0.825, edge substitution 0. That is ``chem_1(5.5, 5.5, 0.825, 0)``.

    Examples
    --------
    >>> m = chem_2()
    >>> m.node_del("C"), m.node_sub("C", "N"), round(m.edge_ins(1), 9), m.edge_sub(1, 1)
    (2.75, 5.5, 0.825, 0.0)
    """
    return Chem2Costs(node_ins_del=node_ins_del, edge_ins_del=edge_ins_del, alpha=alpha)
