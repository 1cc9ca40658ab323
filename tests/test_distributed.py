"""gedkit.pairwise on a real Dask cluster (a LocalCluster of 2 worker processes, no mocks): the
matrix equals the local one, a worker killed in the middle of a job still yields the whole,
identical matrix, and the results file written from the cluster resumes like a local one."""

from __future__ import annotations

import importlib
import logging
import os
import pickle
import re
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import random_graph

import gedkit
from gedkit.errors import ClusterError

distributed = pytest.importorskip(
    "distributed", reason="Dask distributed is not installed (pip install 'gedkit[dask]')"
)

EXACT = {"timeout": None, "progress": False, "node_maps": True}


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        silence_logs=logging.CRITICAL,
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture()
def killable():
    """A cluster of its own for a test that kills a worker: the nanny's fresh worker did not
    always come back (over 180 s on a loaded machine), and the tests after it, which need
    both, failed on the shared one."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        silence_logs=logging.CRITICAL,
    )
    client = distributed.Client(cluster)
    client.wait_for_workers(2, timeout=120)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(17)
    return [random_graph(rng, int(n), node_values="CNO", edge_values=(1, 2), name=f"g{k}")
            for k, n in enumerate(rng.integers(3, 8, size=9))]


def assert_same(a, b):
    np.testing.assert_array_equal(a.lower_bound, b.lower_bound)
    np.testing.assert_array_equal(a.upper_bound, b.upper_bound)
    np.testing.assert_array_equal(a.status, b.status)
    np.testing.assert_array_equal(a.pairs, b.pairs)
    assert a.errors == b.errors and a.method == b.method
    if a.node_maps is not None:
        assert a.node_maps.keys() == b.node_maps.keys()
        for key, forward in a.node_maps.items():
            np.testing.assert_array_equal(forward, b.node_maps[key])


def test_distributed_equals_local(client, graphs):
    local = gedkit.pairwise(graphs, **EXACT)
    remote = gedkit.pairwise(graphs, client=client, chunk_size=4, **EXACT)
    assert_same(local, remote)
    assert remote.optimal.all() and not remote.interrupted


def test_dask_tasks_are_cut_to_the_pairs_pace(client, graphs, monkeypatch):
    """Without ``chunk_size`` a Dask job's tasks are cut as they are sent, each about
    ``_DASK_TASK_SECONDS`` of work at the pace of the pairs done so far (256 pairs of a
    second each made one task of minutes: no progress, all of it lost to Ctrl-C); the
    matrix is the local one."""
    module = importlib.import_module("gedkit.pairwise")  # (gedkit.pairwise: the function)
    sizes = []
    paced = module._PacedChunks

    class Recorded(paced):
        def __iter__(self):
            for chunk in super().__iter__():
                sizes.append(len(chunk))
                yield chunk

    monkeypatch.setattr(module, "_PacedChunks", Recorded)
    monkeypatch.setattr(module, "_FIRST_DASK_CHUNK", 2)
    monkeypatch.setattr(module, "_DASK_TASK_SECONDS", 1e-9)  # every pair slower than that
    local = gedkit.pairwise(graphs, **EXACT)
    remote = gedkit.pairwise(graphs, client=client, **EXACT)
    assert_same(local, remote)
    assert sizes[:2] == [2, 2] and set(sizes[8:]) == {1}, sizes  # (8 tasks sent at first)
    monkeypatch.setattr(module, "_DASK_TASK_SECONDS", 2.0)
    pace = paced([(0, k) for k in range(1000)], parallel=2)
    pace.learn([module._Entry(0.0, 0.0, 0.5, "optimal")] * 4)  # 0.5 s a pair: 4 a task
    assert len(next(iter(pace))) == 4
    pace.learn([module._Entry(0.0, 0.0, 1e-6, "optimal")] * 1000)  # fast: at most 256
    assert len(next(iter(pace))) == module._MAX_DASK_CHUNK


def test_rectangular_with_callable_costs(client, graphs):
    costs = gedkit.costs.custom(node_sub=lambda a, b: 0.0 if a == b else 1.5, node_del=0.75,
                                node_ins=lambda b: 1.25)  # lambdas: cloudpickled to workers
    local = gedkit.pairwise(graphs[:4], graphs[4:], costs=costs, method="dfs", **EXACT)
    remote = gedkit.pairwise(graphs[:4], graphs[4:], costs=costs, method="dfs", client=client,
                             **EXACT)
    assert_same(local, remote)


def test_a_worker_killed_mid_job_still_gives_the_whole_matrix(killable, graphs, tmp_path):
    client = killable
    marker = str(tmp_path / "killed")
    target = f"{graphs[-1].name}"

    def node_sub(a, b):  # uniform costs; the first worker to price the last graph dies
        return float(a != b)

    def node_ins(b):
        return 1.0

    class Killing(gedkit.costs.CallableCosts):
        def compile(self, g1, g2):
            if target in (g1.name, g2.name) and not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(1)
            return super().compile(g1, g2)

    costs = Killing(symmetric=True, node_sub=node_sub, node_ins=node_ins)
    out = tmp_path / "pairs.sqlite"
    remote = gedkit.pairwise(graphs, costs=costs, client=client, chunk_size=3, out=out, **EXACT)
    assert os.path.exists(marker)  # a worker did die
    local = gedkit.pairwise(graphs, costs=costs, **EXACT)  # the marker is there: no kill here
    assert_same(local, remote)
    assert (remote.status == "optimal").all()
    with sqlite3.connect(out) as db:  # every pair is in the file, none lost with the worker
        assert db.execute("SELECT COUNT(*) FROM pairs").fetchone()[0] == len(remote.pairs)


def _die_once_where_shared_is(shared, marker, k):
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)  # this worker held the only copy of the shared data
    return shared + k


def test_shared_data_lost_with_its_only_worker_is_sent_again(killable, tmp_path,
                                                            monkeypatch):
    client = killable
    # a worker that joins after the broadcast has no copy; when the one that has dies, the
    # tasks' shared data is gone and run_tasks must send it again, not fail the tasks
    from gedkit.cluster import run_tasks

    first = sorted(client.scheduler_info()["workers"])[0]
    scatter, calls = client.scatter, []

    def first_to_one_worker(data, **kw):  # later calls broadcast as run_tasks asks
        calls.append(1)
        return scatter(data, **({**kw, "broadcast": False, "workers": [first]}
                                if len(calls) == 1 else kw))

    monkeypatch.setattr(client, "scatter", first_to_one_worker)
    marker = str(tmp_path / "died")
    results: dict[int, tuple] = {}
    run_tasks(client, _die_once_where_shared_is, 100,
              iter([(k, (marker, k)) for k in range(4)]),
              lambda key, value, error: results.__setitem__(key, (value, error)), window=4)
    assert os.path.exists(marker)
    assert results == {k: (100 + k, None) for k in range(4)} and len(calls) == 2


def test_shared_data_reaches_a_worker_as_bytes_unpickled_once_by_its_tasks():
    # Dask unpickling the shared job as it arrived held a search's first tasks back ~12 ms;
    # the tasks unpickle it themselves, once per broadcast a worker holds
    from gedkit.cluster import _call, _OnePickle

    packed = _OnePickle({"graphs": [1, 2, 3]})
    arrived = pickle.loads(pickle.dumps(packed))
    assert not isinstance(arrived, _OnePickle) and arrived.blob == packed.blob
    first = _call("job", lambda shared, k: (shared, k), arrived, 7)
    again = _call("job", lambda shared: shared, arrived)  # the job's next task on that worker
    assert first == ({"graphs": [1, 2, 3]}, 7) and again is first[0]
    assert _call("job", lambda shared: shared, packed) is packed.value  # here: not pickled


def test_a_results_file_from_the_cluster_resumes_locally(client, graphs, tmp_path):
    out = tmp_path / "pairs.sqlite"
    first = gedkit.pairwise(graphs[:5], client=client, out=out, **EXACT)
    again = gedkit.pairwise(graphs[:5], out=out, **EXACT)
    assert again.resumed == len(first.pairs)
    assert_same(first, again)


def test_client_and_n_jobs_are_one_or_the_other(client, graphs):
    with pytest.raises(gedkit.OptionError, match="not both"):
        gedkit.pairwise(graphs, client=client, n_jobs=2)
    with pytest.raises(gedkit.OptionError, match=r"must be a dask\.distributed\.Client"):
        gedkit.pairwise(graphs, client="tcp://127.0.0.1:8786")


def test_cli_scheduler(client, graphs, tmp_path, capsys, monkeypatch):
    import json

    import gedkit.cluster
    from gedkit.cli import main

    monkeypatch.setattr(gedkit.cluster, "CONNECT_TIMEOUT", 2)
    files = []
    for g in graphs[:4]:
        files.append(str(tmp_path / f"{g.name}.json"))
        gedkit.write(g, files[-1])
    address = client.scheduler.address
    assert main(["pairwise", *files, "--node-label", "label", "--edge-label", "label",
                 "--timeout", "none", "--scheduler", address, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    local = gedkit.pairwise(graphs[:4], **EXACT)
    np.testing.assert_array_equal(got["upper_bound"], local.upper_bound)
    assert main(["pairwise", *files, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_a_scheduler_address_nothing_listens_at_is_told_at_once(monkeypatch):
    """Connection refused: the one-line error before any Dask client is made (Dask's client
    retries until the connect timeout, 30 s)."""
    import socket

    from gedkit.cluster import connect

    def no_client(*args, **kwargs):
        raise AssertionError("a Dask client was tried")

    monkeypatch.setattr(distributed, "Client", no_client)
    with socket.socket() as s:  # a free port, then nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(gedkit.GedkitError, match="nothing listens there"):
        connect(f"tcp://127.0.0.1:{port}")
    # no address at all (a port out of range waited 30 s for Dask to give up)
    for address, why in (("tcp://127.0.0.1:99999", "Port out of range"),
                         ("tcp://[::1", "Invalid IPv6 URL")):
        with pytest.raises(gedkit.GedkitError, match=rf"not an address \({why}"):
            connect(address)


def test_a_tls_address_without_tls_settings_says_what_is_missing():
    """A tls:// scheduler without Dask's TLS settings: the one line names them (it said that
    what answers there does not speak Dask's protocol)."""
    import gedkit.cluster as cluster

    with pytest.raises(gedkit.GedkitError, match=r"^cannot reach the Dask scheduler at "
                       r"tls://127\.0\.0\.1:1: a tls:// address needs Dask's TLS settings"):
        cluster.connect("tls://127.0.0.1:1")


def test_an_address_that_does_not_answer_as_dask_is_told_in_one_line(tmp_path):
    """A server that sends its own greeting (ssh: Dask's reader then tried to allocate
    exabytes, a traceback) and one that accepts and never answers (Dask's handshake waited 5
    minutes, not its 30 s): one line each, within the connect timeout and a little more.
    In a process of its own: the unanswered client's thread is left behind."""
    script = textwrap.dedent("""
        import socket, threading, time
        import gedkit.cluster as cluster
        cluster.CONNECT_TIMEOUT, cluster._CONNECT_GRACE = 2, 1

        def serve(greeting):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(5)
            held = []
            def loop():
                while True:
                    c, _ = s.accept()
                    held.append(c)
                    if greeting:
                        c.sendall(b"SSH-2.0-OpenSSH_8.9p1 Ubuntu-3\\r\\n")
            threading.Thread(target=loop, daemon=True).start()
            return s.getsockname()[1]

        for greeting in (True, False):
            port = serve(greeting)
            t = time.monotonic()
            try:
                cluster.connect(f"tcp://127.0.0.1:{port}")
            except cluster.GedkitError as err:
                print(round(time.monotonic() - t), str(err).count("\\n"), err, flush=True)
        import os
        os._exit(0)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    lines = out.stdout.splitlines()
    assert len(lines) == 2, out.stderr
    # (seconds, then newlines in the message: none; the seconds loose, a loaded machine
    # took 2 s where a quiet one takes under 1)
    assert "does not speak Dask's protocol" in lines[0] and lines[0].split()[1] == "0"
    assert int(lines[0].split()[0]) <= 10
    assert "nothing answered as a Dask scheduler within 3 s" in lines[1]
    assert int(lines[1].split()[0]) <= 10


def test_a_scheduler_lost_during_the_job_is_said_so(monkeypatch):
    # Dask says "timed out trying to connect" 30 s after its scheduler was killed mid-job:
    # the command line says it was lost during the job, and closes the client
    import gedkit.cluster as cluster

    closed = []

    class Gone:
        def close(self):
            closed.append(True)
            raise OSError("stream closed")  # a client whose scheduler is gone

    monkeypatch.setattr(cluster, "connect", lambda address: Gone())
    lost = r"^lost the Dask scheduler at tcp://x:1 during the job \(Timed out trying"
    with pytest.raises(ClusterError, match=lost), cluster.on_scheduler("tcp://x:1"):
        raise TimeoutError("Timed out trying to connect to tcp://x:1 after 30 s")
    assert closed
    # on the command line: exit status 1 (the cluster failed), not 2 (bad input)
    import importlib

    from gedkit.cli import main

    module = importlib.import_module("gedkit.pairwise")
    real = module.pairwise

    def lost_job(rows, *args, **kwargs):
        if not rows:  # the options' check before any file is read
            return real(rows, *args, **kwargs)
        raise TimeoutError("Timed out trying to connect to tcp://x:1 after 30 s")

    monkeypatch.setattr(module, "pairwise", lost_job)
    assert main(["pairwise", "smiles:CCO", "smiles:CCN", "--scheduler", "tcp://x:1"]) == 1
    assert len(closed) == 2


@pytest.mark.parametrize("status, failure, said, cli", [
    # the scheduler lost (Dask gives up reconnecting after 30 s)
    ("connecting", "Timed out trying to connect to tcp://x:1 after 30 s",
     "lost the Dask scheduler during the job",
     "lost the Dask scheduler at tcp://x:1 during the job:"),
    # every worker gone, the scheduler alive ("No valid workers found" after 30 s): it said
    # the scheduler was lost and wrote no CSV
    ("running", "No valid workers found", "no Dask worker left on the scheduler",
     "no Dask worker left on the scheduler at tcp://x:1"),
])
def test_a_cluster_lost_mid_job_keeps_the_pairs_done(graphs, tmp_path, monkeypatch, capsys,
                                                     status, failure, said, cli):
    """The scheduler, or every worker, lost during a pairwise job: the error carries the
    pairs done (the others pending) and says which was lost, and the command line writes
    them before it says so (its CSV was not written at all: 281 pairs lost)."""
    import importlib

    import gedkit.cluster as cluster
    from gedkit.cli import main

    module = importlib.import_module("gedkit.pairwise")

    class Client:  # a client whose scheduler went away, or has no worker left
        def close(self):
            pass

    Client.status = status
    truth = gedkit.pairwise(graphs, **EXACT)
    real_run = module._run

    def half_then_lost(worker, todo, jobs, client, *rest):
        if client is None:  # (the command line's check of its options, no pair)
            return real_run(worker, todo, jobs, client, *rest)
        real_run(worker, todo[:len(todo) // 2], 1, None, *rest)
        raise TimeoutError(failure)

    monkeypatch.setattr(cluster, "as_client", lambda client, what=None: client)
    monkeypatch.setattr(cluster, "connect", lambda address: Client())
    monkeypatch.setattr(module, "_run", half_then_lost)
    with pytest.raises(ClusterError, match=said) as caught:
        gedkit.pairwise(graphs, client=Client(), **EXACT)
    m = caught.value.result
    done = m.status != "pending"
    assert 0 < done.sum() < done.size and (m.status[done] == "optimal").all()
    np.testing.assert_allclose(m.distance[done], truth.distance[done])
    assert np.isinf(m.upper_bound[~done]).all()
    # the command line: the CSV written with the pairs done, then the error (status 1)
    files = [str(tmp_path / f"g{k}.json") for k in range(4)]
    for g, path in zip(graphs, files, strict=False):
        gedkit.write(g, path)
    out_csv = tmp_path / "lost.csv"
    capsys.readouterr()
    assert main(["pairwise", *files, "--node-label", "label", "--edge-label", "label",
                 "--scheduler", "tcp://x:1", "--csv", str(out_csv)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"wrote {out_csv} (")
    assert err.startswith(f"gedkit: error: {cli}")
    assert f"written to {out_csv}; --out FILE keeps the pairs done" in err
    assert "pending" in out_csv.read_text()


# -- collection searches on the cluster ------------------------------------------------------
SEARCH = {"timeout": None, "progress": False}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """The NCI molecules shipped with RDKit of at most 12 atoms among the first 600 (small:
    exact verification without a time limit stays quick), and 4 of them as queries."""
    rdconfig = pytest.importorskip("rdkit.RDConfig")
    from rdkit import Chem

    with open(os.path.join(rdconfig.RDDataDir, "NCI", "first_5K.smi")) as f:
        smiles = [line.split()[0] for _, line in zip(range(600), f, strict=False)]
    smiles = [s for s in smiles if (m := Chem.MolFromSmiles(s)) is not None
              and m.GetNumAtoms() <= 12]
    path = tmp_path_factory.mktemp("library") / "nci.gdb"
    with gedkit.Collection.create(path) as coll:
        coll.add(smiles, errors="skip", progress=False)
    coll = gedkit.Collection.open(path)
    yield coll, [smiles[i] for i in (0, 7, 42, 99)]
    coll.close()


def answers(results):
    return [([h.to_dict() for h in r.hits], [h.to_dict() for h in r.undecided], r.certified,
             r.uncertain) for r in results]


def test_a_collection_file_replaced_since_it_was_opened_is_not_searched_unseen(client,
                                                                              tmp_path):
    """A collection file built again (--overwrite: a new file at the path) under an open
    Collection: that object still reads the file it opened, the workers would open the new
    one and answer for another collection, so the search says so in one line; opened again,
    the cluster answers as here."""
    rng = np.random.default_rng(8)
    path = tmp_path / "lib.gdb"
    with gedkit.Collection.create(path) as coll:
        coll.add([random_graph(rng, 5, n_labels=2, e_labels=1) for _ in range(30)])
    opened = gedkit.Collection.open(path)
    queries = [random_graph(rng, 5, n_labels=2, e_labels=1) for _ in range(3)]
    with gedkit.Collection.create(path, overwrite=True) as coll:
        coll.add(queries)
    with pytest.raises(gedkit.errors.GedkitError, match=r"lib\.gdb was replaced or removed"):
        opened.range(queries=queries, tau=1, client=client, **SEARCH)
    again = gedkit.Collection.open(path)
    remote = again.range(queries=queries, tau=1, client=client, **SEARCH)
    assert [[h.id for h in r.hits] for r in remote] == [
        [h.id for h in r.hits] for r in again.range(queries=queries, tau=1, **SEARCH)]
    assert all(r.hits for r in remote)


def test_the_workers_open_the_collection_at_the_path_as_given(client, tmp_path,
                                                             monkeypatch):
    """The workers open the path the caller gave (a relative one made absolute), not the
    path with its symlinks resolved here: a shared disk mounted at /data on the workers and
    reached here through a symlink /data -> /local/data was searched at /local/data, which
    the workers did not have."""
    from gedkit.search.distributed import source_of

    rng = np.random.default_rng(9)
    (tmp_path / "real").mkdir()
    with gedkit.Collection.create(tmp_path / "real" / "lib.gdb") as coll:
        coll.add([random_graph(rng, 5, n_labels=2, e_labels=1) for _ in range(20)])
    (tmp_path / "link").symlink_to(tmp_path / "real")
    linked = gedkit.Collection.open(tmp_path / "link" / "lib.gdb")
    assert source_of(linked).path == str(tmp_path / "link" / "lib.gdb")
    monkeypatch.chdir(tmp_path / "link")  # (as `cd link` does: $PWD is the link)
    monkeypatch.setenv("PWD", str(tmp_path / "link"))
    relative = gedkit.Collection.open("lib.gdb")
    assert source_of(relative).path == str(tmp_path / "link" / "lib.gdb")
    monkeypatch.setenv("PWD", "/")  # not the working folder: the resolved one
    assert source_of(relative).path == os.path.join(os.getcwd(), "lib.gdb")
    queries = [random_graph(rng, 5, n_labels=2, e_labels=1) for _ in range(3)]
    for coll in (linked, relative):
        remote = coll.range(queries=queries, tau=2, client=client, **SEARCH)
        assert [[h.id for h in r.hits] for r in remote] == [
            [h.id for h in r.hits] for r in coll.range(queries=queries, tau=2, **SEARCH)]


def test_a_scheduler_killed_mid_search_is_one_line_on_the_command_line(tmp_path):
    """A real scheduler killed in the middle of `gedkit search --scheduler`: exit status 1
    and gedkit's one line only (Dask's client logged its failed reconnection and, as it
    closed, two tracebacks of its cancelled coroutines)."""
    import time

    from helpers import REPO

    from gedkit.cluster_direct import running_calls

    rng = np.random.default_rng(5)
    coll = gedkit.Collection()
    coll.add([random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(200)])
    path = coll.split(1, tmp_path)[0]
    file = str(tmp_path / "scheduler.json")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                  "--port", "0", "--no-dashboard", "--scheduler-file", file],
                                 **quiet)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                               "--scheduler-file", file, "--nthreads", "1", "--no-dashboard",
                               "--no-nanny", "--death-timeout", "5"], **quiet)
    try:
        script = ("import sys, gedkit.cluster as c; c.CONNECT_TIMEOUT = 3\n"
                  "from gedkit.cli import main; sys.exit(main(sys.argv[1:]))")
        with distributed.Client(scheduler_file=file, timeout=60) as probe:
            probe.wait_for_workers(1, timeout=60)
            address = probe.scheduler.address
            cli = subprocess.Popen([sys.executable, "-c", script, "search", str(path),
                                    str(path), "--nearest", "150", "--method", "dfs",
                                    "--timeout", "none", "--json", "--scheduler", address],
                                   cwd=str(REPO), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
            # killed once the search runs on the worker (a fixed 4 s was, on a busy
            # machine, before the command had connected: another error)
            until = time.monotonic() + 90
            while (not sum(probe.run(running_calls).values()) and cli.poll() is None
                   and time.monotonic() < until):
                time.sleep(0.1)
        time.sleep(0.5)
        scheduler.kill()
        err = cli.communicate(timeout=120)[1]
    finally:
        for process in (scheduler, worker):
            process.kill()
            process.wait()
    assert cli.returncode == 1, err
    lines = [line for line in err.splitlines() if not line.startswith("gedkit: note")]
    assert lines == [line for line in lines if line.startswith("gedkit: error: lost the Dask")]
    assert len(lines) == 1, err


@pytest.mark.parametrize(("search", "value"), [
    ("range", 3), ("knn", 1), ("knn", 7), ("mces_range", 0.6), ("mces_knn", 4)])
def test_collection_search_equals_local(client, library, search, value):
    coll, queries = library
    run = getattr(coll, search)
    if search.startswith("mces"):
        queries = queries[:2]  # MCES verification is the slow part
    local = run(queries=queries, **{_PARAMETER[search]: value}, **SEARCH)
    remote = run(queries=queries, **{_PARAMETER[search]: value}, client=client, shards=4,
                 **SEARCH)
    assert answers(remote) == answers(local)
    assert all(r.certified for r in remote) and remote[0].stats["screened"] == len(coll)
    assert [r.measure for r in remote] == [r.measure for r in local] and local[0].measure
    assert sum(len(r.hits) for r in remote) > 0


_PARAMETER = {"range": "tau", "knn": "k", "mces_range": "min_similarity", "mces_knn": "k"}


def test_range_tasks_sized_by_the_pace_answer_as_here(client, library, monkeypatch):
    """A range search's first tasks hold a query each (a pair cap of 1), the next ones as
    many as the pace so far allows, each shard's cursor on its own: the answers are a search
    of the whole collection's."""
    from gedkit.search import distributed as search_on_dask
    from gedkit.search import parallel

    coll, queries = library
    queries = queries * 3
    local = coll.range(queries=queries, tau=3, **SEARCH)
    sizes = []
    size = search_on_dask._Pace.size
    monkeypatch.setattr(parallel, "PAIRS_PER_TASK", 1)
    monkeypatch.setattr(search_on_dask, "TASK_SECONDS", 1e6)  # then the rest at once
    monkeypatch.setattr(search_on_dask._Pace, "size",
                        lambda self: sizes.append(size(self)) or sizes[-1])
    remote = coll.range(queries=queries, tau=3, client=client, shards=3, **SEARCH)
    assert answers(remote) == answers(local)
    assert sizes[0] == 1 and max(sizes) > 1 and len(sizes) < 3 * len(queries)


def test_the_client_does_not_read_the_signatures(client, library):
    """The workers read the collection's signatures; the client only counts its graphs
    (reading them cost 1.25 s and ~300 MB for 1.58 M molecules)."""
    coll, queries = library
    fresh = gedkit.Collection.open(coll.path)
    found = fresh.range(queries=queries, tau=2, client=client, **SEARCH)
    assert fresh._sig is None
    assert answers(found) == answers(coll.range(queries=queries, tau=2, **SEARCH))


def test_the_pace_of_range_tasks():
    from types import SimpleNamespace

    from gedkit.search.distributed import TASK_SECONDS, _Pace
    from gedkit.search.parallel import QUERIES_PER_TASK

    pace = _Pace(13)
    assert pace.size() == 13  # nothing learnt yet
    took = [(SimpleNamespace(stats={"seconds": {"filter": 0.01, "verify": 0.03}}), None)] * 5
    pace.learn(took)
    assert pace.size() == min(QUERIES_PER_TASK, round(TASK_SECONDS / 0.04))
    pace.learn([(SimpleNamespace(stats={"seconds": {"verify": 100.0}}), None)])
    assert pace.size() == 1


def test_knn_ties_resolved_as_here(client, graphs):
    """Many graphs at the k-th distance: the shards (and the bounds they pass on) pick the
    same ones as one search of the whole collection."""
    coll = gedkit.Collection()
    coll.add(graphs * 4, progress=False)  # every distance four times over, in-memory
    for k in (1, 2, 5, 9):
        local = coll.knn(graphs[0], k, **SEARCH)
        remote = coll.knn(graphs[0], k, client=client, shards=5, **SEARCH)
        assert answers([remote]) == answers([local])


@pytest.mark.parametrize("search", ["knn", "mces_knn"])
def test_a_query_time_limit_holds_on_the_cluster(client, search):
    """``query_timeout`` reaches the shards: out of time, each query's answer is what its
    shards found, timed out (certified only when that proves it); with time to spare, the
    answer as here."""
    rng = np.random.default_rng(5)
    coll = gedkit.Collection()
    coll.add([random_graph(rng, int(rng.integers(4, 9))) for _ in range(40)], progress=False)
    queries = [random_graph(rng, 9) for _ in range(2)]  # far from every graph
    run = getattr(coll, search)
    late = run(queries=queries, k=3, client=client, shards=2, query_timeout=1e-9, **SEARCH)
    whole = run(queries=queries, k=3, **SEARCH)
    assert all(r.timed_out and not r.interrupted for r in late)
    # certified only where what the shards found proves the k nearest distances already (a
    # graph not reached may tie the k-th: the full search may pick it instead)
    assert all([h.distance for h in r.hits] == [h.distance for h in w.hits]
               for r, w in zip(late, whole, strict=True) if r.certified)
    assert not all(r.certified for r in late)
    roomy = run(queries=queries, k=3, client=client, shards=2, query_timeout=600, **SEARCH)
    assert answers(roomy) == answers(whole)
    assert not any(r.timed_out for r in roomy)


@pytest.mark.parametrize("search, given", [("range", {"tau": 8.0}),
                                           ("mces_range", {"min_similarity": 0.2})])
def test_a_range_time_limit_holds_on_the_cluster(client, search, given):
    """A range search's ``query_timeout`` reaches the shards: out of time, what each shard
    did not verify is undecided (no hit of the whole search lost, none added); with time to
    spare, the answer as here."""
    rng = np.random.default_rng(5)
    coll = gedkit.Collection()
    coll.add([random_graph(rng, int(rng.integers(4, 9))) for _ in range(40)], progress=False)
    queries = [random_graph(rng, 7) for _ in range(2)]
    run = getattr(coll, search)
    late = run(queries=queries, client=client, shards=2, query_timeout=1e-9, **given, **SEARCH)
    whole = run(queries=queries, **given, **SEARCH)
    for r, w in zip(late, whole, strict=True):
        assert r.timed_out and not r.interrupted and not r.certified and w.hits
        assert r.stats["unreached"] > 0
        assert {h.id for h in r.hits} <= set(w.ids) <= {h.id for h in r.hits + r.undecided}
    roomy = run(queries=queries, client=client, shards=2, query_timeout=600, **given,
                **SEARCH)
    assert answers(roomy) == answers(whole)
    assert not any(r.timed_out for r in roomy)


def test_a_query_time_limit_counts_for_the_query_not_each_shard():
    """kNN's shards of a query are scanned in waves: each task gets what its query has left
    of the limit, from the query's first task on (a token slice once it is out of time)."""
    from gedkit.search.distributed import _NO_TIME, _QueryClock

    now = [100.0]
    clock = _QueryClock(3.0, clock=lambda: now[0])
    assert clock.left(0) == 3.0
    now[0] += 1.0
    assert clock.left(0) == 2.0 and clock.left(1) == 3.0  # each query from its first task
    now[0] += 5.0
    assert clock.left(0) == _NO_TIME and clock.left(1) == _NO_TIME
    assert _QueryClock(None).left(0) is None


@pytest.mark.parametrize("search, given", [("range", {"tau": 8.0}),
                                           ("mces_range", {"min_similarity": 0.2})])
def test_a_range_time_limit_counts_for_the_query_not_each_shard(client, monkeypatch, search,
                                                                given):
    """Each range task gets what its queries have left of their limit (a shard's task
    queued behind others had the whole limit: 8 shards on 2 threads took a 2 s limit to
    8.5 s), and a query out of time is answered by what its shards reached, none lost."""
    from gedkit import cluster_direct

    seen = []

    def in_process(client, task, job, tasks, done, parallel, affinity=None):
        for batch, args in tasks:
            seen.append(args[3])
            done(batch, task(job, *args), None)

    monkeypatch.setattr(cluster_direct, "run_direct", in_process)
    rng = np.random.default_rng(5)
    coll = gedkit.Collection()
    coll.add([random_graph(rng, int(rng.integers(4, 9))) for _ in range(40)], progress=False)
    queries = [random_graph(rng, 7) for _ in range(2)]
    run = getattr(coll, search)
    roomy = run(queries=queries, client=client, shards=4, query_timeout=600, **given,
                **SEARCH)
    assert answers(roomy) == answers(run(queries=queries, **given, **SEARCH))
    assert len(seen) >= 4 and all(0 < left <= 600 for lefts in seen for left in lefts)
    seen.clear()
    assert all(r.timed_out for r in run(queries=queries, client=client, shards=4,
                                         query_timeout=1e-9, **given, **SEARCH))
    assert all(left <= 1e-9 for lefts in seen for left in lefts)


def test_a_worker_killed_mid_search_still_gives_the_same_answer(killable, library,
                                                                tmp_path):
    client = killable
    coll, queries = library
    marker = str(tmp_path / "killed")

    def node_sub(a, b):
        return float(a != b)

    class Killing(gedkit.costs.CallableCosts):  # the first worker to verify a pair dies
        def compile(self, g1, g2):
            if not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(1)
            return super().compile(g1, g2)

    costs = Killing(symmetric=True, node_sub=node_sub, node_ins=lambda b: 1.0)
    # dfs: pair by pair through compile (astar verifies most pairs in the batch kernel)
    remote = coll.range(queries=queries, tau=2, costs=costs, method="dfs", client=client,
                        shards=4, **SEARCH)
    assert os.path.exists(marker)  # a worker did die
    local = coll.range(queries=queries, tau=2, costs=costs, method="dfs", **SEARCH)
    assert answers(remote) == answers(local)


def test_search_client_errors(client, library):
    coll, queries = library
    with pytest.raises(gedkit.OptionError, match="not both"):
        coll.range(queries[0], 1, client=client, n_jobs=2)
    with pytest.raises(gedkit.OptionError, match=r"must be a dask\.distributed\.Client"):
        coll.knn(queries[0], 1, client="tcp://127.0.0.1:8786")
    with pytest.raises(gedkit.OptionError, match="give client= too"):
        coll.knn(queries[0], 1, shards=3)
    with pytest.raises(gedkit.OptionError, match="shards must be a positive integer"):
        coll.knn(queries[0], 1, client=client, shards=0)


def test_what_cannot_be_sent_to_the_workers_is_said_in_one_line(client, library, graphs):
    """A cost function holding a lock cannot be pickled: one line naming the problem (Dask's
    own serialisation traceback before)."""
    import threading

    coll, queries = library
    lock = threading.Lock()
    held = gedkit.costs.custom(node_sub=lambda a, b: 1.0 if lock else 0.0)
    for call in (lambda: gedkit.pairwise(graphs[:3], costs=held, client=client),
                 lambda: coll.range(queries=queries[:2], tau=1, costs=held, client=client)):
        with pytest.raises(gedkit.GedkitError, match=r"cannot be sent to them: TypeError: "
                                                     r"cannot pickle '_thread\.lock'"):
            call()


def test_without_dask_client_says_how_to_install_it(library, monkeypatch):
    import sys

    coll, queries = library
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if it were not installed
    with pytest.raises(gedkit.errors.MissingDependencyError, match=r"gedkit\[dask\]"):
        coll.range(queries[0], 1, client=object())


@pytest.mark.parametrize("failure, said", [
    ("Timed out trying to connect to tcp://x:1 after 30 s",
     "lost the Dask scheduler during the search (Timed out trying"),
    ("No valid workers found", "no Dask worker left on the scheduler"),
])
def test_a_cluster_lost_mid_search_keeps_the_answers_done(client, library, tmp_path, monkeypatch,
                                                          capsys, failure, said):
    """The scheduler, or every worker, lost during a search: the error carries the answers
    of the queries done (the others interrupted, with no hit), and the command line writes
    them before it says so (a search on a cluster handed its answers on at its end: a
    scheduler lost late lost every one, and --csv FILE was not written)."""
    import csv
    import itertools

    import gedkit.cluster_direct as cluster_direct
    from gedkit.cli import main

    coll, queries = library
    asked = queries * 3
    real = cluster_direct.run_direct

    def two_tasks_then_lost(on, function, shared, tasks, done, window, affinity=None):
        real(on, function, shared, itertools.islice(tasks, 2), done, window, affinity)
        if "connect" in failure:  # (Dask's client reconnecting to its scheduler)
            monkeypatch.setattr(on, "status", "connecting")
        raise TimeoutError(failure)

    monkeypatch.setattr(cluster_direct, "run_direct", two_tasks_then_lost)
    truth = coll.knn(queries=asked, k=3, **SEARCH)
    with pytest.raises(ClusterError, match=re.escape(said)) as caught:
        coll.knn(queries=asked, k=3, client=client, shards=1, **SEARCH)
    assert str(caught.value).endswith("queries answered in full, in the error's result")
    got = caught.value.result
    done = [r for r in got if not r.interrupted]
    assert len(got) == len(asked) and 0 < len(done) < len(asked)
    assert answers(done) == answers(truth[:len(done)])
    assert all(not r.hits and not r.certified for r in got[len(done):])
    assert {r.measure for r in got} == {truth[0].measure}  # (merge compares it)
    # the command line: the answers done in the CSV, the others listed as not searched,
    # then the error (status 1)
    monkeypatch.setattr(client, "status", "running")
    query_file = tmp_path / "queries.smi"
    query_file.write_text("".join(f"{s} q{k}\n" for k, s in enumerate(asked)))
    out_csv = tmp_path / "lost.csv"
    capsys.readouterr()
    assert main(["search", coll.path, str(query_file), "--nearest", "3", "--timeout", "none",
                 "--scheduler", client.scheduler.address, "--csv", str(out_csv)]) == 1
    err = capsys.readouterr().err
    assert f"gedkit: error: {said}" in err and f"what was found so far is in {out_csv}" in err
    with open(out_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    written = {row["query"] for row in rows if row["status"] != "interrupted"}
    assert written == {f"q{k}" for k in range(len(done))}
    assert {row["query"] for row in rows} == {f"q{k}" for k in range(len(asked))}


def test_cli_search_scheduler(client, library, capsys, monkeypatch):
    import json

    import gedkit.cluster
    from gedkit.cli import main

    coll, queries = library
    monkeypatch.setattr(gedkit.cluster, "CONNECT_TIMEOUT", 2)
    address = client.scheduler.address
    assert main(["search", coll.path, queries[1], "--nearest", "3", "--timeout", "none",
                 "--scheduler", address, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    local = coll.knn(queries[1], 3, **SEARCH)
    assert [h["id"] for h in got["hits"]] == local.ids and got["certified"]
    assert main(["search", coll.path, queries[1], "--within", "1", "--scheduler",
                 "tcp://127.0.0.1:1"]) == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_empty_collection_and_no_hits_on_the_cluster(client):
    coll = gedkit.Collection()
    assert coll.knn("CCO", 2, client=client).hits == []
    assert coll.range("CCO", 1, client=client).certified
    coll.add(["CCCC", "c1ccccc1"], progress=False)
    remote = coll.range(queries=["O", "N"], tau=0, client=client, **SEARCH)
    assert [r.hits for r in remote] == [[], []] and all(r.certified for r in remote)


def test_sqlites_memory_name_makes_a_collection_in_memory(client, tmp_path, monkeypatch):
    """``Collection.create(":memory:")``, SQLite's name for a database in memory, is one (a
    search on the cluster took it for a file and raised FileNotFoundError)."""
    monkeypatch.chdir(tmp_path)
    coll = gedkit.Collection.create(":memory:")
    coll.add(["CCO", "CCN", "CCCC"], progress=False)
    assert coll.path is None and not (tmp_path / ":memory:").exists()
    assert coll.knn("CCO", 2, client=client, **SEARCH).ids == coll.knn("CCO", 2, **SEARCH).ids


def test_a_cancelled_task_frees_its_worker(client):
    """Dask does not stop a running task: a pairwise chunk looks between its pairs whether
    the client cancelled it (or went away), so a stopped job does not hold the workers."""
    import time

    from gedkit.cluster import _call
    from gedkit.costs import get as get_costs
    from gedkit.pairwise import _PairSolver, _solve_chunk
    from gedkit.solvers import get_solver

    rng = np.random.default_rng(5)
    hard = [random_graph(rng, 14, p=0.5, name=f"h{k}") for k in range(2)]
    solver = _PairSolver(hard, hard, get_costs("uniform"), get_solver("dfs"), 0.05, None,
                         True)
    pairs = np.array([(0, 1)] * 400, dtype=np.int64)  # ~20 s of 50 ms solves
    worker = next(iter(client.scheduler_info()["workers"]))
    future = client.submit(_call, "job", _solve_chunk, solver, pairs, pure=False,
                           workers=[worker])  # (as run_tasks sends it)
    time.sleep(2.0)
    client.cancel([future])
    start = time.perf_counter()
    assert client.submit(int, 7, pure=False, workers=[worker]).result(timeout=60) == 7
    assert time.perf_counter() - start < 5.0


def test_a_search_whose_client_is_killed_frees_the_workers(client, tmp_path):
    """A client killed in the middle of a long kNN search on the cluster: its tasks stop (no
    further query, the running ones' loops and solves end as on Ctrl-C) instead of holding
    the workers until done (> 300 s for 100 queries over 100,000 molecules before)."""
    import subprocess
    import sys
    import textwrap
    import time

    from helpers import REPO

    from gedkit.cluster_direct import running_calls

    rng = np.random.default_rng(3)
    coll = gedkit.Collection()
    coll.add([random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(300)])
    path = coll.split(1, tmp_path)[0]
    script = textwrap.dedent(f"""
        import gedkit
        from distributed import Client
        from tests.helpers import random_graph
        import numpy as np
        rng = np.random.default_rng(4)
        qs = [random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1) for _ in range(16)]
        c = Client({client.scheduler.address!r})
        coll = gedkit.Collection.open({str(path)!r})
        print("ready", flush=True)
        coll.knn(queries=qs, k=200, method="dfs", timeout=None, client=c, progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            text=True, cwd=str(REPO))
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(6.0)
    busy = client.run(running_calls)
    assert sum(busy.values()) > 0, busy  # the search's tasks were running on the workers
    proc.kill()
    proc.wait()
    start = time.perf_counter()
    while sum(client.run(running_calls).values()) and time.perf_counter() - start < 10:
        time.sleep(0.1)
    assert time.perf_counter() - start < 5.0, client.run(running_calls)
    for worker in client.scheduler_info()["workers"]:
        assert client.submit(int, 7, pure=False, workers=[worker]).result(timeout=120) == 7


def test_a_task_goes_where_its_shard_was_first_searched(client):
    """Tasks of one affinity (a shard) go to the worker that ran its first task, job after
    job (it has the shard open), and the two shards' tasks to both workers."""
    from gedkit.cluster_direct import run_direct

    # both workers there (a test before may have killed one: its fresh one can take over a
    # minute to join on a loaded machine, and the tasks all went to the other)
    client.wait_for_workers(2, timeout=180)

    def where(shared, name):
        return shared, name, os.getpid()

    seen: dict[str, set] = {"a": set(), "b": set()}
    for job in range(3):
        got: list = []
        # (the second job names them in the other order: without their homes, the first
        # task would go to the first worker again)
        run_direct(client, where, job, iter([(k, (k,)) for k in ("ab", "ba", "ab")[job]]),
                   lambda key, value, error, got=got: got.append((value, error)), 2,
                   affinity=lambda args: args[0])
        assert all(error is None and value[0] == job for value, error in got)
        for _, name, pid in (value for value, _ in got):
            seen[name].add(pid)
    assert len(seen["a"]) == len(seen["b"]) == 1 and seen["a"] != seen["b"]


def test_an_error_here_stops_the_jobs_running_tasks(client):
    """A job ended here early (an error in its caller, as Ctrl-C does) stops its tasks still
    running on the workers: their budgets expire and their loops end, instead of holding
    the workers' cores for the rest of their work."""
    import time

    from gedkit.cluster_direct import run_direct, running_calls

    def spin(shared, seconds):
        from gedkit.budget import interrupted

        end = time.monotonic() + seconds
        while time.monotonic() < end and not interrupted():
            time.sleep(0.01)
        return seconds

    def done(key, value, error):
        if key == "quick":
            raise RuntimeError("stop here")

    time.sleep(0.5)
    with pytest.raises(RuntimeError, match="stop here"):
        run_direct(client, spin, None, iter([("slow", (60.0,)), ("quick", (0.5,))]), done, 2)
    start = time.perf_counter()
    while sum(client.run(running_calls).values()) and time.perf_counter() - start < 10:
        time.sleep(0.05)
    assert time.perf_counter() - start < 3.0, client.run(running_calls)


def _spin(shared, seconds):
    """A task that runs ``seconds`` unless stopped (a stand-in for a long search)."""
    import time

    from gedkit.budget import interrupted

    end = time.monotonic() + seconds
    while time.monotonic() < end and not interrupted():
        time.sleep(0.01)
    return seconds


@pytest.mark.parametrize("runners", [True, False])  # gedkit's runners, or Dask tasks
def test_ctrl_c_heard_as_a_flag_stops_the_wait_for_the_cluster(client, runners):
    """Ctrl-C (or SIGTERM on the command line) inside an ``interruptible()`` caller sets a
    flag instead of raising, as in ``gedkit search``'s batches: the wait for the cluster's
    answers hears it (a search on the cluster ran on to its end, 59 s after Ctrl-C)."""
    import signal
    import threading
    import time

    from gedkit.budget import interruptible
    from gedkit.cluster import run_tasks
    from gedkit.cluster_direct import run_direct, running_calls

    run = run_direct if runners else run_tasks  # (as run_direct sends them without runners)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with interruptible(), pytest.raises(KeyboardInterrupt):
            run(client, _spin, None, iter([("a", (60.0,)), ("b", (60.0,))]),
                lambda key, value, error: None, 2)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 5.0
    # ... and the workers' tasks of the job stop too

    def busy() -> int:
        return (sum(client.run(running_calls).values())
                + sum(map(len, client.processing().values())))

    stopped = time.perf_counter()
    while busy() and time.perf_counter() - stopped < 10:
        time.sleep(0.05)
    assert time.perf_counter() - stopped < 3.0, (client.run(running_calls), client.processing())


def test_a_task_reaching_its_runner_after_its_jobs_stop_stops_at_once(client):
    """Ctrl-C's stop of a job may reach a worker's runner before the job's first task there
    (both in flight): that task then stops at once (it ran its whole length, as the runner
    knew no job to stop: a stopped test's 60 s task held the worker)."""
    import time

    from gedkit.cluster import _OnePickle
    from gedkit.cluster_direct import runners

    held = next(iter(runners(client).values()))
    held.actor.end("stopped-first", True).result()
    start = time.perf_counter()
    done, value = held.actor.run("stopped-first", _OnePickle(None).blob, _spin,
                                 (60.0,)).result()
    assert done and value == 60.0 and time.perf_counter() - start < 5.0


def test_a_new_client_finds_the_collection_open_on_the_workers(client, library):
    """The collections a search opened on the workers stay open for the next client's
    searches (a new `gedkit search --scheduler` each time reopened the whole collection)."""
    import gedkit.cluster_direct
    from gedkit.cluster_direct import run_direct
    from gedkit.search.distributed import source_of

    coll, queries = library
    with distributed.Client(client.scheduler.address) as first:
        coll.range(queries=queries, tau=1, client=first, **SEARCH)

    def kept(shared):
        import gedkit.search.distributed as remote

        return list(getattr(remote._LOCAL, "kept", {}))

    with distributed.Client(client.scheduler.address) as second:
        got: list = []
        run_direct(second, kept, None, iter([(k, ()) for k in range(2)]),
                   lambda key, value, error: got.append(value), 2)
        # (the closed client's runners are forgotten here, not kept for ever)
        assert first not in gedkit.cluster_direct._RUNNERS
    assert [source_of(coll).token in tokens for tokens in got] == [True, True]


def test_without_runners_the_search_runs_as_dask_tasks(client, library, monkeypatch):
    """Where no worker starts gedkit's runner in time (all busy), the search's tasks go to
    the scheduler as Dask tasks and answer the same."""
    import gedkit.cluster
    import gedkit.cluster_direct

    coll, queries = library
    scheduled = []
    real = gedkit.cluster.run_tasks
    monkeypatch.setattr(gedkit.cluster_direct, "runners", lambda client: {})
    monkeypatch.setattr(gedkit.cluster, "run_tasks",
                        lambda *args: scheduled.append(True) or real(*args))
    for search, value in (("range", 2), ("knn", 3)):
        run = getattr(coll, search)
        remote = run(queries=queries, **{_PARAMETER[search]: value}, client=client, **SEARCH)
        assert answers(remote) == answers(run(queries=queries, **{_PARAMETER[search]: value},
                                              **SEARCH))
    assert scheduled == [True, True]


def test_a_job_the_workers_cannot_load_is_one_error(client, graphs, library, tmp_path,
                                                    monkeypatch):
    """A cost function from a module only this process has: every task would fail alike, so
    the job stops at the first with one line saying why (every pair of the matrix failed,
    each with Dask's traceback text, and the call returned as if it had run)."""
    (tmp_path / "only_here_costs.py").write_text(
        "def node_sub(a, b):\n    return float(a != b)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import only_here_costs

    costs = gedkit.costs.custom(node_sub=only_here_costs.node_sub)
    cannot = r"^a Dask worker cannot load the job: .*No module named 'only_here_costs'"
    with pytest.raises(ClusterError, match=cannot):
        gedkit.pairwise(graphs[:4], costs=costs, client=client, progress=False)
    coll, queries = library
    with pytest.raises(ClusterError, match=cannot):
        coll.range(queries=queries[:2], tau=1, costs=costs, client=client, **SEARCH)


def test_a_search_after_another_client_of_this_process_closed(client, library):
    """The runners are bound to the client that made them, not to whichever client of the
    process was current then: one made while another client was the newest waited for ever
    once that other one closed (its event loop gone)."""
    import threading

    import gedkit.cluster_direct

    coll, queries = library
    gedkit.cluster_direct._RUNNERS.pop(client, None)  # made anew below
    with distributed.Client(client.scheduler.address) as other:  # the current client
        first = coll.range(queries=queries, tau=1, client=client, **SEARCH)
    # (Dask's actor proxies bind to the current client as they are unpickled; through the
    # closed one, a call waited for ever on its stopped event loop in one full test run)
    bound = {id(h.actor._client) for h in gedkit.cluster_direct._RUNNERS[client].values()}
    assert bound == {id(client)} and id(other) not in bound
    done: list = []
    search = threading.Thread(target=lambda: done.append(
        coll.range(queries=queries, tau=1, client=client, **SEARCH)), daemon=True)
    search.start()
    search.join(60)
    assert done and answers(done[0]) == answers(first)


def test_jobs_and_a_scheduler_together_are_refused_in_each_callers_words(monkeypatch):
    """``n_jobs=`` with ``client=``: Python's words in Python, the options' on the command
    line (it said "give n_jobs= ... or client= ..." to a user of --jobs and --scheduler)."""
    import gedkit.cluster as cluster
    from gedkit.errors import OptionError

    monkeypatch.setattr(cluster, "as_client", lambda client, what=None: client)
    with pytest.raises(OptionError) as caught:
        gedkit.pairwise([], client=object(), n_jobs=2)
    assert str(caught.value).startswith("give n_jobs= (local processes) or client=")
    assert caught.value.render(cli=True) == (
        "--jobs (local processes) and --scheduler (a Dask cluster) cannot be combined")


def test_a_search_on_a_scheduler_without_workers_is_one_error(monkeypatch):
    """A search sent to a scheduler with no worker: an error once none has joined within
    the wait (it waited for ever, deaf to its time limits, until killed)."""
    distributed = pytest.importorskip("distributed")
    import gedkit.cluster as cluster

    monkeypatch.setattr(cluster, "WORKER_WAIT", 1.0)
    coll = gedkit.Collection()
    coll.add(["CCO", "CCN", "CCC"])
    with distributed.LocalCluster(n_workers=0, processes=False) as cluster, \
            distributed.Client(cluster) as empty, \
            pytest.raises(ClusterError, match=r"no Dask worker joined the scheduler at .* "
                                              r"within 1 s"):
        coll.range("CCO", 1, client=empty)


def test_ctrl_c_keeps_what_the_running_tasks_found(client):
    """After Ctrl-C the tasks running on the workers are told to stop and what they hand back
    is kept, as a local worker's batch is: a range search on the cluster 8 s into its shards
    answered "0 of 3 queries answered", where one process and local workers kept what they
    had found. (A second Ctrl-C would end the wait at once.)"""
    import signal
    import threading

    from gedkit.budget import interruptible
    from gedkit.cluster_direct import run_direct

    kept = []
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with interruptible(), pytest.raises(KeyboardInterrupt):
            run_direct(client, _spin, None, iter([("a", (60.0,)), ("b", (60.0,))]),
                       lambda key, value, error: kept.append((key, error)), 2)
    finally:
        timer.cancel()
    assert sorted(kept) == [("a", None), ("b", None)]


def test_ctrl_c_keeps_the_pairs_the_running_chunks_solved(client, tmp_path, monkeypatch):
    """After Ctrl-C a pairwise job's chunks running on the workers are told to stop and hand
    back the pairs they solved, as a local Ctrl-C keeps every pair done: Dask cancelled them,
    and up to 256 pairs a chunk (~2 s of work each) were lost. The pair a chunk's stop cut
    short stays pending (not "bounded" before its time limit), as do its pairs not reached,
    not failed; the results file holds the pairs kept, for a resumed run to do the rest."""
    import signal
    import threading
    import warnings

    import gedkit.cluster
    from gedkit.budget import interruptible

    rng = np.random.default_rng(3)  # 16 nodes: A* runs each pair to its time limit
    slow = [random_graph(rng, 16, node_values="CNO", edge_values=(1, 2), name=f"s{k}")
            for k in range(10)]
    chunks, real = [], gedkit.cluster.run_tasks
    # Ctrl-C once the first chunk is in and the next ones are under way
    timer = threading.Timer(0.8, os.kill, (os.getpid(), signal.SIGINT))

    def spied(client, function, shared, tasks, done, window):
        def seen(chunk, value, error):
            if not chunks:
                timer.start()
            chunks.append((len(chunk), len(pickle.loads(value)) if error is None else None))
            done(chunk, value, error)

        return real(client, function, shared, tasks, seen, window)

    monkeypatch.setattr(gedkit.cluster, "run_tasks", spied)
    out = tmp_path / "pairs.sqlite"
    try:
        with interruptible(), warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            result = gedkit.pairwise(slow, method="astar", timeout=0.2, chunk_size=8,
                                     client=client, out=out, progress=False)
    finally:
        timer.cancel()
    assert result.interrupted and any("interrupted" in str(w.message) for w in said)
    # the chunks running at Ctrl-C came back with the pairs they had solved
    assert any(0 < got < size for size, got in chunks), chunks
    counts = result.counts()
    assert counts["failed"] == 0 and counts["pending"] > 0, counts
    solved = [(i, j) for i, j in result.pairs.tolist() if i != j]
    done = [(i, j) for i, j in solved if result.status[i, j] != "pending"]
    assert len(done) > sum(got for size, got in chunks if got == size)
    # no pair is "bounded" short of its time limit: the one a stop cut short is pending
    assert all(result.time[i, j] >= 0.2 or result.status[i, j] == "optimal" for i, j in done)
    with sqlite3.connect(out) as db:
        stored = set(db.execute("SELECT i, j FROM pairs WHERE i != j").fetchall())
    assert stored == set(done)  # (a resumed run solves the pending ones)


def _ignores_stops(shared, seconds):
    """A task that runs ``seconds`` whatever it is told (a stand-in for a step that does not
    look at its budget)."""
    import time

    time.sleep(seconds)
    return seconds


def test_a_second_ctrl_c_ends_the_wait_for_the_stopped_tasks(client, monkeypatch):
    """After Ctrl-C the job waits a while for what its stopped tasks found; a second Ctrl-C
    ends that wait at once, keeping what came back before it."""
    import signal
    import threading

    import gedkit.cluster
    from gedkit.budget import interruptible
    from gedkit.cluster import run_tasks

    monkeypatch.setattr(gedkit.cluster, "_GRACE", 60.0)  # only the second Ctrl-C ends it
    kept = []

    def both(shared, key, seconds):
        return (_spin if key == "stops" else _ignores_stops)(shared, seconds)

    def done(key, value, error):
        kept.append(key)
        os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, once the first task is in

    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with interruptible(), pytest.raises(KeyboardInterrupt):
            run_tasks(client, both, None,
                      iter([("stops", ("stops", 60.0)), ("runs on", ("runs on", 4.0))]),
                      done, 2)
    finally:
        timer.cancel()
    assert kept == ["stops"]


def test_a_scheduler_that_cannot_read_the_tasks_stops_the_job_once(client, graphs,
                                                                   monkeypatch):
    """A scheduler without gedkit (a separate container) cannot unpickle a task: every pair
    failed, each with Dask's paragraph on different environments (465 lines' worth); the job
    now stops at the first, in one line, the pairs done kept."""
    import gedkit.cluster

    def unreadable(client, function, shared, tasks, done, window):
        key, _ = next(tasks)
        done(key, None, RuntimeError("Error during deserialization of the task graph. This "
                                     "frequently occurs if the Scheduler and Client have "
                                     "different environments."))

    monkeypatch.setattr(gedkit.cluster, "run_tasks", unreadable)
    with pytest.raises(ClusterError, match=r"the Dask scheduler cannot read gedkit's tasks .* "
                                           r"install gedkit, with the same versions"):
        gedkit.pairwise(graphs[:4], client=client, **EXACT)


@pytest.fixture()
def without_gedkit(tmp_path):
    """A cluster of its own: a scheduler here and one worker process started from a Python
    that cannot import gedkit (a package of that name that raises, first on its path: gedkit
    itself is installed on this machine)."""
    fake = tmp_path / "path" / "gedkit"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named gedkit here')\n")
    with distributed.LocalCluster(n_workers=0, protocol="tcp", dashboard_address=None,
                                  silence_logs=logging.CRITICAL) as cluster, \
            distributed.Client(cluster) as on:
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
             "--nthreads", "1", "--no-dashboard", "--no-nanny"],
            env={**os.environ, "PYTHONPATH": str(fake.parent)}, cwd=tmp_path,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            on.wait_for_workers(1, timeout=60)
            yield on
        finally:
            worker.terminate()
            worker.wait(30)


def test_a_worker_that_cannot_import_gedkit_is_one_error(without_gedkit, graphs, library):
    """A worker started without gedkit: pairwise died with Dask's traceback from the
    scatter, or waited for ever while that worker fetched the job's data again and again;
    a search waited 31 s for its runner. Now each is one line at once."""
    cannot = (r"^the Dask worker at tcp://\S+ cannot import gedkit \(No module named gedkit "
              r"here\): install gedkit, .* where every worker runs$")
    with pytest.raises(ClusterError, match=cannot):
        gedkit.pairwise(graphs[:3], client=without_gedkit, **EXACT)
    coll, queries = library
    with pytest.raises(ClusterError, match=cannot):
        coll.range(queries=queries[:2], tau=1, client=without_gedkit, **SEARCH)
    # the command line: that line, and status 2 as for other errors (not 1: nothing was lost)
    from gedkit.cli import main

    address = without_gedkit.scheduler.address
    assert main(["pairwise", "smiles:CCO", "smiles:CCN", "--scheduler", address]) == 2


def test_workers_that_do_not_answer_the_import_check_are_one_error():
    """A worker whose event loop is stuck never answers whether it can import gedkit: the
    check gives up after CHECK_TIMEOUT seconds with one line (it had no limit: a job would
    have waited for ever)."""
    from gedkit import cluster

    class Silent:  # (Client.run's answer when its callback_timeout passes)
        def run(self, *args, callback_timeout=None, **kwargs):
            assert callback_timeout == cluster.CHECK_TIMEOUT
            raise TimeoutError

    with pytest.raises(ClusterError, match=r"^the Dask workers at tcp://a, tcp://b did not "
                                           r"answer within 30 s whether they can import"):
        cluster.check_workers(Silent(), ["tcp://b", "tcp://a"])


def test_a_collection_file_a_worker_cannot_open_is_an_error_not_an_interruption(
        client, library, tmp_path, monkeypatch, capsys):
    """A collection file at a path the workers do not have: one line and status 2 (it was
    1, as for a lost scheduler), and --json lists no query as "interrupted" (every one was,
    as if Ctrl-C had stopped them)."""
    import dataclasses
    import json

    import gedkit.search.distributed as remote
    from gedkit.cli import main

    coll, queries = library
    real = remote.source_of
    elsewhere = str(tmp_path / "elsewhere.gdb")  # (the workers' view of the path)
    monkeypatch.setattr(remote, "source_of", lambda coll: dataclasses.replace(
        real(coll), token=elsewhere, path=elsewhere))
    query_file = tmp_path / "queries.smi"
    query_file.write_text("".join(f"{s} q{k}\n" for k, s in enumerate(queries)))
    capsys.readouterr()
    assert main(["search", coll.path, str(query_file), "--within", "1", "--json",
                 "--scheduler", client.scheduler.address]) == 2
    out, err = capsys.readouterr()
    assert not [json.loads(line) for line in out.splitlines()
                if json.loads(line)["interrupted"]]
    said = [line for line in err.splitlines() if line.startswith("gedkit: ")]
    assert len(said) == 1 and "cannot open" in said[0] and "elsewhere.gdb" in said[0], err
