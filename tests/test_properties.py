"""Property tests: invariances every exact GED must satisfy."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gedkit
from gedkit import Graph, costs


@st.composite
def graphs(draw, max_nodes=7, labels=3):
    n = draw(st.integers(0, max_nodes))
    node_labels = draw(st.lists(st.integers(0, labels - 1), min_size=n, max_size=n))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = []
    if pairs:
        chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    edges = [(i, j, draw(st.integers(0, 1))) for i, j in chosen]
    return Graph(dict(enumerate(node_labels)), edges)


@given(graphs(), graphs(), st.randoms(use_true_random=False))
def test_node_order_does_not_change_the_distance(g1, g2, rnd):
    base = gedkit.ged(g1, g2).distance
    order1 = list(range(g1.n))
    order2 = list(range(g2.n))
    rnd.shuffle(order1)
    rnd.shuffle(order2)
    assert gedkit.ged(g1.permuted(order1), g2.permuted(order2)).distance == base


@given(graphs(), graphs())
def test_symmetric_costs_give_a_symmetric_distance(g1, g2):
    model = costs.constant(node_ins=2, node_del=2, node_sub=3, edge_ins=1, edge_del=1, edge_sub=1)
    assert gedkit.ged(g1, g2, costs=model).distance == gedkit.ged(g2, g1, costs=model).distance


@given(graphs())
def test_self_distance_is_zero(g):
    r = gedkit.ged(g, g)
    assert r.distance == 0 and r.optimal


@given(graphs(), graphs())
def test_upper_bound_is_the_recomputed_cost_of_the_map(g1, g2):
    model = costs.constant(
        node_ins=1, node_del=2, node_sub=1.5, edge_ins=0.5, edge_del=1, edge_sub=2
    )
    for method in ("astar", "dfs"):
        r = gedkit.ged(g1, g2, costs=model, method=method)
        p = model.compile(g1, g2)
        assert p.cost(r.assignment) == r.upper_bound
        assert np.isclose(sum(op.cost for op in r.edit_path), r.upper_bound)


@given(graphs(max_nodes=5), graphs(max_nodes=5), graphs(max_nodes=5))
def test_triangle_inequality_for_metric_costs(a, b, c):
    ab = gedkit.ged(a, b).distance
    bc = gedkit.ged(b, c).distance
    ac = gedkit.ged(a, c).distance
    assert ac <= ab + bc + 1e-9


@given(graphs(), graphs(), st.booleans(), st.randoms(use_true_random=False))
def test_cheap_bounds_bound_the_exact_distance(g1, g2, directed, rnd):
    """What a solve answers while its kernels compile (or cannot start in time): a lower
    bound at most the distance and the recomputed cost of its map, under fixed pairs and
    on arcs too."""
    from gedkit.budget import Budget
    from gedkit.solvers.cheap import cheap_bounds

    if directed:
        g1, g2 = (Graph(dict(enumerate(g.node_labels)),
                        [(a, b, lab) for (a, b), lab in zip(g.edges.tolist(), g.edge_labels,
                                                                strict=True)],
                        directed=True) for g in (g1, g2))
    model = costs.constant(node_ins=1, node_del=2, node_sub=1.5, edge_ins=0.5, edge_del=1,
                           edge_sub=2)
    problem = model.compile(g1, g2)
    if g1.n and g2.n and rnd.random() < 0.5:
        problem = problem.constrained(fixed=[(rnd.randrange(g1.n), rnd.randrange(g2.n))])
    cheap = cheap_bounds(problem, Budget(), "test")
    exact = gedkit.solvers.get_solver("astar").solve(problem, Budget())
    assert cheap.lower_bound <= exact.distance + 1e-9 <= cheap.upper_bound + 2e-9
    assert cheap.upper_bound == problem.cost(cheap.assignment)


@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans(), st.booleans())
def test_the_small_search_of_the_cheap_bounds_is_exact(seed, directed, fixed, constant):
    """The plain-Python search a solve without compiled kernels runs on small pairs: the
    brute-force distance under random costs (not symmetric; or random constant costs, where
    it prunes by label counts), on arcs, with self-loops and with fixed pairs, from whatever
    map it starts; its map's cost is the distance."""
    from gedkit.budget import Budget
    from gedkit.solvers.cheap import small_search
    from gedkit.testing import brute_force_ged, random_costs, random_graph

    rng = np.random.default_rng(seed)
    g1, g2 = (random_graph(rng, int(rng.integers(0, 6)), p=0.5, loops=0.2, directed=directed)
              for _ in range(2))
    model = (costs.constant(*rng.uniform(0.1, 3.0, 6).round(2).tolist()) if constant
             else random_costs(rng))
    problem = model.compile(g1, g2)
    if fixed and g1.n and g2.n:
        problem = problem.constrained(fixed=[(int(rng.integers(g1.n)), int(rng.integers(g2.n)))])
    start = np.full(g1.n, -1, dtype=np.int64)  # everything deleted, inserted
    found, optimal = small_search(problem, start, Budget())
    assert optimal
    assert problem.cost(found) == pytest.approx(brute_force_ged(problem), abs=1e-9)


@given(st.integers(0, 2**32 - 1), st.booleans())
def test_the_small_search_of_the_mces_cheap_bounds_is_exact(seed, rings):
    """Its MCES counterpart: the brute-force number of common edges, from an empty map,
    under ``ring_matches_ring_only`` too (rings are labels of the problem's edges)."""
    from gedkit.budget import Budget
    from gedkit.mces.bounds import class_count_bound
    from gedkit.mces.cheap import small_search
    from gedkit.mces.problem import MCESProblem
    from gedkit.testing import random_graph
    from gedkit.testing.brute import brute_force_mces

    rng = np.random.default_rng(seed)
    g1, g2 = (random_graph(rng, int(rng.integers(0, 6)), p=0.5, n_labels=2)
              for _ in range(2))
    problem = MCESProblem(g1, g2, ring_matches_ring_only=rings)
    found, optimal = small_search(problem, np.full(g1.n, -1, dtype=np.int64),
                                  class_count_bound(problem), Budget())
    assert optimal
    # every map of g1's nodes onto distinct nodes of g2 or none, counted by the problem
    best = max(problem.count(list(images)) for images in itertools.product(
        range(-1, g2.n), repeat=g1.n) if len({i for i in images if i >= 0}) ==
        sum(i >= 0 for i in images) and all(
            i < 0 or problem.node_labels1[u] == problem.node_labels2[i]
            for u, i in enumerate(images)))
    assert problem.count(found) == best
    if not rings:
        assert best == brute_force_mces(g1, g2)


def test_a_first_call_without_kernels_proves_a_small_pair():
    """A fresh process whose numba start-up does not fit its limit answers with the cheap
    bounds: on pairs of a few nodes they now search them through (3 against 2 before)."""
    from gedkit.budget import Budget
    from gedkit.solvers.cheap import cheap_bounds

    problem = costs.uniform().compile(gedkit.from_smiles("CCO"), gedkit.from_smiles("CC(=O)O"))
    cheap = cheap_bounds(problem, Budget(timeout=1), "test")
    assert (cheap.upper_bound, cheap.optimal) == (2, True)
    from gedkit.mces.cheap import cheap_bounds as mces_cheap_bounds
    from gedkit.mces.problem import MCESProblem

    common = mces_cheap_bounds(MCESProblem(gedkit.from_smiles("CCO"),
                                           gedkit.from_smiles("CC(=O)O")), Budget(timeout=1),
                               "test")
    assert (common.num_edges, common.optimal) == (2, True)  # (1, unproven, before)


def test_cheap_bounds_see_through_a_new_node_order():
    """A molecule against itself in another node order: the map grown edge-aware (ties to the
    most alike neighbourhood) finds an identity, so that a first call that cannot wait for
    compiled kernels still proves distance 0."""
    from gedkit.budget import Budget
    from gedkit.solvers.cheap import cheap_bounds

    rng = np.random.default_rng(7)
    for smiles in ("CC(=O)Nc1ccc(O)cc1", "Cn1cnc2c1c(=O)n(C)c(=O)n2C",
                   "CC(C)Cc1ccc(cc1)C(C)C(=O)O"):
        g = gedkit.from_smiles(smiles)
        for _ in range(3):
            turned = g.permuted(rng.permutation(g.n).tolist())
            cheap = cheap_bounds(costs.uniform().compile(g, turned), Budget(), "test")
            assert cheap.optimal and cheap.upper_bound == 0, smiles
