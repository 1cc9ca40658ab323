"""Limits that hold from the first call: kernels compiled within the budget, large graphs,
Ctrl-C, option types, start-up imports. No timing assertions: each test checks what a limit
must produce (bounds, a reason, a status), not how fast."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
from helpers import random_graph

import gedkit
from gedkit import budget as budget_module
from gedkit.budget import Budget

HEAVY = ("numba", "scipy", "torch", "rdkit", "highspy")


def _child(code: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def _ring(n: int, labels: int = 4, seed: int = 0) -> gedkit.Graph:
    """A labelled ring with chords: large, but built in milliseconds."""
    rng = np.random.default_rng(seed)
    lab = rng.integers(0, labels, n)
    edges = {(i, (i + 1) % n) for i in range(n)}
    edges |= {(i, (i + 7) % n) for i in range(0, n, 3)}
    return gedkit.Graph({i: int(lab[i]) for i in range(n)}, sorted(edges))


@pytest.mark.parametrize("method", ["exact", "dfs", "astar", "mip", "ipfp", "branch", "auto"])
def test_large_graphs_give_bounds_not_tracebacks(method):
    g1, g2 = _ring(1500), _ring(1600, seed=1)
    r = gedkit.ged(g1, g2, method=method, timeout=0.5, memory=256 << 20)
    assert 0 <= r.lower_bound <= r.upper_bound < np.inf
    assert r.upper_bound == r.problem.cost(r.assignment)


@pytest.mark.parametrize("method", ["exact", "ga", "auto"])
def test_large_graphs_give_mces_bounds(method):
    r = gedkit.mces(_ring(1500), _ring(1600, seed=1), method=method, timeout=0.5)
    assert 0 < r.num_edges <= r.upper_bound  # the greedy start keeps edges already


def test_search_that_cannot_expand_once_says_why():
    r = gedkit.ged(_ring(1500), _ring(1500, seed=2), method="astar", timeout=0.05)
    assert "does not fit" in r.stats["stopped"]


def test_memory_cap_bounds_the_frontier():
    rng = np.random.default_rng(3)
    g1, g2 = random_graph(rng, 14, p=0.3, n_labels=2), random_graph(rng, 14, p=0.3, n_labels=2)
    r = gedkit.ged(g1, g2, method="astar", memory=200_000, bound="labelset", timeout=20)
    assert r.stats["peak_bytes"] <= 200_000
    assert r.lower_bound <= r.upper_bound


@pytest.mark.parametrize("value", ["5", True, float("nan"), -1, 0])
def test_budget_values_are_checked(value):
    with pytest.raises(gedkit.OptionError, match="timeout must be a number"):
        gedkit.ged("CCO", "CCN", timeout=value)


def test_a_memory_size_as_the_command_line_spells_it_says_what_python_takes():
    with pytest.raises(gedkit.OptionError, match=r"got '1G' \(bytes, e\.g\. 2\*\*30; sizes "
                       r"like '1G' are for the command line's --memory\)"):
        gedkit.ged("CCO", "CCN", memory="1G")


def test_numpy_numbers_are_accepted():
    assert gedkit.ged("CCO", "CCN", timeout=np.float32(5), threshold=np.int16(3)).optimal


def test_a_long_run_without_timeout_says_so(monkeypatch):
    monkeypatch.setattr(budget_module, "NOTICE_AFTER", 0.0)
    b = Budget(what="gedkit.ged (astar) on graphs of 3 and 4 nodes")
    time.sleep(0.01)
    with pytest.warns(budget_module.LongRunNotice, match="without a time limit") as caught:
        b.expired()
    notice = caught[0].message
    assert caught[0].filename == __file__  # the user's line (it named gedkit's budget.py)
    assert str(notice).endswith("and timeout= bounds a run")
    assert notice.render(cli=True).endswith("and --timeout S bounds a run")  # the CLI's words
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b.expired()  # said once per solve


def test_a_long_run_says_so_from_the_budgets_of_its_stages(monkeypatch):
    """``auto``'s stages each hold their own budget, and its last search may run for ever
    on its own: the call's notice is given from their budgets too (a 300-node pair ran 25 s
    without one, until Ctrl-C)."""
    from types import SimpleNamespace

    monkeypatch.setattr(budget_module, "NOTICE_AFTER", 0.0)

    class Stages:
        kernels = ()

        def solve(self, problem, budget):
            Budget(timeout=5.0).remaining()  # a stage's own budget, read as it works
            said.append(len(caught))
            return SimpleNamespace(optimal=True, stats={}, assignment=None, lower_bound=0.0,
                                   method="stages", time=0.0)

    Stages.__module__ = "gedkit.solvers.stages"  # (not a plug-in's: no contract check)
    said: list[int] = []
    call = Budget(what="gedkit.ged (auto) on graphs of 300 and 300 nodes")
    time.sleep(0.01)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        budget_module.solve_within(Stages(), None, call)
    assert said == [1] and "300 and 300 nodes has run 0 s" in str(caught[0].message)


def test_a_solve_waits_idle_for_a_start_under_way(monkeypatch):
    """While numba's start runs in the background (a process's later calls under limits it
    does not fit), a solve waits for it up to the time given, idle, instead of holding the
    interpreter lock with plain-Python bounds: twelve 1 s calls in a row on a crowded machine
    all ended with the start still under way."""
    import threading

    from gedkit._kernels import warm

    def busy(seconds):
        thread = threading.Thread(target=time.sleep, args=(seconds,), daemon=True)
        thread.start()
        return thread

    monkeypatch.setattr(warm, "_SKIPPED", [5])  # past the first skip: no new thread
    started = busy(0.3)
    monkeypatch.setattr(warm, "_STARTING", [started])
    warm.start_later(wait=30.0)
    assert not started.is_alive()  # waited for it to end, not the 30 s
    slow = busy(30.0)
    monkeypatch.setattr(warm, "_STARTING", [slow])
    tick = time.perf_counter()
    warm.start_later(wait=0.05)
    assert slow.is_alive() and time.perf_counter() - tick < 25  # gave up waiting


def test_the_start_up_planned_for_is_the_machines_measured_one(monkeypatch, tmp_path):
    """``gedkit warmup`` measures numba's start-up in a fresh process and records it; a
    first call plans with it (and a margin) instead of the constant, which is for machines
    without a record (against ~0.5 s here, the constant 1.25 s made a fresh process's first
    exact solve at a 1 s limit give up in about half the runs)."""
    from gedkit import pacing
    from gedkit._kernels import warm

    monkeypatch.setattr(warm, "recorded_start_up", lambda: None)
    assert pacing.numba_start_seconds() == pacing.NUMBA_START_SECONDS
    monkeypatch.setattr(warm, "recorded_start_up", lambda: 0.4)
    assert pacing.numba_start_seconds() == pytest.approx(pacing.START_UP_MARGIN * 0.4 + 0.1)
    monkeypatch.setattr(warm, "recorded_start_up", lambda: 3.0)  # a slow machine: the cap
    assert pacing.numba_start_seconds() == pacing.NUMBA_START_SECONDS
    monkeypatch.undo()
    monkeypatch.setattr(warm, "_start_up_file", lambda: tmp_path / "start-up")
    warm.recorded_start_up.cache_clear()
    try:
        measured = warm.record_start_up(runs=1)
        assert measured is not None and 0 < measured < 60
        assert warm.recorded_start_up() == pytest.approx(measured, abs=1e-3)
    finally:
        warm.recorded_start_up.cache_clear()


def test_a_crowded_machine_stretches_the_estimates_a_solve_plans_by(monkeypatch):
    """On a machine with more work ready than cores, a call's work runs slower than its
    estimates: they are stretched by the crowding, so that a step that would end past the
    limit is not started (2,000 nodes at 2 s ended at 3.1-3.5 s with two other busy
    processes on two cores)."""
    from gedkit.pacing import affordable

    assert 1.0 <= Budget(timeout=5).slowdown() <= budget_module.MAX_SLOWDOWN
    b = Budget(timeout=1.0)
    monkeypatch.setattr(budget_module, "crowding", lambda: 0.5)  # an idle machine
    assert b.slowdown() == 1.0 and affordable(0.8, b)
    monkeypatch.setattr(budget_module, "crowding", lambda: 1.5)
    assert b.slowdown() == 1.5 and not affordable(0.8, b) and affordable(0.5, b)
    monkeypatch.setattr(budget_module, "crowding", lambda: 40.0)
    assert b.slowdown() == budget_module.MAX_SLOWDOWN


def test_a_search_time_limit_bounds_the_time_every_solve_plans_for():
    """Inside a search's limit per query (``within``), a solve's budget has no more time
    left than the limit, whatever its own timeout (a kNN's pair planned a 1 s step with
    10 ms left), and none once it ran out; nested limits keep the smaller."""
    with budget_module.within(30.0):
        assert 0 < Budget(timeout=3600).remaining() <= 30
        assert 0 < Budget().remaining() <= 30  # no timeout of its own: the limit's
        assert Budget(timeout=1).remaining() <= 1
        with budget_module.within(3600):
            assert budget_module.seconds_left() <= 30
    with budget_module.within(0.0):
        assert Budget(timeout=5).remaining() == 0 and budget_module.seconds_left() == 0
    assert Budget(timeout=5).remaining() > 4 and budget_module.seconds_left() == math.inf


@pytest.mark.parametrize("name", ["ged", "mces"])
def test_a_first_use_import_counts_in_the_call_that_follows(monkeypatch, name):
    """``gedkit.ged(...)`` in a fresh process imports its module first (0.2-0.35 s): the
    call's clock starts at that import when the call follows at once, so ``result.time``
    and the time limit count it; an import long before the call, or a call of another
    name, does not, and it counts once."""
    solve = getattr(gedkit, name)
    now = time.perf_counter()
    monkeypatch.setattr(gedkit, "_FIRST_USE", [(name, now - 10.0, time.perf_counter())])
    r = solve("CCO", "CCN", timeout=5)
    assert r.time >= 10.0  # the import "took" 10 s: the limit had passed
    assert solve("CCO", "CCN", timeout=5).time < 5  # once
    other = "mces" if name == "ged" else "ged"
    gedkit._FIRST_USE[0] = (other, now - 10.0, time.perf_counter())
    assert solve("CCO", "CCN", timeout=5).time < 5
    gedkit._FIRST_USE[0] = (name, now - 10.0, now - 1.0)  # imported a second before
    assert solve("CCO", "CCN", timeout=5).time < 5


def test_cold_kernel_cache_gives_cheap_bounds_in_time(tmp_path):
    """A fresh install (empty numba cache) with a time limit: the solve answers with bounds
    that need no compiled kernel, says so, and leaves a background compile (killed here)."""
    out = _child("""
        import json, gedkit
        from gedkit._kernels import warm
        # isomers of 15 atoms (label-set bound 0), beyond the plain-Python search of pairs of
        # a few nodes
        r = gedkit.ged("CC(C)CCCCCCCCCC(=O)O", "CCCCCCCCCCCCC(=O)O", method="astar", timeout=1)
        print(json.dumps([r.lower_bound, r.upper_bound, r.stats.get("stopped", "")]))
        if warm._BACKGROUND is not None:
            warm._BACKGROUND.kill()
    """, env={"NUMBA_CACHE_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    lower, upper, stopped = json.loads(out.stdout.splitlines()[-1])
    assert 0 <= lower <= upper and "not compiled yet" in stopped


def test_cold_kernel_cache_answers_pairs_its_cheap_bounds_prove_without_waiting(tmp_path):
    """Without a time limit a solve waits for its kernels to compile (about a minute on a
    fresh install), unless the bounds that need none already meet: CCO against CCN is proven
    by the label-set bound and a greedy map, and a connected MCES is never answered with a
    disconnected map."""
    out = _child("""
        import json, gedkit
        from gedkit._kernels import warm
        two = gedkit.Graph({0: "C", 1: "O", 2: "N", 3: "S"}, [(0, 1), (2, 3)])
        r = gedkit.ged("CCO", "CCN")
        m = gedkit.mces(two, two, connected=True, timeout=0.5)
        # beyond the label-set bound and the greedy maps (3, unproven, before): searched
        acid = gedkit.ged("CCO", "CC(=O)O", timeout=1)
        print(json.dumps([r.distance, r.optimal, r.stats.get("fallback", ""), m.num_edges,
                          m.upper_bound, acid.distance, acid.optimal]))
        if warm._BACKGROUND is not None:
            warm._BACKGROUND.kill()
    """, env={"NUMBA_CACHE_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    distance, optimal, fallback, common, upper, *acid = json.loads(out.stdout.splitlines()[-1])
    assert (distance, optimal, fallback) == (1, True, "cheap bounds")
    assert (common, upper) == (1, 2)  # one fragment kept, not both edges
    assert acid == [2, True]
    assert "CompileNotice" not in out.stderr


def test_edited_kernel_sources_forget_all_compiled_code(tmp_path, monkeypatch):
    """numba re-validates a kernel's cache against its own file only; when any kernel source
    changed, every kernel's cached code goes before the next compile (once per set of
    sources), so that a caller never runs code built from a callee's old source."""
    from gedkit._kernels import warm

    markers, cache = tmp_path / "markers", tmp_path / "cache"
    markers.mkdir()
    cache.mkdir()
    monkeypatch.setattr(warm, "marker_dir", lambda: markers)
    monkeypatch.setattr(warm, "_kernel_caches", lambda: {cache})
    (markers / "sources-0123456789abcdef").touch()  # what older sources left
    for name in ("tree_search.tree_search-1.py311.nbi", "tree_search.tree_search-1.py311.1.nbc",
                 "branch.branch_bound-2.py311.nbi", "notes.txt"):
        (cache / name).touch()
    warm._forget_stale_code()
    assert sorted(p.name for p in cache.iterdir()) == ["notes.txt"]
    assert [p.name for p in markers.glob("sources-*")] == [f"sources-{warm._stamp()}"]
    (cache / "search.range-3.py311.nbi").touch()  # compiled since: kept
    warm._forget_stale_code()
    assert (cache / "search.range-3.py311.nbi").exists()


def test_processes_saving_one_kernels_compiled_code_at_once_keep_every_entry(tmp_path):
    """numba names a new entry's data file after the entries its index holds: two compile
    processes saving one shared kernel's code at once both wrote ``.1.nbc``, the second's
    over the first's, and a fresh install's warm-up then failed loading one signature's
    code for the other. Saved one process at a time (warm._serialised_cache_saves), every
    entry keeps its own file."""
    code = textwrap.dedent(f"""
        import sys
        from numba.core.caching import IndexDataCacheFile
        from gedkit._kernels import warm
        warm._serialised_cache_saves()
        cache = IndexDataCacheFile({str(tmp_path)!r}, "kernel", "stamp")
        for k in range(150):
            cache.save((sys.argv[1], k), sys.argv[1] * k)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, who]) for who in "ab"]
    assert [p.wait(60) for p in procs] == [0, 0]
    from numba.core.caching import IndexDataCacheFile

    cache = IndexDataCacheFile(str(tmp_path), "kernel", "stamp")
    assert all(cache.load((who, k)) == who * k for who in "ab" for k in range(150))


def test_ctrl_c_in_warm_up_stops_its_compile_processes(terminal_ctrl_c, monkeypatch):
    """Ctrl-C while `gedkit warmup` waits on its compile processes stops them too: they
    compiled on after the command had returned, then wrote tracebacks (a broken pipe) to the
    terminal. (Stand-in processes that would sleep a minute; Ctrl-C after half a second.)"""
    import signal
    import subprocess
    import threading

    from gedkit._kernels import warm

    started = []
    real = subprocess.Popen

    def sleeper(args, **kw):
        proc = real([sys.executable, "-c", "import time; time.sleep(60)"], **kw)
        started.append(proc)
        return proc

    monkeypatch.setattr(warm.subprocess, "Popen", sleeper)
    # a real SIGINT to the main thread, as a terminal's Ctrl-C (it interrupts the wait)
    timer = threading.Timer(0.5, signal.pthread_kill,
                            (threading.main_thread().ident, signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            warm.warm_up(jobs=2, families=["cost", "assignment"])
    finally:
        timer.cancel()
    assert len(started) == 2 and all(p.poll() is not None for p in started)


def test_warm_up_covers_every_specialisation_real_calls_use():
    """After the session's warm-up, calls of every family in a fresh process load from the
    cache: no kernel compiles again (which would spend a caller's time limit)."""
    out = _child("""
        import numba, gedkit
        from gedkit.costs import constant
        pairs = [("c1ccccc1CC(=O)O", "c1ccncc1CC(=O)N"), ("c1ccncc1CC(=O)N", "CCO")]
        for a, b in pairs:
            for m in ["auto", "astar", "dfs", "branch", "bipartite", "star", "refine",
                      "bp_beam", "ipfp", "node", "branch_fast"]:
                gedkit.ged(a, b, method=m)
                gedkit.ged(a, b, method=m, costs=constant(node_sub=0.5), threshold=2)
            for m in ["auto", "exact", "ga"]:
                gedkit.mces(a, b, method=m)
        coll = gedkit.Collection()
        coll.add([a for a, _ in pairs] + ["CCO", "CCN"])
        for model in ("uniform", constant(node_sub=0.5)):
            coll.range("CCCO", 2, costs=model)
            coll.knn("CCCO", 2, costs=model)
        from numba.core.registry import CPUDispatcher
        import gc
        missed = [d.py_func.__qualname__ for d in gc.get_objects()
                  if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("gedkit")
                  and sum(d.stats.cache_misses.values())]
        print(missed)
    """, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "[]"


def test_start_up_imports_nothing_heavy():
    out = _child(f"""
        import sys
        from gedkit.cli import build_parser, main
        build_parser()
        first = sorted(m for m in {(*HEAVY, "numpy")!r} if m in sys.modules)
        main(["methods"])
        print(first, sorted(m for m in {HEAVY!r} if m in sys.modules))
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "[] []"


def test_cli_defaults_bound_every_command():
    from gedkit.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["ged", "a", "b"]).timeout == budget_module.COMMAND_TIMEOUT
    assert parser.parse_args(["mces", "a", "b"]).timeout == budget_module.COMMAND_TIMEOUT
    assert parser.parse_args(["pairwise", "a"]).timeout == budget_module.PAIR_TIMEOUT
    assert parser.parse_args(["ged", "a", "b", "--timeout", "none"]).timeout is None


def _cpu_seconds(pid: int) -> float:
    """CPU seconds process ``pid`` has used (its threads included); where /proc cannot
    tell, infinity (the caller's wall-clock wait stands alone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return math.inf
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupt_after_start(args: list[str], again: float | None = None
                           ) -> subprocess.CompletedProcess:
    """``args`` run, SIGINT sent 4 s in (and once more ``again`` seconds later): later on a
    busy machine, once the process has had 3 s of CPU (imports take ~1 s of it), as other
    tests' kernels compiling in the background made the imports take 4 s."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4.0)  # imports, then well into the solve
    deadline = time.monotonic() + 60
    while _cpu_seconds(proc.pid) < 3.0 and time.monotonic() < deadline \
            and proc.poll() is None:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    if again is not None:
        time.sleep(again)
        proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.fixture()
def hard_pair(tmp_path):
    """Two graph files whose exact distance takes far longer than the test waits."""
    rng = np.random.default_rng(5)
    paths = []
    for k in range(2):
        path = tmp_path / f"g{k}.json"
        gedkit.write(random_graph(rng, 40, p=0.12, n_labels=2), path)
        paths.append(str(path))
    return paths


def test_ctrl_c_in_gedkit_ged_prints_the_bounds_found(hard_pair):
    r = _interrupt_after_start([sys.executable, "-m", "gedkit.cli", "ged", *hard_pair,
                                "--node-label", "label", "--method", "astar", "--timeout",
                                "none", "--json", "--no-path"])
    assert r.returncode == 130, r.stderr
    data = json.loads(r.stdout)
    assert data["lower_bound"] <= data["upper_bound"] and data["stats"]["stopped"] == "interrupted"
    assert "interrupted" in r.stderr and "Traceback" not in r.stderr
    # said once, in CLI words: not also as the Python warning with a Result's repr
    assert r.stderr.count("interrupted") == 1 and "<Result" not in r.stderr, r.stderr


@pytest.mark.parametrize("command", ["ged", "mces"])
def test_ctrl_c_twice_in_quick_succession_still_prints_the_bounds(hard_pair, command):
    """Ctrl-C pressed twice, as people do: the second one, landing while the first one's
    search winds down, printed nothing but "gedkit: interrupted" (7 of 22 runs of a
    200-node pair); the answer so far is printed as after one."""
    method = ["--method", "astar" if command == "ged" else "exact"]
    r = _interrupt_after_start([sys.executable, "-m", "gedkit.cli", command, *hard_pair,
                                "--node-label", "label", *method, "--timeout", "none",
                                "--json"], again=0.02)
    assert r.returncode == 130, r.stderr
    data = json.loads(r.stdout)
    assert data["stats"]["stopped"] == "interrupted" and "Traceback" not in r.stderr


@pytest.mark.parametrize("call", [
    'gedkit.ged({a!r}, {b!r}, method="dfs", node_label="label")',
    # gedkit.mces is a callable module: the warning must still point past its __call__
    'gedkit.mces({a!r}, {b!r}, node_label="label", connected=True, method="exact")',
])
def test_ctrl_c_in_python_returns_the_bounds_found(hard_pair, call):
    r = _interrupt_after_start([sys.executable, "-c", textwrap.dedent(f"""
        import gedkit, warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = {call.format(a=hard_pair[0], b=hard_pair[1])}
        told = [w for w in caught if w.category is gedkit.InterruptedWarning]
        print(r.lower_bound, r.upper_bound, r.stats["stopped"], len(told),
              told[0].filename if told else "-")
    """)])
    assert r.returncode == 0, r.stderr
    lower, upper, stopped, warned, where = r.stdout.split()
    assert float(lower) <= float(upper) and stopped == "interrupted" and warned == "1"
    assert where == "<string>"  # the user's line, not a line inside gedkit


@pytest.mark.parametrize("second", [False, True])
def test_ctrl_c_polishes_a_large_pairs_map_as_a_time_limit_does(tmp_path, second):
    """After Ctrl-C gedkit.ged still polishes a large pair's map, for INTERRUPT_GRACE seconds
    at most, as it does when the time limit stops the search (Ctrl-C at 2 s answered 572
    where --timeout 2 answered 359); a second Ctrl-C during that polish ends it at once with
    the map as the first one left it."""
    rng = np.random.default_rng(3)
    paths = []
    for k in range(2):
        paths.append(tmp_path / f"g{k}.json")
        gedkit.write(random_graph(rng, 200, p=0.05, n_labels=2), paths[-1])
    r = _interrupt_after_start([sys.executable, "-c", textwrap.dedent(f"""
        import os, signal, time, warnings
        import gedkit
        from gedkit.solvers.heuristics import polish
        real, seen = polish.polished, []

        def watched(result, budget):
            seen.append((result.upper_bound, budget.timeout, time.perf_counter()))
            if {second!r}:  # a second Ctrl-C, then a step that would never end
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(60)
            return real(result, budget)

        polish.polished = watched
        warnings.simplefilter("ignore")
        r = gedkit.ged({str(paths[0])!r}, {str(paths[1])!r}, method="exact",
                       node_label="label", timeout=600)
        (before, seconds, at), = seen
        print(r.stats["stopped"], seconds, before, r.upper_bound, time.perf_counter() - at)
    """)])
    assert r.returncode == 0, r.stderr
    stopped, seconds, before, upper, after = r.stdout.split()
    assert stopped == "interrupted"
    assert float(seconds) <= budget_module.INTERRUPT_GRACE
    assert float(after) < 10  # (generous: the polish's 0.25 s, or at once)
    if second:
        assert float(upper) == float(before)  # the first Ctrl-C's map
    else:
        assert float(upper) <= float(before)


def test_the_exact_search_sizes_itself_without_importing_numba():
    """The exact search's time and memory estimates decide whether its first expansion fits
    the budget; they must not import the kernels themselves (numba's import, spent on the
    estimate, once left a fresh process's first 1 s call on a 30-node pair with the cheap
    bounds only)."""
    out = _child(f"""
        import sys
        import gedkit
        from gedkit.solvers.exact.tree_search import TreeSearch
        a = gedkit.Graph({{i: i % 3 for i in range(12)}}, [(i, i + 1) for i in range(11)])
        b = gedkit.Graph({{i: i % 2 for i in range(14)}}, [(i, (i + 1) % 14) for i in range(14)])
        search = TreeSearch(gedkit.costs.uniform().compile(a, b), depth_first=False,
                            method="astar")
        print(search.ops > 0 and search.workspace > 0,
              sorted(m for m in {HEAVY!r} if m in sys.modules))
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "True []"


def test_a_proven_answer_names_no_limit_as_its_reason():
    """Two 301-node stars, one with self-loops: the steps a 2 s limit leaves out (an
    expansion, an assignment, a program) were named in ``stats["stopped"]`` of answers the
    cheap bounds had proven, which read as if the limit had stopped them."""
    import networkx as nx

    g1, g2 = nx.star_graph(300), nx.star_graph(300)
    g1.add_edges_from((i, i) for i in range(1, 301, 3))
    for method in ("exact", "bipartite", "ipfp", "mip"):
        r = gedkit.ged(g1, g2, method=method, timeout=2)
        assert r.optimal and r.distance == 100
        assert "stopped" not in r.stats, (method, r.stats["stopped"])
    path = gedkit.mces(nx.path_graph(300), nx.path_graph(299), method="exact", timeout=5)
    assert path.optimal and path.stats["stopped"] == "optimal"


def test_threads_first_solves_at_once_pay_the_start_up_one_at_a_time():
    """Three threads' first solves in a fresh process: each imported numba at the same time
    and failed with numba's partly initialised modules or Python's import deadlock error
    (6 runs of 6); numba's start-up is now paid by one thread while the others wait."""
    from gedkit._kernels import warm

    if not all(warm.ready(f) for f in ("cost", "tree_search", "assignment")):
        pytest.skip("kernels not compiled here (gedkit warmup)")
    out = _child("""
        import json, gedkit
        from concurrent.futures import ThreadPoolExecutor
        g1 = gedkit.Graph({i: "C" for i in range(12)}, [(i, i + 1) for i in range(11)])
        g2 = gedkit.Graph({i: "C" for i in range(12)}, [(i, (i + 5) % 12) for i in range(12)])
        with ThreadPoolExecutor(3) as ex:
            futures = [ex.submit(gedkit.ged, g1, g2, method=m, timeout=30)
                       for m in ("astar", "dfs", "branch")]
            print(json.dumps([f.result().distance for f in futures]))
    """)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == [1, 1, 23]


def test_a_process_whose_calls_never_fit_the_start_up_pays_it_in_the_background():
    """On a crowded machine (every estimate stretched) a process whose calls all had 1 s
    never paid numba's start-up: every call gave up at once. From its second such call on,
    a background thread pays it, and the calls after it solve (the second itself where the
    start ends within half its time, which it waits for)."""
    from gedkit._kernels import warm

    if not all(warm.ready(f) for f in ("cost", "tree_search")):
        pytest.skip("kernels not compiled here (gedkit warmup)")
    out = _child("""
        import json, gedkit
        import gedkit.budget as budget
        import gedkit.pacing as pacing
        from gedkit._kernels import warm
        budget.crowding = lambda: budget.MAX_SLOWDOWN  # a crowded machine
        # numba's start-up as a slow machine measures it (a clone whose warm-up had just
        # compiled, its files in the page cache, measured one that fitted 1 s stretched)
        pacing.numba_start_seconds = lambda: 2.0
        g1 = gedkit.Graph({i: "CN"[i % 2] for i in range(14)},
                          [(i, i + 1) for i in range(13)] + [(0, 5), (2, 7)])
        g2 = gedkit.Graph({i: "CN"[i % 3 % 2] for i in range(14)},
                          [(i, (i + 3) % 14) for i in range(14)])
        first = [gedkit.ged(g1, g2, method="astar", timeout=1).optimal for _ in range(2)]
        warm.settle()
        print(json.dumps([first, warm.started(),
                          gedkit.ged(g1, g2, method="astar", timeout=1).optimal]))
    """)
    assert out.returncode == 0, out.stderr
    # (the second call starts the background start and waits for it half its time: it
    # may solve already, or not)
    first, started, later = json.loads(out.stdout.splitlines()[-1])
    assert first[0] is False and started and later


def test_ctrl_c_stops_the_main_threads_solve_not_the_other_threads():
    """Ctrl-C during a solve of the main thread while an application's worker threads solve
    too: the main thread's stops with its bounds; the others run to their own limits (they
    stopped as "interrupted", or not, as a race with the flag's clearing went)."""
    out = _child("""
        import json, os, signal, threading, time, warnings
        import networkx as nx
        import gedkit

        def rg(n, p, seed):
            g = nx.gnp_random_graph(n, p, seed=seed)
            return gedkit.Graph({v: "C" for v in g}, list(g.edges))

        def worker(seeds):
            r = gedkit.ged(rg(20, .25, seeds[0]), rg(20, .25, seeds[1]), method="dfs",
                           timeout=2.5)
            return r.stats.get("stopped"), r.time

        def slow(step):  # the main call's last report takes its time: the flag stays set
            if step.final:
                time.sleep(0.5)

        gedkit.ged("CCO", "CCN", method="dfs")  # numba's start-up paid
        warnings.simplefilter("ignore")
        threads = [threading.Thread(target=lambda s=s: done.append(worker(s)))
                   for s in ((5, 6), (7, 8))]
        done = []
        for t in threads:
            t.start()
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        main = gedkit.ged(rg(20, .25, 3), rg(20, .25, 4), method="dfs", timeout=5,
                          on_improve=slow)
        for t in threads:
            t.join()
        print(json.dumps([main.stats.get("stopped"), done]))
    """)
    assert out.returncode == 0, out.stderr
    main, threads = json.loads(out.stdout.splitlines()[-1])
    assert main == "interrupted"
    assert all(stopped != "interrupted" and seconds > 2 for stopped, seconds in threads)


def test_ipfp_builds_no_matrices_a_memory_cap_leaves_no_room_for():
    """IPFP's dense matrices take ~88 bytes an entry; sized by the assignment's 24, a 256 MB
    cap let a 2,000-node pair grow by 330 MB. A cap they do not fit leaves the starting map,
    and says why."""
    import networkx as nx

    from gedkit.budget import Budget
    from gedkit.solvers.heuristics.ipfp import BYTES_PER_ENTRY

    g1, g2 = (gedkit.Graph.from_networkx(nx.gnm_random_graph(300, 900, seed=s))
              for s in (1, 2))
    need = BYTES_PER_ENTRY * 301 * 301
    capped = gedkit.ged(g1, g2, method="ipfp", timeout=10, memory=need // 2)
    assert capped.stats["stopped"] == "memory cap: IPFP's matrices do not fit the memory left"
    free = gedkit.ged(g1, g2, method="ipfp", timeout=10)
    assert free.stats.get("stopped") is None and free.upper_bound <= capped.upper_bound
    assert capped.lower_bound <= free.upper_bound
    budget = Budget(memory=10**9)
    assert 0 < budget.memory_left() <= 10**9


def test_auto_stages_get_the_memory_the_call_has_left(monkeypatch):
    """A stage's budget starts its own count of the process's growth: given the call's whole
    cap, stages overran it by what came before them (a 2,000-node pair under memory=256M grew
    by 311 MB). They get what is left, STAR's start sized by its own ~48 bytes an entry."""
    from gedkit.budget import Budget
    from gedkit.solvers import get_solver

    budget = Budget(timeout=5, memory=200 * 2**20)
    monkeypatch.setattr(budget_module, "resident", lambda: budget.start_resident + 150 * 2**20)
    auto = get_solver("auto")
    assert auto._memory(budget) == 50 * 2**20
    assert auto._stage(budget, 0.5).memory == 50 * 2**20
    # any step's budget (IPFP's share, gelato's, an edit-path subproblem's) alike
    assert budget.part(1.0).memory == 50 * 2**20 and Budget(timeout=5).part(1.0).memory is None
    assert get_solver("auto")._memory(Budget(timeout=5)) == auto.config["memory"]


def test_mces_steps_are_sized_against_the_memory_the_call_has_left(monkeypatch):
    """MCES's GA, exact search and LP checked their arrays against the whole cap, not what
    the call's imports and earlier steps had left of it: under memory=256M a 2,000-node
    pair grew by 328-374 MB. Each now weighs its needs (GA: the association graph and the
    decoding's dense matrices) against ``memory_left``."""
    from gedkit.budget import Budget
    from gedkit.mces.exact import state_seconds
    from gedkit.mces.ga import annealing_fits
    from gedkit.mces.problem import MCESProblem
    from gedkit.programs import program_fits

    nx = pytest.importorskip("networkx")
    g1, g2 = (gedkit.Graph.from_networkx(nx.gnm_random_graph(600, 300, seed=s))
              for s in (1, 2))
    problem = MCESProblem(g1, g2)
    fresh = Budget(timeout=1000, memory=100 * 2**20)
    assert annealing_fits(problem, fresh, 10, 30) and state_seconds(problem, False, fresh) < 1e9
    assert program_fits(10**5, fresh)
    spent = Budget(timeout=1000, memory=100 * 2**20)
    monkeypatch.setattr(budget_module, "resident", lambda: spent.start_resident + 95 * 2**20)
    assert not annealing_fits(problem, spent, 10, 30)
    assert state_seconds(problem, False, spent) == float("inf")
    assert not program_fits(10**5, spent)


def test_a_cap_below_numbas_start_up_answers_without_loading_the_kernels():
    """Numba's start-up adds ~100-150 MB to a fresh process (every method overran
    memory=100M by that much): under such a cap a solve answers the bounds that need no
    kernel, says why, and never imports numba."""
    code = textwrap.dedent("""
        import sys, gedkit
        g = gedkit.Graph({i: "CNO"[i % 3] for i in range(14)},
                         [(i, i + 1) for i in range(13)] + [(0, 7)])
        h = gedkit.Graph({i: "CNO"[i * i % 3] for i in range(14)},
                         [(i, (i + 3) % 14) for i in range(14)] + [(0, 6), (2, 9)])
        r = gedkit.ged(g, h, memory=64 * 2**20, timeout=5)
        print(r.stats.get("stopped"), r.lower_bound < r.upper_bound, "numba" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    from gedkit.budget import KERNELS_OVER_MEMORY

    assert out.stdout.strip() == f"{KERNELS_OVER_MEMORY} True False", out.stderr


def test_a_cap_below_a_pairs_set_up_is_refused_in_one_line():
    """A 2,000-node pair's cost and adjacency matrices and its cheapest bounds take ~122 MB
    before any method runs: memory=100M was overrun by a third. Refused, naming the least
    cap, in Python's words and the command line's."""
    from gedkit.budget import Budget, check_setup_fits

    with pytest.raises(gedkit.OptionError) as caught:
        check_setup_fits(2000, 2000, Budget(memory=100 * 2**20))
    assert "below what a pair of 2000 and 2000 nodes takes to set up" in str(caught.value)
    assert "give at least memory=" in str(caught.value)
    # the least that passes, and what leaves room (it said 153M, where 130M passed)
    told = caught.value.render(cli=True)
    least = int(told.split("give at least --memory ")[1].split("M")[0])
    assert 123 <= least <= 125 and "M or more leaves room for bounds" in told
    check_setup_fits(2000, 2000, Budget(memory=(least + 1) * 2**20))  # (a page's margin)
    with pytest.raises(gedkit.OptionError):
        check_setup_fits(2000, 2000, Budget(memory=(least - 2) * 2**20))
    check_setup_fits(2000, 2000, Budget())
    g = gedkit.Graph({i: "C" for i in range(400)}, [(i, i + 1) for i in range(399)])
    with pytest.raises(gedkit.OptionError, match="400 and 400 nodes"):
        gedkit.ged(g, g, memory=2**20)


def test_polishing_runs_no_kernel_the_memory_cap_leaves_no_room_for(monkeypatch):
    """gedkit.ged's polish of a large pair's map is held to the cap as a method's solve is:
    a 2,000-node pair under memory=150M, numba left unloaded by the search, loaded it to
    polish (242 MiB). Without room for numba's start, the map stays as the search left it."""
    from gedkit._kernels import warm
    from gedkit.result import Result
    from gedkit.solvers.heuristics import polish

    p = gedkit.costs.uniform().compile(gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]),
                                       gedkit.Graph({0: "O", 1: "C"}, [(0, 1)]))
    unpolished = Result.from_assignment(p, np.array([0, 1]), 0.0, "x")
    monkeypatch.setattr(warm, "started", lambda: False)
    started = []
    monkeypatch.setattr(warm, "start", lambda: started.append(1))
    assert polish.polished(unpolished, Budget(memory=1 << 20)) is unpolished and not started


def test_an_mces_cap_below_the_pairs_adjacency_is_refused_in_one_line():
    """MCES's cheapest bounds read both graphs' dense adjacency (~61 MiB at 2,000 nodes): a
    30M cap was overrun by 45 MiB, though said to answer the bounds that fit under any cap.
    Refused as GED's set-up is, naming the least."""
    from gedkit.budget import Budget, check_setup_fits

    with pytest.raises(gedkit.OptionError) as caught:
        check_setup_fits(2000, 2000, Budget(memory=30 * 2**20), mces=True)
    told = caught.value.render(cli=True)
    assert "takes to set up (~61 MiB: its adjacency matrices and cheapest bounds)" in told
    check_setup_fits(2000, 2000, Budget(memory=80 * 2**20), mces=True)
    g = gedkit.Graph({i: "C" for i in range(300)}, [(i, i + 1) for i in range(299)])
    with pytest.raises(gedkit.OptionError, match="give at least memory="):
        gedkit.mces(g, g, memory=100_000)
