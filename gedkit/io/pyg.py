"""PyTorch Geometric: ``Data`` objects to and from graphs, and GED ground truth written the way
``torch_geometric.datasets.GEDDataset`` reads it (``pip install 'gedkit[pyg]'``).

:func:`from_pyg` / :func:`to_pyg` (also :meth:`gedkit.Graph.from_pyg` and
:meth:`gedkit.Graph.to_pyg`) convert one graph. PyG stores an undirected graph with each edge in
both directions (``edge_index`` of shape ``(2, 2m)``); node labels are rows of ``x`` and edge
labels rows of ``edge_attr``. Labels become feature rows through a vocabulary (one-hot, PyG's
usual encoding) or, when they are numbers, as they are.

:func:`write_geddataset` writes a :func:`gedkit.pairwise` job's matrix as the raw files of
``GEDDataset`` (SimGNN's layout), which PyG then processes offline::

    DIR/raw/<NAME>/train/<k>.gexf    one graph per file; k is the graph's dataset index
    DIR/raw/<NAME>/test/<k>.gexf
    DIR/raw/<NAME>/ged.pickle        {(k1, k2): GED}: every pair done (its upper bound)
    DIR/gedkit/bounds.npz            lower, upper, optimal, status: N x N, by dataset index
    DIR/gedkit/node_maps.json        "k1 k2" -> node map (k1's nodes to k2's, -1: deleted)
    DIR/gedkit/meta.json             names, split, cost model, method, time limit, counts

``GEDDataset(DIR, NAME)`` then gives ``dataset.ged[i, j]`` for ``data.i`` indices, inf where no
value was computed; which of those values are proven optimal is ``bounds.npz``'s ``optimal``.
GEDDataset only accepts its four names: ``AIDS700nef`` (node features: one-hot atom types, for
molecules whose node labels are atom symbols) and ``LINUX``, ``IMDBMulti``, ``ALKANE`` (no
node features); the name says how PyG reads the graphs, not where they come from.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import pickle
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gedkit.errors import GraphError, MissingDependencyError, OptionError, Words
from gedkit.graph import Graph, label_key, refuse_directed
from gedkit.text import quoted

__all__ = ["GEDDATASET_NAMES", "check_dataset_root", "dataset_name", "from_pyg",
           "require_pyg", "to_pyg", "write_geddataset"]

#: the dataset names ``GEDDataset`` accepts
GEDDATASET_NAMES = ("AIDS700nef", "LINUX", "IMDBMulti", "ALKANE")
#: the atom types ``GEDDataset`` one-hot encodes for ``AIDS700nef``, in its order
AIDS_TYPES = (
    "O", "S", "C", "N", "Cl", "Br", "B", "Si", "Hg", "I", "Bi", "P", "F", "Cu", "Ho", "Pd",
    "Ru", "Pt", "Sn", "Li", "Ga", "Tb", "As", "Co", "Pb", "Sb", "Se", "Ni", "Te",
)
_ATOM_KEYS = ("type", "symbol", "atom", "element")  # where a dict label keeps its atom symbol


def require_pyg(feature: str) -> Any:
    try:
        import torch
        import torch_geometric  # noqa: F401
    except ImportError:
        raise MissingDependencyError("torch_geometric", feature, "pyg") from None
    return torch


def from_pyg(
    data: Any,
    *,
    node_vocabulary: Sequence[Any] | None = None,
    edge_vocabulary: Sequence[Any] | None = None,
    name: str | None = None,
) -> Graph:
    """A :class:`Graph` from a ``torch_geometric.data.Data`` (nodes ``0 .. num_nodes-1``).

    Parameters
    ----------
    data : torch_geometric.data.Data
        ``edge_index`` with every edge in both directions (PyG's undirected form) or in one;
        ``x`` (node features) and ``edge_attr`` (edge features) optional.
    node_vocabulary, edge_vocabulary : sequence, optional
        The labels one-hot feature rows stand for (row ``[0, 1, 0]`` is label
        ``vocabulary[1]``). Without one, the ``Data``'s own ``node_vocabulary``
        (``edge_vocabulary``) where :func:`to_pyg` kept one; else a one-hot row becomes its
        index, a one-column row its number, any other row the tuple of its values; no
        features, no labels.
    name : str, optional
        The graph's name (default: the ``Data``'s ``name``, which :func:`to_pyg` sets).

    Raises
    ------
    GraphError
        For an edge given in one direction where others come in both, or the two
        directions of an edge with different features (a self-loop is one entry and reads
        as a loop), and for an object that is no ``Data``.

    Examples
    --------
    >>> import torch
    >>> from torch_geometric.data import Data
    >>> data = Data(x=torch.tensor([[1., 0.], [0., 1.], [1., 0.]]),
    ...             edge_index=torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]))
    >>> g = from_pyg(data, node_vocabulary=["C", "O"])
    >>> g.node_labels, g.edges.tolist()
    (('C', 'O', 'C'), [[0, 1], [1, 2]])
    """
    require_pyg("Graph.from_pyg")
    if not hasattr(data, "edge_index") or not hasattr(data, "num_nodes"):
        raise GraphError(f"Graph.from_pyg takes a torch_geometric.data.Data, got "
                         f"{type(data).__name__}")
    if name is None and isinstance(getattr(data, "name", None), str):
        name = data.name
    n = int(data.num_nodes or 0)
    where = f" in graph {quoted(name)}" if name else ""
    x = getattr(data, "x", None)
    # without one given, the vocabulary to_pyg kept on the Data (a graph's own labels)
    node_vocabulary = _kept(data, "node_vocabulary", node_vocabulary)
    edge_vocabulary = _kept(data, "edge_vocabulary", edge_vocabulary)
    labels = _labels(x, node_vocabulary, n, "node", where)
    edge_index = getattr(data, "edge_index", None)
    pairs = (np.zeros((0, 2), dtype=np.int64) if edge_index is None
             else np.asarray(edge_index.detach().cpu().numpy(), dtype=np.int64).T)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise GraphError(f"edge_index{where} must have shape (2, E), got {tuple(edge_index.shape)}")
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
        raise GraphError(f"edge_index{where} names a node outside 0..{n - 1}")
    edge_attr = getattr(data, "edge_attr", None)
    edge_labels = _labels(edge_attr, edge_vocabulary, len(pairs), "edge", where)
    edges: dict[tuple[int, int], Any] = {}
    seen: dict[tuple[int, int], int] = {}
    for (u, v), lab in zip(pairs.tolist(), edge_labels, strict=True):
        key = (min(u, v), max(u, v))
        if key in edges and label_key(edges[key]) != label_key(lab):
            raise GraphError(f"the two directions of edge {key}{where} have different features")
        edges[key] = lab
        if u != v:  # a self-loop is one entry in PyG's undirected form: not counted
            seen[key] = seen.get(key, 0) + 1
    counts = set(seen.values())
    if counts - {1, 2} or counts == {1, 2}:
        raise GraphError(
            f"edge_index{where} is neither undirected (each edge both ways) nor lists each edge "
            "once; make it undirected with torch_geometric.utils.to_undirected"
        )
    # a self-loop goes to Graph as (u, u), which says itself whether it can hold one
    return Graph(dict(enumerate(labels)), [(u, v, lab) for (u, v), lab in edges.items()],
                 name=name)


def _kept(data: Any, name: str, given: Sequence[Any] | None) -> Sequence[Any] | None:
    """``given``, or the vocabulary ``name`` that :func:`to_pyg` kept on ``data``."""
    if given is not None:
        return given
    kept = getattr(data, name, None)
    return list(kept) if isinstance(kept, list | tuple) else None


def to_pyg(
    graph: Graph,
    *,
    node_vocabulary: Sequence[Any] | None = None,
    edge_vocabulary: Sequence[Any] | None = None,
) -> Any:
    """A ``torch_geometric.data.Data`` of ``graph``: ``edge_index`` with each edge both ways
    (sorted, as ``torch_geometric.utils.to_undirected`` gives it), ``x`` and ``edge_attr`` from
    the labels.

    Parameters
    ----------
    graph : Graph
    node_vocabulary, edge_vocabulary : sequence, optional
        Labels to one-hot encode over (every label present must be in it). Without one:
        numbers (or equal-length tuples of numbers) are the features as they are, other labels
        are one-hot over the graph's own sorted labels, kept on the ``Data`` as
        ``node_vocabulary`` (``edge_vocabulary``) for :func:`from_pyg` to read back, and a
        graph without labels has no ``x`` (``edge_attr``). Graphs converted one by one that
        are to be compared (batched, fed to one model) need one vocabulary for them all:
        their own ones differ ('S' of one and 'N' of another can both be column 1).

    Examples
    --------
    >>> import gedkit
    >>> g = gedkit.Graph({0: "C", 1: "O"}, [(0, 1, 2)])
    >>> data = to_pyg(g, node_vocabulary=["C", "N", "O"])
    >>> data.x.tolist(), data.edge_index.tolist(), data.edge_attr.tolist()
    ([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [[0, 1], [1, 0]], [[2.0], [2.0]])
    >>> back = from_pyg(data, node_vocabulary=["C", "N", "O"])
    >>> back == g, back.edge_labels     # numbers come back as numbers
    (True, (2,))
    """
    refuse_directed(graph, "Graph.to_pyg (PyG's undirected form, each edge both ways)")
    torch = require_pyg("Graph.to_pyg")
    from torch_geometric.data import Data

    order = np.lexsort((graph.edges[:, 1], graph.edges[:, 0])) if graph.m else np.zeros(0, int)
    loops = getattr(graph, "loops", None) or {}  # {node: label}, once each (PyG's form)
    both = np.concatenate([graph.edges[order], graph.edges[order][:, ::-1],
                           np.array([[a, a] for a in loops], dtype=np.int64).reshape(-1, 2)]
                          ).astype(np.int64)
    both_labels = [graph.edge_labels[k] for k in order] * 2 + list(loops.values())
    sort = np.lexsort((both[:, 1], both[:, 0])) if len(both) else np.zeros(0, int)
    data = Data(edge_index=torch.as_tensor(both[sort].T.copy()).reshape(2, -1).long(),
                num_nodes=graph.n)
    if graph.name is not None:
        data.name = graph.name
    x, own = _features(torch, graph.node_labels, node_vocabulary, "node")
    if x is not None:
        data.x = x
    if own is not None:
        data.node_vocabulary = own
    edge_attr, own = _features(torch, [both_labels[k] for k in sort.tolist()], edge_vocabulary,
                               "edge")
    if edge_attr is not None:
        data.edge_attr = edge_attr
    if own is not None:
        data.edge_vocabulary = own
    return data


def _labels(features: Any, vocabulary: Sequence[Any] | None, count: int, what: str,
            where: str) -> list[Any]:
    """One label per feature row (see :func:`from_pyg`)."""
    if features is None:
        return [None] * count
    rows = np.asarray(features.detach().cpu().numpy())
    if rows.ndim == 1:
        rows = rows[:, None]
    if len(rows) != count:
        raise GraphError(f"{what} features{where} have {len(rows)} rows for {count} {what}s")
    one_hot = rows.shape[1] > 1 and bool(np.all((rows == 0) | (rows == 1))) and bool(
        np.all(rows.sum(axis=1) == 1))
    if vocabulary is not None:
        if not (one_hot or rows.shape[1] == 1 == len(vocabulary)) or rows.shape[1] != len(
                vocabulary):
            raise GraphError(
                f"{what} features{where} are not one-hot rows over the {len(vocabulary)} labels "
                f"of {what}_vocabulary (shape {rows.shape})"
            )
        return [vocabulary[k] for k in rows.argmax(axis=1).tolist()]
    if one_hot:
        return rows.argmax(axis=1).tolist()
    if rows.shape[1] == 1:
        return [_number(v) for v in rows[:, 0].tolist()]
    return [tuple(_number(v) for v in row) for row in rows.tolist()]


def _number(value: float) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _features(torch: Any, labels: Sequence[Any], vocabulary: Sequence[Any] | None,
              what: str) -> tuple[Any, list | None]:
    """Feature rows for ``labels`` (see :func:`to_pyg`), None where there are no labels; and
    the graph's own vocabulary where none was given and the labels needed one."""
    own = None
    if vocabulary is None:
        if not labels or all(lab is None for lab in labels):
            return None, None
        # numbers as the features themselves where PyG's float32 holds each exactly and
        # they read back as numbers: else (0.1, 2**24 + 1, tuples that look one-hot) one-hot
        # over the graph's own labels, which from_pyg reads back as they were
        rows = _numeric_rows(labels)
        if rows is not None:
            return torch.from_numpy(rows), None
        firsts: dict = {}  # each key's first label: what the vocabulary names
        for lab in labels:
            firsts.setdefault(label_key(lab), lab)
        try:
            keys = sorted(firsts)
        except TypeError:
            keys = sorted(firsts, key=repr)
        vocabulary = own = [firsts[k] for k in keys]
    index = {label_key(lab): k for k, lab in enumerate(vocabulary)}
    if len(index) < len(vocabulary):  # a label twice: its first column never set
        twice = next(lab for k, lab in enumerate(vocabulary) if index[label_key(lab)] != k)
        raise OptionError(f"{what}_vocabulary names the label {quoted(twice)} twice")
    x = np.zeros((len(labels), len(vocabulary)), dtype=np.float32)
    for row, lab in enumerate(labels):
        key = label_key(lab)
        if key not in index:
            raise OptionError(f"{what} label {quoted(lab)} is not in {what}_vocabulary")
        x[row, index[key]] = 1.0
    return torch.from_numpy(x), own


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _numeric_rows(labels: Sequence[Any]) -> np.ndarray | None:
    """``labels`` as float32 feature rows when they are numbers (or equal-length tuples of
    numbers) that the rows hold exactly and :func:`_labels` reads back as themselves; else
    None."""
    if all(_is_number(lab) for lab in labels):
        values = [[lab] for lab in labels]
    elif all(isinstance(lab, tuple) and lab and all(map(_is_number, lab)) for lab in labels) \
            and len({len(lab) for lab in labels}) == 1:
        values = [list(lab) for lab in labels]
    else:
        return None
    rows = np.array(values, dtype=np.float32)
    exact = np.array(values, dtype=np.float64)
    if not np.array_equal(rows.astype(np.float64), exact):
        return None  # float32 would round them (0.1, 16777217)
    one_hot = rows.shape[1] > 1 and bool(np.all((rows == 0) | (rows == 1))) and bool(
        np.all(rows.sum(axis=1) == 1))
    return None if one_hot else rows  # (read back as indices, not tuples)


# -- GEDDataset ------------------------------------------------------------------------------


def check_dataset_root(directory: str | os.PathLike) -> Path:
    """``directory`` as a dataset root :func:`write_geddataset` may write (made there if
    missing); a one-line :class:`~gedkit.errors.OptionError` for a file, a folder that
    cannot be made, or a root holding a dataset gedkit did not write (its ``raw``/
    ``processed`` folders would be replaced: a downloaded dataset is never deleted).
    Callers check before solving, so a bad target costs no work; nothing is made here (a
    job refused afterwards left an empty folder)."""
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise OptionError(f"{root} is not a folder (a GEDDataset root is one)")
    ours = (root / "gedkit" / "meta.json").is_file()
    found = [d for d in ("raw", "processed") if (root / d).exists()]
    if found and not ours:
        raise OptionError(f"{root} holds a dataset gedkit did not write ({'/, '.join(found)}/ "
                          "without gedkit/meta.json); export into another folder")
    there = root.absolute()
    while not there.exists():  # the folder it would be made in
        there = there.parent
    if not there.is_dir() or not os.access(there, os.W_OK | os.X_OK):
        raise OptionError(f"cannot make the folder {root}: "
                          f"{there} is {'not a folder' if not there.is_dir() else 'not writable'}")
    try:  # (root passes os.access everywhere: /proc took a whole job's pairs, then refused)
        os.rmdir(tempfile.mkdtemp(prefix=".gedkit-probe-", dir=there))
    except OSError as err:
        raise OptionError(f"cannot make the folder {root}: {there} takes no new folder "
                          f"({err.strerror})") from None
    return root


def held_out(test: Any, count: int) -> int:
    """The graphs of the test split of ``count`` for ``test`` (a count, or a fraction below
    1, at least one), or a one-line error naming it: callers check it before solving (a
    job's every pair was solved, then refused for it).

    >>> held_out(0.2, 60), held_out(3, 60)
    (12, 3)
    """
    n_test = test if _is_int(test) else (
        math.ceil(test * count) if isinstance(test, float) and 0 < test < 1 else None)
    if n_test is None or not 1 <= n_test < count:
        raise OptionError(Words("test", "--pyg-test"), f" must leave at least one graph in "
                          f"each split of {count} graphs (a count, or a fraction below 1), "
                          f"got {test!r}")
    return n_test


def write_geddataset(
    directory: str | os.PathLike,
    result: Any,
    graphs_a: Sequence[Graph],
    graphs_b: Sequence[Graph] | None = None,
    *,
    name: str | None = None,
    test: int | float = 0.2,
    names: tuple[Sequence[str], Sequence[str]] | None = None,
) -> Path:
    """Write a :class:`~gedkit.pairwise.PairwiseResult` as ``GEDDataset``'s raw files (see the
    module notes for the layout); returns ``directory``.

    Parameters
    ----------
    directory : str or path
        The dataset root (``GEDDataset(directory, name)``); its ``raw/<name>`` and ``gedkit``
        folders are replaced, and a stale ``processed`` folder is removed, where gedkit wrote
        them (see :func:`check_dataset_root`).
    result : PairwiseResult
        The matrix of ``graphs_a`` against ``graphs_b`` (or against themselves).
    graphs_a, graphs_b : sequences of Graph
        The graphs ``result`` was computed on. With ``graphs_b``, ``graphs_a`` are the train
        split and ``graphs_b`` the test split (GEDDataset's train x test pairs); without it, the
        last ``test`` graphs form the test split.
    name : str, optional
        One of :data:`GEDDATASET_NAMES`; by default ``AIDS700nef`` when every node label is an
        atom symbol GEDDataset encodes (a string, or a dict label's ``type`` / ``symbol`` /
        ``atom`` / ``element``), else ``LINUX``.
    test : int or float
        Without ``graphs_b``: how many graphs (an int) or which fraction of them (a float
        below 1) form the test split, at least one (GEDDataset needs both splits).
    names : (list of str, list of str), optional
        Names of the row and column graphs for ``meta.json`` (the graphs' own by default).

    Examples
    --------
    >>> import tempfile, gedkit
    >>> graphs = [gedkit.Graph({0: "C", 1: a}, [(0, 1)]) for a in ("C", "O", "N", "S")]
    >>> m = gedkit.pairwise(graphs, node_maps=True)
    >>> root = write_geddataset(tempfile.mkdtemp(), m, graphs, test=1)
    >>> from torch_geometric.datasets import GEDDataset
    >>> train = GEDDataset(str(root), "AIDS700nef")
    >>> len(train), train.ged[0, 1].item(), train.ged[1, 3].item()   # graph 3 is the test split
    (3, 1.0, 1.0)
    """
    import networkx as nx

    root = check_dataset_root(directory)
    square = graphs_b is None
    rows = list(graphs_a)
    cols = rows if square else list(graphs_b)
    if result.shape != (len(rows), len(cols)):
        raise OptionError(f"the result is {result.shape[0]}x{result.shape[1]}, the graphs "
                          f"{len(rows)}x{len(cols)}: give the graphs it was computed on")
    if square:
        graphs, n_train = rows, len(rows) - held_out(test, len(rows))
    else:
        if not rows or not cols:
            raise OptionError("GEDDataset needs graphs in both splits (train: rows, test: "
                              "columns)")
        graphs, n_train = rows + cols, len(rows)
    if any(g is None for g in graphs):
        raise GraphError("a graph that could not be read cannot be exported")
    name = dataset_name(graphs, name)
    atoms = [[_atom(lab) for lab in g.node_labels] for g in graphs]

    raw = root / "raw" / name

    for stale in (raw, root / "gedkit", root / "processed"):
        if stale.exists():
            shutil.rmtree(stale)
    for split in ("train", "test"):
        (raw / split).mkdir(parents=True, exist_ok=True)
    for k, g in enumerate(graphs):
        h = nx.Graph()
        for u in range(g.n):
            h.add_node(u, **({"type": atoms[k][u]} if name == "AIDS700nef" else {}))
        h.add_edges_from(g.edges.tolist())
        nx.write_gexf(h, raw / ("train" if k < n_train else "test") / f"{k}.gexf")

    # result entry (i, j) is dataset pair (i, j) square, (i, n_train + j) against columns
    size = len(graphs)
    lower = np.zeros((size, size))
    upper = np.full((size, size), np.inf)
    status = np.full((size, size), "pending", dtype="<U8")
    offset = 0 if square else n_train
    block = (slice(0, len(rows)), slice(offset, offset + len(cols)))
    lower[block], upper[block], status[block] = (result.lower_bound, result.upper_bound,
                                                 result.status)
    ged: dict[tuple[int, int], float] = {}
    maps: dict[str, list[int]] = {}
    for i, j in result.pairs.tolist():
        a, b = i, j + offset
        if result.status[i, j] in ("optimal", "bounded") and (b, a) not in ged:
            ged[a, b] = float(result.upper_bound[i, j])
        if result.node_maps is not None and (i, j) in result.node_maps:
            maps[f"{a} {b}"] = [int(v) for v in result.node_maps[i, j]]
    with open(raw / "ged.pickle", "wb") as f:
        pickle.dump(ged, f)

    side = root / "gedkit"
    side.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(side / "bounds.npz", lower=lower, upper=upper,
                        optimal=(lower >= upper) & np.isfinite(upper), status=status)
    with open(side / "node_maps.json", "w", encoding="utf-8") as f:
        json.dump(maps, f)
    row_names, col_names = names or (
        [g.name or str(k) for k, g in enumerate(rows)],
        [g.name or str(k) for k, g in enumerate(cols)],
    )
    counts = result.counts()
    meta = {
        "format": "gedkit-geddataset/1",
        "name": name,
        "graphs": list(row_names) if square else list(row_names) + list(col_names),
        "train": n_train,
        "test": size - n_train,
        "method": result.method,
        "timeout": result.timeout,
        "counts": counts,
        "values": "ged.pickle holds each pair's upper bound (its GED where optimal); "
                  "bounds.npz says which are proven",
    }
    with open(side / "meta.json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    return root


def dataset_name(graphs: Sequence[Graph], name: str | None = None) -> str:
    """The GEDDataset name the ``graphs`` are exported under (``name``, or by default
    ``AIDS700nef`` for molecules, ``LINUX`` for unlabelled graphs), or a one-line error when
    that dataset cannot hold their labels: its files would then hold other graphs than the
    ones the distances were computed on (AIDS700nef keeps atom types only, no edge labels;
    the other names keep the structure only). Checked before a job is solved.

    >>> dataset_name([Graph({0: "C", 1: "O"}, [(0, 1)])])
    'AIDS700nef'
    >>> dataset_name([Graph({0: "C", 1: "Na"}, [(0, 1)])])
    Traceback (most recent call last):
    ...
    gedkit.errors.OptionError: write_geddataset: GEDDataset's AIDS700nef knows ... not 'Na': ...
    """
    if name is not None and name not in GEDDATASET_NAMES:
        raise OptionError(f"GEDDataset reads only the names {', '.join(GEDDATASET_NAMES)}; got "
                          f"{name!r}")
    node = next((lab for g in graphs for lab in g.node_labels if lab is not None), None)
    edge = next((lab for g in graphs for lab in g.edge_labels if lab is not None), None)
    if name is None:
        name = "LINUX" if node is None and edge is None else "AIDS700nef"
    why = None
    if name == "AIDS700nef":
        bad = next((lab for g in graphs for lab in g.node_labels
                    if _atom(lab) not in AIDS_TYPES), None)
        if bad is not None:
            shown = _atom(bad) if _atom(bad) is not None else bad
            why = f"GEDDataset's AIDS700nef knows {len(AIDS_TYPES)} atom types, not {quoted(shown)}"
        elif edge is not None:
            why = ("GEDDataset's AIDS700nef has no edge labels (these graphs have, e.g. "
                   f"{quoted(edge)})")
    elif node is not None or edge is not None:
        what = "node" if node is not None else "edge"
        why = (f"GEDDataset's {name} holds the structure only (these graphs have {what} "
               f"labels, e.g. {quoted(node if node is not None else edge)})")
    if why is not None:
        raise OptionError(Words("write_geddataset", "--export pyg"),
                          f": {why}: the exported graphs would not be the ones "
                          "the distances were computed on; compute them on what the dataset "
                          "holds (atom symbols only: ",
                          # (the atoms' attribute named: with the edges' alone left out, a
                          # file's inferred node labels were dropped too, and LINUX exported)
                          Words("node_label=ATTRIBUTE, edge_label=None",
                                "--node-label ATTRIBUTE --no-edge-label"),
                          "; or no labels: ",
                          Words("node_label=None, edge_label=None",
                                "--no-node-label --no-edge-label"), ")")
    return name


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _atom(label: Any) -> str | None:
    """The atom symbol a node label stands for, if it is one."""
    if isinstance(label, Mapping):
        for key in _ATOM_KEYS:
            if isinstance(label.get(key), str):
                return label[key].strip()
        return None
    return label.strip() if isinstance(label, str) else None

