"""Long pairwise jobs survive: ``out=`` / ``--out`` write every pair as it is done, and the same
job run again solves only what is missing (after Ctrl-C, or a process killed outright), giving
the matrix an uninterrupted run gives; a file holding another job is refused."""

from __future__ import annotations

import csv
import importlib
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import random_graph

import gedkit
from gedkit.budget import InterruptedWarning

EXACT = {"timeout": None, "progress": False}


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(5)
    return [random_graph(rng, int(n), name=f"g{k}") for k, n in enumerate([3, 5, 4, 6, 2, 5, 4])]


@pytest.fixture
def count_solves(monkeypatch):
    """The pairs solved by pairwise in this process (the 'one place' it runs a solve)."""
    module = importlib.import_module("gedkit.pairwise")
    real, seen = module._solve, []

    def solve(solver, problem, budget):
        seen.append((problem.g1.name, problem.g2.name))
        return real(solver, problem, budget)

    monkeypatch.setattr(module, "_solve", solve)
    return seen


def stored(path):
    with sqlite3.connect(path) as db:
        return {(i, j): (lo, up, st) for i, j, lo, up, st in
                db.execute("SELECT i, j, lower, upper, status FROM pairs")}


def assert_same(a, b):
    np.testing.assert_array_equal(a.lower_bound, b.lower_bound)
    np.testing.assert_array_equal(a.upper_bound, b.upper_bound)
    np.testing.assert_array_equal(a.status, b.status)


def test_out_writes_every_pair_and_a_rerun_solves_nothing(graphs, tmp_path, count_solves):
    out = tmp_path / "pairs.sqlite"
    first = gedkit.pairwise(graphs, out=out, node_maps=True, **EXACT)
    assert first.out == str(out) and first.resumed == 0
    rows = stored(out)
    assert set(rows) == {tuple(p) for p in first.pairs.tolist()}
    for (i, j), (lower, upper, status) in rows.items():
        assert (lower, upper, status) == (first.lower_bound[i, j], first.upper_bound[i, j],
                                          first.status[i, j])
    solved = len(count_solves)
    again = gedkit.pairwise(graphs, out=out, node_maps=True, **EXACT)
    assert len(count_solves) == solved  # nothing solved the second time
    assert again.resumed == len(first.pairs)
    assert_same(first, again)
    for key, forward in first.node_maps.items():
        np.testing.assert_array_equal(forward, again.node_maps[key])


def test_ctrl_c_then_resume_solves_only_what_is_missing(graphs, tmp_path, count_solves):
    module = importlib.import_module("gedkit.pairwise")
    real = module._solve
    out = tmp_path / "pairs.sqlite"

    def interrupt_at_ten(solver, problem, budget):
        if len(count_solves) == 10:
            raise KeyboardInterrupt
        return real(solver, problem, budget)

    module_solve = module._solve
    module._solve = interrupt_at_ten
    try:
        with pytest.warns(InterruptedWarning, match="those done are in"):
            cut = gedkit.pairwise(graphs, out=out, chunk_size=3, **EXACT)
    finally:
        module._solve = module_solve
    assert cut.interrupted
    kept = stored(out)
    assert kept and all(status == "optimal" for *_, status in kept.values())
    before = len(count_solves)
    resumed = gedkit.pairwise(graphs, out=out, **EXACT)
    assert resumed.resumed == len(kept) and not resumed.interrupted
    # what was kept is not solved again (pairs (i, i) are never solved: identity is free)
    off_diagonal = sum(1 for i, j in kept if i != j)
    assert len(count_solves) - before == 21 - off_diagonal
    assert_same(resumed, gedkit.pairwise(graphs, **EXACT))


def test_failed_pairs_are_tried_again(tmp_path):
    flag = tmp_path / "broken"
    flag.touch()

    def sub(a, b):
        if flag.exists() and 2 in (a, b):
            raise ValueError("label 2 is broken today")
        return float(a != b)

    costs = gedkit.costs.custom(node_sub=sub, symmetric=True)
    labelled = [gedkit.Graph({0: k, 1: 9}, [(0, 1)], name=f"h{k}") for k in range(4)]
    out = tmp_path / "pairs.sqlite"
    first = gedkit.pairwise(labelled, costs=costs, out=out, **EXACT)
    assert first.counts()["failed"] == 4
    flag.unlink()
    second = gedkit.pairwise(labelled, costs=costs, out=out, **EXACT)
    assert second.resumed == 6 and second.counts()["failed"] == 0
    assert_same(second, gedkit.pairwise(labelled, **EXACT))


@pytest.mark.parametrize(
    ("change", "what"),
    [
        ({"timeout": 5.0}, "not the same time limit per pair as"),
        ({"costs": "constant:node_sub=2"}, "not the same cost model as"),
        ({"method": "dfs"}, "not the same method as"),
        ({"method": "auto", "mip": False}, "not the same method options as"),
        ({"memory": 10**8}, "not the same memory limit per pair as"),
    ],
)
def test_another_job_is_refused_in_one_line(graphs, tmp_path, change, what):
    out = tmp_path / "pairs.sqlite"
    gedkit.pairwise(graphs[:3], out=out, **EXACT)
    with pytest.raises(gedkit.GedkitError, match=what) as info:
        gedkit.pairwise(graphs[:3], out=out, **{**EXACT, **change})
    assert "\n" not in str(info.value) and "give another out= path" in str(info.value)


@pytest.mark.parametrize(
    ("first", "second"),
    [("constant:node_del=1234567,node_ins=1234567", "constant:node_del=1234568,node_ins=1234568"),
     ("constant:node_sub=2.0000004", "constant:node_sub=2.0000001")],
)
def test_costs_differing_past_six_digits_are_another_job(graphs, tmp_path, first, second):
    """The cost model's repr rounds to 6 significant digits; the job's record must not."""
    out = tmp_path / "pairs.sqlite"
    gedkit.pairwise(graphs[:3], costs=first, out=out, **EXACT)
    assert gedkit.pairwise(graphs[:3], costs=first, out=out, **EXACT).resumed == 6
    with pytest.raises(gedkit.GedkitError, match="not the same cost model as"):
        gedkit.pairwise(graphs[:3], costs=second, out=out, **EXACT)


def _sub(a, b, w):
    return 0.0 if a == b else w


class _Sub:
    def __init__(self, w):
        self.w = w

    def __call__(self, a, b):
        return 0.0 if a == b else self.w


_WEIGHT = 1.0


def _sub_global(a, b):
    return 0.0 if a == b else _WEIGHT


@pytest.mark.parametrize("kind", ["partial", "instance", "global"])
def test_custom_costs_another_value_is_another_job(tmp_path, monkeypatch, kind):
    """A partial's arguments, a callable object's state, a module global a function reads:
    each is part of the cost function; resuming with another would mix results."""
    import functools

    from gedkit.costs import custom

    def costs(w):
        if kind == "partial":
            return custom(node_sub=functools.partial(_sub, w=w))
        if kind == "instance":
            return custom(node_sub=_Sub(w))
        monkeypatch.setattr(sys.modules[__name__], "_WEIGHT", w)
        return custom(node_sub=_sub_global)

    gs = [gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]), gedkit.Graph({0: "C"}),
          gedkit.Graph({0: "N", 1: "N", 2: "C"}, [(0, 1), (1, 2)])]
    out = tmp_path / "pairs.sqlite"
    gedkit.pairwise(gs, costs=costs(1.0), out=out, **EXACT)
    assert gedkit.pairwise(gs, costs=costs(1.0), out=out, **EXACT).resumed == 9
    with pytest.raises(gedkit.GedkitError, match="not the same cost model as"):
        gedkit.pairwise(gs, costs=costs(3.0), out=out, **EXACT)


def test_custom_costs_that_cannot_be_checked_are_not_resumed(tmp_path):
    """A function reading a lock (no state to compare): nothing tells whether it is the
    same."""
    import threading

    from gedkit.costs import custom

    lock = threading.Lock()
    costs = custom(node_sub=lambda a, b: 0.0 if lock.locked() or a == b else 1.0)
    out = tmp_path / "pairs.sqlite"
    gedkit.pairwise([gedkit.Graph({0: "C"}), gedkit.Graph({0: "N"})], costs=costs, out=out,
                    **EXACT)
    with pytest.raises(gedkit.GedkitError, match="cannot be checked to be the same") as info:
        gedkit.pairwise([gedkit.Graph({0: "C"}), gedkit.Graph({0: "N"})], costs=costs,
                        out=out, **EXACT)
    assert "\n" not in str(info.value)


def test_other_graphs_are_refused(graphs, tmp_path):
    out = tmp_path / "pairs.sqlite"
    gedkit.pairwise(graphs[:3], out=out, **EXACT)
    with pytest.raises(gedkit.GedkitError, match="not the same graphs as"):
        gedkit.pairwise(graphs[1:4], out=out, **EXACT)
    with pytest.raises(gedkit.GedkitError, match="not the same column graphs as"):
        gedkit.pairwise(graphs[:3], graphs[:3], out=out, **EXACT)


def test_a_file_that_is_not_a_results_file_is_refused(graphs, tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(gedkit.GedkitError, match="not a gedkit pairwise results file"):
        gedkit.pairwise(graphs[:2], out=junk, **EXACT)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE graphs (id INTEGER)")
    before = other.read_bytes()
    with pytest.raises(gedkit.GedkitError, match="holds other tables"):
        gedkit.pairwise(graphs[:2], out=other, **EXACT)
    assert other.read_bytes() == before  # not even its journal mode changed
    assert not other.with_name(other.name + "-wal").exists()


def test_two_jobs_resume_into_one_file_in_any_order(graphs, tmp_path):
    """Resuming with n_jobs=2 a file written by one process: parallelism is not the job."""
    out = tmp_path / "pairs.sqlite"
    one = gedkit.pairwise(graphs[:4], out=out, **EXACT)
    with sqlite3.connect(out) as db:
        db.execute("DELETE FROM pairs WHERE i = 1")
    two = gedkit.pairwise(graphs[:4], out=out, n_jobs=2, **EXACT)
    assert two.resumed == len(one.pairs) - 3
    assert_same(one, two)


# -- the command line, killed part way --------------------------------------------------------

# the CLI in a child process, each solve made 50 ms slower, so that it can be stopped part way
SLOW_CLI = (
    "import sys, time, gedkit.pairwise as p; real = p._solve\n"
    "def slow(*args):\n"
    "    time.sleep(0.05)\n"
    "    return real(*args)\n"
    "p._solve = slow\n"
    "from gedkit.cli import main\n"
    "sys.exit(main())\n"
)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("graphs")
    rng = np.random.default_rng(11)
    paths = []
    for k in range(10):
        path = folder / f"m{k}.json"
        gedkit.write(random_graph(rng, int(rng.integers(3, 7)), name=f"m{k}"), path)
        paths.append(str(path))
    return paths


def cli(*args, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-c", SLOW_CLI, "pairwise", *args, "--node-label", "label",
         "--edge-label", "label", "--timeout", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs,
    )


def wait_for_rows(path, at_least, proc, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists():
            try:
                if len(stored(path)) >= at_least:
                    return
            except sqlite3.Error:  # the schema is being written
                pass
        time.sleep(0.05)
    raise AssertionError(f"the child wrote fewer than {at_least} pairs: "
                         f"{proc.communicate()[1].decode()}")


@pytest.mark.skipif(sys.platform == "win32", reason="signals to a child process")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_cli_killed_part_way_resumes_to_the_same_matrix(files, tmp_path, sig):
    out = tmp_path / "pairs.sqlite"
    proc = cli(*files, "--out", str(out), "--csv", str(tmp_path / "cut.csv"))
    try:
        wait_for_rows(out, 12, proc)  # 55 pairs, committed 13 at a time
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    if sig == signal.SIGINT:
        assert proc.returncode == 130, stderr.decode()
        assert b"interrupted; the pairs done are kept" in stderr
    else:
        assert proc.returncode == -signal.SIGKILL
    kept = stored(out)
    assert 12 <= len(kept) < 55

    graphs = [gedkit.read(f, node_label="label", edge_label="label") for f in files]
    whole = gedkit.pairwise(graphs, **EXACT)
    if sig == signal.SIGINT:  # resumed from Python: the CLI's job is the same job
        resumed = gedkit.pairwise(graphs, out=out, **EXACT)
        assert resumed.resumed == len(kept) and len(stored(out)) == 55
        assert_same(resumed, whole)
        return
    proc = cli(*files, "--out", str(out), "--csv", str(tmp_path / "resumed.csv"))
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr.decode()
    assert f"resumed {len(kept)} pairs from {out}; solved {55 - len(kept)}" in stderr.decode()
    assert len(stored(out)) == 55
    with open(tmp_path / "resumed.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    names = [g.name for g in graphs]
    assert len(rows) == 55
    for row in rows:
        i, j = names.index(row["row"]), names.index(row["column"])
        assert float(row["lower_bound"]) == whole.lower_bound[i, j]
        assert float(row["upper_bound"]) == whole.upper_bound[i, j]
        assert row["optimal"] == "true" and row["status"] == whole.status[i, j]


@pytest.mark.skipif(sys.platform == "win32", reason="signals to a child process")
def test_ctrl_c_reports_done_exactly_the_pairs_written(files, tmp_path):
    """The pair whose solve Ctrl-C cuts is pending in the table (not done, not 'bounded' under
    no time limit) unless written: every pair reported done is in --out."""
    out, table = tmp_path / "pairs.sqlite", tmp_path / "cut.csv"
    proc = cli(*files, "--out", str(out), "--csv", str(table))
    try:
        wait_for_rows(out, 12, proc)
        proc.send_signal(signal.SIGINT)  # lands in a solve's 50 ms: that solve is cut
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr.decode()
    names = [Path(f).stem for f in files]
    with open(table, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    done = {(names.index(r["row"]), names.index(r["column"])): r["status"] for r in rows
            if r["status"] != "pending"}
    kept = stored(out)
    assert set(done) == set(kept)
    assert all(status == kept[pair][2] == "optimal" for pair, status in done.items())
    assert f"{len(kept)} of 55 pairs" in stderr.decode() or f"{55 - len(kept)} not done" in (
        stderr.decode())


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_of_a_parent_killed_outright_end(files, tmp_path):
    """SIGKILL leaves a pool's workers without a pipe that closes (forked, they hold copies of
    its ends): they notice their parent is gone and end, instead of waiting for ever with
    their memory (two 700 MB orphans after a killed 2-million-pair job)."""
    out = tmp_path / "pairs.sqlite"
    proc = cli(*files, "--out", str(out), "--jobs", "2")
    try:
        wait_for_rows(out, 12, proc)
        workers = _children(proc.pid)
        assert len(workers) == 2
        proc.kill()
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(Path(f"/proc/{w}").exists() for w in workers):
        time.sleep(0.1)
    left = [w for w in workers if Path(f"/proc/{w}").exists()
            and Path(f"/proc/{w}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not left, f"workers {left} outlived their killed parent"


# -- without the optional extras -------------------------------------------------------------


def test_without_dask_client_says_how_to_install(graphs, monkeypatch, capsys, files):
    from gedkit.cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(gedkit.MissingDependencyError, match=r"pip install 'gedkit\[dask\]'"):
        gedkit.pairwise(graphs, client=object())
    assert main(["pairwise", *files[:2], "--scheduler", "tcp://x:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scheduler needs the optional package 'distributed'" in err


def test_without_pyg_export_and_conversions_say_how_to_install(graphs, monkeypatch, capsys,
                                                               files):
    from gedkit.cli import main

    monkeypatch.setitem(sys.modules, "torch_geometric", None)
    with pytest.raises(gedkit.MissingDependencyError, match=r"pip install 'gedkit\[pyg\]'"):
        graphs[0].to_pyg()
    with pytest.raises(gedkit.MissingDependencyError, match=r"Graph\.from_pyg needs"):
        gedkit.Graph.from_pyg(object())
    assert main(["pairwise", *files[:2], "--export", "pyg", "out"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gedkit[pyg]" in err


def test_an_out_file_that_cannot_be_written_is_refused_before_any_solve(graphs, tmp_path,
                                                                         monkeypatch,
                                                                         count_solves):
    """A results file SQLite can only read (opened read-only here: as root, permissions do
    not stop a write) is refused at open, in one line, not after a chunk is solved."""
    from gedkit import pairwise_store

    out = tmp_path / "pairs.sqlite"
    gedkit.pairwise(graphs[:3], out=out, **EXACT)
    with sqlite3.connect(out) as db:
        db.execute("DELETE FROM pairs WHERE i = 1")
    real = sqlite3.connect

    def read_only(path, **kwargs):
        return real(f"file:{path}?mode=ro", uri=True, **kwargs)

    monkeypatch.setattr(pairwise_store.sqlite3, "connect", read_only)
    solved = len(count_solves)
    with pytest.raises(gedkit.GedkitError, match="cannot write") as info:
        gedkit.pairwise(graphs[:3], out=out, **EXACT)
    assert "\n" not in str(info.value) and "not a gedkit pairwise results file" not in str(
        info.value)
    assert len(count_solves) == solved


# two molecules whose exact search the memory cap stops well within its time limit
CAPPED = ["CCOC(=O)c1ccc(N)cc1CCCCOC1CCCC(C)C1", "O=C(O)c1ccccc1OC1CCC(CC)C(OC)C1N"]
CAPPED_JOB = {"method": "exact", "timeout": 3, "memory": 100_000, "progress": False}


def test_why_a_pair_stopped_unproven_is_kept_on_resume(tmp_path):
    out = tmp_path / "pairs.sqlite"
    first = gedkit.pairwise(CAPPED, out=out, **CAPPED_JOB)
    assert first.counts()["bounded"] == 1 and first.stopped  # the memory cap, not the time
    again = gedkit.pairwise(CAPPED, out=out, **CAPPED_JOB)
    assert again.resumed == len(first.pairs)
    assert again.stopped == first.stopped and again.summary() == first.summary()


def test_a_file_without_the_stopped_column_resumes(tmp_path):
    """A file written before pairs recorded why they stopped: resumed, the column added."""
    out = tmp_path / "pairs.sqlite"
    graphs = [gedkit.Graph({0: "C"}), gedkit.Graph({0: "N"}), gedkit.Graph({0: "O"})]
    first = gedkit.pairwise(graphs, out=out, **EXACT)
    with sqlite3.connect(out) as db:
        db.execute("ALTER TABLE pairs DROP COLUMN stopped")
        db.execute("DELETE FROM pairs WHERE i = 2")
    again = gedkit.pairwise(graphs, out=out, **EXACT)
    assert again.resumed == len(first.pairs) - 1
    assert_same(first, again)
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT COUNT(*) FROM pairs WHERE stopped IS NULL").fetchone() == (6,)


def test_pairs_stopped_while_the_kernels_compiled_are_solved_again_on_resume(tmp_path):
    """A job run right after installing keeps cheap bounds where the kernels were not
    compiled yet; resumed once they are, those pairs are solved again (they were kept for
    good: the same 64% gap after every resume), the others are not."""
    from gedkit.budget import KERNELS_NOT_READY

    out = tmp_path / "pairs.sqlite"
    graphs = ["CCO", "CCN", "c1ccccc1O", "CC(=O)O"]
    first = gedkit.pairwise(graphs, out=out, **EXACT)
    with sqlite3.connect(out) as db:  # what such a job wrote for pair (1, 2)
        db.execute("UPDATE pairs SET status = 'bounded', optimal = 0, lower = 0, upper = 99, "
                   "stopped = ? WHERE i = 1 AND j = 2", (KERNELS_NOT_READY,))
    again = gedkit.pairwise(graphs, out=out, **EXACT)
    assert again.resumed == len(first.pairs) - 1
    assert_same(first, again)
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT status, stopped FROM pairs WHERE i = 1 AND j = 2"
                          ).fetchone() == ("optimal", None)


@pytest.mark.parametrize("out", ["", 123, True, b"x", ["x"]])
def test_out_that_is_not_a_path_is_an_option_error(out):
    with pytest.raises(gedkit.OptionError, match="out must be a file path") as info:
        gedkit.pairwise([gedkit.Graph({0: "C"})], out=out, **EXACT)
    assert repr(out) in str(info.value)


def test_the_diagonal_is_done_however_early_ctrl_c_comes(graphs, tmp_path, monkeypatch):
    """Entries (i, i) are 0 without a solve: Ctrl-C at the first solve leaves none pending,
    and the out file holds them."""
    module = importlib.import_module("gedkit.pairwise")

    def interrupt(solver, problem, budget):
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "_solve", interrupt)
    out = tmp_path / "pairs.sqlite"
    with pytest.warns(InterruptedWarning):
        cut = gedkit.pairwise(graphs, out=out, **EXACT)
    n = len(graphs)
    assert (cut.status.diagonal() == "optimal").all() and (cut.distance.diagonal() == 0).all()
    assert cut.counts()["pending"] == len(cut.pairs) - n
    assert {(i, i) for i in range(n)} <= set(stored(out))


def test_with_no_time_limit_the_table_does_not_suggest_more_time(capsys):
    from gedkit.cli._pairwise import _table

    result = gedkit.pairwise(CAPPED, **{**CAPPED_JOB, "timeout": None})
    assert result.counts()["bounded"] == 1
    table = _table(result, ["a", "b"], ["a", "b"])
    assert "--timeout S" not in table and "--memory M proves more" in table


def test_a_heuristic_that_ended_is_not_told_more_time(capsys, tmp_path):
    """A heuristic's unproven pairs ended long before the limit: the table said "--timeout S
    ... proves more" (gelato, 0.2 s of 5) and the summary nothing of why."""
    from gedkit.cli._pairwise import _table

    graphs = [gedkit.from_smiles(s) for s in ("CCOc1ccccc1N", "CCNc1ccccc1O",
                                               "c1ccccc1CCCCCN")]
    result = gedkit.pairwise(graphs, method="bipartite", timeout=5, progress=False)
    assert result.counts()["bounded"] > 0
    assert result.stopped == {"the method 'bipartite' is a heuristic: it ended before the time "
                              "limit, with a gap more time does not close":
                              result.counts()["bounded"]}
    table = _table(result, ["a", "b", "c"], ["a", "b", "c"])
    assert "--timeout S" not in table and "--memory" not in table and "is a heuristic" in table


def test_a_heuristic_the_limit_cut_short_is_told_more_time(monkeypatch):
    """A stage the time limit left out (gelato's network, the torch import not paid) is the
    time limit's doing, not a heuristic's own end: the table says more time proves more (it
    said "a gap more time does not close", and more time closed it)."""
    from gedkit.cli._pairwise import _table
    from gedkit.solvers.heuristics.lsape import Bipartite

    real = Bipartite.solve

    def cut_short(self, problem, budget):
        result = real(self, problem, budget)
        result.stats["cut"] = ["network not run: torch import ~1.8 s"]
        return result

    monkeypatch.setattr(Bipartite, "solve", cut_short)
    graphs = [gedkit.from_smiles(s) for s in ("CCOc1ccccc1N", "CCNc1ccccc1O",
                                               "c1ccccc1CCCCCN")]
    result = gedkit.pairwise(graphs, method="bipartite", timeout=5, progress=False)
    assert result.counts()["bounded"] > 0 and not result.stopped
    assert "--timeout S" in _table(result, ["a", "b", "c"], ["a", "b", "c"])


def test_no_worker_is_forked_while_another_thread_writes_a_results_file(tmp_path):
    """A results file's SQLite calls count as a collection's do: while one thread commits
    its pairs, another thread's pairwise or search forks no worker (it would copy SQLite's
    locks held)."""
    import threading

    from gedkit.pairwise_store import PairStore
    from gedkit.workers import fork_is_safe

    writing, release = threading.Event(), threading.Event()

    class Slow:  # the connection, its write held until released
        def __init__(self, db):
            self.db = db

        def __enter__(self):
            return self.db.__enter__()

        def __exit__(self, *exc):
            return self.db.__exit__(*exc)

        def execute(self, *args):
            return self.db.execute(*args)

        def executemany(self, *args):
            writing.set()
            release.wait(30)
            return self.db.executemany(*args)

        def close(self):
            self.db.close()

    def write():  # (SQLite's connection belongs to the thread that opened it)
        store = PairStore(tmp_path / "pairs.sqlite", {"job": 1})
        store.db = Slow(store.db)
        store.add(0, 1, 1.0, 1.0, 0.01, "optimal", None, None, "exact")
        store.close()

    committing = threading.Thread(target=write)
    committing.start()
    try:
        assert writing.wait(30)
        assert not fork_is_safe()
    finally:
        release.set()
        committing.join()
    assert fork_is_safe()
    assert [row[:2] for row in PairStore(tmp_path / "pairs.sqlite", {"job": 1}).done()] == [
        (0, 1)]


def test_progress_lines_of_a_resumed_job_say_what_was_resumed():
    """A resumed job's lines say the pairs done before from the start ("5096/18083 pairs
    done" said nothing of the 2,017 resumed until the job's end)."""
    from gedkit.pairwise import _Progress

    shown = _Progress(False, 18_083, 1.0, [], [], resumed=2_017)
    assert shown._line(shown.start).startswith(
        "pairwise: 0/18,083 pairs done (2,017 more resumed from the --out file), 0 s")
