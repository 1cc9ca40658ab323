"""GEXF and GraphML files, parsed by NetworkX.

The file is checked first as the other readers check theirs: a node id declared twice, or an
edge naming a node that is not declared, is an error (NetworkX would merge the nodes, or add
the missing one). Node ids stay the strings the file gives. Bookkeeping fields NetworkX turns
into attributes are dropped so that ``node_label="*"`` sees only real data: an edge's file
``id``, and, unless ``label`` is named, a node ``label`` that is missing or merely repeats the
node id (GEXF files such as AIDS700nef and LINUX). A GraphML file may hold several graphs: all
are read."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError
from gedkit.graph import Graph
from gedkit.io.common import build_graph, graph_name
from gedkit.io.xmlparse import parse_xml

__all__ = ["read_gexf", "read_graphml"]


def read_gexf(path: Path, node_label: Any, edge_label: Any, directed: str) -> Iterator[Graph]:
    """Yield the graph of a GEXF file."""
    import networkx as nx

    (g,) = _parse(lambda p: [nx.read_gexf(p)], "GEXF", path)
    yield _convert(g, path, path.stem, node_label, edge_label, directed)


def read_graphml(path: Path, node_label: Any, edge_label: Any, directed: str) -> Iterator[Graph]:
    """Yield every graph of a GraphML file (each named after the file, numbered when there
    are several)."""
    import networkx as nx

    graphs = _parse(lambda p: list(nx.readwrite.graphml.GraphMLReader()(path=p)), "GraphML",
                    path)
    if not graphs and parse_xml(path).find("graph") is not None:
        # (NetworkX reads the namespaced elements alone: "the file holds no graph" was said)
        raise FormatError(f"{path}: its <graph> is outside the GraphML namespace; a GraphML "
                          "file's root element is <graphml "
                          "xmlns=\"http://graphml.graphdrawing.org/xmlns\">")
    for k, g in enumerate(graphs):
        _with_defaults(g)
        yield _convert(g, path, graph_name(path, k, len(graphs) > 1), node_label, edge_label,
                       directed)


def _with_defaults(g) -> None:
    """Give every node and edge of the NetworkX graph ``g`` read from GraphML the values of
    the keys it lacks that declare a ``<default>``, as the format has them (NetworkX keeps
    those in ``g.graph`` only: the nodes were read without the attribute, or unlabelled)."""
    for items, default in ((g.nodes.values(), g.graph.get("node_default") or {}),
                           ((d for *_, d in g.edges(data=True)),
                            g.graph.get("edge_default") or {})):
        if default:
            for data in items:
                for key, value in default.items():
                    data.setdefault(key, value)


def _parse(reader, kind: str, path: Path) -> list:
    _check_ids(parse_xml(path), kind, path)
    try:
        with warnings.catch_warnings():
            # NetworkX warns and guesses about some faults (data under an undeclared key)
            warnings.simplefilter("error")
            return reader(path)
    except OSError:
        raise
    except Exception as err:
        # NetworkX reports malformed files through many exception types (XML parse errors,
        # NetworkXError, KeyError, ValueError...): all mean the same thing to the caller.
        raise FormatError(
            f"{path}: not a valid {kind} file ({type(err).__name__}: {err})"
        ) from None


def _check_ids(root, kind: str, path: Path) -> None:
    """Refuse repeated node ids and edges to undeclared nodes in every graph of the file,
    and graphs nested in nodes (which NetworkX drops without a word)."""
    for graph in root.findall("graph"):
        if any(node.find("graph") is not None for node in graph.iter("node")):
            raise FormatError(f"{path}: a node holds a graph of its own (nested graphs), "
                              f"which gedkit does not read")
        declared: set[str] = set()
        for node in graph.iter("node"):
            node_id = node.get("id")
            if node_id in declared:
                raise FormatError(f"{path}: node id {node_id!r} is declared twice in this "
                                  f"{kind} file")
            if node_id is not None:
                declared.add(node_id)
        for k, edge in enumerate(graph.iter("edge"), start=1):
            for end in (edge.get("source"), edge.get("target")):
                if end is not None and end not in declared:
                    raise FormatError(f"{path}: edge number {k} names node {end!r}, which "
                                      f"this {kind} file does not declare")


def _convert(g, path: Path, name: str, node_label: Any, edge_label: Any, directed: str
             ) -> Graph:
    # a "label" that only repeats each node's id (GEXF writes one per node, Gephi's GraphML
    # too) is no label, unless named: one that differs anywhere is the user's attribute,
    # kept on every node, also where a value happens to equal the id (label "0" on node "0")
    named = node_label == "label" or (isinstance(node_label, list | tuple)
                                      and "label" in node_label)
    echo = not named and all(data.get("label", node) in (None, node)
                             for node, data in g.nodes(data=True))
    nodes = []
    for node, data in g.nodes(data=True):
        attrs = dict(data)
        if echo:
            attrs.pop("label", None)
        nodes.append((node, attrs))
    edges = [
        (u, v, {k: a for k, a in data.items() if k != "id"}) for u, v, data in g.edges(data=True)
    ]
    return build_graph(nodes, edges, name=name, source=path, node_label=node_label,
                       edge_label=edge_label, is_directed=g.is_directed(), directed=directed)
