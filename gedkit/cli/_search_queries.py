"""The queries of ``gedkit search``, read a batch at a time.

A batch of queries (a collection file, a file of several graphs) is read as it is searched,
:data:`BATCH` queries at a time, so that the memory a search holds does not grow with the
number of queries: the 176,000 MOSES test molecules as one batch held 1.1 GB (the graphs and
their answers, ~6 KB a query) until the end, and the 1.58 million of its training set would
have needed ~10 GB.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gedkit.cli._inputs import _cli_words, _is_smiles, _note, _notice, no_graph, tell_skipped
from gedkit.errors import GedkitError, OptionError, counted

if TYPE_CHECKING:  # numpy and the solvers load when the command runs
    from gedkit.graph import Graph
    from gedkit.search import Collection

#: queries searched per call: the answers of a batch are written, then dropped
BATCH = 10_000


class QuerySource:
    """The queries QUERY names, as ``(name, graph)`` pairs read when needed: ``batch`` says
    whether there are several (else the one query is :attr:`first`), ``total`` how many
    when known (a collection file; a file once read to its end), ``read`` how many so far. A
    graph of the file ``unnamed`` without a name is named ``FILE`` when the file holds one
    graph, ``FILE[k]`` when it holds several."""

    def __init__(self, items: Iterator[tuple[Any, Graph]], total: int | None,
                 args: argparse.Namespace, skipped: list[str] | None = None,
                 unnamed: str | None = None):
        self._items, self.total, self._args, self._skipped = items, total, args, skipped
        if unnamed is not None:
            self._items = self._named(items, unnamed)
        self.size = BATCH  # queries a batch
        self.read = 0  # queries read
        self.handed = 0  # queries handed on in batches
        # a bad record (--strict), said once the queries before it are searched
        self._failed: GedkitError | None = None
        self._ahead = self._next(2)  # one query or a batch
        if not self._ahead:
            if self._skipped:  # (every record unreadable)
                raise no_graph(args.query, self._skipped)
            raise GedkitError(f"{args.query}: the "
                              f"{'collection' if total is not None else 'file'} holds no graph")
        # (a bad second record (--strict): a batch, its first query answered before it)
        self.batch = len(self._ahead) > 1 or self._failed is not None
        if not self.batch and unnamed is not None and self._ahead[0][1].name is None:
            self._ahead = [(unnamed, self._ahead[0][1])]

    def _named(self, items: Iterator[tuple[Any, Graph]], text: str
               ) -> Iterator[tuple[Any, Graph]]:
        for k, (name, g) in enumerate(items):
            # (a file's only graph is named FILE instead, once known to be alone: __init__)
            yield name if name is not None else f"{text}[{k}]", g

    @property
    def first(self) -> tuple[Any, Graph]:
        return self._ahead[0]

    def batches(self) -> Iterator[list[tuple[Any, Graph]]]:
        """The queries :attr:`size` at a time, in order (each batch read when asked for:
        reading and searching take turns)."""
        size = self.size
        ahead, self._ahead = self._ahead, []
        while True:
            batch, ahead = ahead[:size], ahead[size:]
            if self._failed is None:
                batch += self._next(size - len(batch), held=len(batch))
            if not batch:
                return
            ended = len(batch) < size and self._failed is None  # the file read to its end:
            if ended and self.total is None:  # the count, for the progress and its pace
                self.total = self.handed + len(batch)
            self.handed += len(batch)
            yield batch
            if self._failed is not None:  # the queries before the bad record searched
                raise self._failed
            if ended:
                return

    def _next(self, count: int, held: int = 0) -> list[tuple[Any, Graph]]:
        """Up to ``count`` more queries, after ``held`` read already for the same batch;
        Ctrl-C before the first batch was searched says how far reading got and that
        nothing was searched (exit status 130)."""
        if self._failed is not None:
            raise self._failed
        got: list[tuple[Any, Graph]] = []
        try:
            got.extend(islice(self._items, count))
        except GedkitError as err:  # (--strict): the queries before it are searched first
            if not (got or held):  # (those read ahead too: a bad third record lost two)
                raise
            self._failed = err
        except KeyboardInterrupt:
            if self.handed:  # answers may have been written: the search's Ctrl-C says so
                raise
            print(f"gedkit: interrupted while reading the queries "
                  f"({counted(self.read + len(got), 'graph')} read): nothing was searched",
                  file=sys.stderr)
            raise SystemExit(130) from None
        finally:
            self.read += len(got)
        if self.read and self.read == len(got):  # the first read: attributes left out
            _note(self._args)
        return got

    def told(self) -> None:
        """Say which records were left out as unreadable (once every query was read)."""
        tell_skipped(self._skipped or [])


def read_queries(text: str, coll: Collection, args: argparse.Namespace) -> QuerySource:
    """The query graphs ``text`` names (a graph file, ``FILE#ID``, a SMILES string or a
    collection file), read with ``coll``'s labels, with their names for the output."""
    from gedkit.inputs import as_graph

    labels = (coll.node_label, coll.edge_label)
    args.searched = args.lib  # (the note on attributes left out advises building it anew)
    found = _collection_file(text)
    if found is not None:
        return _from_collection(*found, labels, args)
    if _is_smiles(text, args):
        from gedkit.search.collection import with_collection_labels

        with _cli_words():
            try:
                graph = as_graph(text, *labels, notice=_notice(args))
            except GedkitError as err:
                raise with_collection_labels(err, labels) from None
        return QuerySource(iter([(graph.name or text, graph)]), 1, args)
    # a molecule of a query file RDKit cannot read is left out, as when building
    skipped: list[str] | None = None if args.strict else []
    return QuerySource(_file_queries(text, labels, args, skipped), None, args, skipped,
                       unnamed=text)


def _file_queries(text: str, labels: tuple, args: argparse.Namespace,
                  skipped: list[str] | None) -> Iterator[tuple[Any, Graph]]:
    """``(name, graph)`` of each graph of the file ``text``, as read (None for a graph
    without a name: :class:`QuerySource` names it by its place)."""
    from gedkit.io import labels_for, read_graphs
    from gedkit.io.common import undirected_only
    from gedkit.search.collection import with_collection_labels

    with _cli_words(), undirected_only("a collection search"):
        try:
            for g in read_graphs(text, _notice(args), *labels_for(text, *labels, args.format),
                                 format=args.format, directed=args.directed or "error",
                                 skipped=skipped):
                yield g.name, g
        except GedkitError as err:
            raise with_collection_labels(err, labels) from None


def _collection_file(text: str) -> tuple[Path, str | None] | None:
    """(file, id) when ``text`` is a collection file or ``FILE#ID`` of one, else None."""
    from gedkit.io.common import split_reference
    from gedkit.io.gdb import is_collection_file

    head, selector = split_reference(text)  # an id may hold '#' (cmpd#2)
    return (Path(head), selector) if is_collection_file(head) else None


def _from_collection(path: Path, selector: str | None, labels: tuple,
                     args: argparse.Namespace) -> QuerySource:
    from gedkit.io.gdb import find_id, incomparable_labels
    from gedkit.search import Collection

    source = Collection.open(path)
    differ = incomparable_labels(labels, (source.node_label, source.edge_label))
    if differ is not None:
        flag, mine, theirs = differ
        source.close()
        raise OptionError(f"{path} was built with {_built_with(theirs, flag)} and the "
                          f"library with {_built_with(mine, flag)}: their graphs are not "
                          "comparable")
    if selector is not None:
        with source:
            graph_id = find_id(source, selector, path)
            return QuerySource(iter([(graph_id, source.get(graph_id))]), 1, args)
    return QuerySource(_closing(source), len(source), args)


def _closing(source: Collection) -> Iterator[tuple[Any, Graph]]:
    """The graphs of the collection ``source``, which is closed once they are read."""
    with source:
        yield from source.items()


def _built_with(label: Any, flag: str) -> str:
    """How a collection's ``flag`` ("node", "edge") labels were chosen, in the command's
    words."""
    if label is None:
        return f"its files' own {flag} labels (no --{flag}-label)"
    return f"--{flag}-label {label_text(label)}"


def label_text(label: Any) -> str:
    """A label option as typed: ``a,b`` for several attributes."""
    return ",".join(map(str, label)) if isinstance(label, list | tuple) else str(label)
