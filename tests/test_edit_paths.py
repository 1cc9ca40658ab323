"""Every optimal edit path (gedkit.optimal_edit_paths): distinct, each optimal, as many as brute
force finds on tiny graphs; NetworkX's optimal_edit_paths expectations; limits."""

import warnings

import networkx as nx
import numpy as np
import pytest

import gedkit
from gedkit import OptionError, costs
from gedkit.testing import brute_force_optimal_maps, random_constraints, random_costs, random_graph


def _canonical(node_path, edge_path):
    # as NetworkX's own test compares paths: order-free, edges as given
    return (tuple(sorted(node_path, key=repr)),
            tuple(sorted(edge_path, key=lambda x: (None in x, repr(x)))))


def test_networkx_path_to_cycle():
    # NetworkX's test_similarity.py, test_optimal_edit_paths: P3 -> C3, cost 1, six paths
    g1, g2 = nx.path_graph(3), nx.cycle_graph(3)
    result = gedkit.optimal_edit_paths(g1, g2)
    assert result.distance == 1 and len(result) == 6 and result.complete and result.optimal
    expected = [
        ([(0, 0), (1, 1), (2, 2)], [((0, 1), (0, 1)), ((1, 2), (1, 2)), (None, (0, 2))]),
        ([(0, 0), (1, 2), (2, 1)], [((0, 1), (0, 2)), ((1, 2), (2, 1)), (None, (0, 1))]),
        ([(0, 1), (1, 0), (2, 2)], [((0, 1), (1, 0)), ((1, 2), (0, 2)), (None, (1, 2))]),
        ([(0, 1), (1, 2), (2, 0)], [((0, 1), (1, 2)), ((1, 2), (2, 0)), (None, (0, 1))]),
        ([(0, 2), (1, 0), (2, 1)], [((0, 1), (2, 0)), ((1, 2), (0, 1)), (None, (1, 2))]),
        ([(0, 2), (1, 1), (2, 0)], [((0, 1), (2, 1)), ((1, 2), (1, 0)), (None, (0, 2))]),
    ]
    paths, cost = result.networkx()
    assert cost == 1
    assert {_canonical(*p) for p in paths} == {_canonical(*p) for p in expected}
    # the same node maps NetworkX itself enumerates
    theirs, their_cost = nx.optimal_edit_paths(g1, g2)
    assert their_cost == cost
    assert {tuple(sorted(n)) for n, _ in theirs} == {tuple(sorted(m)) for m in result.node_maps}
    for path in result.edit_paths:
        assert [op.kind for op in path] == ["edge_ins"]


def test_networkx_agrees_on_random_small_graphs():
    rng = np.random.default_rng(1)
    for _ in range(6):
        g1 = nx.gnp_random_graph(int(rng.integers(1, 5)), 0.5, seed=int(rng.integers(1000)))
        g2 = nx.gnp_random_graph(int(rng.integers(1, 5)), 0.5, seed=int(rng.integers(1000)))
        theirs, cost = nx.optimal_edit_paths(g1, g2)
        ours = gedkit.optimal_edit_paths(g1, g2)
        assert ours.distance == cost and ours.complete
        assert ({tuple(sorted(n, key=repr)) for n, _ in theirs}
                == {tuple(sorted(m, key=repr)) for m in ours.node_maps})


@pytest.mark.parametrize("method", ["exact", "dfs", "auto"])
def test_every_enumerated_path_is_optimal_distinct_and_all_are_found(method):
    rng = np.random.default_rng(17)
    for trial in range(14):
        g1 = random_graph(rng, int(rng.integers(0, 5)), n_labels=2)
        g2 = random_graph(rng, int(rng.integers(0, 5)), n_labels=2)
        model = random_costs(rng, n_labels=2) if trial % 3 == 2 else costs.uniform()
        fixed, forbidden = random_constraints(rng, g1, g2) if trial % 2 else ([], [])
        problem = model.compile(g1, g2).constrained(fixed, forbidden)
        best, maps = brute_force_optimal_maps(problem, tol=1e-9)
        result = gedkit.optimal_edit_paths(g1, g2, model, method, fixed=fixed,
                                           forbidden=forbidden, limit=1000)
        where = f"pair {trial}, fixed={fixed}, forbidden={forbidden}"
        assert result.complete, where
        assert result.distance == pytest.approx(best), where
        found = [tuple(r.assignment.tolist()) for r in result]
        assert len(set(found)) == len(found), where
        assert set(found) == set(maps), where
        for r in result:
            assert r.problem.satisfies(r.assignment)
            assert r.upper_bound == pytest.approx(problem.unconstrained.cost(r.assignment))
            assert sum(op.cost for op in r.edit_path) == pytest.approx(best)


def test_the_limit_caps_the_paths_and_says_so():
    g = nx.cycle_graph(4)  # 8 automorphisms: 8 maps of cost 0
    full = gedkit.optimal_edit_paths(g, g)
    assert len(full) == 8 and full.complete and full.distance == 0
    capped = gedkit.optimal_edit_paths(g, g, limit=3)
    assert len(capped) == 3 and not capped.complete
    assert "limit of 3" in capped.stats["stopped"]
    exact = gedkit.optimal_edit_paths(g, g, limit=8)
    assert len(exact) == 8 and exact.complete  # exactly the limit, and proven that is all


def test_fixed_pairs_narrow_the_paths():
    g = nx.cycle_graph(4)
    result = gedkit.optimal_edit_paths(g, g, fixed=[(0, 0)])
    assert len(result) == 2 and result.complete  # the identity and the reflection
    assert all((0, 0) in m for m in result.node_maps)


def test_an_unproven_method_or_time_limit_never_claims_completeness():
    # a heuristic proves completeness only where its bounds decide every subproblem
    g1, g2 = nx.path_graph(3), nx.cycle_graph(3)
    assert gedkit.optimal_edit_paths(g1, g2, method="node").complete
    # subproblems a heuristic leaves open are its bounds', not a time limit's (none was set)
    open_ = gedkit.optimal_edit_paths(nx.cycle_graph(5), nx.path_graph(5), method="node")
    assert not open_.complete and open_.stats["undecided"] > 0
    assert open_.stats["stopped"] == ("the method 'node' is a heuristic: its bounds left "
                                      "some subproblems undecided")
    g1, g2 = nx.path_graph(4), nx.star_graph(3)
    assert not gedkit.ged(g1, g2, method="node").optimal
    result = gedkit.optimal_edit_paths(g1, g2, method="node")
    assert not result.complete and not result.optimal and len(result) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rng = np.random.default_rng(2)
        big1, big2 = random_graph(rng, 14, p=0.4, n_labels=1), random_graph(rng, 14, p=0.4,
                                                                            n_labels=1)
        short = gedkit.optimal_edit_paths(big1, big2, timeout=0.2)
    assert not short.complete
    assert all(r.upper_bound == short.distance for r in short) or not short.optimal


def test_results_are_plain_data():
    result = gedkit.optimal_edit_paths("CCO", "CCN")
    data = result.to_dict()
    assert data["distance"] == 1 and data["complete"] and len(data["node_maps"]) == len(result)
    assert repr(result).startswith("<EditPaths")
    assert result[0].distance == 1


@pytest.mark.parametrize("limit", [0, -1, 2.5, True, "3"])
def test_bad_limits_are_rejected(limit):
    with pytest.raises(OptionError, match="limit must be a positive integer"):
        gedkit.optimal_edit_paths("CCO", "CCN", limit=limit)


def test_networkx_edge_paths_of_directed_graphs_insert_the_reverse_arc():
    """An arc laid on u->v does not cover v->u: with both arcs in g2 the reverse one is
    inserted, as NetworkX says (it was missing, the path listing nothing of cost 1)."""
    g1, g2 = nx.DiGraph([(0, 1)]), nx.DiGraph([(0, 1), (1, 0)])
    paths, cost = gedkit.optimal_edit_paths(g1, g2).networkx()
    want, want_cost = nx.optimal_edit_paths(g1, g2)
    assert cost == want_cost == 1.0
    norm = lambda ps: sorted((sorted(n), sorted(e, key=repr)) for n, e in ps)  # noqa: E731
    assert norm(paths) == norm(want)
