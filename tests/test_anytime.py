"""Anytime results (gedkit.ged_iter, on_improve=): monotone streams whose every map realises its
upper bound, whose bounds are proven, and whose last item is the call's answer."""

from __future__ import annotations

import itertools
import threading

import networkx as nx
import pytest

import gedkit
from gedkit.costs import uniform
from gedkit.inputs import as_graphs
from gedkit.testing import brute_force_ged

METHODS = ["auto", "astar", "dfs", "exact", "branch", "ipfp", "refine"]


def _pair(seed: int, n: int = 5):
    g1 = nx.gnp_random_graph(n, 0.4, seed=seed)
    g2 = nx.gnp_random_graph(n + 1, 0.4, seed=seed + 100)
    return as_graphs((g1, g2), None, None)


def _cost(problem, node_map) -> float:
    """The cost of a node map given in caller ids, recomputed by Problem.cost."""
    forward = [-1] * problem.n1
    for u, v in node_map:
        if u is not None:
            forward[problem.g1.index(u)] = -1 if v is None else problem.g2.index(v)
    return problem.cost(forward)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stream_is_monotone_valid_and_ends_with_the_answer(method, seed):
    g1, g2 = _pair(seed)
    problem = uniform().compile(g1, g2)
    truth = brute_force_ged(problem)
    steps = list(gedkit.ged_iter(g1, g2, method=method, timeout=20))
    assert steps and steps[-1].final and not any(s.final for s in steps[:-1])
    for a, b in itertools.pairwise(steps):
        assert b.upper_bound <= a.upper_bound and b.lower_bound >= a.lower_bound
        assert b.time >= a.time
    for s in steps:
        assert s.lower_bound <= truth + 1e-9 <= s.upper_bound + 2e-9
        assert _cost(problem, s.node_map) == pytest.approx(s.upper_bound)
    last, answer = steps[-1], steps[-1].result
    assert (last.upper_bound, last.lower_bound) == (answer.upper_bound, answer.lower_bound)
    assert last.node_map == answer.node_map
    again = gedkit.ged(g1, g2, method=method, timeout=20)
    if again.optimal:
        assert last.optimal and last.upper_bound == pytest.approx(again.distance)


def test_on_improve_sees_the_same_stream_and_the_result_keeps_its_best_bounds():
    g1, g2 = _pair(3, n=9)  # no brute force here
    seen = []
    result = gedkit.ged(g1, g2, method="dfs", on_improve=seen.append)
    assert seen[0].method == "cheap"  # a first map at once
    assert seen[-1].final and seen[-1].result is result
    assert result.optimal and result.distance == pytest.approx(seen[-1].upper_bound)
    assert len({s.upper_bound for s in seen}) >= 2  # the search improved on the first map


def test_fixed_pairs_hold_along_the_stream():
    g1 = gedkit.Graph({1: "C", 2: "O"}, [(1, 2)])
    g2 = gedkit.Graph({"a": "C", "b": "N", "c": "H"}, [("a", "b"), ("a", "c")])
    steps = list(gedkit.ged_iter(g1, g2, fixed=[(2, "c")]))
    assert all((2, "c") in s.node_map for s in steps)
    assert steps[-1].node_map == [(1, "a"), (2, "c"), (None, "b")]


def test_leaving_the_stream_stops_the_solve():
    # without a time limit this pair runs for minutes: leaving must stop it
    g1 = nx.gnp_random_graph(40, 0.2, seed=1)
    g2 = nx.gnp_random_graph(42, 0.2, seed=2)
    stream = gedkit.ged_iter(g1, g2, method="astar")
    first = next(stream)
    assert first.upper_bound > first.lower_bound
    stream.close()
    assert not [t for t in threading.enumerate() if t.name == "gedkit-ged-iter"]


def test_errors_reach_the_consumer():
    """A bad method, cost model or on_improve= is said at the call, as gedkit.ged says it
    (the method only at the first next(); on_improve= clashed with the stream's own, a
    TypeError); what the solve finds wrong reaches the consumer."""
    with pytest.raises(gedkit.OptionError, match="unknown method 'no-such-method'"):
        gedkit.ged_iter("CCO", "CCN", method="no-such-method")
    with pytest.raises(gedkit.CostModelError, match="unknown cost model"):
        gedkit.ged_iter("CCO", "CCN", costs="no-such-costs")
    with pytest.raises(gedkit.OptionError, match=r"on_improve= is for gedkit\.ged"):
        gedkit.ged_iter("CCO", "CCN", on_improve=print)
    with pytest.raises(gedkit.OptionError, match="timeout"):
        next(gedkit.ged_iter("CCO", "CCN", timeout=-1))


def test_a_call_inside_a_callback_reports_to_nobody_outside():
    """``gedkit.ged`` called from an ``on_improve`` callback: its bounds reached the outer
    solve's listener (the callback ran again inside itself, and the outer call took the
    inner pair's lower bound for its own: "optimal" at a distance that was not)."""
    inside, heard_inside, inner = [False], [], []

    def on_step(step):
        if inside[0]:
            heard_inside.append(step)
            return
        if not inner:
            inside[0] = True
            try:
                inner.append(gedkit.ged(gedkit.Graph({i: "C" for i in range(6)}),
                                        gedkit.Graph({i: "C" for i in range(6)},
                                                     [(i, j) for i in range(6)
                                                      for j in range(i + 1, 6)])))
            finally:
                inside[0] = False

    r = gedkit.ged("CC(=O)Nc1ccc(O)cc1", "CCOc1ccc(NC(C)=O)cc1", on_improve=on_step)
    assert inner and inner[0].distance == 15 and not heard_inside
    assert r.optimal and r.distance == gedkit.ged("CC(=O)Nc1ccc(O)cc1",
                                                  "CCOc1ccc(NC(C)=O)cc1").distance


def test_a_stream_left_open_at_exit_ends_the_process_cleanly():
    """The solve of a stream still open when the interpreter exits is stopped and awaited
    (in compiled code in a daemon thread it ended the process: "terminate called without an
    active exception", SIGABRT, exit 134)."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import time, networkx as nx, gedkit
        g1, g2 = nx.gnm_random_graph(30, 60, seed=1), nx.gnm_random_graph(30, 60, seed=2)
        stream = gedkit.ged_iter(g1, g2, timeout=60)
        next(stream)
        time.sleep(3)  # the solve well inside its searches
        print("leaving", flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "leaving" in done.stdout and "terminate called" not in done.stderr


def test_ctrl_c_while_streaming_says_interrupted(monkeypatch):
    """The solve Ctrl-C stopped answers "interrupted" as gedkit.ged does (its budget, cut
    short by the stream's stop, said "time limit")."""
    import queue

    real_get = queue.Queue.get
    calls = []

    def get(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # as the consumer waits for the second item
        return real_get(self, *args, **kwargs)

    monkeypatch.setattr(queue.Queue, "get", get)
    g1 = nx.gnp_random_graph(40, 0.2, seed=1)
    g2 = nx.gnp_random_graph(42, 0.2, seed=2)
    with pytest.warns(gedkit.InterruptedWarning):
        steps = list(gedkit.ged_iter(g1, g2, method="astar", timeout=60))
    final = steps[-1]
    assert final.final and not final.optimal
    assert final.result.stats["stopped"] == "interrupted"
