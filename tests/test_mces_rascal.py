"""The RASCAL adapter: agreement with gedkit's exact search on molecules, its two known
quirks (bond-pair limit, one-bond answers), label checks, and RDKit being optional."""

from __future__ import annotations

import json
import sys

import pytest

import gedkit
from gedkit import Graph
from gedkit.cli import main
from gedkit.errors import GraphError, MissingDependencyError

PAIRS = [
    ("c1ccccc1O", "c1ccccc1N"),
    ("CCOC(=O)C", "CCOC(=O)CC"),
    ("CC(=O)Oc1ccccc1C(=O)O", "OC(=O)c1ccccc1O"),
    ("CCCC", "C1CCC1"),
    ("c1ccc2ccccc2c1", "c1ccccc1CC"),
    ("CC1CC1", "CC(C)C"),  # a triangle against a star: RASCAL's delta-Y case
    ("OCC(N)C(=O)O", "NC(CS)C(=O)O"),
]


@pytest.fixture(scope="module")
def smiles():
    pytest.importorskip("rdkit")
    from gedkit.io import from_smiles

    return from_smiles


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
    assert r.num_edges == 0 and not r.optimal and r.upper_bound == 4


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


def test_cli_output_stays_clean(smiles, tmp_path, capfd):
    # over the bond-pair limit RASCAL writes to the process's stderr from C++
    (tmp_path / "a.smi").write_text("CCCCCCC heptane\n")
    (tmp_path / "b.smi").write_text("CCCCC pentane\n")
    argv = ["mces", tmp_path / "a.smi", tmp_path / "b.smi", "--method", "rascal", "--json",
            "-o", "max_bond_pairs=5"]
    assert main([str(a) for a in argv]) == 0
    out, err = capfd.readouterr()
    assert err == ""
    assert json.loads(out)["stats"]["bond_pair_limit_exceeded"] is True
