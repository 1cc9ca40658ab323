"""The literature cost models (CHEM_1/2, LETTER/LETTER_2, GREC_1/2, PROTEIN, FINGERPRINT, CMU).

Unit tests use hand-made labels with hand-computed costs. The GDR4GED tests (skipped without
../shared) read its GXL files with :func:`gedkit.read`, recompute the cost of every stored node
map under the model and compare it with the stored distance.
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import gedkit
from gedkit import Graph, costs
from gedkit.costs.attributes import categories, differ, values
from gedkit.costs.typed import ProteinCosts, _edit_distances
from gedkit.errors import CostModelError

ALL = ["chem_1", "chem_2", "letter", "letter_2", "grec_1", "grec_2", "protein", "fingerprint",
       "cmu"]

# One well-formed node and edge label per model family, for generic checks.
LABELS = {
    "chem": ([{"chem": "C"}, "O", {"symbol": "N "}, "C"], [{"valence": 1}, 2, 1.0]),
    "letter": ([{"x": 0, "y": 0}, {"x": "3", "y": 4.0}, {"x": 1.5, "y": -2}], [None, None]),
    "grec": (
        [{"x": 0, "y": 0, "type": "corner"}, {"x": 6, "y": 8, "type": "corner"},
         {"x": 1, "y": 1, "type": "endpoint"}],
        [{"frequency": 1, "type0": "line", "angle0": ".2"},
         {"frequency": 1, "type0": "arc", "angle0": "1"},
         {"frequency": 2, "type0": "arc", "angle0": "0", "type1": "line", "angle1": "1"},
         {"frequency": 2, "type0": "line", "angle0": "0", "type1": "line", "angle1": "1"}],
    ),
    "protein": (
        [{"type": 0, "sequence": "MVTFH"}, {"type": 0, "sequence": "MVSFHA"},
         {"type": 1, "sequence": "KK"}, {"type": 0, "sequence": ""}],
        [{"frequency": 1, "type0": 1.0}, {"frequency": 1, "type0": 2.0},
         {"frequency": 2, "type0": 1.0, "type1": 4.0}],
    ),
    "fingerprint": ([None, {"x": 1}, "any"], [{"orient": 0.1}, {"orient": 0.4}, {"orient": -1.5},
                                       {"orient": 1.5}]),
    "cmu": ([{"x": 1, "y": 2}, {"x": 3, "y": 4}, None],
            [{"dist": 10.0}, {"dist": 4.0}, {"dist": 0}]),
}
FAMILY = {"chem_1": "chem", "chem_2": "chem", "letter": "letter", "letter_2": "letter",
          "grec_1": "grec", "grec_2": "grec", "protein": "protein",
          "fingerprint": "fingerprint", "cmu": "cmu"}


# -- registry -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_registered_case_insensitively_with_gedlib_defaults(name):
    model = costs.get(name.upper())
    assert model.name == name
    assert name in costs.available()
    assert repr(model) == repr(getattr(costs, name)())


# -- generic contract -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_matrix_contract(name):
    model = costs.get(name)
    nodes, edges = LABELS[FAMILY[name]]
    for labels, matrix, sub, delete, insert in (
        (nodes, model.node_matrix, model.node_sub, model.node_del, model.node_ins),
        (edges, model.edge_matrix, model.edge_sub, model.edge_del, model.edge_ins),
    ):
        k = len(labels)
        mat = matrix(labels)
        assert mat.shape == (k + 1, k + 1)
        assert np.all(np.isfinite(mat)) and np.all(mat >= 0)
        assert np.all(np.diag(mat) == 0)
        for i, a in enumerate(labels):
            assert mat[i, k] == pytest.approx(delete(a))
            assert mat[k, i] == pytest.approx(insert(a))
            for j, b in enumerate(labels):
                assert mat[i, j] == pytest.approx(sub(a, b))
        if model.symmetric:
            np.testing.assert_allclose(mat, mat.T)
        assert matrix([]).shape == (1, 1)


@pytest.mark.parametrize("name", ALL)
def test_symmetric_flag(name):
    assert costs.get(name).symmetric is True


def test_letter_2_symmetry_follows_its_constants():
    assert costs.letter_2(node_ins=1, node_del=2).symmetric is False
    assert costs.letter_2(edge_ins=1, edge_del=2).symmetric is False
    mat = costs.letter_2(node_ins=1, node_del=2).node_matrix([{"x": 0, "y": 0}])
    assert mat[0, 1] == 2 and mat[1, 0] == 1


@pytest.mark.parametrize("name", ALL)
def test_compiles_a_graph_pair(name):
    nodes, edges = LABELS[FAMILY[name]]
    g1 = Graph(dict(enumerate(nodes[:2])), [(0, 1, edges[0])])
    g2 = Graph(dict(enumerate(nodes[1:3])), [(0, 1, edges[1])])
    p = costs.get(name).compile(g1, g2)
    model = costs.get(name)
    expected = (
        model.node_sub(nodes[0], nodes[1]) + model.node_sub(nodes[1], nodes[2])
        + min(model.edge_sub(edges[0], edges[1]),
              model.edge_del(edges[0]) + model.edge_ins(edges[1]))
    )
    assert p.cost([0, 1]) == pytest.approx(expected)


# -- hand-computed values -----------------------------------------------------------------------
def test_chem_1():
    m = costs.chem_1()
    assert m.node_del("C") == m.node_ins({"chem": "O"}) == 4
    assert m.node_sub({"chem": "C"}, "O") == 2
    assert m.node_sub({"chem": "C"}, "C") == 0
    assert m.node_sub({"symbol": "C  "}, "C") == 0  # IAM pads symbols
    assert m.node_sub({"atom": "C", "charge": 0}, "N") == 2  # gedkit's molecule readers
    assert m.edge_sub({"bond": 2, "aromatic": False}, {"valence": 2}) == 0
    # AIDS labels carry both; "chem" is the one GEDLIB reads
    assert m.node_sub({"chem": 1, "symbol": "C"}, {"chem": 2, "symbol": "C"}) == 2
    assert m.edge_sub({"valence": 1}, 2) == 1
    assert m.edge_sub({"valence": 1}, 1.0) == 0
    assert m.edge_del(3) == m.edge_ins({"valence": 3}) == 1
    m = costs.chem_1(node_ins_del=1, node_sub=7, edge_ins_del=3, edge_sub=0)
    assert (m.node_del("C"), m.node_sub("C", "N"), m.edge_del(1), m.edge_sub(1, 2)) == (1, 7, 3, 0)


def test_chem_2():
    m = costs.chem_2()  # 11, 1.1, alpha 0.25
    assert m.node_del("C") == m.node_ins("C") == pytest.approx(2.75)
    assert m.node_sub("C", "N") == pytest.approx(5.5)
    assert m.edge_del(1) == m.edge_ins(2) == m.edge_sub(1, 2) == pytest.approx(0.825)
    assert m.edge_sub(1, 1) == 0
    m = costs.chem_2(node_ins_del=2, edge_ins_del=4, alpha=0.5)
    assert (m.node_del("C"), m.node_sub("C", "N"), m.edge_del(1), m.edge_sub(1, 2)) == (1, 2, 2, 2)


def test_chem_costs_of_a_molecule_pair():
    # ethanol C-C-O vs acetaldehyde C-C=O, identity map: only the C-O bond order changes
    g1 = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 1)])
    g2 = Graph({0: {"chem": "C"}, 1: {"chem": "C"}, 2: {"chem": "O"}},
               [(0, 1, {"valence": 1}), (1, 2, {"valence": 2})])
    assert costs.chem_1().compile(g1, g2).cost([0, 1, 2]) == 1
    assert costs.chem_2().compile(g1, g2).cost([0, 1, 2]) == pytest.approx(0.825)
    # deleting the O and its bond instead, then inserting them back
    assert costs.chem_1().compile(g1, g2).cost([0, 1, -1]) == 4 + 1 + 4 + 1
    assert gedkit.ged(g1, g2, costs="CHEM_1").distance == 1


def test_letter():
    m = costs.letter()  # 0.9, 1.7, alpha 0.75
    a, b = {"x": 0, "y": 0}, {"x": "3", "y": "4"}
    assert m.node_sub(a, b) == pytest.approx(3.75)
    assert m.node_del(a) == m.node_ins(b) == pytest.approx(0.675)
    assert m.edge_del(None) == m.edge_ins({"whatever": 1}) == pytest.approx(0.425)
    assert m.edge_sub(None, None) == 0
    low = costs.letter(node_ins_del=0.3, edge_ins_del=0.1, alpha=0.25)
    assert low.node_sub(a, b) == pytest.approx(1.25)
    assert low.node_del(a) == pytest.approx(0.075)
    assert low.edge_del(None) == pytest.approx(0.075)


def test_letter_2_defaults_equal_letter():
    labels = LABELS["letter"][0]
    np.testing.assert_allclose(costs.letter_2().node_matrix(labels),
                               costs.letter().node_matrix(labels))
    np.testing.assert_allclose(costs.letter_2().edge_matrix([None, 1]),
                               costs.letter().edge_matrix([None, 1]))
    m = costs.letter_2(node_ins=1, node_del=2, node_sub=2, edge_ins=3, edge_del=4)
    assert m.node_sub({"x": 0, "y": 0}, {"x": 3, "y": 4}) == 10
    assert (m.node_ins({"x": 0, "y": 0}), m.edge_ins(None), m.edge_del(None)) == (1, 3, 4)


def test_letter_ged_matches_brute_force():
    from helpers import brute_force

    g1 = Graph({0: {"x": 0, "y": 0}, 1: {"x": 1, "y": 0}, 2: {"x": 1, "y": 1}}, [(0, 1), (1, 2)])
    g2 = Graph({0: {"x": 0.1, "y": 0}, 1: {"x": 1, "y": 0.2}}, [(0, 1)])
    p = costs.letter().compile(g1, g2)
    assert gedkit.ged(g1, g2, costs="letter").distance == pytest.approx(brute_force(p))


def test_fingerprint():
    m = costs.fingerprint()  # 0.9, 1.7, alpha 0.75
    assert m.edge_sub({"orient": 0.1}, {"orient": 0.4}) == pytest.approx(0.25 * 0.3)
    # 3 rad apart is pi - 3 rad apart for undirected orientations
    assert m.edge_sub({"orient": 1.5}, {"orient": -1.5}) == pytest.approx(0.25 * (math.pi - 3))
    assert m.edge_sub({"orient": 0.0}, {"orient": 2 * math.pi + 0.2}) == pytest.approx(0.05)
    assert m.edge_del({"orient": 1}) == pytest.approx(0.425)
    assert m.node_sub({"x": 0, "y": 0}, {"x": 9, "y": 9}) == 0
    assert m.node_del(None) == pytest.approx(0.675)


def test_cmu():
    m = costs.cmu()
    assert m.edge_sub({"dist": 10.0}, {"dist": "4"}) == 3
    assert m.edge_del({"dist": 10.0}) == m.edge_ins({"dist": 10}) == 5
    assert m.node_sub({"x": 0, "y": 0}, {"x": 50, "y": 50}) == 0
    assert m.node_del(None) == 50000
    assert costs.cmu(node_ins_del=10, alpha=0.2).edge_del({"dist": 10}) == 8


def test_grec_1():
    m = costs.grec_1()
    a = {"x": 0, "y": 0, "type": "corner"}
    assert m.node_sub(a, {"x": 6, "y": 8, "type": "corner"}) == 5
    assert m.node_sub(a, {"x": 0, "y": 0, "type": "endpoint"}) == 90
    assert m.node_del(a) == 45
    line, arc, two_a, two_b = LABELS["grec"][1]
    assert m.edge_sub(line, arc) == 15
    assert m.edge_sub(line, line) == 0
    assert m.edge_sub(line, two_a) == 7.5
    assert m.edge_sub(two_a, two_b) == 0  # two-part edges are not compared in GREC_1
    assert m.edge_del(line) == 7.5 and m.edge_del(two_a) == 15


def test_grec_2():
    m = costs.grec_2()  # 90, 15, alpha 0.5
    a = {"x": "0", "y": "0", "type": "corner"}
    assert m.node_sub(a, {"x": 6, "y": 8, "type": "corner"}) == 5
    assert m.node_sub(a, {"x": 0, "y": 0, "type": "endpoint"}) == 90
    assert m.node_del(a) == m.node_ins(a) == 45
    line, arc, arc_line, line_line = LABELS["grec"][1]
    assert m.edge_sub(line, arc) == 15  # 0.5 * min(2*15, 15+15)
    assert m.edge_sub(line, arc_line) == 7.5  # line<->line, insert arc: 0.5 * 15
    assert m.edge_sub(arc_line, {**arc_line, "type0": "line", "type1": "arc"}) == 0
    assert m.edge_sub(line_line, arc_line) == 15  # one line matches, the other: 0.5 * 30
    assert m.edge_del(line) == 7.5 and m.edge_ins(arc_line) == 15


def _lsape(parts1, parts2, c):
    """Optimal assignment with insertion/deletion, solved as a square LSAP (reference)."""
    n, m = len(parts1), len(parts2)
    big = 1e9
    cost = np.zeros((n + m, n + m))
    for (i, s), (j, t) in itertools.product(enumerate(parts1), enumerate(parts2)):
        cost[i, j] = 0 if s == t else 2 * c
    cost[:n, m:] = big
    cost[n:, :m] = big
    cost[np.arange(n), m + np.arange(n)] = c
    cost[n + np.arange(m), np.arange(m)] = c
    rows, cols = linear_sum_assignment(cost)
    return cost[rows, cols].sum()


def test_part_assignment_closed_form_equals_lsape():
    rng = np.random.default_rng(5)
    labels = []
    for _ in range(40):
        f = int(rng.integers(0, 4))
        lab = {"frequency": f}
        lab.update({f"type{i}": str(rng.choice(["line", "arc", "circle"])) for i in range(f)})
        labels.append(lab)
    mat = costs.grec_2(edge_ins_del=3.0, alpha=0.25).edge_matrix(labels)
    for i, j in itertools.product(range(len(labels)), repeat=2):
        p1 = [labels[i][f"type{t}"] for t in range(labels[i]["frequency"])]
        p2 = [labels[j][f"type{t}"] for t in range(labels[j]["frequency"])]
        assert mat[i, j] == pytest.approx(0.75 * _lsape(p1, p2, 3.0))


def test_protein():
    m = costs.protein()  # 11, 1, alpha 0.75
    a = {"type": 0, "sequence": "MVTFH"}
    assert m.node_sub(a, {"type": 0, "sequence": "MVSFHA"}) == pytest.approx(1.5)  # 2 edits
    assert m.node_sub(a, {"type": 1, "sequence": "MVTFH"}) == pytest.approx(16.5)
    assert m.node_sub(a, {"type": 0, "sequence": ""}) == pytest.approx(3.75)
    assert m.node_del(a) == pytest.approx(8.25)
    e1, e2, e3 = LABELS["protein"][1]
    assert m.edge_sub(e1, e2) == pytest.approx(0.5)
    assert m.edge_sub(e1, e3) == pytest.approx(0.25)
    assert m.edge_del(e3) == pytest.approx(0.5)


def _levenshtein(s, t):
    prev = list(range(len(t) + 1))
    for i, a in enumerate(s, 1):
        cur = [i]
        for j, b in enumerate(t, 1):
            cur.append(min(prev[j - 1] + (a != b), prev[j] + 1, cur[j - 1] + 1))
        prev = cur
    return prev[-1]


def test_edit_distance_kernel_matches_reference():
    rng = np.random.default_rng(3)
    words = ["".join(rng.choice(list("ACGT"), int(rng.integers(0, 9)))) for _ in range(25)]
    got = _edit_distances(words, np.ones((25, 25), dtype=bool))
    want = [[_levenshtein(s, t) for t in words] for s in words]
    np.testing.assert_array_equal(got, want)


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "kind", "labels", "missing"),
    [
        ("letter", "node", [{"x": 1}], "'y'"),
        ("letter_2", "node", [{"y": 1}], "'x'"),
        ("grec_1", "node", [{"x": 1, "y": 1}], "'type'"),
        ("grec_2", "edge", [{"frequency": 2, "type0": "line"}], "'type1'"),
        ("grec_1", "edge", [{"type0": "line"}], "'frequency'"),
        ("protein", "node", [{"type": 1}], "'sequence'"),
        ("fingerprint", "edge", [{"angle": 1}], "'orient'"),
        ("cmu", "edge", [{"length": 1}], "'dist'"),
        ("chem_1", "node", [{"element": "C"}], "'chem' or 'symbol' or 'atom'"),
        ("chem_2", "edge", [{"order": 1}], "'valence' or 'bond'"),
    ],
)
def test_missing_attribute_names_attribute_and_model(name, kind, labels, missing):
    model = costs.get(name)
    matrix = model.node_matrix if kind == "node" else model.edge_matrix
    with pytest.raises(CostModelError, match=rf"{name}.*{missing}"):
        matrix(labels)


def test_a_cost_function_returning_no_number_is_a_clear_error():
    model = costs.custom(node_sub=lambda a, b: "x")
    with pytest.raises(CostModelError, match=r"node substitution cost of \('C', 'C'\) is 'x', "
                                             r"not a number"):
        model.node_matrix(["C"])
    # a string that reads as a number is still a string (it was taken as 1.0 without a word)
    with pytest.raises(CostModelError, match=r"is '1', not a number"):
        costs.custom(node_sub=lambda a, b: "1").node_matrix(["C"])
    assert costs.custom(node_sub=lambda a, b: np.float32(2)).node_matrix(["C"])[0, 0] == 2.0


def test_bad_labels_are_clear_errors():
    with pytest.raises(CostModelError, match=r"letter.*'x'.*node_label='\*'"):
        costs.letter().node_matrix(["A"])
    with pytest.raises(CostModelError, match=r"chem_1.*unlabelled node"):
        costs.chem_1().node_matrix([None])
    with pytest.raises(CostModelError, match=r"chem_2.*unlabelled edge"):
        costs.chem_2().edge_matrix([None])
    with pytest.raises(CostModelError, match=r"letter.*finite number.*'x'.*'abc'"):
        costs.letter().node_matrix([{"x": "abc", "y": 1}])
    with pytest.raises(CostModelError, match=r"cmu.*finite number.*'dist'"):
        costs.cmu().edge_matrix([{"dist": float("nan")}])
    with pytest.raises(CostModelError, match=r"grec_2.*integer.*'frequency'.*1\.5"):
        costs.grec_2().edge_matrix([{"frequency": 1.5, "type0": "line"}])
    g = Graph({0: {"x": 0}, 1: {"x": 1, "y": 1}}, [(0, 1)])
    with pytest.raises(CostModelError, match="'y'"):
        gedkit.ged(g, g, costs="letter")


@pytest.mark.parametrize(
    ("factory", "kwargs", "match"),
    [
        (costs.chem_2, {"alpha": 1.5}, "alpha"),
        (costs.letter, {"alpha": -0.1}, "alpha"),
        (costs.chem_1, {"node_sub": -1}, "node_sub"),
        (costs.grec_2, {"edge_ins_del": float("inf")}, "edge_ins_del"),
        (costs.protein, {"node_ins_del": "a lot"}, "node_ins_del"),
        (costs.letter_2, {"node_ins": None}, "node_ins"),
    ],
)
def test_bad_constants(factory, kwargs, match):
    with pytest.raises(CostModelError, match=match):
        factory(**kwargs)


# -- GDR4GED ground truth -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def gdr4ged(shared_data) -> Path:
    root = shared_data / "GDR4GED"
    if not root.is_dir():
        pytest.skip(f"GDR4GED not found at {root}")
    return root


_GRAPHS: dict[Path, Graph] = {}


def _gxl(path: Path) -> Graph:
    if path not in _GRAPHS:
        _GRAPHS[path] = gedkit.read(path, node_label="*", edge_label="*")
    return _GRAPHS[path]


_NODE_OP = re.compile(r"Node:([^=]+?)-?>([^=]+)=.*")


def _rows(root: Path, subset: str):
    """``(csv, g1, g2, distance, optimal, forward or None)`` per stored pair; ``forward`` is
    None where the stored matching does not place every node of g1."""
    for csv in sorted((root / subset / "low-level-info").glob("*.csv")):
        for line in csv.read_text().splitlines()[1:]:
            cols = line.split(";")
            if len(cols) < 10 or not cols[0].endswith(".gxl"):
                continue
            g1 = _gxl(root / subset / "graphs" / cols[0])  # ids as in the CSV
            g2 = _gxl(root / subset / "graphs" / cols[1])
            pairs = dict(m.groups() for op in cols[-1].split("/") if (m := _NODE_OP.fullmatch(op)))
            forward = None
            if all(u in pairs for u in g1.ids):
                forward = [-1 if pairs[u].startswith("eps") else g2.index(pairs[u]) for u in g1.ids]
            yield csv.name, g1, g2, float(cols[8]), cols[9].strip() == "true", forward


def _compare(root, subset, model, optimal_only):
    """Counts of stored node maps whose cost under ``model`` equals / differs from the stored
    distance (CSV values carry 5 decimals), and the differing pairs."""
    same, mismatched = 0, []
    for csv, g1, g2, dist, optimal, forward in _rows(root, subset):
        if forward is None or (optimal_only and not optimal):
            continue
        cost = model.compile(g1, g2).cost(forward)
        if abs(cost - dist) <= 1e-4:
            same += 1
        else:
            mismatched.append((csv, g1.name, g2.name, dist, cost))
    return same, mismatched


# GDR4GED's MUTA costs, read off its matchings: node ins/del/sub 5.5, edge ins/del 0.825, edge
# sub 0 (valence ignored). GEDLIB's CHEM_2 default (2.75/5.5/0.825/0.825) differs.
GDR_MUTA = costs.chem_1(node_ins_del=5.5, node_sub=5.5, edge_ins_del=0.825, edge_sub=0)


@pytest.mark.parametrize(
    ("subset", "model", "n_optimal", "n_all"),
    [
        ("GREC", costs.grec_2(), 440, 499),
        ("CMU", costs.cmu(), 111, 660),
        ("MUTA", GDR_MUTA, 59, 794),
    ],
)
def test_gdr4ged_node_maps_cost_the_stored_distance(gdr4ged, subset, model, n_optimal, n_all):
    same, mismatched = _compare(gdr4ged, subset, model, optimal_only=True)
    assert mismatched == [] and same == n_optimal
    # the non-optimal rows are upper bounds found under the same costs: their maps too
    same, mismatched = _compare(gdr4ged, subset, model, optimal_only=False)
    assert mismatched == [] and same == n_all


def test_gdr4ged_tells_grec_1_from_grec_2(gdr4ged):
    _, mismatched = _compare(gdr4ged, "GREC", costs.grec_1(), optimal_only=True)
    assert len(mismatched) == 3


def test_gdr4ged_muta_is_not_gedlib_chem_2(gdr4ged):
    same, mismatched = _compare(gdr4ged, "MUTA", costs.chem_2(), optimal_only=True)
    assert same < len(mismatched)


class _GdrProtein(ProteinCosts):
    """GDR4GED's Protein node costs as read off its matchings (not GEDLIB's PROTEIN): insertion
    and deletion 8.25, type change 8.25, same type 8.25 per sequence edit capped at 16.5. Edges
    as GEDLIB's PROTEIN."""

    def _node_parts(self, labels):
        other_type = differ(categories(values(labels, "type", self.name, "node")))
        edits = _edit_distances(values(labels, "sequence", self.name, "node"), ~other_type)
        ins_del = np.full(len(labels), 8.25)
        return np.where(other_type, 8.25, np.minimum(8.25 * edits, 16.5)), ins_del, ins_del


def test_gdr4ged_protein(gdr4ged):
    # GEDLIB's PROTEIN reproduces only the identical pairs (distance 0)
    same, mismatched = _compare(gdr4ged, "Protein", costs.protein(), optimal_only=True)
    assert same == 40 and len(mismatched) == 8
    assert all(g1 != g2 for _, g1, g2, _, _ in mismatched)
    # GDR4GED's own node costs with GEDLIB's edge costs reproduce all but one pair (both ways),
    # whose stored matching leaves out edges the node map implies
    gdr_protein = _GdrProtein(node_ins_del=11, edge_ins_del=1, alpha=0.75)
    same, mismatched = _compare(gdr4ged, "Protein", gdr_protein, optimal_only=True)
    assert same == 46
    assert {(g1, g2) for _, g1, g2, _, _ in mismatched} == {
        ("enzyme_371", "enzyme_378"), ("enzyme_378", "enzyme_371")}


def test_gdr4ged_exact_ged_on_grec5(gdr4ged):
    """The exact solver finds the stored optimum under GREC_2 (5-node graphs)."""
    checked = 0
    for csv, g1, g2, dist, optimal, _ in _rows(gdr4ged, "GREC"):
        if csv.startswith("GREC5") and optimal and g1.name < g2.name and checked < 10:
            assert gedkit.ged(g1, g2, costs="grec_2").distance == pytest.approx(dist, abs=1e-4)
            checked += 1
    assert checked == 10


def test_constant_costs_are_spelled_with_their_arguments(capsys):
    from gedkit.cli import main

    model = costs.get("constant:node_sub=3, edge_sub=2.5")
    assert (model.node_sub("C", "O"), model.edge_sub(1, 2), model.node_del("C")) == (3, 2.5, 1)
    # relabelling O -> N costs 3, deleting O and inserting N costs 2
    assert gedkit.ged(Graph({0: "O"}), Graph({0: "N"}), costs="constant:node_sub=3").distance == 2
    for bad, message in [("constant:node_sub=x", "node_sub must be a number"),
                         ("constant:nodesub=1", "KEY one of node_ins"),
                         ("constant:node_sub", "not KEY=VALUE"),
                         ("constant:edge_del=-1", "non-negative"),
                         ("constant:node_sub=1,node_sub=3", "node_sub is given twice"),
                         ("chem_2:node_sub=1", "KEY one of node_ins_del, edge_ins_del, alpha"),
                         ("letter:alpha=-1", "alpha must be a number >= 0"),
                         ("letter:alpha=nan", "alpha must be a number >= 0"),
                         ("uniform:node_sub=1", "uniform cost model takes no constants"),
                         ("nosuch:a=1", "unknown cost model 'nosuch'")]:
        with pytest.raises(CostModelError, match=message):
            costs.get(bad)
    with pytest.raises(CostModelError, match="NAME:KEY=VALUE"):
        costs.get("no-such-model")
    # every model's constants by name (Letter MED and LOW, GDR4GED's MUTA ground truth: only
    # constant took any, so the command line could not set them)
    assert costs.get("letter:alpha=0.5").params["alpha"] == 0.5
    muta = costs.get("chem_1:node_ins_del=5.5,node_sub=5.5,edge_ins_del=0.825,edge_sub=0")
    assert muta.params == costs.chem_1(5.5, 5.5, 0.825, 0).params
    mol = str(Path(__file__).parent / "data" / "io" / "caffeine.mol")
    assert main(["ged", mol, mol, "--costs", "constant:node_sub=3"]) == 0
    assert main(["ged", mol, mol, "--costs", "constant:node_sub=x"]) == 2
    assert "node_sub must be a number" in capsys.readouterr().err


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("kind", ["node", "edge"])
def test_costs_between_is_the_square_matrix_sliced(name, kind):
    model = costs.get(name)
    labels = LABELS[FAMILY[name]][0 if kind == "node" else 1]
    matrix = model.node_matrix if kind == "node" else model.edge_matrix
    for a, b in ((labels[:1], labels[1:]), (labels[1:], labels[:2]), (labels, labels[::-1])):
        m = np.asarray(matrix([*a, *b]))
        sub, delete, insert = model.costs_between(kind, a, b)
        k = len(a) + len(b)
        np.testing.assert_allclose(sub, m[:len(a), len(a):k])
        np.testing.assert_allclose(delete, m[:len(a), k])
        np.testing.assert_allclose(insert, m[k, len(a):k])


@pytest.mark.parametrize("value, words", [(1e-10, "not told apart"), (1.7e308, "overflow"),
                                          (1e308, "overflow")])
def test_costs_too_small_to_tell_apart_or_too_large_to_sum_are_refused(value, words):
    """Every cost 1e-10: every solver stopped at a distance it took for equal to its bound
    (7e-10 "optimal" against 5e-10); 1.7e308: sums overflowed (exact search never ended,
    the time limit ignored), 1e308 with a fixed pair: an OverflowError traceback. Now one
    line, from every entry point."""
    g1 = gedkit.Graph({0: "C", 1: "O", 2: "N"}, [(0, 1, 1), (1, 2, 2)])
    g2 = gedkit.Graph({0: "C", 1: "N", 2: "S", 3: "C"}, [(0, 1, 1), (1, 2, 1), (2, 3, 2),
                                                          (0, 3, 1)])
    model = costs.constant(*[value] * 6)
    calls = [lambda: gedkit.ged(g1, g2, costs=model, method="exact", timeout=2),
             lambda: gedkit.ged(g1, g2, costs=model, fixed=[(0, 0)], timeout=2),
             # (once, not a failed entry per pair, one stderr line each on the command line)
             lambda: gedkit.pairwise([g1, g2], costs=model, progress=False)]
    for call in calls:
        with pytest.raises(gedkit.CostModelError, match=words) as err:
            call()
        assert "\n" not in str(err.value)
    coll = gedkit.Collection()
    coll.add([g1, g2])
    with pytest.raises(gedkit.CostModelError, match=words):
        coll.range(g1, 3 * value, costs=model)
    assert gedkit.ged(g1, g2, costs=costs.constant(*[1e-5] * 6)).distance == pytest.approx(5e-5)


def test_a_custom_model_declared_symmetric_is_checked():
    """``custom(..., symmetric=True)`` with deletion 0.5 and insertion 3: pairwise solved
    one of each pair and mirrored it (8.4 where the other way is 2.4); such a model is now
    refused, naming what differs, and a symmetric one mirrors rightly."""
    a = gedkit.Graph({0: "C", 1: "O", 2: "N"}, [(0, 1, 1), (1, 2, 2)])
    b = gedkit.Graph({0: "C", 1: "N", 2: "S", 3: "C"}, [(0, 1, 1), (1, 2, 1), (2, 3, 2),
                                                         (0, 3, 1)])
    lopsided = costs.custom(node_del=0.5, node_ins=3, edge_del=0.25, edge_ins=2, edge_sub=0.4,
                            symmetric=True)
    with pytest.raises(gedkit.CostModelError, match=r"declared symmetric, but deleting and "
                                                     r"inserting a node label cost 0.5 and 3"):
        gedkit.ged(b, a, costs=lopsided)
    assert "declared symmetric" in next(iter(
        gedkit.pairwise([a, b], costs=lopsided, progress=False).errors.values()))
    even = costs.custom(node_del=2, node_ins=2, node_sub=lambda x, y: 1.5, symmetric=True)
    m = gedkit.pairwise([a, b], costs=even, progress=False)
    assert m.distance[0, 1] == m.distance[1, 0] == gedkit.ged(b, a, costs=even).distance


def test_a_cost_factory_passed_uncalled_gets_a_hint():
    """``costs=gedkit.costs.uniform`` (the function) said only "got function"."""
    with pytest.raises(gedkit.CostModelError, match=r"call it, gedkit\.costs\.uniform\(\)"):
        gedkit.ged("CCO", "CCN", costs=costs.uniform)
    with pytest.raises(gedkit.CostModelError, match=r"gedkit\.costs\.custom\(node_sub="):
        gedkit.ged("CCO", "CCN", costs=lambda a, b: 1.0)


def test_about_an_unknown_model_is_get_s_one_line_error():
    """``costs.about`` of a name no model has: the error ``costs.get`` gives, listing the
    models (a bare ``KeyError``)."""
    with pytest.raises(gedkit.errors.CostModelError, match=r"unknown cost model 'nosuch'; "
                       "choose one of: .*uniform"):
        gedkit.costs.about("nosuch")
    with pytest.raises(gedkit.errors.CostModelError, match="not a registered cost model"):
        gedkit.costs.about("constant:node_sub=3")
    assert gedkit.costs.about("UNIFORM").startswith("Unit costs")
