"""Maximum common edge subgraph: exact, graduated assignment, auto; bounds, results, retrieval,
the CLI command, bad input."""

from __future__ import annotations

import collections
import json

import networkx as nx
import numpy as np
import pytest

import gedkit
from gedkit import Graph
from gedkit.cli import main
from gedkit.errors import GraphError, OptionError
from gedkit.mces import MCESProblem, mean_average_precision, mrr, precision_at_k, rank
from gedkit.mces.base import Budget
from gedkit.mces.bounds import assignment_bound, class_count_bound, upper_bound
from gedkit.mces.exact import branch_and_bound
from gedkit.mces.refine import kick, refine
from gedkit.testing import brute_force_mces as brute_force
from gedkit.testing import check_mces_result, direct_count, random_graph

HEURISTIC_AND_EXACT = ("exact", "ga", "auto")


def small_pairs(count: int, seed: int, max_nodes: int = 6):
    rng = np.random.default_rng(seed)
    for k in range(count):
        labels = {"n_labels": int(rng.integers(1, 3)), "e_labels": int(rng.integers(1, 3))}
        low = 0 if k % 10 == 0 else 3  # a few tiny and empty graphs, mostly meatier ones
        g1 = random_graph(rng, int(rng.integers(low, max_nodes + 1)), p=0.6, **labels)
        g2 = random_graph(rng, int(rng.integers(low, max_nodes + 1)), p=0.6, **labels)
        yield g1, g2


assert_valid = check_mces_result


# -- the counting function -------------------------------------------------------------------------
def test_count_agrees_with_the_direct_definition():
    rng = np.random.default_rng(0)
    for g1, g2 in small_pairs(40, seed=1):
        p = MCESProblem(g1, g2)
        for _ in range(5):
            forward = np.full(g1.n, -1)
            for i in rng.permutation(g1.n):
                free = [j for j in range(g2.n) if j not in forward
                        and p.node_labels1[i] == p.node_labels2[j]]
                if free and rng.random() < 0.8:
                    forward[i] = rng.choice(free)
            pairs = {g1.ids[i]: g2.ids[j] for i, j in enumerate(forward) if j >= 0}
            assert p.count(forward) == direct_count(g1, g2, pairs)


def test_classes_follow_their_definition():
    # an edge's class is (its label, its ends' labels as an unordered pair), numbered jointly
    # in order of first appearance over g1's edges, then g2's; ring_matches_ring_only adds
    # whether the edge lies on a cycle
    from gedkit.mces.problem import ring_edges

    for g1, g2 in small_pairs(40, seed=5):
        for ring in (False, True):
            p = MCESProblem(g1, g2, ring_matches_ring_only=ring)
            ids: dict = {}
            expected = []
            for g in (g1, g2):
                flags = ring_edges(g).tolist() if ring else [None] * g.m
                keys = [(g.edge_labels[k], *sorted((g.node_labels[a], g.node_labels[b])),
                         flags[k]) for k, (a, b) in enumerate(g.edges.tolist())]
                expected.append([ids.setdefault(key, len(ids)) for key in keys])
            assert p.edge_classes1.tolist() == expected[0]
            assert p.edge_classes2.tolist() == expected[1]
            assert p.n_classes == len(ids)
            # the class sizes the class-count bound reads, from either side
            for q in (p, p.transposed()):
                sizes = [collections.Counter(c.tolist()) for c in (q.edge_classes1,
                                                                   q.edge_classes2)]
                assert [dict(s) for s in sizes] == list(q.class_sizes)
                assert class_count_bound(q) == sum((sizes[0] & sizes[1]).values())
            for g, adj, labels in ((g1, p.adj1, p.edge_labels1), (g2, p.adj2, p.edge_labels2)):
                want = np.full((g.n, g.n), -1)
                for k, (a, b) in enumerate(g.edges.tolist()):
                    want[a, b] = want[b, a] = labels[k]
                assert (adj == want).all()


def test_compiled_and_plain_common_edges_agree():
    # MCESProblem.common runs the kernel's plain source until compiled kernels run
    from gedkit._kernels.mces_count import common_edges
    from gedkit._kernels.mces_search import common_edges as compiled

    rng = np.random.default_rng(6)
    faults = set()
    for g1, g2 in small_pairs(40, seed=7):
        p = MCESProblem(g1, g2)
        for _ in range(6):
            f = rng.integers(-2, g2.n + 1, size=g1.n) if g2.n else np.full(g1.n, -1)
            if rng.random() < 0.5:  # mostly valid ones too
                f = np.full(g1.n, -1)
                for i, j in zip(rng.permutation(g1.n), rng.permutation(g2.n), strict=False):
                    if p.node_labels1[i] == p.node_labels2[j]:
                        f[i] = j
            f = f.astype(np.int64)
            answers = []
            for kernel in (common_edges, compiled):
                keep = np.zeros(g1.m, dtype=bool)
                found = kernel(f, np.zeros(g2.n, dtype=bool), p.node_labels1, p.node_labels2,
                               g1.edges, p.edge_labels1, g2.adjacency, p.edge_labels2, keep)
                answers.append((found, keep.tolist()))
            assert answers[0] == answers[1]
            faults.add(min(answers[0][0], 0))
            if answers[0][0] >= 0:
                assert p.common(f).tolist() == answers[0][1]
                assert p.count(f) == answers[0][0] == sum(answers[0][1])
                pairs = {g1.ids[i]: g2.ids[j] for i, j in enumerate(f) if j >= 0}
                assert p.count(f) == direct_count(g1, g2, pairs)
            else:
                with pytest.raises(gedkit.GedkitError):
                    p.count(f)
    assert len(faults) == 4  # valid (a count), a bad node, not injective, a label mismatch


def test_count_rejects_invalid_maps():
    g1 = Graph({0: "C", 1: "O"}, [(0, 1)])
    g2 = Graph({0: "C", 1: "O"}, [(0, 1)])
    p = MCESProblem(g1, g2)
    with pytest.raises(gedkit.GedkitError, match="not injective"):
        p.count([0, 0])
    with pytest.raises(gedkit.GedkitError, match="label differs"):
        p.count([1, 0])
    with pytest.raises(gedkit.GedkitError, match="needs 2 entries"):
        p.count([0])


def test_edge_labels_must_match():
    single = Graph({0: "C", 1: "C"}, [(0, 1, 1)])
    double = Graph({0: "C", 1: "C"}, [(0, 1, 2)])
    assert gedkit.mces(single, double).num_edges == 0
    assert gedkit.mces(single, single).num_edges == 1


# -- exactness and validity ------------------------------------------------------------------------
def test_exact_matches_brute_force():
    for g1, g2 in small_pairs(80, seed=2):
        r = gedkit.mces(g1, g2, "exact")
        assert r.optimal
        assert r.num_edges == brute_force(g1, g2)
        assert_valid(r, g1, g2)


def test_global_bounds_hold():
    for g1, g2 in small_pairs(40, seed=4):
        best = brute_force(g1, g2)
        p = MCESProblem(g1, g2)
        assert best <= assignment_bound(p)
        assert best <= class_count_bound(p)
        assert upper_bound(p) == min(assignment_bound(p), class_count_bound(p))


def test_exact_is_symmetric():
    rng = np.random.default_rng(5)
    for _ in range(15):
        g1 = random_graph(rng, int(rng.integers(3, 9)), p=0.4, n_labels=2)
        g2 = random_graph(rng, int(rng.integers(3, 9)), p=0.4, n_labels=2)
        assert gedkit.mces(g1, g2, "exact").num_edges == gedkit.mces(g2, g1, "exact").num_edges


def test_auto_never_loses_to_its_seed(monkeypatch):
    from gedkit.mces import auto as mces_auto

    rng = np.random.default_rng(6)
    pairs = [(random_graph(rng, 9, p=0.4, n_labels=2), random_graph(rng, 9, p=0.4, n_labels=2))
             for _ in range(10)]
    for g1, g2 in pairs:
        # the short exact search settles pairs this small before GA runs
        auto = gedkit.mces(g1, g2, "auto", seed=3, timeout=10)
        assert auto.optimal and "ga_edges" not in auto.stats
        assert auto.num_edges >= gedkit.mces(g1, g2, "ga", seed=3).num_edges
    monkeypatch.setattr(mces_auto, "PROBE_SECONDS", 0.0)  # GA first, then the seeded search
    for g1, g2 in pairs:
        auto = gedkit.mces(g1, g2, "auto", seed=3)
        assert auto.optimal
        assert auto.stats["ga_edges"] <= auto.num_edges
        assert auto.num_edges >= gedkit.mces(g1, g2, "ga", seed=3).num_edges


def test_refine_never_loses_edges():
    rng = np.random.default_rng(7)
    for g1, g2 in small_pairs(30, seed=8):
        p = MCESProblem(g1, g2)
        forward = np.full(g1.n, -1)
        for i in range(g1.n):
            free = [j for j in range(g2.n) if j not in forward
                    and p.node_labels1[i] == p.node_labels2[j]]
            if free:
                forward[i] = rng.choice(free)
        better = refine(p, forward)
        assert p.count(better) >= p.count(forward)


def test_local_search_cut_into_pieces_ends_where_one_call_ends():
    """The local search resumes where a call stopped (the next node, the visits since the
    last improvement), so a sweep cut to fit a time limit loses nothing: pieces of 7 visits
    reach the very map one call reaches, a local optimum (a whole sweep finds no move)."""
    from gedkit._kernels.mces_local_search import local_search

    rng = np.random.default_rng(5)
    for g1, g2 in [(random_graph(rng, 40, 0.1), random_graph(rng, 45, 0.1)) for _ in range(10)]:
        p = MCESProblem(g1, g2)
        args = (p.node_labels1, p.node_labels2, *p.neighbours1, p.adj2)
        whole = np.full(g1.n, -1, dtype=np.int64)
        at, stale = local_search(whole, *args, 0, 0, 10**6)
        assert stale == g1.n
        pieces = np.full(g1.n, -1, dtype=np.int64)
        at, stale, calls = 0, 0, 0
        while stale < g1.n:
            at, stale = local_search(pieces, *args, at, stale, 7)
            calls += 1
        assert calls > 1 and np.array_equal(whole, pieces)
        assert p.count(refine(p, whole)) == p.count(whole)  # nothing left to improve


def test_refine_cuts_its_sweeps_to_the_time_left():
    """With a sweep priced at 100 s, a 40 s budget pays for 40% of one at a time: refine goes
    on in such pieces and ends at the map of whole sweeps; a budget under 5% of a sweep
    leaves the map as it is."""
    rng = np.random.default_rng(3)
    for g1, g2 in [(random_graph(rng, 30, 0.15), random_graph(rng, 32, 0.15)) for _ in range(5)]:
        p = MCESProblem(g1, g2)
        start = np.full(g1.n, -1, dtype=np.int64)
        for i in range(g1.n):  # a random map, label by label
            free = [j for j in range(g2.n) if j not in start
                    and p.node_labels1[i] == p.node_labels2[j]]
            if free:
                start[i] = rng.choice(free)
        whole = refine(p, start)
        assert p.count(whole) > p.count(start)
        p._sweep_seconds = 100.0  # as if measured
        assert np.array_equal(refine(p, start, budget=Budget(timeout=40)), whole)
        assert np.array_equal(refine(p, start, budget=Budget(timeout=1)), start)


def test_kick_never_loses_edges_and_can_reach_the_optimum():
    rng = np.random.default_rng(11)
    for g1, g2 in small_pairs(20, seed=12):
        p = MCESProblem(g1, g2)
        start = np.full(g1.n, -1)
        better = kick(p, start, patience=200, seed=1)
        p.check_map(better)
        assert p.count(better) >= p.count(refine(p, start))
        assert p.count(better) <= brute_force(g1, g2)
        assert np.array_equal(better, kick(p, start, patience=200, seed=1))  # seeded
    g = random_graph(rng, 12, p=0.3, n_labels=1)
    p = MCESProblem(g, g)
    assert p.count(kick(p, np.full(g.n, -1), patience=2000)) == g.m
    assert p.count(kick(p, np.full(g.n, -1), 10**9, budget=Budget(timeout=1e-9))) >= 0


def test_kick_stops_at_the_ceiling_and_when_nothing_improves():
    rng = np.random.default_rng(3)
    g = random_graph(rng, 40, p=0.1, n_labels=1)
    p = MCESProblem(g, g)
    # with the upper bound reached the search ends at once, even with endless patience
    assert p.count(kick(p, np.arange(g.n), 10**9, ceiling=g.m)) == g.m
    # a map that no kick can improve: the search ends after its patience runs out
    assert p.count(kick(p, np.arange(g.n), 500)) == g.m


# -- time limits -----------------------------------------------------------------------------------
def hard_pair():
    rng = np.random.default_rng(9)
    return random_graph(rng, 30, p=0.2, n_labels=1), random_graph(rng, 30, p=0.2, n_labels=1)


def test_annealing_squeezed_into_its_time_still_ends_at_the_last_temperature(monkeypatch):
    """Under a deadline the β schedule rises faster and its last step is at beta_max (a
    schedule cut short at a low β decodes to a poor map); without one it is the plain
    geometric schedule. The clock is a fake that each normalisation moves by one second."""
    import scipy.sparse as sp

    from gedkit.mces import ga

    clock, betas = [0.0], []

    class Recording:  # each normalisation: one second, and the β it was given (bias 1, W 0)
        def sinkhorn(self, score, steps):
            clock[0] += 1.0
            betas.append(float(score[0]))
            return np.zeros_like(score)

    assoc = ga.AssociationGraph(np.zeros(1, np.int64), np.zeros(1, np.int64),
                                sp.csr_matrix((1, 1)))
    monkeypatch.setattr(ga.time, "perf_counter", lambda: clock[0])

    def schedule(**deadline):
        """The annealed matrix and the β of each step (after the first normalisation, at 0)."""
        betas.clear()
        clock[0] = 0.0
        soft, step = ga._anneal(assoc, Recording(), np.ones(1), 0.5, 30.0, 1.2, 1, 10,
                                **deadline)
        assert step == 1.0
        return soft, betas[1:]

    soft, plain = schedule()
    assert soft is not None and len(plain) == 23 and plain[0] == 0.5 and plain[-1] <= 30.0
    assert np.allclose(np.diff(np.log(plain)), np.log(1.2))
    soft, squeezed = schedule(until=6.0)  # the first step ends at 2 s: four more fit
    assert len(squeezed) == 5 and squeezed[0] == 0.5 and squeezed[-1] == pytest.approx(30.0)
    assert soft is not None and np.allclose(np.diff(np.log(squeezed)), np.log(60.0) / 4)
    # no second step fits: no annealed matrix (a soft one decodes worse than the greedy map)
    assert schedule(until=2.5)[0] is None
    # Ctrl-C (here a cancelled call, as Dask cancels one) stops the schedule at the next
    # normalisation, not at its end: a β step on 2,000 nodes takes seconds
    import threading

    from gedkit.budget import cancelled_by

    stop = threading.Event()

    class Stopping(Recording):
        def sinkhorn(self, score, steps):
            if len(betas) == 3:
                stop.set()
            return super().sinkhorn(score, steps)

    betas.clear()
    with cancelled_by(stop):
        soft, _ = ga._anneal(assoc, Stopping(), np.ones(1), 0.5, 30.0, 1.2, 1, 10)
    assert soft is None and len(betas) == 4


def test_paused_search_bound_is_proven():
    # an expired budget stops the search after its first chunk; the open states then bound
    rng = np.random.default_rng(10)
    for _ in range(8):
        g1 = random_graph(rng, 10, p=0.35, n_labels=1, e_labels=1)
        g2 = random_graph(rng, 10, p=0.35, n_labels=1, e_labels=1)
        p = MCESProblem(g1, g2)
        best = branch_and_bound(p, Budget()).num_edges
        paused = branch_and_bound(p, Budget(timeout=1e-9))
        assert paused.num_edges <= best <= paused.upper_bound


# -- results ---------------------------------------------------------------------------------------
def test_result_fields_and_similarity():
    g1 = Graph({1: "C", 2: "C", 3: "O", 4: "N"}, [(1, 2, 1), (2, 3, 2)])
    g2 = Graph({"a": "O", "b": "C", "c": "C"}, [("a", "b", 2), ("b", "c", 1)])
    r = gedkit.mces(g1, g2, "exact")
    assert (r.num_edges, r.lower_bound, r.upper_bound, r.optimal) == (2, 2, 2, True)
    assert r.node_map == [(1, "c"), (2, "b"), (3, "a")]
    assert r.edges == [((1, 2), ("c", "b")), ((2, 3), ("b", "a"))]
    # Johnson: (3 nodes + 2 edges)^2 / ((4 + 2) * (3 + 2)); the unmatched N does not count
    assert r.similarity == pytest.approx(25 / 30)
    data = json.loads(r.to_json())
    assert set(data) == {"num_edges", "node_map", "edges", "fragments", "lower_bound",
                         "upper_bound", "optimal", "similarity", "method", "time", "stats"}
    assert data["node_map"] == [[1, "c"], [2, "b"], [3, "a"]]
    assert "num_edges=2" in repr(r)


def test_empty_graphs():
    empty, g = Graph(), Graph({0: "C", 1: "C"}, [(0, 1)])
    for method in HEURISTIC_AND_EXACT:
        for a, b in ((empty, g), (g, empty), (empty, empty)):
            r = gedkit.mces(a, b, method)
            assert (r.num_edges, r.upper_bound, r.similarity, r.node_map) == (0, 0, 0.0, [])


def test_networkx_input():
    h1, h2 = nx.Graph(), nx.Graph()
    h1.add_edge("x", "y", bond=1)
    h2.add_edge(1, 2, bond=1)
    h2.add_edge(2, 3, bond=2)
    for h, atoms in ((h1, {"x": "C", "y": "C"}), (h2, {1: "C", 2: "C", 3: "O"})):
        nx.set_node_attributes(h, atoms, "atom")
    r = gedkit.mces(h1, h2, node_label="atom", edge_label="bond")
    assert r.num_edges == 1
    assert set(r.edges[0][0]) == {"x", "y"} and set(r.edges[0][1]) == {1, 2}


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("method", "options", "fragment"),
    [
        ("nope", {}, "unknown MCES method 'nope'"),
        ("exact", {"restarts": 2}, "has no option"),
        ("ga", {"restarts": 0}, "restarts must be an integer > 0"),
        ("ga", {"beta_rate": 0.9}, "beta_rate"),
        ("ga", {"beta0": 5.0, "beta_max": 1.0}, "beta_max"),
        ("ga", {"refine": "yes"}, "refine must be True or False"),
        ("auto", {"seed": 1.5}, "seed"),
        ("ga", {"noise": -1}, "noise"),
        ("rascal", {"max_bond_pairs": 0}, "max_bond_pairs"),
    ],
)
def test_bad_methods_and_options(method, options, fragment):
    g = Graph({0: "C", 1: "C"}, [(0, 1)])
    with pytest.raises(OptionError, match=fragment):
        gedkit.mces(g, g, method, **options)


def test_bad_graphs():
    g = Graph({0: "C", 1: "C"}, [(0, 1)])
    with pytest.raises(GraphError, match="directed"):
        gedkit.mces(nx.DiGraph([(0, 1)]), g)
    with pytest.raises(GraphError, match=r"expected a gedkit\.Graph"):
        gedkit.mces([(0, 1)], g)
    with pytest.raises(OptionError, match="timeout"):
        gedkit.mces(g, g, timeout=-1)


# -- retrieval -------------------------------------------------------------------------------------
def test_rank_orders_by_similarity():
    query = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 2)])
    candidates = [
        Graph({0: "N", 1: "N"}, [(0, 1, 1)]),
        Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 2)]),
        Graph({0: "C", 1: "C"}, [(0, 1, 1)]),
    ]
    hits = rank(query, candidates, method="exact")
    assert [h.index for h in hits] == [1, 2, 0]
    assert hits[0].similarity == 1.0 and hits[-1].similarity == 0.0
    assert hits[1].result.num_edges == 1
    with pytest.raises(OptionError, match="unknown MCES method"):
        rank(query, [], method="nope")


def test_metrics():
    rankings = [[3, 1, 2], [5, 4, 6]]
    relevant = [{1, 2}, {5}]
    assert mrr(rankings, relevant) == pytest.approx((1 / 2 + 1) / 2)
    expected_ap = ((1 / 2 + 2 / 3) / 2 + 1) / 2
    assert mean_average_precision(rankings, relevant) == pytest.approx(expected_ap)
    assert precision_at_k(rankings, relevant, 1) == pytest.approx(0.5)
    assert precision_at_k(rankings, relevant, 3) == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert mrr([[1, 2]], [{9}]) == 0.0
    # rank()'s hits are accepted as rankings
    q = Graph({0: "C", 1: "C"}, [(0, 1)])
    hits = rank(q, [Graph({0: "O"}), q], method="exact")
    assert mrr([hits], [{1}]) == 1.0


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: mrr([[1]], [{1}, {2}]), "1 rankings but 2 relevant sets"),
        (lambda: mrr([], []), "no queries"),
        (lambda: mean_average_precision([[1]], [set()]), "query 0 has no relevant item"),
        (lambda: precision_at_k([[1]], [{1}], 0), "k must be a positive integer"),
    ],
)
def test_metrics_reject_bad_input(call, fragment):
    with pytest.raises(OptionError, match=fragment):
        call()


# -- command line ----------------------------------------------------------------------------------
@pytest.fixture
def files(tmp_path):
    a = {"directed": False, "multigraph": False, "graph": {},
         "nodes": [{"id": 0, "atom": "C"}, {"id": 1, "atom": "C"}, {"id": 2, "atom": "O"}],
         "links": [{"source": 0, "target": 1, "bond": 1}, {"source": 1, "target": 2, "bond": 2}]}
    b = {"directed": False, "multigraph": False, "graph": {},
         "nodes": [{"id": "x", "atom": "C"}, {"id": "y", "atom": "C"}],
         "links": [{"source": "x", "target": "y", "bond": 1}]}
    out = []
    for name, data in (("a.json", a), ("b.json", b)):
        (tmp_path / name).write_text(json.dumps(data))
        out.append(str(tmp_path / name))
    return [*out, "--node-label", "atom", "--edge-label", "bond"]


def test_cli_text_and_json(files, capsys):
    assert main(["mces", *files, "--method", "exact"]) == 0
    out = capsys.readouterr().out
    assert "common edges  1 (optimal)" in out and "0  ->  x" in out
    assert main(["mces", *files, "--json", "--timeout", "5", "-o", "restarts=2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["num_edges"], data["optimal"], data["method"]) == (1, True, "auto")
    assert main(["mces", *files, "--json", "--no-map", "--method", "ga"]) == 0
    data = json.loads(capsys.readouterr().out)
    # (nor the fragments, the same edges again: thousands on 2,000-node pairs)
    assert "node_map" not in data and "edges" not in data and "fragments" not in data


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--method", "nope"], "unknown MCES method"),
        (["-o", "restarts"], "not of the form KEY=VALUE"),
        (["-o", "restarts=0"], "restarts must be"),
        (["--timeout", "0"], "timeout must be"),
    ],
)
def test_cli_errors(files, capsys, extra, fragment):
    assert main(["mces", *files, *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert fragment in captured.err and len(captured.err.strip().splitlines()) == 1


@pytest.mark.parametrize("method", ["ga", "nga"])
def test_the_lp_relaxation_proves_what_counting_cannot(method):
    if method == "nga":
        pytest.importorskip("torch")
    path = Graph({i: "C" for i in range(5)}, [(i, i + 1) for i in range(4)])
    tri = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2), (0, 2)])
    options = {"init": "random", "steps": 3} if method == "nga" else {}
    counted = gedkit.mces(path, tri, method, lp_bound=False, **options)
    assert (counted.num_edges, counted.upper_bound, counted.optimal) == (2, 3, False)
    proven = gedkit.mces(path, tri, method, **options)
    assert (proven.num_edges, proven.upper_bound, proven.optimal) == (2, 2, True)
    with pytest.raises(OptionError, match="lp_bound must be True or False"):
        gedkit.mces(path, tri, method, lp_bound="yes")


def test_cheap_bounds_see_through_a_new_node_order():
    """What an MCES call answers while its kernels compile or cannot start in time: on a
    molecule against itself in another node order, the greedy map (ties to the node with the
    most alike surroundings) keeps every bond, so the cheap bounds prove it; with
    connected=True its largest fragment is that whole map."""
    from gedkit.budget import Budget
    from gedkit.mces.cheap import cheap_bounds
    from gedkit.mces.problem import MCESProblem

    rng = np.random.default_rng(3)
    for smiles in ("CC(=O)Nc1ccc(O)cc1", "Cn1cnc2c1c(=O)n(C)c(=O)n2C",
                   "CC(C)Cc1ccc(cc1)C(C)C(=O)O"):
        g = gedkit.from_smiles(smiles)
        for connected in (False, True):
            turned = g.permuted(rng.permutation(g.n).tolist())
            cheap = cheap_bounds(MCESProblem(g, turned), Budget(), "test", connected=connected)
            assert cheap.optimal and cheap.num_edges == g.m, smiles


def test_auto_leaves_its_search_the_time_to_build_its_state():
    """Two unlabelled grids of 400 and 380 nodes: the search's state takes ~80 ms to build,
    more than the probe's share, so the probe gave up at once and graduated assignment took
    the whole limit: 658 common edges, unproven, where ``exact`` alone proves 721 at once."""
    import networkx as nx

    g1, g2 = nx.grid_2d_graph(20, 20), nx.grid_2d_graph(20, 19)
    gedkit.mces("CCO", "CCN", method="exact")  # numba started: no start-up in the probe's time
    r = gedkit.mces(g1, g2, timeout=2)
    assert (r.num_edges, r.optimal) == (721, True)


def test_the_local_search_prices_a_sweep_by_a_part_of_one_first(monkeypatch):
    """The local search's first call on a problem visits a sixteenth of g1's nodes, whose
    measured time prices the sweeps after it: its estimate reads no cache misses, and on
    dense 2,000-node graphs a sweep it priced within a 2 s limit took 3.5 s."""
    from gedkit._kernels import mces_local_search
    from gedkit.mces.refine import refine

    g1 = gedkit.Graph.from_networkx(nx.gnp_random_graph(64, 0.3, seed=1))
    g2 = gedkit.Graph.from_networkx(nx.gnp_random_graph(64, 0.3, seed=2))
    refine(MCESProblem(g1, g2), np.arange(64), budget=Budget(timeout=10))  # kernels loaded
    visits = []
    real = mces_local_search.local_search

    def counting(*args):
        visits.append(args[-1])
        return real(*args)

    monkeypatch.setattr(mces_local_search, "local_search", counting)
    problem = MCESProblem(g1, g2)
    refine(problem, np.arange(64), budget=Budget(timeout=10))
    assert visits[0] == 4 and problem._sweep_seconds > 0


def test_auto_on_a_large_sparse_pair_tries_the_exact_search_first():
    """Above ``EXACT_UP_TO_NODES`` auto ran graduated assignment alone: two 600-atom chains
    (methyl against amino side groups) kept 301 of 400 common edges in 10 s, where the exact
    search proves 400 in under a second. A probe of the exact search comes first now."""
    from gedkit.mces.auto import EXACT_UP_TO_NODES

    a, b = gedkit.from_smiles("CC(C)" * 200 + "O"), gedkit.from_smiles("CC(N)" * 200 + "O")
    assert a.n + b.n > EXACT_UP_TO_NODES
    result = gedkit.mces(a, b, timeout=30)
    assert result.optimal and result.num_edges == 400
