"""Every maximum common edge subgraph (``gedkit.mces.all_maximum``) against an enumeration of
all node maps, and RASCAL's tie-break (``rascal_ties=True``) against RASCAL's own similarity."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import gedkit
from gedkit.errors import OptionError
from gedkit.mces import MCESProblem
from gedkit.mces.base import Budget
from gedkit.mces.solutions import maximum_maps
from tests.test_mces_exact import random_pairs, symmetric_pairs


def brute_force_solutions(p: MCESProblem, connected: bool) -> tuple[int, set]:
    """The maximum and every distinct maximum map (on the nodes its common edges touch), by
    trying every injective map of equal labels."""
    best, found = 0, set()
    options = [[-1, *np.flatnonzero(p.node_labels2 == p.node_labels1[u]).tolist()]
               for u in range(p.n1)]
    for choice in itertools.product(*options):
        images = [v for v in choice if v >= 0]
        if len(images) != len(set(images)):
            continue
        f = np.array(choice, dtype=np.int64)
        if connected:
            f = p.largest_fragment(f)
        keep = p.common(f)
        count = int(keep.sum())
        if count == 0 or count < best:
            continue
        touched = np.full(p.n1, -1, dtype=np.int64)
        nodes = np.unique(p.g1.edges[keep])
        touched[nodes] = f[nodes]
        if count > best:
            best, found = count, set()
        found.add(tuple(touched.tolist()))
    return best, found


def small_pairs():
    return [p for p in [*random_pairs(40, seed=8, max_nodes=5), *symmetric_pairs()]
            if p.n1 <= 5 and p.n2 <= 6]


@pytest.mark.parametrize("connected", [False, True])
def test_every_maximum_map_once(connected):
    for p in small_pairs():
        best, expected = brute_force_solutions(p, connected)
        maps, complete = maximum_maps(p, best, Budget(), limit=10**6, connected=connected)
        assert complete
        got = [tuple(f.tolist()) for f in maps] if best else []
        assert len(got) == len(set(got))  # no duplicates
        assert set(got) == expected
        for f in maps:
            assert p.count(f) == best
            if connected and best:
                assert len(p.fragments(f)) == 1


def test_all_maximum_api():
    sols = gedkit.mces.all_maximum("CC(C)C", "CC(C)C")
    assert len(sols) == 6 and all(r.optimal and r.stats["complete"] for r in sols)
    assert len({tuple(r.node_map) for r in sols}) == 6
    assert len(gedkit.mces.all_maximum("CC(C)C", "CC(C)C", limit=2)) == 2
    assert not gedkit.mces.all_maximum("CC(C)C", "CC(C)C", limit=2)[0].stats["complete"]
    with pytest.raises(OptionError, match="limit"):
        gedkit.mces.all_maximum("CC", "CC", limit=0)
    # first in RASCAL's order: one fragment beats two of equal size
    two = gedkit.mces.all_maximum("CCCC", "CCC.CC", connected=False)
    assert len(two[0].fragments) <= len(two[-1].fragments)


def test_tie_break_prefers_fewer_fragments():
    # C-C-C-C onto C-C-C + C-C: 2 edges as one path or as two pieces
    for method in ("auto", "exact"):
        r = gedkit.mces("CCCC", "CCC.CC", method, rascal_ties=True)
        assert (r.num_edges, r.optimal, len(r.fragments)) == (2, True, 1)
        assert r.stats["tie_break_complete"]
    r = gedkit.mces("CCCCC", "CCC.CCC", rascal_ties=True)
    assert (r.num_edges, len(r.fragments)) == (3, 2)  # 3 edges need both pieces


# pairs of small molecules on which equally large solutions differ in fragments
RASCAL_PAIRS = [
    ("c1ccccc1CCCCO", "c1ccccc1OCCCC"),
    ("CCOC(=O)c1ccccc1", "CCCCOC(=O)C"),
    ("OCCCCN", "NCCOCC"),
    ("CC(C)CCO", "OCCC(C)C"),
    ("c1ccc(cc1)CN", "NCc1ccncc1"),
    ("CCCCCCO", "OCCC.CCC"),
]


@pytest.mark.parametrize("a,b", RASCAL_PAIRS)
def test_similarity_is_rascals(a, b):
    pytest.importorskip("rdkit")
    from rdkit import Chem
    from rdkit.Chem import rdRascalMCES

    opts = rdRascalMCES.RascalOptions()
    opts.similarityThreshold = 0.0
    opts.completeAromaticRings = False
    found = rdRascalMCES.FindMCES(Chem.MolFromSmiles(a), Chem.MolFromSmiles(b), opts)
    r = gedkit.mces(a, b, "exact", rascal_ties=True)
    assert r.num_edges == len(found[0].bondMatches())
    assert r.similarity == pytest.approx(found[0].similarity)
    assert len(r.fragments) == found[0].numFragments


def test_similarity_is_rascals_first_of_all_its_best():
    """Where RASCAL's default search meets a maximum map of more fragments first (5 common
    bonds in 2 fragments, similarity 0.129), ``rascal_ties`` is the map RASCAL ranks first
    when it collects them all (``allBestMCESs``: 1 fragment, 0.108), as documented."""
    pytest.importorskip("rdkit")
    from rdkit import Chem
    from rdkit.Chem import rdRascalMCES

    a, b = "CCOC(=O)[CH]1CN(CC(C)C)C(=O)C1=O", "C[N+](C)(CC1=CC=CC=C1)CC2=CC=CC=C2"
    opts = rdRascalMCES.RascalOptions()
    opts.similarityThreshold = 0.0
    opts.allBestMCESs = True
    best = rdRascalMCES.FindMCES(Chem.MolFromSmiles(a), Chem.MolFromSmiles(b), opts)[0]
    r = gedkit.mces(a, b, "exact", rascal_ties=True)
    assert (r.num_edges, len(r.fragments)) == (len(best.bondMatches()), best.numFragments)
    assert r.similarity == pytest.approx(best.similarity) == pytest.approx(0.108, abs=1e-3)
