"""Graphs as bytes and back, for the collection file: JSON that keeps what JSON alone loses.

Labels and node ids may be strings, numbers, booleans, tuples (several attributes) or dicts
(``node_label="*"``); plain JSON would turn tuples into lists and dict keys into strings, which
changes what cost models see. Tuples and dicts are therefore tagged. Nothing is unpickled: a
collection file from elsewhere can be opened without running its contents.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Mapping
from typing import Any

from gedkit.errors import FormatError, GraphError
from gedkit.graph import Graph, refuse_directed
from gedkit.text import quoted

__all__ = ["decode_graph", "decode_value", "encode_graph", "encode_value"]

_TUPLE, _DICT = "t", "d"
_VERSION = 1


def encode_value(value: Any) -> Any:
    """``value`` as plain JSON data: tuples and dicts tagged, everything else as it is.

    >>> encode_value(("C", 1)), encode_value({"a": 1})
    ({'t': ['C', 1]}, {'d': [['a', 1]]})
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isnan(value):
            raise GraphError("NaN cannot be stored: it never equals itself")
        return float(value)
    if isinstance(value, tuple | list):
        return {_TUPLE: [encode_value(v) for v in value]}
    if isinstance(value, Mapping):
        return {_DICT: [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    try:  # numpy scalars and other number types
        import numbers

        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real):
            return encode_value(float(value))
    except TypeError:
        pass
    raise GraphError(f"{type(value).__name__} value {quoted(value)} cannot be stored in a "
                     "collection "
                     "(labels and ids must be strings, numbers, booleans, tuples or dicts)")


def decode_value(data: Any) -> Any:
    """The inverse of :func:`encode_value`.

    >>> decode_value(encode_value(("C", {"x": (1, 2)})))
    ('C', {'x': (1, 2)})
    """
    if isinstance(data, dict):
        if _TUPLE in data:
            return tuple(decode_value(v) for v in data[_TUPLE])
        return {decode_value(k): decode_value(v) for k, v in data[_DICT]}
    return data


_PLAIN = (str, int, float, bool, type(None))  # JSON keeps these as they are


def _encode_all(values) -> list:
    return [v if type(v) in _PLAIN else encode_value(v) for v in values]


def encode_graph(g: Graph) -> bytes:
    """``g`` (ids, labels, edges, name) as compressed bytes.

    >>> g = Graph({"a": "C", "b": "O"}, [("a", "b", 2)], name="CO")
    >>> decode_graph(encode_graph(g)) == g
    True
    """
    refuse_directed(g, "a collection")
    if g.loops:  # batch verification and the filters price edges between two nodes only
        raise GraphError(
            f"{'a graph' if g.name is None else f'graph {quoted(g.name)}'} has a self-loop (on "
            f"node {quoted(g.ids[next(iter(g.loops))])}), which "
            "collections do not hold: search them for graphs without, or compare graphs with "
            "loops by gedkit.ged or gedkit.pairwise, which price loops"
        )
    natural = g.ids == tuple(range(g.n))
    record = {
        "v": _VERSION,
        "name": g.name,
        "ids": None if natural else _encode_all(g.ids),
        "nodes": _encode_all(g.node_labels),
        "edges": g.edges.ravel().tolist(),
        "elabels": _encode_all(g.edge_labels),
    }
    return zlib.compress(json.dumps(record, separators=(",", ":")).encode(), 1)


def decode_graph(blob: bytes, where: str = "collection") -> Graph:
    """A :class:`Graph` from :func:`encode_graph`'s bytes; a damaged record is a FormatError."""
    try:
        record = json.loads(zlib.decompress(blob))
        labels = [decode_value(v) for v in record["nodes"]]
        ids = (list(range(len(labels))) if record["ids"] is None
               else [decode_value(v) for v in record["ids"]])
        ends = record["edges"]
        elabels = [decode_value(v) for v in record["elabels"]]
        edges = [(ids[ends[2 * k]], ids[ends[2 * k + 1]], lab) for k, lab in enumerate(elabels)]
        return Graph(dict(zip(ids, labels, strict=True)), edges, name=record["name"])
    except zlib.error:  # (its text, "Error -3 while decompressing data: ...", is zlib's)
        raise FormatError(f"{where}: a stored graph is damaged (its compressed bytes do not "
                          "decompress); build the collection again from its sources") from None
    except (ValueError, KeyError, TypeError, IndexError, GraphError) as err:
        raise FormatError(f"{where}: a stored graph is damaged ({err}); build the collection "
                          "again from its sources") from None
