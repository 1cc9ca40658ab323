"""Exact GED against the shipped ground truth (AIDS700nef, LINUX, IMDBMulti).

The default suite checks a few thousand random pairs per set; ``pytest -m slow`` sweeps every
test×train pair (AIDS700nef 78,400; LINUX 160,000; IMDBMulti every pair with ground truth).
"""

import csv

import numpy as np
import pytest
from helpers import FIXTURES

from gedkit import costs, read_all
from gedkit.datasets import load_benchmark
from gedkit.solvers import Budget, get_solver

SAMPLE = {"AIDS700nef": 3000, "LINUX": 2000, "IMDBMulti": 2000}


@pytest.mark.parametrize("name", ["aids700", "linux"])
@pytest.mark.parametrize("method", ["exact", "dfs"])
def test_in_repo_samples_match_ground_truth(name, method):
    # runs everywhere: 20 graphs per set and their published pairwise GED, kept in the repo
    graphs = {g.name: g for g in read_all(FIXTURES / f"{name}_sample.txt")}
    with open(FIXTURES / f"{name}_sample_ged.tsv", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    header = rows[0][1:]
    solver = get_solver(method)
    for row in rows[1:]:
        for gid, truth in zip(header, row[1:], strict=True):
            r = solver.solve(costs.uniform().compile(graphs[row[0]], graphs[gid]), Budget())
            assert r.optimal and r.distance == int(truth), (row[0], gid)


@pytest.fixture(scope="module", params=sorted(SAMPLE))
def bench(request, shared_data):
    return load_benchmark(request.param, shared_data)


def _mismatches(bench, pairs, method="exact"):
    solver = get_solver(method)
    model = costs.uniform()
    bad = []
    for i, j in pairs:
        r = solver.solve(model.compile(bench.graphs[i], bench.graphs[j]), Budget())
        if not r.optimal or r.distance != bench.ged[i, j]:
            bad.append((bench.gids[i], bench.gids[j], r.distance, bench.ged[i, j]))
    return bad


def _ground_truth_pairs(bench):
    if bench.name == "IMDBMulti":
        return np.argwhere(bench.ged >= 0)
    return bench.pairs("test", "train")


def test_random_pairs_match_ground_truth(bench):
    pairs = _ground_truth_pairs(bench)
    rng = np.random.default_rng(2024)
    pick = pairs[rng.choice(len(pairs), size=min(SAMPLE[bench.name], len(pairs)), replace=False)]
    assert _mismatches(bench, pick) == []


@pytest.mark.parametrize("method", ["dfs", "mip"])
def test_other_exact_methods_on_a_few_pairs(bench, method):
    pairs = _ground_truth_pairs(bench)
    rng = np.random.default_rng(7)
    count = 30 if method == "mip" else 300
    pick = pairs[rng.choice(len(pairs), size=count, replace=False)]
    assert _mismatches(bench, pick, method) == []


@pytest.mark.slow
def test_every_pair_matches_ground_truth(bench):
    assert _mismatches(bench, _ground_truth_pairs(bench)) == []


def test_a_benchmark_root_that_does_not_hold_the_set_is_named(tmp_path):
    from gedkit.datasets import load_benchmark
    from gedkit.errors import FormatError

    (tmp_path / "AIDS700nef").mkdir()
    with pytest.raises(FormatError, match="give the folder that holds it"):
        load_benchmark("AIDS700nef", tmp_path / "AIDS700nef")
    with pytest.raises(FormatError, match=r"no folder .*LINUX for the LINUX benchmark"):
        load_benchmark("LINUX", tmp_path)
