"""Reading and writing graph files.

=========  ========================  ===============  =====  ==============================
format     extensions                labels (default) write  note
=========  ========================  ===============  =====  ==============================
gxl        .gxl                      None             no     IAM / GREYC / GEDLIB graphs
cxl        .cxl                      None             no     collection of GXL files
gexf       .gexf                     None             no     via NetworkX
graphml    .graphml                  None             no     via NetworkX
json       .json                     None             yes    NetworkX node-link layout
tve        .txt .tve .graph          "label"          yes    ``t # id`` / ``v`` / ``e`` lines
smiles     .smi .smiles              "atom" / "bond"  no     RDKit (optional dependency)
sdf        .sdf                      "atom" / "bond"  no     RDKit
mol        .mol                      "atom" / "bond"  no     RDKit
=========  ========================  ===============  =====  ==============================

``node_label``/``edge_label`` say which attributes form the labels, as in
:meth:`gedkit.Graph.from_networkx`: ``None`` (unlabelled), a name (that attribute's value), a
list of names (a dict of those attributes) or ``"*"`` (a dict of all attributes). Left out,
they take the format's default from the table: attribute formats are read unlabelled unless
asked, t/v/e reads its label column, molecules are labelled by element and bond order. Each
format module documents its details (:mod:`gedkit.io.gxl`, :mod:`gedkit.io.tve`, ...).

Graphs are named by the name stored in the file (t/v/e graph id, JSON ``graph.name``, SMILES
title column, SDF/MOL title line) or else after the file (``aspirin.mol`` -> ``"aspirin"``,
``"aspirin[3]"`` for the fourth graph of a file holding several). GXL graphs are always named
after their file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError, GraphError, OptionError
from gedkit.graph import Graph
from gedkit.io.chem import from_rdkit, from_smiles, read_mol, read_sdf, read_smiles
from gedkit.io.common import DIRECTED_POLICIES, check_label_spec
from gedkit.io.cxl import cxl_entries, read_cxl
from gedkit.io.gxl import read_gxl
from gedkit.io.nodelink import read_json, write_json
from gedkit.io.nxfiles import read_gexf, read_graphml
from gedkit.io.tve import read_tve, write_tve

__all__ = [
    "DEFAULT",
    "cxl_entries",
    "detect_format",
    "formats",
    "from_rdkit",
    "from_smiles",
    "read",
    "read_all",
    "write",
]


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()
"""Stands for "the format's own default" in ``node_label``/``edge_label``."""


@dataclass(frozen=True)
class _Format:
    extensions: tuple[str, ...]
    reader: Callable[..., Iterator[Graph]]
    node_default: str | None = None
    edge_default: str | None = None
    options: tuple[str, ...] = ("directed",)
    writer: Callable[..., None] | None = None


_FORMATS = {
    "gxl": _Format((".gxl",), read_gxl),
    "cxl": _Format((".cxl",), read_cxl, options=("directed", "graph_dir")),
    "gexf": _Format((".gexf",), read_gexf),
    "graphml": _Format((".graphml",), read_graphml),
    "json": _Format((".json",), read_json, writer=write_json),
    "tve": _Format((".txt", ".tve", ".graph"), read_tve, "label", "label", (), write_tve),
    "smiles": _Format((".smi", ".smiles"), read_smiles, "atom", "bond", ()),
    "sdf": _Format((".sdf",), read_sdf, "atom", "bond", ()),
    "mol": _Format((".mol",), read_mol, "atom", "bond", ()),
}


def formats() -> dict[str, tuple[str, ...]]:
    """Every readable format with the file extensions that select it.

    >>> formats()["tve"]
    ('.txt', '.tve', '.graph')
    """
    return {name: fmt.extensions for name, fmt in _FORMATS.items()}


def detect_format(path: str | Path, format: str | None = None) -> str:
    """The format of ``path``: ``format`` when given, else the one its extension selects.

    >>> detect_format("house.GXL"), detect_format("x.dat", format="tve")
    ('gxl', 'tve')
    """
    if format is not None:
        if format not in _FORMATS:
            raise FormatError(f"unknown format {format!r}; known formats: {_known()}")
        return format
    suffix = Path(path).suffix.lower()
    for name, fmt in _FORMATS.items():
        if suffix in fmt.extensions:
            return name
    raise FormatError(
        f"cannot tell the format of {str(path)!r} from its extension {suffix!r}; pass "
        f"format= with one of: {_known()}"
    )


def read(
    path: str | Path,
    node_label: Any = DEFAULT,
    edge_label: Any = DEFAULT,
    format: str | None = None,
    *,
    directed: str = "error",
    graph_dir: str | Path | None = None,
) -> Graph:
    """Read the one graph a file holds.

    Parameters
    ----------
    path : str or Path
        The file; its extension selects the format unless ``format`` is given.
    node_label, edge_label : None, str, list of str or "*"
        Which attributes form the labels (see the module docstring); by default the
        format's own choice.
    format : str, optional
        One of :func:`formats`, overriding the extension.
    directed : {"error", "ignore"}
        What to do with a directed graph: refuse it, or read every edge without its
        direction (a pair of opposite edges becomes one edge, labelled by the first in the
        file). Formats that cannot hold directed graphs (t/v/e, molecules) never need it.
    graph_dir : str or Path, optional
        CXL only: where the listed GXL files are (default: the CXL file's folder).

    Returns
    -------
    Graph

    Raises
    ------
    FormatError
        The file is malformed, or holds no graph or several (use :func:`read_all`).
    GraphError
        The graph is directed, has a self-loop or a repeated edge, or lacks a label attribute.

    Examples
    --------
    >>> import os, tempfile
    >>> g = Graph({0: "C", 1: "O"}, [(0, 1, 2)], name="CO")
    >>> path = os.path.join(tempfile.mkdtemp(), "co.json")
    >>> write(g, path)
    >>> read(path, node_label="label", edge_label="label") == g
    True
    >>> read(path).node_labels
    (None, None)
    """
    graphs = _graphs(path, node_label, edge_label, format, directed, graph_dir)
    try:
        first = next(graphs, None)
        several = first is not None and next(graphs, None) is not None
    finally:
        graphs.close()
    if first is None:
        raise FormatError(f"{path}: the file holds no graph")
    if several:
        raise FormatError(
            f"{path}: the file holds several graphs and gedkit.read returns one; "
            "use gedkit.read_all(path) to get them all"
        )
    return first


def read_all(
    path: str | Path,
    node_label: Any = DEFAULT,
    edge_label: Any = DEFAULT,
    format: str | None = None,
    *,
    directed: str = "error",
    graph_dir: str | Path | None = None,
) -> list[Graph]:
    """Read every graph of a file, in file order (parameters as in :func:`read`).

    A CXL collection yields the GXL files it lists; their classes are available from
    :func:`cxl_entries`.
    """
    return list(_graphs(path, node_label, edge_label, format, directed, graph_dir))


def write(
    graphs: Graph | Iterable[Graph],
    path: str | Path,
    format: str | None = None,
    *,
    node_label: str = "label",
    edge_label: str = "label",
    renumber: bool = False,
) -> None:
    """Write one graph or several as node-link JSON or t/v/e.

    Reading the file back with the same ``node_label``/``edge_label`` gives equal graphs;
    whatever cannot be written faithfully (a label t/v/e cannot spell, a tuple node id in
    JSON...) raises instead.

    Parameters
    ----------
    graphs : Graph or iterable of Graph
        One graph (JSON: one object) or several (JSON: a list).
    path : str or Path
        The file; its extension selects the format unless ``format`` is given.
    format : {"json", "tve"}, optional
        Overrides the extension.
    node_label, edge_label : str
        JSON: the attribute holding each label (omitted when the whole graph is
        unlabelled), or ``"*"`` to store attribute-dict labels as the attributes
        themselves. t/v/e: must be ``"label"``.
    renumber : bool
        t/v/e only: write nodes as ``0..n-1`` in graph order instead of their ids, which
        t/v/e requires to be non-negative integers.
    """
    name = detect_format(path, format)
    writer = _FORMATS[name].writer
    if writer is None:
        writable = ", ".join(k for k, f in _FORMATS.items() if f.writer)
        raise FormatError(f"gedkit cannot write {name} files; it writes: {writable}")
    if renumber and name != "tve":
        raise OptionError("renumber= applies to t/v/e files only")
    single = isinstance(graphs, Graph)
    items = [graphs] if single else list(graphs)
    for g in items:
        if not isinstance(g, Graph):
            raise GraphError(f"write expects gedkit.Graph objects, got {type(g).__name__}")
    if name == "tve":
        writer(items, Path(path), node_label, edge_label, renumber)
    else:
        writer(items, Path(path), node_label, edge_label, single)


def _graphs(path: str | Path, node_label: Any, edge_label: Any, format: str | None,
            directed: str, graph_dir: str | Path | None) -> Iterator[Graph]:
    path = Path(path)
    name = detect_format(path, format)
    fmt = _FORMATS[name]
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    if directed not in DIRECTED_POLICIES:
        raise OptionError(f"directed must be one of {DIRECTED_POLICIES}, got {directed!r}")
    if graph_dir is not None and "graph_dir" not in fmt.options:
        raise OptionError("graph_dir= applies to CXL collections only")
    node_label = fmt.node_default if node_label is DEFAULT else node_label
    edge_label = fmt.edge_default if edge_label is DEFAULT else edge_label
    check_label_spec(node_label, "node_label")
    check_label_spec(edge_label, "edge_label")
    options: dict[str, Any] = {}
    if "directed" in fmt.options:
        options["directed"] = directed
    if "graph_dir" in fmt.options:
        options["graph_dir"] = graph_dir
    return _decoded(fmt.reader(path, node_label, edge_label, **options), path, name)


def _decoded(graphs: Iterator[Graph], path: Path, name: str) -> Iterator[Graph]:
    try:
        yield from graphs
    except UnicodeDecodeError as err:
        raise FormatError(f"{path}: not a {name} file: not UTF-8 text ({err.reason})") from None


def _known() -> str:
    return ", ".join(f"{k} ({' '.join(f.extensions)})" for k, f in _FORMATS.items())
