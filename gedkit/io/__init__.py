"""Reading and writing graph files.

=========  ========================  ===============  =====  ==============================
format     extensions                labels (default) write  note
=========  ========================  ===============  =====  ==============================
gxl        .gxl                      lone attribute   no     IAM / GREYC / GEDLIB graphs
cxl        .cxl                      lone attribute   no     collection of GXL files
gexf       .gexf                     lone attribute   no     via NetworkX
graphml    .graphml                  lone attribute   no     via NetworkX
json       .json                     lone attribute   yes    NetworkX node-link layout
tve        .txt .tve .graph          "label"          yes    ``t # id`` / ``v`` / ``e`` lines
smiles     .smi .smiles              "atom" / "bond"  no     RDKit (optional dependency)
csv        .csv .tsv                 "atom" / "bond"  no     RDKit; a table with a SMILES column
sdf        .sdf                      "atom" / "bond"  no     RDKit
mol        .mol                      "atom" / "bond"  no     RDKit
gdb        .gdb                      as stored        no     a gedkit.Collection file
=========  ========================  ===============  =====  ==============================

JSON, t/v/e, SMILES, CSV/TSV and SDF files are also read gzip-compressed, their extension
followed by ``.gz`` (``train.csv.gz``, ``library.sdf.gz``).

``node_label``/``edge_label`` say which attributes form the labels, as in
:meth:`gedkit.Graph.from_networkx`: ``None`` (unlabelled), a name (that attribute's value), a
list of names (a dict of those attributes) or ``"*"`` (a dict of all attributes). Left out,
they take the format's default from the table. t/v/e reads its label column, molecules are
labelled by element and bond order. The attribute formats have no label that every file
agrees on (IAM alone stores ``symbol``, ``chem``, ``x``/``y``, ``type``... depending on the
collection), so when neither label is named the attributes decide, for nodes and for edges
apart: if the nodes (edges) of the first graph that has any each carry the one same
attribute, it is the label (the ``label`` attribute of files :func:`write` wrote, the
``type`` of AIDS700nef, the ``chem`` of IAM Mutagenicity); otherwise they are read
unlabelled, and one :class:`~gedkit.errors.UnlabelledWarning` per call names the attributes
left out. Naming one label turns this off: the other side is then read unlabelled, with the
warning if it has attributes, unless it is named ``None`` too. Each format module documents
its details (:mod:`gedkit.io.gxl`, :mod:`gedkit.io.tve`, ...).

``FILE#ID`` reads the graph named ``ID`` of a file holding several, or else, when ``ID`` is a
whole number, graph number ``ID`` counting from 0 (in a collection file whose ids include
numbers, the id ``ID`` only); a path that exists as written is read as
written, and ``FILE`` is the text before the first ``#`` that leaves an existing file before
it (so an ID may hold ``#``). Graphs are named by the name stored in the file (t/v/e graph
id, JSON ``graph.name``, SMILES title column, SDF/MOL title line) or else after the file
(``aspirin.mol`` -> ``"aspirin"``, ``"aspirin[3]"`` for the fourth graph of a file holding
several). GXL graphs are always named after their file.

Whatever the file, a malformed one raises a :class:`~gedkit.errors.FormatError` or
:class:`~gedkit.errors.GraphError` naming it, never another exception, and no XML reader
reads anything through an XML entity (see :mod:`gedkit.io.xmlparse`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError, Option, OptionError, Words, did_you_mean
from gedkit.graph import Graph
from gedkit.io.chem import (
    from_rdkit,
    from_smiles,
    read_mol,
    read_sdf,
    read_smiles,
    read_smiles_table,
)
from gedkit.io.common import (
    DEFAULT,
    DIRECTED_POLICIES,
    Unlabelled,
    check_label_spec,
    compressed,
    gzip_errors,
    inner,
    path_is,
    picked,
    split_reference,
)
from gedkit.io.cxl import cxl_entries, read_cxl
from gedkit.io.gdb import read_gdb
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


@dataclass(frozen=True)
class _Format:
    extensions: tuple[str, ...]
    reader: Callable[..., Iterator[Graph]]
    node_default: str | None = None
    edge_default: str | None = None
    options: tuple[str, ...] = ("directed",)
    writer: Callable[..., None] | None = None
    #: graphs come labelled as stored: node_label/edge_label are checked, not applied
    stored_labels: bool = False
    #: also read gzip-compressed (the extension followed by .gz)
    gzip: bool = False
    #: labels without attribute names (one unnamed column): they are whatever a caller calls
    #: its labels
    unnamed: bool = False


_FORMATS = {
    "gxl": _Format((".gxl",), read_gxl),
    "cxl": _Format((".cxl",), read_cxl, options=("directed", "graph_dir", "select")),
    "gexf": _Format((".gexf",), read_gexf),
    "graphml": _Format((".graphml",), read_graphml),
    "json": _Format((".json",), read_json, writer=write_json, gzip=True),
    "tve": _Format((".txt", ".tve", ".graph"), read_tve, "label", "label", (), write_tve,
                   gzip=True, unnamed=True),
    "smiles": _Format((".smi", ".smiles"), read_smiles, "atom", "bond",
                      ("skipped", "select", "jobs"), gzip=True),
    "csv": _Format((".csv", ".tsv"), read_smiles_table, "atom", "bond",
                   ("skipped", "select", "jobs"), gzip=True),
    "sdf": _Format((".sdf",), read_sdf, "atom", "bond", ("skipped",), gzip=True),
    "mol": _Format((".mol",), read_mol, "atom", "bond", ()),
    "gdb": _Format((".gdb",), read_gdb, options=("select",), stored_labels=True),
}


def formats() -> dict[str, tuple[str, ...]]:
    """Every readable format with the file extensions that select it.

    >>> formats()["tve"]
    ('.txt', '.tve', '.graph')
    """
    return {name: fmt.extensions for name, fmt in _FORMATS.items()}


def detect_format(path: str | Path, format: str | None = None) -> str:
    """The format of ``path``: ``format`` when given, else the one its extension selects
    (``.gz`` after it: read gzip-compressed, for the formats that allow it).

    >>> detect_format("house.GXL"), detect_format("x.dat", format="tve")
    ('gxl', 'tve')
    >>> detect_format("train.csv.gz")
    'csv'
    """
    if format is not None:
        if format not in _FORMATS:
            raise FormatError(f"unknown format {format!r}{did_you_mean(format, list(_FORMATS))}; "
                              f"known formats: {_known()}")
        if compressed(Path(path)):
            _check_gzip(Path(path), format)
        return format
    path = Path(path)
    suffix = inner(path).suffix.lower()  # lib.smi.gz: .smi
    for name, fmt in _FORMATS.items():
        if suffix in fmt.extensions:
            if compressed(path):
                _check_gzip(path, name)
            return name
    shown = suffix + ".gz" if compressed(path) else suffix
    # a bare word is read as a file when one of that name exists: the SMILES string it may
    # have meant is one prefix away
    meant = (f" (for the SMILES string {path.name!r}, write 'smiles:{path.name}')"
             if not suffix and str(path) == path.name else "")
    raise FormatError(
        f"cannot tell the format of {str(path)!r} from its extension {shown!r}; pass ",
        Option("format"), f" with one of: {_known()}{meant}"
    )


def _check_gzip(path: Path, name: str) -> None:
    """Refuse a gzip-compressed ``path`` of a format not read compressed."""
    if not _FORMATS[name].gzip:
        readable = ", ".join(k for k, f in _FORMATS.items() if f.gzip)
        raise FormatError(f"{path}: gedkit reads {name} files uncompressed only (.gz: "
                          f"{readable}); decompress it first, e.g. with gunzip")


def read(
    path: str | Path,
    node_label: Any = DEFAULT,
    edge_label: Any = DEFAULT,
    format: str | None = None,
    *,
    directed: str = "error",
    graph_dir: str | Path | None = None,
) -> Graph:
    """Read the one graph a file holds, or one graph of a collection as ``FILE#ID``.

    Parameters
    ----------
    path : str or Path
        The file; its extension selects the format unless ``format`` is given.
        ``FILE#ID`` picks the graph named ``ID`` of a file holding several (GXL graphs of a
        CXL collection are named after their file: ``letters.cxl#AP1_0000``), or, when
        ``ID`` is a whole number naming no graph, graph number ``ID`` counting from 0 (not
        in a collection file whose ids include numbers: there it is the id alone). A
        path that exists as written is read as written, ``#`` included.
    node_label, edge_label : None, str, list of str or "*"
        Which attributes form the labels (see the module docstring); by default the
        format's own choice.
    format : str, optional
        One of :func:`gedkit.io.formats`, overriding the extension.
    directed : {"error", "keep", "ignore"}
        What to do with a graph the file says is directed: refuse it (the default, since
        GXL's default edgemode is directed and files meant as undirected often omit it),
        read it as a directed :class:`Graph` (``"keep"``: arcs, compared arc by arc), or read
        every edge without its direction (``"ignore"``: a pair of opposite edges becomes one
        edge, labelled by the first in the file). Formats that cannot hold directed graphs
        (t/v/e, molecules) never need it; NetworkX ``DiGraph`` objects are directed graphs
        without asking.
    graph_dir : str or Path, optional
        CXL only: where the listed GXL files are (default: the CXL file's folder).

    Returns
    -------
    Graph

    Raises
    ------
    FormatError
        The file is malformed, or holds no graph or several (use :func:`read_all`), or no
        graph ``ID``.
    GraphError
        The graph is directed (with ``directed="error"``), has a repeated edge, or lacks a
        label attribute.

    Warns
    -----
    UnlabelledWarning
        No label was named and the graph has attributes that are not an obvious label (see
        the module docstring): they are left out.

    Examples
    --------
    >>> import os, tempfile
    >>> g = Graph({0: "C", 1: "O"}, [(0, 1, 2)], name="CO")
    >>> h = Graph({0: "N"}, name="N")
    >>> folder = tempfile.mkdtemp()
    >>> write(g, os.path.join(folder, "co.json"))
    >>> read(os.path.join(folder, "co.json"), node_label="label", edge_label="label") == g
    True
    >>> read(os.path.join(folder, "co.json")) == g  # the lone attribute, "label", is the label
    True
    >>> read(os.path.join(folder, "co.json"), node_label=None, edge_label=None).node_labels
    (None, None)
    >>> write([g, h], os.path.join(folder, "two.txt"))
    >>> read(os.path.join(folder, "two.txt#N")) == h == read(os.path.join(folder, "two.txt#1"))
    True
    """
    notice = Unlabelled()
    graph = read_one(path, notice, node_label, edge_label, format, directed=directed,
                     graph_dir=graph_dir)
    notice.warn()
    return graph


def read_all(
    path: str | Path,
    node_label: Any = DEFAULT,
    edge_label: Any = DEFAULT,
    format: str | None = None,
    *,
    directed: str = "error",
    graph_dir: str | Path | None = None,
    n_jobs: int | None = None,
    errors: str = "raise",
) -> list[Graph]:
    """Read every graph of a file, in file order (parameters as in :func:`read`;
    ``FILE#ID`` gives a list of that one graph).

    A CXL collection yields the GXL files it lists; their classes are available from
    :func:`cxl_entries`. ``n_jobs``: worker processes that parse the molecules of a SMILES
    file or table (-1: every core; default: this process; as with any worker processes, a
    script's own code must be under ``if __name__ == "__main__":``); other formats are read
    in this process. ``errors="skip"`` leaves out the SMILES and SDF records RDKit cannot
    read and says how many in one :class:`~gedkit.errors.SkippedWarning` (RDKit's own NCI
    file has eight); other formats' errors always raise.
    """
    from gedkit.errors import skipped_note, warn
    from gedkit.workers import resolve_jobs

    if errors not in ("raise", "skip"):
        raise OptionError(f"errors must be 'raise' or 'skip', got {errors!r}")
    notice = Unlabelled()
    skipped: list[str] | None = [] if errors == "skip" else None
    graphs = list(read_graphs(path, notice, node_label, edge_label, format, directed=directed,
                              graph_dir=graph_dir, skipped=skipped, jobs=resolve_jobs(n_jobs)))
    notice.warn()
    if skipped:
        warn(skipped_note(skipped))
    return graphs


def read_one(path: str | Path, notice: Unlabelled, node_label: Any = DEFAULT,
             edge_label: Any = DEFAULT, format: str | None = None, *, directed: str = "error",
             graph_dir: str | Path | None = None) -> Graph:
    """:func:`read`, with the attributes left out told to ``notice`` instead of warned about
    (for callers that read several files in one call, like :func:`gedkit.ged`)."""
    graphs = read_graphs(path, notice, node_label, edge_label, format, directed=directed,
                         graph_dir=graph_dir)
    try:
        first = next(graphs, None)
        several = first is not None and next(graphs, None) is not None
    finally:
        graphs.close()
    if first is None:
        raise FormatError(f"{path}: the file holds no graph")
    if several:
        raise FormatError(
            f"{path}: the file holds several graphs and ",
            Words("gedkit.read returns one; use gedkit.read_all(path) to get them all, or "
                  "pick one", "one is wanted here; pick one"),
            f" as '{path}#ID' (by name) or '{path}#N' (by number, from 0)",
        )
    return first


def read_graphs(path: str | Path, notice: Unlabelled, node_label: Any = DEFAULT,
                edge_label: Any = DEFAULT, format: str | None = None, *,
                directed: str = "error", graph_dir: str | Path | None = None,
                skipped: list | None = None, jobs: int = 1) -> Iterator[Graph]:
    """The graphs of ``path`` (or of ``FILE#ID``) as :func:`read_all` reads them, one at a
    time, with the attributes left out told to ``notice``. With a ``skipped`` list, formats
    of independent records (SMILES, SDF) leave out a record that cannot be read and append its
    error message there; other formats raise as always. ``jobs``: worker processes that parse
    the molecules of SMILES files and tables (other formats are read here)."""
    _check_path(path, "read")
    file, selector = _locate(path)
    name = detect_format(file, format)
    fmt = _FORMATS[name]
    if not file.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    if directed not in DIRECTED_POLICIES:
        raise OptionError(f"directed must be one of {DIRECTED_POLICIES}, got {directed!r}")
    if graph_dir is not None and "graph_dir" not in fmt.options:
        raise OptionError(Option("graph_dir"), " applies to CXL collections only")
    if not fmt.stored_labels:
        node_label, edge_label = notice.specs(node_label, edge_label, fmt.node_default,
                                              fmt.edge_default)
        check_label_spec(node_label, "node_label")
        check_label_spec(edge_label, "edge_label")
    options: dict[str, Any] = {}
    if "select" in fmt.options and selector is not None:
        options["select"], selector = selector, None  # the reader looks it up
    if "directed" in fmt.options:
        options["directed"] = directed
    if "graph_dir" in fmt.options:
        options["graph_dir"] = graph_dir
    if "skipped" in fmt.options and skipped is not None:
        options["skipped"] = skipped
    if "jobs" in fmt.options and jobs > 1:
        options["jobs"] = jobs
    graphs = _decoded(fmt.reader(file, node_label, edge_label, **options), file, name, notice)
    return graphs if selector is None else _select(graphs, selector, file)


def parses_in_parallel(path: str | Path) -> bool:
    """Whether the format of the file ``path`` (or ``FILE#ID``) is read by worker processes
    with ``jobs=`` (SMILES files and tables); False when it cannot tell.

    >>> parses_in_parallel("lib.smi"), parses_in_parallel("lib.sdf")
    (True, False)
    """
    return format_takes(path, "jobs")


def format_takes(path: str | Path, option: str, format: str | None = None) -> bool:
    """Whether the reader of the file ``path`` (or ``FILE#ID``; ``format`` when given) takes
    the reading option ``option`` (``graph_dir``: CXL collections); False when it cannot
    tell.

    >>> format_takes("train.cxl#3", "graph_dir"), format_takes("a.gxl", "graph_dir")
    (True, False)
    """
    try:
        return option in _FORMATS[detect_format(_locate(path)[0], format)].options
    except (FormatError, OptionError):
        return False


def unnamed_labels(path: str | Path, format: str | None = None) -> bool:
    """Whether the format of the file ``path`` (or ``FILE#ID``; ``format`` when given) has
    labels without attribute names (t/v/e: one label column), which are whatever a caller
    calls its labels.

    >>> unnamed_labels("queries.txt"), unnamed_labels("q.smi"), unnamed_labels("q.txt", "smiles")
    (True, False, False)
    """
    try:
        return _FORMATS[detect_format(_locate(path)[0], format)].unnamed
    except (FormatError, OptionError):
        return False  # reading it says what is wrong


def labels_for(path: str | Path, node_label: Any, edge_label: Any,
               format: str | None = None) -> tuple[Any, Any]:
    """The label specs to read the file ``path`` with (as :func:`read_graphs` takes them)
    where graphs read with ``node_label``/``edge_label`` (None: none named) are expected, as
    a collection's graphs and queries are: those, or the format's own (:data:`DEFAULT`) where
    they are not named or the format's labels have no names (:func:`unnamed_labels`).

    >>> labels_for("queries.txt", "atom", "kekule") == (DEFAULT, DEFAULT)
    True
    >>> labels_for("q.smi", "atom", None) == ("atom", DEFAULT)
    True
    """
    if unnamed_labels(path, format):
        return DEFAULT, DEFAULT
    return (DEFAULT if node_label is None else node_label,
            DEFAULT if edge_label is None else edge_label)


def _locate(path: str | Path) -> tuple[Path, str | None]:
    """The file and the graph selector of ``FILE#ID``; a path that exists wins (see
    :func:`~gedkit.io.common.split_reference`)."""
    text = str(path)
    if not text.strip():
        raise OptionError("an empty name is no graph file (give a file, FILE#ID, or a SMILES "
                          "string)")
    if path_is(path, "is_dir"):
        raise OptionError(f"{text} is a folder, not a graph file")
    file, selector = split_reference(text)
    if selector is None:
        return Path(path), None
    if not selector:
        raise OptionError(f"{text}: nothing after '#'; write FILE#ID or FILE#N to pick a graph")
    return Path(file), selector


def _select(graphs: Iterator[Graph], selector: str, path: Path) -> Iterator[Graph]:
    """The graph named ``selector``, or else graph number ``selector``."""
    try:
        yield picked(graphs, lambda g: g.name, selector, path)
    finally:
        graphs.close()


def write(
    graphs: Any,
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
        One graph (JSON: one object) or several (JSON: a list); a NetworkX graph, an RDKit
        molecule or a SMILES string stands for one, as in :func:`gedkit.ged`.
    path : str or Path
        The file; its extension selects the format unless ``format`` is given.
    format : {"json", "tve"}, optional
        Overrides the extension.
    node_label, edge_label : str
        JSON: the attribute holding each label (null where a node or edge is
        unlabelled), or ``"*"`` to store attribute-dict labels as the attributes
        themselves. t/v/e: must be ``"label"``.
    renumber : bool
        t/v/e only: write nodes as ``0..n-1`` in graph order instead of their ids, which
        t/v/e requires to be non-negative integers.
    """
    _check_path(path, "write")
    name = detect_format(path, format)
    writer = _FORMATS[name].writer
    if writer is None:
        writable = ", ".join(k for k, f in _FORMATS.items() if f.writer)
        raise FormatError(f"gedkit cannot write {name} files; it writes: {writable}")
    if renumber and name != "tve":
        raise OptionError("renumber= applies to t/v/e files only")
    from gedkit.inputs import as_graphs, is_one_graph

    # one graph as every entry point takes one (a NetworkX graph, a molecule, a SMILES
    # string): a NetworkX graph was iterated as its nodes, "expects gedkit.Graph objects,
    # got int"
    single = is_one_graph(graphs)
    items = as_graphs([graphs] if single else list(graphs))
    if name == "tve":
        writer(items, Path(path), node_label, edge_label, renumber)
    else:
        writer(items, Path(path), node_label, edge_label, single)


def _check_path(path: Any, what: str) -> None:
    """A one-line error where ``path`` is no file path (a graph object given to ``read``
    raised pathlib's TypeError)."""
    if isinstance(path, str | os.PathLike):
        return
    hint = ("" if what != "read" or isinstance(path, int | float | bytes) else
            "; a graph object needs no reading: gedkit.ged and the others take it as it is "
            "(gedkit.Graph.from_networkx converts a NetworkX graph)")
    raise OptionError(f"{what} takes a file path (str or Path), got {type(path).__name__}"
                      f"{hint}")


def _decoded(graphs: Iterator[Graph], path: Path, name: str,
             notice: Unlabelled) -> Iterator[Graph]:
    try:
        for g in graphs:
            notice.mark(str(path))
            yield g
    except UnicodeDecodeError as err:
        raise FormatError(f"{path}: not a {name} file: not UTF-8 text ({err.reason})") from None
    except gzip_errors() as err:  # (evaluated only when something is raised)
        if not compressed(path):
            raise
        raise FormatError(f"{path}: not a readable gzip file ({err})") from None


def _known() -> str:
    return ", ".join(f"{k} ({' '.join(f.extensions)})" for k, f in _FORMATS.items())
