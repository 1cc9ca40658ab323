"""gedkit.pairwise: matrices equal per-pair gedkit.ged, in one process or several."""

from __future__ import annotations

import importlib
import os

import networkx as nx
import numpy as np
import pytest
from helpers import random_costs, random_graph

import gedkit
from gedkit.costs import ConstantCosts
from gedkit.pairwise import PairwiseResult

pairwise_module = importlib.import_module("gedkit.pairwise")


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(7)
    return [random_graph(rng, int(n), name=f"g{k}") for k, n in enumerate([3, 5, 4, 6, 2, 5])]


def expected(rows, cols, costs="uniform"):
    return np.array([[gedkit.ged(a, b, costs=costs).distance for b in cols] for a in rows])


class CountingSolver:
    """Wraps a real solver and records which pairs it was asked to solve."""

    def __init__(self, solver):
        self.solver, self.name, self.calls = solver, solver.name, []

    def solve(self, problem, budget):
        self.calls.append((problem.g1.name, problem.g2.name))
        return self.solver.solve(problem, budget)


@pytest.fixture
def counting(monkeypatch):
    made = []

    def get_solver(method, **options):
        made.append(CountingSolver(gedkit.solvers.get_solver(method, **options)))
        return made[-1]

    monkeypatch.setattr(pairwise_module, "get_solver", get_solver)
    return made


def test_square_matrix_equals_ged(graphs):
    m = gedkit.pairwise(graphs, progress=False)
    assert isinstance(m, PairwiseResult)
    assert m.shape == (6, 6)
    np.testing.assert_allclose(m.distance, expected(graphs, graphs))
    assert m.optimal.all()
    np.testing.assert_array_equal(m.lower_bound, m.upper_bound)
    assert m.method == "auto"
    assert np.all(m.time >= 0)


def test_rectangular_matrix_equals_ged(graphs):
    m = gedkit.pairwise(graphs[:2], graphs[2:], method="dfs", progress=False)
    assert m.shape == (2, 4)
    np.testing.assert_allclose(m.distance, expected(graphs[:2], graphs[2:]))
    assert m.method == "dfs"


def test_symmetric_costs_solve_each_unordered_pair_once(graphs, counting):
    m = gedkit.pairwise(graphs, progress=False)
    calls = counting[0].calls
    names = [g.name for g in graphs]
    assert sorted(calls) == sorted(
        (names[i], names[j]) for i in range(6) for j in range(i + 1, 6)
    )  # upper triangle only, diagonal not solved
    np.testing.assert_array_equal(m.distance, m.distance.T)
    np.testing.assert_array_equal(np.diag(m.distance), 0)


def test_non_symmetric_costs_give_full_matrix(graphs, counting):
    costs = ConstantCosts(node_ins=3.0, node_del=1.0, edge_ins=2.0, edge_del=0.5)
    assert not costs.symmetric
    m = gedkit.pairwise(graphs, costs=costs, progress=False)
    assert len(counting[0].calls) == 6 * 5  # every ordered pair off the diagonal
    np.testing.assert_allclose(m.distance, expected(graphs, graphs, costs))
    assert not np.allclose(m.distance, m.distance.T)


def test_diagonal_is_solved_when_identity_is_not_free(counting):
    costs = gedkit.costs.custom(node_sub=lambda a, b: 1.0, symmetric=True)  # even a -> a costs 1
    g = gedkit.Graph({0: "C", 1: "O"}, [(0, 1)], name="g")
    m = gedkit.pairwise([g], costs=costs, progress=False)
    assert counting[0].calls == [("g", "g")]
    assert m.distance[0, 0] == gedkit.ged(g, g, costs=costs).distance


def test_two_jobs_equal_one_job_with_callable_costs(graphs):
    costs = random_costs(np.random.default_rng(3))  # lambdas: must reach the workers
    one = gedkit.pairwise(graphs, costs=costs, progress=False)
    two = gedkit.pairwise(graphs, costs=costs, n_jobs=2, chunk_size=3, progress=False)
    np.testing.assert_array_equal(one.lower_bound, two.lower_bound)
    np.testing.assert_array_equal(one.upper_bound, two.upper_bound)
    np.testing.assert_allclose(one.distance, expected(graphs, graphs, costs))


def test_all_cores(graphs):
    m = gedkit.pairwise(graphs[:3], graphs[3:], n_jobs=-1, progress=False)
    np.testing.assert_allclose(m.distance, expected(graphs[:3], graphs[3:]))


def test_networkx_inputs():
    h1 = nx.path_graph(3)
    h2 = nx.star_graph(3)
    nx.set_node_attributes(h1, "C", "atom")
    nx.set_node_attributes(h2, "C", "atom")
    h2.nodes[0]["atom"] = "N"
    m = gedkit.pairwise([h1, h2], node_label="atom", progress=False)
    assert m.distance[0, 1] == gedkit.ged(h1, h2, node_label="atom").distance


def test_empty_input():
    m = gedkit.pairwise([], progress=False)
    assert m.shape == (0, 0)
    assert gedkit.pairwise([gedkit.Graph([0])], [], progress=False).shape == (1, 0)


def test_progress_false_prints_nothing(graphs, capfd):
    gedkit.pairwise(graphs, n_jobs=2, progress=False)
    gedkit.pairwise(graphs, progress=False)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_progress_true_shows_a_bar(graphs, capfd):
    gedkit.pairwise(graphs[:3], progress=True)
    out, err = capfd.readouterr()
    assert out == ""
    assert "pairwise" in err and "100%" in err


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "nope"}, gedkit.OptionError, "unknown method 'nope'"),
        ({"costs": "nope"}, gedkit.CostModelError, "unknown cost model 'nope'"),
        ({"starts": 3}, gedkit.OptionError, "no option"),
        ({"n_jobs": 0}, gedkit.OptionError, "n_jobs"),
        ({"n_jobs": -1000}, gedkit.OptionError, "n_jobs"),
        ({"chunk_size": 0}, gedkit.OptionError, "chunk_size"),
        ({"timeout": -1}, gedkit.OptionError, "timeout"),
    ],
)
def test_bad_arguments_fail_before_any_worker_starts(graphs, monkeypatch, kwargs, error, match):
    def no_pool(*args, **kw):
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(pairwise_module, "_pool", no_pool)
    with pytest.raises(error, match=match):
        gedkit.pairwise(graphs, **{"n_jobs": 2, **kwargs})


def test_bad_graph_is_a_graph_error():
    with pytest.raises(gedkit.GraphError, match=r"expected a gedkit\.Graph"):
        gedkit.pairwise(["not a graph"])


def test_errors_inside_workers_surface_as_gedkit_errors(graphs):
    def sub(a, b):
        if 2 in (a, b):
            raise ValueError("no label 2 here")
        return 1.0

    costs = gedkit.costs.custom(node_sub=sub)
    with pytest.raises(gedkit.CostModelError, match="no label 2 here"):
        gedkit.pairwise(graphs, costs=costs, n_jobs=2, progress=False)


def test_a_dying_worker_is_a_gedkit_error(graphs):
    costs = gedkit.costs.custom(node_sub=lambda a, b: os._exit(3))
    with pytest.raises(gedkit.GedkitError, match="worker process died"):
        gedkit.pairwise(graphs, costs=costs, n_jobs=2, progress=False)
