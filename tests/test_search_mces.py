"""MCES similarity search: mces_range / mces_knn equal pairwise + sort, the filters' similarity
bounds hold for every node map (so none prunes a true hit), timeouts leave graphs undecided
with their bounds, and bad input gets one line."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gedkit
from gedkit import Collection, Graph
from gedkit.errors import GedkitError
from gedkit.mces.problem import MCESProblem, johnson_similarity
from gedkit.search import mces_search, merge
from gedkit.search.mces_search import MCESFilter, Verifier, _fewest_nodes
from tests.helpers import random_graph, start_up_limits

MOLECULES = ["CCO", "CCN", "CCCC", "c1ccccc1", "CC(=O)O", "CC(=O)N", "OCCO", "C1CCCCC1",
             "c1ccncc1", "CC(C)O", "CCOC", "C=CC=C", "NCCN", "CC#N", "OC(=O)CN", "CC(N)C(=O)O",
             "c1ccc(O)cc1", "OC1CCCCC1", "CCCCCC", "C"]


def _collection(graphs, **kw) -> Collection:
    coll = Collection(**kw)
    coll.add(graphs)
    return coll


def _truth(query, graphs) -> list[float]:
    return [gedkit.mces(query, g, method="exact").similarity for g in graphs]


def _random_set(seed: int, count: int = 12, n: tuple[int, int] = (1, 7)):
    rng = np.random.default_rng(seed)
    return [random_graph(rng, int(rng.integers(*n)), p=0.5, name=f"g{i}")
            for i in range(count)]


def _check(coll, query, truth, **rule):
    """mces_range and mces_knn against the pairwise truth (ties: insertion order)."""
    ranked = sorted(range(len(truth)), key=lambda i: (-truth[i], i))
    for s in (0.0, 0.25, 0.5, 0.7, 1.0):
        res = coll.mces_range(query, s, method="exact", timeout=None, **rule)
        assert res.kind == "mces_range" and res.certified and not res.undecided
        want = [i for i in ranked if truth[i] >= s - 1e-9]
        assert res.ids == want
        assert [h.distance for h in res.hits] == [truth[i] for i in want]
        assert all(h.optimal and h.lower_bound == h.upper_bound == h.distance
                   for h in res.hits)
        assert res.stats["verified"] <= res.stats["candidates"]["pairs"] \
            <= res.stats["candidates"]["branches"] <= res.stats["candidates"]["labels"]
    for k in (1, 3, len(truth)):
        res = coll.mces_knn(query, k, method="exact", timeout=None, **rule)
        assert res.kind == "mces_knn" and res.certified and not res.uncertain
        assert res.ids == ranked[:k]
        assert [h.distance for h in res.hits] == [truth[i] for i in ranked[:k]]


@pytest.mark.parametrize("seed", range(4))
def test_random_graphs_equal_pairwise_and_sort(seed):
    graphs = _random_set(seed)
    coll = _collection(graphs)
    for query in _random_set(40 + seed, count=2):
        _check(coll, query, _truth(query, graphs))


def test_molecules_equal_pairwise_and_sort():
    graphs = [gedkit.from_smiles(s) for s in MOLECULES]
    coll = _collection(MOLECULES)
    for query in ("CCO", "CC(=O)O", "c1ccccc1O", "CC(N)C(=O)OC"):
        _check(coll, query, _truth(gedkit.from_smiles(query), graphs))


def test_ring_matches_ring_only_as_gedkit_mces_takes_it():
    """The rule of gedkit.mces applies to searches too (it was refused as an option no
    method has): rings and chains of six carbons share no bond under it."""
    graphs = [gedkit.from_smiles(s) for s in MOLECULES]
    coll = _collection(MOLECULES)
    for query in ("CCCCCC", "OC1CCCCC1", "c1ccc(O)cc1"):
        q = gedkit.from_smiles(query)
        truth = [gedkit.mces(q, g, method="exact", ring_matches_ring_only=True).similarity
                 for g in graphs]
        _check(coll, query, truth, ring_matches_ring_only=True)
    hits = coll.mces_range("CCCCCC", 0.5, ring_matches_ring_only=True).ids
    assert MOLECULES.index("CCCCCC") in hits and MOLECULES.index("C1CCCCC1") not in hits
    with pytest.raises(gedkit.OptionError, match="ring_matches_ring_only"):
        coll.mces_knn("CCO", 2, ring_matches_ring_only="yes")


def test_filters_screen_a_molecule_library():
    coll = _collection(MOLECULES)
    res = coll.mces_range("c1ccccc1", 0.6)
    assert res.ids == [3, 16]  # benzene, phenol
    cands = res.stats["candidates"]
    assert cands["branches"] <= cands["labels"] < len(MOLECULES) / 2
    assert res.stats["verified"] == cands["pairs"]
    assert set(res.stats["seconds"]) >= {"labels", "branches", "pairs", "verify"}
    knn = coll.mces_knn("c1ccccc1", 2)
    assert knn.ids == [3, 16] and knn.stats["scanned"] < len(MOLECULES) / 2


def _all_maps(problem: MCESProblem):
    """Every valid node map of a small problem (injective, equal labels)."""
    options = [[-1] + [v for v in range(problem.n2)
                       if problem.node_labels1[u] == problem.node_labels2[v]]
               for u in range(problem.n1)]
    for f in itertools.product(*options):
        mapped = [v for v in f if v >= 0]
        if len(set(mapped)) == len(mapped):
            yield np.array(f, dtype=np.int64)


def _best_over_maps(problem: MCESProblem) -> tuple[int, float]:
    """(most common edges, largest similarity) over every node map."""
    best_e, best_s = 0, 0.0
    for f in _all_maps(problem):
        common = problem.common(f)
        nodes = len(np.unique(problem.g1.edges[common].ravel()))
        best_e = max(best_e, int(common.sum()))
        best_s = max(best_s, johnson_similarity(nodes, int(common.sum()), problem.g1,
                                                problem.g2))
    return best_e, best_s


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 3), st.integers(1, 3))
def test_no_filter_prunes_a_true_hit(seed, n_labels, e_labels):
    """Every stage's bound is at least the similarity of *every* node map (checked by
    enumerating them), hence of any MCES whichever a method returns; each stage is at least
    as strong as the one before; the pair bound holds too."""
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, int(rng.integers(0, 5)), p=0.6, n_labels=n_labels,
                           e_labels=e_labels) for _ in range(4)]
    query = random_graph(rng, int(rng.integers(0, 5)), p=0.6, n_labels=n_labels,
                         e_labels=e_labels)
    coll = _collection(graphs)
    filt = MCESFilter(query, coll._store.vocab)
    bounds = [bound(coll._signatures) for _, bound in filt.stages]
    verify = Verifier("exact", {}, None, None, False)
    for i, g in enumerate(graphs):
        problem = MCESProblem(query, g)
        _, best = _best_over_maps(problem)
        exact = gedkit.mces(query, g, method="exact").similarity
        assert exact <= best + 1e-12
        for ub in bounds:
            assert ub[i] >= best - 1e-12, (ub[i], best)
        assert verify.pair_bound(problem) >= best - 1e-12
    assert np.all(bounds[1] <= bounds[0] + 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_branch_bound_on_edges(seed):
    """D / 2 bounds the common edges of the MCES, and is never weaker than the edge-label
    overlap."""
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, int(rng.integers(1, 7)), p=0.6, n_labels=2)
              for _ in range(5)]
    query = random_graph(rng, int(rng.integers(1, 7)), p=0.6, n_labels=2)
    coll = _collection(graphs)
    filt = MCESFilter(query, coll._store.vocab)
    degree, touched = filt.degree_overlap(coll._signatures)
    edges, nodes = filt._label_parts(coll._signatures)
    assert np.all(degree // 2 <= edges) and np.all(touched <= nodes)
    for i, g in enumerate(graphs):
        r = gedkit.mces(query, g, method="exact")
        assert r.num_edges <= degree[i] // 2
        assert len(r.node_map) <= touched[i]


def test_fewest_nodes():
    ten = np.cumsum([10] * 20)  # degrees that bind nothing below 10 nodes
    assert [_fewest_nodes(e, ten) for e in range(8)] == [0, 2, 3, 3, 4, 4, 4, 5]
    assert _fewest_nodes(6, np.cumsum([2] * 6)) == 6  # a cycle: degrees 2
    # the sparser of two graphs binds: a star's 6 edges in a cycle-rich graph need 7 nodes
    assert _fewest_nodes(6, np.cumsum([6] + [1] * 6), np.cumsum([3] * 12)) == 7
    for e in range(1, 60):
        v = _fewest_nodes(e)
        assert v * (v - 1) // 2 >= e > (v - 1) * (v - 2) // 2
    # on random pairs the maximum common edge subgraph touches at least that many nodes
    rng = np.random.default_rng(5)
    for _ in range(20):
        g1, g2 = (random_graph(rng, int(rng.integers(4, 9)), p=0.35, n_labels=2, e_labels=1)
                  for _ in range(2))
        r = gedkit.mces(g1, g2, method="exact")
        _, sums = Verifier._touchable(r.problem)
        assert len(r.node_map) >= _fewest_nodes(r.num_edges, *sums)


def _hard_set(seed: int, count: int = 4):
    rng = np.random.default_rng(seed)
    return [random_graph(rng, 11, p=0.5, n_labels=1, e_labels=1, name=f"h{i}")
            for i in range(count)]


def test_timeout_leaves_graphs_undecided_with_bounds():
    graphs = _hard_set(7)
    query = _hard_set(8, 1)[0]
    truth = _truth(query, graphs)
    coll = _collection(graphs)
    for s in (0.3, 0.5, 0.7):
        res = coll.mces_range(query, s, method="exact", timeout=1e-3)
        assert not {h.id for h in res.hits} & {h.id for h in res.undecided}
        for h in res.hits:
            assert h.lower_bound >= s - 1e-9 and h.distance == h.lower_bound
        for h in res.undecided:
            assert h.lower_bound < s <= h.upper_bound + 1e-9 and not h.optimal
        for h in res.hits + res.undecided:
            assert h.lower_bound - 1e-9 <= truth[h.id] <= h.upper_bound + 1e-9
        # nothing dropped: every graph with a true similarity >= s is a hit or undecided
        assert {i for i, t in enumerate(truth) if t >= s} <= {h.id for h in res.hits
                                                               + res.undecided}
        assert res.certified == (not res.undecided and all(h.optimal for h in res.hits))
    knn = coll.mces_knn(query, 2, method="exact", timeout=1e-3)
    assert knn.certified == (not knn.uncertain and not knn.undecided)
    for h in knn.hits + knn.undecided:
        assert h.lower_bound - 1e-9 <= truth[h.id] <= h.upper_bound + 1e-9


def test_verifier_bounds_bracket_the_similarity():
    """A result stopped early gives bounds from the fewest and most nodes its edge counts
    can touch."""
    graphs = _hard_set(3, 3)
    query = _hard_set(4, 1)[0]
    verify = Verifier("ga", {"iterations": 2, "restarts": 1}, None, None, False)
    for g in graphs:
        result = gedkit.mces(query, g, method="ga", iterations=2, restarts=1)
        low, high = verify.bounds(result)
        exact = gedkit.mces(query, g, method="exact").similarity
        assert low <= result.similarity <= high
        assert low - 1e-12 <= exact <= high + 1e-12


def test_node_maps_on_request():
    coll = _collection(MOLECULES)
    hit = coll.mces_range("CCO", 0.5, node_map=True).hits[1]
    assert hit.node_map is not None and len(hit.node_map) >= 2
    assert coll.mces_range("CCO", 0.5).hits[0].node_map is None
    # a graph sharing nothing gets an empty map (min_similarity 0 keeps every graph)
    every = coll.mces_range("c1ccccc1", 0.0, node_map=True)
    assert len(every.hits) == len(MOLECULES)
    assert every.hits[-1].distance == 0.0 and every.hits[-1].node_map == []


def test_many_queries_processes_and_shards_agree(tmp_path):
    coll = _collection(MOLECULES)
    queries = ["CCO", "c1ccccc1", "CC(=O)O"]
    one = [coll.mces_knn(q, 3) for q in queries]
    many = coll.mces_knn(queries=queries, k=3)
    jobs = coll.mces_knn(queries=queries, k=3, n_jobs=2)
    for a, b, c in zip(one, many, jobs, strict=True):
        assert [(h.id, h.distance) for h in a.hits] == [(h.id, h.distance) for h in b.hits] \
            == [(h.id, h.distance) for h in c.hits]
    shards = [Collection.open(p) for p in coll.split(3, tmp_path)]
    whole = coll.mces_range("CCCO", 0.4)
    parts = merge([s.mces_range("CCCO", 0.4) for s in shards])
    assert [(h.id, h.distance) for h in parts.hits] == [(h.id, h.distance) for h in whole.hits]
    whole = coll.mces_knn("CCCO", 4)
    parts = merge([s.mces_knn("CCCO", 4) for s in shards])
    assert [h.distance for h in parts.hits] == [h.distance for h in whole.hits]
    assert parts.certified


def _ctrl_c_at(monkeypatch, call: int) -> None:
    """Ctrl-C in the ``call``-th verification of a search."""
    calls = {"n": 0}
    real = mces_search.Verifier.__call__

    def stopping(self, *a, **kw):
        calls["n"] += 1
        if calls["n"] == call:
            raise KeyboardInterrupt
        return real(self, *a, **kw)

    monkeypatch.setattr(mces_search.Verifier, "__call__", stopping)


@pytest.mark.parametrize("kind", ["range", "knn"])
def test_interrupted_search_says_so(monkeypatch, kind):
    coll = _collection(MOLECULES)
    _ctrl_c_at(monkeypatch, 2)
    with pytest.warns(gedkit.InterruptedWarning, match="interrupted"):
        res = coll.mces_range("CCO", 0.3) if kind == "range" else coll.mces_knn("CCO", 3)
    assert res.interrupted and not res.certified
    if kind == "knn":  # uncertain: every hit a graph not reached could be more similar to
        assert res.frontier is not None and res.uncertain
        assert res.uncertain == [h.id for h in res.hits
                                 if not (h.optimal and h.distance >= res.frontier)]
    else:  # the candidates not reached are undecided, not left out
        assert res.stats["unreached"] > 0
        assert len(res.undecided) >= res.stats["unreached"]


@pytest.mark.parametrize("kind", ["range", "knn"])
def test_ctrl_c_flag_stops_the_verification(monkeypatch, kind):
    """Ctrl-C (the flag interruptible() sets) stops the search: it says so, is not
    certified, and kNN claims none of its hits but the one it proved the query's equal
    (similarity 1, which no graph not reached can pass)."""
    coll = _collection(MOLECULES)
    monkeypatch.setattr(mces_search, "interrupted_now", lambda: True)
    with pytest.warns(gedkit.InterruptedWarning, match="interrupted"):
        res = coll.mces_range("CCO", 0.3) if kind == "range" else coll.mces_knn("CCO", 3)
    assert res.interrupted and not res.certified
    if kind == "knn":
        assert res.stats["scanned"] == 1 and res.frontier <= 1.0
        assert res.hits[0].distance == 1.0 and res.uncertain == res.ids[1:]


def test_ctrl_c_after_the_last_candidate_leaves_the_answer_whole(monkeypatch):
    """Ctrl-C that comes once every candidate of a range query is decided (while its last
    verification returned) does not mark the query interrupted: its answer is whole."""
    coll = _collection(MOLECULES)
    whole = coll.mces_range("CCO", 0.3)
    candidates = whole.stats["candidates"]["branches"]
    checks = {"n": 0}

    def after_the_last():  # one check before each candidate is read, one after the loop
        checks["n"] += 1
        return checks["n"] > candidates

    monkeypatch.setattr(mces_search, "interrupted_now", after_the_last)
    res = coll.mces_range("CCO", 0.3)
    assert checks["n"] == candidates + 1
    assert not res.interrupted and res.certified
    assert res.ids == whole.ids


def test_rank_is_the_knn_search():
    query = gedkit.from_smiles("CC(=O)O")
    graphs = [gedkit.from_smiles(s) for s in MOLECULES]
    hits = gedkit.mces.rank(query, graphs, method="exact")
    assert [h.index for h in hits] == sorted(range(len(graphs)),
                                             key=lambda i: (-hits_sim(hits, i), i))
    knn = _collection(MOLECULES).mces_knn(query, len(graphs), method="exact", timeout=None)
    assert [h.index for h in hits] == knn.ids
    assert [h.similarity for h in hits] == [h.distance for h in knn.hits]
    assert all(h.result.optimal for h in hits)


def test_rank_keeps_what_ctrl_c_left_ranked(monkeypatch):
    """Ctrl-C in the middle of mces.rank: the candidates ranked so far, counted as such (the
    ones it stopped, without a result, raised AttributeError)."""
    graphs = [gedkit.from_smiles(s) for s in MOLECULES]
    _ctrl_c_at(monkeypatch, 3)
    with pytest.warns(gedkit.InterruptedWarning) as record:
        hits = gedkit.mces.rank("CC(=O)O", graphs, method="exact")
    assert 0 < len(hits) < len(graphs) and all(h.result is not None for h in hits)
    assert str(record[0].message) == (f"interrupted: {len(hits)} of {len(graphs)} candidates "
                                      "ranked")


def hits_sim(hits, i):
    return next(h.similarity for h in hits if h.index == i)


@pytest.mark.parametrize("call, match", [
    (lambda c: c.mces_range("CCO", -0.1), "min_similarity must be a number >= 0"),
    (lambda c: c.mces_range("CCO", 1.5), "min_similarity must be at most 1"),
    (lambda c: c.mces_range("CCO", math.nan), "min_similarity must be"),
    (lambda c: c.mces_range("CCO", "0.5"), "min_similarity must be"),
    (lambda c: c.mces_knn("CCO", 0), "k must be a positive integer"),
    (lambda c: c.mces_knn("CCO", 1.5), "k must be a positive integer"),
    (lambda c: c.mces_range("CCO", 0.5, method="nope"), "nope"),
    (lambda c: c.mces_range("CCO", 0.5, method="ga", iterations=-1), "iterations"),
    (lambda c: c.mces_knn("CCO", 2, timeout="5"), "timeout must be a number"),
    (lambda c: c.mces_knn("CCO", 2, memory=-1), "memory must be a number"),
    (lambda c: c.mces_range(None, 0.5), "no query given"),
])
def test_bad_options_get_one_line(call, match):
    coll = _collection(["CCO", "CCC"])
    with pytest.raises(GedkitError, match=match) as err:
        call(coll)
    assert "\n" not in str(err.value)


def test_empty_graphs_and_collections():
    coll = _collection([Graph({}), Graph({0: "C"}), Graph({0: "C", 1: "C"}, [(0, 1)])])
    res = coll.mces_range(Graph({0: "C", 1: "C"}, [(0, 1)]), 0.0)
    assert res.ids == [2, 0, 1] and [h.distance for h in res.hits] == [1.0, 0.0, 0.0]
    assert coll.mces_knn(Graph({}), 2).hits[0].distance == 0.0
    assert Collection().mces_range("CCO", 0.5).hits == []
    assert Collection().mces_knn("CCO", 3).hits == []


def test_a_search_pays_the_start_ups_once_before_the_pairs_limits(monkeypatch):
    """Where the kernels' start-up is not paid yet, the first pair solved pays it under a
    limit of its own (the pair's plus the start-up), once a process: under a short per-pair
    limit no pair could afford it, and every candidate of a query got the cheap bounds
    ("the search's start-up does not fit")."""
    limits = start_up_limits(monkeypatch, mces_search)
    coll = _collection(MOLECULES)
    coll.mces_range("CC(=O)O", 0.2, method="exact", timeout=0.5)
    assert limits[0] > 0.5 and all(limit == 0.5 for limit in limits[1:]) and len(limits) > 2
    limits.clear()
    coll.mces_range("CC(=O)O", 0.2, method="exact", timeout=0.5)  # paid: not again
    assert limits and all(limit == 0.5 for limit in limits)


def test_an_edgeless_query_reads_no_graph_of_the_collection(monkeypatch):
    """Every graph's similarity to an edgeless query (an atom, a salt's ions) is 0, proven by
    the filter: kNN answers the first k by rowid without reading any graph (it read all
    30,000 of a collection, 3 s), as it answers when it reads them."""
    coll = gedkit.Collection()
    coll.add(["CCO", "CCN", "c1ccccc1", "C", "CC(=O)O"])
    reads = []
    graphs = coll._store.graphs
    monkeypatch.setattr(coll._store, "graphs", lambda rowids: reads.append(rowids) or
                        graphs(rowids))
    for query in ("C", "[Na+].[Cl-]"):
        r = coll.mces_knn(query, 2)
        assert r.ids == [0, 1] and [h.distance for h in r.hits] == [0.0, 0.0]
        assert r.certified and not reads
    assert coll.mces_knn("CC", 2).ids and reads  # (a query with an edge reads them)
