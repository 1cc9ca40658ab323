"""Loaders for the GED benchmark sets with exact ground truth (AIDS700nef, LINUX, IMDBMulti).

The data are not shipped with gedkit (see ``../shared/data/README.md`` in the development
checkout, or the SimGNN and TaGSim releases); point ``root`` at the folder holding them.
"""

from __future__ import annotations

import csv
import io
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gedkit.errors import FormatError, UnlabelledWarning
from gedkit.graph import Graph

__all__ = ["GEDBenchmark", "load_benchmark"]

# name -> (zip file, folder inside the zip, node label attribute)
_SETS = {
    "AIDS700nef": ("AIDS700nef.zip", "AIDS700nef", "type"),
    "LINUX": ("LINUX.zip", "LINUX", None),
    "IMDBMulti": ("IMDB.zip", "IMDBMulti", None),
}


@dataclass
class GEDBenchmark:
    """Graphs of one benchmark set and its exact GED ground truth.

    ``ged[i, j]`` is the exact uniform-cost GED between ``graphs[i]`` and ``graphs[j]``
    (-1 where unknown); ``splits[i]`` is ``"train"`` or ``"test"``.
    """

    name: str
    graphs: list[Graph]
    gids: np.ndarray
    splits: np.ndarray
    ged: np.ndarray

    def __repr__(self) -> str:
        # (the dataclass's own listed every graph and the whole matrix: 30 kB for AIDS700nef)
        known = int((self.ged >= 0).sum())
        return (f"<GEDBenchmark {self.name}: {len(self.graphs)} graphs "
                f"({int((self.splits == 'train').sum())} train, "
                f"{int((self.splits == 'test').sum())} test), {known:,} known distances>")

    def pairs(self, first: str = "test", second: str = "train") -> np.ndarray:
        """Index pairs (i, j) with known ground truth, i in split ``first``, j in ``second``."""
        a = np.flatnonzero(self.splits == first)
        b = np.flatnonzero(self.splits == second)
        ii, jj = np.meshgrid(a, b, indexing="ij")
        pairs = np.stack([ii.ravel(), jj.ravel()], axis=1)
        return pairs[self.ged[pairs[:, 0], pairs[:, 1]] >= 0]


def load_benchmark(name: str, root: str | Path) -> GEDBenchmark:
    """Load ``name`` (``"AIDS700nef"``, ``"LINUX"`` or ``"IMDBMulti"``) from ``root/name/``.

    AIDS700nef node labels are the atom types (edge valences are ignored, as in its ground
    truth); LINUX and IMDBMulti are unlabelled.
    """
    if name not in _SETS:
        raise FormatError(f"unknown benchmark {name!r}; choose one of {sorted(_SETS)}")
    folder = Path(root) / name
    if not folder.is_dir():
        inside = " (give the folder that holds it, not the set's own)" if (
            Path(root).name == name) else ""
        raise FormatError(f"no folder {folder} for the {name} benchmark{inside}")
    zip_name, inner, node_label = _SETS[name]
    if name == "IMDBMulti":
        rows = _tsv(folder / "IMDBMulti_index.tsv")
        gids = np.array([int(r["gid"]) for r in rows])
        splits = np.array([r["split"] for r in rows])
        pos = {g: i for i, g in enumerate(gids.tolist())}
        ged = np.full((len(gids), len(gids)), -1, dtype=np.int16)
        for r in _tsv(folder / "ged_test_pairs.tsv"):
            ged[pos[int(r["gid1"])], pos[int(r["gid2"])]] = int(r["ged"])
    else:
        npz = np.load(folder / f"{name}_ged_mcs.npz")
        gids = npz["gids"]
        n_train = int(npz["n_train"])
        splits = np.array(["train"] * n_train + ["test"] * (len(gids) - n_train))
        ged = npz["ged"]
    graphs = _read_zip(folder / zip_name, inner, gids, splits, node_label)
    return GEDBenchmark(name, graphs, gids, splits, ged)


def _tsv(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _read_zip(path: Path, inner: str, gids, splits, node_label) -> list[Graph]:
    import networkx as nx

    graphs = []
    # the sets' unlabelled graphs are unlabelled by design (their GEXF 'label' is the node's
    # id): nothing to tell
    with zipfile.ZipFile(path) as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlabelledWarning)
        for gid, split in zip(gids.tolist(), splits.tolist(), strict=True):
            member = f"{inner}/{split}/{gid}.gexf"
            try:
                data = zf.read(member)
            except KeyError:
                raise FormatError(f"{path}: no member {member}") from None
            g = nx.read_gexf(io.BytesIO(data))
            graphs.append(Graph.from_networkx(g, node_label=node_label, name=str(gid)))
    return graphs
