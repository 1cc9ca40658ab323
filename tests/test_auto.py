"""The auto portfolio and threshold verification."""


import numpy as np
import pytest
from helpers import FIXTURES, random_costs, random_graph

import gedkit
from gedkit import costs, read_all
from gedkit.solvers import Budget, get_solver


@pytest.mark.parametrize("seed", range(6))
def test_auto_on_mid_size_pairs_keeps_every_stage_honest(seed):
    rng = np.random.default_rng(seed)
    g1 = random_graph(rng, int(rng.integers(13, 22)), p=0.2, n_labels=3)
    g2 = random_graph(rng, int(rng.integers(13, 22)), p=0.2, n_labels=3)
    model = random_costs(rng) if seed % 2 else costs.uniform()
    p = model.compile(g1, g2)
    r = get_solver("auto").solve(p, Budget(timeout=1.0))
    assert p.cost(r.assignment) == r.upper_bound
    stages = r.stats["stages"]
    assert r.stats["winner"] in {s["method"] for s in stages}
    assert r.upper_bound == min(s["upper_bound"] for s in stages)
    assert r.lower_bound == max(s["lower_bound"] for s in stages)
    assert r.optimal == (r.lower_bound >= r.upper_bound)
    if r.optimal:
        exact = gedkit.ged(g1, g2, costs=model, method="astar", timeout=60)
        assert exact.optimal and exact.distance == pytest.approx(r.distance)


def test_auto_without_a_time_limit_runs_ipfp_before_its_searches():
    """Without a limit too: a 300-node pair's unbounded exact search had found 876 after
    8 s, where IPFP's starts, run to their end, find 721 in about a second."""
    g1 = gedkit.from_smiles("CN1C=NC2=C1C(=O)N(C(=O)N2C)CCCCCCO")  # 20 atoms
    g2 = gedkit.from_smiles("OC(=O)c1ccccc1OC(=O)CCCCCCCCN")  # 21: distance 16
    r = gedkit.ged(g1, g2)
    methods = [s["method"] for s in r.stats["stages"]]
    assert r.optimal and "ipfp" in methods and methods.index("ipfp") < methods.index("astar")


def test_auto_is_the_default_and_exact_on_small_pairs():
    rng = np.random.default_rng(3)
    for _ in range(20):
        g1, g2 = random_graph(rng, 7), random_graph(rng, 8)
        r = gedkit.ged(g1, g2)
        assert r.method == "auto" and r.optimal
        assert r.distance == gedkit.ged(g1, g2, method="astar").distance


def _threshold_cases(graphs, pairs, distances, method):
    for (i, j), d in zip(pairs, distances, strict=True):
        for tau in (d - 1, d - 0.5, d, d + 2):
            r = gedkit.ged(graphs[i], graphs[j], method=method, threshold=tau)
            assert r.within_threshold == (d <= tau), (i, j, d, tau, method)
            assert r.lower_bound <= d <= r.upper_bound


@pytest.mark.parametrize("method", ["auto", "astar", "dfs"])
def test_threshold_verification_on_the_in_repo_sample(method):
    graphs = read_all(FIXTURES / "aids700_sample.txt")
    truth = np.loadtxt(FIXTURES / "aids700_sample_ged.tsv", skiprows=1, usecols=range(1, 21))
    pairs = [(i, j) for i in range(20) for j in range(20) if i != j]
    _threshold_cases(graphs, pairs, [truth[i, j] for i, j in pairs], method)


def test_threshold_verification_on_aids700nef(shared_data):
    from gedkit.datasets import load_benchmark

    bench = load_benchmark("AIDS700nef", shared_data)
    pairs = bench.pairs()
    pick = pairs[np.random.default_rng(1).choice(len(pairs), 1000, replace=False)]
    _threshold_cases(bench.graphs, pick, [bench.ged[i, j] for i, j in pick], "auto")


def test_bad_auto_option():
    with pytest.raises(gedkit.OptionError, match="ipfp_starts"):
        get_solver("auto", ipfp_starts=-1)
    with pytest.raises(gedkit.OptionError, match="learned"):
        get_solver("auto", learned="yes")


def _large_pair(seed=0):
    rng = np.random.default_rng(seed)
    g1 = random_graph(rng, 34, p=0.1, n_labels=3)
    g2 = random_graph(rng, 33, p=0.1, n_labels=3)
    return costs.uniform().compile(g1, g2)


def test_auto_runs_the_learned_stage_on_large_pairs_only_when_asked():
    pytest.importorskip("torch")
    get_solver("gelato", k=1).solve(_large_pair(1), Budget(timeout=5))  # torch loaded
    p = _large_pair()
    r = get_solver("auto").solve(p, Budget(timeout=3.0))
    methods = [s["method"] for s in r.stats["stages"]]
    assert "gelato" in methods
    assert r.upper_bound == min(s["upper_bound"] for s in r.stats["stages"])
    assert p.cost(r.assignment) == r.upper_bound
    off = get_solver("auto", learned=False).solve(p, Budget(timeout=3.0))
    assert "gelato" not in [s["method"] for s in off.stats["stages"]]


def test_auto_skips_the_learned_stage_when_it_cannot_fit(monkeypatch):
    from gedkit.learned import solver as learned
    from gedkit.solvers import auto

    p = _large_pair()
    assert not auto._learned_stage_fits(p, auto.LEARNED_MIN_SECONDS / 2, None)
    # the rest is the learned solver's own estimate (torch import included)
    monkeypatch.setattr(learned, "fits", lambda *a, **k: False)
    assert not auto._learned_stage_fits(p, 100.0, None)
    monkeypatch.setattr(learned, "fits", lambda *a, **k: True)
    assert auto._learned_stage_fits(p, 100.0, None)

    # below LEARNED_FROM_NODES the stage is not considered at all
    rng = np.random.default_rng(0)
    n = auto.LEARNED_FROM_NODES - 1
    small = costs.uniform().compile(random_graph(rng, n, p=0.1, n_labels=3),
                                    random_graph(rng, n, p=0.1, n_labels=3))
    monkeypatch.setattr(auto, "_learned_stage_fits", lambda *a: pytest.fail("considered"))
    r = get_solver("auto").solve(small, Budget(timeout=0.5))
    assert small.cost(r.assignment) == r.upper_bound


def test_auto_greedy_stage_is_a_polished_map_that_fits_its_share(monkeypatch):
    from gedkit.learned.features import greedy_completion
    from gedkit.solvers import auto

    rng = np.random.default_rng(4)
    p = costs.uniform().compile(random_graph(rng, 30, p=0.1, n_labels=3),
                                random_graph(rng, 34, p=0.1, n_labels=3))
    solver = get_solver("auto")
    r = solver._greedy(p, Budget(timeout=5.0))
    assert r.method == "greedy" and p.cost(r.assignment) == r.upper_bound
    # polished: never worse than the completion it starts from
    assert r.upper_bound <= p.cost(greedy_completion(p))
    assert solver._greedy(p, Budget(timeout=1e-4)) is None  # its estimate does not fit

    # in the portfolio: right after IPFP on a pair IPFP runs on and does not settle
    full = solver.solve(p, Budget(timeout=2.0))
    methods = [s["method"] for s in full.stats["stages"]]
    assert methods.index("greedy") == methods.index("ipfp") + 1
    assert full.upper_bound == min(s["upper_bound"] for s in full.stats["stages"])
    monkeypatch.setattr(auto, "GREEDY_SHARE", 0.0)
    r = solver.solve(p, Budget(timeout=0.5))
    assert "greedy" not in [s["method"] for s in r.stats["stages"]]


def test_auto_dives_depth_first_from_its_best_map_after_the_probe():
    """The depth-first dive runs right after the short A* probe on a pair that probe does
    not settle, starts from the best map so far (never worse than it) and fits its share."""
    from gedkit.solvers import auto

    rng = np.random.default_rng(4)
    p = costs.uniform().compile(random_graph(rng, 30, p=0.1, n_labels=3),
                                random_graph(rng, 34, p=0.1, n_labels=3))
    r = get_solver("auto").solve(p, Budget(timeout=1.5))
    stages = r.stats["stages"]
    methods = [s["method"] for s in stages]
    assert methods.index("dfs") == methods.index("astar") + 1
    dive = stages[methods.index("dfs")]
    assert dive["upper_bound"] <= min(s["upper_bound"] for s in stages[:methods.index("dfs")])
    assert dive["time"] <= auto.PROBE_SECONDS + 0.1
    assert r.upper_bound == min(s["upper_bound"] for s in stages)
    assert p.cost(r.assignment) == r.upper_bound
    solver = get_solver("auto")
    seeded = solver._dive(p, Budget(timeout=0.2), r.assignment, r.lower_bound)
    assert seeded.upper_bound <= r.upper_bound and seeded.lower_bound >= r.lower_bound


def test_auto_probes_pairs_of_hundreds_of_nodes_before_the_program():
    """A 100-node graph and a copy with a few edits: A* proves the distance at once from
    IPFP's map, so the short probe settles it and the program never runs (it took 90% of the
    time first when the probe stopped at 80 nodes: 4.7 s of a 5 s limit)."""
    rng = np.random.default_rng(12)
    g1 = random_graph(rng, 100, p=0.03, n_labels=4)
    nodes = dict(enumerate(g1.node_labels))
    for i in rng.choice(100, 5, replace=False).tolist():
        nodes[i] = "other"
    edges = [(int(a), int(b), lab) for (a, b), lab in zip(g1.edges.tolist(), g1.edge_labels,
                                                         strict=True)]
    dropped = set(rng.choice(len(edges), 5, replace=False).tolist())
    kept = [e for k, e in enumerate(edges) if k not in dropped] + [(0, 99, g1.edge_labels[0])]
    g2 = gedkit.Graph(nodes, kept)
    p = costs.uniform().compile(g1, g2)
    r = get_solver("auto").solve(p, Budget(timeout=3.0))
    methods = [s["method"] for s in r.stats["stages"]]
    assert r.optimal and "astar" in methods and "mip" not in methods, methods
    assert r.distance == gedkit.ged(g1, g2, method="astar", timeout=30).distance
