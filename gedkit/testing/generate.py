"""Random graphs and random cost models for tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gedkit import costs
from gedkit.costs.base import CostModel
from gedkit.graph import Graph

__all__ = ["random_constraints", "random_costs", "random_graph"]


def random_graph(rng: np.random.Generator, n: int, p: float = 0.4, n_labels: int = 3,
                 e_labels: int = 2, name: str | None = None,
                 node_values: Sequence[Any] | None = None,
                 edge_values: Sequence[Any] | None = None, loops: float = 0.0,
                 directed: bool = False) -> Graph:
    """An Erdős–Rényi graph on ``n`` nodes (edge probability ``p``) with labels drawn from
    ``0..n_labels-1`` and ``0..e_labels-1``, or from ``node_values`` / ``edge_values``;
    with ``loops``, each node has a self-loop with that probability; ``directed``: each
    ordered pair of distinct nodes is an arc with probability ``p``.

    >>> g = random_graph(np.random.default_rng(0), 5, node_values="CNO", edge_values=(1, 2))
    >>> g.n, set(g.node_labels) <= set("CNO")
    (5, True)
    """
    nodes_from = range(n_labels) if node_values is None else list(node_values)
    edges_from = range(e_labels) if edge_values is None else list(edge_values)
    nodes = {i: nodes_from[int(rng.integers(len(nodes_from)))] for i in range(n)}
    edges = [(i, j, edges_from[int(rng.integers(len(edges_from)))])
             for i in range(n) for j in range(0 if directed else i + 1, n)
             if i != j and rng.random() < p]
    if loops:  # drawn only when asked: the graphs of every other seed stay as they were
        edges += [(i, i, edges_from[int(rng.integers(len(edges_from)))])
                  for i in range(n) if rng.random() < loops]
    return Graph(nodes, edges, name=name, directed=directed)


def random_costs(rng: np.random.Generator, n_labels: int = 3, e_labels: int = 2,
                 symmetric: bool = False) -> CostModel:
    """A non-uniform cost model on the integer labels of :func:`random_graph` (not symmetric
    unless ``symmetric``), every cost drawn at random, substitutions of equal labels free."""
    nsub = rng.uniform(0.1, 3.0, (n_labels, n_labels))
    esub = rng.uniform(0.1, 3.0, (e_labels, e_labels))
    ndel, nins = rng.uniform(0.5, 3.0, n_labels), rng.uniform(0.5, 3.0, n_labels)
    edel, eins = rng.uniform(0.5, 3.0, e_labels), rng.uniform(0.5, 3.0, e_labels)
    if symmetric:
        nsub = (nsub + nsub.T) / 2
        esub = (esub + esub.T) / 2
        nins, eins = ndel, edel
    np.fill_diagonal(nsub, 0)
    np.fill_diagonal(esub, 0)
    return costs.custom(
        node_sub=lambda a, b: nsub[a, b], node_del=lambda a: ndel[a], node_ins=lambda b: nins[b],
        edge_sub=lambda a, b: esub[a, b], edge_del=lambda a: edel[a], edge_ins=lambda b: eins[b],
        symmetric=symmetric,
    )


def random_constraints(rng: np.random.Generator, g1: Graph, g2: Graph, most: int = 3,
                       tries: int = 20) -> tuple[list, list]:
    """Random ``(fixed, forbidden)`` node pairs (caller ids, ``None`` for ε; see
    :mod:`gedkit.constraints`) that some node map keeps: up to ``most`` of each, fewer when
    the draws keep contradicting each other.

    >>> g = random_graph(np.random.default_rng(1), 3)
    >>> fixed, forbidden = random_constraints(np.random.default_rng(2), g, g)
    >>> costs.uniform().compile(g, g).constrained(fixed, forbidden).allowed is not None
    True
    """
    from gedkit.constraints import allowed_matrix
    from gedkit.errors import GraphError

    problem = costs.uniform().compile(g1, g2)
    side1, side2 = [*g1.ids, None], [*g2.ids, None]
    best: tuple[list, list] = ([], [])
    for _ in range(tries):
        draw = []
        for count in rng.integers(0, most + 1, size=2):
            pairs = []
            for _ in range(int(count)):
                u = side1[int(rng.integers(len(side1)))]
                v = side2[int(rng.integers(len(side2)))]
                if u is not None or v is not None:
                    pairs.append((u, v))
            draw.append(pairs)
        try:
            allowed_matrix(problem, *draw)
        except GraphError:
            continue
        if len(draw[0]) + len(draw[1]) > len(best[0]) + len(best[1]):
            best = (draw[0], draw[1])
        if best[0] or best[1]:
            return best
    return best
