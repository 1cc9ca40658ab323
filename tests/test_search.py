"""Similarity search: range and kNN equal pairwise + sort, filters never prune a true hit,
the collection file persists and survives a killed writer, and bad input gets one line."""

from __future__ import annotations

import itertools
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gedkit
from gedkit import Collection, costs
from gedkit.errors import FormatError, GedkitError, GraphError, OptionError, UnseenLabelWarning
from gedkit.search import merge
from gedkit.search.filters import GedFilter
from gedkit.search.result import SearchResult
from tests.helpers import REPO, random_costs, random_graph, start_up_limits

MOLECULES = ["CCO", "CCN", "CCCC", "c1ccccc1", "CC(=O)O", "CC(=O)N", "OCCO", "C1CCCCC1",
             "c1ccncc1", "CC(C)O", "CCOC", "C=CC=C", "NCCN", "CC#N", "OC(=O)CN"]


def _collection(graphs, **kw) -> Collection:
    coll = Collection(**kw)
    coll.add(graphs)
    return coll


def _exact(model, query, graphs) -> np.ndarray:
    return np.array([gedkit.ged(query, g, model, method="astar", timeout=None).distance
                     for g in graphs])


def _random_set(seed: int, count: int = 14, n: tuple[int, int] = (1, 6)):
    rng = np.random.default_rng(seed)
    return [random_graph(rng, int(rng.integers(*n)), name=f"g{i}") for i in range(count)]


MODELS = {
    "uniform": lambda rng: costs.uniform(),
    "constant": lambda rng: costs.constant(node_sub=float(rng.uniform(0.2, 3)),
                                           node_ins=float(rng.uniform(0.2, 3)),
                                           edge_del=float(rng.uniform(0.2, 3))),
    "general": lambda rng: random_costs(rng),
}


@pytest.mark.parametrize("method", ["astar", "dfs"])  # many pairs per compiled call; one by one
@pytest.mark.parametrize("kind", sorted(MODELS))
@pytest.mark.parametrize("seed", range(3))
def test_range_and_knn_equal_pairwise_and_sort(kind, seed, method):
    rng = np.random.default_rng(100 + seed)
    graphs = _random_set(seed)
    model = MODELS[kind](rng)
    coll = _collection(graphs)
    batched = 0
    for query in _random_set(50 + seed, count=3):
        truth = _exact(model, query, graphs)
        for tau in (0.0, 1.0, 2.5, 4.0):
            res = coll.range(query, tau, costs=model, method=method, timeout=None)
            assert res.certified and not res.undecided
            want = sorted((float(truth[i]), i) for i in range(len(graphs)) if truth[i] <= tau
                          + 1e-9)
            assert sorted(h.id for h in res.hits) == sorted(i for _, i in want)
            assert [h.distance for h in res.hits] == pytest.approx([d for d, _ in want])
            assert all(h.optimal for h in res.hits)
            batched += res.stats.get("batched", 0)
        for k in (1, 3, len(graphs)):
            res = coll.knn(query, k, costs=model, method=method, timeout=None)
            assert res.certified and len(res.hits) == k
            assert [h.distance for h in res.hits] == pytest.approx(sorted(truth)[:k])
            for h in res.hits:
                assert truth[h.id] == pytest.approx(h.distance)
    assert (batched > 0) == (method == "astar")  # the compiled batch path was exercised


@given(st.integers(0, 10_000), st.sampled_from(sorted(MODELS)))
def test_no_filter_prunes_a_true_hit(seed, kind):
    """Every filter stage's bound is at most the exact distance, for every model."""
    rng = np.random.default_rng(seed)
    graphs = _random_set(seed, count=6, n=(0, 6))
    query = random_graph(rng, int(rng.integers(0, 6)))
    model = MODELS[kind](rng)
    coll = _collection(graphs)
    truth = _exact(model, query, graphs)
    filt = GedFilter(model, query, coll._store.vocab)
    for _, bound in filt.stages:
        lb = bound(coll._signatures)
        assert np.all(lb <= truth + 1e-9), (lb, truth)
    # the range path's single pass through the size index keeps every graph within the
    # threshold, with the staged bound
    for tau in (0.0, 1.0, 2.5, float(rng.uniform(0, 8))):
        found = filt.within(coll._signatures, tau, compiled=True)
        if found is None:
            continue
        kept = dict(zip(found[0].tolist(), found[1].tolist(), strict=True))
        assert {i for i in range(len(graphs)) if truth[i] <= tau} <= set(kept)
        assert all(lb[r] <= b <= truth[r] + 1e-9 for r, b in kept.items())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["uniform", "constant"]))
def test_the_window_filter_prunes_every_row_branchs_bound_puts_beyond_the_limit(seed, kind):
    """A range search's filter prices each row it would keep by BRANCH's assignment over
    the two graphs' branch classes too: it keeps no row whose BRANCH bound (the ``branch``
    method's, over nodes) exceeds the threshold, and every row within it."""
    from gedkit.solvers.heuristics.lsape import branch_assignment

    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, int(rng.integers(0, 8)), node_values=range(3),
                           edge_values=range(2), name=f"g{i}") for i in range(10)]
    query = random_graph(rng, int(rng.integers(0, 8)), node_values=range(4),
                         edge_values=range(3))
    model = MODELS[kind](rng)
    coll = _collection(graphs)
    truth = _exact(model, query, graphs)
    branch = np.array([branch_assignment(model.compile(query, g))[1] for g in graphs])
    filt = GedFilter(model, query, coll._store.vocab)
    for tau in (1.0, 2.0, 3.0, float(rng.uniform(0, 6))):
        rows, _, _ = filt.within(coll._signatures, tau, compiled=True)
        kept = set(coll._signatures.rowids[rows].tolist())
        rowid = {i: r for i, r in enumerate(coll._signatures.rowids.tolist())}
        assert {rowid[i] for i in range(len(graphs)) if truth[i] <= tau + 1e-9} <= kept
        assert not {rowid[i] for i in range(len(graphs)) if branch[i] > tau + 1e-9} & kept


@pytest.mark.parametrize("kind", ["uniform", "constant"])
def test_compiled_filter_bounds_under_a_limit(kind):
    """The compiled label and branch bounds (rows a block at a time) are at least the numpy
    fallback's (which leaves the degree sequences out); under a limit, a row within it gets
    the same bound as without one, a row beyond it a bound that may be weaker, still beyond."""
    rng = np.random.default_rng(11)
    graphs = _random_set(5, count=600, n=(0, 12))  # more rows than one compiled block
    coll = _collection(graphs)
    sig = coll._signatures
    for query in _random_set(70, count=6, n=(0, 12)):
        filt = GedFilter(MODELS[kind](rng), query, coll._store.vocab)
        for branches in (False, True):
            for rows in (None, rng.choice(len(sig), 300).astype(np.int64)):
                full = filt._equality(sig, rows, branches, compiled=True)
                assert np.all(full >= filt._equality(sig, rows, branches, compiled=False))
                for limit in (0.0, 2.0, 4.5):
                    got = filt._equality(sig, rows, branches, limit, compiled=True)
                    inside = full <= limit
                    assert np.array_equal(got[inside], full[inside])
                    assert np.all(got[~inside] > limit) and np.all(got <= full)


def test_the_window_filter_on_many_labels_and_large_counts_prunes_no_hit():
    """The window filter's first test reads a row's counts of the 8 most frequent node
    labels (the rest counted as one; a count of 255 or more saturated): with 12 labels, and
    with 300 nodes of one label, it leaves every graph within the threshold."""
    rng = np.random.default_rng(11)
    graphs = [random_graph(rng, int(rng.integers(3, 8)), node_values=range(12), name=f"g{i}")
              for i in range(40)]
    coll = _collection(graphs)
    queries = [random_graph(rng, int(rng.integers(3, 8)), node_values=range(12))
               for _ in range(6)]
    for tau in (1.0, 2.0, 3.0):
        results = coll.range(queries=queries, tau=tau, timeout=None)
        for query, res in zip(queries, results, strict=True):
            truth = _exact(costs.uniform(), query, graphs)
            assert sorted(h.id for h in res.hits) == [
                i for i in range(len(graphs)) if truth[i] <= tau + 1e-9]
    chain = gedkit.Graph({i: "C" for i in range(300)}, [(i, i + 1) for i in range(299)])
    other = gedkit.Graph({**{i: "C" for i in range(300)}, 7: "N"},
                         [(i, i + 1) for i in range(299)])
    big = _collection([chain, other, gedkit.Graph({0: "C"})])
    found = big.range(queries=[chain, chain], tau=1, timeout=None)
    assert [sorted((h.id, h.distance) for h in r.hits) for r in found] == [[(0, 0), (1, 1)]] * 2


@pytest.mark.parametrize("kind", ["uniform", "constant"])
def test_many_range_queries_verified_together_equal_brute_force(kind, monkeypatch):
    """``range(queries=...)`` verifies the candidates of consecutive queries in one batch,
    each against its own query; queries with labels the collection lacks (own cost
    matrices) are verified apart, and the others together even where such a query comes
    first (it kept every query of its batch apart). Both equal brute force, with and without
    node maps."""
    rng = np.random.default_rng(7)
    graphs = _random_set(3, count=20)
    model = MODELS[kind](rng)
    coll = _collection(graphs)
    # three with labels 7 and 8, which no graph has: the first a graph of the collection
    # with one node relabelled (a candidate at least)
    near = graphs[0]
    near = gedkit.Graph({u: 7 if k == 0 else label for k, (u, label) in
                         enumerate(zip(near.ids, near.node_labels, strict=True))},
                        [(near.ids[a], near.ids[b], label) for (a, b), label in
                         zip(near.edges.tolist(), near.edge_labels, strict=True)])
    queries = [near, *_random_set(60, count=8), random_graph(rng, 4, node_values=(0, 7)),
               random_graph(rng, 3, edge_values=(0, 8))]
    from gedkit.search import ged_search

    together = []
    verify_together = ged_search._verify_together
    monkeypatch.setattr(ged_search, "_verify_together", lambda *a: together.append(
        verify_together(*a)) or together[-1])
    for tau in (1.0, 3.0):
        for node_map in (False, True):
            with pytest.warns(UnseenLabelWarning, match=r"^[23] of 11 queries have node label "
                              r"7\b.*, which no graph of the collection has"):
                results = coll.range(queries=queries, tau=tau, costs=model, timeout=None,
                                     node_map=node_map)
            assert sum(r.stats.get("batched", 0) for r in results) > 0 or node_map
            for query, res in zip(queries, results, strict=True):
                truth = _exact(model, query, graphs)
                assert res.certified and not res.undecided
                assert sorted(h.id for h in res.hits) == [
                    i for i in range(len(graphs)) if truth[i] <= tau + 1e-9]
                for h in res.hits:
                    assert h.distance == pytest.approx(truth[h.id])
                    if node_map:  # the map's cost is the distance
                        g = graphs[h.id]
                        forward = [-1] * query.n
                        for u, v in h.node_map:
                            if u is not None and v is not None:
                                forward[query.ids.index(u)] = g.ids.index(v)
                        cost = model.compile(query, g).cost(forward)
                        assert cost == pytest.approx(h.distance)
    assert max(len(found) for found in together) >= 2  # queries did go together


def test_the_collector_is_on_again_whatever_the_threads_pauses_interleave():
    """Searches in several threads pause and resume the one collector: however their
    pauses and resumptions interleave, it is off while a pause is open and no resumption,
    and on once every pause has ended (four threads' searches once left it off for good)."""
    import gc
    import random

    from gedkit.search.collector import gc_paused, gc_resumed

    assert gc.isenabled()
    # one interleaving by hand: A pauses, B pauses, A resumes, B ends, A ends its resumption
    a_paused, b_paused, a_resumed, b_ended = (threading.Event() for _ in range(4))
    seen = {}

    def a():
        with gc_paused():
            a_paused.set()
            b_paused.wait()
            with gc_resumed():
                a_resumed.set()
                b_ended.wait()
                seen["a resumed"] = gc.isenabled()
            seen["a paused"] = gc.isenabled()

    def b():
        a_paused.wait()
        with gc_paused():
            b_paused.set()
            a_resumed.wait()
        b_ended.set()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert seen == {"a resumed": True, "a paused": False} and gc.isenabled()

    def busy(seed: int) -> None:  # random nestings, at random moments
        rng = random.Random(seed)
        for _ in range(200):
            with gc_paused():
                time.sleep(rng.random() * 1e-4)
                if rng.random() < 0.5:
                    with gc_resumed(large=rng.random() < 0.1):
                        time.sleep(rng.random() * 1e-4)

    threads = [threading.Thread(target=busy, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert gc.isenabled()
    gc.disable()  # the caller's own choice is left as it is
    try:
        with gc_paused(), gc_resumed():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_range_search_leaves_no_reference_cycle_and_the_collector_as_it_was():
    """A search's filters, answers and queries are freed by reference counting (a filter
    holding its bound methods was a cycle, which kept every query of a batch alive until the
    collector's next run); the collector, paused while answers are made, is on again after
    the search and inside the caller's ``each``; off where the caller turned it off."""
    import gc

    graphs = _random_set(3, count=30)
    coll = _collection(graphs)
    queries = _random_set(40, count=20)
    on_inside = []
    for tau in (1, 3):  # (first calls fill caches, some with cycles of their own)
        coll.range(queries=queries, tau=tau)
    coll.knn(queries=queries[:3], k=2)
    gc.collect()
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for tau in (1, 3):
            coll.range(queries=queries, tau=tau, each=lambda *_: on_inside.append(
                gc.isenabled()))
            coll.knn(queries=queries[:3], k=2)
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
    assert left == []
    assert gc.isenabled() and on_inside == [True] * 40
    gc.disable()
    try:
        coll.range(queries=queries, tau=1, each=lambda *_: on_inside.append(gc.isenabled()))
        assert not gc.isenabled() and on_inside[40:] == [False] * 20
    finally:
        gc.enable()


def test_a_search_pair_by_pair_pays_the_start_ups_once_before_the_pairs_limits(monkeypatch):
    """Where the kernels' start-up is not paid yet, the first pair a GED search solves on
    its own (a method the batch kernel does not run) pays it under a limit of its own, once a
    process, as MCES searches and pairwise do: no pair's short limit affords it."""
    from gedkit.search import ged_search

    limits = start_up_limits(monkeypatch, ged_search)
    coll = _collection(_random_set(3, count=12))
    costs = gedkit.costs.custom(node_sub=lambda a, b: 0.0 if a == b else 1.5)
    query = _random_set(9, count=1)[0]
    coll.knn(query, 3, costs=costs, method="ipfp", timeout=0.5)
    assert limits[0] > 0.5 and len(limits) > 2
    assert all(limit <= 0.5 for limit in limits[1:])
    limits.clear()
    coll.knn(query, 3, costs=costs, method="ipfp", timeout=0.5)  # paid: not again
    assert limits and all(limit <= 0.5 for limit in limits)


def test_no_limit_per_pair_under_a_query_limit_polishes_without_a_traceback(monkeypatch):
    """``timeout=None`` with ``query_timeout``: an exact solve stopped unproven (its first
    step does not fit the query's time) has its map polished to the end, within the query's
    limit (it raised ``TypeError`` on None minus a float: 2,000-node graphs)."""
    from gedkit.solvers.exact import tree_search

    monkeypatch.setattr(tree_search, "OPS_PER_SECOND", 10.0)  # no step fits
    graphs = _random_set(5, count=4, n=(15, 17))
    coll = _collection(graphs)
    costs = gedkit.costs.custom(node_sub=lambda a, b: 0.0 if a == b else 1.5)
    found = coll.range(graphs[0], 100, costs=costs, method="astar", timeout=None,
                       query_timeout=30)
    assert len(found.hits) + len(found.undecided) == len(graphs)
    assert found.stats["stopped"]


def test_candidates_past_their_share_are_tried_again_in_the_kernel(monkeypatch):
    """A candidate the batch kernel gives up on within its first share is searched again,
    alone, with a larger share (from scratch): the answers stay exact and no pair reaches the
    per-pair driver; with no larger share to give (a per-pair limit below the first share),
    the driver takes them."""
    from gedkit.search import batch, ged_search

    graphs = _random_set(11, count=16, n=(5, 9))
    coll = _collection(graphs)
    queries = _random_set(71, count=3, n=(6, 9))
    truths = [_exact(costs.uniform(), q, graphs) for q in queries]
    driver = []
    verify = ged_search.Verifier.__call__
    monkeypatch.setattr(ged_search.Verifier, "__call__",
                        lambda self, *a: driver.append(1) or verify(self, *a))
    tried = []
    retry = batch.BatchVerifier._retry
    monkeypatch.setattr(batch.BatchVerifier, "_retry",
                        lambda self, which, *a: tried.append(len(which)) or retry(self, which, *a))
    monkeypatch.setattr(batch, "_PACE", [1.0])  # a first share of ~0.01 operations: none fits
    monkeypatch.setattr(batch, "_LOADED", [True])  # (the first call's pace counts)
    for tau in (2.0, 9.0):  # (the nearest graphs are 8-10 away)
        for query, truth in zip(queries, truths, strict=True):
            res = coll.range(query, tau, timeout=None)
            assert res.certified
            assert sorted(h.id for h in res.hits) == [i for i in range(len(graphs))
                                                      if truth[i] <= tau]
            for h in res.hits:
                assert h.distance == pytest.approx(truth[h.id])
    assert sum(tried) > 0 and not driver
    monkeypatch.setattr(batch, "_PACE", [1.0])
    res = coll.range(queries[0], 9.0, timeout=0.005)  # no share larger than the first
    assert driver  # the pairs given up on went to the per-pair driver
    assert {i for i in range(len(graphs)) if truths[0][i] <= 9.0} <= {
        h.id for h in res.hits + res.undecided}


def test_a_bad_query_among_many_is_named_by_its_position():
    """One bad query of hundreds was named "query 'graph'" or not at all: its position in
    ``queries`` says which."""
    coll = _collection([gedkit.Graph({0: "C", 1: "O"}, [(0, 1, 1)])])
    loop = gedkit.Graph({0: "C"}, [(0, 0, 1)])
    with pytest.raises(GedkitError, match=r"^queries\[2\] \(of 3\): expected a gedkit\.Graph"):
        coll.range(queries=["CO", "CC", None], tau=1)
    with pytest.raises(GedkitError, match=r"^queries\[1\] \(of 2\): query 'graph' has a self-loop"):
        coll.knn(queries=["CO", loop], k=1)
    with pytest.raises(GedkitError, match=r"^query 'graph' has a self-loop"):
        coll.range(loop, 1)


def test_a_first_search_does_not_learn_the_kernels_load_as_its_pace():
    """In a fresh process the batch kernel's first call also loads it from numba's cache
    (~10 ms): a pace learnt from that call was ~1000x too slow, and the next search's
    candidates gave up after a tenth of their share and were tried again one by one."""
    script = textwrap.dedent("""
        import gedkit
        from gedkit.search import batch
        coll = gedkit.Collection()
        coll.add(["CCO", "CCN", "CC(=O)O", "c1ccccc1", "CCCCO", "OCCN"] * 4)
        coll.range(queries=["CCO"] * 3, tau=0, progress=False)
        print(batch._PACE[0] is None or batch._PACE[0] > 1e8)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=REPO)
    assert out.stdout.split() == ["True"], out.stderr


def test_a_reader_sees_what_another_writer_commits(tmp_path):
    """A collection open for reading follows the file: graphs another connection (another
    process) adds, with labels it had never seen, or removes are there, or gone, at the
    reader's next search, not a stale answer or a KeyError."""
    path = tmp_path / "lib.gdb"
    writer = Collection.create(path)
    writer.add(["CCO", "CCN", "CCC", "CCCC"], ids=["a", "b", "c", "d"])
    reader = Collection.open(path)
    assert [h.id for h in reader.range("CCO", 1).hits] == ["a", "b", "c"]
    writer.remove(["b"])
    assert [h.id for h in reader.range("CCO", 1).hits] == ["a", "c"] and len(reader) == 3
    writer.add(["CCS", "CCF"], ids=["e", "f"])
    assert [h.id for h in reader.range("CCO", 1).hits] == ["a", "c", "e", "f"]
    assert [h.id for h in reader.knn("CCF", 1).hits] == ["f"] and len(reader) == 5


def test_two_writers_of_one_file_each_see_what_the_other_added(tmp_path):
    """Two handles (or processes) adding to one file in turn: each batch is encoded with the
    labels and ids the other committed (a stale vocabulary made the second add fail with a
    false "id is there already")."""
    path = tmp_path / "lib.gdb"
    Collection.create(path).close()
    one, two = Collection.open(path, mode="a"), Collection.open(path, mode="a")
    one.add(["C[Se]C"], ids=["se"])
    two.add(["C[Te]C"], ids=["te"])  # a label the first one introduced meanwhile
    one.add(["CCO"])
    two.add(["CCN"])  # numbered after the other's
    reader = Collection.open(path)
    assert reader.ids == ["se", "te", 0, 1]
    for graph_id, smiles in (("se", "C[Se]C"), ("te", "C[Te]C"), (0, "CCO"), (1, "CCN")):
        assert reader.range(smiles, 0).ids == [graph_id]


def test_numbered_ids_never_read_like_a_name_already_there():
    # a collection named by digit strings ("0", "1": SMILES titles) and graphs added without
    # ids: numbering them 0, 1 gave two graphs that print alike (CSV, text, FILE#1)
    coll = Collection()
    coll.add(["CCO", "CCN"], ids=["0", "1"])
    coll.add(["CCC", "CCS"])
    assert coll.ids == ["0", "1", 2, 3]
    assert len({str(i) for i in coll.ids}) == 4
    # numbered on from the largest number in the way, not by the batch's length
    named = Collection()
    named.add(["C"] * 5, ids=[str(i) for i in range(1, 6)])
    named.add(["CC"] * 10)
    assert named.ids[5:] == list(range(6, 16))
    # and past the largest of all, not in a gap between names (NCI's numbered names: three
    # graphs took ids 534 and 535 among names up to 5065)
    gaps = Collection()
    gaps.add(["C"] * 3, ids=["0", "5065", "x"])
    gaps.add(["CC", "CCC"])
    assert gaps.ids[3:] == [5066, 5067]
    # an id held already: the note on alike spellings only where it is the other spelling
    with pytest.raises(OptionError, match=r"with id 2 already \(1 and '1' are one id"):
        coll.add(["CO"], ids=["2"])
    with pytest.raises(OptionError, match=r"with id \"0\" already$"):
        coll.add(["CO"], ids=["0"])
    # ... and one id when read: 2 and "2" find the same graph ("2" found none, a KeyError)
    assert "2" in coll and 0 in coll and "02" not in coll
    assert coll.get("2") == coll.get(2) and coll.get(0) == coll.get("0")
    coll.remove(["3"])
    assert coll.ids == ["0", "1", 2]


@pytest.mark.parametrize("named", [False, True])
def test_many_ids_read_at_once_follow_adds_and_removes(tmp_path, monkeypatch, named):
    """Many rowids' ids are read from a table of every id (whole-number ids) or row by row
    (names, or a number past 64 bits): the same ids either way, and an add or a remove
    (here or by another handle) is seen by the next read."""
    from gedkit.search import store as store_module

    monkeypatch.setattr(store_module, "_TABLE_FROM", 2)
    path = tmp_path / "ids.gdb"
    coll = Collection.create(path)
    coll.add(["C", "CC", "CCC", "CCO"], ids=["a", "b", "c", "d"] if named else None)
    store = coll._store
    rowids = [1, 2, 3, 4, 99]  # 99: one no graph has

    def one_by_one():
        return {r: coll._store.ids([r], strict=False).get(r) for r in rowids
                if coll._store.ids([r], strict=False)}

    assert store.ids(rowids, strict=False) == one_by_one() and len(one_by_one()) == 4
    coll.remove([coll.ids[1]])
    coll.add(["CCN"], ids=["e"] if named else None)
    assert store.ids([*rowids, 5], strict=False) == {**one_by_one(), 5: "e" if named else 4}
    assert 2 not in store.ids(rowids, strict=False)
    with Collection.open(path, mode="a") as other:  # another writer: seen at the next search
        other.add(["CCCC"], ids=["f"] if named else [2**70])  # (past 64 bits)
    coll.range("C", 0, progress=False)
    assert store.ids([6, 1])[6] == ("f" if named else 2**70)
    assert store.ids([6, 1])[1] == ("a" if named else 0)


def test_graphs_another_process_removes_mid_search_are_one_error(tmp_path):
    """A search (or a read) that meets graphs another writer removed after it began: one
    GedkitError saying so (a kNN scan's map polishing raised KeyError from a dict)."""
    path = tmp_path / "c.gdb"
    graphs = _random_set(31, count=12, n=(3, 7))
    with Collection.create(path) as coll:
        coll.add(graphs)
    reader = Collection.open(path)
    rowids = list(range(1, 13))
    with Collection.open(path, mode="a") as writer:
        reader.range(graphs[0], 0, progress=False)  # read: signatures and records held
        writer.remove(reader.ids[:6])
        for read in (lambda: reader._store.graphs(rowids),
                     lambda: reader._store.records(rowids),
                     lambda: list(reader._store.each_graph(rowids, 4))):
            with pytest.raises(GedkitError, match="another process removed graphs"):
                read()


def test_records_held_in_memory_follow_adds_and_removes(tmp_path, monkeypatch):
    """The verification records a collection holds in memory give the answers the file's
    give, and an add or a remove after a search is seen by the next one (the held copy is
    not stale)."""
    from gedkit.search import collection as collection_module

    graphs = _random_set(21, count=16, n=(3, 8))
    queries = _random_set(22, count=4, n=(3, 8))
    coll = _collection(graphs)
    held = [[(h.id, h.distance) for h in r.hits] for r in coll.range(queries=queries, tau=4)]
    assert coll._held not in (None, False)  # the records came from memory
    monkeypatch.setattr(collection_module, "RECORDS_IN_MEMORY", 0)
    coll._held = None
    read = [[(h.id, h.distance) for h in r.hits] for r in coll.range(queries=queries, tau=4)]
    assert coll._held is False and read == held
    monkeypatch.undo()
    coll._held = None
    coll.range(queries=queries, tau=4)
    assert coll._held not in (None, False)  # held again
    coll.add([queries[0]], ids=["copy"])
    assert ("copy", 0.0) in [(h.id, h.distance) for h in coll.range(queries[0], 0).hits]
    coll.remove(["copy", "copy"])  # an id listed twice: removed once (it was "damaged")
    assert "copy" not in [h.id for h in coll.range(queries[0], 0).hits]


@pytest.mark.parametrize("kind", ["uniform", "constant"])
def test_the_kernel_bounds_what_it_does_not_finish_best_first_or_depth_first(kind,
                                                                            monkeypatch):
    """Cut short after a few expansions, the batch kernel's bounds still hold (lower ≤ exact
    ≤ upper) whichever the search order; depth-first reports the least bound left on its
    stack, not nothing; what it finishes is exact."""
    from gedkit.search import batch

    rng = np.random.default_rng(8)
    model = MODELS[kind](rng)
    graphs = _random_set(13, count=12, n=(6, 10))
    coll = _collection(graphs)
    records = coll._store.records(range(1, len(graphs) + 1))
    cut_short = {False: 0, True: 0}
    raised = 0
    for query in _random_set(73, count=3, n=(7, 10)):
        truth = _exact(model, query, graphs)
        verifier = batch.BatchVerifier.prepare(model, GedFilter(model, query, coll._store.vocab))
        for seconds in (1e-9, 1e-6, 1e-4):
            monkeypatch.setattr(batch, "PAIR_SECONDS", seconds)
            for depth_first in (False, True):
                lower, upper, done = verifier.run(records, None, retry=False,
                                                  depth_first=depth_first)
                assert (lower <= truth + 1e-9).all() and (upper >= truth - 1e-9).all()
                assert np.allclose(lower[done], truth[done])
                assert np.allclose(upper[done], truth[done])
                cut_short[depth_first] += int((~done).sum())
                raised += int((lower[~done] > 0).sum()) if depth_first else 0
    assert cut_short[False] > 0 and cut_short[True] > 0 and raised > 0


def _check_knn(coll, graphs, model, query, k: int, **options) -> None:
    """``coll.knn(query, k)`` is certified and equals pairwise + sort, ties at the k-th
    distance going by rank_key (filter bound, then position)."""
    truth = _exact(model, query, graphs)
    filt = GedFilter(model, query, coll._store.vocab)
    first = np.max([bound(coll._signatures) for name, bound in filt.stages
                    if name not in filt.lazy], axis=0)
    ranked = sorted(range(len(graphs)), key=lambda i: (round(truth[i], 9), first[i], i))
    res = coll.knn(query, k, costs=model, **options)
    assert res.certified and not res.undecided and len(res.hits) == k
    assert sorted(h.id for h in res.hits) == sorted(ranked[:k])
    for h in res.hits:
        assert h.optimal and truth[h.id] == pytest.approx(h.distance)


@pytest.mark.parametrize("kind", ["uniform", "constant"])
def test_near_copies_stored_in_the_query_order_are_verified_exactly(kind):
    """The batch verifier starts each candidate from the identity map's cost: for copies of
    the query stored in its node order with a few edits (a label changed, an edge dropped,
    a node added, the order shuffled) that cost is an upper bound, exact for the copy
    itself; range and kNN still equal pairwise + sort."""
    rng = np.random.default_rng(12)
    model = MODELS[kind](rng)
    query = random_graph(rng, 9, name="q")
    nodes = dict(zip(query.ids, query.node_labels, strict=True))
    edges = [(query.ids[a], query.ids[b], lab)
             for (a, b), lab in zip(query.edges.tolist(), query.edge_labels, strict=True)]
    first = query.ids[0]
    relabelled = {**nodes, first: "Z"}
    shuffled = list(reversed(list(nodes.items())))
    graphs = [gedkit.Graph(nodes, edges, name="copy"),
              gedkit.Graph(relabelled, edges, name="relabelled"),
              gedkit.Graph(nodes, edges[1:], name="edge dropped"),
              gedkit.Graph({**nodes, "new": "C"}, [*edges, (first, "new", edges[0][2])],
                           name="node added"),
              gedkit.Graph(dict(shuffled), edges, name="shuffled"),
              *_random_set(5, count=6, n=(7, 11))]
    coll = _collection(graphs)
    truth = _exact(model, query, graphs)
    for tau in (0.0, 1.0, 2.5):
        res = coll.range(query, tau, costs=model, progress=False)
        assert res.certified
        assert sorted(h.id for h in res.hits) == [i for i in range(len(graphs))
                                                 if truth[i] <= tau + 1e-9]
        for h in res.hits:
            assert h.optimal and h.distance == pytest.approx(truth[h.id])
    for k in (1, 3):
        _check_knn(coll, graphs, model, query, k, progress=False)


@pytest.mark.parametrize("kernel_tries", ["paying", "futile"])
@pytest.mark.parametrize("kind", ["uniform", "constant"])
def test_knn_sets_aside_what_the_kernel_does_not_finish(kind, kernel_tries, monkeypatch):
    """kNN sets a graph the batch kernel does not finish within its first share aside, with
    the bounds the kernel reached, and settles it after the scan (kernel again, then pair by
    pair; ``futile``: the kernel's tries judged not to pay, every graph set aside goes to the
    per-pair driver, after polished maps for all of them): the answers still equal
    pairwise + sort, certified."""
    from gedkit.search import batch, ged_search

    rng = np.random.default_rng(5)
    model = MODELS[kind](rng)
    graphs = _random_set(12, count=12, n=(4, 9))
    graphs += graphs[:8]  # copies: ties at every distance
    coll = _collection(graphs)
    aside = []
    settle = ged_search._KnnScanner._settle_aside
    monkeypatch.setattr(ged_search._KnnScanner, "_settle_aside",
                        lambda self: aside.append(len(self.aside)) or settle(self))
    larger = []  # the graphs given the kernel's larger share
    verify = ged_search._KnnScanner._verify
    monkeypatch.setattr(ged_search._KnnScanner, "_verify",
                        lambda self, rows, defer, retry=False: larger.append(len(rows) * retry)
                        or verify(self, rows, defer, retry))
    if kernel_tries == "futile":
        monkeypatch.setattr(ged_search._Yield, "pays", lambda self: False)
    else:  # no polished maps first: they would settle what the kernel's tries are for
        monkeypatch.setattr(ged_search._KnnScanner, "_tighten",
                            lambda self, rows: setattr(self, "tightened", True))
    for query in _random_set(72, count=3, n=(6, 9)):
        for k in (1, 3, 7, 12):
            monkeypatch.setattr(batch, "_PACE", [1.0])  # a first share that fits nothing
            _check_knn(coll, graphs, model, query, k, timeout=None)
    assert max(aside) > 0  # graphs were set aside and settled
    # the kernel's larger share was given to set-aside graphs only while it paid
    assert (sum(larger) > 0) == (kernel_tries == "paying")


@pytest.mark.parametrize("method", ["astar", "dfs"])
def test_knn_sets_aside_pairs_solved_one_by_one_that_a_share_does_not_finish(method,
                                                                            monkeypatch):
    """Where the batch kernel does not apply (a vocabulary too large for its matrices, or
    another method), kNN's scan gives each pair a share of its time limit and sets aside what
    that does not finish, to solve it with the whole limit once the scan ends: the answers
    still equal pairwise + sort, certified."""
    from gedkit.search import filters, ged_search

    rng = np.random.default_rng(9)
    model = random_costs(rng)
    graphs = _random_set(14, count=12, n=(7, 11))  # not all solved before a first check
    graphs += graphs[:6]  # copies: ties
    coll = _collection(graphs)
    aside = []
    settle = ged_search._KnnScanner._settle_aside
    monkeypatch.setattr(ged_search._KnnScanner, "_settle_aside",
                        lambda self: aside.append(len(self.aside)) or settle(self))
    monkeypatch.setattr(ged_search, "PAIR_SHARE", 1e-7)  # a share that fits nothing
    monkeypatch.setattr(filters, "MAX_VOCABULARY", 0)  # no batch kernel
    for query in _random_set(74, count=2, n=(8, 11)):
        for k in (1, 3, 7):
            _check_knn(coll, graphs, model, query, k, method=method, timeout=30)
    assert max(aside) > 0  # graphs were set aside and settled


def test_knn_leaves_undecided_what_whole_limit_solves_do_not_decide(monkeypatch):
    """Once kNN's solves with the whole time limit decide too few of the graphs they are
    given, the graphs still set aside get a short solve each (after polished maps) and
    what that leaves undecided says why: no graph closer than the k-th hit is lost (each is a
    hit or undecided) and every bound holds."""
    from gedkit.search import batch, ged_search

    graphs = _random_set(14, count=12, n=(7, 11))  # not all solved before a first check
    graphs += graphs[:6]
    coll = _collection(graphs)
    # every kind of try judged futile (the kernel's, and solves with the whole limit), and
    # the short solves then reaching no more than BRANCH's bounds
    monkeypatch.setattr(ged_search._Yield, "pays", lambda self: False)
    whole, quick = ged_search.Verifier.__call__, ged_search.Verifier.quick
    monkeypatch.setattr(ged_search.Verifier, "__call__",
                        lambda self, query, graph, threshold, share=None:
                        whole(self, query, graph, threshold) if share is None
                        else quick(self, query, graph))
    left = again = 0
    for query in _random_set(74, count=3, n=(8, 11)):
        truth = _exact(costs.uniform(), query, graphs)
        for k in (1, 3, 7):
            monkeypatch.setattr(batch, "_PACE", [1.0])  # a first share that fits nothing
            res = coll.knn(query, k, timeout=30)
            kept = {h.id for h in res.hits} | {h.id for h in res.undecided}
            kth = res.hits[-1].distance
            assert {i for i in range(len(graphs)) if truth[i] < kth - 1e-9} <= kept
            for h in [*res.hits, *res.undecided]:
                assert h.lower_bound - 1e-9 <= truth[h.id] <= h.upper_bound + 1e-9
            # its summary counts graphs, not verifications (set-aside graphs are tried again)
            assert repr(res).endswith(f", {res.stats['scanned']} of {len(graphs)} verified>")
            again += res.stats["verified"] > res.stats["scanned"]
            if res.undecided:
                left += 1
                assert not res.certified
                assert ged_search.FUTILE in res.stats["stopped"]
    assert left and again  # graphs were left undecided, and verified again


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("question", ["knn", "mces_knn"])
def test_a_query_time_limit_answers_with_what_was_found(question, n_jobs):
    """``query_timeout``: once a query's time is up, its kNN answer is what the search had
    found (bounds that hold, ``timed_out`` and not ``interrupted``, certified only where
    that proves it); a limit the search does not reach changes nothing."""
    graphs = _random_set(5, count=40, n=(4, 9))
    coll = _collection(graphs)
    queries = _random_set(99, count=2, n=(9, 10))  # far from every graph: a long search
    search = getattr(coll, question)
    whole = search(queries=queries, k=3, progress=False, n_jobs=n_jobs)
    roomy = search(queries=queries, k=3, progress=False, n_jobs=n_jobs, query_timeout=600)
    assert [(r.ids, r.certified, r.timed_out) for r in roomy] == [
        (r.ids, r.certified, False) for r in whole]
    assert all(r.certified for r in whole)
    late = search(queries=queries, k=3, progress=False, n_jobs=n_jobs, query_timeout=1e-9)
    assert not all(r.certified for r in late)
    for query, r, w in zip(queries, late, whole, strict=True):
        assert r.timed_out and not r.interrupted and r.to_dict()["timed_out"]
        # k hits (the quick bounds found before the limit): fewer than asked, none at all
        # under a limit the filters use up, was once the answer
        assert len(r.hits) == 3, (question, r)
        # certified only where what it found proves the k nearest distances already (a graph
        # not reached may tie the k-th: the full search may pick it instead)
        if r.certified:
            assert [h.distance for h in r.hits] == [h.distance for h in w.hits]
        else:
            assert r.uncertain or r.undecided
        if question == "knn":
            truth = _exact(costs.uniform(), query, graphs)
            for h in [*r.hits, *r.undecided]:
                assert h.lower_bound - 1e-9 <= truth[h.id] <= h.upper_bound + 1e-9
    # (another shard's answer: none of its graphs)
    merged = merge([late[0], SearchResult(late[0].kind, late[0].query, late[0].parameter)])
    assert merged.timed_out and not merged.interrupted
    # more neighbours asked for than the collection has: every graph of it, not those found
    # before the limit (19 of 150 once, while k = 150 gave 150)
    everything = search(queries=queries, k=len(graphs) + 5, progress=False, n_jobs=n_jobs,
                        query_timeout=1e-9)
    assert [len(r.hits) for r in everything] == [len(graphs)] * len(queries)
    assert all(len(set(r.ids)) == len(graphs) and r.timed_out for r in everything)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_query_time_limit_answers_k_hits_where_the_kernel_does_not_apply(n_jobs):
    """Letter-like graphs (coordinates: a vocabulary too large for the batch kernel, so the
    ceiling's quick bounds are BRANCH's, pair by pair): a query whose time ran out before
    the ceiling had k of them answered 1 hit of 5; the next graphs by filter bound make up
    the number with a quick map each, every bound holding."""
    from gedkit import Graph

    rng = np.random.default_rng(3)

    def letter(n):
        points = rng.uniform(0, 3, size=(n, 2))
        return Graph({i: {"x": float(x), "y": float(y)} for i, (x, y) in enumerate(points)},
                     [(i, i + 1) for i in range(n - 1)])

    graphs = [letter(int(rng.integers(3, 8))) for _ in range(300)]
    coll = _collection(graphs)
    assert len(coll._store.vocab["node"]) > gedkit.search.filters.MAX_VOCABULARY
    queries = [letter(7), letter(4)]
    late = coll.knn(queries=queries, k=5, costs="letter", query_timeout=1e-9, n_jobs=n_jobs,
                    progress=False)
    for query, r in zip(queries, late, strict=True):
        assert r.timed_out and len(r.hits) == 5 and not r.certified
        for h in r.hits[:2]:
            truth = gedkit.ged(query, coll.get(h.id), "letter", method="astar").distance
            assert h.lower_bound - 1e-9 <= truth <= h.upper_bound + 1e-9


def test_knn_by_auto_finds_the_best_map_within_the_threshold():
    """A kNN scan verifies against the k-th distance so far and needs each near graph's own
    distance: ``auto`` (and ``mip``) read the threshold as a decision and stopped at the
    first map within it ('threshold reached'), leaving a hit unproven that ``astar``
    proves; they go on to the best map within it, as exact search does."""
    rng = np.random.default_rng(5)
    graphs = [random_graph(rng, int(rng.integers(5, 10)), name=f"g{i}") for i in range(40)]
    coll = _collection(graphs)
    queries = [random_graph(rng, 8, name=f"q{i}") for i in range(6)]
    model = costs.constant(node_sub=1.5, edge_del=0.7)
    truth = coll.knn(queries=queries, k=3, costs=model, progress=False)
    for method in ("auto", "mip"):
        found = coll.knn(queries=queries, k=3, costs=model, method=method, timeout=5,
                         progress=False)
        for r, t in zip(found, truth, strict=True):
            assert r.certified, (method, r.stats)
            assert [h.distance for h in r.hits] == pytest.approx([h.distance for h in t.hits])


def test_a_query_some_shards_answered_keeps_their_hits():
    """Ctrl-C while a sharded search runs (a Dask cluster's, local workers' range search):
    a query some of whose shards answered gets their hits, interrupted and uncertain (a
    cluster's kNN search stopped at 10 s kept nothing: no query had every shard answered);
    queries after the last any shard answered are left to the caller."""
    from gedkit.search.ged_search import Verifier, knn_scan
    from gedkit.search.shards import Merger, range_answers, shard_of
    from gedkit.solvers import get_solver

    class Shown:
        def query_done(self):
            pass

    graphs = _random_set(5, count=30, n=(3, 8))
    coll = _collection(graphs)
    queries = graphs[:3]
    model = costs.uniform()
    verify = Verifier(model, get_solver("astar"), None, None, False)
    views = [shard_of(coll._store, coll._signatures_by_size(), part, 2) for part in (0, 1)]
    whole = coll.range(queries=queries, tau=3, progress=False)
    merger = Merger("range", 3.0, len(queries), 2, Shown(), counted=True)
    answers = [range_answers(view, "range", queries[:2], 3.0, model, verify)
               for view in views]
    merger.add(0, answers[0][0])
    merger.add(0, answers[1][0])
    merger.add(1, answers[0][1])
    first, second = merger.results(coll, queries)
    assert first.ids == whole[0].ids and first.certified and not first.interrupted
    assert second.interrupted and not second.certified
    assert set(second.ids) == set(answers[0][1][0].ids) <= set(whole[1].ids)
    truth = coll.knn(queries[0], 3, progress=False)
    knn = Merger("knn", 3, 1, 2, Shown(), counted=True)
    knn.add(0, knn_scan(views[0], queries[0], 3, model, verify))
    (partial,) = knn.results(coll, queries[:1])
    assert partial.interrupted and not partial.certified and len(partial.hits) == 3
    # every hit the other shard's graphs could beat (all but a proven distance 0)
    assert partial.uncertain == [h.id for h in partial.hits if h.distance > 0]
    assert partial.frontier == 0.0 and partial.uncertain
    assert partial.hits[0].distance >= truth.hits[0].distance


def test_a_batch_of_range_queries_gives_each_query_its_own_time(monkeypatch):
    """Consecutive range queries verify their candidates in one batch, which may use up one
    query's time: a query the batch did not reach is charged none of it and verifies its
    candidates in its own time (a batch out of time once left every later query with no
    time: 0 hits, even for its own graph)."""
    from gedkit.search import batch, ged_search

    graphs = _random_set(5, count=40, n=(4, 9))
    coll = _collection(graphs)
    queries = graphs[:4]  # each in the collection: a hit at 0 at least
    whole = coll.range(queries=queries, tau=6, progress=False)
    real = batch.BatchVerifier.run

    def first_query_only(self, records, threshold, timeout, which=None, **kw):
        lower, upper, done = real(self, records, threshold, timeout, which=which, **kw)
        time.sleep(0.4)  # the batch spends more than a query's limit...
        return lower, upper, done & (which == 0)  # ...deciding the first query's only

    monkeypatch.setattr(batch.BatchVerifier, "run", first_query_only)
    monkeypatch.setattr(ged_search, "_TOGETHER", 10**6)  # all four in one batch
    limited = coll.range(queries=queries, tau=6, progress=False, query_timeout=0.3)
    assert [(r.ids, r.undecided, r.timed_out) for r in limited] == [
        (w.ids, [], False) for w in whole]
    shares = [r.stats["seconds"]["verify"] for r in limited]
    assert shares[0] >= 0.4 and max(shares[1:]) < 0.4


def test_under_a_time_limit_the_likeliest_hits_are_verified_first(monkeypatch):
    """A range query under ``query_timeout`` verifies its candidates in increasing order of
    their filters' lower bound: the graph identical to the query first, not after graphs
    at the threshold that precede it in the collection."""
    from gedkit.search import ged_search

    graphs = _random_set(5, count=40, n=(4, 9))
    query = graphs[-1]
    coll = _collection(graphs)
    order = []
    real = ged_search._Checker.__call__

    def noted(self, rowids, *args, **kwargs):
        order.extend(rowids)
        return real(self, rowids, *args, **kwargs)

    monkeypatch.setattr(ged_search._Checker, "__call__", noted)
    monkeypatch.setattr(ged_search, "_BLOCK", 1)
    res = coll.range(query, 8, progress=False, query_timeout=600)
    filt = GedFilter(costs.uniform(), query, coll._store.vocab)
    sig = coll._signatures_by_size()
    rows = {r: i for i, r in enumerate(sig.rowids.tolist())}
    at = np.array([rows[r] for r in order])
    lower = np.max([bound(sig, at, 8.0) for _, bound in filt.stages], axis=0)
    assert lower[0] == 0 and np.all(np.diff(lower) >= 0)
    assert len(graphs) - 1 in res.ids


def test_filter_bounds_are_never_negative_zero():
    # np.maximum keeps a stage's -0.0, which undecided graphs then printed as "-0"
    from types import SimpleNamespace

    from gedkit.search.ged_search import _filter_bounds

    filt = SimpleNamespace(stages=[("x", lambda sig, rows, limit: np.array([-0.0, 2.0]))])
    lower = _filter_bounds(None, np.arange(2), filt, 3.0)
    assert lower.tolist() == [0.0, 2.0] and math.copysign(1, lower[0]) == 1


def test_under_a_time_limit_the_most_similar_are_verified_first(monkeypatch):
    from gedkit.search import mces_search

    graphs = _random_set(5, count=40, n=(4, 9))
    coll = _collection(graphs)
    seen = []
    real = mces_search.Verifier.problem

    def noted(self, query, graph):
        seen.append(int(graph.name[1:]))  # g<position>
        return real(self, query, graph)

    monkeypatch.setattr(mces_search.Verifier, "problem", noted)
    res = coll.mces_range(graphs[-1], 0.3, progress=False, query_timeout=600)
    sig = coll._signatures
    ub = np.full(len(sig), np.inf)
    for _, bound in mces_search.MCESFilter(graphs[-1], coll._store.vocab).stages:
        ub = np.minimum(ub, bound(sig))
    by_id = dict(zip(coll.ids, ub.tolist(), strict=True))
    assert len(seen) > 2 and len(graphs) - 1 in res.ids
    assert all(by_id[a] >= by_id[b] for a, b in itertools.pairwise(seen))


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("question", ["range", "mces_range"])
def test_a_range_time_limit_leaves_the_candidates_not_reached_undecided(question, n_jobs):
    """``query_timeout`` on a range search: once a query's time is up, the candidates it
    did not verify are undecided with bounds that hold (none dropped, none included), the
    answer ``timed_out``, not ``interrupted``, not certified; a limit the search does not
    reach changes nothing."""
    graphs = _random_set(5, count=40, n=(4, 9))
    coll = _collection(graphs)
    queries = _random_set(99, count=2, n=(5, 8))
    search = getattr(coll, question)
    given = {"tau": 8.0} if question == "range" else {"min_similarity": 0.2}
    whole = search(queries=queries, progress=False, n_jobs=n_jobs, **given)
    roomy = search(queries=queries, progress=False, n_jobs=n_jobs, query_timeout=600, **given)
    assert [(r.ids, r.undecided, r.certified, r.timed_out) for r in roomy] == [
        (r.ids, r.undecided, r.certified, False) for r in whole]
    assert all(r.certified and r.hits for r in whole)
    late = search(queries=queries, progress=False, n_jobs=n_jobs, query_timeout=1e-9, **given)
    for query, r, w in zip(queries, late, whole, strict=True):
        assert r.timed_out and not r.interrupted and not r.certified
        assert r.stats["unreached"] > 0 and len(r.undecided) >= r.stats["unreached"]
        # every hit of the whole search is a hit or undecided, with the same distance or
        # bounds around it; nothing else is a hit
        found = {h.id: h for h in r.hits}
        assert set(found) <= set(w.ids)
        open_ = {h.id: h for h in r.undecided}
        for h in w.hits:
            got = found.get(h.id) or open_[h.id]
            assert got.lower_bound - 1e-9 <= h.distance <= got.upper_bound + 1e-9
        if question == "range":
            truth = _exact(costs.uniform(), query, graphs)
            for h in r.undecided:
                assert h.lower_bound - 1e-9 <= truth[int(h.id)] <= h.upper_bound
                assert h.lower_bound <= 8.0
            # by lower bound, then upper bound, then the collection's order (ids numbered
            # in it), verified in part and unreached alike
            keys = [(h.lower_bound, h.upper_bound, h.id) for h in r.undecided]
            assert keys == sorted(keys)
        assert r.to_dict()["timed_out"]
    assert merge([late[0], SearchResult(late[0].kind, late[0].query,
                                        late[0].parameter)]).timed_out


@pytest.mark.parametrize("value", [0, -1, "5", True, math.nan])
def test_query_timeout_is_checked(value):
    coll = _collection(_random_set(5, count=3))
    for search in (coll.knn, coll.mces_knn, coll.range, coll.mces_range):
        with pytest.raises(OptionError, match=r"query_timeout must be a number > 0 \(or None\)"):
            search(coll.get(0), 1, query_timeout=value)


def _forward(problem, node_map) -> np.ndarray:
    """The forward array of a node map given in caller ids."""
    at1 = {u: i for i, u in enumerate(problem.g1.ids)}
    at2 = {v: j for j, v in enumerate(problem.g2.ids)}
    forward = np.full(problem.n1, -1, dtype=np.int64)
    for u, v in node_map:
        if u is not None and v is not None:
            forward[at1[u]] = at2[v]
    return forward


def test_a_verification_stopped_short_has_its_map_polished(monkeypatch):
    """A search's verification whose exact search stops short of a proof reports the map
    polished from the one it reached (IPFP, then REFINE): never a worse upper bound, always
    the cost of the map it returns, the search's lower bound kept."""
    from gedkit.search import ged_search
    from gedkit.solvers import get_solver

    rng = np.random.default_rng(11)
    model = random_costs(rng)
    stopped = []

    def branch_only(solver, problem, budget):  # an exact search that stops at BRANCH's map
        result = get_solver("branch").solve(problem, budget)
        stopped.append(result)
        return result

    monkeypatch.setattr(ged_search, "solve_within", branch_only)
    verify = ged_search.Verifier(model, get_solver("astar"), timeout=30, memory=None,
                                 node_map=True)
    better = 0
    for g1, g2 in zip(_random_set(3, count=8, n=(9, 14)), _random_set(4, count=8, n=(9, 14)),
                      strict=True):
        out = verify(g1, g2, None)
        plain = stopped[-1]
        if plain.optimal:
            continue
        assert out.lower == pytest.approx(plain.lower_bound)
        assert out.upper <= plain.upper_bound + 1e-9
        assert out.upper == pytest.approx(plain.problem.cost(_forward(plain.problem,
                                                                      out.node_map)))
        better += out.upper < plain.upper_bound - 1e-9
    assert better


def test_a_kind_of_try_that_settles_too_few_graphs_stops_paying():
    """kNN's judge of the kernel's tries: it pays until enough tries are counted, then only
    while at least its share of them settled their graphs."""
    from gedkit.search.ged_search import _Yield

    judge = _Yield(8, 0.25)
    for _ in range(7):
        assert judge.pays()
        judge.count(1, 0)
    judge.count(1, 1)
    assert not judge.pays()  # 1 of 8
    judge.count(2, 2)
    assert judge.pays()  # 3 of 10


def test_knn_of_more_graphs_than_the_collection_holds_sets_aside_without_warnings(monkeypatch):
    """k beyond the collection's size: the k-th distance stays unknown (infinite) while graphs
    are set aside and settled; every graph comes back in distance order, certified, and no
    numpy warning (inf - inf) escapes to the user."""
    import warnings

    from gedkit.search import batch

    graphs = _random_set(12, count=12, n=(4, 9))
    coll = _collection(graphs)
    query = _random_set(72, count=1, n=(6, 9))[0]
    truth = _exact(costs.uniform(), query, graphs)
    monkeypatch.setattr(batch, "_PACE", [1.0])  # a first share that fits nothing: set aside
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = coll.knn(query, len(graphs) + 5, timeout=None)
    assert res.certified and len(res.hits) == len(graphs)
    assert [h.distance for h in res.hits] == pytest.approx(sorted(truth))


def test_query_signatures_in_one_pass_equal_one_by_one():
    """The compiled many-queries signatures (branch codes included) equal the Python ones,
    for queries with labels, edge labels and branches the collection lacks, empty ones too."""
    rng = np.random.default_rng(3)
    coll = _collection([random_graph(rng, int(rng.integers(0, 8)), node_values="abc",
                                     edge_values="xy") for _ in range(40)])
    vocab = coll._store.vocab
    queries = [random_graph(rng, int(rng.integers(0, 9)), 0.5,
                            node_values="abcd" if k % 3 == 0 else "abc",
                            edge_values="xyz" if k % 5 == 0 else "xy") for k in range(300)]
    # a node of degree 64 or more has no branch code: that query takes the Python path
    queries.append(gedkit.Graph({i: "a" for i in range(70)}, [(0, i, "x") for i in range(1, 70)]))
    _assert_signed_as_one_by_one(queries, vocab)


def test_query_signatures_of_labels_not_their_own_keys_equal_one_by_one():
    """Labels that are not their own keys (dicts and lists: an unhashable label sends every
    query of the batch the query-by-query way) and a batch mixing queries with labels the
    collection lacks and plain ones: the same signatures as one by one."""
    rng = np.random.default_rng(5)
    graphs = [random_graph(rng, int(rng.integers(1, 8)), node_values="abc", edge_values="xy")
              for _ in range(30)]
    coll = _collection([gedkit.Graph({v: {"el": g.node_labels[v]} for v in range(g.n)},
                                     [(int(u), int(v), [lab]) for (u, v), lab
                                      in zip(g.edges, g.edge_labels, strict=True)])
                        for g in graphs])
    keyed = [gedkit.Graph({v: {"el": g.node_labels[v]} for v in range(g.n)},
                          [(int(u), int(v), [lab]) for (u, v), lab
                           in zip(g.edges, g.edge_labels, strict=True)]) for g in graphs[:6]]
    _assert_signed_as_one_by_one(keyed, coll._store.vocab)
    plain = _collection(graphs)
    mixed = [random_graph(rng, 6, 0.5, node_values="abcd" if k % 4 == 0 else "abc",
                          edge_values="xy") for k in range(40)]
    _assert_signed_as_one_by_one(mixed, plain._store.vocab)
    assert 0 in [h.id for h in coll.range(keyed[0], 0).hits]


def _assert_signed_as_one_by_one(queries, vocab):
    from gedkit.search.filters import query_signature, query_signatures

    batch = query_signatures(queries, vocab)
    assert len(batch) == len(queries)
    for k, query in enumerate(queries):
        ((n, m, sets), record), views = query_signature(query, vocab)
        ((n2, m2, sets2), record2), views2 = batch[k]
        assert (n, m) == (n2, m2) and np.array_equal(record, record2)
        assert record.dtype == record2.dtype
        for kind in sets:
            for a, b in zip(sets[kind], sets2[kind], strict=True):
                assert np.array_equal(a, b) and a.dtype == b.dtype, kind
            a, b = batch.ptr[k], [int(x) for x in batch.ptr[k]]
            assert a.tolist() == b
        for kind in views:
            assert views[kind].keys == views2[kind].keys, kind


def test_filters_screen_most_of_a_molecule_library():
    coll = _collection(MOLECULES)
    res = coll.range("CCO", 1)
    assert res.stats["screened"] == len(MOLECULES)
    assert res.stats["candidates"]["branches"] <= res.stats["candidates"]["labels"] < 8
    assert res.stats["verified"] == res.stats["candidates"]["branches"]
    assert res.stats["candidates"]["sizes"] < len(MOLECULES)  # the size index skipped some
    assert set(res.stats["seconds"]) >= {"filter", "verify"}


@pytest.mark.parametrize("kind", ["uniform", "constant"])
def test_the_first_range_queries_over_rows_as_stored_answer_as_over_sorted_rows(kind):
    """A collection sorts its rows by size for range searches from its fourth range query
    on (a single query does not pay for the sort); the answers are the same either way."""
    from gedkit.search.collection import SORT_FOR_RANGES_FROM

    graphs = _random_set(7, count=40, n=(1, 8))
    model = MODELS[kind](np.random.default_rng(1))
    stored, shuffled, sorted_coll = Collection(), Collection(), Collection()
    for coll, order in ((stored, graphs), (shuffled, graphs[::-1]), (sorted_coll, graphs)):
        coll.add(order, ids="names")
    sorted_coll._signatures_by_size()
    queries = [graphs[3], graphs[17], graphs[30]]
    assert len(queries) < SORT_FOR_RANGES_FROM

    def answers(coll, query, tau):
        res = coll.range(query, tau, costs=model, progress=False)
        return [(h.id, h.distance, h.optimal) for h in res.hits], res.stats["candidates"]

    for tau in (1.0, 3.0):
        for query in queries:
            hits, candidates = answers(sorted_coll, query, tau)
            for coll in (stored, shuffled):
                coll._ranged = 0  # each query the collection's first
                got, counts = answers(coll, query, tau)
                assert counts == candidates
                if coll is stored:
                    assert got == hits
                else:  # (ties come in the order of addition, here reversed)
                    assert sorted(got, key=lambda h: (h[1], h[0])) == sorted(
                        hits, key=lambda h: (h[1], h[0]))
                assert not coll._signatures.__dict__.get("_by_size")
    # a batch of as many queries sorts at once, and answers alike
    batch = stored.range(queries=queries * 2, tau=3.0, costs=model, progress=False)
    assert stored._signatures.__dict__.get("_by_size")
    assert [[(h.id, h.distance) for h in r.hits] for r in batch] == [
        [(h.id, h.distance) for h in sorted_coll.range(q, 3.0, costs=model).hits]
        for q in queries * 2]


def test_persistence_round_trip_and_readers(tmp_path):
    path = tmp_path / "lib.gdb"
    with Collection.create(path) as coll:
        coll.add(MOLECULES[:8], ids=[f"m{i}" for i in range(8)])
        coll.add(MOLECULES[8:])
        before = coll.knn("CCCO", 4)
        assert len(coll) == len(MOLECULES)
    readers = [Collection.open(path) for _ in range(3)]
    for r in readers:
        after = r.knn("CCCO", 4)
        assert [(h.id, h.distance) for h in after.hits] == [(h.id, h.distance)
                                                            for h in before.hits]
        assert r.ids[:2] == ["m0", "m1"] and r.ids[8] == 0
        assert r.get("m3") == gedkit.from_smiles(MOLECULES[3])
    with pytest.raises(OptionError, match="read-only"):
        readers[0].add(["C"])
    for r in readers:
        r.close()
    with Collection.open(path, mode="a") as coll:
        coll.remove(["m0", 3])
        assert len(coll) == len(MOLECULES) - 2 and "m0" not in coll
        assert [h.id for h in coll.range("CCO", 0).hits] == []
    assert len(Collection.open(path)) == len(MOLECULES) - 2


def test_a_graph_added_after_the_last_was_removed_is_found(tmp_path):
    # SQLite gives a removed last row's rowid to the next insert; the removed list must not
    # then hide the new graph from every search
    with Collection.create(tmp_path / "lib.gdb") as coll:
        coll.add(["CCO", "CCN", "CCC"], ids=["a", "b", "c"])
        coll.remove(["c"])
        coll.add(["CCCl"], ids=["d"])
        assert [h.id for h in coll.range("CCCl", 0).hits] == ["d"]
        assert "c" not in coll and coll.get("d") == gedkit.from_smiles("CCCl")
    with Collection.open(tmp_path / "lib.gdb") as coll:
        assert coll.ids == ["a", "b", "d"]
        assert [h.id for h in coll.knn("CCCl", 1).hits] == ["d"]


def test_labels_recorded_and_a_query_with_other_labels_refused(tmp_path):
    path = tmp_path / "lib.gdb"
    with Collection.create(path, node_label="atom", edge_label="aromatic") as coll:
        coll.add(["c1ccccc1", "C1CCCCC1"])
    coll = Collection.open(path)
    assert (coll.node_label, coll.edge_label) == ("atom", "aromatic")
    # read with the recorded labels: benzene and cyclohexane differ in aromatic flags only
    assert [h.distance for h in coll.knn("c1ccccc1", 2).hits] == [0.0, 6.0]
    with pytest.raises(OptionError, match="edge_label='aromatic'"):
        coll.range("CCO", 1, edge_label="bond")


def test_labels_of_every_kind_survive_storage():
    g = gedkit.Graph({0: ("C", 1), 1: {"x": 1.5, "y": [1, 2]}, "z": True}, [(0, 1, 2.5),
                     (1, "z", "s")], name="odd")
    coll = _collection([g])
    assert coll.get(0) == g and coll.get(0).node_labels[1] == {"x": 1.5, "y": (1, 2)}


def test_crash_mid_add_keeps_every_committed_batch(tmp_path):
    path = tmp_path / "lib.gdb"
    script = textwrap.dedent(f"""
        import sys, gedkit
        from gedkit.search import collection
        collection.BATCH = 50
        coll = gedkit.Collection.create({str(path)!r})
        def graphs():
            for i in range(10**6):
                if i % 50 == 0:
                    print(i, flush=True)
                yield gedkit.Graph({{0: "C", 1: i % 7}}, [(0, 1)])
        coll.add(graphs())
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if int(line) >= 600:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    coll = Collection.open(path)
    n = len(coll)
    assert n >= 500 and n % 50 == 0
    assert coll.ids == list(range(n))
    assert len(coll._signatures) == n == sum(1 for _ in coll)


def test_a_writer_killed_mid_commit_is_rolled_back_on_a_read_only_open(tmp_path):
    """A process killed in the middle of a transaction leaves its journal beside the file;
    a reader's open (read-only, which cannot roll it back) said "not a gedkit collection".
    It is rolled back first, and the file reads as before that transaction."""
    path = tmp_path / "lib.gdb"
    with Collection.create(path) as coll:
        coll.add(["CCO", "CCN", "CCC"])
    script = textwrap.dedent(f"""
        import os, sqlite3
        db = sqlite3.connect({str(path)!r})
        db.execute("PRAGMA cache_size = 10")  # spills to the file before the commit
        db.execute("BEGIN")
        for i in range(3000):
            db.execute("INSERT INTO blocks (data) VALUES (?)", (os.urandom(4000),))
        os.kill(os.getpid(), 9)
    """)
    subprocess.run([sys.executable, "-c", script], timeout=120)
    assert path.with_name("lib.gdb-journal").exists()
    with Collection.open(path) as coll:
        assert coll.ids == [0, 1, 2] and coll.range("CCO", 0).ids == [0]


@pytest.mark.parametrize("named", [False, True])
def test_two_processes_adding_at_once_both_succeed(tmp_path, named):
    """Two writers adding to one file at once each wait for the other's batch (the file's
    write lock) and take the labels and automatic ids the other wrote: in 8 of 9 runs one
    of them failed ("another process added graphs", or an automatic id "there already")."""
    path = tmp_path / "lib.gdb"
    Collection.create(path).close()
    script = textwrap.dedent(f"""
        import sys, gedkit
        coll = gedkit.Collection.open({str(path)!r}, mode="a")
        tag = sys.argv[1]
        for b in range(12):
            # each batch brings labels of its own: the two processes' ordinals would collide
            graphs = [gedkit.Graph({{0: "C", 1: f"{{tag}}{{b}}_{{i % 3}}"}}, [(0, 1, i % 4)])
                      for i in range(30)]
            ids = [f"{{tag}}{{b}}_{{i}}" for i in range(30)] if {named} else None
            coll.add(graphs, ids=ids, progress=False)
        print("done")
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script, tag], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for tag in ("a", "b")]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    coll = Collection.open(path)
    assert len(coll) == 720 and len(set(coll.ids)) == 720 and len(coll._signatures) == 720
    # every graph's stored labels and signature agree with it: found at 0 from itself
    for gid in coll.ids[::97]:
        assert gid in coll.range(coll.get(gid), 0, progress=False).ids


def test_ctrl_c_mid_add_keeps_committed_batches(tmp_path, monkeypatch):
    from gedkit.search import collection

    monkeypatch.setattr(collection, "BATCH", 10)
    coll = Collection.create(tmp_path / "lib.gdb")

    def graphs():
        for i in range(35):
            yield gedkit.Graph({0: i})
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        coll.add(graphs())
    assert len(coll) == 30 and coll.ids == list(range(30))
    assert coll._last_added == 30  # what the command line says was committed
    # another writer's graphs meanwhile are not this add's (the command line once counted
    # them as its own: len after minus len before)
    with Collection.open(tmp_path / "lib.gdb", mode="a") as other:
        def interleaved():
            yield from (gedkit.Graph({0: i}) for i in range(12))
            other.add([gedkit.Graph({0: "y"})] * 7)
            yield from (gedkit.Graph({0: i}) for i in range(5))
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            coll.add(interleaved())
    assert coll._last_added == 10 and len(coll) == 30 + 7 + 10
    coll.add([gedkit.Graph({0: "x"})])
    assert coll.ids[-1] == 47


def test_timeout_leaves_graphs_undecided_with_bounds():
    rng = np.random.default_rng(7)
    big = [random_graph(rng, 14, p=0.5, n_labels=1, e_labels=1) for _ in range(3)]
    query = random_graph(rng, 14, p=0.5, n_labels=1, e_labels=1)
    coll = _collection(big)
    res = coll.range(query, 8, method="dfs", timeout=1e-3)
    decided = {h.id for h in res.hits}
    for h in res.undecided:
        assert h.lower_bound <= 8 < h.upper_bound and h.id not in decided
    if res.undecided:
        assert not res.certified
    knn = coll.knn(query, 1, method="dfs", timeout=1e-3)
    assert knn.certified == (not knn.uncertain and not knn.undecided)
    for answer in (res, knn):  # why they stopped, as each solve said (the time limit)
        unproven = len(answer.undecided) + sum(not h.optimal for h in answer.hits)
        reasons = answer.stats.get("stopped", {})
        assert sum(reasons.values()) == unproven
        assert not any(reason.startswith("kernels") for reason in reasons)


@pytest.mark.parametrize("question", ["ged", "mces"])
def test_undecided_before_kernels_compile_say_so(question, monkeypatch):
    """On a fresh install the verifications answer with their cheap bounds at once when a
    compile cannot fit their limit; the answer says that, not "time limit"."""
    from gedkit._kernels import warm
    from gedkit.budget import KERNELS_NOT_READY

    rng = np.random.default_rng(7)
    big = [random_graph(rng, 14, p=0.5, n_labels=1, e_labels=1) for _ in range(3)]
    query = random_graph(rng, 14, p=0.5, n_labels=1, e_labels=1)
    coll = _collection(big)
    for name, value in (("ready", False), ("all_ready", False), ("wait", False)):
        monkeypatch.setattr(warm, name, lambda *a, value=value, **kw: value)
    monkeypatch.setattr(warm, "compile_later", lambda *a, **kw: None)
    res = (coll.range(query, 8, timeout=1.0) if question == "ged"
           else coll.mces_range(query, 0.5, timeout=1.0))
    unproven = len(res.undecided) + sum(not h.optimal for h in res.hits)
    assert unproven and set(res.stats["stopped"]) == {
        "kernels not compiled yet (compiling in the background)"}
    assert set(res.stats["stopped"]) == {KERNELS_NOT_READY}


def test_many_queries_and_processes_give_the_same_answers(tmp_path):
    coll = _collection(MOLECULES)
    queries = ["CCO", "c1ccccc1", "CC(=O)O"]
    one = [coll.knn(q, 3) for q in queries]
    many = coll.knn(queries=queries, k=3)
    jobs = coll.knn(queries=queries, k=3, n_jobs=2)
    for a, b, c in zip(one, many, jobs, strict=True):
        assert [(h.id, h.distance) for h in a.hits] == [(h.id, h.distance) for h in b.hits] \
            == [(h.id, h.distance) for h in c.hits]


def test_worker_processes_of_a_file_answer_as_one_process(tmp_path):
    """``n_jobs=2`` on a file: the workers take the signatures and records the parent read
    (inherited, not read again) and answer range queries in batches; every answer, its
    order, bounds and statistics of what was verified equal one process's."""
    opened = Collection.open(_collection(MOLECULES * 3).split(1, tmp_path)[0])
    queries = [*MOLECULES, "CCCO", "c1ccccc1O"]
    for tau in (1, 3):
        one = opened.range(queries=queries, tau=tau)
        two = opened.range(queries=queries, tau=tau, n_jobs=2)
        assert [[(h.id, h.distance, h.lower_bound, h.upper_bound) for h in r.hits]
                for r in one] == [[(h.id, h.distance, h.lower_bound, h.upper_bound)
                                   for h in r.hits] for r in two]
        assert [r.stats["verified"] for r in one] == [r.stats["verified"] for r in two]
    similar = opened.mces_range(queries=queries[:4], min_similarity=0.5, n_jobs=2)
    assert [[h.id for h in r.hits] for r in similar] == [
        [h.id for h in opened.mces_range(q, 0.5).hits] for q in queries[:4]]


def test_a_collection_keeps_its_worker_processes_for_the_next_search(tmp_path):
    """The workers of ``n_jobs=2`` stay for the collection's next search (starting and
    ending them was a tenth of a 0.3 s search), with any threshold or cost model; an add
    ends them (they hold what was read before it), as do closing and another collection's
    search with workers; a cost model that does not pickle (a lambda) gets workers of its
    own, not kept. Every answer equals one process's."""
    import psutil

    def answered(results):
        return [[(h.id, h.distance) for h in r.hits] for r in results]

    coll = Collection.create(tmp_path / "lib.gdb")
    coll.add(MOLECULES)
    queries = [*MOLECULES[:4], "CCCO"]
    first = coll.range(queries=queries, tau=1, n_jobs=2)
    workers = [p.pid for p in coll._kept.pool._pool]
    for tau, model in ((2, "uniform"), (1, costs.constant(node_sub=2.0))):
        assert answered(coll.range(queries=queries, tau=tau, costs=model, n_jobs=2)) == \
            answered(coll.range(queries=queries, tau=tau, costs=model))
        assert [p.pid for p in coll._kept.pool._pool] == workers
    assert answered(first) == answered(coll.range(queries=queries, tau=1))

    coll.add(["CCCCO"], ids=["new"])
    assert coll._kept is None
    found = coll.range(queries=["CCCCO", "CCO"], tau=0, n_jobs=2)
    assert [h.id for h in found[0].hits] == ["new"] and coll._kept is not None
    lam = costs.custom(node_sub=lambda a, b: 0.5)
    assert answered(coll.range(queries=queries, tau=1, costs=lam, n_jobs=2)) == \
        answered(coll.range(queries=queries, tau=1, costs=lam))
    assert coll._kept is None
    other = Collection.create(tmp_path / "other.gdb")
    other.add(MOLECULES)
    other.range(queries=queries, tau=1, n_jobs=2)  # one collection's workers at a time
    assert coll._kept is None and other._kept is not None
    coll.range(queries=queries, tau=1, n_jobs=2)
    assert other._kept is None
    workers = [psutil.Process(p.pid) for p in coll._kept.pool._pool]
    coll.close()
    assert coll._kept is None
    psutil.wait_procs(workers, timeout=10)
    assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in workers)


def test_a_worker_process_killed_in_a_search_loses_no_query(tmp_path):
    """A worker of ``n_jobs=2`` killed in the middle (the OOM killer, ``kill -9``): the
    queries not answered run again on new workers and the answers equal one process's
    (the search waited for the lost batch for ever before); killed twice, the search returns
    the queries answered, with a warning saying why."""
    import threading
    import warnings

    rng = np.random.default_rng(3)
    coll = Collection.create(tmp_path / "lib.gdb")
    coll.add([random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(30)])
    queries = [random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(6)]
    options = {"queries": queries, "tau": 12, "method": "dfs", "timeout": None}
    one = [[(h.id, h.distance) for h in r.hits] for r in coll.range(**options)]
    for kills in (1, 2):
        coll.range(queries=queries[:2], tau=1, n_jobs=2)  # the workers started

        def kill(kills=kills):
            killed = None
            for _ in range(kills):
                end = time.monotonic() + 30
                while coll._kept is None or coll._kept is killed:  # the search's workers
                    assert time.monotonic() < end
                    time.sleep(0.01)
                killed = coll._kept
                time.sleep(0.1)  # (the workers' search takes seconds)
                os.kill(killed.pool._pool[0].pid, signal.SIGKILL)

        threading.Thread(target=kill, daemon=True).start()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = coll.range(n_jobs=2, **options)
        said = [str(w.message) for w in caught]
        answered = [r for r in results if not r.interrupted]
        assert [[(h.id, h.distance) for h in r.hits] for r in answered] == one[:len(answered)]
        # one result per query all the same: the ones not answered say so, with no hit
        assert len(results) == len(queries)
        assert all(not r.hits and not r.certified for r in results[len(answered):])
        if kills == 1:
            assert len(answered) == len(queries) and not said
        else:
            assert len(answered) < len(queries) and "ended during the search twice" in said[0]


def test_a_shard_holds_the_records_of_its_own_rows_only(tmp_path):
    """A Dask worker's shard (every 3rd graph by size, spread over the file) reads its rows'
    records, not the file's: 32 shards each reading every record cost a worker 0.18 s a
    shard on 100,000 molecules. The shards have the graphs of the collection, each once."""
    from gedkit.search.distributed import _shard, source_of

    coll = _collection(MOLECULES * 2)
    path = coll.split(1, tmp_path)[0]
    source = source_of(Collection.open(path))
    views = [_shard(source, part, 3) for part in range(3)]
    rows = [view._signatures.rowids.tolist() for view in views]
    assert sorted(r for part in rows for r in part) == sorted(coll._signatures.rowids.tolist())
    for view in views:
        assert [h.id for h in view.range("CCO", 20).hits]  # verified: its records were read
        keys, held = view._held
        assert sorted(keys.tolist()) == sorted(view._signatures.rowids.tolist())
        assert len(keys) == held.count < len(MOLECULES)


def test_range_and_knn_order_equal_distances_alike():
    # three graphs at distance 2 from the query, the largest added first: the range search
    # verifies its candidates by size, yet ties come in the collection's order, as in kNN
    coll = Collection()
    coll.add(["CCCCO", "CCCN", "CCCC", "CCO", "CCCO", "CCC"], ids=list("abcdef"))
    ranged = [(h.distance, h.id) for h in coll.range("CCCO", 2).hits]
    assert ranged == [(0.0, "e"), (1.0, "b"), (1.0, "c"), (2.0, "a"), (2.0, "d"), (2.0, "f")]
    nearest = coll.knn("CCCO", 6)
    assert nearest.certified and [(h.distance, h.id) for h in nearest.hits] == ranged


def test_range_ties_are_ties_up_to_rounding():
    # a distance summed in two orders (2.1999999999999997 and 2.2 under these costs) is one
    # distance: tied hits are listed in the collection's order, not by the last bits
    costs_ = costs.custom(
        node_sub=lambda a, b: 0 if a == b else (0.5 if {a, b} <= {"C", "N", "O"} else 1.5),
        node_del=1.0, node_ins=1.0, edge_sub=lambda a, b: 0 if a == b else 0.3,
        edge_del=0.7, edge_ins=0.7)
    first = gedkit.Graph(dict(enumerate("NCCCCNCC")), [
        (0, 1, 1), (1, 2, 1.5), (2, 3, 1.5), (3, 4, 1.5), (4, 5, 1), (4, 6, 1.5), (6, 7, 1.5),
        (1, 7, 1.5)])
    second = gedkit.Graph(dict(enumerate("CCCCCCO")),
                          [(i, i + 1, 1) for i in range(5)] + [(4, 6, 1)])
    query = "c1ccccc1O"
    found = [gedkit.ged(query, g, costs_, timeout=None).distance for g in (first, second)]
    assert found[0] != found[1] and abs(found[0] - found[1]) < 1e-9  # the two sums
    for graphs in ([first, second], [second, first]):
        coll = _collection(graphs)
        assert coll.range(query, 3.5, costs=costs_, progress=False).ids == [0, 1]


def test_no_hit_has_its_lower_bound_above_its_upper():
    # CHEM_2's filter sum 3.575000000000001 against the map's 3.575: one distance, which a
    # hit printed with its lower bound above its upper
    coll = _collection(["CCO", "CCN", "CCCC", "c1ccccc1", "CCCO", "OCCO"])
    for res in (coll.knn("CCCO", 3, costs="chem_2", progress=False),
                coll.range("CCCO", 5, costs="chem_2", progress=False)):
        assert res.certified and res.hits
        assert all(h.lower_bound <= h.upper_bound for h in res.hits), res.hits


@pytest.mark.parametrize(("question", "name", "stand_in"), [
    ("range", "tau", "threshold"), ("knn", "k", "n"),
    ("mces_range", "min_similarity", "threshold"), ("mces_knn", "k", "top"),
])
def test_a_keyword_in_place_of_the_searchs_own_is_named(question, name, stand_in):
    # mces_range(q, threshold=0.6) said "min_similarity must be a number >= 0, got None"
    coll = _collection(["CCO", "CCN"])
    with pytest.raises(gedkit.OptionError, match=rf"^{name} is missing: give {name}= "
                                                 rf"\({stand_in}= is not a parameter"):
        getattr(coll, question)("CCO", **{stand_in: 1})


def test_merge_ranks_hits_as_the_searches_do():
    # kNN: at one distance the better proven bound first (as rank_key; merge had it the
    # other way round), whatever shard it came from; range: the lower bound up, as listed
    from gedkit.search import Hit, SearchResult

    loose, tight = Hit("x", 3.0, 2.0, 3.0, False), Hit("y", 3.0, 3.0, 3.0, True)
    knn = [SearchResult("knn", "q", 1, [loose]), SearchResult("knn", "q", 1, [tight])]
    assert merge(knn).ids == ["y"]
    ranged = [SearchResult("range", "q", 3, [tight]), SearchResult("range", "q", 3, [loose])]
    assert merge(ranged).ids == ["x", "y"]
    assert "interrupted" in repr(SearchResult("knn", "q", 1, [], interrupted=True))
    assert "timed out" in repr(SearchResult("knn", "q", 1, [], timed_out=True))


def test_merged_nearest_are_certified_as_a_whole_search_would_be():
    """A shard whose own k-th is uncertain far beyond the overall k-th costs the merged
    answer nothing (it was uncertified whenever a shard was); a graph left undecided, or a
    hit left out, that could still beat the overall k-th keeps it uncertain, and a shard
    stopped before its scan's end makes uncertain every hit a graph it never reached could
    beat (by its frontier). MCES alike, larger being better."""
    from gedkit.search import Hit, SearchResult

    near = [Hit("a", 1.0, 1.0, 1.0, True), Hit("b", 2.0, 2.0, 2.0, True)]
    far = SearchResult("knn", "q", 2, [Hit("c", 9.0, 5.0, 9.0, False),
                                       Hit("d", 9.0, 6.0, 9.0, False)],
                       [Hit("e", 9.0, 4.0, 9.0, False)], False, ["c", "d"])
    merged = merge([SearchResult("knn", "q", 2, near, certified=True), far])
    assert merged.ids == ["a", "b"] and merged.certified
    assert merged.undecided == [] and merged.uncertain == []
    # a graph left undecided below the k-th: uncertain from it on, and undecided
    close = SearchResult("knn", "q", 2, [Hit("c", 9.0, 1.5, 9.0, False)], [], False, ["c"])
    merged = merge([SearchResult("knn", "q", 2, near, certified=True), close])
    assert not merged.certified and merged.uncertain == ["b"]
    assert [h.id for h in merged.undecided] == ["c"]
    # a shard that ran out of time before its end, its graphs not reached at 0.5 or more:
    # every hit they could beat uncertain
    late = SearchResult("knn", "q", 2, [Hit("c", 9.0, 9.0, 9.0, True)], [], False, ["c"],
                        timed_out=True, frontier=0.5)
    merged = merge([SearchResult("knn", "q", 2, near, certified=True), late])
    assert not merged.certified and merged.uncertain == ["a", "b"] and merged.timed_out
    assert merged.frontier == 0.5 and merged.to_dict()["frontier"] == 0.5
    assert str(SearchResult("knn", "q", 1, frontier=-0.0).to_dict()["frontier"]) == "0.0"
    # ... but not a hit none of them can beat: those at 1.5 or more, tying at best with a
    late.frontier = 1.5
    merged = merge([SearchResult("knn", "q", 2, near, certified=True), late])
    assert not merged.certified and merged.uncertain == ["b"]
    # ... nor a proven distance 0, which nothing beats, whatever the frontier
    same = [Hit("z", 0.0, 0.0, 0.0, True), Hit("y", 0.0, 0.0, 0.0, True)]
    late.frontier = 0.0
    merged = merge([SearchResult("knn", "q", 2, same, certified=True), late])
    assert merged.certified and merged.uncertain == [] and merged.ids == ["z", "y"]
    # MCES: similarity, larger first; the far shard's upper bounds are below the k-th
    top = [Hit("a", 0.9, 0.9, 0.9, True), Hit("b", 0.8, 0.8, 0.8, True)]
    low = SearchResult("mces_knn", "q", 2, [Hit("c", 0.1, 0.1, 0.3, False)], [], False, ["c"])
    merged = merge([SearchResult("mces_knn", "q", 2, top, certified=True), low])
    assert merged.ids == ["a", "b"] and merged.certified
    high = SearchResult("mces_knn", "q", 2, [Hit("c", 0.1, 0.1, 0.85, False)], [], False,
                        ["c"])
    merged = merge([SearchResult("mces_knn", "q", 2, top, certified=True), high])
    assert not merged.certified and merged.uncertain == ["b"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3), st.booleans()), max_size=8),
       st.integers(1, 4), st.one_of(st.none(), st.integers(0, 8)))
def test_knn_verdict_is_one_rule_for_distances_and_similarities(graphs, k, frontier):
    """The rule that certifies a kNN answer gives mirrored answers for GED (smaller is
    better, a graph's best its lower bound) and MCES (larger is better, its best its upper
    bound): a similarity 1 - d for each distance d."""
    from gedkit.search import Hit
    from gedkit.search.knn_verdict import knn_verdict

    found = [Hit(i, float(lo + gap), float(lo), float(lo + gap), gap == 0 and proven)
             for i, (lo, gap, proven) in enumerate(graphs)]
    found.sort(key=lambda h: (h.distance, -h.lower_bound, h.id))
    mirrored = [Hit(h.id, 1.0 - h.upper_bound, 1.0 - h.upper_bound, 1.0 - h.lower_bound,
                    h.optimal) for h in found]
    ged = knn_verdict(found[:k], found[k:], k, False, frontier)
    mces = knn_verdict(mirrored[:k], mirrored[k:], k, True,
                       None if frontier is None else 1.0 - frontier)
    assert [h.id for h in ged[0]] == [h.id for h in mces[0]] and ged[1:] == mces[1:]
    # and it never certifies an answer some graph left, or not reached, could beat
    if ged[2]:
        assert all(h.optimal for h in found[:k])
        kth = found[k - 1].distance if len(found) >= k else math.inf
        assert all(h.lower_bound >= kth for h in found[k:])
        assert frontier is None or frontier >= kth


def test_shards_searched_apart_and_merged_equal_the_whole(tmp_path):
    coll = _collection(MOLECULES)
    paths = coll.split(3, tmp_path)
    shards = [Collection.open(p) for p in paths]
    assert sum(len(s) for s in shards) == len(coll)
    for tau in (1, 3):
        whole = coll.range("CCCO", tau)
        parts = merge([s.range("CCCO", tau) for s in shards])
        assert sorted((h.distance, h.id) for h in parts.hits) == sorted(
            (h.distance, h.id) for h in whole.hits)
    whole = coll.knn("CCCO", 5)
    parts = merge([s.knn("CCCO", 5) for s in shards])
    assert [h.distance for h in parts.hits] == [h.distance for h in whole.hits]
    assert parts.certified and parts.stats["screened"] == len(coll)
    # answers to other queries, or one shard's answer twice: refused, not joined
    with pytest.raises(OptionError, match="different queries"):
        merge([shards[0].range("CCCO", 3), shards[1].range("c1ccccc1", 3)])
    with pytest.raises(OptionError, match="in two of the answers"):
        merge([shards[0].range("CCCO", 3)] * 2)
    with pytest.raises(OptionError, match="at most one shard per graph"):  # no empty files
        coll.split(len(coll) + 1, tmp_path / "more")
    assert not (tmp_path / "more").exists()



def test_merge_refuses_answers_searched_under_other_costs_or_options(tmp_path):
    """Every search records what its distances mean (``measure``: the cost model, MCES's
    options that change the similarity), in its JSON too; merge refused answers to other
    queries but joined shards searched under other costs: uniform 8 and 10 ranked with
    chem_2's 10.725, certified."""
    coll = _collection(MOLECULES)
    first, second = (Collection.open(p) for p in coll.split(2, tmp_path))
    with pytest.raises(OptionError, match=r"^cannot merge answers searched with different "
                                          r"costs: <CostModel chem_2\(.*\)> #\w+ \(results"
                                          r"\[0\]\) and <CostModel uniform\(.*\(results\[1\]\)$"):
        merge([first.knn("CCO", 3, costs="chem_2"), second.knn("CCO", 3)])
    with pytest.raises(OptionError, match="different costs"):  # range alike; and constants
        # the repr rounds (1234567 and 1234568 both read 1.23457e+06) told apart
        merge([first.range("CCO", 3, costs="constant:node_sub=1234567"),
               second.range("CCO", 3, costs="constant:node_sub=1234568")])
    # under one model they merge, and the answer keeps its measure
    whole = coll.knn("CCO", 3, costs="chem_2")
    parts = merge([first.knn("CCO", 3, costs="chem_2"),
                   second.knn("CCO", 3, costs=costs.chem_2())])  # (a model, not its name)
    assert parts.measure == whole.measure and parts.measure.startswith("<CostModel chem_2(")
    assert [h.distance for h in parts.hits] == [h.distance for h in whole.hits]
    assert json.loads(parts.to_json())["measure"] == whole.measure
    assert coll.knn("CCO", 3).measure != whole.measure
    # a model whose state cannot be pinned down (a function reading a lock: see pairwise's
    # resume) is told apart by its class and repr only, and says so
    lock = threading.Lock()
    odd = costs.custom(node_sub=lambda a, b: 0.0 if lock.locked() or a == b else 1.0)
    shy = [shard.knn("CCO", 2, costs=odd) for shard in (first, second)]
    assert shy[0].measure == "<CostModel custom> #" + shy[0].measure[20:36] + ", unchecked"
    assert merge(shy).measure == shy[0].measure
    # MCES: the options that change the similarity, not the method
    plain = first.mces_knn("CCO", 2)
    assert plain.measure == "Johnson similarity"
    assert merge([plain, second.mces_knn("CCO", 2, method="auto")]).measure == plain.measure
    for options, words in (({"rascal_ties": True}, "rascal_ties=True"),
                           ({"ring_matches_ring_only": True}, "ring_matches_ring_only=True"),
                           ({"connected": True, "method": "auto"}, "connected=True")):
        other = second.mces_knn("CCO", 2, **options)
        assert other.measure == f"Johnson similarity ({words})"
        with pytest.raises(OptionError, match=rf"different similarity options: Johnson "
                                              rf"similarity \(results\[0\]\) and Johnson "
                                              rf"similarity \({words}\) \(results\[1\]\)"):
            merge([plain, other])
    ranged = first.mces_range("CCO", 0.5, connected=True, ring_matches_ring_only=True)
    assert ranged.measure == "Johnson similarity (connected=True, ring_matches_ring_only=True)"
    # many queries, in worker processes, each answer handed on: all record it
    told = []
    many = coll.range(queries=["CCO", "CCN", "c1ccccc1"], tau=2, costs="chem_2", n_jobs=2,
                      each=lambda position, result: told.append(result.measure))
    assert {r.measure for r in many} == set(told) == {whole.measure} and len(told) == 3
    assert {r.measure for r in coll.mces_knn(queries=["CCO", "CCN"], k=2, n_jobs=2,
                                             rascal_ties=True)} == {
        "Johnson similarity (rascal_ties=True)"}
    # an answer made by hand records none: taken to share the others'
    alone = SearchResult("knn", "CCO", 3)
    assert alone.measure is None and alone.to_dict()["measure"] is None
    assert merge([alone, whole]).measure == whole.measure
    assert merge([alone, SearchResult("knn", "CCO", 3)]).measure is None


def test_a_split_replaces_an_earlier_ones_shards_only_when_asked(tmp_path):
    """A split into a folder holding an earlier split's shards: refused (they were
    overwritten without a word: 2,000 graphs became 100); with ``overwrite=True`` they are
    replaced and those beyond the new count removed (a merge of ``shard-*.gdb`` would have
    counted them twice); a file there that is not a collection is never replaced."""
    coll = _collection(MOLECULES)
    first = coll.split(3, tmp_path)
    with pytest.raises(OptionError, match=r"shard-0\.gdb exists .*overwrite=True"):
        coll.split(2, tmp_path)
    assert sum(len(Collection.open(p)) for p in first) == len(coll)  # untouched
    (tmp_path / "shard-x.gdb").write_text("mine")  # not a shard's name: left alone
    second = coll.split(2, tmp_path, overwrite=True)
    assert sorted(p.name for p in tmp_path.glob("shard-*.gdb")) == [
        "shard-0.gdb", "shard-1.gdb", "shard-x.gdb"]
    assert sum(len(Collection.open(p)) for p in second) == len(coll)
    (tmp_path / "shard-5.gdb").write_text("not a collection")
    with pytest.raises(GedkitError, match=r"shard-5\.gdb"):
        coll.split(2, tmp_path, overwrite=True)
    assert (tmp_path / "shard-5.gdb").read_text() == "not a collection"


def test_node_maps_on_request():
    coll = _collection(MOLECULES)
    hit = coll.range("CCO", 1, node_map=True).hits[1]
    assert hit.node_map is not None and len(hit.node_map) >= 3
    assert coll.range("CCO", 1).hits[0].node_map is None


def test_knn_undecided_carry_their_maps_on_request():
    """kNN's undecided graphs carry the best map found, as its hits and range answers do
    (under general costs, verified pair by pair, they came without)."""
    weights = np.random.default_rng(4).uniform(0.2, 2.5, size=(8, 8))
    cm = costs.custom(node_sub=lambda a, b: float(weights[hash(a) % 8, hash(b) % 8]),
                      node_del=lambda a: 0.5 + (hash(a) % 3) / 3, node_ins=lambda a: 1.3,
                      edge_sub=0.7, edge_del=1.7, edge_ins=0.15)
    coll = _collection(_random_set(3, count=40, n=(9, 13)))
    query = _random_set(50, count=1, n=(11, 12))[0]
    # (several limits: which graphs the kernel sets aside, and whether they are tried again
    # before the k-th distance passes them, depends on the machine's speed; those never
    # tried again had the kernel's upper bound and no map)
    undecided = 0
    for timeout in (0.001, 0.002, 0.003, 0.006, 0.008):
        res = coll.knn(query, 5, costs=cm, node_map=True, timeout=timeout, progress=False)
        undecided += len(res.undecided)
        for h in [*res.hits, *res.undecided]:
            assert h.node_map is not None and len(h.node_map) >= query.n
            g = coll.get(h.id)  # the upper bound is the map's cost
            forward = [-1] * query.n
            for u, v in h.node_map:
                if u is not None and v is not None:
                    forward[query.ids.index(u)] = g.ids.index(v)
            assert cm.compile(query, g).cost(forward) == pytest.approx(h.upper_bound)
    assert undecided


def test_a_collection_says_it_cannot_be_pickled():
    import copy
    import pickle

    coll = _collection(["CCO"])
    for use in (pickle.dumps, copy.deepcopy):
        with pytest.raises(GedkitError, match="cannot be pickled or copied: pass its file's"):
            use(coll)


def test_result_serialises():
    res = _collection(MOLECULES).knn("CCO", 2)
    data = json.loads(res.to_json())
    assert data["kind"] == "knn" and data["k"] == 2 and len(data["hits"]) == 2
    assert "certified" in repr(res)


def test_a_threshold_of_minus_zero_reads_zero():
    # -0.0 passes ">= 0" and was echoed as "-0": in repr, --json and the command line's header
    coll = _collection(["CCO", "CCC"])
    for res in (coll.range("CCO", -0.0), coll.mces_range("CCO", -0.0)):
        assert str(res.parameter) == "0.0" and "=-0" not in repr(res)
        data = json.loads(res.to_json())
        assert str(data.get("tau", data.get("min_similarity"))) == "0.0"


@pytest.mark.parametrize("call, match", [
    (lambda c: c.range("CCO", -1), "tau must be a number >= 0"),
    (lambda c: c.range("CCO", math.nan), "tau must be"),
    (lambda c: c.range("CCO", "3"), "tau must be"),
    (lambda c: c.knn("CCO", 0), "k must be a positive integer"),
    (lambda c: c.knn("CCO", 2.5), "k must be a positive integer"),
    (lambda c: c.range(None, 1), "no query given"),
    (lambda c: c.range("CCO", 1, queries=["CC"]), "not both"),
    (lambda c: c.range("CCO", 1, timeout="5"), "timeout must be a number"),
    (lambda c: c.range("CCO", 1, method="nope"), "nope"),
    (lambda c: c.add(["C", "N"], ids=["a", "a"]), "'a' is given twice"),
    (lambda c: c.add(["C"], ids=[0]), "id 0 already"),
    # an id that prints as one there already (graph 1 and graph "1"), in the file or the batch
    (lambda c: c.add(["C"], ids=["0"]), "id 0 already .1 and '1' are one id"),
    (lambda c: c.add(["C", "N"], ids=[7, "7"]), "'7' is given twice"),
    (lambda c: c.add(["C"], ids=[1.5]), "strings or integers"),
    (lambda c: c.add(gedkit.Graph({0: 1})), "pass \\[graph\\]"),
    (lambda c: c.range("CCO", 1, n_jobs=0), "n_jobs"),
])
def test_bad_options_get_one_line(call, match):
    coll = _collection(["CCO", "CCC"])
    with pytest.raises(GedkitError, match=match) as err:
        call(coll)
    assert "\n" not in str(err.value)
    assert len(coll) == 2


def test_a_damaged_file_or_a_closed_collection_is_one_line(tmp_path):
    """A collection file damaged where opening does not read (found as a search or an
    iteration reads it) and a collection used after ``close()``: gedkit's errors naming the
    file, never SQLite's."""
    rng = np.random.default_rng(2)
    path = tmp_path / "lib.gdb"
    with Collection.create(path) as coll:
        coll.add([random_graph(rng, 12, p=0.3, n_labels=4) for _ in range(400)])
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 8192] = b"\xff" * 8192
    bad = tmp_path / "bad.gdb"
    bad.write_bytes(bytes(data))
    said = []
    for use in (len, list, lambda c: c.ids, lambda c: c.get(c.ids[-1]),
                lambda c: c.range(random_graph(rng, 12, p=0.3, n_labels=4), 40),
                lambda c: c.knn(c.get(c.ids[0]), 3), lambda c: list(c.items())):
        try:
            with Collection.open(bad) as coll:
                use(coll)
        except GedkitError as err:
            said.append(str(err))
    assert said and all(str(bad) in m and "\n" not in m for m in said)
    assert any("is damaged" in m for m in said)
    # cut short (a copy or a download that stopped): damaged, not "not a gedkit collection"
    short = tmp_path / "short.gdb"
    short.write_bytes(path.read_bytes()[:len(data) // 2])
    with pytest.raises(FormatError, match=r"short\.gdb is damaged \(SQLite: .*malformed"):
        Collection.open(short)
    coll = Collection.open(path)
    coll.close()
    for use in (len, lambda c: c.range("CCO", 1), lambda c: c.add(["CCO"])):
        with pytest.raises(GedkitError, match="the collection is closed"):
            use(coll)


@pytest.mark.parametrize("where, value", [
    (2, 99),  # a node label ordinal past the vocabulary
    (2, -3),  # a negative one
    (5, 40),  # an edge end past the graph's nodes
    (6, 0),  # an edge whose ends are one node (its smaller end first: 0 <= 0)
    (7, 7),  # the other edge's end past the nodes
    (9, 7),  # an edge label ordinal past the vocabulary
])
def test_a_record_damaged_inside_is_one_line_never_a_crash(tmp_path, where, value):
    """A graph's record of the right length whose content is damaged (an index the kernel
    trusts): searches and ``check()`` say the file is damaged; they read and wrote past the
    kernel's arrays (a segmentation fault), and ``--check`` called such a file sound."""
    path = tmp_path / "lib.gdb"
    with Collection.create(path) as coll:
        coll.add(["CCO", "CC=O", "CCC", "OCCN"])
    with sqlite3.connect(path) as db:
        # CC=O: [n=3, m=2, 3 node ordinals, ends (0, 1), (1, 2), 2 edge ordinals]
        record = bytearray(db.execute("SELECT record FROM graphs WHERE rowid = 2").fetchone()[0])
        record[4 * where:4 * where + 4] = int(value).to_bytes(4, "little", signed=True)
        db.execute("UPDATE graphs SET record = ? WHERE rowid = 2", (bytes(record),))
    for use in (lambda c: c.range("CCO", 9), lambda c: c.knn("CCO", 4), Collection.check):
        with Collection.open(path) as coll, pytest.raises(FormatError, match=(
                r"lib\.gdb: a stored graph record is damaged; build the collection again")):
            use(coll)


def test_check_reads_every_graph_as_well_as_every_page(tmp_path):
    """``check()`` decompresses every stored graph: bytes damaged inside a page SQLite
    reads (its checksum is the compression's) are found there, naming the graph, not in
    the middle of a later search."""
    path = tmp_path / "lib.gdb"
    with Collection.create(path) as coll:
        coll.add(["CCO", "CC=O", "CCC"], ids=["a", "b", "c"])
        coll.check()
    with sqlite3.connect(path) as db:
        data = bytearray(db.execute("SELECT data FROM graphs WHERE rowid = 2").fetchone()[0])
        data[6] ^= 0x5A
        db.execute("UPDATE graphs SET data = ? WHERE rowid = 2", (bytes(data),))
    with Collection.open(path) as coll:
        with pytest.raises(FormatError, match=r"the stored graph 'b' is damaged"):
            coll.check()
        with pytest.raises(FormatError, match=r"compressed bytes do not decompress"):
            coll.get("b")


@pytest.mark.parametrize("edit", [
    "UPDATE meta SET value = '{' WHERE key = 'node_label'",
    "UPDATE graphs SET id = 'not json' WHERE rowid = 1",
    "UPDATE blocks SET data = substr(data, 1, length(data) / 2)",
    "DELETE FROM blocks",  # every signature gone: not an empty collection
    "UPDATE graphs SET data = x'deadbeef', record = x'00' WHERE rowid = 1",
    "UPDATE graphs SET record = x'0500000000000000' WHERE rowid = 1",
    # a graph gone with nobody writing since: damage, not another process's remove
    "DELETE FROM graphs WHERE rowid = 2",
    # a table gone: opening says so (``collection info`` read no graph and described it)
    "DROP TABLE graphs",
    "DROP TABLE removed",
])
def test_a_row_edited_by_hand_is_one_line(tmp_path, edit):
    """A file whose meta, id, signature block or record was damaged by hand: a FormatError
    naming the file, from whichever use reads it (they were JSON, zip and numpy tracebacks,
    and a record too short for its node count would have been read past its end)."""
    path = tmp_path / "lib.gdb"
    with Collection.create(path) as coll:
        coll.add(["CCO", "CCN", "CCC", "c1ccccc1"])
    with sqlite3.connect(path) as db:
        db.execute(edit)
    said = []
    for use in (lambda c: c.range("CCO", 9), lambda c: c.knn("CCO", 4), list,
                lambda c: c.ids):
        try:
            with Collection.open(path) as coll:
                use(coll)
        except FormatError as err:
            said.append(str(err))
    assert said and all(m.startswith(str(path)) and "damaged" in m for m in said)


def test_a_cost_model_needing_attributes_the_collection_lacks_says_to_build_it_again():
    # the query cannot be read again with other labels: the collection's were fixed when it
    # was built, so that is what the advice is about
    coll = _collection(["CCO", "CCN"])
    with pytest.raises(gedkit.CostModelError,
                       match=r"read with their format's own node labels: build it again with "
                             r"node_label='\*'"):
        coll.range("CCO", 2, costs="letter")


def test_directed_graphs_refused_and_nothing_lost():
    import networkx as nx

    coll = _collection(["CCO"])
    with pytest.raises(GedkitError, match="directed"):
        coll.add([nx.path_graph(3), nx.DiGraph([(0, 1)])])
    assert len(coll) == 1


def test_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such collection file"):
        Collection.open(tmp_path / "missing.gdb")
    junk = tmp_path / "junk.gdb"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(FormatError, match=r"not a gedkit collection|cannot open"):
        Collection.open(junk)
    foreign = tmp_path / "foreign.gdb"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(FormatError, match="not a gedkit collection"):
        Collection.open(foreign)
    Collection.create(tmp_path / "x.gdb").close()
    with pytest.raises(FileExistsError, match="exists already"):
        Collection.create(tmp_path / "x.gdb")
    with pytest.raises(OptionError, match="mode must be"):
        Collection.open(tmp_path / "x.gdb", mode="w")
    # overwrite replaces a collection file, never another file or a folder
    for other in (junk, foreign):
        before = other.read_bytes()
        with pytest.raises(OptionError, match=r"not a gedkit collection.*collection files only"):
            Collection.create(other, overwrite=True)
        assert other.read_bytes() == before
    for overwrite in (False, True):
        with pytest.raises(OptionError, match="is not a file"):
            Collection.create(tmp_path, overwrite=overwrite)
    Collection.create(tmp_path / "x.gdb", overwrite=True).close()  # a collection: replaced


def test_a_folder_that_takes_no_new_file_is_named(tmp_path, monkeypatch):
    """SQLite's "unable to open database file" for a new collection in /sys (or on a
    read-only mount, or without the right to write): the folder's fault, said so (it read
    "cannot open /sys/l.gdb as a collection", as if the file were damaged)."""
    from gedkit.search import store

    def refused(*args, **kwargs):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(store.sqlite3, "connect", refused)
    with pytest.raises(GedkitError, match=r"^cannot create .*new\.gdb: the folder .* takes "
                       r"no new file \(unable to open database file\)$") as told:
        Collection.create(tmp_path / "new.gdb")
    assert not isinstance(told.value, FormatError)


def test_signatures_of_an_earlier_layout_say_so(tmp_path):
    import io

    path = tmp_path / "old.gdb"
    with Collection.create(path) as coll:
        coll.add(["CCO", "CCN"])
    conn = sqlite3.connect(path)
    for block, blob in conn.execute("SELECT block, data FROM blocks").fetchall():
        with np.load(io.BytesIO(blob)) as z:  # the arrays without the degree multisets
            kept = {k: z[k] for k in z.files if not k.startswith("degree_")}
        out = io.BytesIO()
        np.savez(out, **kept)
        conn.execute("UPDATE blocks SET data = ? WHERE block = ?", (out.getvalue(), block))
    conn.commit()
    conn.close()
    with pytest.raises(FormatError, match=r"lack the degree multisets .* build the collection"):
        len(Collection.open(path))


def test_signatures_read_block_by_block_equal_the_blocks_joined(tmp_path, monkeypatch):
    import io

    from gedkit.search import collection
    from gedkit.search.signatures import SETS, Signatures

    monkeypatch.setattr(collection, "BATCH", 4)
    path = tmp_path / "lib.gdb"
    with Collection.create(path) as coll:
        coll.add(MOLECULES)  # four blocks
        coll.remove([2, 9])
    conn = sqlite3.connect(path)
    blobs = [blob for (blob,) in conn.execute("SELECT data FROM blocks ORDER BY block")]
    parts = [Signatures.from_bytes(b) for b in blobs]
    assert len(parts) == 4
    sig = Collection.open(path)._store.signatures()
    keep = ~np.isin(np.concatenate([p.rowids for p in parts]), [3, 10])  # rowids of ids 2, 9
    assert sig.rowids.tolist() == np.concatenate([p.rowids for p in parts])[keep].tolist()
    assert sig.n.tolist() == np.concatenate([p.n for p in parts])[keep].tolist()
    for kind in SETS:
        rows = [list(zip(p.sets[kind].ids[a:b].tolist(), p.sets[kind].counts[a:b].tolist(),
                         strict=True))
                for p in parts for a, b in zip(p.sets[kind].ptr[:-1].tolist(),
                                               p.sets[kind].ptr[1:].tolist(), strict=True)]
        got = sig.sets[kind]
        assert [list(zip(got.ids[a:b].tolist(), got.counts[a:b].tolist(), strict=True))
                for a, b in zip(got.ptr[:-1].tolist(), got.ptr[1:].tolist(), strict=True)] == [
            r for r, k in zip(rows, keep, strict=True) if k]
    # a block whose multisets do not match its rows is damaged, not read wrongly
    with np.load(io.BytesIO(blobs[1])) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["node_ptr"] = np.append(arrays["node_ptr"], arrays["node_ptr"][-1])
    out = io.BytesIO()
    np.savez(out, **arrays)
    conn.execute("UPDATE blocks SET data = ? WHERE block = (SELECT MIN(block) + 1 FROM blocks)",
                 (out.getvalue(),))
    conn.commit()
    conn.close()
    with pytest.raises(FormatError, match="stored signatures are damaged"):
        len(Collection.open(path))


@pytest.mark.parametrize("kind", ["node", "edge", "branch"])
def test_a_vocabulary_that_lost_rows_is_damage_not_an_empty_answer(tmp_path, kind):
    """A file whose vocabulary rows were deleted by hand answered every query with no hit,
    certified (its graphs' ordinals pointed past the labels left): it is damaged, said in
    one line."""
    path = tmp_path / "lib.gdb"
    coll = Collection.create(path)
    coll.add(MOLECULES)
    coll.close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM vocabulary WHERE kind = ?", (kind,))
    conn.commit()
    conn.close()
    with pytest.raises(FormatError, match=f"damaged .its {kind} vocabulary lacks labels"):
        Collection.open(path).knn("CCO", 2)


def test_add_reads_files_of_every_kind(tmp_path):
    smi = tmp_path / "lib.smi"
    smi.write_text("CCO ethanol\nCCN amine\n")
    tve = tmp_path / "lib.txt"
    gedkit.write([gedkit.Graph({0: "C", 1: "O"}, [(0, 1, 1)], name="co")], tve)
    coll = Collection()
    assert coll.add(smi) == 2
    assert coll.add([tve, "CCCC"]) == 2
    assert [g.name for g in coll] == ["ethanol", "amine", "co", "CCCC"]


@pytest.mark.parametrize("method", ["astar", "dfs"])  # batched, and one pair at a time
def test_interrupted_search_says_so(monkeypatch, method):
    """Ctrl-C (the flag interruptible() sets) stops the verification: the result says so
    and is not certified, unless every candidate was decided first (the batch kernel's
    call under way ends its candidates): then the answer is whole."""
    import warnings

    from gedkit.search import ged_search

    coll = _collection(MOLECULES)
    whole = coll.range("CCO", 3, method=method)
    monkeypatch.setattr(ged_search, "interrupted_now", lambda: True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = coll.range("CCO", 3, method=method)
    candidates = res.stats["candidates"]["branches"]
    if method == "dfs":  # one at a time: it stops after the pair under way
        assert res.stats["verified"] < candidates
    if res.stats["verified"] == candidates:  # all decided: whole, certified, no warning
        assert not res.interrupted and res.certified and not caught
        assert [(h.id, h.distance) for h in res.hits] == [(h.id, h.distance)
                                                          for h in whole.hits]
        return
    assert res.interrupted and not res.certified
    [warning] = [w for w in caught if issubclass(w.category, gedkit.InterruptedWarning)]
    assert warning.filename == __file__  # the user's line, not gedkit's
    # every candidate is a hit, undecided (the unverified ones with their filter bound and
    # no upper bound, counted), or verified beyond the threshold: none is in no list
    unverified = candidates - res.stats["verified"]
    assert res.stats.get("unreached", 0) == unverified
    assert sum(h.upper_bound == math.inf for h in res.undecided) == unverified
    assert {h.id for h in whole.hits} <= {h.id for h in res.hits + res.undecided}


def test_a_query_decided_before_ctrl_c_is_whole(monkeypatch):
    """Ctrl-C that comes once the batch kernel decided every candidate of a query (many
    queries verified together, under a time limit per query as the command line sets one)
    leaves that query's answer whole: such queries were marked interrupted."""
    from gedkit.search import ged_search

    graphs = _random_set(31, count=30, n=(4, 8))
    coll = _collection(graphs)
    queries = graphs[:6]
    whole = coll.range(None, 3.0, queries=queries, query_timeout=60, progress=False)
    real = ged_search._verify_together

    def then_ctrl_c(*args, **kwargs):
        found = real(*args, **kwargs)
        monkeypatch.setattr(ged_search, "interrupted_now", lambda: True)
        return found

    monkeypatch.setattr(ged_search, "_verify_together", then_ctrl_c)
    res = coll.range(None, 3.0, queries=queries, query_timeout=60, progress=False)
    decided = [r for r in res if r.stats.get("batched") == r.stats.get("verified") > 0]
    assert decided  # (queries the batch decided in full)
    for r in decided:
        w = whole[res.index(r)]
        assert not r.interrupted and r.certified
        assert [(h.id, h.distance) for h in r.hits] == [(h.id, h.distance) for h in w.hits]


def test_ctrl_c_in_a_real_search_returns_what_was_found(tmp_path):
    """SIGINT to a process searching: it prints the interrupted result, not a traceback."""
    script = textwrap.dedent("""
        import json, sys, gedkit
        from tests.helpers import random_graph
        import numpy as np
        rng = np.random.default_rng(3)
        coll = gedkit.Collection()
        coll.add([random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(400)])
        q = random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1)
        print("ready", flush=True)
        r = coll.range(q, 30, method="dfs", timeout=None)
        print(json.dumps([r.interrupted, r.certified, r.stats["verified"]]), flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=str(REPO))
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    interrupted, certified, verified = json.loads(out.splitlines()[-1])
    assert interrupted and not certified and verified < 400
    assert "Traceback" not in err


def test_ctrl_c_to_a_search_on_worker_processes_returns_what_was_answered(tmp_path):
    """SIGINT to the parent of ``n_jobs=2`` alone (``kill -INT``, not a terminal's Ctrl-C,
    which reaches the workers too): it passes it on to the workers, whose batches under way
    come back with what they found (they were dropped), and returns the queries answered,
    with a warning, instead of running to the end."""
    script = textwrap.dedent("""
        import json, sys, time, warnings, gedkit
        from tests.helpers import random_graph
        import numpy as np
        rng = np.random.default_rng(3)
        coll = gedkit.Collection()
        coll.add([random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(400)])
        qs = [random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(6)]
        print("ready", flush=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rs = coll.range(queries=qs, tau=30, method="dfs", timeout=None, n_jobs=2)
        print(json.dumps([[r.interrupted for r in rs], [str(w.message) for w in caught],
                          time.time(), len(rs[0].hits) + len(rs[0].undecided)]), flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=str(REPO))
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(3.0)
    proc.send_signal(signal.SIGINT)
    sent = time.time()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    stopped, messages, ended, found = json.loads(out.splitlines()[-1])
    # one result per query, those Ctrl-C stopped or never began marked interrupted
    assert len(stopped) == 6 and stopped[-1] and any("search interrupted" in m for m in messages)
    assert ended - sent < 10 and "Traceback" not in err
    assert found > 0  # the first query's graphs found by its workers before Ctrl-C


def test_a_second_ctrl_c_to_a_search_on_worker_processes_keeps_the_answers_in(tmp_path):
    """Ctrl-C twice to the parent of ``n_jobs=2``, 20 ms apart (the second before the
    workers' answers came): the queries answered before are kept, as in one process, those
    of the batch under way too (its worker hands them back at the first); the second Ctrl-C
    once raised inside the pool's wait and lost every answer, then lost those of the batches
    under way (80 queries in batches of ten: none kept, where one process kept ten)."""
    script = textwrap.dedent("""
        import json, sys, time, warnings, gedkit
        from tests.helpers import random_graph
        import numpy as np
        rng = np.random.default_rng(3)
        coll = gedkit.Collection()
        graphs = [random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(400)]
        coll.add(graphs)
        # (16 nodes: its search takes minutes; with 13 a fast VM finished it within 3 s)
        far = [random_graph(rng, 16, p=0.5, n_labels=1, e_labels=1) for _ in range(15)]
        print("ready", flush=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # (16 queries: the first batches hold two, the first query's with a far one)
            rs = coll.knn(queries=[graphs[7], *far], k=1, method="dfs", timeout=None,
                          n_jobs=2)
        print(json.dumps([[r.interrupted, r.ids] for r in rs]), flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=str(REPO))
    assert proc.stdout.readline().strip() == "ready"
    # the first query answered (its Ctrl-C now reaches the workers at once: under a
    # loaded suite 4 s was not always enough); the second far from done
    time.sleep(7.0)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    # (on a busy machine the search may have ended, its answers printed, before the second
    # Ctrl-C, which then meets the interpreter's exit: status -2, nothing lost)
    assert proc.returncode == 0 or (proc.returncode == -signal.SIGINT and out.strip()), err
    (first_stopped, first_ids), (second_stopped, _), *_ = json.loads(out.splitlines()[-1])
    assert not first_stopped and first_ids == [7] and second_stopped


def test_opening_does_not_parse_graphs(tmp_path, monkeypatch):
    path = tmp_path / "lib.gdb"
    with Collection.create(path) as coll:
        coll.add(MOLECULES)
    from gedkit.search import store

    def forbidden(*a, **kw):
        raise AssertionError("a graph was parsed")

    monkeypatch.setattr(store, "decode_graph", forbidden)
    coll = Collection.open(path)
    t = time.perf_counter()
    assert len(coll) == len(MOLECULES)
    assert coll._signatures.n.sum() > 0 and time.perf_counter() - t < 5


def test_an_add_stopped_by_an_unreadable_record_says_what_it_committed(tmp_path,
                                                                        monkeypatch):
    """``add(path)`` stopped by a record it cannot read keeps the whole batches before it
    (as after Ctrl-C) and says so: the error named only the record and ``errors='skip'``,
    and the same add again with it stored those graphs twice."""
    from gedkit.search import collection

    monkeypatch.setattr(collection, "BATCH", 2)
    smi = tmp_path / "lib.smi"
    smi.write_text("CCO a\nCCN b\nCCC c\nC1CC broken\nCCCl e\n")
    coll = Collection()
    with pytest.raises(FormatError, match=r"lib.smi:4: RDKit cannot parse.*errors='skip'.* "
                       r"\(2 graphs before it were committed, whole batches of 2: added "
                       r"again, they would be there twice unless named\)"):
        coll.add(smi)
    assert len(coll) == 2


def test_unreadable_molecules_skipped_on_request(tmp_path):
    smi = tmp_path / "lib.smi"
    smi.write_text("CCO ethanol\nC1CC broken\nCCN amine\nC(C)(C)(C)(C)C five\n")
    with pytest.raises(FormatError, match=r"lib.smi:2: RDKit cannot parse"):
        Collection().add(smi)
    coll = Collection()
    with pytest.warns(gedkit.search.collection.SkippedWarning,
                      match="2 graphs could not be") as told:
        assert coll.add(smi, errors="skip") == 2
    assert told[0].filename == __file__  # the line the user wrote, not gedkit's
    with pytest.warns(gedkit.search.collection.SkippedWarning,
                      match="^1 graph could not be read and was left out"):
        Collection().add([gedkit.from_smiles("CCO"), "C1CC"], errors="skip")
    assert [g.name for g in coll] == ["ethanol", "amine"]
    with pytest.raises(OptionError, match="do not go together"):
        coll.add(smi, errors="skip", ids=["a", "b"])
    with pytest.raises(OptionError, match="errors must be"):
        coll.add(smi, errors="ignore")
    # each graph's name its id: a record left out shifts none
    named = Collection()
    with pytest.warns(gedkit.search.collection.SkippedWarning):
        assert named.add(smi, errors="skip", ids="names") == 2
    assert named.ids == ["ethanol", "amine"]


def test_graph_names_as_ids():
    coll = Collection()
    coll.add([gedkit.Graph({0: "C"}, name="a"), gedkit.Graph({0: "N"}, name="b")],
             ids="names")
    assert coll.ids == ["a", "b"] and coll.get("b") == gedkit.Graph({0: "N"})
    with pytest.raises(OptionError, match="graph with id \"a\" already"):
        coll.add([gedkit.Graph({0: "O"}, name="a")], ids="names")
    with pytest.raises(OptionError, match="two graphs are named 'c'"):
        coll.add([gedkit.Graph({0: "O"}, name="c"), gedkit.Graph({0: "S"}, name="c")],
                 ids="names")
    with pytest.raises(OptionError, match="a graph has no name"):
        coll.add([gedkit.Graph({0: "O"})], ids="names")
    with pytest.raises(OptionError, match="a list of ids or 'names'"):
        coll.add([gedkit.Graph({0: "O"}, name="d")], ids="name")
    assert coll.ids == ["a", "b"]  # nothing of the failed calls was written


@pytest.mark.parametrize("method, bounded", [("dfs", True), ("bipartite", False)])
def test_knn_ceiling_without_the_batch_kernel(method, bounded):
    # where the batch kernel does not verify (another method, or vocabularies too large for
    # its tables), kNN's first threshold comes from BRANCH's maps pair by pair: an upper bound
    # on the k-th distance, for the exact searches a threshold prunes
    from gedkit.search import ged_search
    from gedkit.solvers import get_solver

    rng = np.random.default_rng(7)
    graphs = _random_set(7, count=20)
    model = random_costs(rng)
    coll = _collection(graphs)
    query = _random_set(77, count=1)[0]
    exact = _exact(model, query, graphs)
    truth = np.sort(exact)
    verify = ged_search.Verifier(model, get_solver(method), None, None, False)
    check = ged_search._Checker(coll, query, verify, model,
                                GedFilter(model, query, coll._store.vocab),
                                ged_search._Stages(len(graphs)), None)
    assert check.batch is None
    for k in (1, 5, 20):
        ceiling, rows, upper = ged_search._ceiling(check, coll._signatures,
                                                   np.arange(len(graphs)), k)
        assert (ceiling < math.inf) == bounded
        assert ceiling >= truth[k - 1] - 1e-9
        # each row's quick bound is an upper bound on its distance
        assert all(exact[r] <= u + 1e-9 for r, u in zip(rows.tolist(), upper.tolist(),
                                                          strict=True))


def test_knn_quick_bounds_find_the_query_itself():
    # the root's assignment among alike atoms picks one of many zero-cost assignments and its
    # map costs edits (CCSCCCC against CCCCSCC, the same chain numbered from its other end):
    # a graph whose filter bound is 0 is searched for a map of cost 0 first, so the query's
    # own graph is at 0 (what a kNN out of time answers); the same chain numbered as stored
    # is at 0 by the identity map alone
    from gedkit.search import ged_search
    from gedkit.solvers import get_solver

    chain = gedkit.Graph(dict(enumerate("CCCCSCC")), [(i, i + 1, 1) for i in range(6)])
    reversed_chain = gedkit.Graph(dict(enumerate("CCSCCCC")), [(i, i + 1, 1) for i in range(6)])
    coll = _collection([*_random_set(8, count=6, n=(4, 9)), chain])
    model = costs.uniform()
    verify = ged_search.Verifier(model, get_solver("astar"), 1.0, None, False)
    sig = coll._signatures
    own = int(np.flatnonzero(sig.rowids == coll._store.rowid(6))[0])
    for query, quick in ((reversed_chain, lambda x: x > 0), (chain, lambda x: x == 0)):
        filt = GedFilter(model, query, coll._store.vocab)
        check = ged_search._Checker(coll, query, verify, model, filt,
                                    ged_search._Stages(len(coll)), None)
        lower = np.zeros(len(sig))
        for _, bound in filt.stages:
            lower = np.maximum(lower, bound(sig, None))
        order = np.argsort(lower, kind="stable")
        _, rows, upper = ged_search._ceiling(check, sig, order, 1, None)  # the root's map
        assert quick(upper[rows.tolist().index(own)])
        _, rows, upper = ged_search._ceiling(check, sig, order, 1, lower)
        assert upper[rows.tolist().index(own)] == 0.0


def test_plain_progress_lines_end_on_the_finished_count(capfd, monkeypatch):
    """Where stderr is not a terminal a long search prints a line every few seconds and,
    having printed any, a last one when it ends (a log never stops at a count short of the
    end, once); a short one prints nothing."""
    from gedkit.search import progress

    monkeypatch.setattr(progress, "_LINE_EVERY", 3600.0)
    shown = progress.Progress(None, 2)
    shown.query_done()
    shown.close()
    assert capfd.readouterr().err == ""
    shown = progress.Progress(None, 2)
    shown.next_line = shown.start  # a line due at once
    shown.query_done()
    shown.query_done()
    shown.close()
    err = capfd.readouterr().err.splitlines()
    assert [line[:29] for line in err] == ["gedkit: search: 1/2 queries, ",
                                           "gedkit: search: 2/2 queries, "]
    # a line due as the last query ends says the end: close does not say it again
    shown = progress.Progress(None, 2)
    shown.query_done()
    shown.next_line = shown.start
    shown.query_done()
    shown.close()
    err = capfd.readouterr().err.splitlines()
    assert [line[:29] for line in err] == ["gedkit: search: 2/2 queries, "]


def test_progress_lines_of_a_long_batch_say_its_pace_and_time_left(capfd):
    """50 slow MCES queries against 20,000 molecules ran toward an hour with lines that said
    only the queries done: once the pace means something, the time left too."""
    from gedkit.search import progress

    shown = progress.Progress(None, 50)
    shown.start -= 700.0  # as if 12 queries had taken 700 s
    shown.next_line = shown.start
    shown.query_done(12)
    err = capfd.readouterr().err
    assert err.startswith("gedkit: search: 12/50 queries, ")
    assert "(58 s a query, about 37 min left)" in err
    shown.close()


def test_progress_lines_go_on_while_workers_answer_and_end_on_the_answered(capfd):
    """A range search split in shards over worker processes gets its answers when each
    worker's share is done: the lines still come, saying the workers are at work; an answer
    Ctrl-C cut short is not counted in the last line (it agrees with "40 of 300 answered")."""
    from gedkit.search import progress

    shown = progress.Progress(None, 40)
    shown.on_workers(2)
    shown.next_line = shown.start  # a line due at once, with nothing counted yet
    shown.tick()
    err = capfd.readouterr().err
    assert err.startswith("gedkit: search: 0/40 queries, 0 pairs verified, ")
    assert "2 worker processes at work" in err
    shown.query_done(41)  # the 41st came back interrupted
    shown.settle(40)
    shown.close()
    assert capfd.readouterr().err.startswith("gedkit: search: 40/40 queries, ")


def test_worker_processes_tell_the_progress(monkeypatch):
    from gedkit.search import progress

    told: list[int] = []
    monkeypatch.setattr(progress.Progress, "on_workers", lambda self, n: told.append(n))
    graphs = _random_set(5, count=20)
    _collection(graphs).range(queries=graphs[:3], tau=2.0, n_jobs=2, progress=False)
    assert told == [2]


@pytest.mark.parametrize("kind", ["range", "knn"])
def test_worker_processes_count_their_pairs_as_they_go(monkeypatch, kind):
    """The pairs the workers verify reach the parent's progress through a shared count
    (a range search split by shards said "0 pairs verified" until its end), each pair
    once: the same total as the answers' statistics."""
    from gedkit.search import parallel, progress

    monkeypatch.setattr(parallel, "_TALLY_EVERY", 0.0)  # (inherited by the forked workers)
    counts: list[int] = []
    real = progress.Progress.verified
    monkeypatch.setattr(progress.Progress, "verified",
                        lambda self, count: (counts.append(count), real(self, count)))
    graphs = _random_set(5, count=40)
    coll = _collection(graphs)
    if kind == "range":
        results = coll.range(queries=graphs[:4], tau=6.0, n_jobs=2, progress=False)
    else:
        results = coll.knn(queries=graphs[:4], k=3, n_jobs=2, progress=False)
    assert sum(counts) == sum(r.stats["verified"] for r in results) > 0


def test_a_one_query_range_search_says_how_many_candidates_it_verifies(capfd, monkeypatch):
    """Its candidates are known once the filters have run: the lines say "k of n" (a range
    query at a large threshold may verify most of a collection)."""
    from gedkit.search import progress

    monkeypatch.setattr(progress, "_LINE_EVERY", 0.0)  # a line at every count
    graphs = _random_set(5, count=20)
    result = _collection(graphs).range(graphs[0], 6.0, timeout=None)
    verified = result.stats["verified"]
    assert verified > 1
    lines = [line for line in capfd.readouterr().err.splitlines() if "search:" in line]
    assert lines[-1].startswith(f"gedkit: search: 1/1 queries, {verified:,} of "
                                f"{verified:,} candidates verified")
    assert all(f" of {verified:,} candidates verified" in line for line in lines)


@pytest.mark.parametrize("question", ["knn", "mces_knn"])
def test_progress_counts_the_pairs_worker_processes_verified(capfd, monkeypatch, question):
    """Queries answered whole in worker processes (kNN with ``n_jobs``) count their verified
    pairs in the progress too, not only the queries."""
    from gedkit.search import progress

    monkeypatch.setattr(progress, "_LINE_EVERY", 0.0)  # a line at every count
    coll = _collection(_random_set(5, count=20))
    results = getattr(coll, question)(queries=_random_set(9, count=3), k=2, n_jobs=2)
    verified = sum(r.stats["verified"] for r in results)
    assert verified > 0
    last = capfd.readouterr().err.splitlines()[-1]
    assert last.startswith(f"gedkit: search: 3/3 queries, {verified:,} pair")


@pytest.mark.parametrize("count,parallel,shards", [(100, 2, 1), (1, 2, 8), (3, 2, 3),
                                                   (1000, 64, 1), (100, 2, 4), (5000, 2, 1)])
def test_query_batches_cover_every_query_once_in_order_and_shrink(count, parallel, shards):
    from gedkit.search.parallel import QUERIES_PER_TASK, TASKS_PER_WORKER, query_batches

    batches = query_batches(count, parallel, shards)
    assert [i for b in batches for i in b] == list(range(count))
    sizes = [len(b) for b in batches]
    assert max(sizes) <= QUERIES_PER_TASK and sizes == sorted(sizes, reverse=True)
    # enough tasks (batches times shards) for every worker to take several, where there
    # are queries enough
    tasks = len(batches) * shards
    assert tasks >= min(count * shards, TASKS_PER_WORKER * parallel)


@pytest.mark.parametrize("count,parallel,shards,size", [
    (100, 2, 2, 100_000), (1, 2, 2, 5000), (3, 4, 1, 5000), (1000, 64, 64, 1_580_000),
    (100, 2, 1, 5000), (5000, 2, 2, 5000), (100, 2, 2, 1_580_000)])
def test_range_batches_cover_every_query_once_and_give_every_thread_a_task(count, parallel,
                                                                           shards, size):
    """A range search on Dask: one shard per thread (at least MIN_SHARD graphs each), each a
    task with all the queries up to QUERIES_PER_TASK queries and PAIRS_PER_TASK pairs; with
    fewer shards than threads, the queries are cut so that every thread has a task."""
    from gedkit.search.distributed import MIN_SHARD, default_shards
    from gedkit.search.parallel import PAIRS_PER_TASK, QUERIES_PER_TASK, range_batches

    batches = range_batches(count, parallel, shards, size)
    assert [i for b in batches for i in b] == list(range(count))
    biggest = max(len(b) for b in batches)
    assert biggest <= QUERIES_PER_TASK
    assert biggest == 1 or (biggest - 1) * size / shards <= PAIRS_PER_TASK
    assert len(batches) * shards >= min(count * shards, parallel)
    if shards >= parallel and count * size / shards <= PAIRS_PER_TASK:
        assert len(batches) == max(1, -(-count // QUERIES_PER_TASK))  # as few as can be
    assert default_shards(100_000, parallel) == min(parallel, 100_000 // MIN_SHARD)
    assert default_shards(3 * MIN_SHARD, 64) == 3
    assert default_shards(10, parallel) == 1
    # kNN: one shard (each more scans for its own k nearest, unbounded by the others')
    assert default_shards(1_580_000, parallel, ranked=True) == 1


def test_a_list_as_the_one_query_says_where_a_list_goes():
    coll = _collection([gedkit.from_smiles("CCO")])
    for call in (lambda: coll.range(["CCO", "CCN"], 2), lambda: coll.mces_knn(("CCO",), 1)):
        with pytest.raises(OptionError, match=r"a list of queries goes in queries=\[\.\.\.\]"):
            call()


def test_a_query_with_labels_the_collection_lacks_is_told_once_per_search():
    """Under equality costs (and MCES) a label no graph has matches nothing: aromatic bonds
    (1.5) searched in kekulized molecules find nothing near, and the search says so, once,
    naming the labels; queries whose labels are all the collection's, an empty collection
    and cost models that price label values (custom functions) are not told."""
    import warnings

    coll = _collection([gedkit.from_smiles(s, edge_label="kekule") for s in ("c1ccccc1O", "CCO")])
    aromatic = gedkit.from_smiles("c1ccccc1N")
    with pytest.warns(UnseenLabelWarning) as said:
        assert coll.range(aromatic, 2).hits == []  # phenol is 4 edits away, not 1
    assert len(said) == 1
    assert str(said[0].message).startswith(
        "the query has node label 'N' and edge label 1.5, which no graph of the collection has")
    kekule = gedkit.from_smiles("c1ccccc1N", edge_label="kekule")
    with pytest.warns(UnseenLabelWarning,
                      match=r"^1 of 2 queries has node label 'N' and edge label 1\.5"):
        coll.knn(queries=[aromatic, gedkit.from_smiles("CCC")], k=1)
    with pytest.warns(UnseenLabelWarning, match=r"^query 'q' has edge label 1\.5"):
        coll.mces_knn(gedkit.from_smiles("c1ccccc1", name="q"), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenLabelWarning)
        assert [h.distance for h in coll.knn(gedkit.from_smiles("OCC"), 1).hits] == [0.0]
        coll.range(aromatic, 2, costs=costs.custom(node_sub=lambda a, b: 0.5 * (a != b)))
        Collection().range(aromatic, 2)
    with pytest.warns(UnseenLabelWarning, match=r"^the query has node label 'N',"):
        assert [h.id for h in coll.range(kekule, 1).hits] == [0]  # N for O: one edit
    # labels that change for nothing are no concern: not told, or only the other kind
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenLabelWarning)
        free = costs.constant(node_sub=0, edge_sub=0)
        assert [h.distance for h in coll.range(aromatic, 0, costs=free).hits] == [0.0]
    with pytest.warns(UnseenLabelWarning,
                      match=r"^the query has edge label 1\.5, which no graph") as said:
        coll.range(aromatic, 2, costs=costs.constant(node_sub=0))
    assert "'N'" not in str(said[0].message)


def test_knn_ceiling_where_the_kernel_has_no_quick_bound(monkeypatch):
    """Pairs whose root assignment does not fit the batch kernel's share (thousands of
    nodes; here any pair, the share made tiny) get BRANCH's map pair by pair for kNN's first
    threshold: the scan then verifies the graphs near the query only, not the whole
    collection, and still answers exactly."""
    from gedkit.search import batch

    rng = np.random.default_rng(11)
    query = random_graph(rng, 24, p=0.2, name="query")
    near = gedkit.Graph({i: query.node_labels[i] for i in range(query.n - 1)},
                        [(int(a), int(b), lab) for (a, b), lab in
                         zip(query.edges.tolist(), query.edge_labels, strict=True)
                         if max(a, b) < query.n - 1], name="near")
    graphs = [*_random_set(5, count=30), near]
    coll = _collection(graphs)
    monkeypatch.setattr(batch, "PAIR_SECONDS", 1e-12)  # no root fits: no quick bound
    result = coll.knn(query, 1, timeout=None)
    truth = _exact(costs.uniform(), query, graphs)
    assert result.certified and [h.id for h in result.hits] == [len(graphs) - 1]
    assert result.hits[0].distance == truth[-1] == truth.min()
    assert result.stats["verified"] < len(graphs) // 2


def test_an_exact_search_that_cannot_step_leaves_its_time_to_polishing(monkeypatch):
    """A verification whose exact search cannot take one step (pairs of thousands of nodes)
    answers with its first bounds at once; its map is then polished in what is left of the
    pair's limit, not in the 5% kept for that. BRANCH's quick bounds keep the 5%."""
    from gedkit.search import ged_search
    from gedkit.solvers import get_solver
    from gedkit.solvers.exact import tree_search

    rng = np.random.default_rng(3)
    query, graph = random_graph(rng, 12, p=0.3), random_graph(rng, 12, p=0.3)
    truth = gedkit.ged(query, graph, method="astar", timeout=None).distance
    monkeypatch.setattr(tree_search, "affordable", lambda seconds, budget: False)
    from gedkit.solvers.heuristics import polish

    given = []
    polished = polish.polished
    monkeypatch.setattr(polish, "polished", lambda result, budget: (
        given.append(budget.timeout), polished(result, budget))[1])
    verify = ged_search.Verifier(costs.uniform(), get_solver("astar"), 2.0, None, False)
    out = verify(query, graph, None)
    assert not out.optimal and out.lower <= truth <= out.upper
    assert len(given) == 1 and given[0] > 1.5  # the 2 s limit less the first bounds' time
    verify.quick(query, graph, polish=True)
    assert given[1] == pytest.approx(ged_search.POLISH_SHARE * 2.0)


def test_a_claimed_fork_holds_other_threads_out_of_collection_calls():
    # a search checked that no other thread was inside a collection's call, then forked its
    # workers; another thread opened its collection in between, and both workers waited in
    # SQLite's open for ever (a full test run hung): the check claims the fork until it is done
    from gedkit.workers import fork_is_safe, forked, inside

    entered, leave = threading.Event(), threading.Event()

    def other():
        with inside():
            entered.set()
            leave.wait(5)

    assert fork_is_safe(claim=True)
    thread = threading.Thread(target=other)
    try:
        thread.start()
        assert not entered.wait(0.3)  # held at the gate while the fork is claimed
    finally:
        forked()
    assert entered.wait(5)  # let in once the workers are forked
    assert not fork_is_safe(claim=True)  # and while it is inside, nobody may fork
    leave.set()
    thread.join(5)
    assert fork_is_safe()


def test_two_threads_searching_on_worker_processes_keep_their_own_workers(tmp_path):
    """Two collections searched at once from two threads with ``n_jobs=2``: the second
    search's start ended the workers the first was using (kept for its next searches):
    every query of one search lost, "a worker process ended" and "interrupted"."""
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "lib.gdb"
    rng = np.random.default_rng(0)
    with Collection.create(path) as coll:
        coll.add([random_graph(rng, int(rng.integers(5, 12)), p=0.3, n_labels=3)
                  for _ in range(60)])
    queries = [gedkit.Graph({i: i % 3 for i in range(n)},
                            [(i, i + 1, 0) for i in range(n - 1)] + [(0, n - 1, 1)])
               for n in range(6, 14)] * 3

    def search(_):
        with Collection.open(path) as lib:
            return [(r.interrupted, r.ids) for r in lib.knn(queries=queries, k=3, timeout=5,
                                                             n_jobs=2, progress=False)]

    # (forked, a worker waited for ever on SQLite's lock, copied held from the other thread:
    # with other threads running each search runs in its own process, and says so)
    with (pytest.warns(UserWarning, match="searching in this process, not on worker "
                                          "processes"), ThreadPoolExecutor(2) as pool):
        both = list(pool.map(search, range(2)))
    with Collection.open(path) as lib:
        alone = [(False, r.ids) for r in lib.knn(queries=queries, k=3, timeout=5,
                                                 progress=False)]
    assert both[0] == both[1] == alone


def test_ctrl_c_after_a_knn_scan_decided_everything_leaves_it_answered(monkeypatch):
    """Ctrl-C arriving once every graph of a kNN scan was decided (here: just after the
    graphs set aside were settled) costs the answer nothing: certified, and not counted as
    interrupted (the command line counted such a query as not answered)."""
    from gedkit.search import ged_search

    settle = ged_search._KnnScanner._settle_aside

    def stop(self):
        settle(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(ged_search._KnnScanner, "_settle_aside", stop)
    res = _collection(MOLECULES).knn("CCO", 3)
    assert res.certified and not res.interrupted
    assert [h.optimal for h in res.hits] == [True] * 3


def test_ctrl_c_after_an_mces_knn_scan_decided_everything_leaves_it_answered(monkeypatch):
    """As for GED: Ctrl-C once the k-th best is proven and no graph left could beat it."""
    from gedkit.search import mces_search

    monkeypatch.setattr(mces_search, "interrupted_now", lambda: True)  # after the first
    res = _collection(MOLECULES).mces_knn("CCO", 1)
    assert res.ids == [0] and res.hits[0].distance == 1.0
    assert res.certified and not res.interrupted


def test_opening_creating_and_closing_a_collection_keep_other_threads_from_forking(
        tmp_path, monkeypatch):
    """SQLite holds its locks while a collection is opened, created or closed too: another
    thread's search must not fork its workers meanwhile (one that did hung for ever)."""
    from gedkit import workers
    from gedkit.search import store

    seen = []

    def watching(method):
        def call(*args, **kwargs):
            seen.append(threading.get_ident() in workers._INSIDE)
            return method(*args, **kwargs)
        return call

    monkeypatch.setattr(store.Store, "create", watching(store.Store.create))
    monkeypatch.setattr(store.Store, "open", watching(store.Store.open))
    monkeypatch.setattr(store.Store, "close", watching(store.Store.close))
    Collection.create(tmp_path / "a.gdb").close()
    Collection.open(tmp_path / "a.gdb").close()
    assert seen == [True] * 4


def test_adding_a_file_with_an_unreadable_record_names_errors_skip(tmp_path):
    """Collection.add stops at a SMILES RDKit cannot read (strict by default, unlike the
    command line): its error says how to leave such records out."""
    smi = tmp_path / "lib.smi"
    smi.write_text("CCO ethanol\nC1CC broken\nCCN amine\n")
    with pytest.raises(gedkit.FormatError, match=r"lib.smi:2: RDKit cannot parse .*; "
                                                 r"errors='skip' leaves out"):
        Collection().add(smi)
    with pytest.warns(gedkit.search.collection.SkippedWarning):
        assert Collection().add(smi, errors="skip") == 2


def test_knn_the_k_nearest_are_the_first_k_of_the_k_plus_one_nearest():
    """kNN lists its hits in the order it chose them: among ties at the k-th distance the
    one a graph won on its filter bound stays ahead of the one it beat once k + 1 takes
    both (listed by rowid, `--nearest 2` gave 2109 and `--nearest 3` 1313 before 2109)."""
    graphs = _random_set(21, count=30, n=(5, 8))
    coll = _collection(graphs)
    for query in _random_set(22, count=4, n=(5, 8)):
        lists = [coll.knn(query, k, progress=False).ids for k in range(1, len(graphs) + 1)]
        for shorter, longer in itertools.pairwise(lists):
            assert longer[:len(shorter)] == shorter


def test_each_answer_is_handed_on_as_it_comes():
    """``each(position, result)`` sees every query's answer in order, the same objects the
    call returns, before it returns; one raising stops the search; a non-function is
    refused."""
    graphs = _random_set(21, count=12, n=(3, 7))
    coll = _collection(graphs)
    queries = graphs[:4]
    for search, parameter in ((coll.range, 2.0), (coll.knn, 2), (coll.mces_range, 0.5),
                              (coll.mces_knn, 2)):
        seen = []
        results = search(None, parameter, queries=queries, progress=False,
                         each=lambda i, r, seen=seen: seen.append((i, r)))
        assert [i for i, _ in seen] == list(range(len(queries)))
        assert all(r is results[i] for i, r in seen)
        one = []
        single = search(queries[0], parameter, progress=False,
                        each=lambda i, r, one=one: one.append((i, r)))
        assert one == [(0, single)]

    # on worker processes: handed on as they come back, in order
    seen = []
    results = coll.knn(None, 2, queries=queries, n_jobs=2, progress=False,
                       each=lambda i, r: seen.append((i, r)))
    assert [i for i, _ in seen] == list(range(len(queries)))
    assert all(r is results[i] for i, r in seen)

    class Enough(Exception):
        pass

    def stop(i, r):
        raise Enough

    with pytest.raises(Enough):
        coll.range(None, 2.0, queries=queries, progress=False, each=stop)
    with pytest.raises(OptionError, match="each must be a function"):
        coll.range(None, 2.0, queries=queries, progress=False, each=3)


def test_the_batch_kernel_ticks_the_progress_clock(monkeypatch):
    """Between its kernel calls the batch verifier ticks the search's progress, whose line is
    then printed on time: a block of hard candidates kept a search's first line waiting
    16 s instead of 10 (a new user's finding)."""
    from gedkit.search import batch, progress

    ticks = []
    monkeypatch.setattr(progress.Progress, "tick", lambda self: ticks.append(1))
    calls = []
    real = batch.BatchVerifier.run

    def run(self, *args, **kwargs):
        calls.append(kwargs.get("progress_tick"))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(batch.BatchVerifier, "run", run)
    graphs = _random_set(41, count=40, n=(8, 12))
    coll = _collection(graphs)
    coll.knn(graphs[0], 5, progress=True)
    assert any(c is not None for c in calls) and ticks


def test_a_memory_cap_holds_in_searches_and_one_too_small_is_refused():
    """``memory=`` in a search: a cap below the batch kernel's frontier (~4 MB for small
    queries) verifies each pair alone, within it, with the same answers (the kernel ran
    regardless: a 1 KB cap was certified by 34 batched verifications); a cap below what a
    pair takes to set up is refused as gedkit.ged refuses it."""
    from gedkit.search.batch import frontier_bytes

    coll = _collection(MOLECULES)
    free = coll.range("CCCO", 3)
    assert free.stats.get("batched", 0) > 0
    capped = coll.range("CCCO", 3, memory=frontier_bytes(8) // 2)
    assert capped.stats.get("batched", 0) == 0 and capped.certified
    assert [(h.id, h.distance) for h in capped.hits] == [(h.id, h.distance) for h in free.hits]
    assert [h.id for h in coll.knn("CCCO", 3, memory=1 << 20).hits] == [
        h.id for h in coll.knn("CCCO", 3).hits]
    for search in (lambda: coll.range("CCCO", 3, memory=512),
                   lambda: coll.knn("CCCO", 3, memory=512)):
        with pytest.raises(OptionError, match=r"memory=512 is below what a pair of 4 and "
                                              r"\d+ nodes takes to set up .* give at least"):
            search()


def test_add_names_a_missing_file_as_missing(tmp_path, monkeypatch):
    """``add("lib.smi")`` run from another folder: the file is not there, said so (it said
    "got one graph; pass [graph]"); one SMILES string or one graph: pass a list."""
    monkeypatch.chdir(tmp_path)
    coll = Collection()
    with pytest.raises(GraphError, match=r"'lib\.smi' is neither an existing file nor a SMILES"):
        coll.add("lib.smi")
    with pytest.raises(OptionError, match=r"got one SMILES string; pass \['CCO'\]"):
        coll.add("CCO")
    with pytest.raises(OptionError, match=r"got one graph; pass \[graph\]"):
        coll.add(gedkit.Graph([0]))
    (tmp_path / "lib.smi").write_text("CCO ethanol\n")
    assert coll.add("lib.smi") == 1 and len(coll) == 1


@pytest.mark.parametrize("method", ["bipartite", "branch"])
def test_a_knn_scan_does_not_set_a_heuristics_graphs_aside(method):
    """A heuristic's graphs are not set aside with a tenth of the limit, as an exact method's
    are (a heuristic answers its bounds whatever its time): the reason given was "time limit:
    they were given a tenth of it" for most of them."""
    rng = np.random.default_rng(5)
    coll = Collection()
    coll.add([random_graph(rng, int(rng.integers(6, 12))) for _ in range(60)], progress=False)
    answer = coll.knn(random_graph(rng, 9), 3, method=method, timeout=30)
    assert set(answer.stats["stopped"]) == {
        f"the method '{method}' is a heuristic: its bounds left them open"}


def test_a_query_limit_counts_the_call_before_its_first_query():
    """The call's first query is charged what the call took before its search (a fresh
    process's start of the compiled kernels: ``query_timeout=2`` took 2.8 s), once; a
    shard's task on a cluster, given what its query has left, is not charged again."""
    from gedkit.search import ged_search, mces_search
    from gedkit.search.distributed import _with_seconds
    from gedkit.solvers import get_solver

    for verify in (ged_search.Verifier(costs.uniform(), get_solver("exact"), None, None,
                                       False, query_timeout=5.0),
                   mces_search.Verifier("exact", None, None, None, False,
                                        query_timeout=5.0)):
        time.sleep(0.05)
        task = _with_seconds(verify, 4.0)
        assert task.query_seconds() == 4.0
        assert verify.query_seconds() <= 5.0 - 0.05
        assert verify.query_seconds() == 5.0  # the next queries: their whole limit
    unlimited = ged_search.Verifier(costs.uniform(), get_solver("exact"), None, None, False)
    assert unlimited.query_seconds() is None


def test_one_collection_searched_in_one_thread_while_another_adds(tmp_path):
    """A search in one thread while another adds to the same object: each call sees the
    collection before or after a whole add (the object searched part of the file after, or
    called the intact file damaged); a change from inside the object's own search is refused
    (it would wait for itself)."""
    rng = np.random.default_rng(7)
    graphs = [random_graph(rng, int(rng.integers(3, 8))) for _ in range(300)]
    coll = Collection.create(tmp_path / "lib.gdb")
    coll.add(graphs[:20])
    stop, sizes, errors = threading.Event(), [], []

    def search():
        while not stop.is_set():
            try:
                sizes.append(coll.knn(graphs[0], 2).stats["screened"])
            except Exception as err:  # (any: the test says which)
                errors.append(repr(err))

    thread = threading.Thread(target=search)
    thread.start()
    try:
        for k in range(20, 300, 20):
            coll.add(graphs[k:k + 20])
    finally:
        stop.set()
        thread.join(60)
    assert not errors and set(sizes) <= set(range(20, 301, 20))
    assert len(coll) == 300 and coll.range(graphs[0], 100).stats["screened"] == 300
    with pytest.raises(OptionError, match="cannot be changed from inside its own search"):
        coll.knn(graphs[0], 1, each=lambda position, result: coll.add(graphs[:1]))
    assert len(coll) == 300


def test_an_infinite_threshold_is_null_in_json():
    """``range(q, math.inf)``: its JSON is JSON ("tau": Infinity was written)."""
    coll = Collection()
    coll.add([gedkit.Graph({0: "C"}), gedkit.Graph({0: "N"})])
    answer = coll.range(gedkit.Graph({0: "C"}), math.inf)

    def refuse(constant):
        raise ValueError(constant)

    data = json.loads(answer.to_json(), parse_constant=refuse)
    assert data["tau"] is None and len(data["hits"]) == 2
    assert json.loads(coll.knn(gedkit.Graph({0: "C"}), 1).to_json())["k"] == 1


@pytest.mark.parametrize("empty", ["", "  ", "\t"])
def test_an_empty_id_is_refused(empty):
    """``ids=['']``: refused (FILE#ID and the outputs' id columns cannot name it), nothing
    added."""
    coll = Collection()
    with pytest.raises(OptionError, match=r"graph id .* is empty: give each graph an id"):
        coll.add([gedkit.Graph([0]), gedkit.Graph([0, 1])], ids=["a", empty])
    assert len(coll) == 0


def test_one_graph_of_any_kind_where_several_are_expected_is_said_so():
    """A NetworkX graph or an RDKit molecule given to ``add`` or as ``queries=``: one graph,
    said so (a NetworkX graph iterated as its nodes and failed on the first, "got int"; a
    molecule as ``queries=`` raised TypeError); nothing added."""
    import networkx as nx

    Chem = pytest.importorskip("rdkit.Chem")
    coll = Collection()
    coll.add(["CCO", "CCN"])
    for one in (nx.path_graph(3), Chem.MolFromSmiles("CCO"), gedkit.from_smiles("CC")):
        with pytest.raises(OptionError, match=r"got one graph; pass \[graph\]"):
            coll.add(one)
        with pytest.raises(OptionError, match=r"queries must be a list of graphs \(for one"):
            coll.range(queries=one, tau=1)
    with pytest.raises(OptionError, match=r"queries must be a list of graphs, got int"):
        coll.knn(queries=5, k=1)
    assert len(coll) == 2


def test_queries_may_be_a_file_as_on_the_command_line(tmp_path):
    """``queries=`` takes a graph file (every graph, read with the collection's labels), a
    collection file (its graphs named by their ids; ``FILE#ID``: one), as ``gedkit search``
    takes QUERY; the answers are those of the graphs given as a list. A missing file, an
    unknown id and a collection file built with other labels are one line each."""
    pytest.importorskip("rdkit")
    queries = tmp_path / "q.smi"
    queries.write_text("CCO eth\nCCN amine\nc1ccccc1 benz\n")
    coll = Collection()
    coll.add(["CCO", "CCC", "CCN", "c1ccccc1O"])
    expected = [(r.query, [h.id for h in r.hits], [h.distance for h in r.hits])
                for r in coll.range(queries=gedkit.read_all(queries), tau=1)]
    built = tmp_path / "q.gdb"
    with Collection.create(built) as lib:
        lib.add(queries, ids="names")
    for source in (str(queries), queries, str(built)):
        got = [(r.query, [h.id for h in r.hits], [h.distance for h in r.hits])
               for r in coll.range(queries=source, tau=1)]
        assert got == expected
    (one,) = coll.knn(queries=f"{built}#amine", k=1)
    assert one.query == "amine" and [h.id for h in one.hits] == [2]
    with pytest.raises(OptionError, match=r"no file 'nofile.smi' \(for one query"):
        coll.range(queries="nofile.smi", tau=1)
    with pytest.raises(gedkit.errors.FormatError, match="no graph with id 'nope'"):
        coll.range(queries=f"{built}#nope", tau=1)
    empty = tmp_path / "empty.smi"
    empty.write_text("")
    with pytest.raises(gedkit.errors.FormatError, match=r"empty\.smi: the file holds no graph"):
        coll.range(queries=empty, tau=1)
    other = Collection(node_label="symbol")
    other.add([gedkit.Graph({0: "C"})])
    with pytest.raises(OptionError, match=r"built with node_label=None and this one with "
                                          r"node_label='symbol': their graphs are not"):
        other.range(queries=built, tau=1)


def test_an_empty_file_or_another_sqlite_file_is_said_for_what_it_is(tmp_path):
    """Opening a 0-byte file or another program's SQLite file as a collection: what it is,
    not SQLite's "(no such table: meta)"."""
    empty = tmp_path / "empty.gdb"
    empty.write_bytes(b"")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(FormatError, match=r"empty\.gdb is an empty file, not a gedkit coll"):
        Collection.open(empty)
    with pytest.raises(FormatError, match=r"other\.db is an SQLite file but not a gedkit coll"):
        Collection.open(other)


def test_a_keyword_a_function_does_not_take_is_said_to_reach_the_method():
    """``gedkit.pairwise(a, against=b)``: the error says that the keyword went to the method
    as an option (it blamed the method alone)."""
    with pytest.raises(OptionError, match=r"method 'auto' has no option\(s\) against .*a "
                                          r"keyword argument the function does not take"):
        gedkit.pairwise(["CCO", "CCN"], against=["CCC"])


def test_the_note_on_unseen_labels_calls_missing_labels_unlabelled():
    """A query without labels against a labelled collection: "unlabelled nodes" ("node label
    None" was said)."""
    coll = _collection(["CCO", "CCN"])
    with pytest.warns(UnseenLabelWarning, match="the query has unlabelled nodes and unlabelled "
                                                "edges, which no graph of the collection has"):
        coll.range(gedkit.Graph([0, 1], [(0, 1)]), 1)
    with pytest.warns(UnseenLabelWarning, match=r"unlabelled nodes and node label 'Xx'"):
        coll.range(gedkit.Graph({0: None, 1: "Xx"}, [(0, 1, 1)]), 1)


def test_two_processes_making_one_collection_leave_the_winners_file(tmp_path, monkeypatch):
    """Another process makes the file between the check that it does not exist and its
    making: this create says so and leaves that file alone (of two builds at once both
    failed, and the file was gone)."""
    import pathlib

    path = tmp_path / "lib.gdb"
    exists = pathlib.Path.exists

    looks = []

    def not_yet(self, *args, **kwargs):  # the checks see no file; then the other makes it
        if self == path and not exists(self) and len(looks.append(self) or looks) == 2:
            monkeypatch.setattr(pathlib.Path, "exists", exists)
            with Collection.create(path) as other:  # the other process, faster
                other.add(["CCO"], ids=["theirs"])
            return False
        return exists(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "exists", not_yet)
    with pytest.raises(FileExistsError, match="made just now by another process"):
        Collection.create(path)
    monkeypatch.undo()
    assert Collection.open(path).ids == ["theirs"]
