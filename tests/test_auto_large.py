"""auto's path for pairs of 1,000+ nodes (IPFP from STAR's map) and the IPFP it relies on,
checked on small pairs: the size threshold and the stage choices are lowered or forced here."""

import numpy as np
import pytest
from helpers import brute_force, random_costs, random_graph

from gedkit import costs
from gedkit._kernels.quadratic import quadratic_product
from gedkit.solvers import Budget, get_solver
from gedkit.solvers import auto as auto_module
from gedkit.solvers.heuristics.ipfp import _random_map, assignment_matrix, frank_wolfe, map_product
from gedkit.solvers.heuristics.lsape import neighbours
from gedkit.solvers.heuristics.star import star_assignment
from gedkit.solvers.heuristics.start import start


def _problems(count=30, low=0, high=9, seed=21):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        g1 = random_graph(rng, int(rng.integers(low, high)), p=0.4, n_labels=3)
        g2 = random_graph(rng, int(rng.integers(low, high)), p=0.4, n_labels=3)
        model = [costs.uniform(), costs.constant(*rng.uniform(0.2, 3, 6)), random_costs(rng)][
            trial % 3
        ]
        yield rng, model.compile(g1, g2)


def _auto_on_large(count, low, seed, timeout):
    """``(problem, auto's result, its stages' methods)`` on those of :func:`_problems` with a
    graph of 10+ nodes (the lowered threshold of auto's path for large pairs)."""
    for _, p in _problems(count=count, low=low, high=30, seed=seed):
        if max(p.n1, p.n2) >= 10:
            r = get_solver("auto").solve(p, Budget(timeout=timeout))
            yield p, r, [s["method"] for s in r.stats["stages"]]


def test_map_product_is_the_kernel_product_of_the_map():
    for rng, p in _problems(count=45, high=12):
        nb = neighbours(p)
        for _ in range(4):
            f = _random_map(rng, p.n1, p.n2)
            expected = quadratic_product(assignment_matrix(p, f), p.edge_label_matrix, *nb)
            np.testing.assert_allclose(map_product(p, nb, f), expected, atol=1e-9)


def test_frank_wolfe_is_never_worse_than_its_start_and_prices_its_map():
    for rng, p in _problems(count=30, low=3, high=25):
        nb = neighbours(p)
        for _ in range(3):
            f = _random_map(rng, p.n1, p.n2)
            forward, cost, _ = frank_wolfe(p, f, nb, Budget(), 100)
            assert cost <= p.cost(f) + 1e-9
            assert cost == pytest.approx(p.cost(forward), abs=1e-9)


def test_star_start_is_stars_map_and_a_valid_bound():
    for _, p in _problems(count=24, high=6):
        s = start(p, "star", Budget())
        forward, lower = star_assignment(p)
        assert np.array_equal(s.forward, forward) and s.lower_bound == lower
        assert s.lower_bound <= brute_force(p) + 1e-9
        r = get_solver("ipfp", init="star").solve(p, Budget())
        assert r.upper_bound <= p.cost(forward) + 1e-9


@pytest.mark.parametrize("path", ["cheap first", "branch first", "ipfp, classes", "classes, ipfp",
                                  "ipfp alone"])
def test_auto_on_large_pairs_is_never_worse_than_its_cheap_start(monkeypatch, path):
    from gedkit.solvers.heuristics import branch_classes

    monkeypatch.setattr(auto_module, "IPFP_FIRST_FROM_NODES", 10)
    # a long budget (or none): the classes' bound before IPFP, which may take all of it
    monkeypatch.setattr(auto_module, "CLASSES_BOUND_FIRST_SECONDS",
                        0.0 if path == "classes, ipfp" else 5.0)
    monkeypatch.setattr(auto_module, "SHORT_ASSIGNMENTS", 10**9 if path == "cheap first" else 0)
    monkeypatch.setattr(auto_module, "BRANCH_FIRST_AFTER_ASSIGNMENTS",
                        0 if path == "branch first" else 10**9)
    if "classes" not in path:  # BRANCH by classes applies to all of these pairs
        monkeypatch.setattr(branch_classes, "CLASS_CELLS", 0)
    expected = {"cheap first": "cheap", "branch first": "branch",
                "classes, ipfp": "branch_classes"}.get(path, "ipfp")
    # the stages' kernels loaded first: their loading counts within a call's 0.5 s, and on a
    # crowded machine BRANCH's alone took all of it in a process that had not run it before
    for method in ("branch", "ipfp", "astar"):
        get_solver(method).solve(next(_problems(count=1))[1], Budget(timeout=5))
    found = 0
    for p, r, stages in _auto_on_large(9, 10, seed=4, timeout=0.5):
        assert stages[0] == expected and ("ipfp" in stages or r.optimal)
        assert r.upper_bound == p.cost(r.assignment)
        assert r.upper_bound <= p.cost(star_assignment(p)[0]) + 1e-9
        assert r.upper_bound == min(s["upper_bound"] for s in r.stats["stages"]
                                    if s["upper_bound"] is not None)
        assert r.lower_bound == max(s["lower_bound"] for s in r.stats["stages"])
        assert r.lower_bound <= r.upper_bound
        classes = [s for s in r.stats["stages"] if s["method"] == "branch_classes"]
        assert "classes" in path or not classes
        last_ipfp = len(stages) - 1 - stages[::-1].index("ipfp") if "ipfp" in stages else -1
        for s in classes:  # BRANCH's bound, without BRANCH's assignment, after IPFP
            assert stages.index("branch_classes") == (last_ipfp + 1
                                                      if path == "ipfp, classes" else 0)
            assert s["lower_bound"] == pytest.approx(
                get_solver("branch").solve(p, Budget()).lower_bound, abs=1e-9)
        found += len(classes)
    assert found or "classes" not in path


def test_auto_refines_the_map_where_ipfps_matrices_do_not_fit_the_memory_cap(monkeypatch):
    """On 1,000+ nodes under a memory cap IPFP's dense matrices may not fit: auto then runs
    REFINE's exchanges from the best map, the cheap ones included, in the time left (it
    stopped at 1 s of 5 with a map 35% above REFINE's alone, 2,000 nodes under
    memory=400M; an edited copy in its original's order got 150 at 1 s, 6,578 at 5 s)."""
    from gedkit.budget import MEMORY_CAP
    from gedkit.result import Result
    from gedkit.solvers.cheap import greedy_map
    from gedkit.solvers.heuristics.ipfp import IPFP

    def capped(self, problem, budget):  # its start only, as when its matrices do not fit
        s = start(problem, "bipartite", budget)
        return Result.from_assignment(problem, s.forward, s.lower_bound, "ipfp", stats={
            "stopped": f"{MEMORY_CAP}: IPFP's matrices do not fit the memory left"})

    monkeypatch.setattr(auto_module, "IPFP_FIRST_FROM_NODES", 10)
    monkeypatch.setattr(IPFP, "solve", capped)
    refined = 0
    for p, r, stages in _auto_on_large(12, 12, seed=8, timeout=1):
        ipfp = min(s["upper_bound"] for s in r.stats["stages"] if s["method"] == "ipfp")
        # from the cheap maps where one is better (the greedy one follows the files' order)
        assert stages.index("cheap") < stages.index("refine") or r.optimal
        assert r.upper_bound <= min(ipfp, p.cost(greedy_map(p))) + 1e-9
        assert r.upper_bound == p.cost(r.assignment) and r.lower_bound <= r.upper_bound
        refined += r.upper_bound < ipfp
    assert refined  # (the start is far from a local optimum on most of these pairs)


def test_a_map_no_step_improved_says_why(monkeypatch):
    # on thousands of nodes one assignment step may not fit what is left: IPFP, and auto
    # after it, return the starting map and say why the gap is what it is (they said nothing)
    from gedkit.solvers.heuristics import ipfp

    rng = np.random.default_rng(4)
    p = costs.uniform().compile(random_graph(rng, 40, p=0.2), random_graph(rng, 40, p=0.2))
    monkeypatch.setattr(ipfp, "lsape_seconds", lambda n1, n2: 1e6)  # no step is affordable
    r = get_solver("ipfp").solve(p, Budget(timeout=1))
    assert r.stats["iterations"] == 0 and not r.optimal
    assert r.stats["stopped"] == "time limit: one assignment step does not fit the time left"
    monkeypatch.setattr(auto_module, "IPFP_FIRST_FROM_NODES", 10)
    monkeypatch.setattr(auto_module, "lsape_seconds", lambda n1, n2: 1e6)
    r = get_solver("auto").solve(p, Budget(timeout=0.2))
    assert not r.optimal and r.stats["stopped"]  # the last stage's reason


def test_auto_short_of_time_on_a_large_pair_starts_ipfp_over_branch_classes(monkeypatch):
    """Short of time on a pair of 1,000+ nodes whose branch classes apply, auto's IPFP starts
    from the bipartite map over the classes (hundredths of a second) instead of the cheap
    bounds and STAR's map, which did not fit: at 1 s on limits.py's 1,000-2,000-node pairs
    auto was 1.5-2.5x ipfp's distance."""
    import gedkit
    from gedkit.solvers.heuristics.lsape import bipartite_assignment, classes_of

    rng = np.random.default_rng(3)
    g1 = random_graph(rng, 1000, 0.003, n_labels=2)
    g2 = random_graph(rng, 1000, 0.003, n_labels=2)
    problem = costs.uniform().compile(g1, g2)
    assert classes_of(problem) is not None
    monkeypatch.setattr(auto_module, "SHORT_ASSIGNMENTS", 1e9)  # short, whatever the budget
    r = gedkit.ged(g1, g2, timeout=3)
    assert r.stats["stages"][0]["method"] == "ipfp"
    assert r.upper_bound <= problem.cost(bipartite_assignment(problem)[0])


def test_auto_on_large_pairs_starts_ipfp_from_the_bipartite_map_then_stars(monkeypatch):
    """Where the branch classes apply, IPFP first converges from the bipartite map over them
    (from STAR's map it ended 17-49% higher on 2,000-node pairs of unrelated graphs), then
    runs from STAR's map in the time left: never worse than ``ipfp`` alone."""
    monkeypatch.setattr(auto_module, "IPFP_FIRST_FROM_NODES", 10)
    monkeypatch.setattr(auto_module, "SHORT_ASSIGNMENTS", 0)
    monkeypatch.setattr(auto_module, "CLASSES_BOUND_FIRST_SECONDS", 100.0)
    for init in ("bipartite", "star"):  # the stages' kernels loaded (see above)
        get_solver("ipfp", init=init).solve(next(_problems(count=1))[1], Budget(timeout=5))
    checked = 0
    for _, p in _problems(count=8, low=10, high=30, seed=7):
        if max(p.n1, p.n2) < 10:
            continue
        r = get_solver("auto").solve(p, Budget(timeout=1))
        stages = r.stats["stages"]
        if r.optimal and len(stages) < 2:
            continue
        assert [s["method"] for s in stages][:2] == ["ipfp", "ipfp"]
        alone = get_solver("ipfp").solve(p, Budget(timeout=5))
        assert stages[0]["upper_bound"] == alone.upper_bound
        assert r.upper_bound <= alone.upper_bound
        checked += 1
    assert checked >= 3


def test_a_large_pair_cut_short_by_the_memory_cap_names_the_cap(monkeypatch):
    """Where the memory cap left IPFP out and the call ended long before its time limit, the
    reason names the cap, not the exact stage's "time limit" (a 2,000-node pair under
    --memory 400M --timeout 8 stopped at 1 s blaming the time limit)."""
    from gedkit.solvers.exact import tree_search
    from gedkit.solvers.heuristics import ipfp

    rng = np.random.default_rng(4)
    p = costs.uniform().compile(random_graph(rng, 40, p=0.2), random_graph(rng, 40, p=0.2))
    monkeypatch.setattr(auto_module, "IPFP_FIRST_FROM_NODES", 10)
    monkeypatch.setattr(ipfp, "BYTES_PER_ENTRY", 1 << 40)  # IPFP's matrices over any cap
    monkeypatch.setattr(tree_search, "OPS_PER_SECOND", 1e-3)  # no expansion fits the time
    r = get_solver("auto").solve(p, Budget(timeout=30, memory=1 << 30))
    assert not r.optimal and r.time < 15
    assert r.stats["stopped"] == "memory cap: IPFP's matrices do not fit the memory left"
