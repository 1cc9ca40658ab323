"""GEXF and GraphML files, parsed by NetworkX.

The file is checked first as the other readers check theirs: a node id declared twice, or an
edge naming a node that is not declared, is an error (NetworkX would merge the nodes, or add
the missing one). Node ids stay the strings the file gives. Bookkeeping fields NetworkX turns
into attributes are dropped so that ``node_label="*"`` sees only real data: an edge's file
``id``, and a node ``label`` that is missing or merely repeats the node id (GEXF files such as
AIDS700nef and LINUX)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError
from gedkit.graph import Graph
from gedkit.io.common import build_graph
from gedkit.io.xmlparse import parse_xml

__all__ = ["read_gexf", "read_graphml"]


def read_gexf(path: Path, node_label: Any, edge_label: Any, directed: str) -> Iterator[Graph]:
    """Yield the graph of a GEXF file."""
    import networkx as nx

    yield _convert(_parse(nx.read_gexf, "GEXF", path), path, node_label, edge_label, directed)


def read_graphml(path: Path, node_label: Any, edge_label: Any, directed: str) -> Iterator[Graph]:
    """Yield the (first) graph of a GraphML file."""
    import networkx as nx

    yield _convert(_parse(nx.read_graphml, "GraphML", path), path, node_label, edge_label,
                   directed)


def _parse(reader, kind: str, path: Path):
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
    """Refuse repeated node ids and edges to undeclared nodes (in the first graph, which is
    the one read)."""
    graph = root.find("graph")
    if graph is None:
        return  # not the expected layout: NetworkX's own message says what is wrong
    declared: set[str] = set()
    for node in graph.iter("node"):
        node_id = node.get("id")
        if node_id in declared:
            raise FormatError(f"{path}: node id {node_id!r} is declared twice in this {kind} file")
        if node_id is not None:
            declared.add(node_id)
    for k, edge in enumerate(graph.iter("edge"), start=1):
        for end in (edge.get("source"), edge.get("target")):
            if end is not None and end not in declared:
                raise FormatError(f"{path}: edge number {k} names node {end!r}, which this "
                                  f"{kind} file does not declare")


def _convert(g, path: Path, node_label: Any, edge_label: Any, directed: str) -> Graph:
    # a "label" that only repeats each node's id (GEXF writes one per node) is no label; one
    # that differs anywhere is the user's attribute, kept on every node, also where a value
    # happens to equal the id (label "0" on node "0")
    echo = all(data.get("label", node) in (None, node) for node, data in g.nodes(data=True))
    nodes = []
    for node, data in g.nodes(data=True):
        attrs = dict(data)
        if echo:
            attrs.pop("label", None)
        nodes.append((node, attrs))
    edges = [
        (u, v, {k: a for k, a in data.items() if k != "id"}) for u, v, data in g.edges(data=True)
    ]
    return build_graph(nodes, edges, name=path.stem, source=path, node_label=node_label,
                       edge_label=edge_label, is_directed=g.is_directed(), directed=directed)
