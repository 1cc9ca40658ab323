"""Reading a gedkit collection file (``.gdb``, :class:`gedkit.Collection`) as a graph file.

A collection's graphs come labelled as they were read when it was built (the labels it
records); a ``node_label``/``edge_label`` other than those is an error, not a re-reading. Each
graph is named by its id in the collection, so ``LIB.gdb#ID`` picks the graph with that id
(looked up, not scanned for: a collection may hold millions), or else, in a collection whose
ids are all names, graph number ``ID``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError, OptionError
from gedkit.graph import Graph
from gedkit.io.common import DEFAULT
from gedkit.text import quoted

__all__ = ["find_id", "incomparable_labels", "is_collection_file", "label_spec", "read_gdb"]

#: the first bytes of every SQLite file (a collection file need not end in .gdb)
_SQLITE = b"SQLite format 3\x00"


def read_gdb(path: str | Path, node_label: Any = DEFAULT, edge_label: Any = DEFAULT,
             select: str | None = None) -> Iterator[Graph]:
    """The graphs of the collection file ``path`` in insertion order, each named by its id
    (``select``: the one graph of that id, or else of that number from 0)."""
    from gedkit.search import Collection

    with Collection.open(path) as coll:
        for given, stored, what in ((node_label, coll.node_label, "node_label"),
                                    (edge_label, coll.edge_label, "edge_label")):
            # (None: read unlabelled, which any stored labels allow)
            if given not in (DEFAULT, None) and label_spec(given) != label_spec(stored):
                raise OptionError(
                    f"{path}: its graphs were read with {what}={stored!r} when the collection "
                    f"was built; they cannot be read again with {what}={given!r}")
        # the labels a caller reads as None are left out (--no-node-label was ignored here)
        drop = (node_label is None, edge_label is None)
        if select is None:
            for graph_id, g in coll.items():
                yield _named(g, graph_id, *drop)
            return
        graph_id = find_id(coll, select, path)
        yield _named(coll.get(graph_id), graph_id, *drop)


def find_id(coll: Any, select: str, path: str | Path) -> Any:
    """The id ``select`` (a ``FILE#ID`` selector) stands for in the collection ``coll``:
    itself, the whole number it spells, or, in a collection whose ids are all names, the id
    of graph number ``select``; else a one-line error naming ``path``. (Where ids include
    numbers, a number not among them is no graph's: after a removal, graph number 1 of ids
    0, 2, 3 is id 2, which ``#1`` silently picked.)"""
    if select in coll:
        return select
    number = int(select) if select.isascii() and select.isdigit() else None
    if number is not None and number in coll:
        return number
    if number is None:
        raise FormatError(f"{path}: no graph with id {quoted(select)}")
    ids = coll.ids
    if any(isinstance(graph_id, int) for graph_id in ids):
        raise FormatError(f"{path}: no graph with id {number} (its ids include numbers, so "
                          f"#{number} means id {number}, not graph number {number}; it holds "
                          f"{len(coll):,} graphs)")
    if number < len(ids):
        return ids[number]
    raise FormatError(f"{path}: no graph with id {quoted(select)} and no graph number {number} "
                      f"(it holds {len(coll)})")


def _named(g: Graph, graph_id: Any, no_node_labels: bool = False,
           no_edge_labels: bool = False) -> Graph:
    """``g`` named by its id, without its node or edge labels where asked."""
    if no_node_labels or no_edge_labels:
        g = Graph(dict(zip(g.ids, (None,) * g.n if no_node_labels else g.node_labels,
                           strict=True)),
                  [(g.ids[a], g.ids[b], None if no_edge_labels else label) for (a, b), label
                   in zip(g.edges.tolist(), g.edge_labels, strict=True)])
    g.name = str(graph_id)  # a graph freshly decoded from the file: this call's own object
    return g


def label_spec(value: Any) -> Any:
    """A label spec in a form that compares equal however it was spelled (list or tuple)."""
    return tuple(value) if isinstance(value, list | tuple) else value


def incomparable_labels(mine: tuple, theirs: tuple) -> tuple[str, Any, Any] | None:
    """The first kind (``"node"``, ``"edge"``) whose label attributes differ between two
    collections' ``(node_label, edge_label)``, with both (``mine``'s, then ``theirs``);
    None when their graphs are comparable. One built with its format's own labels (None)
    and one with an attribute named are not: Kekulé bonds queried against aromatic ones
    found a molecule's own twin 7 edits away, "certified".

    >>> incomparable_labels(("symbol", ["valence"]), ("symbol", ("valence",)))
    >>> incomparable_labels(("symbol", None), ("symbol", "valence"))
    ('edge', None, 'valence')
    """
    for kind, a, b in zip(("node", "edge"), mine, theirs, strict=True):
        if label_spec(a) != label_spec(b):
            return kind, a, b
    return None


def is_collection_file(path: str | Path) -> bool:
    """Whether ``path`` is a collection file: an existing file named ``.gdb``, or any
    SQLite file (what else a collection may be called)."""
    from gedkit.io.common import path_is

    path = Path(path)
    if not path_is(path, "is_file"):
        return False
    if path.suffix.lower() == ".gdb":
        return True
    try:
        with open(path, "rb") as f:
            return f.read(len(_SQLITE)) == _SQLITE
    except OSError:
        return False
