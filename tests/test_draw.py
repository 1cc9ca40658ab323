"""Pictures of results (gedkit.draw): SVG structure, PNG size, captions, layouts, limits, CLI.

Headless: everything renders with matplotlib's Agg/SVG backends, never a window. RDKit is
optional: molecule tests skip without it (general graphs are drawn either way).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import gedkit
from gedkit import Graph
from gedkit.errors import OptionError

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from gedkit.draw import draw, draw_steps  # noqa: E402
from gedkit.draw.output import svg_text  # noqa: E402
from gedkit.problem import EditOperation  # noqa: E402

_SVG = "{http://www.w3.org/2000/svg}"


def _svg(fig) -> ET.Element:
    return ET.fromstring(svg_text(fig).encode())


def _op_ids(root: ET.Element) -> list[str]:
    """The ids of the elements that each stand for one operation (``op-K``)."""
    return sorted((el.get("id") for el in root.iter() if re.fullmatch(r"op-\d+", el.get("id")
                                                                       or "")),
                  key=lambda s: int(s[3:]))


def _labelled(labels, edges, name=None):
    return Graph(dict(enumerate(labels)), edges, name=name)


@pytest.fixture(scope="module")
def general_result():
    g1 = _labelled("abcd", [(0, 1, "x"), (1, 2, "x"), (2, 3, "y")], name="left")
    g2 = _labelled("axce", [(0, 1, "x"), (1, 2, "z"), (0, 2, "x")], name="right")
    return gedkit.ged(g1, g2, method="astar")


@pytest.fixture(scope="module")
def molecule_result():
    pytest.importorskip("rdkit")
    return gedkit.ged(gedkit.from_smiles("c1ccccc1CCO", name="phenylethanol"),
                      gedkit.from_smiles("Cc1ccccc1C(=O)N", name="methylbenzamide"),
                      costs="chem_2")


@pytest.fixture(scope="module")
def bounded_result():
    """A result whose bounds do not meet (a one-assignment heuristic)."""
    g1 = Graph.from_networkx(nx.petersen_graph())
    g2 = Graph.from_networkx(nx.cycle_graph(10))
    r = gedkit.ged(g1, g2, method="node")
    assert not r.optimal
    return r


# -- SVG: one element per operation, valid XML, caption, tooltips ----------------------------

@pytest.mark.parametrize("which", ["general_result", "molecule_result", "bounded_result"])
def test_svg_has_one_element_per_operation(which, request):
    r = request.getfixturevalue(which)
    root = _svg(draw(r))
    assert root.tag == f"{_SVG}svg"
    ids = _op_ids(root)
    assert ids == [f"op-{k}" for k in range(len(r.edit_path))]
    # substitutions show on both sides: their g2 twin has its own id
    subs = [k for k, op in enumerate(r.edit_path) if op.kind.endswith("_sub")]
    twins = {el.get("id") for el in root.iter() if (el.get("id") or "").endswith("-g2")}
    assert twins == {f"op-{k}-g2" for k in subs}


@pytest.mark.parametrize("which", ["general_result", "molecule_result"])
def test_svg_tooltips_speak_each_operation(which, request):
    r = request.getfixturevalue(which)
    root = _svg(draw(r))
    for k, op in enumerate(r.edit_path):
        group = next(el for el in root.iter() if el.get("id") == f"op-{k}")
        title = group.find(f"{_SVG}title")
        assert title is not None and op.describe() in title.text


def test_caption_states_answer_and_certificate(general_result, bounded_result):
    fig = draw(general_result)
    assert fig._gedkit_caption == f"GED = {general_result.distance:g} (optimal, uniform)"
    lo, hi = bounded_result.lower_bound, bounded_result.upper_bound
    assert draw(bounded_result)._gedkit_caption.startswith(f"{lo:g} ≤ GED ≤ {hi:g} (")
    # the caption is in the picture itself: matplotlib writes each text as an SVG comment
    assert f"GED = {general_result.distance:g} (optimal, uniform)" in svg_text(fig)


def test_caption_names_literature_costs_and_time_limit(molecule_result):
    assert "(optimal, CHEM_2)" in draw(molecule_result)._gedkit_caption
    from gedkit.draw.caption import ged_caption

    r = gedkit.ged(Graph.from_networkx(nx.petersen_graph()),
                   Graph.from_networkx(nx.cycle_graph(10)), method="node")
    r.stats["stopped"] = "time limit"
    assert ged_caption(r)[0] == (f"{r.lower_bound:g} ≤ GED ≤ {r.upper_bound:g} "
                                 "(time limit, uniform)")


def test_relabelling_text_and_legend(general_result):
    text = svg_text(draw(general_result))
    relabels = [op for op in general_result.edit_path if op.kind == "node_sub"]
    assert relabels, "the fixture relabels a node"
    for op in relabels:
        assert f"{op.source_label}→{op.target_label}" in text
    for word in ("kept", "relabelled", "deleted (on g1)", "inserted (on g2)"):
        assert word in text


# -- PNG ----------------------------------------------------------------------------------------

def _png_pixels(path):
    from matplotlib.image import imread

    return imread(str(path))


@pytest.mark.parametrize("which", ["general_result", "molecule_result"])
def test_png_is_non_blank_and_of_requested_size(which, request, tmp_path):
    r = request.getfixturevalue(which)
    out = draw(r, tmp_path / "pic.png", figsize=(8, 4), dpi=50)
    assert out is not None
    pixels = _png_pixels(tmp_path / "pic.png")
    assert pixels.shape[:2] == (200, 400)
    ink = (pixels[:, :, :3] < 0.9).any(axis=2).mean()
    assert 0.01 < ink < 0.5  # something drawn, not a black square


def test_path_extensions_and_errors(general_result, tmp_path):
    for ext in ("svg", "png", "pdf"):
        draw(general_result, tmp_path / f"p.{ext}")
        assert (tmp_path / f"p.{ext}").stat().st_size > 1000
    ET.parse(tmp_path / "p.svg")
    with pytest.raises(OptionError, match=r"ending in \.svg, \.png or \.pdf"):
        draw(general_result, tmp_path / "p.jpg")
    with pytest.raises(OptionError, match="does not exist"):
        draw(general_result, tmp_path / "missing" / "p.svg")
    with pytest.raises(OptionError, match="cannot draw a str"):
        draw("not a result")


def test_svg_output_is_reproducible(general_result, tmp_path):
    draw(general_result, tmp_path / "a.svg")
    draw(general_result, tmp_path / "b.svg")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


# -- layouts ------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::gedkit.errors.UnlabelledWarning")  # weights, unread
def test_layouts_are_deterministic_and_g2_is_seeded_from_g1():
    from gedkit.draw.pictures import pair_positions
    from gedkit.draw.scene import kept_anchors

    g1 = Graph.from_networkx(nx.les_miserables_graph())
    h = nx.les_miserables_graph()
    h.remove_node("Valjean")
    g2 = Graph.from_networkx(h)
    r = gedkit.ged(g1, g2, method="branch")
    a1, a2 = pair_positions(g1, g2, r.assignment, molecule=False)
    b1, b2 = pair_positions(g1, g2, r.assignment, molecule=False)
    assert np.array_equal(a1, b1) and np.array_equal(a2, b2)
    pinned = kept_anchors(g1, g2, r.assignment)
    assert pinned.sum() > g1.n // 2
    i = np.flatnonzero(pinned)
    assert np.allclose(a1[i], a2[r.assignment[i]])


def test_molecule_coordinates_are_seeded_through_the_node_map(molecule_result):
    from gedkit.draw.pictures import pair_positions
    from gedkit.draw.scene import kept_anchors

    r = molecule_result
    g1, g2 = r.problem.g1, r.problem.g2
    p1, p2 = pair_positions(g1, g2, r.assignment, molecule=True)
    pinned = np.flatnonzero(kept_anchors(g1, g2, r.assignment))
    assert len(pinned) >= 6  # at least the benzene ring
    assert np.allclose(p1[pinned], p2[r.assignment[pinned]], atol=1e-6)
    # bonds are about one unit long in both pictures
    for p, g in ((p1, g1), (p2, g2)):
        lengths = np.linalg.norm(p[g.edges[:, 0]] - p[g.edges[:, 1]], axis=1)
        assert 0.9 < np.median(lengths) < 1.1
    q1, q2 = pair_positions(g1, g2, r.assignment, molecule=True)
    assert np.array_equal(p1, q1) and np.array_equal(p2, q2)


def test_pins_that_would_stretch_a_ring_leave_it_whole():
    """Caffeine's common part with 2-amino-5-chloropyridine runs along its two rings and
    around the pyridine: pinned at caffeine's places, the pyridine was drawn open, one bond
    across the picture and others crossing it. Drawn on its own and laid onto the pins
    instead: every bond about one unit long, the pinned atoms near their places."""
    pytest.importorskip("rdkit")
    from gedkit.draw.pictures import pair_positions
    from gedkit.draw.scene import kept_anchors

    r = gedkit.mces("Cn1cnc2c1c(=O)n(C)c(=O)n2C", "Nc1ccc(Cl)nc1")
    g1, g2 = r.problem.g1, r.problem.g2
    forward = np.full(g1.n, -1)
    for u, v in r.node_map:
        if u is not None and v is not None:
            forward[g1.index(u)] = g2.index(v)
    p1, p2 = pair_positions(g1, g2, forward, molecule=True)
    lengths = np.linalg.norm(p2[g2.edges[:, 0]] - p2[g2.edges[:, 1]], axis=1)
    assert lengths.max() < 1.3 and lengths.min() > 0.75, lengths
    pinned = np.flatnonzero(kept_anchors(g1, g2, forward))
    assert len(pinned) >= 4
    assert np.linalg.norm(p1[pinned] - p2[forward[pinned]], axis=1).mean() < 1.0


def test_molecules_are_recognised():
    from gedkit.draw.molecule import is_molecule

    assert is_molecule(_labelled("CNO", [(0, 1, 1), (1, 2, 2)]))
    assert is_molecule(_labelled("CCO", [(0, 1), (1, 2)]))  # unlabelled bonds: single
    assert not is_molecule(_labelled("abc", [(0, 1)]))
    assert not is_molecule(_labelled("CCO", [(0, 1, "x"), (1, 2, 1)]))
    # a graph of carbons too large for a molecule is drawn as a graph (RDKit's depiction of
    # a 2,000-"atom" search query took minutes), unless molecule=True asks for it
    from gedkit.draw.pictures import MOLECULE_ATOMS, treat_as_molecules

    chain = _labelled("C" * (MOLECULE_ATOMS + 1), [(k, k + 1) for k in range(MOLECULE_ATOMS)])
    assert is_molecule(chain) and not treat_as_molecules([chain], None)
    assert treat_as_molecules([chain], True)


# -- any size -----------------------------------------------------------------------------------

@pytest.mark.parametrize("pair", [
    (Graph(), Graph()),
    (Graph(), _labelled("a", [])),
    (_labelled("a", []), Graph()),
    (_labelled("C", []), _labelled("C", [])),
    (_labelled("C", []), _labelled("N", [])),
])
def test_tiny_graphs_draw(pair):
    r = gedkit.ged(*pair)
    root = _svg(draw(r))
    assert len(_op_ids(root)) == len(r.edit_path)
    draw(r, steps=True)
    m = gedkit.mces(*pair)
    draw(m)


def test_empty_graph_says_so():
    text = svg_text(draw(gedkit.ged(Graph(), _labelled("ab", [(0, 1)]))))
    assert "(empty graph)" in text


def test_large_and_disconnected_graphs_draw():
    g1 = Graph.from_networkx(nx.gnm_random_graph(200, 300, seed=1))
    h = nx.gnm_random_graph(200, 300, seed=1)
    h.remove_edges_from(list(h.edges())[:10])
    h.add_edges_from([(0, 199), (1, 198)])
    h.add_nodes_from([200, 201])
    g2 = Graph.from_networkx(h)
    r = gedkit.ged(g1, g2, method="branch")
    fig = draw(r)
    assert "labels left out" in svg_text(fig)
    root = _svg(fig)
    assert len(_op_ids(root)) == len(r.edit_path)
    # a picture as wide as the default holds all the nodes within the figure
    assert fig.get_size_inches()[0] <= 20
    # disconnected: components packed, nothing flung out of the picture
    from gedkit.draw.layout import layout

    pos = layout(Graph.from_networkx(nx.disjoint_union_all(
        [nx.cycle_graph(5), nx.path_graph(4), nx.empty_graph(3)])))
    assert np.ptp(pos, axis=0).max() < 8


def test_force_layout_pins_parts_and_repeats():
    """The compiled layout of large components: fixed nodes stay, coincident nodes part,
    edges come out shorter than the average distance, the same positions every run."""
    from gedkit.draw.force import force_layout

    rng = np.random.default_rng(0)
    g = nx.gnm_random_graph(120, 200, seed=3)
    edges = np.array(g.edges(), dtype=np.int64)
    start = rng.uniform(0, 10, (120, 2))
    start[50] = start[51]  # two nodes on one spot
    fixed = np.zeros(120, dtype=bool)
    fixed[:10] = True
    pos = force_layout(start, edges, fixed, 60, 1.0)
    assert np.array_equal(pos[:10], start[:10]) and np.isfinite(pos).all()
    assert not np.allclose(pos[50], pos[51])
    length = np.linalg.norm(pos[edges[:, 0]] - pos[edges[:, 1]], axis=1).mean()
    spread = np.linalg.norm(pos[:, None] - pos[None], axis=2).mean()
    assert length < 0.5 * spread
    assert np.array_equal(pos, force_layout(start, edges, fixed, 60, 1.0))


def test_large_pictures_lay_out_and_draw_operations_per_role(monkeypatch, tmp_path):
    """Past the size where NetworkX's spring layout takes seconds, components are laid out
    by the compiled force layout (pinned nodes of g2 at their g1 counterparts still), and
    past OP_ARTISTS operations a panel draws them as one collection per role (no SVG id
    each): the same picture, in seconds instead of half a minute on 2,000 nodes."""
    import gedkit.draw.general as general
    import gedkit.draw.layout as lay
    from gedkit.draw.pictures import pair_positions
    from gedkit.draw.scene import kept_anchors

    monkeypatch.setattr(lay, "_SPRING_MAX", 50)  # these graphs count as large
    g1 = Graph.from_networkx(nx.gnm_random_graph(90, 150, seed=1))
    h = nx.gnm_random_graph(90, 150, seed=1)
    h.remove_edges_from(list(h.edges())[:20])
    h.add_nodes_from(range(90, 100))
    h.add_edges_from((k, k - 90) for k in range(90, 100))
    g2 = Graph.from_networkx(h)
    r = gedkit.ged(g1, g2, method="branch")
    p1, p2 = pair_positions(g1, g2, r.assignment, molecule=False)
    again = pair_positions(g1, g2, r.assignment, molecule=False)
    assert np.array_equal(p1, again[0]) and np.array_equal(p2, again[1])
    pinned = kept_anchors(g1, g2, r.assignment)
    i = np.flatnonzero(pinned)
    assert len(i) and np.allclose(p1[i], p2[r.assignment[i]])
    assert np.isfinite(p2).all()
    ops = len(_op_ids(_svg(draw(r))))
    assert ops == len(r.edit_path)  # one artist each, below OP_ARTISTS
    monkeypatch.setattr(general, "OP_ARTISTS", 5)
    fig = draw(r)
    assert _op_ids(_svg(fig)) == []  # grouped: no id per operation
    out = tmp_path / "large.png"
    fig.savefig(out)
    assert out.stat().st_size > 10_000


def test_dense_labels_can_be_forced():
    g = Graph.from_networkx(nx.gnm_random_graph(120, 150, seed=2))
    r = gedkit.ged(g, g, method="branch")
    assert "labels left out" not in svg_text(draw(r, labels=True))


# -- MCES ----------------------------------------------------------------------------------------

def test_mces_picture():
    g1 = _labelled("CCCCO", [(0, 1), (1, 2), (2, 3), (3, 4)])
    g2 = _labelled("CCCNCC", [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
    m = gedkit.mces(g1, g2)
    fig = m.draw()
    from gedkit.draw.caption import fragments

    assert fig._gedkit_caption == (f"MCES: {m.num_edges} common edges (optimal)  ·  "
                                   f"similarity {m.similarity:.3g}  ·  {fragments(m)} "
                                   f"fragment{'s' if fragments(m) != 1 else ''}")
    root = _svg(fig)
    assert len(_op_ids(root)) == m.num_edges
    twins = [el for el in root.iter() if re.fullmatch(r"op-\d+-g2", el.get("id") or "")]
    assert len(twins) == m.num_edges


def test_mces_fragments_counted():
    g = Graph(range(7), [(0, 1), (1, 2), (3, 4), (5, 6)])
    m = gedkit.mces(g, g)
    assert "3 fragments" in m.draw()._gedkit_caption


# -- steps --------------------------------------------------------------------------------------

def test_step_strip(general_result):
    fig = draw(general_result, steps=True)
    steps = [a for a in fig.axes if (a.get_gid() or "").startswith("step-")]
    assert len(steps) == len(general_result.edit_path) + 1
    titles = [a.get_title() for a in steps]
    assert titles[0] == "g1" and titles[-1].endswith("(= g2)")
    for op in general_result.edit_path:
        assert any(op.describe() in t for t in titles)
    assert len(_op_ids(_svg(fig))) == len(general_result.edit_path)


def test_a_step_strip_of_no_step_is_as_wide_as_its_legend():
    """Two empty graphs, or two alike: one panel, and the legend whole (it was cut at both
    ends of a 3.5-inch figure)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    for g in (Graph({}), Graph({0: "C"})):
        fig = draw(gedkit.ged(g, g), steps=True)
        FigureCanvasAgg(fig).draw()
        legend = fig.legends[0].get_window_extent()
        assert legend.x0 >= 0 and legend.x1 <= fig.bbox.width


def test_long_names_are_cut_in_panel_titles():
    # two 45-atom SMILES as names ran into each other and off the picture; a tab in a SMILES
    # file's title has no glyph
    g1 = Graph({0: "C", 1: "O"}, [(0, 1)], name="C" * 60 + "\tx")
    fig = draw(gedkit.ged(g1, Graph({0: "C"}, name="short")))
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    first = next(t for t in texts if t.startswith("g1: "))
    assert first.splitlines()[0] == "g1: " + "C" * 31 + "…"
    assert any(t.startswith("g2: short") for t in texts)


def test_step_strip_refuses_long_paths():
    g1 = Graph.from_networkx(nx.path_graph(120))
    r = gedkit.ged(g1, Graph(), method="branch")
    assert len(r.edit_path) > 200
    with pytest.raises(OptionError, match=r"^the edit path has \d+ operations, more than a "
                                          r"step strip of 30 shows"):
        draw(r, steps=True)
    with pytest.raises(OptionError, match="max_steps"):
        draw_steps(r, max_steps=500)


def test_step_order_is_valid():
    from gedkit.draw.steps import step_order

    g1 = _labelled("abc", [(0, 1), (1, 2)])
    g2 = _labelled("xd", [(0, 1)])
    r = gedkit.ged(g1, g2)
    kinds = [r.edit_path[k].kind for k in step_order(r.edit_path)]
    order = ["edge_del", "node_del", "node_sub", "edge_sub", "node_ins", "edge_ins"]
    assert kinds == sorted(kinds, key=order.index)


# -- axes, notebooks, imports --------------------------------------------------------------------

def test_draws_on_given_axes(general_result):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3))
    ax = fig.add_subplot()
    assert draw(general_result, ax=ax) is ax
    assert "GED =" in ax.get_title()


def test_notebook_reprs(general_result):
    svg = general_result._repr_svg_()
    ET.fromstring(svg.encode())
    assert general_result._repr_svg_() is svg  # drawn once
    html = general_result._repr_html_()
    assert html.startswith("<div><pre") and "&lt;Result distance=" in html and "<svg" in html
    m = gedkit.mces(_labelled("CCO", [(0, 1), (1, 2)]), _labelled("CCN", [(0, 1), (1, 2)]))
    ET.fromstring(m._repr_svg_().encode())


def test_import_gedkit_loads_no_drawing_library():
    code = ("import sys, gedkit; r = gedkit.ged(gedkit.Graph([0]), gedkit.Graph([0, 1])); "
            "print(any(m.startswith(('matplotlib', 'rdkit')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_gedkit_draw_is_callable_both_ways(general_result):
    import gedkit.draw.steps  # importing a submodule must not shadow the call

    assert gedkit.draw(general_result)._gedkit_caption.startswith("GED =")
    assert callable(gedkit.draw.draw_steps)


def test_missing_matplotlib_says_how_to_install(monkeypatch, general_result):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match=r"pip install 'gedkit\[draw\]'"):
        draw(general_result)


# -- printed edit paths ---------------------------------------------------------------------------

def test_edit_operations_speak_labels(general_result):
    texts = [str(op) for op in general_result.edit_path]
    assert "relabel node 1: b → x" in texts
    assert all(repr(op).startswith("<EditOperation ") for op in general_result.edit_path)
    assert str(EditOperation("node_del", 9, None, 1.0, "O")) == "delete node 9 (O)"
    assert str(EditOperation("edge_ins", None, ("a", "c"), 1.0, None, 2)) == \
        "insert edge a–c (2)"
    assert str(EditOperation("node_del", 9, None, 1.0)) == "delete node 9"


# -- command line ---------------------------------------------------------------------------------

def _cli(capsys, *argv):
    from gedkit.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def graph_files(tmp_path):
    g1 = _labelled("abcd", [(0, 1), (1, 2), (2, 3)])
    g2 = _labelled("axce", [(0, 1), (1, 2), (0, 2)])
    paths = []
    for k, g in enumerate((g1, g2)):
        p = tmp_path / f"g{k}.json"
        gedkit.write(g, p)
        paths.append(str(p))
    return paths


def test_cli_ged_draw(capsys, graph_files, tmp_path):
    out_svg = tmp_path / "out.svg"
    code, out, err = _cli(capsys, "ged", *graph_files, "--draw", str(out_svg))
    assert code == 0 and f"picture written to {out_svg}" in err
    root = ET.parse(out_svg).getroot()
    assert len(_op_ids(root)) == int(re.search(r"edit path \((\d+) operations", out)[1])
    # the text output speaks labels
    assert re.search(r"relabel node\s+1\s+->\s+1\s+b -> x", out)
    code, _, _ = _cli(capsys, "ged", *graph_files, "--draw", str(tmp_path / "s.png"),
                      "--steps")
    assert code == 0 and (tmp_path / "s.png").stat().st_size > 1000


def test_cli_steps_of_a_long_path_are_drawn_all_the_same(capsys, tmp_path):
    # 15 operations: a panel each, up to the strip's most (30), in the command line and in
    # Python alike (Python's default was 12); 55: one picture, said (an exit 2 after the
    # answer lost the picture for nothing)
    for b, count, strip in (("smiles:OCC", 15, True), ("smiles:O", 55, False)):
        out_svg = tmp_path / f"{count}.svg"
        code, _, err = _cli(capsys, "ged", "smiles:" + "C" * (10 if strip else 28), b,
                            "--draw", str(out_svg), "--steps")
        assert code == 0 and out_svg.stat().st_size > 1000
        assert ("drawn in one picture" in err) == (not strip)
        assert (f"{count} operations" in out_svg.read_text()) or not strip
    r = gedkit.ged("C" * 10, "OCC")
    assert len(r.edit_path) == 15 and draw(r, steps=True) is not None


def test_cli_mces_draw(capsys, graph_files, tmp_path):
    code, _, _ = _cli(capsys, "mces", *graph_files, "--draw", str(tmp_path / "m.png"))
    assert code == 0 and (tmp_path / "m.png").stat().st_size > 1000


def test_cli_pictures_are_written_whatever_became_of_stdout(graph_files, tmp_path):
    """The reader of stdout gone before the answer is printed (``| true``): the picture of
    ``--draw`` was never written, with exit status 0; stdout closed from the start (``>&-``):
    a traceback at exit, status 1."""
    for command in ("ged", "mces"):
        picture = tmp_path / f"{command}.png"
        child = subprocess.Popen([sys.executable, "-m", "gedkit", command, *graph_files,
                                  "--draw", str(picture)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        child.stdout.close()  # before the answer: its print meets a broken pipe
        err = child.stderr.read().decode()
        assert child.wait() == 0 and picture.stat().st_size > 1000, err
        assert "Traceback" not in err
    picture = tmp_path / "closed.png"
    done = subprocess.run([sys.executable, "-m", "gedkit", "ged", *graph_files, "--draw",
                           str(picture)], stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert picture.stat().st_size > 1000


def test_cli_bad_picture_name_fails_before_solving(capsys, graph_files, tmp_path):
    code, out, err = _cli(capsys, "ged", *graph_files, "--draw", str(tmp_path / "x.gif"))
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "give a file name ending in" in err
    code, _, err = _cli(capsys, "ged", *graph_files, "--steps")
    assert code == 2 and "--draw" in err


def test_cli_search_grid(capsys, tmp_path, monkeypatch):
    coll_path = tmp_path / "lib.gdb"
    coll = gedkit.Collection.create(coll_path)
    coll.add([_labelled("CCO", [(0, 1), (1, 2)]), _labelled("CCN", [(0, 1), (1, 2)]),
              _labelled("CCCC", [(0, 1), (1, 2), (2, 3)])], ids=["a", "b", "c"])
    coll.close()
    query = tmp_path / "q.json"
    gedkit.write(_labelled("CCO", [(0, 1), (1, 2)]), query)
    grid = tmp_path / "grid.png"
    code, _, err = _cli(capsys, "search", str(coll_path), str(query), "--nearest", "2",
                          "--draw", str(grid))
    assert code == 0, err
    from matplotlib.image import imread

    assert imread(str(grid)).shape[0] > 100
    assert "note" not in err
    # more graphs found than it shows: said (the title said "75 hits" over 12 panels)
    monkeypatch.setattr(gedkit.draw, "MAX_HITS", 1)
    code, _, err = _cli(capsys, "search", str(coll_path), str(query), "--nearest", "2",
                        "--draw", str(grid))
    assert code == 0 and "the picture shows the first 1 of 2 graphs found" in err
    # the reader of the answers gone (`| head -1`; `true` reads nothing): the picture is
    # drawn all the same
    grid.unlink()
    done = subprocess.run(f"{sys.executable} -m gedkit search {coll_path} {query} --nearest 2 "
                          f"--draw {grid} | true", shell=True, capture_output=True,
                          text=True, timeout=120)
    assert grid.exists(), done.stderr


@pytest.mark.parametrize("batch", [10_000, 1])  # the queries searched a batch at a time too
def test_cli_search_grid_draws_the_queries_that_found_graphs_first(capsys, tmp_path,
                                                                   monkeypatch, batch):
    """More queries than a grid holds: those with hits are drawn before those without
    (eight panels of "no hit" left out the one query that found a graph)."""
    import gedkit.draw.grid as grid_module
    from gedkit.cli import _search_queries

    monkeypatch.setattr(_search_queries, "BATCH", batch)

    coll_path = tmp_path / "lib.gdb"
    coll = gedkit.Collection.create(coll_path)
    coll.add([_labelled("CCO", [(0, 1), (1, 2)])], ids=["a"])
    coll.close()
    queries = tmp_path / "q.json"
    far = [_labelled("NNNNN", [(0, 1), (1, 2), (2, 3), (3, 4)]) for _ in range(3)]
    gedkit.write([*far, _labelled("CCO", [(0, 1), (1, 2)])], queries)
    monkeypatch.setattr(grid_module, "MAX_QUERIES", 2)
    code, _, err = _cli(capsys, "search", str(coll_path), str(queries), "--within", "1",
                        "--draw", str(tmp_path / "g.svg"))
    assert code == 0 and "shows 2 of 4 queries: those that found a graph first" in err, err
    text = (tmp_path / "g.svg").read_text()
    assert text.count("no hit") == 1 and "1 hit" in text
    # the first queries: how many said (the note ended "queries: the first")
    gedkit.write(far * 3, queries)
    code, _, err = _cli(capsys, "search", str(coll_path), str(queries), "--within", "1",
                        "--draw", str(tmp_path / "g.svg"))
    assert code == 0 and "the picture shows 2 of 9 queries: the first 2\n" in err, err


def test_search_grid_in_python():
    coll = gedkit.Collection()
    coll.add([_labelled("CCO", [(0, 1), (1, 2)]), _labelled("CCN", [(0, 1), (1, 2)])],
             ids=["a", "b"])
    q = _labelled("CCO", [(0, 1), (1, 2)])
    result = coll.knn(q, 2, node_map=True)
    fig = draw(result, collection=coll, query=q)
    titles = [a.get_title() for a in fig.axes]
    assert titles[0] == "query" and titles[1] == "1. a\nGED = 0"
    with pytest.raises(OptionError, match="collection="):
        draw(result)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.tell() > 1000
    # fewer panels than hits: the heading says so (it said "2 hits" over one panel)
    headings = [t.get_text() for t in draw(result, collection=coll, max_hits=1).texts]
    assert any("2 hits, certified (the first 1 drawn)" in h for h in headings), headings
    assert not any("drawn" in t.get_text() for t in fig.texts)


def test_search_grid_keeps_a_long_molecules_element_symbols():
    """A long chain's cell is too small for the general graphs' node labels; a molecule's
    element symbols are drawn all the same (its O atoms looked like carbons), and a general
    graph's cell that leaves its labels out says so under the grid."""
    pytest.importorskip("rdkit")
    long = "CCCCCCCCCCCCOC1=CC=C(C=C1)C(O)=O"
    coll = gedkit.Collection()
    coll.add([long, "CCCCCCCCCCCCCCC1=CC=C(O)C=C1"], ids=["ester", "phenol"])
    fig = draw(coll.knn(long, 2), collection=coll, query=long)
    symbols = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert symbols.count("O") == 3 + 3 + 1, symbols
    assert "labels left out" not in svg_text(fig)
    chain = Graph({i: f"n{i % 3}" for i in range(60)}, [(i, i + 1) for i in range(59)])
    other = gedkit.Collection()
    other.add([chain])
    assert "labels left out" in svg_text(draw(other.knn(chain, 1), collection=other,
                                              query=chain))


def test_directed_arcs_have_arrowheads():
    # "delete 1->2, insert 2->1" looked like nothing changed without them
    from matplotlib.text import Annotation

    def heads(result, steps=False):
        fig = draw(result, steps=steps)
        return sum(isinstance(c, Annotation) and c.arrow_patch is not None
                   and c.get_text() == "" for ax in fig.axes for c in ax.get_children())

    arrow = nx.DiGraph([(1, 2), (2, 3)]), nx.DiGraph([(2, 1), (2, 3)])
    undirected = nx.Graph([(1, 2), (2, 3)]), nx.Graph([(1, 2), (1, 3)])
    plain = heads(gedkit.ged(*undirected))
    assert heads(gedkit.ged(*arrow)) == plain + 4  # two arcs a side
    # the step strip too (it drew none, and an arc and its reverse as one edge): g1's two
    # arcs, then 2 (the arc deleted, shown), 2 (the reverse inserted), with no undirected
    # panel drawing any
    reversed_arc = gedkit.ged(*arrow)
    assert [op.kind for op in reversed_arc.edit_path] == ["edge_del", "edge_ins"]
    assert heads(reversed_arc, steps=True) == 6
    assert heads(gedkit.ged(*undirected), steps=True) == 0
    # an arc and its reverse, each bent to its side: a head each (the last piece of a
    # bent arc lies under its node, and neither had one)
    one = Graph({0: "A", 1: "B"}, [(0, 1, "x")], directed=True)
    mutual = Graph({0: "A", 1: "B"}, [(1, 0, "x"), (0, 1, "y")], directed=True)
    assert heads(gedkit.ged(one, mutual)) == plain + 1 + 2


def test_an_arc_and_its_reverse_are_drawn_apart():
    """Drawn straight they lay on one line and their labels on one spot: each bulges to
    its own left instead."""
    from gedkit.draw.general import MUTUAL_BEND, _arc, _bends
    from gedkit.draw.scene import plain_panel

    g = gedkit.Graph({0: "a", 1: "b", 2: "c"}, [(0, 1, "x"), (1, 0, "y"), (1, 2, "z")],
                     directed=True)
    panel = plain_panel(g)
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 1.0]])
    bends = _bends(panel, pos, 0.01)
    assert bends.tolist() == [MUTUAL_BEND, MUTUAL_BEND, 0.0]
    there, back = _arc(pos[0], pos[1], MUTUAL_BEND)[12], _arc(pos[1], pos[0], MUTUAL_BEND)[12]
    assert there[1] > 0 > back[1]  # on either side of the line between them
    assert not _bends(plain_panel(gedkit.Graph({0: "a", 1: "b"}, [(0, 1)])), pos[:2],
                      0.01).any()
    fig = draw(gedkit.ged(g, g))
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.tell() > 1000


# -- labels are drawn as written --------------------------------------------------------------

def _math_texts(fig) -> list[str]:
    """The texts of ``fig`` that matplotlib would read as mathtext."""
    from matplotlib.cbook import is_math_text
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text) if t.get_parse_math() and
            is_math_text(t.get_text())]


def _png_saves(fig) -> None:
    fig.savefig(io.BytesIO(), format="png")  # '$x^$' as mathtext: ParseSyntaxException


@pytest.mark.parametrize("label", ["costs $5 or $10", "$x^$"])
def test_dollar_labels_are_text_not_mathtext(label, tmp_path):
    g1 = _labelled([label, "B"], [(0, 1, "$e$")], name="$n$")
    g2 = _labelled(["Q", "B"], [(0, 1, "$e$")], name="n$")
    r = gedkit.ged(g1, g2)
    figures = [draw(r), draw(r, steps=True), draw(gedkit.mces(g1, g2)),
               draw(r, labels=True, edge_labels=True, ids=True)]
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    figures.append(draw(r, ax=ax).figure)
    coll = gedkit.Collection()
    coll.add([g1, g2], ids=["$a$", "b$"])
    result = coll.knn(g1, 2, node_map=True)
    figures.append(draw(result, collection=coll, query=g1))
    from gedkit.draw.grid import draw_hits  # as the command line calls it

    figures.append(draw_hits(result, coll, query=g1))
    for fig in figures:
        assert _math_texts(fig) == []
        _png_saves(fig)
    from matplotlib.text import Text

    assert any(label in t.get_text() for t in figures[0].findobj(Text))
    r.draw(tmp_path / "dollar.svg")


@pytest.mark.parametrize("g1, says", [
    (Graph({0: "foo", 1: "bar"}, [(0, 1, "zz")]), "node label 'foo' is no element symbol"),
    (Graph({0: "C", 1: "O"}, [(0, 1, "double")], name="x"),
     "in graph 'x' edge label 'double' is no bond order"),
])
def test_molecule_true_on_no_molecule_is_one_line_error(g1, says):
    # RDKit failed deep inside (Boost.Python.ArgumentError, KeyError: None)
    r = gedkit.ged(g1, Graph({0: "C"}))
    for options in ({}, {"steps": True}):
        with pytest.raises(OptionError, match=f"molecule=True draws molecules, but {says}.*; "
                                              "pass molecule=False"):
            draw(r, molecule=True, **options)
    with pytest.raises(OptionError, match=says):
        draw(gedkit.mces(g1, Graph({0: "C"})), molecule=True)


def test_search_grid_refuses_a_query_that_was_not_searched(tmp_path):
    # the grid drew the given query under the title naming the searched one
    pytest.importorskip("rdkit")
    path = tmp_path / "lib.gdb"
    with gedkit.Collection.create(path) as coll:
        coll.add(["CCO", "CCN", "CCCC"], ids=["a", "b", "c"])
    with gedkit.Collection.open(path) as lib:
        k = lib.knn("CCO", 2)
        with pytest.raises(OptionError, match=r"query='c1ccccc1CCCCN' is not the query this "
                                              r"result answers \('CCO'\)"):
            draw(k, collection=lib, query="c1ccccc1CCCCN")
        with pytest.raises(OptionError, match="the query= graph is not the query"):
            draw(k, collection=lib, query=Graph({0: "C"}))
        # the same graph, however written, is the query
        for same in ("CCO", "OCC", gedkit.from_smiles("OCC")):
            assert draw(k, collection=lib, query=same).axes[0].get_title() == "query"
        # a query without a name is checked by the graph the search kept (another graph
        # was drawn as the query, each hit's distance under it)
        unnamed = lib.knn(Graph({0: "C", 1: "C"}, [(0, 1, 1)]), 1)
        with pytest.raises(OptionError, match="the query= graph is not the query"):
            draw(unnamed, collection=lib, query=Graph({0: "N"}))
        assert draw(unnamed, collection=lib, query=Graph({5: "C", 6: "C"}, [(6, 5, 1)]))
        # a result from elsewhere (a cluster, a file) keeps the name only: unnamed, drawn
        unnamed.searched = None
        assert draw(unnamed, collection=lib, query=Graph({0: "N"})) is not None


def test_search_grid_takes_the_path_of_a_collection(tmp_path):
    path = tmp_path / "lib.gdb"
    with gedkit.Collection.create(path) as coll:
        coll.add([_labelled("CCO", [(0, 1), (1, 2)]), _labelled("CCN", [(0, 1), (1, 2)])],
                 ids=["a", "b"])
    with gedkit.Collection.open(path) as lib:
        k = lib.knn(_labelled("CCO", [(0, 1), (1, 2)]), 2)
    fig = draw(k, collection=str(path), path=tmp_path / "grid.png")
    assert fig.axes[0].get_title() == "1. a\nGED = 0"
    assert draw(k, collection=path) is not None
    with pytest.raises(OptionError, match=r"collection= takes a gedkit\.Collection or the "
                                          r"path of a collection file, got int"):
        draw(k, collection=42)


def test_search_grid_heading_names_a_query_numbered_0():
    """A query named 0 (a numbered collection's first graph) is named in its block's
    heading, as the others are (0 was taken for no name)."""
    from gedkit.draw.grid import _heading
    from gedkit.search.result import SearchResult

    for name, head in ((0, "0: "), (7, "7: "), ("q", "q: "), (None, ""), ("", "")):
        assert _heading(SearchResult("knn", name, 2), None).startswith(f"{head}2 nearest")


def test_search_grid_refuses_another_collection(tmp_path):
    """A result drawn with a collection other than the one searched (numbered ids that exist
    in both): refused, where it drew the other collection's graphs under the result's
    distances; the same file through a link, or the Collection itself, is drawn."""
    query = _labelled("CCO", [(0, 1), (1, 2)])
    made = {"a": tmp_path / "a.gdb", "b": tmp_path / "b.gdb"}
    for name, graphs in (("a", [query, _labelled("CCN", [(0, 1), (1, 2)])]),
                         ("b", [_labelled("NN", [(0, 1)]), _labelled("SS", [(0, 1)])])):
        with gedkit.Collection.create(made[name]) as coll:
            coll.add(graphs, ids=[0, 1])
    with gedkit.Collection.open(made["a"]) as lib:
        k = lib.knn(query, 1)
        assert draw(k, collection=lib) is not None
    (tmp_path / "link.gdb").symlink_to(made["a"])
    assert draw(k, collection=tmp_path / "link.gdb") is not None
    with pytest.raises(OptionError, match=r"this search result answers the collection in "
                                          r".*a\.gdb, not the one given as collection="):
        draw(k, collection=made["b"])
    memory = gedkit.Collection()
    memory.add([query], ids=[0])
    elsewhere = memory.knn(query, 1)
    with pytest.raises(OptionError, match="answers another collection, in memory"):
        draw(elsewhere, collection=made["a"])
    # another collection made at the searched path since (its graphs shown under the result's
    # distances), and a hit removed since (a raw KeyError)
    made["a"].unlink()
    with gedkit.Collection.create(made["a"]) as coll:
        coll.add([_labelled("SS", [(0, 1)]), _labelled("NN", [(0, 1)])], ids=[0, 1])
    with pytest.raises(OptionError, match=r"a\.gdb as it was then: the file there now holds "
                                          r"another collection \(made since\)"):
        draw(k, collection=made["a"])
    with gedkit.Collection.open(made["b"], mode="a") as coll:
        again = coll.knn(_labelled("NN", [(0, 1)]), 1)
        coll.remove([again.hits[0].id])
        with pytest.raises(OptionError, match=r"hit 0 of this search result is no longer in "
                                              r"the collection \(removed since the search\)"):
            draw(again, collection=coll)


# -- sizes and output paths: one line, before drawing -----------------------------------------

@pytest.mark.parametrize("options, says", [
    ({"figsize": (0, 0)}, r"figsize=\(0, 0\): give a width and a height in inches, both "
                          "positive"),
    ({"figsize": (float("nan"), 3)}, "both positive"),
    ({"figsize": (-1, 2)}, "both positive"),
    ({"figsize": (3,)}, r"such as \(8, 4\)"),
    ({"figsize": "ab"}, r"such as \(8, 4\)"),
    ({"figsize": (1000, 1000)}, r"100,000 pixels a side, more than a picture may have"),
    ({"figsize": (50, 4), "dpi": 1000}, "50,000 pixels a side"),
    ({"dpi": 0}, "dpi=0: give a positive number"),
])
def test_bad_sizes_are_one_line_errors(general_result, options, says):
    # figsize=(0, 0) was a ZeroDivisionError, (1000, 1000) a matplotlib ValueError
    for steps in (False, True):
        with pytest.raises(OptionError, match=says):
            draw(general_result, steps=steps, **options)
    assert draw(general_result, figsize=(np.float64(4), np.int64(3))) is not None


def test_picture_paths_are_checked_before_drawing(general_result, tmp_path):
    (tmp_path / "p.png").write_bytes(b"x")
    with pytest.raises(OptionError, match=r"'.*p\.png' is a file, not a folder$"):
        draw(general_result, tmp_path / "p.png" / "x.png")
    from gedkit.draw.output import check_path

    # trying to write leaves no file behind, and an existing one as it was
    assert check_path(tmp_path / "new.png") and not (tmp_path / "new.png").exists()
    assert check_path(tmp_path / "p.png") and (tmp_path / "p.png").read_bytes() == b"x"
    if Path("/proc/self").is_dir():  # a folder that lets no file be made, even by root
        with pytest.raises(OptionError, match=r"cannot write a picture to '/proc/x\.png': "):
            draw(general_result, "/proc/x.png")


def test_cli_unwritable_picture_fails_before_solving(capsys, graph_files, tmp_path):
    (tmp_path / "p.png").write_bytes(b"x")
    code, out, err = _cli(capsys, "ged", *graph_files, "--draw", str(tmp_path / "p.png" / "x.png"))
    assert code == 2 and out == "" and "is a file, not a folder" in err
    if Path("/proc/self").is_dir():
        code, out, err = _cli(capsys, "ged", *graph_files, "--draw", "/proc/x.png")
        assert code == 2 and out == "", out  # the answer was printed, then the error
        assert err.count("\n") == 1 and "cannot write a picture to '/proc/x.png'" in err


def test_cli_unknown_matplotlib_backend_is_one_line(graph_files, tmp_path):
    env = {**os.environ, "MPLBACKEND": "nosuch"}
    done = subprocess.run([sys.executable, "-m", "gedkit", "ged", *graph_files, "--draw",
                           str(tmp_path / "t.png")], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("gedkit: error: matplotlib does not start: MPLBACKEND='nosuch' is "
                           "no backend it knows (unset it, or set it to agg)\n")


def test_each_fragment_of_a_common_subgraph_keeps_its_place():
    """Two fragments in common, each a part of g2 of its own: both drawn where they are in
    g1 (one piece pinned in all, the second was packed below g1's picture)."""
    from gedkit.draw.layout import layout, seeded_layout
    from gedkit.draw.scene import kept_anchors

    g = gedkit.Graph(range(6), [(0, 1), (1, 2), (3, 4), (4, 5)])
    same = np.arange(6)
    pos1 = layout(g)
    pos2 = seeded_layout(g, pos1, same, kept_anchors(g, g, same))
    assert np.allclose(pos1, pos2)


def test_a_picture_past_its_pixels_or_of_the_wrong_result_is_one_line(tmp_path):
    """dpi=5000 on a size chosen from the graphs drew for 84 s a 1.8-gigapixel PNG no image
    library would open (figsize's check saw only a size given); draw_steps of an MCES result
    and draw_hits of a GED result raised AttributeErrors from inside."""
    pytest.importorskip("matplotlib")
    from gedkit.errors import OptionError

    r = gedkit.ged("CCO", "CCN")
    with pytest.raises(OptionError, match=r"dpi=5000 makes this picture .* pixels a side"):
        r.draw(tmp_path / "x.png", dpi=5000)
    assert not (tmp_path / "x.png").exists()
    with pytest.raises(OptionError, match="draw_steps draws a GED result's edit path, got "
                                          "MCESResult"):
        gedkit.draw.draw_steps(gedkit.mces("CCO", "CCN"))
    with pytest.raises(OptionError, match="draw_hits draws search results"):
        gedkit.draw.draw_hits(r, gedkit.Collection())


def test_a_step_strip_names_g1_by_its_ids_g2_by_its_own_and_the_steps_between_by_both():
    """A triangle 0, 1, 2 against the path 1-9-8-7: the last panel ("= g2") showed g1's ids,
    "1" twice (a kept node and g2's inserted one), and the inserted edge "1–9" between a node
    "0" and the new "1"; between, a kept node whose ids differ shows both."""
    import networkx as nx

    from gedkit.draw.steps import _states

    r = gedkit.ged(nx.Graph([(0, 1), (1, 2), (2, 0)]), nx.Graph([(1, 9), (9, 8), (8, 7)]))
    states = _states(r, r.edit_path, np.zeros((3, 2)), np.zeros((4, 2)))
    first, *between, last = [panel.ids for panel, _, _ in states]
    assert first == (0, 1, 2)
    assert sorted(map(str, last)) == ["1", "7", "8", "9"]  # g2's ids, each once
    mapped = {u: v for u, v in r.node_map if u is not None and v is not None}
    assert all(f"{u}→{mapped[u]}" in ids for ids in between for u in mapped if u != mapped[u])
