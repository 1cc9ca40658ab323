"""What every attribute-based reader shares: label picking, the directed-input policy, and
errors that name the file they come from."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from pathlib import Path
from typing import Any

from gedkit.errors import GraphError, OptionError
from gedkit.graph import Graph, pick_label

__all__ = ["DIRECTED_POLICIES", "build_graph", "check_label_spec", "graph_name"]

DIRECTED_POLICIES = ("error", "ignore")


def check_label_spec(spec: Any, which: str) -> None:
    """Reject a ``node_label``/``edge_label`` value that is not None, a name or a list of names."""
    if spec is None or isinstance(spec, str):
        return
    if isinstance(spec, list | tuple) and spec and all(isinstance(k, str) for k in spec):
        return
    raise OptionError(
        f"{which} must be None, an attribute name, a list of names or '*', got {spec!r}"
    )


def graph_name(path: Path, index: int, several: bool) -> str:
    """The name of the ``index``-th graph of a file whose graphs carry no name."""
    return f"{path.stem}[{index}]" if several else path.stem


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

    ``directed="ignore"`` reads a directed graph as undirected: each pair of opposite edges
    becomes one edge whose label comes from the first of the two in file order.
    """
    if is_directed:
        if directed == "error":
            raise GraphError(
                f"{source}: graph {name!r} is directed and gedkit handles undirected graphs "
                "only; pass directed='ignore' to read each edge without its direction (a pair "
                "of opposite edges becomes one edge labelled by the first of the two)"
            )
        edges = _forget_directions(edges)
    try:
        node_dict: dict[Hashable, Any] = {}
        for node, attrs in nodes:
            try:
                repeated = node in node_dict
            except TypeError:
                raise GraphError(f"node id {node!r} is not hashable") from None
            if repeated:
                raise GraphError(f"node id {node!r} appears twice in graph {name!r}")
            node_dict[node] = pick_label(attrs, node_label, f"node {node!r}", name)
        triples = [
            (u, v, pick_label(attrs, edge_label, f"edge ({u!r}, {v!r})", name))
            for u, v, attrs in edges
        ]
        return Graph(node_dict, triples, name=name)
    except GraphError as err:
        raise GraphError(f"{source}: {err}") from None


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
