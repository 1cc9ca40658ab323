"""One contract for every registered method of both questions, through the checks gedkit ships
(:mod:`gedkit.testing`, in the spirit of scikit-learn's check_estimator): a solver or MCES
method registered is checked here the moment it exists."""

from typing import ClassVar

import numpy as np
import pytest

import gedkit.mces
from gedkit import OptionError
from gedkit.mces.base import Method
from gedkit.mces.base import available as mces_methods
from gedkit.result import Result
from gedkit.solvers import Budget, Solver, available
from gedkit.testing import check_mces_method, check_solver


@pytest.mark.parametrize("name", sorted(available()))
def test_every_ged_solver_keeps_the_contract(name):
    check_solver(name)


@pytest.mark.parametrize("name", sorted(mces_methods()))
def test_every_mces_method_keeps_the_contract(name):
    check_mces_method(name)


class _Overclaiming(Solver):
    """Claims its (identity-map) answer is proven: wrong whenever that map is not optimal."""

    name = "overclaiming"
    summary = "broken on purpose"
    options: ClassVar[dict] = {}

    def solve(self, problem, budget):
        forward = np.full(problem.n1, -1, dtype=np.int64)
        ub = problem.cost(forward)
        return Result(problem, forward, ub, ub, self.name)


class _Miscounting(Method):
    """Reports one common edge more than its map keeps."""

    name = "miscounting"
    summary = "broken on purpose"
    options: ClassVar[dict] = {}

    def solve(self, problem, budget):
        result = gedkit.mces.MCESResult.from_map(problem, np.full(problem.n1, -1), problem.n1,
                                                 self.name)
        result.num_edges += 1
        return result


def test_the_checks_catch_broken_methods():
    with pytest.raises(AssertionError, match="overclaiming on pair"):
        check_solver(_Overclaiming)
    with pytest.raises(AssertionError, match=r"miscounting on pair .*common edge count"):
        check_mces_method(_Miscounting)


def test_unknown_method_is_rejected():
    with pytest.raises(OptionError, match="unknown method 'nope'"):
        gedkit.solvers.get_solver("nope")


@pytest.mark.parametrize("value", [0, -1.0, float("nan")])
def test_bad_budgets_are_rejected(value):
    with pytest.raises(OptionError):
        Budget(timeout=value)
