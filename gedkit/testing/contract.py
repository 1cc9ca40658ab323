"""The checks every GED solver and every MCES method must pass.

GED (:func:`check_solver`): on tiny random pairs under unit and random costs (directed pairs
too, for a solver that takes them), the bounds bracket the brute-force distance, the node map
realises the upper bound (recomputed by :meth:`Problem.cost`), ``optimal`` means the bounds
meet, the edit path's costs add up to the upper bound, an exact solver proves its answer; a
time limit returns valid bounds instead of raising; unknown options are rejected. MCES
(:func:`check_mces_method`): the map is injective and label-preserving, its common edges
recounted from the graphs alone equal ``num_edges``, ``num_edges <= brute force <=
upper_bound``, an exact method proves its answer; likewise time limits and options. A method
whose optional dependency is missing is skipped (:class:`unittest.SkipTest`, which pytest
reports as a skip).
"""

from __future__ import annotations

import time
import unittest
from collections.abc import Iterator
from typing import Any

import numpy as np

from gedkit import costs
from gedkit.budget import Budget
from gedkit.errors import GraphError, MissingDependencyError, OptionError
from gedkit.graph import Graph, label_key
from gedkit.testing.brute import (
    brute_force_ged,
    brute_force_mces,
    direct_count,
    direct_ged,
    direct_ged_cost,
)
from gedkit.testing.generate import random_constraints, random_costs, random_graph
from gedkit.text import quoted

__all__ = [
    "check_all_mces_methods", "check_all_solvers", "check_mces_method", "check_mces_result",
    "check_solver",
]

_TOL = 1e-9
# a time limit is a functional guarantee here (the call comes back with valid bounds), not a
# speed test: the slack is generous, so that a loaded machine does not fail the check
_LIMIT, _SLACK = 0.3, 10.0
# MCES pairs are labelled as molecules, so that methods for molecules only (RASCAL) run too
_ATOMS, _BONDS = ("C", "N"), (1, 2)


def check_solver(method: str | type, *, pairs: int = 25, seed: int = 7,
                 timeout: float = 30.0, constrained: int = 12, looped: int = 8,
                 arcs: int = 12) -> None:
    """Run the GED contract on ``method`` (a registered name or a
    :class:`~gedkit.solvers.base.Solver` subclass); raise :class:`AssertionError` on a
    breach.

    Parameters
    ----------
    method : str or Solver subclass
        What to check.
    pairs : int
        Tiny random pairs (0-5 nodes) compared against brute force; every other one under a
        random, non-symmetric cost model.
    seed : int
        Seed of the pairs.
    timeout : float
        Seconds each tiny pair may take.
    constrained : int
        Further tiny pairs with random fixed and forbidden node pairs
        (:mod:`gedkit.constraints`): the map keeps them and the bounds bracket the
        brute-force distance under them.
    looped : int
        Further tiny pairs with self-loops, against a brute force that prices each map
        from the graphs and the cost model alone (:func:`~gedkit.testing.brute.direct_ged`).
    arcs : int
        Further tiny directed pairs (self-loops on some), priced arc by arc by that brute
        force, for a solver that takes directed graphs (``directed``); one that does not
        must refuse the first with a one-line :class:`~gedkit.errors.GraphError`.

    Examples
    --------
    >>> check_solver("branch", pairs=3)
    """
    _check_counts(pairs=pairs, constrained=constrained, looped=looped, arcs=arcs)
    cls = _solver_class(method)
    _check_options(cls)
    solver = _create(cls)
    rng = np.random.default_rng(seed)
    for trial in range(pairs):
        g1 = random_graph(rng, int(rng.integers(0, 6)))
        g2 = random_graph(rng, int(rng.integers(0, 6)))
        model = random_costs(rng) if trial % 2 else costs.uniform()
        problem = model.compile(g1, g2)
        where = f"{cls.name} on pair {trial} (seed {seed}, {g1.n} and {g2.n} nodes)"
        result = _solved(solver, problem, Budget(timeout=timeout), where)
        exact = brute_force_ged(problem)
        _check(result.lower_bound <= exact + _TOL <= result.upper_bound + 2 * _TOL,
               f"{where}: bounds {result.lower_bound}..{result.upper_bound} miss the distance "
               f"{exact}")
        _check(problem.cost(result.assignment) == result.upper_bound,
               f"{where}: upper bound {result.upper_bound} is not the cost of its node map "
               f"({problem.cost(result.assignment)})")
        _check(result.optimal == (result.lower_bound >= result.upper_bound),
               f"{where}: optimal={result.optimal} with bounds {result.lower_bound}.."
               f"{result.upper_bound}")
        _check(result.method == cls.name, f"{where}: result names method {result.method!r}")
        path_cost = sum(op.cost for op in result.edit_path)
        _check(abs(path_cost - result.upper_bound) <= 1e-6 * max(1.0, result.upper_bound),
               f"{where}: edit path costs {path_cost}, upper bound {result.upper_bound}")
        if cls.exact:
            _check(result.optimal, f"{where}: an exact solver did not prove its answer")
    _check_constrained(cls, solver, constrained, seed, timeout)
    _check_looped(cls, solver, looped, seed, timeout)
    _check_arcs(cls, solver, arcs, seed, timeout)
    # a time limit returns bounds, never raises
    rng = np.random.default_rng(2)
    g1 = random_graph(rng, 24, p=0.3, n_labels=2)
    g2 = random_graph(rng, 24, p=0.3, n_labels=2)
    problem = costs.uniform().compile(g1, g2)
    start = time.perf_counter()
    result = _solved(solver, problem, Budget(timeout=_LIMIT), f"{cls.name} under a time limit")
    spent = time.perf_counter() - start
    _check(spent < _SLACK, f"{cls.name}: a {_LIMIT} s limit came back after {spent:.1f} s")
    _check(result.lower_bound <= result.upper_bound == problem.cost(result.assignment),
           f"{cls.name}: invalid bounds under a time limit")


def _check_counts(**counts: Any) -> None:
    """Each count of pairs a whole number >= 0 (-1 checked nothing and passed; "3" was a
    TypeError)."""
    for name, count in counts.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise OptionError(f"{name} must be a whole number >= 0, got {count!r}")


def check_mces_method(method: str | type, *, pairs: int = 25, seed: int = 3) -> None:
    """Run the MCES contract on ``method`` (a registered name or a
    :class:`~gedkit.mces.base.Method` subclass); raise :class:`AssertionError` on a breach.

    Examples
    --------
    >>> check_mces_method("ga", pairs=3)
    """
    from gedkit.mces.problem import MCESProblem

    _check_counts(pairs=pairs)
    cls = _mces_class(method)
    _check_options(cls)
    solver = _create(cls)
    for trial, (g1, g2) in enumerate(_mces_pairs(pairs, seed)):
        where = f"{cls.name} on pair {trial} (seed {seed}, {g1.n} and {g2.n} nodes)"
        problem = MCESProblem(g1, g2)
        try:
            result = _solved(solver, problem, Budget(timeout=30.0), where)
        except MissingDependencyError as err:
            raise unittest.SkipTest(str(err)) from None
        check_mces_result(result, g1, g2, where)
        best = brute_force_mces(g1, g2)
        _check(result.num_edges <= best <= result.upper_bound,
               f"{where}: {result.num_edges}..{result.upper_bound} common edges miss the "
               f"maximum {best}")
        _check(result.method == cls.name, f"{where}: result names method {result.method!r}")
        if cls.exact:
            _check(result.optimal, f"{where}: an exact method did not prove its answer")
    rng = np.random.default_rng(9)
    g1, g2 = (random_graph(rng, 30, p=0.2, node_values=_ATOMS[:1], edge_values=_BONDS[:1])
              for _ in range(2))
    start = time.perf_counter()
    result = _solved(solver, MCESProblem(g1, g2), Budget(timeout=_LIMIT),
                     f"{cls.name} under a time limit")
    spent = time.perf_counter() - start
    _check(spent < _SLACK, f"{cls.name}: a {_LIMIT} s limit came back after {spent:.1f} s")
    check_mces_result(result, g1, g2, f"{cls.name} under a time limit")


def check_all_solvers(**kwargs: Any) -> list[str]:
    """:func:`check_solver` on every registered GED solver; returns their names."""
    from gedkit.solvers import available

    names = sorted(available())
    for name in names:
        check_solver(name, **kwargs)
    return names


def check_all_mces_methods(**kwargs: Any) -> list[str]:
    """:func:`check_mces_method` on every registered MCES method (those whose optional
    dependency is missing are left out); returns the names checked."""
    from gedkit.mces.base import available

    checked = []
    for name in sorted(available()):
        try:
            check_mces_method(name, **kwargs)
        except unittest.SkipTest:
            continue
        checked.append(name)
    return checked


def check_mces_result(result: Any, g1: Graph, g2: Graph, where: str = "result") -> None:
    """Raise :class:`AssertionError` unless ``result`` (an MCES result for ``g1``, ``g2``) has
    an injective, label-preserving map whose common edges, recounted from the graphs alone and
    by :meth:`MCESProblem.count`, are ``num_edges``, with bounds in order."""
    from gedkit.mces.problem import MCESProblem

    pairs = dict(result.node_map)
    _check(len(pairs) == len(result.node_map) and len(set(pairs.values())) == len(pairs),
           f"{where}: the node map is not injective")
    for u, v in pairs.items():
        _check(label_key(g1.node_label(u)) == label_key(g2.node_label(v)),
               f"{where}: node {quoted(u)} maps onto {quoted(v)}, whose label differs")
    _check(direct_count(g1, g2, pairs) == result.num_edges
           == MCESProblem(g1, g2).count(result.assignment) == len(result.edges),
           f"{where}: num_edges {result.num_edges} is not the map's common edge count")
    touched = {u for edge, _ in result.edges for u in edge}
    _check(touched == set(pairs), f"{where}: node_map holds nodes no common edge touches")
    _check(result.lower_bound == result.num_edges <= result.upper_bound,
           f"{where}: bounds out of order ({result.num_edges}..{result.upper_bound})")
    _check(result.optimal == (result.num_edges == result.upper_bound),
           f"{where}: optimal={result.optimal} with {result.num_edges}..{result.upper_bound}")


# -- helpers -----------------------------------------------------------------------------------

def _check_constrained(cls: type, solver: Any, pairs: int, seed: int, timeout: float) -> None:
    """The GED checks on tiny pairs with random fixed and forbidden node pairs."""
    rng = np.random.default_rng(seed + 1)
    for trial in range(pairs):
        g1 = random_graph(rng, int(rng.integers(1, 6)))
        g2 = random_graph(rng, int(rng.integers(1, 6)))
        fixed, forbidden = random_constraints(rng, g1, g2)
        model = random_costs(rng) if trial % 2 else costs.uniform()
        problem = model.compile(g1, g2).constrained(fixed, forbidden)
        where = (f"{cls.name} on constrained pair {trial} (seed {seed}, {g1.n} and {g2.n} "
                 f"nodes, fixed={fixed}, forbidden={forbidden})")
        result = _solved(solver, problem, Budget(timeout=timeout), where)
        _check(problem.satisfies(result.assignment),
               f"{where}: node map {result.node_map} breaks the constraints")
        exact = brute_force_ged(problem)
        _check(result.lower_bound <= exact + _TOL <= result.upper_bound + 2 * _TOL,
               f"{where}: bounds {result.lower_bound}..{result.upper_bound} miss the "
               f"constrained distance {exact}")
        real = problem.unconstrained.cost(result.assignment)
        _check(problem.cost(result.assignment) == result.upper_bound
               and abs(real - result.upper_bound) <= 1e-9 * max(1.0, real),
               f"{where}: upper bound {result.upper_bound} is not the cost of its node map "
               f"({real})")
        if cls.exact:
            _check(result.optimal, f"{where}: an exact solver did not prove its answer")


def _check_looped(cls: type, solver: Any, pairs: int, seed: int, timeout: float) -> None:
    """Tiny pairs with self-loops: the bounds bracket a distance priced without
    :class:`~gedkit.problem.Problem`, and the edit path lists the loops' edits."""
    rng = np.random.default_rng(seed + 2)
    for trial in range(pairs):
        g1, g2 = (random_graph(rng, int(rng.integers(1, 5)), loops=0.5) for _ in range(2))
        model = random_costs(rng) if trial % 2 else costs.uniform()
        where = (f"{cls.name} on looped pair {trial} (seed {seed}, {g1.n} and {g2.n} nodes, "
                 f"{len(g1.loops)} and {len(g2.loops)} loops)")
        result = _solved(solver, model.compile(g1, g2), Budget(timeout=timeout), where)
        _check_priced(cls, result, g1, g2, model, where)


def _check_arcs(cls: type, solver: Any, pairs: int, seed: int, timeout: float) -> None:
    """Tiny directed pairs: the bounds bracket the distance priced arc by arc, the map and
    the edit path realise the upper bound; or, for a solver without ``directed``, one clear
    refusal."""
    rng = np.random.default_rng(seed + 3)
    for trial in range(pairs):
        g1, g2 = (random_graph(rng, int(rng.integers(0, 5)), p=0.35, directed=True,
                               loops=0.3 if trial % 3 == 0 else 0.0) for _ in range(2))
        model = random_costs(rng) if trial % 2 else costs.uniform()
        problem = model.compile(g1, g2)
        where = f"{cls.name} on directed pair {trial} (seed {seed}, {g1.n} and {g2.n} nodes)"
        if not cls.directed:
            try:
                solver.solve(problem, Budget(timeout=timeout))
            except GraphError as err:
                _check("\n" not in str(err) and "directed" in str(err),
                       f"{where}: the refusal is not one line naming directed graphs: {err}")
                return
            raise AssertionError(f"{where}: a solver without 'directed' solved a directed pair")
        _check_priced(cls, _solved(solver, problem, Budget(timeout=timeout), where), g1, g2,
                      model, where)


def _check_priced(cls: type, result: Any, g1: Graph, g2: Graph, model: Any, where: str) -> None:
    """``result`` against the brute force that prices maps from the graphs and ``model``
    alone (:func:`~gedkit.testing.brute.direct_ged`): bounds, map, edit path, proof."""
    exact = direct_ged(g1, g2, model)
    _check(result.lower_bound <= exact + _TOL <= result.upper_bound + 2 * _TOL,
           f"{where}: bounds {result.lower_bound}..{result.upper_bound} miss the distance "
           f"{exact}")
    priced = direct_ged_cost(g1, g2, model, result.assignment)
    _check(abs(priced - result.upper_bound) <= _TOL * max(1.0, priced),
           f"{where}: upper bound {result.upper_bound} is not the cost of its node map "
           f"({priced})")
    path_cost = sum(op.cost for op in result.edit_path)
    _check(abs(path_cost - result.upper_bound) <= 1e-6 * max(1.0, result.upper_bound),
           f"{where}: edit path costs {path_cost}, upper bound {result.upper_bound}")
    if cls.exact:
        _check(result.optimal, f"{where}: an exact solver did not prove its answer")


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _solved(solver: Any, problem: Any, budget: Budget, where: str) -> Any:
    """``solver.solve(problem, budget)``, whose raising (a time limit must return bounds)
    or returning anything but the question's result type is a breach named by ``where``."""
    from gedkit.mces.problem import MCESProblem
    from gedkit.mces.result import MCESResult
    from gedkit.result import Result

    try:
        result = solver.solve(problem, budget)
    except (AssertionError, MissingDependencyError, unittest.SkipTest):
        raise
    except Exception as err:
        raise AssertionError(f"{where}: solve raised {type(err).__name__}: {err}") from err
    expected = MCESResult if isinstance(problem, MCESProblem) else Result
    _check(isinstance(result, expected),
           f"{where}: solve returned {type(result).__name__}, not a {expected.__name__}")
    return result


def _solver_class(method: str | type) -> type:
    from gedkit.solvers import Solver, solver_class

    cls = solver_class(method) if isinstance(method, str) else method
    _check(isinstance(cls, type) and issubclass(cls, Solver),
           f"check_solver takes a GED solver (a Solver subclass, or its name), got {method!r}")
    return cls


def _mces_class(method: str | type) -> type:
    import gedkit.mces  # noqa: F401  (registers the built-in methods)
    from gedkit.mces.base import Method, method_class

    cls = method_class(method) if isinstance(method, str) else method
    _check(isinstance(cls, type) and issubclass(cls, Method),
           f"check_mces_method takes an MCES method (a Method subclass, or its name), got "
           f"{method!r}")
    return cls


def _create(cls: type) -> Any:
    try:
        return cls()
    except MissingDependencyError as err:
        raise unittest.SkipTest(str(err)) from None


def _check_options(cls: type) -> None:
    from gedkit.configurable import Option

    for key, option in cls.options.items():
        _check(isinstance(option, Option) and bool(option.doc.strip()),
               f"{cls.name}: option {key} is not declared as an Option with its documentation")
        option.check(key, option.default)  # the default passes its own check
    try:
        cls(no_such_option=1)
    except OptionError as err:
        _check("no option" in str(err), f"{cls.name}: unclear message for an unknown option: "
                                        f"{err}")
    else:
        raise AssertionError(f"{cls.name}: accepted an unknown option")


def _mces_pairs(count: int, seed: int) -> Iterator[tuple[Graph, Graph]]:
    rng = np.random.default_rng(seed)
    for k in range(count):
        atoms = _ATOMS[: int(rng.integers(1, 3))]
        bonds = _BONDS[: int(rng.integers(1, 3))]
        low = 0 if k % 10 == 0 else 3  # a few tiny and empty graphs, mostly meatier ones
        yield tuple(random_graph(rng, int(rng.integers(low, 7)), p=0.6, node_values=atoms,
                                 edge_values=bonds) for _ in range(2))
