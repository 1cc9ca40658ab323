"""One contract for every registered solver (in the spirit of scikit-learn's check_estimator).

A solver registered with gedkit.solvers.register is checked here the moment it exists.
"""

import time

import numpy as np
import pytest
from helpers import brute_force, random_costs, random_graph

from gedkit import OptionError, costs
from gedkit.solvers import Budget, available, get_solver

SOLVERS = sorted(available())


def _pairs(seed):
    rng = np.random.default_rng(seed)
    for trial in range(25):
        g1 = random_graph(rng, int(rng.integers(0, 6)))
        g2 = random_graph(rng, int(rng.integers(0, 6)))
        model = random_costs(rng) if trial % 2 else costs.uniform()
        yield model.compile(g1, g2)


@pytest.mark.parametrize("name", SOLVERS)
def test_bounds_are_ordered_and_the_map_realises_the_upper_bound(name):
    solver = get_solver(name)
    for p in _pairs(seed=7):
        exact = brute_force(p)
        r = solver.solve(p, Budget(timeout=30))
        assert r.lower_bound <= exact + 1e-9
        assert exact <= r.upper_bound + 1e-9
        assert p.cost(r.assignment) == r.upper_bound
        assert r.optimal == (r.lower_bound >= r.upper_bound)
        assert r.method == name
        assert sum(op.cost for op in r.edit_path) == pytest.approx(r.upper_bound)
        if available()[name].exact:
            assert r.optimal


@pytest.mark.parametrize("name", SOLVERS)
def test_time_limit_is_honoured_without_raising(name):
    # a functional guarantee (the call comes back), not a speed test: the slack is generous
    rng = np.random.default_rng(2)
    g1 = random_graph(rng, 24, p=0.3, n_labels=2)
    g2 = random_graph(rng, 24, p=0.3, n_labels=2)
    p = costs.uniform().compile(g1, g2)
    start = time.perf_counter()
    r = get_solver(name).solve(p, Budget(timeout=0.3))
    assert time.perf_counter() - start < 10
    assert r.lower_bound <= r.upper_bound
    assert p.cost(r.assignment) == r.upper_bound


@pytest.mark.parametrize("name", SOLVERS)
def test_unknown_options_are_rejected(name):
    with pytest.raises(OptionError, match="no option"):
        get_solver(name, no_such_option=1)


def test_unknown_method_is_rejected():
    with pytest.raises(OptionError, match="unknown method 'nope'"):
        get_solver("nope")


@pytest.mark.parametrize("value", [0, -1.0, float("nan")])
def test_bad_budgets_are_rejected(value):
    with pytest.raises(OptionError):
        Budget(timeout=value)
