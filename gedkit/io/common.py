"""What every attribute-based reader shares: label picking, the notice of labels left out,
the directed-input policy, and errors that name the file they come from."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeVar

from gedkit.errors import (
    FormatError,
    GedkitError,
    GraphError,
    Option,
    OptionError,
    UnlabelledWarning,
    Words,
    counted,
    warn,
)
from gedkit.graph import Graph, Unnamed, pick_labels
from gedkit.text import quoted

__all__ = ["DEFAULT", "DIRECTED_POLICIES", "DirectedInput", "KeptInPlace", "Unlabelled",
           "Unreadable", "build_graph",
           "check_label_spec", "compressed", "graph_name", "gzip_errors", "inner", "open_text",
           "picked", "undirected_only"]

T = TypeVar("T")


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()
"""Stands for "no label named" in ``node_label``/``edge_label``: the format's own default."""

DIRECTED_POLICIES = ("error", "keep", "ignore")
"""What a reader does with a graph its file says is directed: refuse it (the default: GXL's
default edgemode is directed, and files meant as undirected often leave it out, so a file's
word alone never turns every distance into an arc-by-arc one), read it as a directed graph,
or read every edge without its direction."""


class DirectedInput(GraphError):
    """A graph its file says is directed, read with ``directed="error"`` (the default)."""

    _IGNORE = (" to read each edge without its direction (a pair of opposite edges becomes one "
               "edge labelled by the first of the two)")

    def __init__(self, source: str, name: Any):
        # (in Python, a path given to gedkit.ged, mces or pairwise: they take no directed=,
        # and "pass directed='ignore'" was refused as an unknown option of the method)
        super().__init__(f"{source}: graph {quoted(name)} is directed; ",
                         Words("read it with gedkit.read(path, directed='ignore')",
                               "pass --directed ignore"), self._IGNORE, ", or ",
                         Option("directed", "keep"), " to compare it as a directed graph, arc "
                         "by arc")
        self.source, self.graph_name = source, name

    def __reduce__(self):
        return type(self), (self.source, self.graph_name)

    def undirected_only(self, what: str) -> GraphError:
        """The error where ``what`` (a collection) takes undirected graphs only: keeping the
        directions is no way out there."""
        return GraphError(f"{self.source}: graph {quoted(self.graph_name)} is directed, and {what} "
                          "takes undirected graphs only; ",
                          Words("read the file with gedkit.read_all(..., directed='ignore')",
                                "pass --directed ignore"), self._IGNORE)


@contextmanager
def undirected_only(what: str) -> Iterator[None]:
    """Graphs read inside go to ``what`` (a collection), which takes undirected graphs only: a
    directed one is refused with the way out there is (``directed="ignore"``), not ``keep``."""
    try:
        yield
    except DirectedInput as err:
        raise err.undirected_only(what) from None


def check_label_spec(spec: Any, which: str) -> None:
    """Reject a ``node_label``/``edge_label`` value that is not None, a name or a list of names
    (or :class:`~gedkit.graph.Unnamed`, which stands for "none named")."""
    if spec is None or isinstance(spec, str | Unnamed):
        return
    if isinstance(spec, list | tuple) and spec and all(isinstance(k, str) for k in spec):
        return
    raise OptionError(
        f"{which} must be None, an attribute name, a list of names or '*', got {spec!r}"
    )


class Unlabelled:
    """What one call does with attributes when no label was named, over all its graphs: the
    obvious labels it takes (see :class:`~gedkit.graph.Unnamed`) and the attributes it leaves
    out, told once as a :class:`~gedkit.errors.UnlabelledWarning`.

    >>> notice = Unlabelled()
    >>> node_spec, edge_spec = notice.specs(DEFAULT, DEFAULT)
    >>> g = build_graph([(0, {"atom": "C", "x": 1.0})], [], name=None, source="a.json",
    ...                 node_label=node_spec, edge_label=edge_spec)
    >>> notice.mark("a.json")
    >>> g.node_labels, notice.warning().node_attributes
    ((None,), ('atom', 'x'))
    """

    def __init__(self) -> None:
        # natural labels for files, where a lone attribute is a label; none for NetworkX
        # graphs, whose lone attribute is as often a weight
        self._specs = {natural: (Unnamed(natural), Unnamed(natural)) for natural in (True, False)}
        self._sources: dict[str, None] = {}
        self._count = 0

    def specs(self, node_label: Any, edge_label: Any, node_default: Any = None,
              edge_default: Any = None, *, natural: bool = True) -> tuple[Any, Any]:
        """The label specs to read with: those named, else the defaults, else collectors
        that take the obvious labels (when ``natural`` and the other side's label was not
        named either, or named None: ``--no-edge-label`` left the nodes unlabelled too)."""
        unnamed = (DEFAULT, None)
        nodes = self._specs[natural and edge_label in unnamed][0]
        edges = self._specs[natural and node_label in unnamed][1]
        return _spec(node_label, node_default, nodes), _spec(edge_label, edge_default, edges)

    def taken(self) -> tuple[str | None, str | None]:
        """The node and edge labels taken as the obvious ones (the lone attribute of the first
        elements read), None where none was."""
        return tuple(next((pair[k].label for pair in self._specs.values()
                           if pair[k].label is not None), None) for k in (0, 1))

    def mark(self, source: str) -> None:
        """Note ``source`` as where the graphs read since the last mark came from."""
        count = sum(spec.dropped for pair in self._specs.values() for spec in pair)
        if count > self._count:
            self._sources[source] = None
            self._count = count

    def warning(self, searched: str | None = None) -> UnlabelledWarning | None:
        """The warning to give, or None when no attribute was left out; ``searched``: the
        collection the graphs are queries of (see :class:`~gedkit.errors.UnlabelledWarning`)."""
        if not self._sources:
            return None
        sources = list(self._sources)
        where = ", ".join(sources[:2]) + (f" and {len(sources) - 2} more" if len(sources) > 2
                                           else "")
        nodes = [name for pair in self._specs.values() for name in pair[0].attributes]
        edges = [name for pair in self._specs.values() for name in pair[1].attributes]
        # a side whose lone attribute was taken as its label, others left out beside it
        taken = [label if left else None
                 for label, left in zip(self.taken(), (nodes, edges), strict=True)]
        return UnlabelledWarning(where, list(dict.fromkeys(nodes)), list(dict.fromkeys(edges)),
                                 *taken, searched=searched)

    def warn(self, searched: str | None = None) -> None:
        """Give the warning, if any, attributed to the caller outside gedkit."""
        warning = self.warning(searched)
        if warning is not None:
            warn(warning)


def _spec(given: Any, default: Any, collector: Unnamed) -> Any:
    if given is not DEFAULT:
        return given
    return collector if default is None else default


def path_is(path: str | Path, kind: str = "exists") -> bool:
    """``Path(path).exists()`` (or ``is_file``, ``is_dir``, as ``kind`` says), False where the
    check itself fails: a name too long for the system (a long SMILES string) names no file.

    >>> path_is("C" * 5000), path_is(__file__, "is_file")
    (False, True)
    """
    try:
        return bool(getattr(Path(path), kind)())
    except (OSError, ValueError):  # ENAMETOOLONG, or a NUL byte in the name
        return False


def split_reference(text: str) -> tuple[str, str | None]:
    """The file and the graph id of ``FILE#ID``: a path that exists as written is the file
    (None: no id); else the text before the first ``#`` whose part before names an existing
    file, so that an id may hold ``#`` (``lib.gdb#cmpd#2``) and so may the file's name
    (``h#.gdb#1``); when no such file exists, the text before the last ``#``, so that the
    error names the file meant.

    >>> split_reference("missing.gdb#cmpd#2"), split_reference("CCO")
    (('missing.gdb#cmpd', '2'), ('CCO', None))
    """
    if "#" not in text or path_is(text):
        return text, None
    at = text.find("#")
    while at >= 0:
        if path_is(text[:at], "is_file"):
            return text[:at], text[at + 1:]
        at = text.find("#", at + 1)
    head, _, selector = text.rpartition("#")
    return head, selector


def compressed(path: Path) -> bool:
    """Whether ``path`` names a gzip-compressed file (``.gz``), which the text formats read
    as they read the file it holds."""
    return path.suffix.lower() == ".gz"


def inner(path: Path) -> Path:
    """``path`` without its ``.gz``: the name of the file a compressed one holds (itself when
    not compressed), whose extension says the format.

    >>> inner(Path("lib.smi.gz")).name, inner(Path("lib.smi")).name
    ('lib.smi', 'lib.smi')
    """
    return path.with_suffix("") if compressed(path) else path


def open_text(path: Path, mode: str = "r", errors: str = "strict") -> IO[str]:
    """``path`` opened as UTF-8 text for reading (a byte-order mark skipped) or writing
    (``mode="w"``), through gzip for a ``.gz`` file (what reading a damaged one raises:
    :func:`gzip_errors`): a ``.json.gz`` gedkit wrote as plain text it could not read.
    ``errors="surrogateescape"``: bytes that are not UTF-8 read as lone surrogates (see
    :func:`undecoded`), for readers that leave out a line rather than the file."""
    encoding = "utf-8-sig" if mode == "r" else "utf-8"
    if not compressed(path):
        return open(path, mode, encoding=encoding, errors=errors)
    import gzip

    return gzip.open(path, mode + "t", encoding=encoding, errors=errors)


def undecoded(text: str) -> bool:
    """Whether ``text``, read with ``errors="surrogateescape"``, held bytes that are not
    UTF-8.

    >>> undecoded("CCO ethanol"), undecoded(b"CCO \\xe9".decode("utf-8", "surrogateescape"))
    (False, True)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def gzip_errors() -> tuple[type[BaseException], ...]:
    """What reading a corrupt or truncated ``.gz`` file raises: not gzip at all, a damaged
    stream, an end before the end."""
    import gzip
    import zlib

    return (gzip.BadGzipFile, zlib.error, EOFError)


def picked(items: Iterable[T], name_of: Callable[[T], str | None], selector: str,
           path: Path, unique: bool = False) -> T:
    """The item of ``items`` (a file's graphs, or its records) whose name (``name_of``) is
    ``selector``, or else item number ``selector`` (from 0): ``FILE#ID``; an error naming
    neither when there is none (with the first names, so that a mistyped one can be told
    from a wrong file). ``unique``: the items left are cheap to look through (records, not
    graphs), and a second item of that name is an error (the first was picked silently)."""
    number = int(selector) if selector.isascii() and selector.isdigit() else None
    by_number: list[T] = []
    count, names = 0, []
    try:
        for count, item in enumerate(items, start=1):
            name = name_of(item)
            if name == selector:
                if unique:
                    _only_one(items, name_of, selector, path, count - 1)
                return item
            if count - 1 == number:
                by_number.append(item)
            if name is not None and len(names) < 3:
                names.append(name)
    except _Ambiguous:
        raise
    except GedkitError:
        # a record further on cannot be read: the graph of that number, read already, is
        # the one (SDF#0 failed for a bad third record)
        if not by_number:
            raise
    if not by_number:
        numbers = f" and no graph number {number}" if number is not None else ""
        seen = f"; its names: {', '.join(map(quoted, names))}..." if names else ""
        raise FormatError(f"{path}: no graph named {quoted(selector)}{numbers} (it holds "
                          f"{counted(count, 'graph')}{seen})")
    return by_number[0]


def _only_one(rest: Iterable[T], name_of: Callable[[T], str | None], selector: str,
              path: Path, first: int) -> None:
    """Refuse a second item named ``selector`` among ``rest`` (items ``first + 1..``)."""
    again = next((k for k, other in enumerate(rest, start=first + 1)
                  if name_of(other) == selector), None)
    if again is not None:
        raise _Ambiguous(f"{path}: two graphs are named {quoted(selector)} (numbers {first} and "
                         f"{again}): pick one by its number, {path}#{first}")


class Unreadable(NamedTuple):
    """A record of a file of independent records (SMILES, SDF) that cannot be read, in its
    place among the graphs, with why (``gedkit pairwise``: its pairs fail, the others are
    solved)."""

    reason: str
    name: str | None = None  # the record's title, or the name the file gives it


class KeptInPlace(list):
    """A ``skipped`` list (see :func:`gedkit.io.read_graphs`) whose readers also yield an
    :class:`Unreadable` in place of each record they leave out."""


class _Ambiguous(FormatError):
    """Two graphs of the name a ``FILE#ID`` gives (not a record that cannot be read)."""


def graph_name(path: Path, index: int, several: bool) -> str:
    """The name of the ``index``-th graph of a file whose graphs carry no name (after the
    file, without ``.gz``: ``lib.smi.gz`` names ``lib[3]``)."""
    stem = inner(path).stem
    return f"{stem}[{index}]" if several else stem


def build_graph(
    nodes: Iterable[tuple[Hashable, Mapping[str, Any]]],
    edges: Iterable[tuple[Hashable, Hashable, Mapping[str, Any]]],
    *,
    name: str | None,
    source: Path | str,
    node_label: Any,
    edge_label: Any,
    is_directed: bool = False,
    directed: str = "error",
) -> Graph:
    """A :class:`Graph` from attribute dicts, with every error naming ``source``.

    A directed graph (``is_directed``) is refused with ``directed="error"``, read as a
    directed :class:`Graph` with ``"keep"``, and read as undirected with ``"ignore"``: each
    pair of opposite edges becomes one edge whose label comes from the first of the two in
    file order.
    """
    if is_directed:
        if directed == "error":
            raise DirectedInput(source, name)
        if directed == "ignore":
            edges = _forget_directions(edges)
    # no label named: the attributes decide whether there is an obvious one (see Unnamed)
    if isinstance(node_label, Unnamed):
        nodes = list(nodes)
        node_label.choose([attrs for _, attrs in nodes])
    if isinstance(edge_label, Unnamed):
        edges = list(edges)
        edge_label.choose([attrs for _, _, attrs in edges])
    try:
        nodes, edges = list(nodes), list(edges)
        node_dict: dict[Hashable, Any] = {}
        for node, _ in nodes:
            try:
                repeated = node in node_dict
            except TypeError:
                raise GraphError(f"node id {quoted(node)} is not hashable") from None
            if repeated:
                raise GraphError(f"node id {quoted(node)} appears twice in graph {quoted(name)}")
            node_dict[node] = None
        node_dict = dict(zip(node_dict, pick_labels(
            [attrs for _, attrs in nodes], node_label, lambda k: f"node {quoted(nodes[k][0])}",
            name), strict=True))
        labels = pick_labels([attrs for _, _, attrs in edges], edge_label,
                             lambda k: "edge ({}, {})".format(*map(quoted, edges[k][:2])), name)
        triples = [(u, v, label) for (u, v, _), label in zip(edges, labels, strict=True)]
        return Graph(node_dict, triples, name=name, directed=is_directed and directed == "keep")
    except GraphError as err:
        raise GraphError(f"{source}: ", *err.args) from None


def _forget_directions(edges: Iterable[tuple]) -> list[tuple]:
    kept: list[tuple] = []
    # ordered pairs already kept and not yet matched by their reverse edge
    open_pairs: set[tuple] = set()
    for u, v, attrs in edges:
        if (v, u) in open_pairs:
            open_pairs.discard((v, u))
            continue
        open_pairs.add((u, v))
        kept.append((u, v, attrs))
    return kept
