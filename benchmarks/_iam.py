"""Load an IAM graph set (``<data>/IAM/<name>.tar.gz``, as shipped in ``../shared/data``).

The archives unpack to ``<name>/data/*.gxl``; they are extracted into a temporary folder that
is removed once the graphs are read. Labels keep every attribute (``"*"``) unless asked
otherwise, so any literature cost model can read what it needs.
"""

from __future__ import annotations

import tarfile
import tempfile
from pathlib import Path
from typing import Any

import gedkit

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def load_iam(data: Path, name: str, node_label: Any = "*", edge_label: Any = "*") -> list:
    """The graphs of IAM set ``name`` (e.g. ``"AIDS"``), in file-name order."""
    archive = Path(data) / "IAM" / f"{name}.tar.gz"
    if not archive.is_file():
        raise SystemExit(f"no IAM archive {archive}; pass --data pointing at shared/data")
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        files = sorted(Path(tmp, name, "data").glob("*.gxl"))
        return [gedkit.read(f, node_label=node_label, edge_label=edge_label) for f in files]
