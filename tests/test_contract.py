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
    # a breach of any kind is an AssertionError naming the method (they were AttributeError,
    # TimeoutError... from inside the suite)
    returns_none = type("ReturnsNone", (_Overclaiming,), {
        "name": "returns_none", "solve": lambda self, problem, budget: None})
    with pytest.raises(AssertionError, match=r"returns_none on pair 0 .*returned NoneType, "
                                             r"not a Result"):
        check_solver(returns_none)

    def timing_out(self, problem, budget):
        raise TimeoutError("out of time")

    raises = type("Raises", (_Overclaiming,), {"name": "raises", "solve": timing_out})
    with pytest.raises(AssertionError, match=r"raises on pair 0 .*solve raised TimeoutError"):
        check_solver(raises)
    with pytest.raises(AssertionError, match="takes a GED solver"):
        check_solver(int)
    with pytest.raises(AssertionError, match="takes an MCES method"):
        check_mces_method(_Overclaiming)


class _Mispriced(_Overclaiming):
    """Reports an upper bound one below its map's cost."""

    name = "mispriced"

    def solve(self, problem, budget):
        cost = super().solve(problem, budget).upper_bound
        return Result(problem, np.full(problem.n1, -1, dtype=np.int64), cost - 2, cost - 1,
                      self.name)


class _NotAResult(_Mispriced):
    name = "not_a_result"

    def solve(self, problem, budget):
        return {"distance": 0}


@pytest.mark.parametrize(("cls", "says"), [
    (_Mispriced, "returned upper bound 11, but its node map costs 12"),
    (_NotAResult, "returned dict, not the result of the problem"),
])
def test_a_registered_plugin_is_held_to_the_contract(cls, says, monkeypatch):
    """An answer of a method registered from outside gedkit is checked before it reaches the
    user (its upper bound was reported whatever its map cost; a dict came out as an
    AttributeError): one GedkitError, and in a batch one failed pair."""
    from gedkit.solvers import registry

    monkeypatch.setattr(registry._SOLVERS, "_classes", dict(registry._SOLVERS._classes))
    cls.__module__ = "my_plugin"
    gedkit.solvers.register(cls)
    with pytest.raises(gedkit.GedkitError, match=says):
        gedkit.ged("CCO", "CCCN", method=cls.name)
    result = gedkit.pairwise(["CCO", "CCCN"], method=cls.name, progress=False)
    assert result.counts()["failed"] == 1


def test_results_to_dict_are_json_ready_with_numpy_ids():
    """``to_dict`` is what ``json.dumps`` takes as it is, NetworkX graphs of numpy integer
    nodes included (it raised "int64 is not JSON serializable"); ``on_improve`` that is not
    a function is one OptionError before the solve."""
    import json

    import networkx as nx

    g1, g2 = nx.Graph([(np.int64(0), np.int64(1))]), nx.Graph([(0, 1), (1, 2)])
    for result in (gedkit.ged(g1, g2), gedkit.mces(g1, g2)):
        assert json.loads(json.dumps(result.to_dict())) == result.to_dict()
    with pytest.raises(OptionError, match="on_improve must be a function"):
        gedkit.ged("CCO", "CCN", on_improve=5)


def test_registries_check_what_they_are_given_and_say_when_they_replace(monkeypatch):
    """A registry takes a method class or a model factory, one line otherwise; replacing a
    registered name (a built-in's: every caller gets the new one) warns."""
    from gedkit.costs import CostModelError
    from gedkit.solvers import registry

    monkeypatch.setattr(registry._SOLVERS, "_classes", dict(registry._SOLVERS._classes))
    with pytest.raises(OptionError, match="takes a method class with a string name"):
        gedkit.solvers.register(int)
    clone = type("Exact2", (_Overclaiming,), {"name": "exact"})
    with pytest.warns(UserWarning, match="method 'exact' is now .*Exact2: it replaces"):
        gedkit.solvers.register(clone)
    with pytest.raises(CostModelError, match="non-empty string without ':'"):
        gedkit.costs.register(3, gedkit.costs.uniform)
    monkeypatch.setattr(gedkit.costs, "_REGISTRY", dict(gedkit.costs._REGISTRY))
    monkeypatch.setattr(gedkit.costs, "_BUILT", {})
    with pytest.warns(UserWarning, match="costs='uniform' now builds another model"):
        gedkit.costs.register("uniform", lambda: gedkit.costs.constant(node_sub=7))
    gedkit.costs.register("answer", lambda: 42)
    with pytest.raises(CostModelError, match="built a int, not a CostModel"):
        gedkit.ged("C", "C", costs="answer")


def test_unknown_method_is_rejected():
    with pytest.raises(OptionError, match="unknown method 'nope'"):
        gedkit.solvers.get_solver("nope")


@pytest.mark.parametrize("value", [0, -1.0, float("nan")])
def test_bad_budgets_are_rejected(value):
    with pytest.raises(OptionError):
        Budget(timeout=value)


def test_public_helpers_refuse_arguments_of_the_wrong_type_in_one_line():
    """What a new user passes wrongly to the public helpers gets gedkit's one-line error,
    not RDKit's C++ converter error, Python's "not iterable" or an AttributeError; the
    conformance suite's counts are checked (pairs=-1 checked nothing and passed)."""
    import networkx as nx

    from gedkit.testing import check_mces_method, check_solver

    with pytest.raises(gedkit.GraphError, match="from_smiles takes a SMILES string, got int"):
        gedkit.from_smiles(5)
    with pytest.raises(gedkit.GraphError, match="nodes must be a mapping"):
        gedkit.Graph(5)
    with pytest.raises(gedkit.GraphError, match="from_networkx takes a NetworkX graph"):
        gedkit.Graph.from_networkx([(0, 1)])
    with pytest.raises(gedkit.OptionError, match="node_label must be None, an attribute"):
        gedkit.Graph.from_networkx(nx.path_graph(2), node_label=5)
    with pytest.raises(gedkit.OptionError, match="jobs must be an integer"):
        gedkit.warm_up(jobs="2", families=["cost"])
    with pytest.raises(gedkit.OptionError, match="families must be a list"):
        gedkit.warm_up(jobs=1, families="cost")
    for call in (lambda: check_solver("node", pairs=-1),
                 lambda: check_solver("node", pairs="3"),
                 lambda: check_mces_method("ga", pairs=-1)):
        with pytest.raises(gedkit.OptionError, match="pairs must be a whole number >= 0"):
            call()
    assert gedkit.warm_up(families=["cost"]) == {"cost": pytest.approx(0.0, abs=5.0)}
