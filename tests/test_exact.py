"""Exact solvers against brute force, and their behaviour under limits."""

import math

import numpy as np
import pytest
from helpers import brute_force, random_costs, random_graph

import gedkit
from gedkit import Graph, costs
from gedkit.solvers import Budget, available, get_solver
from gedkit.solvers.exact.tree_search import search

EXACT = [name for name, cls in available().items() if cls.exact]


def _cases(count, seed, max_n=6):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n1, n2 = (int(x) for x in rng.integers(0, max_n + 1, 2))
        g1, g2 = random_graph(rng, n1), random_graph(rng, n2)
        model = [costs.uniform(), random_costs(rng), costs.constant(*rng.uniform(0.2, 3, 6))][
            trial % 3
        ]
        yield model.compile(g1, g2)


@pytest.mark.parametrize("method", EXACT)
def test_exact_methods_equal_brute_force(method):
    solver = get_solver(method)
    for p in _cases(60, seed=sum(map(ord, method))):
        expected = brute_force(p)
        r = solver.solve(p, Budget())
        assert r.optimal
        assert r.distance == pytest.approx(expected, abs=1e-9)
        assert p.cost(r.assignment) == r.upper_bound


@pytest.mark.parametrize("bound", ["branch", "labelset"])
@pytest.mark.parametrize("depth_first", [False, True])
def test_both_bounds_and_frontiers_equal_brute_force(bound, depth_first):
    for p in _cases(60, seed=17):
        r = search(p, Budget(), depth_first=depth_first, method="x", bound=bound)
        assert r.optimal and r.distance == pytest.approx(brute_force(p), abs=1e-9)


def test_counting_bound_equals_general_bound():
    # the incremental bound for label-equality costs must reproduce the general one exactly
    rng = np.random.default_rng(3)
    for trial in range(80):
        g1 = random_graph(rng, int(rng.integers(1, 8)), n_labels=2)
        g2 = random_graph(rng, int(rng.integers(1, 8)), n_labels=2)
        model = costs.constant(*rng.uniform(0.2, 3, 6)) if trial % 2 else costs.uniform()
        p = model.compile(g1, g2)
        fast = search(p, Budget(), depth_first=False, method="astar", counting=True)
        slow = search(p, Budget(), depth_first=False, method="astar", counting=False)
        assert fast.distance == slow.distance
        assert fast.stats["generated"] == slow.stats["generated"]
        fast = search(p, Budget(), depth_first=False, method="astar", counting=True,
                      bound="labelset")
        slow = search(p, Budget(), depth_first=False, method="astar", counting=False,
                      bound="labelset")
        assert fast.distance == slow.distance
        assert fast.stats["generated"] == slow.stats["generated"]


def test_empty_graphs():
    empty = Graph()
    g = Graph({0: "C", 1: "O"}, [(0, 1)])
    for method in EXACT:
        assert gedkit.ged(empty, empty, method=method).distance == 0
        assert gedkit.ged(empty, g, method=method).distance == 3
        r = gedkit.ged(g, empty, method=method)
        assert r.distance == 3 and r.optimal
        assert r.node_map == [(0, None), (1, None)]


def _hard_pair(n=22, seed=1):
    rng = np.random.default_rng(seed)
    return random_graph(rng, n, p=0.3, n_labels=2), random_graph(rng, n, p=0.3, n_labels=2)


@pytest.mark.parametrize("method", ["astar", "dfs"])
def test_timeout_returns_valid_bounds(method):
    g1, g2 = _hard_pair()
    r = gedkit.ged(g1, g2, method=method, timeout=0.2)
    p = costs.uniform().compile(g1, g2)
    assert r.lower_bound <= r.upper_bound
    assert p.cost(r.assignment) == r.upper_bound
    assert not r.optimal
    assert r.stats["stopped"] == "time limit"


def test_memory_cap_degrades_to_depth_first_and_stays_exact():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(10):
        g1, g2 = random_graph(rng, 8, p=0.4, n_labels=2), random_graph(rng, 8, p=0.4, n_labels=2)
        free = gedkit.ged(g1, g2, method="astar")
        # the weaker bound keeps a larger frontier, so the tiny cap is really reached
        capped = gedkit.ged(g1, g2, method="astar", memory=20_000, bound="labelset")
        assert capped.optimal and capped.distance == free.distance
        checked += capped.stats.get("memory_cap_hit", False)
    assert checked > 0  # the cap really was hit on some pairs


def test_a_bound_proven_elsewhere_floors_the_continued_search():
    """A* handed a lower bound mid-search (auto's program proves one) raises its open states'
    bounds to it, keeps its heap in order (smaller bound, then deeper) and still proves the
    distance: the bound is valid for every state, whatever its own."""
    from gedkit.solvers.exact.tree_search import TreeSearch

    rng = np.random.default_rng(5)
    floored = 0
    for _ in range(10):
        g1, g2 = random_graph(rng, 9, p=0.4, n_labels=2), random_graph(rng, 10, p=0.4, n_labels=2)
        p = costs.uniform().compile(g1, g2)
        distance = search(p, Budget(), depth_first=False, method="astar").distance
        run = TreeSearch(p, depth_first=False, method="astar")
        run._start()
        run.chunk = 3  # a few expansions, then the budget is spent: a frontier to floor
        run.run(Budget(timeout=1e-6))
        kernel, frontier = run.kernel, run.frontier
        live = frontier.heap[: int(run.ctl[kernel.HEAP])]
        below = len(live) > 0 and frontier.f[live].min() < distance
        run.offer(None, distance)
        live = frontier.heap[: int(run.ctl[kernel.HEAP])]
        f, depth = frontier.f[live], frontier.depth[live]
        assert (f >= distance).all()
        for child in range(1, len(live)):  # every state after its heap parent
            parent = (child - 1) // 2
            assert (f[parent], -depth[parent]) <= (f[child], -depth[child])
        floored += below
        r = run.run(Budget())
        assert r.optimal and r.distance == distance
    assert floored > 0  # some frontiers really were below the bound


def test_bad_bound_option_is_rejected():
    with pytest.raises(gedkit.OptionError, match="bound must be one of"):
        get_solver("astar", bound="magic")


def test_threshold_prunes_and_answers():
    rng = np.random.default_rng(5)
    for _ in range(30):
        g1, g2 = random_graph(rng, 6), random_graph(rng, 6)
        exact = gedkit.ged(g1, g2).distance
        for tau in (exact - 1, exact, exact + 1):
            r = gedkit.ged(g1, g2, threshold=tau)
            assert r.within_threshold == (exact <= tau)
            assert r.lower_bound <= exact <= r.upper_bound


@pytest.mark.parametrize("method", ["auto", "astar", "dfs", "mip"])
def test_a_distance_equal_to_the_threshold_up_to_rounding_is_within_it(method):
    # 0.1 + 0.1 + 0.1 is 0.30000000000000004: within 0.3, as a range search says
    step = {k: 0.1 for k in ("node_sub", "node_ins", "node_del", "edge_sub", "edge_ins",
                             "edge_del")}
    model = gedkit.costs.constant(**step)
    r = gedkit.ged("CCO", "CCCN", costs=model, method=method, threshold=0.3)
    assert r.distance > 0.3 and r.within_threshold is True
    found = gedkit.Collection()
    found.add(["CCCN"])
    assert len(found.range("CCO", 0.3, costs=model).hits) == 1
    assert gedkit.ged("CCO", "CCCN", costs=model, method=method,
                      threshold=0.2).within_threshold is not True


def test_assignment_stops_once_its_potentials_reach_enough():
    """The compiled assignment equals scipy's optimum; told what suffices, it returns either
    that optimum or a proven lower bound on it that reaches what suffices."""
    from scipy.optimize import linear_sum_assignment

    from gedkit._kernels.lsap import lsap_min

    rng = np.random.default_rng(3)
    stopped = 0
    for trial in range(300):
        n = int(rng.integers(1, 9))
        cost = rng.integers(-3, 6, (n, n)).astype(float) if trial % 2 else rng.normal(size=(n, n))
        rows, cols = linear_sum_assignment(cost)
        best = float(cost[rows, cols].sum())
        work = [np.zeros(n + 1) for _ in range(2)] + [np.zeros(n + 1, dtype=np.int64)
                                                      for _ in range(2)]
        u, v, p, way = work
        minv, used = np.zeros(n + 1), np.zeros(n + 1, dtype=np.bool_)
        assert lsap_min(cost, n, u, v, p, way, minv, used) == pytest.approx(best)
        enough = best + float(rng.uniform(-3, 1))
        got = lsap_min(cost, n, u, v, p, way, minv, used, enough)
        assert got <= best + 1e-9
        assert got >= enough - 1e-9 or got == pytest.approx(best)
        stopped += got < best - 1e-9
    assert stopped > 0  # some stopped short of the optimum


def test_assignment_started_from_given_column_potentials_finds_the_same_optimum():
    """Warm started (any column potentials in ``v``: a neighbouring matrix's optimal duals, or
    noise), the assignment reaches scipy's optimum, with optimal potentials and matching; its
    early stop still returns a proven lower bound."""
    from scipy.optimize import linear_sum_assignment

    from gedkit._kernels.lsap import lsap_min

    rng = np.random.default_rng(5)
    for trial in range(300):
        n = int(rng.integers(1, 9))
        cost = rng.integers(-3, 6, (n, n)).astype(float) if trial % 2 else rng.normal(size=(n, n))
        rows, cols = linear_sum_assignment(cost)
        best = float(cost[rows, cols].sum())
        u, v, minv = np.zeros(n + 1), np.zeros(n + 1), np.zeros(n + 1)
        p, way = np.zeros(n + 1, dtype=np.int64), np.zeros(n + 1, dtype=np.int64)
        used = np.zeros(n + 1, dtype=np.bool_)
        if trial % 3:  # the optimal duals of the matrix perturbed in one row and column
            near = cost + 0.0
            near[rng.integers(n)] += rng.integers(-2, 3, n)
            near[:, rng.integers(n)] += rng.integers(-2, 3, n)
            lsap_min(near, n, u, v, p, way, minv, used)
        else:
            v[1:] = rng.normal(scale=3, size=n)
        start = v.copy()
        assert lsap_min(cost, n, u, v, p, way, minv, used, warm=True) == pytest.approx(best)
        assert (cost - u[1:, None] - v[None, 1:] >= -1e-9).all()
        assert sorted(p[1:]) == list(range(1, n + 1))
        assert cost[p[1:] - 1, np.arange(n)].sum() == pytest.approx(best)
        assert u[1:].sum() + v[1:].sum() == pytest.approx(best)
        v[:] = start
        enough = best + float(rng.uniform(-3, 1))
        got = lsap_min(cost, n, u, v, p, way, minv, used, enough, True)
        assert got <= best + 1e-9
        assert got >= enough - 1e-9 or got == pytest.approx(best)


def test_transposed_search_maps_back_to_caller_ids():
    big = Graph({"a": 1, "b": 2, "c": 3}, [("a", "b"), ("b", "c")])
    small = Graph({"x": 2}, [])
    r = gedkit.ged(big, small)
    assert r.distance == 4
    assert ("b", "x") in r.node_map
    assert math.isclose(sum(op.cost for op in r.edit_path), r.distance)


def test_twin_classes_group_interchangeable_nodes():
    from gedkit._kernels.order import twin_classes

    # a carbon with two equal oxygens and a chlorine: the oxygens are twins, nothing else
    g = Graph(
        {0: "C", 1: "O", 2: "O", 3: "Cl", 4: "O"}, [(0, 1, 2), (0, 2, 2), (0, 3, 1), (3, 4, 1)]
    )
    p = costs.uniform().compile(g, g)
    assert twin_classes(p.adj2, p.node_labels2).tolist() == [0, 1, 1, 3, 4]


def test_symmetric_graphs_are_solved_without_exploring_mirror_images():
    # a 12-clique against an 11-clique: every node is a twin of every other
    big = Graph(range(12), [(i, j) for i in range(12) for j in range(i + 1, 12)])
    small = Graph(range(11), [(i, j) for i in range(11) for j in range(i + 1, 11)])
    r = gedkit.ged(small, big, method="astar")
    assert r.optimal and r.distance == 1 + 11
    assert r.stats["expanded"] <= 12


def test_every_caller_hands_the_tree_search_one_type():
    # bundles.ged_pair coerces each field to one array type: a transposed (F-order) cost
    # matrix or a graph's read-only edge list must not compile the search once more
    from gedkit._kernels import tree_search as kernel

    small = Graph({0: "C", 1: "O", 2: "N"}, [(0, 1, 1), (1, 2, 2)])
    large = Graph({0: "C", 1: "C", 2: "O", 3: "N"}, [(0, 1, 1), (1, 2, 2), (2, 3, 1)])
    directed = Graph({0: "C", 1: "O"}, [(0, 1)], directed=True)
    calls = [(small, large, {}), (large, small, {}), (large, small, {"threshold": 2.0}),
             (small, large, {"costs": costs.constant(1, 2, 3, 1, 2, 3)}),
             (directed, directed, {})]
    for g1, g2, kwargs in calls:
        for method in ("astar", "dfs"):
            gedkit.ged(g1, g2, method=method, **kwargs)
    assert len(kernel.tree_search.signatures) == 1


def test_neighbour_lists_from_edges_equal_those_from_the_matrix():
    """The batch verifier reads each graph's neighbour lists from its edges (O(n + m)); the
    per-pair driver from the dense matrix: the same lists, neighbours in the same order (so
    both searches run the same expansions)."""
    from gedkit._kernels.order import edge_neighbour_lists, neighbour_lists

    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 25))
        adj = np.full((n, n), -1, np.int32)
        edges, labels = [], []
        for a in range(n):
            for b in range(a + 1, n):
                if rng.random() < 0.2:
                    label = int(rng.integers(0, 4))
                    adj[a, b] = adj[b, a] = label
                    edges.append((b, a) if rng.random() < 0.5 else (a, b))
                    labels.append(label)
        shuffle = rng.permutation(len(edges))
        ends = np.array(edges, np.int32).reshape(-1, 2)[shuffle]
        labels = np.array(labels, np.int32)[shuffle]
        for mine, theirs in zip(edge_neighbour_lists(n, ends, labels), neighbour_lists(adj),
                                strict=True):
            assert mine.tolist() == theirs.tolist()


def test_a_search_left_out_for_the_kernels_start_says_so(monkeypatch):
    """A process that has not started its compiled kernels, under a limit its start does
    not fit, answers with cheaper bounds and names the start, not the search's expansion
    (a collection search's note blamed "one expansion of the search" for a molecule pair)."""
    import gedkit.solvers.exact.tree_search as tree_search

    rng = np.random.default_rng(8)
    g1, g2 = (random_graph(rng, 9, 0.4, node_values="abc") for _ in range(2))
    exact = gedkit.ged(g1, g2, method="astar").distance
    monkeypatch.setattr(tree_search, "start_up_seconds", lambda **_: 30.0)
    res = gedkit.ged(g1, g2, method="astar", timeout=1)
    assert not res.optimal
    assert res.stats["stopped"] == ("time limit: numba's start in this process (the kernels' "
                                    "first use) does not fit"), res.stats
    assert res.lower_bound <= exact <= res.upper_bound


def test_a_small_graph_against_a_large_one_is_searched_within_a_short_limit():
    """An expansion of a 7-node graph against a 1,000-node one takes a few hundredths of a
    second; its estimate (n2³ for the branch bound's assignment) said 3 s, so any shorter
    limit gave up the search before its first step and answered unproven (at 2,000 nodes
    27 s: `gedkit ged` with 20 s stopped after 0.45 s)."""
    import networkx as nx

    big = Graph.from_networkx(nx.gnm_random_graph(1000, 3000, seed=5))
    small = Graph({i: "C" for i in range(7)}, [(i, i + 1) for i in range(6)])
    for method in ("astar", "dfs"):
        res = gedkit.ged(small, big, method=method, timeout=2)
        # searched, not "one expansion of the search does not fit" (its start from BRANCH's
        # map may already prove it: no expansion then)
        assert "does not fit" not in str(res.stats.get("stopped")), res.stats
        # the 7 nodes relabelled onto a path of the large graph, the rest of it inserted
        assert res.optimal and res.distance == 7 + (1000 - 7) + (3000 - 6), res.stats


def test_a_search_whose_first_step_does_not_fit_answers_branchs_bounds(monkeypatch):
    """Where not one expansion fits the time left the search answered the cheap bounds: a
    2,000-node pair's exact search 45 where BRANCH proves 128 in 0.8 s. It answers BRANCH's
    bound and map where they fit, never worse than the cheap bounds."""
    import gedkit.solvers.exact.tree_search as tree_search
    from gedkit.solvers.cheap import cheap_bounds

    rng = np.random.default_rng(3)
    g1, g2 = (random_graph(rng, 14, 0.3, node_values="abc") for _ in range(2))
    problem = costs.uniform().compile(g1, g2)
    branch = get_solver("branch").solve(problem, Budget())
    cheap = cheap_bounds(problem, Budget(), "cheap")
    monkeypatch.setattr(tree_search, "expansion_ops", lambda *a: 1e15)
    res = get_solver("exact").solve(problem, Budget(timeout=5))
    assert res.stats["stopped"] == "time limit: one expansion of the search does not fit"
    assert res.lower_bound == max(branch.lower_bound, cheap.lower_bound)
    assert res.upper_bound == min(branch.upper_bound, cheap.upper_bound)
    assert res.upper_bound == problem.cost(res.assignment)


def test_the_frontier_grows_within_its_cap(monkeypatch):
    """Growing copies the frontier: old and new arrays together must fit the cap. Doubling
    from past a third of it to the most it holds took up to 4/3 of it (a dfs under 1 GiB
    grew its process by 1.1 GiB)."""
    import gedkit.solvers.exact.tree_search as tree_search

    grown = []
    real = tree_search._grow

    def recorded(frontier, capacity):
        grown.append((len(frontier.g), capacity))
        return real(frontier, capacity)

    monkeypatch.setattr(tree_search, "_grow", recorded)
    rng = np.random.default_rng(5)
    g1, g2 = (random_graph(rng, 12, 0.35, n_labels=2) for _ in range(2))
    problem = costs.uniform().compile(g1, g2)
    run = tree_search.TreeSearch(problem, depth_first=False, method="astar",
                                 bound="labelset", memory=1_000_000)
    result = run.run(Budget(timeout=20))
    assert grown and result.lower_bound <= result.upper_bound
    for old, new in grown:
        assert (old + new) * run.row_bytes <= 1_000_000 - run.workspace


def test_raw_arrays_are_their_base_memory():
    # the tree search's work arrays and its pair are arrays without references over their
    # buffers (gedkit._kernels.raw): the same memory, read and written in place
    from numba import njit

    from gedkit._kernels.raw import alias, part

    @njit
    def fill(buf, matrix):
        window = part(buf, 2, 3)
        window[:] = 7
        whole = alias(matrix)
        whole[0, 0] = -1.0
        return window.sum() + whole[1, 2]

    buf, matrix = np.zeros(8, dtype=np.int64), np.arange(12.0).reshape(3, 4)
    assert fill(buf, matrix) == 21 + 6.0
    assert buf.tolist() == [0, 0, 7, 7, 7, 0, 0, 0] and matrix[0, 0] == -1.0
    with pytest.raises(ValueError, match="not contiguous"):
        fill(buf, np.arange(24.0).reshape(3, 8)[:, ::2])


@pytest.mark.parametrize("method", ["dfs", "astar"])
def test_a_large_pairs_search_is_never_worse_than_its_fall_back(method):
    # a search of a large pair reaches few leaves within its limit: it starts from BRANCH's
    # map (its fall-back's), so more time never gives a worse upper bound than the fall-back
    from gedkit.solvers.heuristics.lsape import CLASSES_FROM_NODES, branch_bounds

    rng = np.random.default_rng(5)
    g1, g2 = (random_graph(rng, CLASSES_FROM_NODES, p=0.01, n_labels=3) for _ in range(2))
    problem = gedkit.costs.uniform().compile(g1, g2)
    fall_back = branch_bounds(problem, Budget(timeout=10), method)
    res = gedkit.ged(g1, g2, method=method, timeout=2)
    assert res.stats.get("stopped") is None or "does not fit" not in res.stats["stopped"]
    assert res.upper_bound <= fall_back.upper_bound + 1e-9
    assert res.lower_bound >= fall_back.lower_bound - 1e-9


def test_a_large_pair_s_tree_search_keeps_a_share_of_its_limit_to_polish_its_map(monkeypatch):
    """gedkit.ged with exact, astar or dfs on a pair of 200+ nodes keeps a tenth of the time
    left when its search starts to polish its map: the search reaches few leaves there, and its map
    was far above what a local search reaches from it (1,000 nodes at 5 s: 1,706 where 0.5 s
    of polishing gives 116). Smaller pairs, and auto, keep the whole limit."""
    import gedkit.api as api
    from gedkit.solvers.heuristics import polish

    limits, polishes = [], []
    real_solve, real_polished = api.solve_within, polish.polished
    monkeypatch.setattr(api, "solve_within", lambda solver, problem, budget: (
        limits.append(budget.timeout), real_solve(solver, problem, budget))[1])
    monkeypatch.setattr(polish, "polished", lambda result, budget: (
        polishes.append(budget.remaining()), real_polished(result, budget))[1])
    monkeypatch.setattr(api, "POLISH_FROM_NODES", 30)  # (a pair the search cannot finish)
    rng = np.random.default_rng(11)
    g1, g2 = random_graph(rng, 40, p=0.15), random_graph(rng, 40, p=0.15)
    for method in ("astar", "dfs"):
        result = gedkit.ged(g1, g2, method=method, timeout=1.0)
        assert not result.optimal and result.lower_bound <= result.upper_bound
        assert 0.85 < limits[-1] < 0.95 and len(polishes) >= 1  # (a tenth of what was left)
    polishes.clear()
    gedkit.ged(g1, g2, method="auto", timeout=1.0)
    assert limits[-1] == pytest.approx(1.0) and not polishes


def test_ctrl_c_during_the_polish_says_interrupted(monkeypatch):
    """Ctrl-C while gedkit.ged polishes an exact search's map: the answer says interrupted
    (it kept the search's "time limit" reason, and the command exited 0, not 130)."""
    from gedkit import budget as budget_module
    from gedkit.budget import InterruptedWarning
    from gedkit.solvers.exact import tree_search
    from gedkit.solvers.heuristics import polish

    monkeypatch.setattr(tree_search, "OPS_PER_SECOND", 10.0)  # no step of the search fits
    real = polish.polished

    def pressed(result, budget):  # the first Ctrl-C, heard as the polish runs
        budget_module._on_interrupt(2, None)
        return real(result, budget)

    monkeypatch.setattr(polish, "polished", pressed)
    with pytest.warns(InterruptedWarning):
        result = gedkit.ged("CC(=O)Nc1ccc(O)cc1CCCC", "CCOc1ccc(NC(C)=O)cc1CCN",
                            method="astar", timeout=5)
    assert result.stats["stopped"] == "interrupted" and not result.optimal
