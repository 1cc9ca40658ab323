"""Shared test utilities: random graphs, random cost models, brute force."""

from __future__ import annotations

import itertools

import numpy as np

from gedkit import Graph, costs
from gedkit.problem import Problem


def random_graph(rng: np.random.Generator, n: int, p: float = 0.4, n_labels: int = 3,
                 e_labels: int = 2, name: str | None = None) -> Graph:
    nodes = {i: int(rng.integers(n_labels)) for i in range(n)}
    edges = [(i, j, int(rng.integers(e_labels)))
             for i in range(n) for j in range(i + 1, n) if rng.random() < p]
    return Graph(nodes, edges, name=name)


def random_costs(rng: np.random.Generator, n_labels: int = 3, e_labels: int = 2,
                 symmetric: bool = False):
    """A non-uniform, possibly non-symmetric cost model on integer labels."""
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


def brute_force(problem: Problem) -> float:
    """Minimum of Problem.cost over every node map."""
    n1, n2 = problem.n1, problem.n2
    best = np.inf
    targets = list(range(n2)) + [-1] * n1
    seen = set()
    for perm in itertools.permutations(targets, n1):
        if perm in seen:
            continue
        seen.add(perm)
        best = min(best, problem.cost(np.array(perm, dtype=np.int64)))
    if n1 == 0:
        best = problem.cost(np.empty(0, dtype=np.int64))
    return best
