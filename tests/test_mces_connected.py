"""``connected=True``: the largest connected common edge subgraph, against an independent brute
force (connected edge subsets of g1 tried for a monomorphism into g2 by NetworkX), RDKit's
FindMCS on molecules, and the properties every answer must have."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms import isomorphism

import gedkit
from gedkit import Graph
from gedkit.errors import OptionError
from gedkit.mces import MCESProblem
from gedkit.mces.base import Budget
from gedkit.mces.exact import branch_and_bound
from tests.test_mces_exact import PHASES, random_pairs, symmetric_pairs


def _nx(g: Graph, edges=None) -> nx.Graph:
    """``g`` (or the edges ``edges`` of it, with their ends only) as a labelled NetworkX
    graph."""
    h = nx.Graph()
    keep = range(g.m) if edges is None else edges
    for k in keep:
        a, b = g.edges[k].tolist()
        for x in (a, b):
            h.add_node(x, label=g.node_keys[x])
        h.add_edge(a, b, label=g.edge_keys[k])
    return h


def connected_subsets(g: Graph, most: int) -> set[frozenset[int]]:
    """Every connected set of at most ``most`` edges of ``g``, grown one adjacent edge at a
    time."""
    at = [[] for _ in range(g.n)]
    for k, (a, b) in enumerate(g.edges.tolist()):
        at[a].append(k)
        at[b].append(k)
    seen: set[frozenset[int]] = set()
    frontier = [frozenset([k]) for k in range(g.m)]
    while frontier:
        grown = []
        for s in frontier:
            if s in seen:
                continue
            seen.add(s)
            if len(s) == most:
                continue
            nodes = {x for k in s for x in g.edges[k].tolist()}
            for x in nodes:
                for k in at[x]:
                    if k not in s:
                        grown.append(s | {k})
        frontier = grown
    return seen


def brute_force_connected(p: MCESProblem) -> int:
    """Edges of the largest connected subgraph of g1 that g2 contains (labels equal), by trying
    every connected edge subset of g1, largest first."""
    target = _nx(p.g2)
    same = lambda x, y: x["label"] == y["label"]  # noqa: E731
    for s in sorted(connected_subsets(p.g1, p.g2.m), key=len, reverse=True):
        matcher = isomorphism.GraphMatcher(target, _nx(p.g1, sorted(s)), node_match=same,
                                           edge_match=same)
        if matcher.subgraph_is_monomorphic():
            return len(s)
    return 0


def check_answer(r, p: MCESProblem) -> None:
    """The result's map is really common, connected, recounted, and within its bound."""
    assert p.count(r.assignment) == r.num_edges
    assert len(r.fragments) == (1 if r.num_edges else 0)
    assert r.num_edges <= r.upper_bound
    assert sum(map(len, r.fragments)) == r.num_edges


def test_fragments_of_a_map():
    g = Graph({i: "C" for i in range(6)}, [(0, 1), (1, 2), (3, 4), (4, 5), (2, 3)])
    p = MCESProblem(g, g)
    f = np.array([0, 1, 2, 3, 4, 5])
    assert [len(e) for e in p.fragments(f)] == [5]
    f[3] = -1
    assert [e.tolist() for e in p.fragments(f)] == [[0, 1], [3]]
    assert p.largest_fragment(f).tolist() == [0, 1, 2, -1, -1, -1]
    assert p.fragments(np.full(6, -1)) == []


@pytest.mark.parametrize("probe,search", PHASES)
def test_exact_connected_against_brute_force(probe, search):
    for p in random_pairs(40, seed=11, max_nodes=6):
        r = branch_and_bound(p, Budget(), probe=probe, search=search, connected=True)
        assert r.optimal
        assert r.num_edges == brute_force_connected(p), p
        check_answer(r, p)


@pytest.mark.parametrize("method", ["exact", "auto"])
def test_methods_connected_against_brute_force(method):
    for p in [*random_pairs(30, seed=5, max_nodes=7), *symmetric_pairs()]:
        r = gedkit.mces(p.g1, p.g2, method, connected=True)
        assert r.optimal
        assert r.num_edges == brute_force_connected(p)
        check_answer(r, r.problem)


def test_connected_at_most_disconnected():
    for p in random_pairs(40, seed=3, max_nodes=8):
        one = gedkit.mces(p.g1, p.g2, connected=True)
        every = gedkit.mces(p.g1, p.g2)
        assert one.num_edges <= every.num_edges
        # the disconnected answer's largest fragment is a connected common subgraph
        assert (len(every.fragments[0]) if every.fragments else 0) <= one.num_edges


def test_two_fragments():
    # g2 holds both halves of g1 but not the bond joining them
    r = gedkit.mces("CCOCC.CCCC", "CCOCCNCCCC", connected=True)
    assert (r.num_edges, r.optimal, len(r.fragments)) == (4, True, 1)
    assert gedkit.mces("CCOCC.CCCC", "CCOCCNCCCC").num_edges == 7


def test_default_unchanged():
    r = gedkit.mces("CCOCC.CCCC", "CCOCCNCCCC")
    assert len(r.fragments) == 2  # the disconnected problem is still the default


@pytest.mark.parametrize("method", ["ga", "nga"])
def test_methods_without_it_say_so(method):
    with pytest.raises(OptionError, match="connected"):
        gedkit.mces("CCO", "CCO", method, connected=True)


def test_bad_value():
    with pytest.raises(OptionError, match="connected must be True or False"):
        gedkit.mces("CCO", "CCO", connected=1)


def test_a_search_state_beyond_the_memory_cap_is_not_built(monkeypatch):
    """Connected mode keeps a row of children per deferral too: on large graphs that state
    alone can pass the memory cap (5,000 nodes: ~3 GB), so the search is not started and the
    greedy map's largest fragment answers, with the bound. (A cap above the pair's set-up,
    numba's start taken as paid: the state's estimate is what stops it.)"""
    from gedkit._kernels import warm

    monkeypatch.setattr(warm, "started", lambda: True)
    rng = np.random.default_rng(2)
    from tests.helpers import random_graph

    g1 = random_graph(rng, 200, p=0.015, n_labels=3, e_labels=2)
    g2 = random_graph(rng, 200, p=0.015, n_labels=3, e_labels=2)
    r = gedkit.mces(g1, g2, "exact", connected=True, memory=2_000_000)
    assert r.stats["stopped"] == "time or memory limit: the search's state does not fit"
    check_answer(r, r.problem)
    assert not r.optimal or r.num_edges == r.upper_bound


def test_timeout_keeps_a_connected_map_and_a_bound():
    rng = np.random.default_rng(0)
    from tests.helpers import random_graph

    g1 = random_graph(rng, 40, p=0.15, n_labels=1, e_labels=1)
    g2 = random_graph(rng, 40, p=0.15, n_labels=1, e_labels=1)
    for method in ("exact", "auto"):
        r = gedkit.mces(g1, g2, method, connected=True, timeout=0.5)
        check_answer(r, r.problem)
        assert r.time < 5  # generous: the limit holds, roughly, on a busy machine


# -- RDKit's FindMCS as the oracle -------------------------------------------------------------

# pairs from RDKit's FMCS tests and common drug scaffolds (facts: the bond counts FindMCS
# reports with element and exact bond-order comparison, no ring rules)
MOLECULES = [
    ("c1ccccc1O", "c1ccccc1N"),
    ("CC(=O)Oc1ccccc1C(=O)O", "OC(=O)c1ccccc1O"),
    ("c1ccc2ccccc2c1", "c1ccc(cc1)-c1ccccc1"),
    ("CCCCCCCCO", "OCCCCCCC"),
    ("Nc1ccc(cc1)S(=O)(=O)N", "Cc1ccc(cc1)S(=O)(=O)Nc1ncccn1"),
    ("CN1C=NC2=C1C(=O)N(C(=O)N2C)C", "CN1C=NC2=C1C(=O)NC(=O)N2C"),
    ("C1CCC1CCC1CC1", "C1CCC1C1CC1"),
    ("OCC(O)CO.CCCC", "CCCCOCC(O)CO"),
]


def _findmcs(a: str, b: str) -> int:
    rdkit = pytest.importorskip("rdkit")  # noqa: F841
    from rdkit import Chem
    from rdkit.Chem import rdFMCS

    mols = [Chem.MolFromSmiles(s) for s in (a, b)]
    res = rdFMCS.FindMCS(mols, atomCompare=rdFMCS.AtomCompare.CompareElements,
                         bondCompare=rdFMCS.BondCompare.CompareOrderExact,
                         ringMatchesRingOnly=False, completeRingsOnly=False, timeout=60)
    assert not res.canceled
    return res.numBonds


@pytest.mark.parametrize("a,b", MOLECULES)
def test_against_findmcs(a, b):
    r = gedkit.mces(a, b, connected=True)
    assert r.optimal
    assert r.num_edges == _findmcs(a, b)
    check_answer(r, r.problem)
