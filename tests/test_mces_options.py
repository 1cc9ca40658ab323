"""``ring_matches_ring_only``: ring bonds onto ring bonds only, for every method, against RDKit's
FindMCS (bond ring rule) and RASCAL, and against a relabelled brute force."""

from __future__ import annotations

import numpy as np
import pytest

import gedkit
from gedkit import Graph
from gedkit.errors import OptionError
from gedkit.mces import MCESProblem
from gedkit.mces.problem import ring_edges
from tests.test_mces_connected import brute_force_connected
from tests.test_mces_exact import brute_force, random_pairs


def test_ring_edges():
    g = Graph({i: "C" for i in range(7)},
              [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 3), (5, 6)])
    assert ring_edges(g).tolist() == [True, True, True, False, True, True, True, False]
    assert ring_edges(Graph({0: "C"}, [])).tolist() == []


def _relabelled(g: Graph) -> Graph:
    """``g`` with each edge label paired with its ring membership: the brute force's view."""
    ring = ring_edges(g).tolist()
    return Graph(dict(zip(g.ids, g.node_labels, strict=True)),
                 [(g.ids[a], g.ids[b], (lab, r)) for (a, b), lab, r
                  in zip(g.edges.tolist(), g.edge_labels, ring, strict=True)])


@pytest.mark.parametrize("method", ["exact", "auto", "ga"])
def test_against_brute_force(method):
    for p in random_pairs(25, seed=21, max_nodes=6):
        plain = MCESProblem(_relabelled(p.g1), _relabelled(p.g2))
        r = gedkit.mces(p.g1, p.g2, method, ring_matches_ring_only=True)
        assert r.problem.count(r.assignment) == r.num_edges <= brute_force(plain)
        if method != "ga":
            assert r.optimal and r.num_edges == brute_force(plain)
        assert r.upper_bound >= brute_force(plain)


def test_connected_against_brute_force():
    for p in random_pairs(25, seed=22, max_nodes=6):
        plain = MCESProblem(_relabelled(p.g1), _relabelled(p.g2))
        r = gedkit.mces(p.g1, p.g2, connected=True, ring_matches_ring_only=True)
        assert r.optimal and r.num_edges == brute_force_connected(plain)


# (pair, FindMCS with the bond ring rule, connected; RASCAL, several fragments); RASCAL never
# reports a single bond, so the first pair's 1 is gedkit's own (see gedkit.mces.rascal)
FACTS = [
    ("C1CCCCC1C", "CCC", 1, 1),
    ("C1CCCCC1CCC", "CCCCCC", 3, 3),
    ("C1CCCCC1CCCC", "C1CCCC1CCC", 7, 7),
    ("c1ccccc1CCO", "OCCc1ccncc1C", 7, 7),
]


@pytest.mark.parametrize("a,b,connected,every", FACTS)
def test_rdkit_facts(a, b, connected, every):
    assert gedkit.mces(a, b, connected=True, ring_matches_ring_only=True).num_edges == connected
    assert gedkit.mces(a, b, ring_matches_ring_only=True).num_edges == every
    assert gedkit.mces(a, b).num_edges >= every


@pytest.mark.parametrize("a,b,connected,every", FACTS[1:])
def test_rascal_method_honours_it(a, b, connected, every):
    pytest.importorskip("rdkit")
    r = gedkit.mces(a, b, "rascal", ring_matches_ring_only=True)
    assert r.num_edges == every and r.optimal


def test_cyclohexane_and_hexane_share_nothing():
    assert gedkit.mces("C1CCCCC1", "CCCCCC").num_edges == 5
    assert gedkit.mces("C1CCCCC1", "CCCCCC", ring_matches_ring_only=True).num_edges == 0
    sols = gedkit.mces.all_maximum("C1CCCCC1C", "CCC", ring_matches_ring_only=True)
    assert [r.num_edges for r in sols] == [1] * 4  # the methyl bond, onto either bond, both ways


def test_bad_value():
    with pytest.raises(OptionError, match="ring_matches_ring_only must be True or False"):
        gedkit.mces("CC", "CC", ring_matches_ring_only="yes")


def test_default_is_plain():
    assert not MCESProblem(Graph({0: "C"}, []), Graph({0: "C"}, [])).ring_matches_ring_only
    assert np.array_equal(MCESProblem(Graph({0: "C", 1: "C"}, [(0, 1)]),
                                      Graph({0: "C", 1: "C"}, [(0, 1)])).edge_labels1, [0])


# RASCAL's post-search rules: offered by the rascal method only, with RASCAL's own answer
RASCAL_RULES = [
    ({"min_fragment_size": 6}, {"minFragSize": 6}),
    ({"max_fragment_separation": 1}, {"maxFragSeparation": 1}),
    ({"complete_rings": True}, {"completeAromaticRings": True, "completeSmallestRings": True}),
]
RULE_PAIRS = [("c1ccccc1CCCCO", "c1ccccc1OCCCC"), ("C1CCCCC1CCN", "C1CCCC1CCN"),
              ("CC(=O)Oc1ccccc1C(=O)O", "OC(=O)c1ccccc1O")]


@pytest.mark.parametrize("ours,theirs", RASCAL_RULES)
@pytest.mark.parametrize("a,b", RULE_PAIRS)
def test_rascal_rules_as_rascal(ours, theirs, a, b):
    pytest.importorskip("rdkit")
    from rdkit import Chem
    from rdkit.Chem import rdRascalMCES

    opts = rdRascalMCES.RascalOptions()
    opts.similarityThreshold = 0.0
    opts.completeAromaticRings = False
    for key, value in theirs.items():
        setattr(opts, key, value)
    found = rdRascalMCES.FindMCES(Chem.MolFromSmiles(a), Chem.MolFromSmiles(b), opts)
    r = gedkit.mces(a, b, "rascal", **ours)
    assert r.num_edges == (len(found[0].bondMatches()) if found else 0)
    assert r.num_edges <= r.upper_bound
    assert r.upper_bound >= gedkit.mces(a, b).num_edges  # RASCAL's trimmed count proves nothing


@pytest.mark.parametrize("option", ["min_fragment_size", "max_fragment_separation",
                                    "complete_rings"])
def test_rules_elsewhere_are_refused(option):
    with pytest.raises(OptionError, match=option):
        gedkit.mces("CC", "CC", "exact", **{option: 2 if "complete" not in option else True})


def test_rule_values_checked():
    with pytest.raises(OptionError, match="min_fragment_size must be an integer"):
        gedkit.mces("CC", "CC", "rascal", min_fragment_size=0)
    with pytest.raises(OptionError, match="complete_rings must be True or False"):
        gedkit.mces("CC", "CC", "rascal", complete_rings=1)


def test_an_infinite_limit_is_none_and_an_infinite_option_is_refused():
    """timeout=inf is no limit, memory=inf no cap (it overflowed ga's and the local
    search's step counts: a traceback); an option of inf is refused in one line, as nan
    is."""
    pair = ("CCCCCCCCC(=O)OCC", "CCCCCCCC(=O)NCC")
    for method in ("ga", "auto"):
        result = gedkit.mces(*pair, method=method, timeout=float("inf"))
        assert result.num_edges == 9
    with pytest.raises(OptionError, match=r"option beta_max must be a finite number > 0, got inf"):
        gedkit.mces(*pair, method="ga", beta_max=float("inf"))
    assert gedkit.ged("CCO", "CCN", timeout=float("inf")).distance == 1
    # memory=inf is no cap likewise (an OverflowError deep inside; pairwise failed each pair)
    assert gedkit.ged("CCO", "CCN", memory=float("inf")).distance == 1
    assert gedkit.mces(*pair, method="exact", memory=float("inf")).num_edges == 9
    m = gedkit.pairwise(["CCO", "CCN", "CCC"], memory=float("inf"), progress=False)
    assert m.optimal.all() and not m.errors
