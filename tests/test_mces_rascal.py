"""The RASCAL adapter: agreement with gedkit's exact search on molecules, its two known
quirks (bond-pair limit, one-bond answers), budgets enforced by a killable child process (also
from threads and pool workers), label checks, and RDKit being optional."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import gedkit
from gedkit import Graph
from gedkit.cli import main
from gedkit.errors import GraphError, MissingDependencyError
from gedkit.mces import MCESProblem, rascal
from gedkit.mces.bounds import upper_bound

PAIRS = [
    ("c1ccccc1O", "c1ccccc1N"),
    ("CCOC(=O)C", "CCOC(=O)CC"),
    ("CC(=O)Oc1ccccc1C(=O)O", "OC(=O)c1ccccc1O"),
    ("CCCC", "C1CCC1"),
    ("c1ccc2ccccc2c1", "c1ccccc1CC"),
    ("CC1CC1", "CC(C)C"),  # a triangle against a star: RASCAL's delta-Y case
    ("OCC(N)C(=O)O", "NC(CS)C(=O)O"),
]


# IAM AIDS molecules 26764 and 29385 as Kekulé SMILES. Read in this atom order, they took
# RASCAL 23 s with a 1 s budget when it ran unsupervised
LARGE = (
    "CC(C)CCCC(C)C1CCC2C3CCC4CC(CCC=C(C5=CC(Cl)=C(O)C(C(=O)O)=C5)C5=CC(C(=O)O)=C(O)C(Cl)=C5)"
    "CCC4(C)C3CCC12C.N",
    "O=C(NC1=CC=C(C=CC2=C(S(=O)(=O)O)C=C(NC(=O)C3=C(O)C4=NC=CC=C4C(S(=O)(=O)O)=C3)C=C2)"
    "C(S(=O)(=O)O)=C1)NC1=CC(S(=O)(=O)O)=C(C=CC2=C(S(=O)(=O)O)C=C(NC(=O)C3=C(O)C4=NC=CC=C4"
    "C(S(=O)(=O)O)=C3)C=C2)C=C1.[NaH]",
)
FORK = "fork" in multiprocessing.get_all_start_methods()


@pytest.fixture(scope="module")
def smiles():
    pytest.importorskip("rdkit")
    from gedkit.io import from_smiles

    return from_smiles


@pytest.fixture(scope="module")
def large():
    Chem = pytest.importorskip("rdkit.Chem")

    def kekule(text):  # IAM-style valences, atoms in SMILES order (RASCAL's pace depends on it)
        mol = Chem.MolFromSmiles(text, sanitize=False)
        bonds = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx(), int(b.GetBondTypeAsDouble()))
                 for b in mol.GetBonds()]
        return Graph({a.GetIdx(): a.GetSymbol() for a in mol.GetAtoms()}, bonds)

    return kekule(LARGE[0]), kekule(LARGE[1])


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_rascal_agrees_with_exact(smiles, a, b):
    g1, g2 = smiles(a), smiles(b)
    exact = gedkit.mces(g1, g2, "exact")
    rascal = gedkit.mces(g1, g2, "rascal", timeout=30)
    assert exact.optimal and rascal.optimal
    assert rascal.num_edges == exact.num_edges
    assert rascal.lower_bound <= exact.num_edges <= rascal.upper_bound
    assert gedkit.mces.MCESProblem(g1, g2).count(rascal.assignment) == rascal.num_edges
    assert not rascal.stats["timed_out"] and not rascal.stats["bond_pair_limit_exceeded"]
    # gedkit's Johnson similarity is RDKit's when both count the same bonds
    if rascal.stats["rascal_bonds"] == rascal.num_edges:
        assert rascal.similarity == pytest.approx(rascal.stats["rascal_similarity"])


def test_single_bond_answer(smiles):
    r = gedkit.mces(smiles("CO"), smiles("CCO"), "rascal")
    assert (r.num_edges, r.optimal, r.stats["single_bond"]) == (1, True, True)
    r = gedkit.mces(smiles("CC"), smiles("NN"), "rascal")
    assert (r.num_edges, r.upper_bound) == (0, 0)


def test_bond_pair_limit_is_reported(smiles):
    g1, g2 = smiles("CCCCCCC"), smiles("CCCCC")
    r = gedkit.mces(g1, g2, "rascal", max_bond_pairs=5)
    assert r.stats["bond_pair_limit_exceeded"] and r.stats["bond_pairs"] == 24
    # RASCAL found nothing: the greedy map made before it keeps the 4 bonds, proven by the
    # generic bound (RASCAL's empty map answered 0, unproven)
    assert r.num_edges == 4 and r.stats["greedy_map"] and r.optimal and r.upper_bound == 4


def test_iam_style_labels():
    pytest.importorskip("rdkit")
    # IAM AIDS: padded element symbols, integer valences
    g1 = Graph({"_1": "C  ", "_2": "O  ", "_3": "C  "}, [("_1", "_2", 2), ("_1", "_3", 1)])
    g2 = Graph({0: "C  ", 1: "O  "}, [(0, 1, 2)])
    r = gedkit.mces(g1, g2, "rascal")
    assert (r.num_edges, r.optimal, r.node_map) == (1, True, [("_1", 0), ("_2", 1)])
    unlabelled = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2)])
    assert gedkit.mces(unlabelled, unlabelled, "rascal").num_edges == 2


@pytest.mark.parametrize(
    ("graph", "fragment"),
    [
        (Graph({0: "Xx", 1: "C"}, [(0, 1, 1)], name="m"), "node 0 in graph 'm' has label 'Xx'"),
        (Graph({0: 6, 1: "C"}, [(0, 1, 1)]), "not an element symbol"),
        (Graph({0: "C", 1: "C"}, [(0, 1, 7)]), "not a bond order"),
        (Graph({0: "C", 1: "C", 2: "C"}, [(0, 1, 1), (1, 2, None)]), "has label None"),
    ],
)
def test_labels_rascal_cannot_read(graph, fragment):
    pytest.importorskip("rdkit")
    with pytest.raises(GraphError, match=fragment):
        gedkit.mces(graph, graph, "rascal")


def test_missing_rdkit(monkeypatch):
    monkeypatch.setitem(sys.modules, "rdkit", None)
    g = Graph({0: "C", 1: "C"}, [(0, 1, 1)])
    with pytest.raises(MissingDependencyError, match="gedkit\\[chem\\]"):
        gedkit.mces(g, g, "rascal")


@pytest.mark.parametrize("timeout", [[], ["--timeout", "30"]], ids=["in-process", "child"])
def test_cli_output_stays_clean(smiles, tmp_path, capfd, timeout):
    # over the bond-pair limit RASCAL writes to the process's stderr from C++
    (tmp_path / "a.smi").write_text("CCCCCCC heptane\n")
    (tmp_path / "b.smi").write_text("CCCCC pentane\n")
    argv = ["mces", tmp_path / "a.smi", tmp_path / "b.smi", "--method", "rascal", "--json",
            "-o", "max_bond_pairs=5", *timeout]
    assert main([str(a) for a in argv]) == 0
    out, err = capfd.readouterr()
    assert err == ""
    assert json.loads(out)["stats"]["bond_pair_limit_exceeded"] is True


def test_tiny_budget_is_honoured(large):
    budget = 0.05
    start = time.perf_counter()
    r = gedkit.mces(*large, "rascal", timeout=budget)
    wall = time.perf_counter() - start
    # a generous allowance for start-up and a busy machine, far below RASCAL's own 20 s here
    assert wall < 5 * budget + 2
    assert r.stats["isolated"] and r.stats["killed"] and r.stats["timed_out"]
    assert r.stats["stopped"] == "time limit"  # (as the other methods say it)
    problem = MCESProblem(*large)
    # nothing of RASCAL's survives: the greedy map made before it, under the generic bound
    # (one shared bond kept 1 common edge of 15)
    assert r.num_edges == problem.count(r.assignment) > 1 and r.stats["greedy_map"]
    assert r.upper_bound == upper_bound(problem) and not r.optimal


def test_budget_without_a_kill(smiles):
    r = gedkit.mces(smiles("CCOC(=O)C"), smiles("CCOC(=O)CC"), "rascal", timeout=30)
    assert r.stats["isolated"] and not r.stats["killed"] and "in_process_reason" not in r.stats
    # without a limit too, where a child is forked (Ctrl-C stops it); spawned, here
    r = gedkit.mces(smiles("CCOC(=O)C"), smiles("CCOC(=O)CC"), "rascal")
    assert r.stats["isolated"] == FORK and r.optimal
    if FORK:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rascal.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
            r = gedkit.mces(smiles("CCOC(=O)C"), smiles("CCOC(=O)CC"), "rascal")
    assert not r.stats["isolated"] and r.stats["in_process_reason"] == "no timeout"


@pytest.mark.skipif(not FORK, reason="without a limit the child is forked only")
def test_ctrl_c_stops_the_child(large, monkeypatch):
    """Ctrl-C (the flag interruptible() sets) stops RASCAL's child at the next look, with or
    without a time limit: its C++ search heard no signal and ran on for minutes."""
    import gedkit.budget

    monkeypatch.setattr(gedkit.budget, "interrupted", lambda: True)
    for timeout in (None, 60):
        start = time.perf_counter()
        r = gedkit.mces(*large, "rascal", timeout=timeout)
        assert time.perf_counter() - start < 5
        assert r.stats["killed"] and r.stats["stopped"] == "interrupted" and not r.optimal


@pytest.mark.skipif(not FORK, reason="only a forked child runs the patched function")
def test_child_dying_without_an_answer(smiles, monkeypatch):
    monkeypatch.setattr(rascal, "_find", lambda *args: os._exit(3))
    g1, g2 = smiles("c1ccccc1O"), smiles("c1ccccc1N")
    r = gedkit.mces(g1, g2, "rascal", timeout=30)
    assert r.stats["child_exitcode"] == 3 and not r.stats["killed"]
    # the greedy map made before RASCAL: the ring's 6 bonds, as the generic bound proves
    assert r.num_edges == 6 and r.upper_bound == upper_bound(MCESProblem(g1, g2))


def test_spawned_child(smiles, monkeypatch):
    # where the platform cannot fork, the molecules travel pickled
    monkeypatch.setattr(rascal.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    g1, g2 = smiles("CC(=O)Oc1ccccc1C(=O)O"), smiles("OC(=O)c1ccccc1O")
    r = gedkit.mces(g1, g2, "rascal", timeout=60)
    assert r.stats["isolated"] and r.optimal
    assert r.num_edges == gedkit.mces(g1, g2, "exact").num_edges


def test_calls_from_threads(smiles, large):
    jobs = [(smiles(a), smiles(b), 30 if k % 2 else None) for k, (a, b) in enumerate(PAIRS)]
    with ThreadPoolExecutor(4) as pool:
        killed = pool.submit(gedkit.mces, *large, "rascal", timeout=0.05)
        results = list(pool.map(lambda job: gedkit.mces(*job[:2], "rascal", timeout=job[2]),
                                jobs))
    assert killed.result().stats["killed"]
    for (g1, g2, timeout), r in zip(jobs, results, strict=True):
        assert r.optimal and r.stats["isolated"] == (timeout is not None or FORK)
        assert r.num_edges == gedkit.mces(g1, g2, "exact").num_edges


def _rascal_in_worker(a: str, b: str) -> tuple[int, dict]:
    from gedkit.io import from_smiles

    r = gedkit.mces(from_smiles(a), from_smiles(b), "rascal", timeout=30)
    return r.num_edges, r.stats


@pytest.mark.skipif(not FORK, reason="a spawned worker could not import this test module")
def test_daemonic_pool_worker(smiles):
    a, b = PAIRS[2]
    with multiprocessing.get_context("fork").Pool(1) as pool:
        edges, stats = pool.apply(_rascal_in_worker, (a, b))
    # its child started all the same (RASCAL's own limit alone took 13.7 s a pair at 1 s)
    assert stats["isolated"] and "in_process_reason" not in stats
    assert edges == gedkit.mces(smiles(a), smiles(b), "exact").num_edges


def test_labels_rascal_cannot_read_are_refused_by_its_fallback_too():
    """Where the kernels were not compiled (a fresh install) or did not fit a memory cap, the
    cheap bounds answered for graphs RASCAL cannot take, where a warm process gave its
    error."""
    pytest.importorskip("rdkit")
    from gedkit.budget import Budget
    from gedkit.mces.base import get_method
    from gedkit.mces.problem import MCESProblem

    graph = Graph({0: "Xx", 1: "C"}, [(0, 1, 1)], name="m")
    with pytest.raises(GraphError, match="not an element symbol"):
        get_method("rascal").fallback(MCESProblem(graph, graph), Budget())
    carbon = Graph({0: "C", 1: "C"}, [(0, 1, 1)])
    assert get_method("rascal").fallback(MCESProblem(carbon, carbon), Budget()).num_edges == 1
