"""The ``t/v/e`` text format of exact-GED research code (one or many graphs per file).

::

    t # 0          a graph starts; its id (here "0") becomes Graph.name ("t 0" also works)
    v 0 C          node 0 with label C (the label may be left out: unlabelled node)
    v 1 O
    e 0 1 2        edge between nodes 0 and 1 with label 2 (the label may be left out)
    t # -1         optional end marker; nothing but blank lines may follow it

Node ids are non-negative integers, unique within a graph, and a node's ``v`` line comes before
the edges that use it. A label is one whitespace-free token, read as an ``int`` or ``float``
when it is written like one and as a string otherwise. Blank lines and lines starting with
``#`` are skipped. The format has no attribute names: ``node_label``/``edge_label`` may be
``"label"`` (the label column, the default) or ``None`` (ignore it).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError, GraphError, Option, OptionError, Words
from gedkit.graph import Graph, refuse_directed
from gedkit.io.common import open_text
from gedkit.text import MESSAGE_WIDTH, clipped, quoted

__all__ = ["read_tve", "write_tve"]

_ID = re.compile(r"[0-9]+")
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?")


def check_spec(spec: Any, which: str) -> None:
    """Only ``"label"`` and ``None`` mean something for a format without attribute names."""
    if spec not in ("label", None):
        raise OptionError(
            "t/v/e files have one unnamed label column: ",
            Words(f"{which} must be 'label' (read it) or None (ignore it), got {spec!r}",
                  f"--{which.replace('_', '-')} must be label or left out, got {spec}"),
        )


def parse_label(token: str) -> Any:
    """A label token as the value it stands for.

    >>> parse_label("6"), parse_label("1.5"), parse_label("C"), parse_label("inf")
    (6, 1.5, 'C', 'inf')
    """
    if _INT.fullmatch(token):
        return _int(token)
    if _FLOAT.fullmatch(token):
        return float(token)
    return token


def _int(token: str) -> int:
    try:
        return int(token)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        raise FormatError(f"the number {clipped(token, MESSAGE_WIDTH, length=True)} has more "
                          "digits than gedkit reads") from None


class _Builder:
    """The graph being read: checks each line against what came before it."""

    def __init__(self, name: str, path: Path, line: int):
        self.name, self.path, self.line = name, path, line
        self.nodes: dict[int, Any] = {}
        self.edges: list[tuple[int, int, Any]] = []
        self.seen: set[tuple[int, int]] = set()

    def node(self, node: int, label: Any, line: int) -> None:
        if node in self.nodes:
            raise FormatError(f"{self.path}:{line}: node {quoted(node)} of graph "
                              f"{quoted(self.name)} is declared twice")
        self.nodes[node] = label

    def edge(self, u: int, v: int, label: Any, line: int) -> None:
        for end in (u, v):
            if end not in self.nodes:
                raise FormatError(f"{self.path}:{line}: edge ({quoted(u)}, {quoted(v)}) of graph "
                                  f"{quoted(self.name)} names node {quoted(end)}, which has no "
                                  "'v' line above it")
        if (min(u, v), max(u, v)) in self.seen:
            what = (f"second self-loop on {quoted(u)}" if u == v else
                    f"second edge between {quoted(u)} and {quoted(v)}")
            raise GraphError(f"{self.path}:{line}: {what} in graph {quoted(self.name)}: "
                             "gedkit does not take multigraphs (parallel edges), by design (see "
                             "the README, 'Self-loops and multigraphs')")
        self.seen.add((min(u, v), max(u, v)))
        self.edges.append((u, v, label))

    def graph(self) -> Graph:
        return Graph(self.nodes, self.edges, name=self.name)


def read_tve(path: Path, node_label: Any, edge_label: Any) -> Iterator[Graph]:
    """Yield the graphs of a t/v/e file in file order."""
    check_spec(node_label, "node_label")
    check_spec(edge_label, "edge_label")
    current: _Builder | None = None
    ended_at = 0
    labelled: dict[str, bool] = {}  # per line type, whether its first line had a label
    with open_text(path) as f:
        for line_no, line in enumerate(f, start=1):
            tokens = line.split()
            if not tokens or tokens[0].startswith("#"):
                continue
            if ended_at:
                raise FormatError(f"{path}:{line_no}: content after the end marker "
                                  f"'t # -1' on line {ended_at}")
            kind = tokens[0]
            if kind == "t":
                if current is not None:
                    yield current.graph()
                name = _graph_id(tokens, path, line_no)
                current = None if name == "-1" else _Builder(name, path, line_no)
                ended_at = line_no if name == "-1" else 0
                continue
            if kind not in ("v", "e"):
                # before any graph: likely a file of another format named .txt (SMILES lines)
                other = ("; a file of another format (e.g. SMILES lines) is read with ",
                         Option("format")) if current is None and not ended_at else ()
                raise FormatError(f"{path}:{line_no}: unknown line type {quoted(kind)} "
                                  "(expected 't', 'v' or 'e')", *other)
            if current is None:
                raise FormatError(f"{path}:{line_no}: {quoted(kind)} line outside a graph "
                                  "(no 't' line above it)")
            n_ids = 1 if kind == "v" else 2
            first = labelled.setdefault(kind, len(tokens) > n_ids + 1)
            if first and len(tokens) == n_ids + 1 and not line.endswith("\n"):
                # (a line without a label is an unlabelled node or edge, but the file's
                # last one, unended, among labelled ones is a file cut inside it)
                raise FormatError(f"{path}:{line_no}: the file ends inside this line (no "
                                  "label, no line end, where the other lines have labels): "
                                  "cut short?")
            if kind == "v":
                ids, label = _fields(tokens, 1, path, line_no, "v <node> [label]")
                current.node(ids[0], label if node_label else None, line_no)
            else:
                ids, label = _fields(tokens, 2, path, line_no, "e <node> <node> [label]")
                current.edge(ids[0], ids[1], label if edge_label else None, line_no)
    if current is not None:
        yield current.graph()


def _graph_id(tokens: list[str], path: Path, line_no: int) -> str:
    rest = tokens[2:] if len(tokens) > 1 and tokens[1] == "#" else tokens[1:]
    if len(rest) != 1:
        raise FormatError(f"{path}:{line_no}: expected 't # <graph id>', got "
                          f"{quoted(' '.join(tokens))}")
    return rest[0]


def _fields(tokens: list[str], n_ids: int, path: Path, line_no: int,
            shape: str) -> tuple[list[int], Any]:
    if len(tokens) not in (n_ids + 1, n_ids + 2):
        raise FormatError(f"{path}:{line_no}: expected '{shape}', got "
                          f"{quoted(' '.join(tokens))}")
    ids = []
    try:
        for token in tokens[1:n_ids + 1]:
            if not _ID.fullmatch(token):
                raise FormatError(f"node id {quoted(token)} is not a non-negative integer")
            ids.append(_int(token))
        label = parse_label(tokens[-1]) if len(tokens) == n_ids + 2 else None
    except FormatError as err:
        raise FormatError(f"{path}:{line_no}: ", *err.args) from None
    return ids, label




def write_tve(graphs: Sequence[Graph], path: Path, node_label: Any, edge_label: Any,
              renumber: bool) -> None:
    """Write ``graphs`` in t/v/e format; raise rather than write something that reads back
    different."""
    check_spec(node_label, "node_label")
    check_spec(edge_label, "edge_label")
    if node_label is None or edge_label is None:
        raise OptionError("writing t/v/e, node_label and edge_label must be 'label'")
    lines = []
    for k, g in enumerate(graphs):
        name = str(g.name) if g.name is not None else str(k)
        if len(name.split()) != 1 or name == "-1":
            raise FormatError(f"{path}: graph name {quoted(name)} cannot be a t/v/e graph id "
                              "(one token without spaces, not -1)")
        refuse_directed(g, "the t/v/e format")
        ids = list(range(g.n)) if renumber else [_node_id(u, g, path) for u in g.ids]
        lines.append(f"t # {name}")
        for u, lab in zip(ids, g.node_labels, strict=True):
            lines.append(f"v {u}{_token(lab, path, g, f'node {u}')}")
        for (a, b), lab in zip(g.edges.tolist(), g.edge_labels, strict=True):
            lines.append(f"e {ids[a]} {ids[b]}{_token(lab, path, g, f'edge ({ids[a]}, {ids[b]})')}")
        for a, lab in g.loops.items():
            lines.append(f"e {ids[a]} {ids[a]}{_token(lab, path, g, f'edge ({ids[a]}, {ids[a]})')}")
    with open_text(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def _node_id(node: Hashable, g: Graph, path: Path) -> int:
    if isinstance(node, bool) or not isinstance(node, int) or node < 0:
        raise FormatError(f"{path}: node id {quoted(node)} of graph {quoted(g.name)} is not "
                          "a non-negative integer, which t/v/e needs; pass renumber=True to "
                          "write nodes as 0..n-1 in graph order")
    return int(node)


def _token(label: Any, path: Path, g: Graph, what: str) -> str:
    if label is None:
        return ""
    try:
        token = str(label)
        back = parse_label(token) if len(token.split()) == 1 and token == token.strip() else None
    except ValueError:  # an integer too long to write, or to read back (a FormatError)
        raise FormatError(f"{path}: a label of {what} in graph {quoted(g.name)} is a number of "
                          "more digits than gedkit reads") from None
    if back is None or back != label or isinstance(back, str) != isinstance(label, str):
        raise FormatError(f"{path}: label {quoted(label)} of {what} in graph {quoted(g.name)} "
                          "cannot be written as a t/v/e token that reads back equal (labels must "
                          "be ints, floats or strings without spaces that do not look like "
                          "numbers)")
    return f" {token}"
