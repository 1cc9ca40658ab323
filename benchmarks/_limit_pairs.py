"""Seeded graph pairs for ``benchmarks/limits.py``: random graphs and joined molecules.

Each kind gives a pair (g1, g2) of ``n`` nodes (g2 about ``n``) that differ in a small part,
so small sizes can be solved exactly and large ones still have a meaningful answer:

- ``random``: g1 is G(n, p) with mean degree 3, node labels 0-3 and edge labels 0-1; g2 is g1
  after ``n / 10`` random edits (node relabels, edge deletions and insertions, a few node
  deletions and insertions, each inserted node joined by one or two edges).
- ``molecule``: g1 joins molecules of RDKit's NCI set (``first_5K.smi``) into one connected
  graph of ``n`` atoms, the last molecule cut to a connected part of the atoms still missing;
  g2 joins the same molecules, a fifth of them replaced by others, in another order. Each
  molecule (and each fragment of a salt) is joined to the atoms before it by one single bond.
  Labels are the element symbol and the bond order, as :func:`gedkit.io.from_smiles` gives them.

A pair is the same on every call (fixed seeds), so a resumed run measures the same pairs.
Only :func:`save_pair` / :func:`load_pair` run in the measured child process: they need neither
RDKit nor NetworkX.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

import gedkit
from gedkit.graph import components

__all__ = ["KINDS", "load_pair", "make_pair", "molecule_pair", "random_pair", "save_pair"]

KINDS = ("random", "molecule")
SEED = 12


def make_pair(kind: str, n: int) -> tuple[gedkit.Graph, gedkit.Graph]:
    """The benchmark's pair of ``kind`` (``"random"`` or ``"molecule"``) with ``n`` nodes.

    Examples
    --------
    >>> g1, g2 = make_pair("random", 30)
    >>> g1.n, g1 == make_pair("random", 30)[0]
    (30, True)
    """
    if kind == "random":
        return random_pair(n, seed=SEED + n)
    if kind == "molecule":
        return molecule_pair(n, seed=SEED + n)
    raise ValueError(f"unknown pair kind {kind!r}; choose from {', '.join(KINDS)}")


def random_pair(n: int, seed: int = 0, degree: float = 3.0,
                edit_rate: float = 0.1) -> tuple[gedkit.Graph, gedkit.Graph]:
    """G(n, p) with mean degree ``degree``, and a copy after ``edit_rate * n`` random edits.

    Examples
    --------
    >>> g1, g2 = random_pair(100, seed=1)
    >>> g1.n, sorted(set(g1.node_labels)), sorted(set(g1.edge_labels))
    (100, [0, 1, 2, 3], [0, 1])
    >>> 80 < g1.m < 220 and g1 != g2
    True
    """
    rng = np.random.default_rng(seed)
    nodes = {u: int(label) for u, label in enumerate(rng.integers(4, size=n))}
    edges: dict[tuple[int, int], int] = {}
    # Edges drawn one by one: G(n, p) has few of them, and n * n pair masks cost gigabytes
    # at the larger sizes --sizes allows.
    count = int(rng.binomial(n * (n - 1) // 2, min(1.0, degree / max(n - 1, 1))))
    while len(edges) < count:
        u, v = (int(x) for x in rng.integers(n, size=2))
        if u != v:
            edges.setdefault((min(u, v), max(u, v)), int(rng.integers(2)))
    g1 = gedkit.Graph(dict(nodes), dict(edges), name=f"random-{n}")
    _edit(nodes, edges, max(1, round(edit_rate * n)), rng)
    return g1, gedkit.Graph(nodes, edges, name=f"random-{n}-edited")


def _edit(nodes: dict, edges: dict, count: int, rng: np.random.Generator) -> None:
    """Apply ``count`` random edits to ``nodes``/``edges`` in place."""
    kinds = ("relabel", "delete edge", "insert edge", "delete node", "insert node")
    next_id = max(nodes) + 1
    for kind in rng.choice(kinds, size=count, p=[0.4, 0.25, 0.25, 0.05, 0.05]):
        ids = list(nodes)
        if kind == "relabel":
            u = ids[rng.integers(len(ids))]
            nodes[u] = (nodes[u] + int(rng.integers(1, 4))) % 4
        elif kind == "delete edge" and edges:
            del edges[list(edges)[rng.integers(len(edges))]]
        elif kind == "insert edge":
            u, v = sorted(ids[i] for i in rng.choice(len(ids), size=2, replace=False))
            edges.setdefault((u, v), int(rng.integers(2)))
        elif kind == "delete node" and len(ids) > 2:
            u = ids[rng.integers(len(ids))]
            del nodes[u]
            for e in [e for e in edges if u in e]:
                del edges[e]
        elif kind == "insert node":
            nodes[next_id] = int(rng.integers(4))
            for i in rng.choice(len(ids), size=int(rng.integers(1, 3)), replace=False):
                edges[(ids[i], next_id)] = int(rng.integers(2))
            next_id += 1


def molecule_pair(n: int, seed: int = 0, replace: float = 0.2,
                  source: Path | None = None) -> tuple[gedkit.Graph, gedkit.Graph]:
    """Molecules joined into one connected graph of ``n`` atoms, and a variant of it.

    ``source`` is a SMILES file (default: RDKit's ``NCI/first_5K.smi``); g2 takes g1's
    molecules with the fraction ``replace`` of them (at least one) swapped for others, in
    another order. Needs RDKit.

    Examples
    --------
    RDKit is optional, so this example is not a doctest:

    >>> g1, g2 = molecule_pair(100, seed=1)  # doctest: +SKIP
    >>> g1.n, g2.n, "C" in g1.node_labels  # doctest: +SKIP
    (100, 100, True)
    """
    from gedkit.errors import FormatError
    from gedkit.io import from_smiles

    if source is None:
        from rdkit import RDConfig

        source = Path(RDConfig.RDDataDir) / "NCI" / "first_5K.smi"
    smiles = [line.split()[0] for line in source.read_text().splitlines() if line.strip()]
    rng = np.random.default_rng(seed)

    def molecules():
        for i in rng.permutation(len(smiles)):
            try:
                yield from_smiles(smiles[i])
            except FormatError:  # a few NCI entries do not sanitise
                continue

    supply = molecules()
    parts1: list[gedkit.Graph] = []
    while sum(g.n for g in parts1) < n:
        parts1.append(next(supply))
    parts2 = list(parts1)
    swap = max(1, math.ceil(replace * len(parts2)))
    for i in rng.choice(len(parts2), size=min(swap, len(parts2)), replace=False):
        parts2[i] = next(supply)
    parts2 = [parts2[i] for i in rng.permutation(len(parts2))]
    while sum(g.n for g in parts2) < n:
        parts2.append(next(supply))
    return (_join(parts1, n, rng, f"molecules-{n}"),
            _join(parts2, n, rng, f"molecules-{n}-variant"))


def _join(parts: list[gedkit.Graph], n: int, rng: np.random.Generator,
          name: str) -> gedkit.Graph:
    """The first ``n`` atoms of ``parts`` (breadth first), made connected by single bonds."""
    labels: list = []
    edges: dict[tuple[int, int], object] = {}
    for mol in parts:
        keep = _breadth_first(mol)[: n - len(labels)]
        if not keep:
            break
        index = {atom: len(labels) + k for k, atom in enumerate(keep)}
        labels.extend(mol.node_labels[atom] for atom in keep)
        for (a, b), label in zip(mol.edges.tolist(), mol.edge_labels, strict=True):
            if a in index and b in index:
                edges[(index[a], index[b])] = label
    # Components of the joined atoms; each after the first is bonded to a random atom before
    # it, so the molecules form one tree of parts.
    label = components(len(labels), list(edges))
    parts: dict[int, list[int]] = {}
    for u in range(len(labels)):
        parts.setdefault(label[u], []).append(u)
    for members in list(parts.values())[1:]:
        first = members[0]  # components are listed by their smallest atom
        edges[(int(rng.integers(first)), members[int(rng.integers(len(members)))])] = 1
    return gedkit.Graph(dict(enumerate(labels)), edges, name=name)


def _breadth_first(mol: gedkit.Graph) -> list[int]:
    """Atom indices of ``mol`` in breadth-first order, component after component."""
    neighbours: list[list[int]] = [[] for _ in range(mol.n)]
    for a, b in mol.edges.tolist():
        neighbours[a].append(b)
        neighbours[b].append(a)
    seen = [False] * mol.n
    order: list[int] = []
    for start in range(mol.n):
        if seen[start]:
            continue
        seen[start] = True
        queue = [start]
        for u in queue:
            order.append(u)
            for v in neighbours[u]:
                if not seen[v]:
                    seen[v] = True
                    queue.append(v)
    return order


def save_pair(g1: gedkit.Graph, g2: gedkit.Graph, path: Path) -> None:
    """Write a pair as JSON that :func:`load_pair` reads without RDKit or NetworkX."""

    def plain(g: gedkit.Graph) -> dict:
        return {
            "name": g.name,
            "nodes": [[u, label] for u, label in zip(g.ids, g.node_labels, strict=True)],
            "edges": [[g.ids[a], g.ids[b], label]
                      for (a, b), label in zip(g.edges.tolist(), g.edge_labels, strict=True)],
        }

    path.write_text(json.dumps({"g1": plain(g1), "g2": plain(g2)}))


def load_pair(path: Path) -> tuple[gedkit.Graph, gedkit.Graph]:
    """Read a pair written by :func:`save_pair`.

    Examples
    --------
    >>> import tempfile
    >>> pair = random_pair(20, seed=3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_pair(*pair, Path(tmp) / "pair.json")
    ...     load_pair(Path(tmp) / "pair.json") == pair
    True
    """
    data = json.loads(Path(path).read_text())
    return tuple(
        gedkit.Graph({u: label for u, label in g["nodes"]},
                     [tuple(e) for e in g["edges"]], name=g["name"])
        for g in (data["g1"], data["g2"])
    )
