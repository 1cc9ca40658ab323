"""Molecules through RDKit: SMILES strings and files, SDF and MOL files.

Atoms become nodes (ids ``0..n-1`` in RDKit's atom order), bonds become edges. Hydrogens stay
implicit, as RDKit gives them after sanitising. Each atom has the attributes

- ``atom``: element symbol (``"C"``), the default node label,
- ``charge``: formal charge, ``aromatic``: bool, ``hydrogens``: total attached hydrogens;

each bond has

- ``bond``: bond order as a valence, ``1``, ``2``, ``3``, or ``1.5`` for aromatic bonds, the
  default edge label,
- ``kekule``: bond order in a Kekulé structure (RDKit's ``Kekulize``): aromatic bonds become
  alternating ``1`` and ``2``, as in the t/v/e files of Chang et al.'s GED search experiments;
  read only when named (``edge_label="kekule"``; ``"*"`` leaves it out, so labels read
  with ``"*"`` stay what they were),
- ``aromatic``: bool.

The two bond conventions do not compare: benzene has six ``1.5`` bonds in one and three ``1``
and three ``2`` bonds in the other. A collection records the ``edge_label`` it was built with
and reads SMILES queries the same way.

``node_label``/``edge_label`` pick among these as for any attribute format (``"*"`` = all).
Needs the optional dependency RDKit (``pip install 'gedkit[chem]'``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError, MissingDependencyError
from gedkit.graph import Graph
from gedkit.io.common import build_graph, check_label_spec, graph_name, shorten

__all__ = ["from_rdkit", "from_smiles", "read_mol", "read_sdf", "read_smiles"]

_END = object()


def _chem():
    try:
        from rdkit import Chem, rdBase
    except ImportError:
        raise MissingDependencyError("rdkit", "reading molecules (SMILES, SDF, MOL)",
                                     "chem") from None
    return Chem, rdBase


def from_rdkit(mol: Any, node_label: Any = "atom", edge_label: Any = "bond", *,
               name: str | None = None, source: Path | str = "molecule") -> Graph:
    """A :class:`Graph` from an RDKit molecule (attributes as in the module docstring).

    Examples
    --------
    RDKit is optional, so this example is checked by tests/test_io.py rather than as a doctest:

    >>> from rdkit import Chem  # doctest: +SKIP
    >>> g = from_rdkit(Chem.MolFromSmiles("C=O"), name="formaldehyde")  # doctest: +SKIP
    >>> g.node_labels, g.edge_labels  # doctest: +SKIP
    (('C', 'O'), (2,))
    """
    check_label_spec(node_label, "node_label")
    check_label_spec(edge_label, "edge_label")
    kekule = _kekulized(mol, source) if _wants(edge_label, "kekule") else None
    if node_label == "atom" and edge_label in ("bond", "kekule"):
        # the usual labels, read straight (a collection reads millions of molecules)
        bonds = (mol if kekule is None else kekule).GetBonds()
        edges = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx(), _order(b, source)) for b in bonds]
        return Graph({a.GetIdx(): a.GetSymbol() for a in mol.GetAtoms()}, edges, name=name)
    nodes = [
        (atom.GetIdx(), {
            "atom": atom.GetSymbol(),
            "charge": atom.GetFormalCharge(),
            "aromatic": atom.GetIsAromatic(),
            "hydrogens": atom.GetTotalNumHs(),
        })
        for atom in mol.GetAtoms()
    ]
    edges = [(bond.GetBeginAtomIdx(), bond.GetEndAtomIdx(), {
        "bond": _order(bond, source), "aromatic": bond.GetIsAromatic()})
        for bond in mol.GetBonds()]
    if kekule is not None:  # RDKit keeps bond indices through Kekulize
        for (_, _, attrs), bond in zip(edges, kekule.GetBonds(), strict=True):
            attrs["kekule"] = _order(bond, source)
    return build_graph(nodes, edges, name=name, source=source, node_label=node_label,
                       edge_label=edge_label)


def _wants(spec: Any, attribute: str) -> bool:
    """Whether the label spec ``spec`` names ``attribute``."""
    return spec == attribute or (isinstance(spec, list | tuple) and attribute in spec)


def _kekulized(mol: Any, source: Path | str) -> Any:
    """A copy of ``mol`` with aromatic bonds as alternating single and double bonds."""
    Chem, _ = _chem()
    copy = Chem.Mol(mol)
    try:
        Chem.Kekulize(copy, clearAromaticFlags=True)
    except Exception as err:  # RDKit's KekulizeException; a sanitised molecule rarely fails
        raise FormatError(f"{source}: RDKit cannot kekulize this molecule ({err})") from None
    return copy


def _order(bond: Any, source: Path | str) -> int | float:
    """A bond's order as a valence: 1, 2, 3, or 1.5 when aromatic."""
    order = bond.GetBondTypeAsDouble()
    if order == 0:  # a query bond ("any", an unknown MOL type): no order to compare
        raise FormatError(
            f"{source}: the bond between atoms {bond.GetBeginAtomIdx()} and "
            f"{bond.GetEndAtomIdx()} has no bond order (RDKit bond type "
            f"{bond.GetBondType().name})"
        )
    return int(order) if order.is_integer() else order


def from_smiles(smiles: str, node_label: Any = "atom", edge_label: Any = "bond", *,
                name: str | None = None) -> Graph:
    """A :class:`Graph` from a SMILES string (heavy atoms; hydrogens implicit).

    Examples
    --------
    Checked by tests/test_io.py (RDKit is optional):

    >>> g = from_smiles("c1ccccc1O", name="phenol")  # doctest: +SKIP
    >>> g.n, g.m, sorted(set(g.edge_labels))  # doctest: +SKIP
    (7, 7, [1, 1.5])
    """
    Chem, rdBase = _chem()
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        raise FormatError(f"RDKit cannot parse the SMILES {shorten(smiles)!r}")
    return from_rdkit(mol, node_label, edge_label, name=name, source=f"SMILES {smiles!r}")


def read_smiles(path: Path, node_label: Any, edge_label: Any,
                skipped: list | None = None) -> Iterator[Graph]:
    """Yield the molecules of a SMILES file: one per line, ``SMILES [title]``. A line RDKit
    cannot read raises, or with a ``skipped`` list is told there and left out."""
    Chem, rdBase = _chem()
    with open(path, encoding="utf-8") as f:
        records = [(k, line.split(maxsplit=1)) for k, line in enumerate(f, start=1)]
    records = [(k, fields) for k, fields in records if fields and not fields[0].startswith("#")]
    for i, (line_no, fields) in enumerate(records):
        with rdBase.BlockLogs():
            mol = Chem.MolFromSmiles(fields[0])
        name = fields[1].strip() if len(fields) > 1 else graph_name(path, i, len(records) > 1)
        try:
            if mol is None:
                raise FormatError(f"{path}:{line_no}: RDKit cannot parse the SMILES "
                                  f"{shorten(fields[0])!r}")
            graph = from_rdkit(mol, node_label, edge_label, name=name, source=path)
        except FormatError as err:
            if skipped is None:
                raise
            skipped.append(str(err))
            continue
        yield graph


def read_sdf(path: Path, node_label: Any, edge_label: Any,
             skipped: list | None = None) -> Iterator[Graph]:
    """Yield the molecules of an SDF file, named by their title lines (a molecule RDKit
    cannot read raises, or with a ``skipped`` list is told there and left out)."""
    Chem, rdBase = _chem()
    if path.stat().st_size == 0:
        return
    molecules = iter(Chem.SDMolSupplier(str(path)))
    with rdBase.BlockLogs():
        current = next(molecules, _END)
    index = 0
    while current is not _END:
        # look one molecule ahead: an untitled molecule is named after the file only when
        # it is the file's only one
        with rdBase.BlockLogs():
            following = next(molecules, _END)
        try:
            if current is None:
                raise FormatError(f"{path}: RDKit cannot parse molecule number {index + 1}")
            graph = _titled(current, path, index, index > 0 or following is not _END,
                            node_label, edge_label)
        except FormatError as err:
            if skipped is None:
                raise
            skipped.append(str(err))
        else:
            yield graph
        current, index = following, index + 1


def read_mol(path: Path, node_label: Any, edge_label: Any) -> Iterator[Graph]:
    """Yield the molecule of a MOL file."""
    Chem, rdBase = _chem()
    with rdBase.BlockLogs():
        mol = Chem.MolFromMolFile(str(path))
    if mol is None:
        raise FormatError(f"{path}: RDKit cannot parse this MOL file")
    yield _titled(mol, path, 0, False, node_label, edge_label)


def _titled(mol: Any, path: Path, index: int, several: bool, node_label: Any,
            edge_label: Any) -> Graph:
    title = mol.GetProp("_Name").strip() if mol.HasProp("_Name") else ""
    name = title or graph_name(path, index, several)
    return from_rdkit(mol, node_label, edge_label, name=name, source=path)
