"""GEXF and GraphML files, parsed by NetworkX.

The file is checked first as the other readers check theirs: a node id declared twice, an
edge naming a node that is not declared or lacking an end, a value under an undeclared key or
not of its declared type, is an error in gedkit's words (NetworkX would merge the nodes, add
the missing one or a node None, or raise in its own words). Node ids stay the strings the
file gives. Bookkeeping fields NetworkX turns into attributes are dropped so that
``node_label="*"`` sees only real data: an edge's file ``id``, and, unless ``label`` is
named, a node ``label`` that is missing or merely repeats the node id (GEXF files such as
AIDS700nef and LINUX), and Gephi's drawing of a node (GEXF's ``viz``). A GraphML file may
hold several graphs: all are read."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError
from gedkit.graph import Graph, Unnamed
from gedkit.io.common import build_graph, graph_name
from gedkit.io.xmlparse import parse_xml
from gedkit.text import quoted

__all__ = ["read_gexf", "read_graphml"]


def read_gexf(path: Path, node_label: Any, edge_label: Any, directed: str) -> Iterator[Graph]:
    """Yield the graph of a GEXF file."""
    import networkx as nx

    (g,), (order,) = _parse(lambda p: [nx.read_gexf(p)], "GEXF", path)
    _with_defaults(g)
    yield _convert(g, path, path.stem, node_label, edge_label, directed, order)


def read_graphml(path: Path, node_label: Any, edge_label: Any, directed: str) -> Iterator[Graph]:
    """Yield every graph of a GraphML file (each named after the file, numbered when there
    are several)."""
    import networkx as nx

    graphs, orders = _parse(lambda p: list(nx.readwrite.graphml.GraphMLReader()(path=p)),
                            "GraphML", path)
    if not graphs and parse_xml(path).find("graph") is not None:
        # (NetworkX reads the namespaced elements alone: "the file holds no graph" was said)
        raise FormatError(f"{path}: its <graph> is outside the GraphML namespace; a GraphML "
                          "file's root element is <graphml "
                          "xmlns=\"http://graphml.graphdrawing.org/xmlns\">")
    for k, g in enumerate(graphs):
        _with_defaults(g)
        yield _convert(g, path, graph_name(path, k, len(graphs) > 1), node_label, edge_label,
                       directed, orders[k])


def _with_defaults(g) -> None:
    """Give every node and edge of the NetworkX graph ``g`` read from GraphML or GEXF the
    values of the keys (attributes) it lacks that declare a ``<default>``, as the formats have
    them (NetworkX keeps those in ``g.graph`` only: the nodes were read without the
    attribute, or unlabelled)."""
    for items, default in ((g.nodes.values(), g.graph.get("node_default") or {}),
                           ((d for *_, d in g.edges(data=True)),
                            g.graph.get("edge_default") or {})):
        if default:
            for data in items:
                for key, value in default.items():
                    data.setdefault(key, value)


def _parse(reader, kind: str, path: Path) -> tuple[list, list[dict]]:
    """The NetworkX graphs ``reader`` reads from ``path``, the file checked first, and each
    one's edges' places in the file (see :func:`_check_ids`)."""
    orders = _check_ids(parse_xml(path), kind, path)
    try:
        with warnings.catch_warnings():
            # NetworkX warns and guesses about some faults (data under an undeclared key)
            warnings.simplefilter("error")
            return reader(path), orders
    except OSError:
        raise
    except Exception as err:
        # NetworkX reports malformed files through many exception types (XML parse errors,
        # NetworkXError, KeyError, ValueError...): all mean the same thing to the caller.
        raise FormatError(
            f"{path}: not a valid {kind} file ({type(err).__name__}: {err})"
        ) from None


def _check_ids(root, kind: str, path: Path) -> list[dict[tuple[str, str], int]]:
    """Refuse what NetworkX would read silently wrong or refuse in its own words, naming it
    in gedkit's: repeated node ids, edges to undeclared nodes or without an end (read as a
    node None), graphs nested in nodes (dropped without a word), an edge direction neither
    format knows, and data under an undeclared key or attribute, of a type the format lacks,
    or not of its declared type. Returns each graph's edges' places in the file, by their
    ends (NetworkX lists a directed graph's edges by their source: ``directed="ignore"``
    labels an edge by the first of two opposite ones in the file, not in that list)."""
    types = _declared_types(root, kind, path)
    orders: list[dict[tuple[str, str], int]] = []
    for graph in root.findall("graph"):
        order: dict[tuple[str, str], int] = {}
        orders.append(order)
        if any(node.find("graph") is not None for node in graph.iter("node")):
            raise FormatError(f"{path}: a node holds a graph of its own (nested graphs), "
                              f"which gedkit does not read")
        option, known = _DIRECTIONS[kind]
        direction = graph.get(option)
        if direction is not None and direction not in known:
            raise FormatError(f"{path}: {option}={quoted(direction)} is none of "
                              f"{', '.join(known)}")
        edges_are = _graph_direction(graph, kind)
        for tag, what in (("hyperedge", "hyperedges"), ("port", "ports")):
            if graph.find(f".//{tag}") is not None:
                raise FormatError(f"{path}: {kind} {what} (<{tag}>) are not supported")
        declared: set[str] = set()
        for k, node in enumerate(graph.iter("node"), start=1):
            node_id = node.get("id")
            if node_id is None:
                raise FormatError(f"{path}: node number {k} has no id")
            if node_id in declared:
                raise FormatError(f"{path}: node id {quoted(node_id)} is declared twice in this "
                                  f"{kind} file")
            declared.add(node_id)
            _check_values(node, "node", f"node {quoted(node_id)}", types, kind, path)
        for k, edge in enumerate(graph.iter("edge"), start=1):
            for side in ("source", "target"):
                end = edge.get(side)
                if end is None:
                    raise FormatError(f"{path}: edge number {k} has no {side}")
                if end not in declared:
                    raise FormatError(f"{path}: edge number {k} names node {quoted(end)}, which "
                                      f"this {kind} file does not declare")
            _check_values(edge, "edge", f"edge number {k}", types, kind, path)
            order.setdefault((edge.get("source"), edge.get("target")), k)
            own = _edge_direction(edge, kind)
            if own is not None and own != edges_are:
                raise FormatError(f"{path}: edge number {k} is {own}, the graph's edges "
                                  f"{edges_are}: gedkit reads a graph's edges all directed "
                                  "or all undirected")
    return orders


def _graph_direction(graph, kind: str) -> str:
    """``directed`` or ``undirected``: a graph's edges by default (as NetworkX reads them)."""
    option = "edgedefault" if kind == "GraphML" else "defaultedgetype"
    return "directed" if graph.get(option) == "directed" else "undirected"


def _edge_direction(edge, kind: str) -> str | None:
    """An edge's own direction where it gives one (GraphML's ``directed``, GEXF's ``type``)."""
    if kind == "GraphML":
        flag = edge.get("directed")
        return None if flag is None else "directed" if flag == "true" else "undirected"
    flag = edge.get("type")
    return None if flag is None else "directed" if flag == "directed" else "undirected"


#: each format's attribute of a graph giving its edges' direction, and the values it takes
_DIRECTIONS = {"GraphML": ("edgedefault", ("directed", "undirected")),
               "GEXF": ("defaultedgetype", ("directed", "undirected", "mutual"))}
#: the value types of each format's declared data (as NetworkX reads them), and how a value
#: of that type is checked
_TYPES: dict[str, dict[str, Any]] = {
    "GraphML": {"boolean": "boolean", "int": int, "integer": int, "long": int, "float": float,
                "double": float, "string": str, "yfiles": str},
    "GEXF": {"boolean": "boolean", "integer": int, "long": int, "float": float,
             "double": float, "string": str, "liststring": str, "anyURI": str},
}
_INTEGER = re.compile(r"[+-]?[0-9]+")
_BOOLEANS = {"GraphML": ("true", "false", "0", "1"),  # (GraphML's compared lower-cased)
             "GEXF": ("true", "false", "True", "False", "0", "1")}


def _declared_types(root, kind: str, path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(element kind, key or attribute id) -> (name, type) of the file's declared data; a
    key for ``all`` under both kinds."""
    types: dict[tuple[str, str], tuple[str, str]] = {}
    known = _TYPES[kind]
    if kind == "GraphML":  # (a key's data is read whatever element it is declared for)
        declarations = []
        for key in root.findall("key"):
            yfiles = key.get("yfiles.type")
            name = yfiles or key.get("attr.name")
            if name is None:
                raise FormatError(f"{path}: key {quoted(key.get('id'))} has no attr.name")
            declarations.append((key, "all", "yfiles" if yfiles else key.get("attr.type",
                                                                            "string"), name))
    else:
        declarations = [(a, block.get("class"), a.get("type", "string"), a.get("title"))
                        for block in root.iter("attributes") for a in block.findall("attribute")]
    for element, kinds, value_type, name in declarations:
        ident = element.get("id")
        if value_type not in known:
            raise FormatError(f"{path}: {_KEY[kind]} {quoted(ident)} declares type "
                              f"{quoted(value_type)}; "
                              f"{kind}'s types are {', '.join(sorted(set(known)))}")
        for which in ("node", "edge") if kinds == "all" else (kinds,):
            types[which, ident] = (name or ident, value_type)
    return types


_KEY = {"GraphML": "key", "GEXF": "attribute"}


def _check_values(element, which: str, what: str, types: dict, kind: str, path: Path) -> None:
    """Each value ``element`` (a node or an edge, ``what``) holds: under a declared key of
    its kind, and of that key's type."""
    if kind == "GraphML":
        values = [(d.get("key"), d.text or "") for d in element.findall("data")]
    else:
        values = [(v.get("for") or v.get("id"), v.get("value", ""))
                  for block in element.findall("attvalues") for v in block.findall("attvalue")]
    for ident, text in values:
        if (which, ident) not in types:
            raise FormatError(f"{path}: {what} has a value for {_KEY[kind]} {quoted(ident)}, which "
                              f"this {kind} file does not declare"
                              + (f" for {which}s" if kind == "GEXF" else ""))
        name, value_type = types[which, ident]
        check = _TYPES[kind][value_type]
        if check is str:
            continue
        if check == "boolean":
            good = (text.strip().lower() if kind == "GraphML" else text) in _BOOLEANS[kind]
        else:
            try:
                check(text)
                good = True
            except ValueError:
                good = False
        if not good and check is int and _INTEGER.fullmatch(text.strip()):
            raise FormatError(f"{path}: {what} has {name} = a number of {len(text.strip())} "
                              "digits, more than gedkit reads")
        if not good:
            article = "an" if value_type[0] in "aeiou" else "a"
            raise FormatError(f"{path}: {what} has {name} = {quoted(text)}, not "
                              f"{article} {value_type} as its {_KEY[kind]} {quoted(ident)} "
                              "declares")


def _convert(g, path: Path, name: str, node_label: Any, edge_label: Any, directed: str,
             order: dict[tuple[str, str], int]) -> Graph:
    # a "label" that only repeats each node's id (GEXF writes one per node, Gephi's GraphML
    # too) is no label, unless named: one that differs anywhere is the user's attribute,
    # kept on every node, also where a value happens to equal the id (label "0" on node "0")
    named = _names(node_label, "label")
    echo = not named and all(data.get("label", node) in (None, node)
                             for node, data in g.nodes(data=True))
    if isinstance(node_label, Unnamed) and not named:
        # no label named: the first graph of the call decides for all, so that its graphs
        # compare alike (a file whose labels repeated its ids lost them, its twin whose
        # labels did not kept them: distance 3 between isomorphic graphs, without a word)
        if node_label.echo is None:
            node_label.echo = echo
        echo = node_label.echo
    # Gephi's drawing (position, size, colour: GEXF's viz), which NetworkX reads as an
    # attribute, is no label either unless named (every Gephi export read unlabelled)
    drawing = not _names(node_label, "viz")
    nodes = []
    for node, data in g.nodes(data=True):
        attrs = dict(data)
        if echo:
            attrs.pop("label", None)
        if drawing:
            attrs.pop("viz", None)
        nodes.append((node, attrs))
    edges = [
        (u, v, {k: a for k, a in data.items() if k != "id"}) for u, v, data in g.edges(data=True)
    ]
    if g.is_directed():  # in file order (opposite edges: the first in the file labels one)
        edges.sort(key=lambda e: order.get((e[0], e[1]), len(order)))
    return build_graph(nodes, edges, name=name, source=path, node_label=node_label,
                       edge_label=edge_label, is_directed=g.is_directed(), directed=directed)


def _names(spec: Any, attribute: str) -> bool:
    """Whether the label spec ``spec`` names ``attribute``."""
    return spec == attribute or (isinstance(spec, list | tuple) and attribute in spec)
