"""Molecules: RDKit 2D coordinates (g2's seeded from g1's through the node map) and a
chemical depiction drawn with matplotlib.

A graph is a molecule when every node label is an element symbol (or an attribute dict whose
``atom`` is one, as :func:`gedkit.from_smiles` with ``node_label="*"`` gives) and every edge
label is a bond order (1, 2, 3, 1.5 for aromatic; unlabelled edges read as single bonds).
Coordinates come from RDKit's depiction code (``rdDepictor.Compute2DCoords``); g2's is
computed with ``coordMap`` pinning the atoms that keep a bond to where their g1 counterparts
are, so the common part has the same shape in both panels. Without RDKit, molecules are laid
out like any graph. The depiction follows RDKit's conventions: carbons are bare vertices (unless
an operation touches them), heteroatoms are letters, double and triple bonds are parallel lines,
aromatic rings carry a circle, and edits are highlighted by bands and halos under the drawing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gedkit.graph import Graph
from gedkit.text import quoted

__all__ = ["atom_symbol", "bond_order", "coordinates", "is_molecule", "not_molecule",
           "to_rdkit"]

ELEMENTS = frozenset((
    "H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne", "Na", "Mg", "Al", "Si", "P", "S", "Cl",
    "Ar", "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As",
    "Se", "Br", "Kr", "Rb", "Sr", "Y", "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd",
    "In", "Sn", "Sb", "Te", "I", "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu",
    "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W", "Re", "Os", "Ir", "Pt",
    "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac", "Th", "Pa", "U", "Np",
    "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr", "Rf", "Db", "Sg", "Bh", "Hs",
    "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og",
))
_ORDERS = {1: 1.0, 2: 2.0, 3: 3.0, 1.5: 1.5}
#: RDKit's bond length in its depictions; coordinates are divided by it (unit bonds)
_RDKIT_BOND = 1.5


def atom_symbol(label: Any) -> str | None:
    """The element symbol a node label names, else None.

    >>> atom_symbol("Cl"), atom_symbol({"atom": "N", "charge": 1}), atom_symbol("X")
    ('Cl', 'N', None)
    """
    if isinstance(label, dict):
        label = label.get("atom")
    if isinstance(label, str):
        return label if label in ELEMENTS else None
    return None


def bond_order(label: Any) -> float | None:
    """The bond order an edge label names (None = unlabelled = single), else None.

    >>> bond_order(2), bond_order(1.5), bond_order(None), bond_order({"bond": 3}), bond_order("x")
    (2.0, 1.5, 1.0, 3.0, None)
    """
    if isinstance(label, dict):
        label = label.get("bond")
    if label is None:
        return 1.0
    if isinstance(label, bool) or not isinstance(label, int | float):
        return None
    return _ORDERS.get(label)


def charge(label: Any) -> int:
    """The formal charge an atom label carries (0 without one)."""
    if isinstance(label, dict):
        value = label.get("charge", 0)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def is_molecule(g: Graph) -> bool:
    """True when ``g``'s labels read as atoms and bonds (see the module docstring).

    >>> is_molecule(Graph({0: "C", 1: "O"}, [(0, 1, 2)])), is_molecule(Graph({0: "a"}))
    (True, False)
    >>> is_molecule(Graph())
    False
    """
    return g.n > 0 and not_molecule(g) is None


def not_molecule(g: Graph) -> str | None:
    """Why ``g`` cannot be drawn as a molecule (its first label that names no element or bond
    order), or None when it can.

    >>> not_molecule(Graph({0: "C", 1: "foo"}))
    "node label 'foo' is no element symbol"
    >>> not_molecule(Graph({0: "C", 1: "O"}, [(0, 1, "double")]))
    "edge label 'double' is no bond order (1, 2, 3 or 1.5)"
    >>> not_molecule(Graph({0: "C"})) is None
    True
    """
    for lab in g.node_labels:
        if atom_symbol(lab) is None:
            return f"node label {quoted(lab)} is no element symbol"
    for lab in g.edge_labels:
        if bond_order(lab) is None:
            return f"edge label {quoted(lab)} is no bond order (1, 2, 3 or 1.5)"
    return None


def to_rdkit(g: Graph) -> Any:
    """An RDKit molecule with ``g``'s atoms and bonds, unsanitised (the graph may be no valid
    molecule: an edit path's middle steps rarely are), its ring information computed.

    Examples
    --------
    >>> m = to_rdkit(Graph({0: "C", 1: "O"}, [(0, 1, 2)]))  # doctest: +SKIP
    >>> m.GetNumAtoms(), m.GetBondWithIdx(0).GetBondTypeAsDouble()  # doctest: +SKIP
    (2, 2.0)
    """
    from rdkit import Chem

    types = {1.0: Chem.BondType.SINGLE, 2.0: Chem.BondType.DOUBLE,
             3.0: Chem.BondType.TRIPLE, 1.5: Chem.BondType.AROMATIC}
    rw = Chem.RWMol()
    for lab in g.node_labels:
        atom = Chem.Atom(atom_symbol(lab))
        atom.SetFormalCharge(charge(lab))
        atom.SetNoImplicit(True)  # the graph has no hydrogens; RDKit should not guess any
        rw.AddAtom(atom)
    for (a, b), lab in zip(g.edges.tolist(), g.edge_labels, strict=True):
        order = bond_order(lab)
        rw.AddBond(a, b, types[order])
        if order == 1.5:
            rw.GetBondBetweenAtoms(a, b).SetIsAromatic(True)
            rw.GetAtomWithIdx(a).SetIsAromatic(True)
            rw.GetAtomWithIdx(b).SetIsAromatic(True)
    mol = rw.GetMol()
    mol.UpdatePropertyCache(strict=False)
    Chem.FastFindRings(mol)
    return mol


def rdkit_available() -> bool:
    try:
        import rdkit.Chem.rdDepictor  # noqa: F401
    except ImportError:
        return False
    return True


def coordinates(g1: Graph, g2: Graph, forward: np.ndarray,
                anchored: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """RDKit depiction coordinates of both molecules, in bond lengths; g2's atoms mapped
    from anchored atoms of g1 are pinned at their g1 place.

    Parameters
    ----------
    g1, g2 : Graph
        Molecules (see :func:`is_molecule`).
    forward : ndarray of int
        The node map, -1 = deleted.
    anchored : ndarray of bool
        Which atoms of g1 pin their counterpart (see :func:`gedkit.draw.scene.kept_anchors`).

    Returns
    -------
    pos1, pos2 : ndarray, shapes (n1, 2) and (n2, 2)

    Examples
    --------
    >>> g = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1), (1, 2)])  # doctest: +SKIP
    >>> p1, p2 = coordinates(g, g, np.arange(3), np.ones(3, bool))  # doctest: +SKIP
    >>> bool(np.allclose(p1, p2))  # doctest: +SKIP
    True
    """
    from rdkit import rdBase
    from rdkit.Chem import rdDepictor
    from rdkit.Geometry import Point2D

    forward = np.asarray(forward, dtype=np.int64)
    with rdBase.BlockLogs():
        m1 = to_rdkit(g1)
        rdDepictor.Compute2DCoords(m1, canonOrient=True)
        pos1 = _positions(m1)
        if g2.n == 0:
            return pos1 / _RDKIT_BOND, np.zeros((0, 2))
        m2 = to_rdkit(g2)
        pins = {int(forward[i]): Point2D(*pos1[i]) for i in np.flatnonzero(anchored)
                if forward[i] >= 0}
        pos2 = None
        if pins:
            try:
                rdDepictor.Compute2DCoords(m2, coordMap=pins, canonOrient=False)
                pos2 = _positions(m2)
            except (RuntimeError, ValueError):  # pins RDKit cannot honour
                pass
        if pos2 is None or _stretched(pos2, g2.edges):
            # g2 on its own, turned and moved onto the pins as closely as it goes: a common
            # part that runs along two rings of g1 and around one ring of g2 pinned g2's ring
            # open, one bond across the picture and the others crossing it
            rdDepictor.Compute2DCoords(m2, canonOrient=not pins)
            pos2 = _positions(m2)
            if pins:
                at = np.array(list(pins))
                pos2 = _fitted(pos2, at, np.array([[p.x, p.y] for p in pins.values()]))
    return pos1 / _RDKIT_BOND, pos2 / _RDKIT_BOND


#: a bond drawn longer than this many bond lengths, or shorter than its inverse, is stretched
_STRETCH = 1.6


def _stretched(pos: np.ndarray, edges: np.ndarray) -> bool:
    """Whether a bond of the depiction ``pos`` (RDKit's units) is far from its length."""
    if not len(edges):
        return False
    lengths = np.linalg.norm(pos[edges[:, 0]] - pos[edges[:, 1]], axis=1) / _RDKIT_BOND
    return bool((lengths > _STRETCH).any() or (lengths < 1 / _STRETCH).any())


def _fitted(pos: np.ndarray, at: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``pos`` turned (or mirrored) and moved so that its points ``at`` lie as close to
    ``target`` as a rigid motion puts them (least squares: Kabsch's rotation, reflection
    allowed, as a depiction may be drawn either way round)."""
    if len(at) < 2:
        return pos - pos[at].mean(axis=0) + target.mean(axis=0) if len(at) else pos
    a, b = pos[at] - pos[at].mean(axis=0), target - target.mean(axis=0)
    u, _, vt = np.linalg.svd(a.T @ b)
    return (pos - pos[at].mean(axis=0)) @ (u @ vt) + target.mean(axis=0)


def _positions(mol: Any) -> np.ndarray:
    if mol.GetNumAtoms() == 0:
        return np.zeros((0, 2))
    conf = mol.GetConformer()
    return np.array([[p.x, p.y] for p in (conf.GetAtomPosition(i)
                                          for i in range(mol.GetNumAtoms()))], dtype=float)


def rings(n: int, edges: np.ndarray) -> list[list[int]]:
    """The smallest rings (a minimum cycle basis), each as its atoms in ring order.

    >>> rings(4, np.array([(0, 1), (1, 2), (2, 3), (3, 0)]))
    [[0, 1, 2, 3]]
    """
    import networkx as nx

    if len(edges) < 3:
        return []
    h = nx.Graph()
    h.add_nodes_from(range(n))
    h.add_edges_from(np.asarray(edges).tolist())
    out = []
    for cycle in nx.cycle_basis(h) if len(edges) > 400 else nx.minimum_cycle_basis(h):
        sub = h.subgraph(cycle)
        # minimum_cycle_basis returns sets: walk them to get the ring order
        start = min(cycle)
        order, prev = [start], None
        while len(order) < len(cycle):
            nxt = sorted(v for v in sub[order[-1]] if v != prev and v not in order)
            if not nxt:
                break
            prev = order[-1]
            order.append(nxt[0])
        out.append(order)
    return sorted(out)


def bond_lines(p: np.ndarray, q: np.ndarray, order: float, inside: np.ndarray | None,
               gap: float = 0.16) -> list[np.ndarray]:
    """The line segments of one bond from ``p`` to ``q``: one for single and aromatic bonds,
    two for double (the second inside the ring toward ``inside`` when the bond is in one,
    else both offset from the axis), three for triple.

    >>> len(bond_lines(np.zeros(2), np.ones(2), 2.0, None))
    2
    """
    d = q - p
    length = float(np.hypot(*d))
    if length == 0:
        return [np.array([p, q])]
    normal = np.array([-d[1], d[0]]) / length
    if order == 2.0:
        if inside is not None:
            side = 1.0 if np.dot(inside - p, normal) > 0 else -1.0
            inner = normal * side * gap
            shrink = d * 0.14
            return [np.array([p, q]), np.array([p + inner + shrink, q + inner - shrink])]
        half = normal * gap / 2
        return [np.array([p + half, q + half]), np.array([p - half, q - half])]
    if order == 3.0:
        off = normal * gap * 0.9
        return [np.array([p, q]), np.array([p + off, q + off]), np.array([p - off, q - off])]
    return [np.array([p, q])]


def ring_centres(pos: np.ndarray, ring_list: list[list[int]]) -> list[np.ndarray]:
    return [pos[r].mean(axis=0) for r in ring_list]


def aromatic_circle(pos: np.ndarray, ring: list[int]) -> tuple[np.ndarray, float]:
    """Centre and radius of the circle drawn inside an aromatic ring."""
    centre = pos[ring].mean(axis=0)
    inradius = min(float(np.hypot(*(pos[a] - centre))) for a in ring) * math.cos(
        math.pi / max(len(ring), 3))
    return centre, 0.62 * inradius
