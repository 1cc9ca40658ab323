"""Automorphism orbits (``gedkit._kernels.symmetry``) and the MCES searches that leave out
symmetric first decisions: orbits against networkx's automorphisms, answers against brute
force with every pair searched that way."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms.isomorphism import GraphMatcher

from gedkit import Graph
from gedkit._kernels.order import neighbour_lists
from gedkit._kernels.symmetry import fixed_orbits, orbits
from gedkit.mces import MCESProblem
from gedkit.mces import exact as exact_module
from gedkit.mces.base import Budget
from gedkit.mces.exact import branch_and_bound
from tests.test_mces_connected import brute_force_connected
from tests.test_mces_exact import brute_force, random_pairs, symmetric_pairs


def from_nx(h: nx.Graph, labels=None) -> Graph:
    nodes = sorted(h.nodes)
    labels = labels or {}
    return Graph({u: labels.get(u, "C") for u in nodes},
                 [(a, b, h.edges[a, b].get("order", 1)) for a, b in h.edges])


def exact_orbits(g: Graph) -> list[int]:
    """Each node's orbit, as its smallest member, from every automorphism networkx finds."""
    h = nx.Graph()
    for i, label in enumerate(g.node_labels):
        h.add_node(i, label=label)
    for (a, b), label in zip(g.edges.tolist(), g.edge_labels, strict=True):
        h.add_edge(a, b, label=label)
    same = lambda x, y: x["label"] == y["label"]  # noqa: E731
    orbit = list(range(g.n))
    for sigma in GraphMatcher(h, h, node_match=same, edge_match=same).isomorphisms_iter():
        for a, b in sigma.items():
            orbit[a] = orbit[b] = min(orbit[a], orbit[b])
    changed = True
    while changed:  # close the merges over chains
        changed = False
        for a in range(g.n):
            if orbit[orbit[a]] != orbit[a]:
                orbit[a] = orbit[orbit[a]]
                changed = True
    return orbit


def kernel_orbits(g: Graph) -> list[int]:
    p = MCESProblem(g, g)
    adj = p.adj1.astype(np.int64)
    ptr, nbr, cls = neighbour_lists(adj)
    return orbits(ptr, nbr, cls, adj, p.node_labels1, np.arange(g.n)).tolist()


def graphs():
    for k in range(3, 9):
        yield from_nx(nx.cycle_graph(k))
        yield from_nx(nx.path_graph(k))
        yield from_nx(nx.star_graph(k - 1))
    yield from_nx(nx.complete_graph(5))
    yield from_nx(nx.complete_bipartite_graph(3, 3))
    yield from_nx(nx.petersen_graph())
    yield from_nx(nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3)))
    yield from_nx(nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3)))  # across components
    yield from_nx(nx.disjoint_union(nx.cycle_graph(4), nx.path_graph(3)))
    yield Graph({0: "C", 1: "C", 2: "O"})  # isolated nodes
    # a substituted ring: labels and bond orders break part of its symmetry
    ring = nx.cycle_graph(6)
    ring.add_edge(0, 6, order=2)
    ring.add_edge(3, 7)
    yield from_nx(ring, {6: "O", 7: "N"})
    yield from_nx(ring, {6: "O", 7: "O"})
    rng = np.random.default_rng(3)
    for seed in range(4):
        yield from_nx(nx.random_regular_graph(3, 10, seed=seed))  # refinement splits nothing
    for _ in range(8):
        n = int(rng.integers(2, 9))
        h = nx.gnp_random_graph(n, 0.4, seed=int(rng.integers(1 << 30)))
        yield from_nx(h, {u: str(rng.choice(["C", "N"])) for u in h.nodes})


@pytest.mark.parametrize("g", list(graphs()), ids=lambda g: f"{g.n}n{g.m}m")
def test_orbits_are_the_automorphism_orbits(g):
    assert kernel_orbits(g) == exact_orbits(g)


@pytest.mark.parametrize("g", [g for g in graphs() if g.n], ids=lambda g: f"{g.n}n{g.m}m")
def test_orbits_with_a_node_fixed(g):
    # a node given a label of its own: the automorphisms that fix it
    fixed = Graph({i: ("fixed" if i == 0 else label) for i, label in enumerate(g.node_labels)},
                  [(a, b, label) for (a, b), label in zip(g.edges.tolist(), g.edge_labels,
                                                          strict=True)])
    p = MCESProblem(g, g)
    adj = p.adj1.astype(np.int64)
    ptr, nbr, cls = neighbour_lists(adj)
    assert fixed_orbits(ptr, nbr, cls, adj, p.node_labels1, 0).tolist() == exact_orbits(fixed)


def pruned_pairs():
    """Pairs rich in symmetry (uniform labels, rings, stars) and random ones."""
    yield from symmetric_pairs()
    yield from random_pairs(30, seed=41, max_nodes=6)
    ring = from_nx(nx.cycle_graph(6))
    chain = from_nx(nx.path_graph(5))
    two_rings = from_nx(nx.disjoint_union(nx.cycle_graph(4), nx.cycle_graph(4)))
    for g1, g2 in ((ring, chain), (chain, ring), (two_rings, ring), (ring, two_rings)):
        yield MCESProblem(g1, g2)


@pytest.mark.parametrize("connected", [False, True])
def test_skipping_symmetric_first_decisions_keeps_the_answer(connected, monkeypatch):
    # a first call of a single expansion: every search resumes with its symmetry found
    monkeypatch.setattr(exact_module, "FIRST_CHUNK", 1)
    for p in pruned_pairs():
        best = brute_force_connected(p) if connected else brute_force(p)
        r = branch_and_bound(p, Budget(), connected=connected)
        assert r.optimal and r.num_edges == best, p
        assert p.count(r.assignment) == r.num_edges


@pytest.mark.parametrize("connected", [False, True])
def test_symmetric_first_decisions_are_left_out(connected):
    # a ring against a ring with a tail: one first image per orbit instead of one per node
    g1 = from_nx(nx.cycle_graph(7))
    tail = nx.cycle_graph(6)
    tail.add_edge(0, 6)
    g2 = from_nx(tail, {6: "C"})
    p = MCESProblem(g1, g2)
    pair = exact_module._search_pair(p)
    expansions = []
    for q in (pair, exact_module._with_symmetry(p, pair)):
        run = exact_module._Search(q, p, np.full(p.n1, -1, dtype=np.int64), p.g1.m, None,
                                   connected=connected)
        assert run.go(Budget(), None)
        expansions.append((run.expanded, run.incumbent))
    (plain, found), (pruned, found_pruned) = expansions
    assert found == found_pruned == 6  # the ring's six bonds in either case
    assert pruned < plain
    seeds = exact_module._with_symmetry(p, pair)
    assert seeds.seed1.sum() == 1  # every node of the 7-ring lies in one orbit
    assert len(set(seeds.seed2.tolist())) < p.n2
