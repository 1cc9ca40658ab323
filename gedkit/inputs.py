"""Whatever the caller holds, as a :class:`~gedkit.Graph`: the one place that decides.

:func:`gedkit.ged`, :func:`gedkit.mces` and :func:`gedkit.pairwise` accept, for each graph:

- a :class:`~gedkit.Graph`, used as it is;
- a NetworkX graph, converted with ``node_label``/``edge_label`` naming the label attributes;
- an RDKit molecule, labelled by element and bond order unless other attributes are named
  (see :mod:`gedkit.io.chem`);
- a path (``str`` or :class:`~pathlib.Path`) of a graph file, read with :func:`gedkit.read`
  (``FILE#ID`` picks one graph of a collection);
- a SMILES string, ``"CCO"`` or ``"smiles:CCO"``.

A string is read as a file when that file exists (``FILE#ID`` included: the file before the
first ``#`` that leaves an existing file before it), as SMILES otherwise (a string too long
to be a file name too); one that is neither gets one error naming both readings.
``"smiles:..."`` is always SMILES, and a :class:`~pathlib.Path` always a file.

``node_label=None`` (the default) means that no label was named: files take their format's
default labels, molecules their element and bond order, and a NetworkX graph or attribute
file whose graphs have attributes is compared unlabelled with one
:class:`~gedkit.errors.UnlabelledWarning` per call saying which attributes it has.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from gedkit.errors import FormatError, GraphError, Note, warn
from gedkit.graph import Graph
from gedkit.io import from_rdkit, from_smiles, read_one
from gedkit.io.common import DEFAULT, Unlabelled, Unreadable, path_is, split_reference
from gedkit.text import quoted

__all__ = ["DEFAULT", "as_graph", "as_graph_read", "as_graphs", "is_one_graph"]

_SMILES = "smiles:"


def as_graph(g: Any, node_label: Any = None, edge_label: Any = None, *,
             notice: Unlabelled | None = None) -> Graph:
    """``g`` as a :class:`~gedkit.Graph` (see the module docstring for what ``g`` may be).

    Parameters
    ----------
    g : Graph, networkx.Graph, rdkit Mol, str or Path
        The graph, a graph file, or a SMILES string.
    node_label, edge_label : None, str, list of str or "*"
        Which attributes form the labels; None: none named (the input's own default).
    notice : gedkit.io.common.Unlabelled, optional
        Collects the attributes left out instead of warning at once, for a caller that
        converts many graphs one by one and then warns once with ``notice.warn()``.

    Returns
    -------
    Graph

    Raises
    ------
    GraphError
        ``g`` is none of the above, or a string that is neither a file nor SMILES.

    Examples
    --------
    >>> as_graph(Graph({0: "C"})).n
    1
    >>> as_graph(42)
    Traceback (most recent call last):
    ...
    gedkit.errors.GraphError: expected a gedkit.Graph, a NetworkX graph, an RDKit molecule, ...
    """
    return as_graph_read(g, _named(node_label), _named(edge_label), notice=notice)


def as_graph_read(g: Any, node_label: Any = DEFAULT, edge_label: Any = DEFAULT, *,
                  notice: Unlabelled | None = None) -> Graph:
    """:func:`as_graph` with the labels named as :func:`gedkit.read` names them: left out,
    the input's own; None, unlabelled (the command line's ``--no-edge-label`` on a SMILES
    argument)."""
    told = Unlabelled() if notice is None else notice
    graph = _convert(g, node_label, edge_label, told)
    if notice is None:
        told.warn()
    return graph


def as_graphs(items: Iterable[Any], node_label: Any = None, edge_label: Any = None, *,
              asked: bool = False) -> list[Graph]:
    """Every item as a :class:`~gedkit.Graph`, as :func:`as_graph` does, with at most one
    :class:`~gedkit.errors.UnlabelledWarning` for them all; ``asked``: the labels are a
    public function's arguments, named by its caller for these items (see
    :func:`labels_kept`).

    >>> [g.n for g in as_graphs([Graph([0, 1]), Graph([0])])]
    [2, 1]
    """
    items = list(items)
    if asked:
        labels_kept(items, node_label, edge_label)
    if all(type(g) is Graph for g in items):  # nothing to convert (most calls in a loop)
        graphs = items
    else:
        notice = Unlabelled()
        graphs = [as_graph(g, node_label, edge_label, notice=notice) for g in items]
        notice.warn()
    if asked:
        alike_labels(graphs)
    return graphs


def alike_labels(graphs: list[Graph]) -> None:
    """Say once where two labels of the graphs print alike but are different values (the
    text ``"1.5"`` and the number 1.5): they cost as a substitution, and nothing showed why
    a molecule written to GEXF, whose labels are text, and read back was 7 edits from
    itself. Reads each graph's cached distinct labels (a few per molecule)."""
    for kind in ("node", "edge"):
        # (in the graphs' order: the first graph's label named first)
        distinct = dict.fromkeys(x for g in graphs for x in g.label_codes(kind)[1])
        if len({type(x) for x in distinct}) < 2:
            continue  # (labels of one type never print alike unless equal)
        by_text: dict[str, Any] = {}
        for x in distinct:
            other = by_text.setdefault(str(x), x)
            if other is not x and other != x:
                warn(Note(f"{kind} labels {quoted(other)} and {quoted(x)} print alike but are "
                          f"different labels ({type(other).__name__} and {type(x).__name__}): they "
                          "count as a substitution; read the graphs alike (a GEXF file "
                          "keeps its labels as text)"))
                return


def labels_kept(items: Iterable[Any], node_label: Any, edge_label: Any) -> None:
    """Say once that the labels a caller named (None: none) leave its :class:`~gedkit.Graph`
    inputs as they are (``ged(g, h, node_label="atom")`` on graphs read with all attributes
    compared them by all attributes, without a word): for the public functions, whose
    callers name labels for their own inputs (a search reads its queries with the
    collection's, Graphs or not, and says nothing)."""
    named = [f"{what}={spec!r}" for what, spec in (("node_label", node_label),
                                                 ("edge_label", edge_label))
             if spec is not None]
    kept = sum(isinstance(g, Graph) for g in items) if named else 0
    if kept:
        # (the command line reads files: never a Graph, so no words of its own)
        warn(Note(f"{' and '.join(named)} name{'s' if len(named) == 1 else ''} attributes "
                  "of NetworkX graphs, files and "
                  "molecules; " + ("a gedkit.Graph keeps the labels it was built with"
                                   if kept == 1 else f"{kept} gedkit.Graph inputs keep the "
                                   "labels they were built with") + " (build them with these "
                  "labels: Graph.from_networkx(..., node_label=...) or gedkit.read(..., "
                  "node_label=...))"))


def _named(spec: Any) -> Any:
    """None, as this module's callers pass it, means "none named"."""
    return DEFAULT if spec is None else spec


def _convert(g: Any, node_label: Any, edge_label: Any, notice: Unlabelled) -> Graph:
    if isinstance(g, Graph):
        return g
    if isinstance(g, os.PathLike):
        return read_one(g, notice, node_label, edge_label)
    if isinstance(g, str):
        return _from_text(g, node_label, edge_label, notice)
    if _is_networkx(g):
        graph = Graph.from_networkx(g, *notice.specs(node_label, edge_label, natural=False))
        notice.mark("NetworkX input")
        return graph
    if _is_molecule(g):
        return from_rdkit(g, *_molecule_labels(node_label, edge_label))
    if isinstance(g, Unreadable):  # a file's record that cannot be read, in its place
        raise FormatError(g.reason)
    raise GraphError(
        "expected a gedkit.Graph, a NetworkX graph, an RDKit molecule, a SMILES string or "
        f"the path of a graph file, got {type(g).__name__}"
    )


def is_one_graph(value: Any) -> bool:
    """Whether :func:`as_graph` takes ``value`` as one graph (a caller taking one graph or
    several tells them apart by it: a NetworkX graph iterates as its nodes).

    >>> is_one_graph("CCO"), is_one_graph(["CCO", "CCN"])
    (True, False)
    """
    return (isinstance(value, Graph | str | os.PathLike) or _is_networkx(value)
            or _is_molecule(value))


def _is_networkx(value: Any) -> bool:
    return hasattr(value, "is_directed") and hasattr(value, "nodes")


def _is_molecule(value: Any) -> bool:
    return type(value).__module__.startswith("rdkit") and hasattr(value, "GetAtoms")


def _from_text(text: str, node_label: Any, edge_label: Any, notice: Unlabelled) -> Graph:
    if text.startswith(_SMILES):
        smiles = text[len(_SMILES):]
        if not smiles.strip():  # RDKit reads "" as a molecule of no atom
            raise GraphError(f"{quoted(text)}: no SMILES string after 'smiles:'")
        return from_smiles(smiles, *_molecule_labels(node_label, edge_label), name=smiles)
    if is_file_reference(text):
        return read_one(text, notice, node_label, edge_label)
    # only what RDKit cannot parse may be a mistyped file name: a SMILES string read with a
    # label attribute its atoms lack says just that (it was "neither an existing file nor a
    # SMILES string", pointing away from the real mistake)
    try:
        return from_smiles(text, *_molecule_labels(node_label, edge_label), name=text)
    except FormatError as err:
        raise GraphError(f"{quoted(text, end=True)} is neither an existing file nor a SMILES "
                         f"string: {err}") from None


def is_file_reference(text: str) -> bool:
    """Whether ``text`` names an existing file, or one graph ``FILE#ID`` of one.

    >>> is_file_reference(__file__), is_file_reference(__file__ + "#0"), is_file_reference("C#N")
    (True, True, False)
    """
    file, selector = split_reference(text)
    # a failed check (a name too long for the system) means no file: the text is SMILES
    return path_is(file) if selector is None else path_is(file, "is_file")


def _molecule_labels(node_label: Any, edge_label: Any) -> tuple[Any, Any]:
    return ("atom" if node_label is DEFAULT else node_label,
            "bond" if edge_label is DEFAULT else edge_label)
