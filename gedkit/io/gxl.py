"""GXL graph files as used by the IAM graph database, GREYC and GEDLIB.

Only what those collections use is supported: ``<node>`` and ``<edge>`` elements with typed
``<attr>`` values. Value types are matched case-insensitively: ``int``/``integer``/``long``
become ``int``, ``float``/``double`` become ``float``, ``bool``/``boolean`` become ``bool`` and
``string`` becomes ``str`` (surrounding whitespace removed: IAM AIDS pads atom symbols). A
number element whose text is not a number keeps its text as a string: IAM Protein stores amino
acid sequences inside ``<int>``.

The graph is named after the file (``100.gxl`` -> ``"100"``), which is how collections (CXL)
and published ground truth refer to it; the ``id`` attribute inside is often a stale path.
Directed graphs (``edgemode="directed"``, the GXL default, or edges marked
``isdirected="true"``) are rejected unless ``directed="keep"`` (a directed graph: an edge
marked ``isdirected="false"`` in it is two opposite arcs) or ``directed="ignore"`` is asked for.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError
from gedkit.graph import Graph
from gedkit.io.common import build_graph, graph_name
from gedkit.io.xmlparse import parse_xml
from gedkit.text import quoted

__all__ = ["read_gxl"]

_INT = ("int", "integer", "long")
_FLOAT = ("float", "double")
_BOOL = ("bool", "boolean")
_DIRECTED_MODES = ("directed", "defaultdirected")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def read_gxl(path: Path, node_label: Any, edge_label: Any, directed: str) -> Iterator[Graph]:
    """Yield the graphs of a GXL file (normally exactly one)."""
    root = parse_xml(path)
    graphs = root.findall("graph") if root.tag == "gxl" else []
    if not graphs:
        raise FormatError(f"{path}: not a GXL file (expected <gxl> holding <graph> elements)")
    # several graphs are named by their ids where each has its own (FILE#ID picks one);
    # one is named after its file, as IAM's collection (.cxl) files list them
    ids = [element.get("id") for element in graphs]
    named = len(graphs) > 1 and None not in ids and len(set(ids)) == len(ids)
    for k, element in enumerate(graphs):
        yield _graph(element, path, ids[k] if named else graph_name(path, k, len(graphs) > 1),
                     node_label, edge_label, directed)


def _graph(element: ET.Element, path: Path, name: str, node_label: Any, edge_label: Any,
           directed: str) -> Graph:
    mode = element.get("edgemode", "directed")
    if mode not in ("undirected", "defaultundirected", *_DIRECTED_MODES):
        raise FormatError(f"{path}: unknown GXL edgemode {quoted(mode)}")
    if element.find("rel") is not None:
        raise FormatError(f"{path}: GXL hyperedges (<rel>) are not supported")
    nodes = []
    for k, node in enumerate(element.findall("node"), start=1):
        node_id = node.get("id")
        if node_id is None:
            raise FormatError(f"{path}: <node> number {k} has no 'id' attribute")
        nodes.append((node_id, _attributes(node, path, f"node {quoted(node_id)}")))
    edges = []
    both_ways = []  # the undirected edges among them
    for k, edge in enumerate(element.findall("edge"), start=1):
        u, v = edge.get("from"), edge.get("to")
        if u is None or v is None:
            raise FormatError(f"{path}: <edge> number {k} lacks a 'from' or 'to' attribute")
        flag = edge.get("isdirected")
        arc = (flag == "true") if flag is not None else (mode in _DIRECTED_MODES)
        edges.append((u, v, _attributes(edge, path, f"edge ({quoted(u)}, {quoted(v)})")))
        if not arc:
            both_ways.append(edges[-1])
    # an edgeless graph of a directed file is directed when directions are kept, so that it
    # compares with the file's other graphs (IAM Fingerprint has such graphs); refusing it
    # under directed="error" would refuse a graph that has no arc to misread
    is_directed = len(both_ways) < len(edges) or (
        not edges and mode in _DIRECTED_MODES and directed == "keep")
    if is_directed and directed == "keep":
        edges += [(v, u, attrs) for u, v, attrs in both_ways if u != v]
    return build_graph(nodes, edges, name=name, source=path, node_label=node_label,
                       edge_label=edge_label, is_directed=is_directed, directed=directed)


def _attributes(element: ET.Element, path: Path, what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr in element.findall("attr"):
        key = attr.get("name")
        if key is None:
            raise FormatError(f"{path}: an <attr> of {what} has no 'name'")
        values = list(attr)
        if len(values) != 1:
            raise FormatError(
                f"{path}: attribute {quoted(key)} of {what} should hold exactly one typed value "
                f"element such as <int>, found {len(values)}"
            )
        out[key] = _value(values[0], path, f"attribute {quoted(key)} of {what}")
    return out


def _value(element: ET.Element, path: Path, what: str) -> Any:
    kind = element.tag.lower()
    text = (element.text or "").strip()
    if kind == "string":
        return text
    if kind in _INT:
        try:
            return int(text)
        except ValueError:
            if _INTEGER.fullmatch(text):  # a number too long to convert, not a sequence
                raise FormatError(f"{path}: {what} is a number of {len(text)} digits, more "
                                  "than gedkit reads") from None
            return text
    if kind in _FLOAT:
        try:
            return float(text)
        except ValueError:
            return text
    if kind in _BOOL:
        if text.lower() not in ("true", "false"):
            raise FormatError(f"{path}: {what} is <{element.tag}> but holds {quoted(text)}")
        return text.lower() == "true"
    raise FormatError(
        f"{path}: {what} has the unsupported GXL value type <{element.tag}> "
        "(supported: string, int, float, double, bool)"
    )
