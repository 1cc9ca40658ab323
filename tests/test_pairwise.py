"""gedkit.pairwise: matrices equal per-pair gedkit.ged, in one process or several; bounded by
default; a pair that fails, a worker that dies and Ctrl-C lose nothing else."""

from __future__ import annotations

import _thread
import importlib
import math
import os
import re
import sys
import threading
import time
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from helpers import random_costs, random_graph

import gedkit
from gedkit.budget import InterruptedWarning
from gedkit.costs import ConstantCosts
from gedkit.pairwise import DEFAULT_TIMEOUT, PairwiseResult

pairwise_module = importlib.import_module("gedkit.pairwise")
# what is compared with gedkit.ged runs without a time limit (a first call may be compiling)
EXACT = {"timeout": None, "progress": False}


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(7)
    return [random_graph(rng, int(n), name=f"g{k}") for k, n in enumerate([3, 5, 4, 6, 2, 5])]


def expected(rows, cols, costs="uniform"):
    return np.array([[gedkit.ged(a, b, costs=costs).distance for b in cols] for a in rows])


class RecordingSolver:
    """Wraps a real solver; records the pairs and budgets it was given, and runs ``hook``
    (which may sleep, raise or change the result) on each."""

    def __init__(self, solver, hook=None):
        self.solver, self.name, self.hook = solver, solver.name, hook
        # no kernel families to wait for: every pair reaches solve() (and the hook), compiling
        # there on a cold cache instead of falling back to cheaper bounds
        self.kernels = ()
        self.calls, self.budgets = [], []

    def solve(self, problem, budget):
        self.calls.append((problem.g1.name, problem.g2.name))
        self.budgets.append(budget)
        result = self.solver.solve(problem, budget)
        return self.hook(problem, result) if self.hook else result


@pytest.fixture
def recording(monkeypatch):
    """``recording(hook=None)`` makes the next pairwise run through a RecordingSolver."""
    made = []
    real = gedkit.solvers.get_solver

    def install(hook=None):
        def get_solver(method, **options):
            made.append(RecordingSolver(real(method, **options), hook))
            return made[-1]

        monkeypatch.setattr(gedkit.solvers, "get_solver", get_solver)
        return made

    return install


def failing_on(label, action=None):
    """A uniform-like cost model whose node substitution fails (or runs ``action``) whenever
    ``label`` is involved."""
    def sub(a, b):
        if label in (a, b):
            if action is not None:
                action()
            raise ValueError(f"no label {label} here")
        return float(a != b)

    return gedkit.costs.custom(node_sub=sub, symmetric=True)


def assert_failed_where(m, bad, good_expected, fragment):
    """Entries with a row or column in ``bad`` failed (bounds 0 and inf, reason containing
    ``fragment``); the others equal ``good_expected``."""
    rows, cols = np.indices(m.shape)
    failed = np.isin(rows, bad) | np.isin(cols, bad)
    np.testing.assert_array_equal(m.status == "failed", failed)
    assert np.all(m.lower_bound[failed] == 0) and np.all(np.isinf(m.upper_bound[failed]))
    assert not m.optimal[failed].any()
    assert set(m.errors) == set(zip(*np.nonzero(failed), strict=True))
    assert all(fragment in reason for reason in m.errors.values())
    np.testing.assert_allclose(m.distance[~failed], good_expected[~failed])


# -- the matrix -----------------------------------------------------------------------------


def test_a_memory_cap_the_largest_pair_cannot_be_set_up_in_is_refused():
    """As gedkit.ged refuses it: pairwise went on, each such pair far over its cap (a
    2,000-node pair under 50M peaked at 140 MB; 100 bytes were taken)."""
    from gedkit.errors import OptionError

    small, large = nx.path_graph(3), nx.path_graph(40)
    with pytest.raises(OptionError, match=r"memory=1000 is below what a pair of 40 and 3 "
                                          r"nodes takes to set up .* give at least"):
        gedkit.pairwise([small, large], [small], memory=1000)
    assert gedkit.pairwise([small], [small], memory=1000).upper_bound[0, 0] == 0


def test_kernels_are_not_started_into_a_cap_the_first_step_would_fill(monkeypatch):
    """A pair's kernels start only where numba's start and as much again as the pair's
    set-up fit what the cap has left (a pairwise job's 2,000-node pair under 160M loaded
    numba, then grew by 218 MB)."""
    from gedkit._kernels import warm
    from gedkit.budget import NUMBA_START_BYTES, kernels_fit, setup_bytes

    class Left:  # a budget with this much memory left
        def __init__(self, left: int):
            self.left = left

        def memory_left(self) -> int:
            return self.left

    monkeypatch.setattr(warm, "started", lambda: False)
    problem = gedkit.costs.uniform().compile(gedkit.Graph(range(300)), gedkit.Graph(range(300)))
    need = NUMBA_START_BYTES + setup_bytes(300, 300)
    assert kernels_fit(Left(need), problem)
    assert not kernels_fit(Left(need - 1), problem)
    assert kernels_fit(Left(need - 1))  # numba's start alone fits
    monkeypatch.setattr(warm, "started", lambda: True)  # started already: nothing to load
    assert kernels_fit(Left(0), problem)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc's resident size")
def test_a_jobs_growth_stays_within_its_memory_cap():
    """A fresh process's job of two 1,000-node graphs and two molecules under memory=160M:
    numba's start is paid only where it fits beside the largest pair's set-up, counts in
    every pair's cap, and what a large pair freed goes back to the system before the next
    one (the process grew by 228 MiB: numba's start, then pairs each given the whole cap on
    top of what the pairs before them had left in glibc's heap)."""
    import subprocess
    import textwrap

    cap = 160 << 20
    code = textwrap.dedent(f"""
        import networkx as nx
        import gedkit
        from gedkit.testing.resident import peak_growth

        def labelled(seed):
            g = nx.gnm_random_graph(1000, 1500, seed=seed)
            nx.set_node_attributes(g, {{v: "CNO"[v % 3] for v in g}}, "label")
            return g

        graphs = [labelled(1), labelled(2), gedkit.from_smiles("CCOc1ccccc1"),
                  gedkit.from_smiles("CCNc1ccccc1C")]
        with peak_growth() as grown:
            m = gedkit.pairwise(graphs, timeout=0.2, memory={cap}, progress=False,
                                node_label="label")
        print(grown[0], int((m.status == "failed").sum()))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    assert int(out[1]) == 0
    assert int(out[0]) <= 1.1 * cap


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the system's parent-death signal")
def test_workers_die_with_a_parent_killed_outright(tmp_path):
    """A pairwise job killed with SIGKILL mid-pair: its workers go with it (they kept solving
    a pair without a time limit at 100% CPU, looking for their parent only between pairs)."""
    import signal
    import subprocess
    import textwrap

    script = textwrap.dedent("""
        import networkx as nx, gedkit
        graphs = [nx.gnm_random_graph(60, 200, seed=s) for s in range(3)]
        gedkit.pairwise(graphs, method="exact", timeout=None, n_jobs=2, progress=False)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            children = Path(f"/proc/{parent.pid}/task/{parent.pid}/children")
            workers = [int(pid) for pid in children.read_text().split()]
        assert len(workers) == 2, "the workers did not start"
        time.sleep(1.0)  # inside their first pair
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers)
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_chunks_are_made_as_they_are_taken():
    """A job's pairs stay an index array until a chunk is taken (a list of tuples for every
    pair held ~330 bytes a pair: 1.5 GB for 3,000 molecules before any solve); the chunks
    cover them in order, and a chunk handed back (a lost worker's) comes first."""
    chunks = pairwise_module._Chunks(np.array([(0, k) for k in range(10)]), parallel=1,
                                     chunk_size=4)
    assert len(chunks) == 3 and chunks.pairs == 10 and chunks
    first = chunks.popleft()
    assert first == [(0, 0), (0, 1), (0, 2), (0, 3)] and chunks.pairs == 6
    chunks.appendleft(first[2:])
    assert len(chunks) == 3 and chunks.pairs == 8
    assert [pair for chunk in chunks for pair in chunk] == [(0, k) for k in range(2, 10)]
    assert not chunks and len(chunks) == 0 and chunks.pairs == 0


def test_square_matrix_equals_ged(graphs):
    m = gedkit.pairwise(graphs, **EXACT)
    assert isinstance(m, PairwiseResult)
    assert m.shape == (6, 6)
    np.testing.assert_allclose(m.distance, expected(graphs, graphs))
    assert m.optimal.all() and (m.status == "optimal").all() and m.errors == {}
    np.testing.assert_array_equal(m.lower_bound, m.upper_bound)
    assert m.method == "auto" and not m.interrupted
    assert np.all(m.time >= 0)
    assert m.counts() == {"optimal": 21, "bounded": 0, "failed": 0, "pending": 0}


def test_rectangular_matrix_equals_ged(graphs):
    m = gedkit.pairwise(graphs[:2], graphs[2:], method="dfs", **EXACT)
    assert m.shape == (2, 4) and len(m.pairs) == 8
    np.testing.assert_allclose(m.distance, expected(graphs[:2], graphs[2:]))
    assert m.method == "dfs"


def test_symmetric_costs_solve_each_unordered_pair_once(graphs, recording):
    made = recording()
    m = gedkit.pairwise(graphs, **EXACT)
    names = [g.name for g in graphs]
    assert sorted(made[0].calls) == sorted(
        (names[i], names[j]) for i in range(6) for j in range(i + 1, 6)
    )  # upper triangle only, diagonal not solved
    np.testing.assert_array_equal(m.distance, m.distance.T)
    np.testing.assert_array_equal(np.diag(m.distance), 0)
    assert len(m.pairs) == 21 and np.all(m.pairs[:, 0] <= m.pairs[:, 1])


def test_non_symmetric_costs_give_full_matrix(graphs, recording):
    made = recording()
    costs = ConstantCosts(node_ins=3.0, node_del=1.0, edge_ins=2.0, edge_del=0.5)
    assert not costs.symmetric
    m = gedkit.pairwise(graphs, costs=costs, **EXACT)
    assert len(made[0].calls) == 6 * 5  # every ordered pair off the diagonal
    np.testing.assert_allclose(m.distance, expected(graphs, graphs, costs))
    assert not np.allclose(m.distance, m.distance.T)


def test_diagonal_is_solved_when_identity_is_not_free(recording):
    made = recording()
    costs = gedkit.costs.custom(node_sub=lambda a, b: 1.0, symmetric=True)  # even a -> a costs 1
    g = gedkit.Graph({0: "C", 1: "O"}, [(0, 1)], name="g")
    m = gedkit.pairwise([g], costs=costs, **EXACT)
    assert made[0].calls == [("g", "g")]
    assert m.distance[0, 0] == gedkit.ged(g, g, costs=costs).distance


def test_two_jobs_equal_one_job_with_callable_costs(graphs):
    costs = random_costs(np.random.default_rng(3))  # lambdas: must reach the workers
    one = gedkit.pairwise(graphs, costs=costs, **EXACT)
    two = gedkit.pairwise(graphs, costs=costs, n_jobs=2, chunk_size=3, **EXACT)
    np.testing.assert_array_equal(one.lower_bound, two.lower_bound)
    np.testing.assert_array_equal(one.upper_bound, two.upper_bound)
    np.testing.assert_array_equal(one.status, two.status)
    np.testing.assert_allclose(one.distance, expected(graphs, graphs, costs))


def test_all_cores(graphs):
    m = gedkit.pairwise(graphs[:3], graphs[3:], n_jobs=-1, **EXACT)
    np.testing.assert_allclose(m.distance, expected(graphs[:3], graphs[3:]))


def test_networkx_inputs():
    h1 = nx.path_graph(3)
    h2 = nx.star_graph(3)
    nx.set_node_attributes(h1, "C", "atom")
    nx.set_node_attributes(h2, "C", "atom")
    h2.nodes[0]["atom"] = "N"
    m = gedkit.pairwise([h1, h2], node_label="atom", **EXACT)
    assert m.distance[0, 1] == gedkit.ged(h1, h2, node_label="atom").distance


def test_empty_input():
    m = gedkit.pairwise([], progress=False)
    assert m.shape == (0, 0) and m.counts()["optimal"] == 0
    assert gedkit.pairwise([gedkit.Graph([0])], [], progress=False).shape == (1, 0)


# -- bounded by default -----------------------------------------------------------------------


def test_a_time_limit_per_pair_by_default(graphs, recording):
    made = recording()
    m = gedkit.pairwise(graphs[:3], progress=False)
    assert m.timeout == DEFAULT_TIMEOUT
    # (the process's start-ups may be paid first, by one solve of their own: numba's start
    # and one pair's limit at most, not 5 s before a job of 0.5 s pairs began)
    from gedkit.pacing import PREPARE_SECONDS, numba_start_seconds

    paid = min(PREPARE_SECONDS, DEFAULT_TIMEOUT + numba_start_seconds())
    assert {b.timeout for b in made[0].budgets} - {paid} == {DEFAULT_TIMEOUT}
    assert f"time limit {DEFAULT_TIMEOUT:g} s per pair" in m.summary()
    m = gedkit.pairwise(graphs[:3], timeout=None, memory=10**8, progress=False)
    assert m.timeout is None and "no time limit" in m.summary()
    assert {(b.timeout, b.memory) for b in made[1].budgets} == {(None, 10**8)}


def test_unproven_pairs_are_bounded_and_counted(graphs, recording):
    def unproven(problem, result):  # as if the time limit had stopped the solve
        result.lower_bound = result.upper_bound - 1
        return result

    recording(unproven)
    m = gedkit.pairwise(graphs[:3], progress=False)
    off = ~np.eye(3, dtype=bool)
    assert (m.status[off] == "bounded").all() and (m.status[~off] == "optimal").all()
    np.testing.assert_array_equal(m.upper_bound - m.lower_bound, off.astype(float))
    assert m.counts() == {"optimal": 3, "bounded": 3, "failed": 0, "pending": 0}
    gaps = 1 / m.upper_bound[off]
    assert f"3 not proven optimal (mean gap {100 * gaps.mean():.1f}%" in m.summary()


# -- nothing found is lost --------------------------------------------------------------------


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_cost_function_failing_on_one_graph_fails_only_its_pairs(graphs, n_jobs):
    labelled = [gedkit.Graph({0: k, 1: 9}, [(0, 1)], name=f"h{k}") for k in range(4)]
    m = gedkit.pairwise(labelled, costs=failing_on(2), n_jobs=n_jobs, **EXACT)
    assert_failed_where(m, [2], expected(labelled, labelled), "no label 2 here")
    assert m.counts()["failed"] == 4 and "4 failed" in m.summary()


def test_a_bad_graph_fails_its_row_and_column(graphs):
    bad = nx.MultiGraph([(0, 1), (0, 1)])  # parallel edges: refused
    m = gedkit.pairwise([graphs[0], bad, graphs[1]], **EXACT)
    good = [graphs[0], graphs[0], graphs[1]]  # row and column 1 are failed anyway
    assert_failed_where(m, [1], expected(good, good), "graphs_a[1]")
    m = gedkit.pairwise(graphs[:2], [graphs[2], 42], progress=False)
    assert set(m.errors) == {(0, 1), (1, 1)} and "graphs_b[1]" in m.errors[0, 1]


@pytest.mark.parametrize("bad", ["CCO", 42])
def test_a_single_value_instead_of_graphs_is_an_error(bad):
    with pytest.raises(gedkit.GraphError, match="must be an iterable of graphs"):
        gedkit.pairwise(bad)


def test_a_dying_worker_fails_only_its_pair(graphs):
    labelled = [gedkit.Graph({0: k, 1: 9}, [(0, 1)], name=f"h{k}") for k in range(4)]
    costs = failing_on(1, action=lambda: os._exit(3))
    m = gedkit.pairwise(labelled, costs=costs, n_jobs=2, chunk_size=2, **EXACT)
    assert_failed_where(m, [1], expected(labelled, labelled), "exited with status 3")


def test_a_dying_worker_is_replaced_only_where_a_fork_is_safe(tmp_path, monkeypatch):
    """While another thread is inside a collection's call (SQLite's locks held), a worker
    that died is not replaced by a fork (the new one could wait for ever on a copied lock):
    the job goes on with the other one and is whole."""
    import threading
    import time

    from gedkit import workers

    marker = tmp_path / "died"

    def die_once():
        if not marker.exists():
            marker.touch()
            os._exit(3)

    labelled = [gedkit.Graph({0: k, 1: 9}, [(0, 1)], name=f"h{k}") for k in range(4)]
    made = []
    real = pairwise_module._Worker

    def counted(*args):
        made.append(True)
        return real(*args)

    monkeypatch.setattr(pairwise_module, "_Worker", counted)
    release = threading.Event()

    def hold():  # from the moment both workers are forked until the job is over
        while len(made) < 2:
            time.sleep(0.001)
        with workers.inside():
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        m = gedkit.pairwise(labelled, costs=failing_on(1, action=die_once), n_jobs=2,
                            chunk_size=2, **EXACT)
    finally:
        release.set()
        holder.join()
    assert marker.exists() and len(made) == 2
    assert_failed_where(m, [1], expected(labelled, labelled), "")
    assert any("exited with status 3" in reason for reason in m.errors.values())


def test_a_chunk_given_to_a_worker_that_has_just_died_is_not_an_error(graphs):
    # a worker is given its next chunk while still busy, so it may die just before: the
    # send must not raise; the pool sees the death by the worker's sentinel
    import multiprocessing

    from gedkit.solvers import get_solver

    worker = pairwise_module._PairSolver(graphs, graphs, ConstantCosts(), get_solver("exact"),
                                         None, None, diagonal=True)
    w = pairwise_module._Worker(multiprocessing.get_context("fork"), worker)
    w.process.kill()
    w.process.join()
    w.give([(0, 1)] * 10_000)  # more than a pipe holds
    assert w.busy and pairwise_module._lost(w, None) == "its worker process was killed by " \
        "signal SIGKILL (out of memory?)"
    w.stop(wait=False)


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/statm"), reason="needs /proc")
def test_a_worker_outgrowing_its_memory_share_is_stopped(monkeypatch):
    # a worker starts as a fork of this process, solvers loaded (they are here once one pair
    # is solved): let it grow by 300 MB, then hog 700 MB
    labelled = [gedkit.Graph({0: k}, name=f"h{k}") for k in range(3)]
    gedkit.pairwise(labelled[:2], **EXACT)
    base = pairwise_module._resident(os.getpid())
    monkeypatch.setattr(pairwise_module, "_worker_memory_limit", lambda jobs: base + (300 << 20))

    def hog():
        hog.held = b"x" * (700 << 20)
        time.sleep(60)

    m = gedkit.pairwise(labelled, costs=failing_on(2, hog), n_jobs=2, **EXACT)
    assert_failed_where(m, [2], expected(labelled, labelled), "share of this machine's memory")


def test_ctrl_c_keeps_the_pairs_done(graphs, recording):
    def interrupt_third(problem, result):
        if len(made[0].calls) == 3:
            raise KeyboardInterrupt
        return result

    # the distances first: gedkit.ged imported afterwards (this test alone) would take its
    # solver from the recording get_solver, whose hook raises
    truth = expected(graphs, graphs)
    made = recording(interrupt_third)
    with pytest.warns(InterruptedWarning, match="8 of 21 pairs done"):
        m = gedkit.pairwise(graphs, **EXACT)
    assert m.interrupted and len(made[0].calls) == 3
    done = m.status != "pending"
    # the diagonal without a solve, then (0, 1) and (0, 2) and their mirrors
    assert (m.status[done] == "optimal").all() and done.sum() == 6 + 2 * 2
    np.testing.assert_allclose(m.distance[done], truth[done])
    assert (m.lower_bound[~done] == 0).all() and np.isinf(m.upper_bound[~done]).all()
    assert (m.time[~done] == 0).all() and "13 not done (interrupted)" in m.summary()


def test_an_interrupted_solve_stops_the_batch_and_is_kept(graphs, recording):
    def stopped(problem, result):
        result.stats["stopped"] = "interrupted"
        return result

    recording(stopped)
    with pytest.warns(InterruptedWarning):
        m = gedkit.pairwise(graphs, **EXACT)
    # the diagonal (no solve) and (0, 1), whose cut solve proved it all the same
    assert m.interrupted and m.counts() == {"optimal": 7, "bounded": 0, "failed": 0,
                                            "pending": 14}
    assert m.status[0, 1] == m.status[1, 0] == "optimal"


def test_ctrl_c_in_the_pool_keeps_the_entries_waiting_in_the_pipes(terminal_ctrl_c, monkeypatch,
                                                                    graphs):
    # the parent takes entries every _GATHER_EVERY seconds: make that long, Ctrl-C while it
    # waits, and the pairs the workers sent meanwhile are still recorded
    monkeypatch.setattr(pairwise_module, "_GATHER_EVERY", 2.0)
    threading.Timer(1.0, _thread.interrupt_main).start()
    with pytest.warns(InterruptedWarning):
        m = gedkit.pairwise(graphs, n_jobs=2, chunk_size=2, **EXACT)
    done = m.status != "pending"
    assert m.interrupted and done.any() and not done.all()
    whole = gedkit.pairwise(graphs, **EXACT)
    np.testing.assert_array_equal(m.distance[done], whole.distance[done])


# -- progress --------------------------------------------------------------------------------


def test_progress_false_prints_nothing(graphs, capfd):
    gedkit.pairwise(graphs, n_jobs=2, progress=False)
    gedkit.pairwise(graphs, progress=False)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_progress_true_shows_a_bar(graphs, capfd):
    gedkit.pairwise(graphs[:3], progress=True)
    gedkit.pairwise(graphs[:3], n_jobs=2, progress=True)
    out, err = capfd.readouterr()
    assert out == ""
    # each bar ends on one 100% line; tqdm may also redraw 100% just before it closes
    finished = re.findall(r"pairwise: 100%[^\r\n]*6/6[^\r\n]*\n", err)
    assert len(finished) == 2


def test_plain_progress_lines_move_with_two_jobs(graphs, capfd, monkeypatch, recording):
    monkeypatch.setattr(pairwise_module, "_LINE_EVERY", 0.0)  # a line at every look

    def slow(problem, result):  # long enough for a look in the middle (forked workers)
        time.sleep(2 * pairwise_module._TICK / 10)
        return result

    recording(slow)
    gedkit.pairwise(graphs, n_jobs=2, chunk_size=1)  # stderr is not a terminal here
    out, err = capfd.readouterr()
    done = [int(n) for n in re.findall(r"^pairwise: (\d+)/21 pairs done", err, re.MULTILINE)]
    assert out == "" and done[-1] == 21
    assert done == sorted(done) and any(0 < n < 21 for n in done)


def test_the_progress_line_says_the_time_left_at_worst():
    """Beside the pace so far, the time left if every pair left took its whole limit, so
    many at a time (pairs growing larger as a job goes outran the pace of its first)."""
    shown = pairwise_module._Progress(False, 1000, 5.0, [], [])
    shown.parallel, shown.counts["optimal"] = 2, 100
    assert shown._line(shown.start + 10.0).endswith(
        "100/1,000 pairs done, 10 s (10 pairs/s, about 2 min left, at most 38 min)")
    unlimited = pairwise_module._Progress(False, 1000, None, [], [])
    unlimited.counts["optimal"] = 100
    assert unlimited._line(unlimited.start + 10.0).endswith("(10 pairs/s, about 2 min left)")


def test_a_long_pair_gets_a_notice(graphs, capfd, monkeypatch, recording):
    monkeypatch.setattr(pairwise_module, "_LONG_PAIR", 0.0)

    def slow_once(problem, result):
        if (problem.g1.name, problem.g2.name) == ("g0", "g1"):
            time.sleep(3 * pairwise_module._TICK)
        return result

    recording(slow_once)
    gedkit.pairwise(graphs[:3], timeout=None)
    _, err = capfd.readouterr()
    assert re.search(r"pairwise: pair \(0, 1\) g0 vs g1 has run \d+ s \(no time limit\)", err)


# -- options ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "nope"}, gedkit.OptionError, "unknown method 'nope'"),
        ({"costs": "nope"}, gedkit.CostModelError, "unknown cost model 'nope'"),
        ({"starts": 3}, gedkit.OptionError, "no option"),
        ({"n_jobs": 0}, gedkit.OptionError, "n_jobs"),
        ({"n_jobs": 1.5}, gedkit.OptionError, "n_jobs"),
        ({"n_jobs": -1000}, gedkit.OptionError, "n_jobs"),
        ({"chunk_size": 0}, gedkit.OptionError, "chunk_size"),
        ({"threshold": 1}, gedkit.OptionError, r"pairwise takes no threshold= \(gedkit.ged.s"),
        ({"fixed": [(0, 0)]}, gedkit.OptionError, "pairwise takes no fixed="),
        ({"chunk_size": True}, gedkit.OptionError, "chunk_size"),
        ({"timeout": -1}, gedkit.OptionError, "timeout"),
        ({"timeout": "5"}, gedkit.OptionError, "timeout .*'5'"),
        ({"timeout": math.nan}, gedkit.OptionError, "timeout"),
        ({"memory": "1G"}, gedkit.OptionError, "memory"),
        ({"progress": "yes"}, gedkit.OptionError, "progress"),
    ],
)
def test_bad_arguments_fail_before_any_worker_starts(graphs, monkeypatch, kwargs, error, match):
    def no_worker(*args, **kw):
        raise AssertionError("a worker process was started")

    monkeypatch.setattr(pairwise_module, "_Worker", no_worker)
    with pytest.raises(error, match=match):
        gedkit.pairwise(graphs, **{"n_jobs": 2, **kwargs})


def test_no_warning_on_an_ordinary_run(graphs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gedkit.pairwise(graphs[:3], n_jobs=2, progress=False)


def test_one_process_pays_its_start_ups_before_the_pairs_limits():
    """In a fresh process, a short per-pair limit never affords numba's start-up: the pairs
    of a one-process job must get it paid first, as a worker's are, or every pair answers
    with the cheap bounds (different answers for n_jobs=1 and n_jobs=2)."""
    import subprocess
    import sys
    import textwrap

    from gedkit._kernels import warm

    if not all(warm.ready(f) for f in warm.FAMILIES):
        pytest.skip("kernels not compiled here (gedkit warmup); the check needs them loaded")
    code = textwrap.dedent("""
        import gedkit
        from gedkit._kernels import warm
        mols = ["CC(=O)Nc1ccc(O)cc1", "CCOc1ccc(NC(C)=O)cc1", "CC(=O)Oc1ccccc1C(=O)O",
                "Cn1cnc2c1c(=O)n(C)c(=O)n2C", "Cn1cnc2c1c(=O)[nH]c(=O)n2C"]
        graphs = [gedkit.from_smiles(s) for s in mols]
        m = gedkit.pairwise(graphs, n_jobs=1, timeout=0.4, progress=False)  # < start-up
        print(m.counts()["optimal"], warm.started())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    assert out[1] == "True"  # the kernels ran in the caller's process
    assert int(out[0]) == 15  # every pair (diagonal too) of these small molecules proven
    # a first solve that runs no kernel (two small graphs, searched through in plain
    # Python) pays their start all the same: else no later pair's limit affords it (16 of
    # 78 pairs of small AIDS molecules kept the cheap bounds on a busy machine)
    none = textwrap.dedent("""
        import gedkit
        from gedkit import pacing
        from gedkit._kernels import warm
        pacing.pay_start_ups(gedkit.solvers.get_solver("exact"), 1.0, lambda limit: None)
        print(warm.started())
    """)
    assert subprocess.run([sys.executable, "-c", none], capture_output=True, text=True,
                          timeout=300, check=True).stdout.split() == ["True"]
    # a job of one pair pays them in its own limit, as gedkit.ged does: not twice (a prepared
    # solve of that pair first took a 2,000-node pair at 5 s to 9.7 s)
    import gedkit.pairwise as pairwise_module

    solves = []
    real = pairwise_module._PairSolver.prepare
    one = [gedkit.from_smiles("CCO")], [gedkit.from_smiles("CCN")]
    try:
        pairwise_module._PairSolver.prepare = lambda self: solves.append(1) or real(self)
        gedkit.pairwise(*one, timeout=1, progress=False)
        gedkit.pairwise([gedkit.from_smiles(s) for s in ("CCO", "CCN", "CCC")], timeout=1,
                        progress=False)
    finally:
        pairwise_module._PairSolver.prepare = real
    assert solves == [1]  # the second job has two pairs to do


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_summary_names_a_cause_other_than_the_time_limit(n_jobs, monkeypatch):
    # a pair the memory cap stopped in 1 s of 5 was summed up as if more time would prove it
    # (13 atoms: beyond the plain-Python search of the cheap bounds, which needs no memory;
    # the up-front refusal of a cap no pair is set up in left out, which 1 byte is)
    import gedkit.budget

    monkeypatch.setattr(gedkit.budget, "check_setup_fits", lambda n1, n2, budget: None)
    pair = ["CCOC(=O)c1ccc(N)cc1CC", "O=C(O)c1ccccc1O"]
    tight = gedkit.pairwise(pair, timeout=5, memory=1, n_jobs=n_jobs, progress=False)
    assert tight.counts()["bounded"] >= 1
    assert sum(tight.stopped.values()) == tight.counts()["bounded"]
    assert all("memory" in reason for reason in tight.stopped)
    assert "stopped by: memory" in tight.summary()
    roomy = gedkit.pairwise(pair, timeout=5, n_jobs=n_jobs, progress=False)
    assert roomy.stopped == {} and "stopped by" not in roomy.summary()


def test_more_jobs_than_cores_are_capped_with_a_warning(monkeypatch, graphs):
    # 100 workers on 2 cores: 101 processes, GBs of memory and no speed; one per core instead
    from gedkit import workers

    monkeypatch.setattr(workers, "cores", lambda: 2)
    with pytest.warns(UserWarning, match=r"n_jobs=100: this process may use 2 cores; 2 worker"):
        assert workers.resolve_jobs(100) == 2
    assert workers.resolve_jobs(-1) == 2 and workers.resolve_jobs(2, tasks=1) == 1
    assert workers.resolve_jobs(np.int64(2)) == 2  # any integer, as pairwise took before
    with pytest.raises(gedkit.OptionError, match="leaves no worker on 2 cores"):
        workers.resolve_jobs(-3)
    assert workers.resolve_jobs(None) == 1  # as scikit-learn and joblib read None
    with pytest.raises(gedkit.OptionError) as zero:
        workers.resolve_jobs(0)
    # the command line's words there (--jobs), Python's here
    assert zero.value.render(cli=True).startswith("--jobs must be a non-zero integer")
    assert str(zero.value).startswith("n_jobs must be a non-zero integer")
    with pytest.warns(UserWarning, match="n_jobs=8"):
        m = gedkit.pairwise(graphs[:3], n_jobs=8, **EXACT)
    assert m.counts()["optimal"] == 6
    coll = gedkit.Collection()
    coll.add(graphs[:3])
    with pytest.warns(UserWarning, match="n_jobs=8"):
        coll.range(queries=graphs[:3], tau=2, n_jobs=8, progress=False)


def test_a_pairwise_result_serialises_as_the_other_results_do():
    """to_dict / to_json, as Result, MCESResult and SearchResult have (the command line's
    --json form, which only it could make), node maps included when asked for."""
    import json

    graphs = [gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]), gedkit.Graph({0: "C", 1: "N"}, [(0, 1)])]
    res = gedkit.pairwise(graphs, node_maps=True, progress=False)
    data = json.loads(res.to_json(["a", "b"], ["a", "b"]))
    assert data["rows"] == data["columns"] == ["a", "b"]
    assert data["distance"] == [[0.0, 1.0], [1.0, 0.0]] and data["counts"]["optimal"] == 3
    assert {(m["row"], m["column"]) for m in data["node_maps"]} == {
        ("a", "a"), ("a", "b"), ("b", "b")}
    assert res.to_dict()["rows"] == [0, 1]  # positions without names


def test_a_pairwise_result_is_written_as_json_a_row_at_a_time():
    """``write_json`` (what ``gedkit pairwise --json`` prints) writes to_json's text a matrix
    row at a time: the whole text of a 3,000 x 3,000 job took 2.9 GB in memory. Failed
    entries, their unknown upper bounds and node maps included."""
    import io

    graphs = [gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]), gedkit.Graph({0: "C", 1: "N"}, [(0, 1)]),
              gedkit.Graph({0: "N"})]
    res = gedkit.pairwise(graphs, node_maps=True, progress=False,
                          costs=failing_on("N"))
    assert res.counts()["failed"] and res.failed_pairs()
    written = io.StringIO()
    res.write_json(written, ["a", "b", "c"])
    assert written.getvalue() == res.to_json(["a", "b", "c"]) + "\n"
    assert '"upper_bound": [[0.0, null' in written.getvalue()
