"""Fixed and forbidden node pairs (gedkit.constraints): every method keeps them, with bounds that
bracket the brute-force constrained distance; NetworkX's roots= cases; input errors; the CLI."""

import json
import warnings

import networkx as nx
import numpy as np
import pytest

import gedkit
from gedkit import GraphError, costs
from gedkit.budget import Budget
from gedkit.cli import main
from gedkit.constraints import allowed_matrix, feasible, repair, satisfies
from gedkit.solvers import available, get_solver
from gedkit.testing import brute_force_ged, random_constraints, random_costs, random_graph

METHODS = sorted(available())
EXACT = sorted(name for name, cls in available().items() if cls.exact)
TOL = 1e-9


def _pairs(seed, count, most=3, low=0, high=6):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        g1 = random_graph(rng, int(rng.integers(low, high)), n_labels=2)
        g2 = random_graph(rng, int(rng.integers(low, high)), n_labels=2)
        fixed, forbidden = random_constraints(rng, g1, g2, most=most)
        model = random_costs(rng, n_labels=2) if trial % 2 else costs.uniform()
        yield trial, model.compile(g1, g2), fixed, forbidden


@pytest.mark.parametrize("name", METHODS)
def test_every_method_keeps_the_constraints_and_brackets_brute_force(name):
    solver = get_solver(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gelato's unseen labels
        for trial, base, fixed, forbidden in _pairs(11, 16, most=5):
            problem = base.constrained(fixed, forbidden)
            result = solver.solve(problem, Budget(timeout=30))
            where = f"{name}, pair {trial}, fixed={fixed}, forbidden={forbidden}"
            assert problem.satisfies(result.assignment), where
            exact = brute_force_ged(problem)
            assert result.lower_bound <= exact + TOL, where
            assert exact <= result.upper_bound + TOL, where
            # the upper bound is the real (unconstrained) cost of a map that keeps them
            assert result.upper_bound == pytest.approx(base.cost(result.assignment), abs=TOL)
            assert result.upper_bound == problem.cost(result.assignment)
            if name in EXACT:
                assert result.optimal, where
                if name != "auto":  # (auto's stages may be heuristics)
                    assert not result.stats.get("repaired"), where
                assert result.upper_bound == pytest.approx(exact, abs=1e-7), where


@pytest.mark.parametrize("name", ["exact", "dfs", "mip"])
def test_fixed_pairs_never_lower_the_distance(name):
    for _, base, fixed, forbidden in _pairs(5, 20, low=1):
        free = get_solver(name).solve(base, Budget()).upper_bound
        bound = get_solver(name).solve(base.constrained(fixed, forbidden), Budget()).upper_bound
        assert bound >= free - TOL


def test_fixing_an_optimal_map_keeps_its_cost_and_forbidding_it_costs_at_least_as_much():
    rng = np.random.default_rng(3)
    for _ in range(10):
        g1, g2 = random_graph(rng, 5), random_graph(rng, 4)
        r = gedkit.ged(g1, g2, method="exact")
        assert gedkit.ged(g1, g2, fixed=r.node_map).distance == pytest.approx(r.distance)
        u, v = next(p for p in r.node_map if p[0] is not None)
        other = gedkit.ged(g1, g2, forbidden=[(u, v)])
        assert other.distance >= r.distance - TOL
        assert (u, v) not in other.node_map


def test_networkx_roots_cases():
    # NetworkX's test_similarity.py, test_graph_edit_distance_roots_and_timeout
    star = nx.star_graph(5)
    assert gedkit.ged(star, star, fixed=[(1, 2)]).distance == 0
    assert gedkit.ged(star, star, fixed=[(0, 1)]).distance == 8
    assert gedkit.ged(star, star, fixed=(0, 1), timeout=5).distance == 8  # a bare pair
    for roots in [(9, 3), (3, 9), (9, 9)]:
        with pytest.raises(GraphError, match="is not a node of"):
            gedkit.ged(star, star, fixed=[roots])
    with pytest.raises(GraphError, match=r"\(node of g1, node of g2\) pairs"):
        gedkit.ged(star, star, fixed=[(2,)])


def test_roots_agree_with_networkx_on_random_graphs():
    rng = np.random.default_rng(8)
    for _ in range(6):
        g1 = nx.gnp_random_graph(int(rng.integers(2, 5)), 0.5, seed=int(rng.integers(1000)))
        g2 = nx.gnp_random_graph(int(rng.integers(2, 5)), 0.5, seed=int(rng.integers(1000)))
        u, v = int(rng.integers(len(g1))), int(rng.integers(len(g2)))
        expected = nx.graph_edit_distance(g1, g2, roots=(u, v))
        assert gedkit.ged(g1, g2, fixed=[(u, v)]).distance == expected


def test_deletion_and_insertion_constraints():
    g1 = gedkit.Graph({0: "C", 1: "O"}, [(0, 1)])
    g2 = gedkit.Graph({"a": "C"}, [])
    assert gedkit.ged(g1, g2).node_map == [(0, "a"), (1, None)]
    r = gedkit.ged(g1, g2, fixed=[(0, None)])  # C must be deleted
    assert (0, None) in r.node_map and r.distance == 3
    # one pair given twice is one constraint, as with forbidden pairs (it was "fixed twice")
    assert gedkit.ged(g1, g2, fixed=[(0, None), (0, None)]).distance == 3
    r = gedkit.ged(g1, g2, forbidden=[(1, None)])  # O must stay: on a
    assert r.node_map == [(0, None), (1, "a")] and r.distance == 3
    r = gedkit.ged(g1, g2, fixed=[(None, "a")])  # a must be inserted
    assert r.node_map == [(0, None), (1, None), (None, "a")] and r.distance == 4
    r = gedkit.ged(g2, g1, forbidden=[(None, 1)], method="dfs")  # O must not be inserted
    assert ("a", 1) in r.node_map


@pytest.mark.parametrize(("fixed", "forbidden", "message"), [
    ([(5, "a")], [], r"fixed pair \(5, 'a'\): 5 is not a node of g1"),
    ([], [(0, "z")], r"forbidden pair \(0, 'z'\): 'z' is not a node of g2"),
    ([(0, "a"), (0, "b")], [], r"node 0 of g1 is fixed twice"),
    ([(0, "a"), (1, "a")], [], r"node 'a' of g2 is fixed twice"),
    ([(0, None), (0, "a")], [], r"node 0 of g1 is fixed twice"),
    ([(0, "a")], [(0, "a")], r"pair \(0, 'a'\) is both fixed and forbidden"),
    ([(None, None)], [], r"names no node"),
    ([], [(0, "a"), (0, "b"), (0, None)], r"admit no node map"),
    ([(None, "a"), (None, "b")], [(0, None), (1, None)], r"admit no node map"),
    (["ab"], [], r"pairs are \(node of g1, node of g2\) pairs"),
])
def test_bad_constraints_are_one_line_errors(fixed, forbidden, message):
    g1 = gedkit.Graph({0: "C", 1: "O"}, [(0, 1)])
    g2 = gedkit.Graph({"a": "C", "b": "N"}, [("a", "b")])
    with pytest.raises(GraphError, match=message) as err:
        gedkit.ged(g1, g2, fixed=fixed, forbidden=forbidden)
    assert "\n" not in str(err.value)


def test_no_constraints_leave_the_problem_alone():
    p = costs.uniform().compile(random_graph(np.random.default_rng(0), 3),
                                random_graph(np.random.default_rng(1), 3))
    assert p.constrained() is p and p.constrained([], []) is p
    assert p.allowed is None and p.unconstrained is p


def test_constrained_problem_seen_from_g2_costs_the_same():
    for _, base, fixed, forbidden in _pairs(21, 20, low=1):
        p = base.constrained(fixed, forbidden)
        t = p.transposed()
        assert t.allowed.shape == (p.n2 + 1, p.n1 + 1)
        assert t.unconstrained.node_costs.shape == t.node_costs.shape
        for forward in (np.full(p.n1, -1), get_solver("branch").solve(p, Budget()).assignment):
            forward = np.asarray(forward, dtype=np.int64)
            assert t.cost(p.inverse(forward)) == pytest.approx(p.cost(forward))
            assert t.satisfies(p.inverse(forward)) == p.satisfies(forward)


def test_a_map_that_breaks_the_constraints_is_repaired_into_a_result_that_keeps_them():
    from gedkit.result import Result

    for _, base, fixed, forbidden in _pairs(4, 30, most=5, low=1):
        p = base.constrained(fixed, forbidden)
        for forward in (np.full(p.n1, -1), np.arange(p.n1) % max(p.n2, 1) if p.n2 >= p.n1
                        else np.full(p.n1, -1)):
            result = Result.from_assignment(p, forward, 0.0, "test")
            assert p.satisfies(result.assignment)
            assert result.upper_bound == pytest.approx(base.cost(result.assignment))
            assert result.upper_bound < p.big_m
            assert satisfies(p.allowed, repair(p, result.assignment))


def test_allowed_matrix_and_feasibility():
    g1 = gedkit.Graph({0: "C", 1: "O"}, [])
    g2 = gedkit.Graph({"a": "C"}, [])
    p = costs.uniform().compile(g1, g2)
    assert allowed_matrix(p) is None
    allowed = allowed_matrix(p, forbidden=[(None, "a")])
    assert not allowed[2, 0] and allowed.sum() == allowed.size - 1
    assert feasible(allowed)
    allowed[:2, 0] = False
    assert not feasible(allowed)


def test_the_search_sees_constrained_nodes_apart_from_their_twins():
    # the four leaves of a star are interchangeable; forbidding one of them to one node
    # must not let the search skip the others as mirror images
    # (bound="labelset": no assignment per state, whose map would find the answer anyway;
    # with the leaves' labels not refined this search proves a wrong distance of 4)
    star = nx.star_graph(4)
    for bound in ("labelset", "branch"):
        r = gedkit.ged(star, star, method="astar", bound=bound, fixed=[(0, 0)],
                       forbidden=[(1, 1), (1, 2)])
        assert r.distance == 0 and r.optimal
        assert dict(r.node_map)[1] not in (1, 2)
    # an insertion ruled out must be priced at the leaves too (there labels alone decide)
    path = gedkit.Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2)])
    edge = gedkit.Graph({0: "C", 1: "C"}, [(0, 1)])
    for bound in ("labelset", "branch"):
        r = gedkit.ged(edge, path, method="astar", bound=bound, forbidden=[(None, 2)])
        assert r.problem.satisfies(r.assignment) and r.distance == 2 and r.optimal
        assert not r.stats.get("repaired")  # the search's own map keeps the constraint


def test_cli_fixed_and_forbidden(capsys):
    assert main(["ged", "smiles:CCO", "smiles:CCN", "--fixed", "0:2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [0, 2] in out["node_map"] and out["distance"] == 2
    assert main(["ged", "smiles:CCO", "smiles:CCN", "--forbidden", "2:", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [2, None] not in out["node_map"] and out["distance"] == 1
    assert main(["ged", "smiles:CCO", "smiles:CCN", "--fixed", "0:9"]) == 2
    assert "--fixed 0:9: 9 is not a node of B" in capsys.readouterr().err
    assert main(["ged", "smiles:CCO", "smiles:CCN", "--fixed", "0:1", "--fixed", "0:2"]) == 2
    assert "fixed twice" in capsys.readouterr().err
