"""CXL collection files: lists of GXL files with their classes (IAM, GREYC, GDR4GED).

A CXL file names its graphs with ``<print file="..." class="..."/>`` elements. The listed
files are looked up in ``graph_dir``, by default the folder holding the CXL file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gedkit.errors import FormatError, Words
from gedkit.graph import Graph
from gedkit.io.common import picked
from gedkit.io.gxl import read_gxl
from gedkit.io.xmlparse import parse_xml
from gedkit.text import quoted

__all__ = ["cxl_entries", "read_cxl"]


def cxl_entries(path: str | Path) -> list[tuple[str, str | None]]:
    """The ``(file name, class)`` pairs a CXL collection lists, in file order.

    The class is ``None`` where the entry has none; surrounding spaces are removed (IAM
    Fingerprint writes ``class="A "``).
    """
    path = Path(path)
    root = parse_xml(path)
    if root.tag != "GraphCollection":
        raise FormatError(f"{path}: not a CXL file (expected a <GraphCollection> root)")
    out = []
    for k, entry in enumerate(root.iter("print"), start=1):
        file = entry.get("file")
        if not file:
            raise FormatError(f"{path}: <print> number {k} has no 'file' attribute")
        cls = entry.get("class")
        out.append((file, cls.strip() if cls is not None else None))
    return out


def read_cxl(path: Path, node_label: Any, edge_label: Any, directed: str,
             graph_dir: str | Path | None, select: str | None = None) -> Iterator[Graph]:
    """Yield the graphs a CXL collection lists, each named after its GXL file (``select``:
    the one ``FILE#ID`` names, its file alone read: another listed file missing was the
    error before)."""
    folder = Path(graph_dir) if graph_dir is not None else path.parent
    entries = cxl_entries(path)
    if select is not None:
        entries = [picked(entries, lambda entry: Path(entry[0]).stem, select, path)]
    for file, _ in entries:
        gxl = folder / file
        if not gxl.is_file():
            hint = () if graph_dir is not None else (
                "; pass ", Words("graph_dir=", "--graph-dir DIR"), " if the graphs live elsewhere")
            raise FormatError(f"{path}: listed graph {quoted(file, end=True)} not found in "
                              f"{folder}", *hint)
        yield from read_gxl(gxl, node_label, edge_label, directed)
