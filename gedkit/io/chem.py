"""Molecules through RDKit: SMILES strings and files, SDF and MOL files.

Atoms become nodes (ids ``0..n-1`` in RDKit's atom order), bonds become edges. Hydrogens stay
implicit, as RDKit gives them after sanitising; an RDKit molecule given with hydrogen atoms (after
``AddHs``, for 3D embedding) loses them as RDKit's ``RemoveHs`` removes them, which is what it
does reading a SMILES string or an SDF file, so that one molecule is one graph whichever way it
comes (the hydrogens RDKit keeps as atoms, e.g. isotopes such as ``[2H]``, stay nodes labelled
``H``; the other atoms keep their order). Each atom has the attributes

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

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from gedkit.errors import FormatError, GraphError, MissingDependencyError, Words
from gedkit.graph import Graph
from gedkit.io.common import (
    KeptInPlace,
    Unreadable,
    build_graph,
    check_label_spec,
    compressed,
    graph_name,
    inner,
    open_text,
    picked,
    undecoded,
)
from gedkit.text import MESSAGE_WIDTH, clipped, quoted

__all__ = ["from_rdkit", "from_smiles", "read_mol", "read_sdf", "read_smiles",
           "read_smiles_table", "record_names"]

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
    mol = _without_hydrogens(mol)
    kekule = _kekulized(mol, source) if _wants(edge_label, "kekule") else None
    if node_label == "atom" and edge_label in ("bond", "kekule"):
        # the usual labels, read straight (a collection reads millions of molecules): atoms
        # and bonds by index (RDKit's Python iterators took as long as the rest of the
        # reading), into a graph without Graph's checks, which RDKit's molecules pass always
        # (atoms 0..n-1, one bond per pair of distinct atoms; symbols and orders as labels)
        held = mol if kekule is None else kekule
        atom, bond = mol.GetAtomWithIdx, held.GetBondWithIdx
        symbols = tuple(atom(i).GetSymbol() for i in range(mol.GetNumAtoms()))
        ends, orders = [], []
        for k in range(held.GetNumBonds()):
            b = bond(k)
            u, v = b.GetBeginAtomIdx(), b.GetEndAtomIdx()
            ends += (u, v) if u < v else (v, u)
            orders.append(_order(b, source))
        pairs = np.array(ends, dtype=np.int32).reshape(-1, 2)
        return Graph._from_valid(symbols, pairs, tuple(orders), name)
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


def _without_hydrogens(mol: Any) -> Any:
    """``mol`` without the hydrogen atoms RDKit removes reading SMILES or SDF (a molecule
    after ``AddHs`` was 12 edits from its own SMILES, and found nothing near in a
    collection); ``mol`` itself when it has none (two counts: no copy on the way of the
    millions of molecules a collection reads)."""
    if mol.GetNumAtoms() == mol.GetNumHeavyAtoms():
        return mol
    Chem, _ = _chem()
    try:
        return Chem.RemoveHs(mol)
    except Exception:  # one RDKit will not sanitise again: removed as it is
        stripped = Chem.RemoveHs(mol, sanitize=False)
        stripped.UpdatePropertyCache(strict=False)
        return stripped


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
    if not isinstance(smiles, str):  # (RDKit's C++ converter error, as a traceback)
        raise GraphError(f"from_smiles takes a SMILES string, got {type(smiles).__name__}")
    mol, why = _molecule_of(smiles)
    if mol is None:
        raise FormatError(f"RDKit cannot parse the SMILES {quoted(smiles)}{why}")
    return from_rdkit(mol, node_label, edge_label, name=name, source=f"SMILES {quoted(smiles)}")


#: a SMILES string without whitespace, with a CXSMILES extension or not
_ONE_SMILES = re.compile(r"\S*(\s+\|[^|]*\|)?")


def _molecule_of(smiles: str) -> tuple[Any, str]:
    """RDKit's molecule of ``smiles``, or None and why not (after a colon): nothing where the
    string is no SMILES, RDKit's own words where it parses but RDKit rejects the molecule
    (a valence it does not permit: "cannot parse" alone sent users looking for a typo), and
    a word where it holds whitespace between its ends, which RDKit reads as the end of the
    SMILES and the start of a name (``"c1ccccc1 CCCC"`` was benzene, at distance 0 from
    benzene, without a word), unless a CXSMILES extension (``|...|``) follows it."""
    if not _ONE_SMILES.fullmatch(smiles.strip()):
        return None, (": it holds whitespace, and a SMILES string has none (RDKit would read "
                      "the rest as a name)")
    Chem, rdBase = _chem()
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
        if mol is not None:
            return mol, ""
        raw = Chem.MolFromSmiles(smiles, sanitize=False)
        if raw is None:
            return None, ""
        try:
            Chem.SanitizeMol(raw)
        except Exception as err:  # (RDKit's sanitization errors have no common base)
            return None, f": {str(err).strip()}"
    return None, ""


def read_smiles(path: Path, node_label: Any, edge_label: Any,
                skipped: list | None = None, select: str | None = None, jobs: int = 1
                ) -> Iterator[Graph]:
    """Yield the molecules of a SMILES file: one per line, ``SMILES [title]`` (``#`` starts a
    comment line, a first line whose SMILES is the word ``SMILES`` is a header; gzip-compressed
    as ``.smi.gz``). A line RDKit cannot read raises, or with a
    ``skipped`` list is told there and left out. ``select``: only the molecule of that name,
    or else of that number (``FILE#ID``), found without parsing the others. ``jobs``: worker
    processes that parse the molecules of a long file."""
    return _molecules(_smiles_records(path), path, node_label, edge_label, skipped, select,
                      jobs)


def read_smiles_table(path: Path, node_label: Any, edge_label: Any,
                      skipped: list | None = None, select: str | None = None, jobs: int = 1
                      ) -> Iterator[Graph]:
    """Yield the molecules of a CSV or TSV table with a header (gzip-compressed as
    ``.csv.gz``/``.tsv.gz``): the SMILES from the column named ``smiles`` (any case; else the
    first whose name contains it), each named by the first column called ``id``, ``name``,
    ``title``, ``identifier`` or ending in ``_id``/``_name`` (``zinc_id``), else after the
    file. Other columns are ignored. The delimiter is a tab for ``.tsv``, else whichever of
    comma, tab and semicolon the header holds most of. A row RDKit cannot read raises, or
    with a ``skipped`` list is told there and left out. ``select`` and ``jobs`` as for
    :func:`read_smiles`."""
    return _molecules(_table_records(path), path, node_label, edge_label, skipped, select,
                      jobs)


def record_names(path: Path, table: bool) -> list[str]:
    """The names :func:`read_smiles` (:func:`read_smiles_table` when ``table``) gives the
    molecules of ``path``, without parsing them: one per record, those RDKit would reject
    included (a collection's build checks its ids with these before reading the molecules
    once)."""
    records = _table_records(path) if table else _smiles_records(path)
    return [name for _, name in _named(records, path)]


#: one record of a SMILES file or table: where it is (``file:line``), its SMILES, its title
#: (None: named after the file), and why it cannot be read (None when it can be tried)
_Record = tuple[str, str, str | None, str | None]


def _smiles_records(path: Path) -> Iterator[_Record]:
    """The records of a SMILES file (see :func:`read_smiles`); a line that is not UTF-8 is
    one that cannot be read (one byte of a title stopped a whole file)."""
    with open_text(path, errors="surrogateescape") as f:
        first = True
        for line_no, line in enumerate(f, start=1):
            if undecoded(line):
                where = f"{path}:{line_no}"
                yield where, "", None, f"{where}: not UTF-8 text"
                first = False
                continue
            fields = line.split(maxsplit=1)
            if fields and not fields[0].startswith("#"):
                if first and fields[0].lower() == "smiles":
                    # a header line ("SMILES Name", as tables exported as .smi have): no
                    # molecule (it was counted as one RDKit cannot read)
                    first = False
                    continue
                first = False
                if line.startswith("\t"):
                    # a tab-separated line whose SMILES column is empty: its title is not
                    # a SMILES (it was read as one: "cannot parse the SMILES 'q5'")
                    where = f"{path}:{line_no}"
                    yield where, "", fields[0], f"{where}: no SMILES before the tab"
                    continue
                smiles, rest = fields[0], fields[1].strip() if len(fields) > 1 else ""
                end = rest.find("|", 1) if rest.startswith("|") else -1
                if end > 0:
                    # a CXSMILES extension (``|r|``, coordinates, enhanced stereo): RDKit
                    # reads it with the SMILES; the title follows it (it was the title)
                    smiles, rest = f"{smiles} {rest[:end + 1]}", rest[end + 1:].strip()
                yield f"{path}:{line_no}", smiles, rest or None, None


#: header names of a table's name column (any case), besides those ending in ``_id``/``_name``
_NAME_COLUMNS = ("id", "name", "title", "identifier")


def _table_records(path: Path) -> Iterator[_Record]:
    """The records of a CSV/TSV table (see :func:`read_smiles_table`); a row that is not
    UTF-8 is one that cannot be read, as in a SMILES file."""
    import csv

    with open_text(path, errors="surrogateescape") as f:
        # the header: the first line not blank (``above``: lines up to it)
        above, header_line = next(((k, line) for k, line in enumerate(f, start=1)
                                   if line.strip()), (0, None))
        if header_line is None:
            return  # an empty table: no molecule
        if undecoded(header_line):  # (its columns' names were shown as escaped bytes)
            raise FormatError(f"{path}:{above}: not UTF-8 text (the header of a CSV/TSV "
                              "table of SMILES)")
        tsv = inner(path).suffix.lower() == ".tsv"
        delimiter = "\t" if tsv else max(",\t;", key=header_line.count)
        header = next(csv.reader([header_line.lstrip("\ufeff")], delimiter=delimiter))
        smiles_at, name_at = _table_columns(header, path)
        rows = csv.reader(f, delimiter=delimiter)
        try:
            for row in rows:
                where = f"{path}:{above + rows.line_num}"
                if not any(field.strip() for field in row):
                    continue
                if any(undecoded(field) for field in row):
                    yield where, "", None, f"{where}: not UTF-8 text"
                    continue
                title = (row[name_at].strip() if name_at is not None and name_at < len(row)
                         else "") or None
                if len(row) <= smiles_at or not row[smiles_at].strip():
                    yield (where, "", title,
                           f"{where}: no SMILES in column {quoted(header[smiles_at])}")
                    continue
                yield where, row[smiles_at].strip(), title, None
        except csv.Error as err:
            raise FormatError(f"{path}:{above + rows.line_num}: not a readable table row "
                              f"({err})") from None


def _table_columns(header: list[str], path: Path) -> tuple[int, int | None]:
    """The positions of a table's SMILES column and of its name column (None without)."""
    names = [h.strip().lower() for h in header]
    smiles_at = next((i for i, h in enumerate(names) if h == "smiles"),
                     next((i for i, h in enumerate(names) if "smiles" in h), None))
    if smiles_at is None:
        raise FormatError(
            f"{path}: no SMILES column in its header "
            f"({clipped(', '.join(header), MESSAGE_WIDTH, length=True)}); name it"
            " 'smiles' (any case), or read a file of SMILES without a header as format "
            "smiles (.smi)"
        )
    name_at = next((i for i, h in enumerate(names) if i != smiles_at and (
        h in _NAME_COLUMNS or h.endswith(("_id", "_name")))), None)
    return smiles_at, name_at


def _molecules(records: Iterator[_Record], path: Path, node_label: Any, edge_label: Any,
               skipped: list | None, select: str | None = None, jobs: int = 1
               ) -> Iterator[Graph]:
    """The molecules of ``records``, in order; an untitled one named after the file (with its
    index when the file holds several). A record that cannot be read raises, or with a
    ``skipped`` list is told there and left out. ``select``: the one record of that name,
    else of that number, the others not parsed (``FILE#0`` of MOSES's 176,000 molecules
    parsed them all to look for a molecule named "0": 77 s). ``jobs``: worker processes
    that parse them (:mod:`gedkit.io.parse_pool`)."""
    _chem()  # (RDKit missing: said here, not by each record)
    named = ((where, smiles, name, problem)
             for (where, smiles, _, problem), name in _named(records, path))
    if select is not None:
        named = iter([picked(named, lambda item: item[2], select, path, unique=True)])
    args = (path, node_label, edge_label)
    if jobs > 1 and select is None:
        from gedkit.io.parse_pool import in_order

        outcomes = in_order(named, _outcome, args, jobs)
    else:
        outcomes = (_outcome(*item, *args) for item in named)
    for outcome in outcomes:
        if isinstance(outcome, Graph):
            yield outcome
        else:  # (why, and the name the molecule would have had)
            kept = _left_out(skipped, FormatError(outcome[0]), outcome[1])
            if kept is not None:
                yield kept


def _outcome(where: str, smiles: str, name: str, problem: str | None, path: Path,
             node_label: Any, edge_label: Any) -> Graph | tuple[str, str]:
    """The molecule of one SMILES record, or why it cannot be read and the name it would
    have had (a message, not an exception: a worker process hands it back as it is)."""
    if problem is not None:
        return problem, name
    mol, why = _molecule_of(smiles)
    if mol is None:
        return f"{where}: RDKit cannot parse the SMILES {quoted(smiles)}{why}", name
    try:
        return from_rdkit(mol, node_label, edge_label, name=name, source=path)
    except FormatError as err:
        return str(err), name


def _named(records: Iterator[_Record], path: Path) -> Iterator[tuple[_Record, str]]:
    """Each record with the name its molecule gets: its title, or else after the file (with
    its index when the file holds several)."""
    for index, record, several in _ahead(records):
        yield record, record[2] or graph_name(path, index, several)


def read_sdf(path: Path, node_label: Any, edge_label: Any,
             skipped: list | None = None) -> Iterator[Graph]:
    """Yield the molecules of an SDF file (gzip-compressed as ``.sdf.gz``), named by their
    title lines (a molecule RDKit cannot read raises, or with a ``skipped`` list is told there
    and left out)."""
    Chem, rdBase = _chem()
    if not compressed(path) and path.stat().st_size == 0:
        return

    def titled(mol: Any, index: int, several: bool) -> Graph:
        if mol is None:
            # (numbered from 1, and as FILE#N picks it, from 0)
            raise FormatError(f"{path}: RDKit cannot parse molecule number {index + 1} "
                              f"(#{index}){_title_of(supplier, index)}")
        if _merged(supplier, index):
            # RDKit reads the first molecule and takes the second's lines for data fields:
            # it was lost without a word
            raise FormatError(f"{path}: record number {index + 1} (#{index})"
                              f"{_title_of(supplier, index)} holds two molecules (two 'M  END' "
                              "lines): the '$$$$' line between them is missing")
        return _titled(mol, path, index, several, node_label, edge_label)

    with contextlib.ExitStack() as stack:
        if compressed(path):  # .sdf.gz, read as a stream
            import gzip

            supplier = Chem.ForwardSDMolSupplier(stack.enter_context(gzip.open(path)))
        else:
            supplier = Chem.SDMolSupplier(str(path))
        # (counted before reading: counted after, the records a damaged one took are gone)
        records = None if compressed(path) else len(supplier)
        read = 0
        for index, mol, several in _ahead(_quietly(iter(supplier), rdBase)):
            read = index + 1
            try:
                graph = titled(mol, index, several)
            except FormatError as err:  # (named as it would have been, where kept in place)
                title = (_title(supplier, index) if mol is None or not mol.HasProp("_Name")
                         else mol.GetProp("_Name").strip())
                graph = _left_out(skipped, err, title or graph_name(path, index, several))
            if graph is not None:
                yield graph
        # a damaged record can take the next one's lines with it: RDKit's reading then
        # gives fewer molecules than the file has records, and one was lost without a word
        for index in range(read, read if records is None else records):
            lost = _left_out(skipped, FormatError(
                f"{path}: record number {index + 1} (#{index}){_title_of(supplier, index)} "
                f"was not read: RDKit read {read} of the file's {records} records (a damaged "
                "record before it took its lines)"),
                _title(supplier, index) or graph_name(path, index, True))
            if lost is not None:
                yield lost


def _title_of(supplier: Any, index: int) -> str:
    """`` (titled 'NAME')`` for the record ``index`` of an SDF ``supplier`` that can read
    its text back (not a compressed stream's), else nothing: RDKit's count of records shifts
    where one is cut short, so the number alone may point at the wrong one."""
    title = _title(supplier, index)
    return f" (titled {quoted(title)})" if title else ""


def _title(supplier: Any, index: int) -> str:
    """The title line of record ``index`` of an SDF ``supplier`` that can read its text
    back, else nothing."""
    try:
        return supplier.GetItemText(index).split("\n", 1)[0].strip()
    except Exception:  # a forward supplier, or a record past what RDKit indexed
        return ""


def _merged(supplier: Any, index: int) -> bool:
    """Whether record ``index`` of an SDF ``supplier`` that can read its text back (not a
    compressed stream's) ends two molecules."""
    try:
        text = supplier.GetItemText(index)
    except Exception:  # a forward supplier
        return False
    return text.count("\nM  END") > 1


def _ahead(items: Iterator[Any]) -> Iterator[tuple[int, Any, bool]]:
    """Each item with its index and whether there are several (one item of look-ahead: an
    untitled molecule is named after the file alone only when it is the file's only one)."""
    current = next(items, _END)
    index = 0
    while current is not _END:
        following = next(items, _END)
        yield index, current, index > 0 or following is not _END
        current, index = following, index + 1


def _quietly(molecules: Iterator[Any], rdBase: Any) -> Iterator[Any]:
    """An RDKit supplier's molecules (None for one it cannot read), its log kept quiet."""
    while True:
        try:
            with rdBase.BlockLogs():
                mol = next(molecules, _END)
        except SystemError as err:
            # the Python stream RDKit reads from raised (a damaged .sdf.gz): Boost.Python
            # wraps it in this, the reader's own error its cause
            inner = err.__cause__ or err.__context__
            if inner is None:
                raise
            raise inner from None
        if mol is _END:
            return
        yield mol


def _left_out(skipped: list | None, err: FormatError, name: str) -> Unreadable | None:
    """Raise ``err``, a record that cannot be read, or with a ``skipped`` list append its
    message there, and where that list is :class:`~gedkit.io.common.KeptInPlace` give the
    record's :class:`~gedkit.io.common.Unreadable` (named ``name``) to yield in its place."""
    if skipped is None:
        err.skippable = True  # (Collection.add then names its errors="skip")
        raise err
    skipped.append(str(err))
    return Unreadable(str(err), name) if isinstance(skipped, KeptInPlace) else None


def read_mol(path: Path, node_label: Any, edge_label: Any) -> Iterator[Graph]:
    """Yield the molecule of a MOL file (one: a file of several, ``$$$$`` apart, is SDF)."""
    Chem, rdBase = _chem()
    with open(path, "rb") as f:
        _, sep, rest = f.read().partition(b"$$$$")
    if sep and rest.strip():  # RDKit reads the first and drops the rest without a word
        raise FormatError(f"{path}: a MOL file holds one molecule, this one several ($$$$ "
                          "apart): name it .sdf (or pass ", Words("format='sdf'", "--format sdf"),
                          ") to read them all")
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
