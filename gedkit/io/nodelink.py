"""Node-link JSON, the layout of ``networkx.node_link_data``.

A file holds one graph object or a list of them::

    {"directed": false, "multigraph": false, "graph": {"name": "g"},
     "nodes": [{"id": 0, "atom": "C"}, ...],
     "links": [{"source": 0, "target": 1, "bond": 1}, ...]}

The edge list may also be called ``"edges"`` (newer NetworkX). Node attributes are the node's
keys other than ``id``; edge attributes are the keys other than ``source``, ``target`` (and
``key`` in multigraph files). The graph is named by ``graph.name`` when present.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gedkit.errors import FormatError, OptionError
from gedkit.graph import Graph
from gedkit.io.common import build_graph, graph_name, open_text
from gedkit.text import quoted

__all__ = ["read_json", "write_json"]

_EDGE_KEYS = ("links", "edges")


def read_json(path: Path, node_label: Any, edge_label: Any, directed: str) -> Iterator[Graph]:
    """Yield the graphs of a node-link JSON file."""
    try:
        with open_text(path) as f:
            data = json.load(f)
    except json.JSONDecodeError as err:
        raise FormatError(f"{path}:{err.lineno}: not valid JSON ({err.msg})") from None
    except UnicodeDecodeError:
        raise  # said by gedkit.io, as for every text format
    except ValueError:  # the one other: an integer of more digits than Python converts
        limit = sys.get_int_max_str_digits()
        raise FormatError(f"{path}: holds an integer of more than {limit} digits, more than "
                          "gedkit reads") from None
    except RecursionError:
        raise FormatError(f"{path}: JSON nested too deeply to read") from None
    items = data if isinstance(data, list) else [data]
    for k, item in enumerate(items):
        yield _graph(item, path, k, len(items), node_label, edge_label, directed)


def _graph(data: Any, path: Path, k: int, count: int, node_label: Any, edge_label: Any,
           directed: str) -> Graph:
    where = f"{path}" if count == 1 else f"{path}: graph [{k}]"
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
        raise FormatError(f"{where}: not node-link JSON (expected an object with a 'nodes' list)")
    present = [key for key in _EDGE_KEYS if key in data]
    if len(present) != 1 or not isinstance(data[present[0]], list):
        raise FormatError(
            f"{where}: node-link JSON needs exactly one edge list, 'links' or 'edges'"
        )
    is_directed, multigraph = data.get("directed", False), data.get("multigraph", False)
    if not isinstance(is_directed, bool) or not isinstance(multigraph, bool):
        raise FormatError(f"{where}: 'directed' and 'multigraph' must be true or false")
    meta = data.get("graph", {})
    name = meta.get("name") if isinstance(meta, dict) else None
    name = str(name) if name is not None else graph_name(path, k, count > 1)

    nodes = []
    for i, node in enumerate(data["nodes"]):
        if not isinstance(node, dict) or "id" not in node:
            raise FormatError(f"{where}: node entry [{i}] is not an object with an 'id'")
        nodes.append((node["id"], {a: v for a, v in node.items() if a != "id"}))
    skip = ("source", "target", "key") if multigraph else ("source", "target")
    edges = []
    for i, edge in enumerate(data[present[0]]):
        if not isinstance(edge, dict) or "source" not in edge or "target" not in edge:
            raise FormatError(f"{where}: edge entry [{i}] is not an object with 'source' and "
                              "'target'")
        edges.append((edge["source"], edge["target"],
                      {a: v for a, v in edge.items() if a not in skip}))
    return build_graph(nodes, edges, name=name, source=path, node_label=node_label,
                       edge_label=edge_label, is_directed=is_directed, directed=directed)


def write_json(graphs: Sequence[Graph], path: Path, node_label: Any, edge_label: Any,
               single: bool) -> None:
    """Write ``graphs`` as node-link JSON: one object when ``single``, else a list."""
    for spec, which in ((node_label, "node_label"), (edge_label, "edge_label")):
        if not isinstance(spec, str):
            raise OptionError(f"writing JSON, {which} must be an attribute name or '*'")
    texts = [_layout(_to_dict(g, path, node_label, edge_label)) for g in graphs]
    with open_text(path, "w") as f:
        f.write((texts[0] if single else "[\n" + ",\n".join(texts) + "\n]") + "\n")


def _layout(item: dict) -> str:
    """JSON text with one node or edge per line: readable, and diffs line by line."""
    head = ", ".join(f"{json.dumps(k)}: {_dumps(item[k])}" for k in ("directed", "multigraph",
                                                                      "graph"))
    parts = [f"{{{head},"]
    for key in ("nodes", "links"):
        rows = ",\n".join(f"  {_dumps(entry)}" for entry in item[key])
        parts.append(f' "{key}": [\n{rows}\n ]' if rows else f' "{key}": []')
    return parts[0] + "\n" + ",\n".join(parts[1:]) + "}"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _to_dict(g: Graph, path: Path, node_label: str, edge_label: str) -> dict:
    what = f"graph {quoted(g.name)}" if g.name else "graph"
    nodes = []
    # every node and edge carries the attribute, null where unlabelled (see _put)
    for node, lab in zip(g.ids, g.node_labels, strict=True):
        if isinstance(node, list | tuple | dict | set | frozenset):
            raise FormatError(f"{path}: node id {quoted(node)} in {what} cannot be written as "
                              "JSON: ids must be strings or numbers")
        entry = {"id": _exact(node, path, f"node id {quoted(node)}")}
        _put(entry, lab, node_label, ("id",), path, f"node {quoted(node)} in {what}")
        nodes.append(entry)
    links = []
    for (a, b), lab in zip(g.edges.tolist(), g.edge_labels, strict=True):
        entry = {"source": nodes[a]["id"], "target": nodes[b]["id"]}
        _put(entry, lab, edge_label, ("source", "target"), path,
             f"edge ({quoted(g.ids[a])}, {quoted(g.ids[b])}) in {what}")
        links.append(entry)
    for a, lab in g.loops.items():
        entry = {"source": nodes[a]["id"], "target": nodes[a]["id"]}
        _put(entry, lab, edge_label, ("source", "target"), path,
             f"self-loop on {quoted(g.ids[a])} in {what}")
        links.append(entry)
    return {
        "directed": g.directed,
        "multigraph": False,
        "graph": {"name": g.name} if g.name is not None else {},
        "nodes": nodes,
        "links": links,
    }


def _put(entry: dict, label: Any, spec: str, reserved: tuple[str, ...], path: Path,
         what: str) -> None:
    """Store ``label`` in ``entry`` as attribute ``spec`` (null for None: a graph left without
    the attribute read back unlabelled, but not with the attribute named, and a file of
    several graphs whose first was unlabelled not at all), or spread it when ``spec == "*"``."""
    if spec != "*":
        if spec in reserved:
            raise OptionError(f"cannot store labels under {spec!r}: the format uses that key")
        entry[spec] = _exact(label, path, f"label of {what}")
        return
    if not isinstance(label, dict):
        raise FormatError(f"{path}: writing with label '*' needs attribute-dict labels, "
                          f"but {what} has label {quoted(label)}")
    clash = [k for k in label if k in reserved]
    if clash:
        raise FormatError(f"{path}: {what} has attribute {clash[0]!r}, which node-link JSON "
                          "reserves")
    entry.update(_exact(label, path, f"label of {what}"))


def _exact(value: Any, path: Path, what: str) -> Any:
    """``value`` as JSON data that reads back equal, or a :class:`FormatError`."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FormatError(f"{path}: {what} is {value!r}, which JSON cannot hold")
        return value
    if isinstance(value, list | tuple):
        return [_exact(v, path, what) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise FormatError(f"{path}: {what} has non-string keys, which JSON turns into "
                              "strings")
        return {k: _exact(v, path, what) for k, v in value.items()}
    raise FormatError(f"{path}: {what} is a {type(value).__name__}, which JSON cannot hold")
