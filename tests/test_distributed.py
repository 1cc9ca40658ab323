"""gedkit.pairwise on a real Dask cluster (a LocalCluster of 2 worker processes, no mocks): the
matrix equals the local one, a worker killed in the middle of a job still yields the whole,
identical matrix, and the results file written from the cluster resumes like a local one."""

from __future__ import annotations

import logging
import os
import sqlite3

import numpy as np
import pytest
from helpers import random_graph

import gedkit

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


def test_rectangular_with_callable_costs(client, graphs):
    costs = gedkit.costs.custom(node_sub=lambda a, b: 0.0 if a == b else 1.5, node_del=0.75,
                                node_ins=lambda b: 1.25)  # lambdas: cloudpickled to workers
    local = gedkit.pairwise(graphs[:4], graphs[4:], costs=costs, method="dfs", **EXACT)
    remote = gedkit.pairwise(graphs[:4], graphs[4:], costs=costs, method="dfs", client=client,
                             **EXACT)
    assert_same(local, remote)


def test_a_worker_killed_mid_job_still_gives_the_whole_matrix(client, graphs, tmp_path):
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
    client.wait_for_workers(2, timeout=60)  # the nanny has started a fresh one


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
