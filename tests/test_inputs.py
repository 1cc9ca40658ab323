"""gedkit.inputs and the labels of attribute files: whatever the caller holds becomes a Graph,
``FILE#ID`` picks one graph, labels are taken when obvious and never dropped without a word,
and advice names options in the caller's words."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import networkx as nx
import pytest

import gedkit
from gedkit import FormatError, Graph, GraphError, OptionError
from gedkit.errors import Option, UnlabelledWarning
from gedkit.inputs import as_graph, as_graphs

FIX = Path(__file__).resolve().parent / "data" / "io"


def chem():
    return pytest.importorskip("rdkit")


def node_link(path: Path, nodes: list[dict], links: list[dict], name: str | None = None) -> Path:
    path.write_text(json.dumps({"graph": {"name": name} if name else {}, "nodes": nodes,
                                "links": links}))
    return path


def molecule_json(path: Path, atoms: str, name: str | None = None, **extra) -> Path:
    """A chain of ``atoms`` as node-link JSON: nodes with ``atom`` (and ``extra``), bonds 1."""
    nodes = [{"id": k, "atom": a, **extra} for k, a in enumerate(atoms)]
    links = [{"source": k, "target": k + 1, "bond": 1} for k in range(len(atoms) - 1)]
    return node_link(path, nodes, links, name)


def unlabelled_warnings(record) -> list[UnlabelledWarning]:
    return [w.message for w in record if issubclass(w.category, UnlabelledWarning)]


# -- what as_graph accepts -----------------------------------------------------------------
def test_smiles_strings_wherever_a_graph_is():
    chem()
    assert gedkit.ged("CCO", "CCN").distance == 1
    assert gedkit.ged("smiles:CCO", "OCC").distance == 0
    g = as_graph("c1ccccc1O")
    assert g.name == "c1ccccc1O" and g.n == 7 and sorted(set(g.edge_labels)) == [1, 1.5]
    assert as_graph("CCO", node_label="*").node_labels[0] == {
        "atom": "C", "charge": 0, "aromatic": False, "hydrogens": 3}


def test_a_smiles_string_with_whitespace_inside_is_refused(tmp_path):
    """RDKit reads what follows a space as a name: ``"c1ccccc1 CCCC"`` was benzene, at
    distance 0 from benzene, as an argument, ``smiles:`` or a table cell; whitespace at the
    ends is no part of it."""
    chem()
    said = r"it holds whitespace, and a SMILES string has none \(RDKit would read the rest"
    for text in ("c1ccccc1 CCCC", "smiles:CC\tO"):
        with pytest.raises((GraphError, FormatError), match=said):
            as_graph(text)
    with pytest.raises(FormatError, match=said):
        gedkit.from_smiles("CCO CC")
    assert gedkit.from_smiles(" CCO\n").n == 3
    table = tmp_path / "lib.csv"
    table.write_text("name,smiles\na,c1ccccc1 CCCC\nb, CCO \n")
    with pytest.raises(FormatError, match=r"lib\.csv:2: .*" + said):
        gedkit.read_all(table)
    assert gedkit.read(f"{table}#b").n == 3


def test_rdkit_molecules_networkx_graphs_and_paths(tmp_path):
    chem()
    from rdkit import Chem

    assert as_graph(Chem.MolFromSmiles("C=O")).edge_labels == (2,)
    h = nx.Graph()
    h.add_edge("a", "b", bond=2)
    nx.set_node_attributes(h, {"a": "C", "b": "O"}, "atom")
    assert as_graph(h, "atom", "bond") == Graph({"a": "C", "b": "O"}, [("a", "b", 2)])
    path = molecule_json(tmp_path / "co.json", "CO")
    assert as_graph(path) == as_graph(str(path)) == gedkit.read(path)
    assert as_graphs([path, "CO"])[0] == as_graphs([path, "CO"])[1]


def test_a_string_is_a_file_when_the_file_exists(tmp_path, monkeypatch):
    chem()
    monkeypatch.chdir(tmp_path)
    Path("CCO").write_text("t # 0\nv 0 C\n")  # a file that happens to be named like SMILES
    with pytest.raises(FormatError, match=r"cannot tell the format of 'CCO'.*for the SMILES "
                       r"string 'CCO', write 'smiles:CCO'"):
        as_graph("CCO")
    assert as_graph("smiles:CCO").n == 3  # the prefix always means SMILES
    assert as_graph(Path("C#N").name).n == 2  # no file "C": SMILES, triple bond and all


def test_neither_file_nor_smiles_names_both_readings():
    chem()
    with pytest.raises(GraphError, match=r"'missing\.json' is neither an existing file nor a "
                                         r"SMILES string: RDKit cannot parse"):
        gedkit.ged("missing.json", "CCO")
    with pytest.raises(GraphError, match=r"expected a gedkit\.Graph, a NetworkX graph, an RDKit "
                                         r"molecule, a SMILES string or the path of a graph "
                                         r"file, got int"):
        as_graph(3)


# -- FILE#ID ---------------------------------------------------------------------------------
def test_pick_one_graph_by_name_or_number(tmp_path):
    path = tmp_path / "three.txt"
    path.write_text("t # g0\nv 0 A\nt # 2\nv 0 B\nt # g2\nv 0 C\n")
    assert gedkit.read(f"{path}#g2").node_labels == ("C",)
    assert gedkit.read(f"{path}#0").name == "g0"
    assert gedkit.read(f"{path}#2").name == "2"  # a graph named "2" wins over number 2
    assert gedkit.read_all(f"{path}#1") == [gedkit.read(f"{path}#1")]
    assert as_graph(f"{path}#g0").name == "g0"
    # a name not there: how many graphs the file holds, and what their names look like
    with pytest.raises(FormatError, match=r"three\.txt: no graph named 'x' \(it holds 3 "
                                          r"graphs; its names: 'g0', '2', 'g2'\.\.\.\)$"):
        gedkit.read(f"{path}#x")
    with pytest.raises(FormatError, match=r"no graph named '7' and no graph number 7 \(it "
                                          r"holds 3 graphs"):
        gedkit.read(f"{path}#7")
    with pytest.raises(OptionError, match="nothing after '#'"):
        gedkit.read(f"{path}#")
    with pytest.raises(FormatError, match=r"several graphs.*read_all.*three\.txt#ID"):
        gedkit.read(path)


def test_pick_one_graph_of_a_collection():
    labels = {"node_label": "symbol", "edge_label": None}
    assert gedkit.read(f"{FIX / 'collection.cxl'}#second", **labels).name == "second"
    assert gedkit.read(f"{FIX / 'collection.cxl'}#0", **labels).name == "small"
    # only the graph asked for is read: another listed file missing is no concern of it
    assert gedkit.read(f"{FIX / 'missing_entry.cxl'}#small", **labels).name == "small"
    with pytest.raises(FormatError, match=r"listed graph 'absent\.gxl' not found"):
        gedkit.read(f"{FIX / 'missing_entry.cxl'}#absent", **labels)
    with pytest.raises(FormatError, match=r"no graph named 'nobody'"):
        gedkit.read(f"{FIX / 'missing_entry.cxl'}#nobody", **labels)


def test_a_file_whose_name_holds_a_hash_is_read_as_named(tmp_path):
    path = tmp_path / "odd#1.txt"
    path.write_text("t # only\nv 0 A\n")
    assert gedkit.read(path).name == "only"
    with pytest.raises(FileNotFoundError, match=r"no such file: .*absent\.txt#1"):
        gedkit.read(tmp_path / "absent.txt#1")


def test_ids_and_file_names_may_hold_a_hash(tmp_path):
    # FILE is the text before the first '#' that leaves an existing file before it
    path = tmp_path / "h#.txt"
    path.write_text("t # cmpd#1\nv 0 A\nt # cmpd#2\nv 0 B\n")
    assert gedkit.read(f"{path}#cmpd#2").node_labels == ("B",)
    assert gedkit.read(f"{path}#1").name == "cmpd#2"
    assert as_graph(f"{path}#cmpd#1").node_labels == ("A",)
    plain = tmp_path / "plain.txt"
    plain.write_text(path.read_text())
    assert gedkit.read(f"{plain}#cmpd#2").name == "cmpd#2"
    with pytest.raises(FormatError, match=r"no graph named 'cmpd#3'"):
        gedkit.read(f"{plain}#cmpd#3")


def test_a_smiles_string_too_long_for_a_file_name_is_smiles():
    # the path check fails (ENAMETOOLONG) on a name over 255 bytes: no file, so SMILES
    chem()
    assert gedkit.ged("C" * 300, "C" * 299).distance == 2
    assert as_graph("C" * 300 + "#N").n == 301


# -- labels: obvious ones taken, the rest never dropped silently ------------------------------
def test_a_lone_attribute_is_the_label(tmp_path):
    g = Graph({0: "C", 1: "O"}, [(0, 1, 2)], name="CO")
    gedkit.write(g, tmp_path / "co.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gedkit.read(tmp_path / "co.json") == g
        assert gedkit.read(molecule_json(tmp_path / "m.json", "CN")).node_labels == ("C", "N")
        assert gedkit.read(FIX / "small.gexf").node_labels == ("C", "O", "N")
        assert gedkit.read(FIX / "small.graphml").edge_labels == (2, 1)


def test_attributes_left_out_give_one_warning(tmp_path):
    path = molecule_json(tmp_path / "m.json", "CNO", x=0.5)
    with pytest.warns(UnlabelledWarning) as record:
        g = gedkit.read(path)
    assert g.node_labels == (None, None, None) and g.edge_labels == (1, 1)  # edges: lone bond
    (warning,) = unlabelled_warnings(record)
    assert warning.source == str(path)
    assert warning.node_attributes == ("atom", "x") and warning.edge_attributes == ()
    assert "node_label='atom'" in str(warning) and "--node-label" not in str(warning)
    assert record[0].filename == __file__  # attributed to the caller's line


def test_points_are_advised_every_attribute(tmp_path):
    """Nodes with x and y (IAM Letter) are advised '*', which the geometric cost models read:
    one coordinate alone compares nothing useful (the note suggested x)."""
    path = tmp_path / "letter.json"
    path.write_text(json.dumps({"nodes": [{"id": 0, "x": 0.5, "y": 1.0}, {"id": 1, "x": 2.0,
                                                                         "y": 0.1}],
                                "links": [{"source": 0, "target": 1}]}))
    with pytest.warns(UnlabelledWarning) as record:
        gedkit.read(path)
    (warning,) = unlabelled_warnings(record)
    assert "name the labels with node_label='*' (all of them: the geometric cost models, " \
           "costs='letter' and others, read x and y), or filter" in str(warning)
    assert "choose the labels with --node-label '*' (all of them" in warning.render(cli=True)
    letter = gedkit.read(path, node_label="*")
    assert gedkit.ged(letter, letter, costs="letter").distance == 0
    # molecules drawn in the plane (IAM AIDS) are advised their symbol, not '*'
    drawn = tmp_path / "drawn.json"
    drawn.write_text(json.dumps({"nodes": [{"id": 0, "x": 0.5, "y": 1.0, "symbol": "C"}],
                                 "links": []}))
    with pytest.warns(UnlabelledWarning) as record:
        gedkit.read(drawn)
    assert "--node-label symbol (a comma list" in unlabelled_warnings(record)[0].render(cli=True)


def test_one_warning_for_a_thousand_graphs(tmp_path):
    path = tmp_path / "many.json"
    graph = {"nodes": [{"id": 0, "symbol": "C", "x": 1}, {"id": 1, "symbol": "O", "x": 2}],
             "links": [{"source": 0, "target": 1, "valence": 1, "w": 3}]}
    path.write_text(json.dumps([graph] * 1000))
    with pytest.warns(UnlabelledWarning) as record:
        graphs = gedkit.read_all(path)
    assert len(graphs) == 1000
    (warning,) = unlabelled_warnings(record)
    assert warning.node_attributes == ("symbol", "x")
    assert warning.edge_attributes == ("valence", "w")


def test_naming_labels_or_none_silences_the_warning(tmp_path):
    path = molecule_json(tmp_path / "m.json", "CN", x=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gedkit.read(path, "atom", "bond").node_labels == ("C", "N")
        assert gedkit.read(path, None, None).node_labels == (None, None)
        assert gedkit.read(FIX / "small.gxl", "symbol", None).node_labels == ("C", "O", "N")


def test_naming_one_label_leaves_the_other_unlabelled_with_a_warning(tmp_path):
    path = molecule_json(tmp_path / "m.json", "CN")
    with pytest.warns(UnlabelledWarning) as record:
        g = gedkit.read(path, node_label="atom")
    assert g.edge_labels == (None,)
    assert unlabelled_warnings(record)[0].edge_attributes == ("bond",)


def test_unlabelled_edges_leave_the_nodes_their_obvious_label(tmp_path):
    """edge_label=None (--no-edge-label) reads the edges unlabelled and the nodes as without
    it: their lone attribute (the nodes were unlabelled too, in the attribute formats only)."""
    path = molecule_json(tmp_path / "m.json", "CN")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = gedkit.read(path, edge_label=None)
        assert g.node_labels == ("C", "N") and g.edge_labels == (None,)
        h = gedkit.read(path, node_label=None)
        assert h.node_labels == (None, None) and h.edge_labels == (1,)


def test_the_first_graph_chooses_the_label_for_all(tmp_path):
    first = {"nodes": [{"id": 0, "type": "C"}], "links": []}
    other = {"nodes": [{"id": 0, "kind": "C"}], "links": []}
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([first, other]))
    with pytest.raises(GraphError, match=r"node 0 in graph 'mixed\[1\]' has no attribute 'type' "
                                         r"\(it has: kind\), which the labels were taken from"):
        gedkit.read_all(path)


def test_a_label_taken_with_attributes_left_out_beside_it_is_said_so(tmp_path):
    """The first graph's lone attribute is the label of a later graph that has more: the
    note says what was compared (it said "compared unlabelled" and advised the attribute
    left out), and how to compare so whichever file comes first."""
    first = molecule_json(tmp_path / "p.json", "CO")
    later = molecule_json(tmp_path / "q.json", "CN", x=1.0)
    with pytest.warns(UnlabelledWarning) as record:
        result = gedkit.ged(first, later)
    assert result.distance == 1  # (by atom)
    (warning,) = unlabelled_warnings(record)
    assert warning.node_label == "atom" and warning.node_attributes == ("x",)
    assert str(warning) == (
        f"{later}: nodes compared by their attribute 'atom', the only one of the first nodes "
        "read, leaving out 'x'; name the labels to compare by them whatever the order of the "
        "graphs, e.g. node_label='atom'")
    assert warning.render(cli=True).endswith("whatever the order of the files, e.g. "
                                             "--node-label atom")
    # the other side's attributes left out are said too
    both = UnlabelledWarning("a.json", ["x"], ["bond", "w"], "atom", None)
    assert "; edges compared unlabelled, although they have attributes 'bond', 'w'; " in str(both)


def test_elements_without_attributes_are_unlabelled_in_either_order(tmp_path):
    """An edge without attributes against one whose only attribute is ``w``: unlabelled
    against labelled 2, whichever graph comes first (first, its edges were unlabelled; after
    the other, an error), and nodes likewise."""
    a = tmp_path / "a.json"
    a.write_text(json.dumps({"nodes": [{"id": 0, "label": "C"}, {"id": 1, "label": "N"}],
                             "links": [{"source": 0, "target": 1}]}))
    b = tmp_path / "b.json"
    b.write_text(json.dumps({"nodes": [{"id": 0, "label": "O"}, {"id": 1, "label": "N"}],
                             "links": [{"source": 0, "target": 1, "w": 2}]}))
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"nodes": [{"id": 0}, {"id": 1}],
                                "links": [{"source": 0, "target": 1}]}))
    for x, y, distance in ((a, b, 2), (a, bare, 2), (b, bare, 3)):
        assert gedkit.ged(x, y).distance == gedkit.ged(y, x).distance == distance


def test_ged_warns_once_for_both_graphs(tmp_path):
    a = molecule_json(tmp_path / "a.json", "CCO", x=1)
    b = molecule_json(tmp_path / "b.json", "CCN", x=1)
    with pytest.warns(UnlabelledWarning) as record:
        assert gedkit.ged(a, b).distance == 0  # atoms left out
    (warning,) = unlabelled_warnings(record)
    assert warning.source == f"{a}, {b}"
    assert gedkit.ged(a, b, node_label="atom", edge_label="bond").distance == 1


def test_networkx_attributes_are_never_taken_unasked():
    h = nx.path_graph(3)
    nx.set_edge_attributes(h, 0.5, "weight")  # a lone attribute, but a weight, not a label
    with pytest.warns(UnlabelledWarning) as record:
        assert gedkit.ged(h, h).distance == 0
    (warning,) = unlabelled_warnings(record)
    assert warning.source == "NetworkX input" and warning.edge_attributes == ("weight",)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert as_graph(nx.path_graph(3)).n == 3  # nothing to leave out, nothing said
        assert as_graph(h, edge_label="weight").edge_labels == (0.5, 0.5)


# -- advice in the caller's words ----------------------------------------------------------
def test_errors_keep_the_option_they_advise():
    with pytest.raises(GraphError) as info:
        gedkit.read(FIX / "directed.gexf")
    err = info.value
    assert Option("directed", "keep") in err.args
    # (gedkit.ged and the others take no directed=: the way in Python is the reader's)
    assert "read it with gedkit.read(path, directed='ignore')" in str(err)
    assert "or directed='keep'" in str(err)
    assert "pass --directed ignore" in err.render(cli=True)
    assert "or --directed keep" in err.render(cli=True)
    with pytest.raises(FormatError) as info:
        gedkit.read("graph.xyz")
    assert "pass format=... with one of" in str(info.value)
    assert "pass --format FORMAT with one of" in info.value.render(cli=True)


def test_option_spelling():
    assert Option("node_label", ["a", "b"]).render(cli=True) == "--node-label a,b"
    assert Option("node_label", ["a", "b"]).render(cli=False) == "node_label=['a', 'b']"
    assert Option("graph_dir").render(cli=True) == "--graph-dir GRAPH_DIR"


@pytest.mark.parametrize("text, says", [
    ("", "an empty name is no graph file"),
    ("smiles:", "no SMILES string after 'smiles:'"),
    (".", "is a folder, not a graph file"),
])
def test_empty_names_and_folders_are_no_graphs(text, says):
    # '' was the current folder, read as a file of unknown format; 'smiles:' a molecule of no
    # atom (a distance to nothing, silently)
    with pytest.raises(gedkit.GedkitError, match=says):
        gedkit.ged(text, "CCN")


def test_labels_named_for_built_graphs_are_said_to_be_kept():
    """``node_label=`` names attributes of what gedkit converts; a Graph keeps the labels it
    was built with, and a call naming labels for Graphs says so once (``ged(g, h,
    node_label="atom")`` on graphs read with every attribute compared them by all of them,
    without a word). Graphs alone, no label named: nothing said; a search's queries (read
    with the collection's labels): nothing said."""
    from gedkit.errors import Note

    nxg = nx.Graph()
    nxg.add_node(0, atom="C", charge=0)
    nxg.add_node(1, atom="O", charge=1)
    nxg.add_edge(0, 1, bond=1)
    every = Graph.from_networkx(nxg, node_label="*", edge_label="*")
    with pytest.warns(Note, match=r"node_label='atom' and edge_label='bond' name attributes "
                                  r".* a gedkit.Graph keeps the labels it was built with"):
        # its labels (atom, charge) and (bond,) against C/O and 1: every label differs
        assert gedkit.ged(every, nxg, node_label="atom", edge_label="bond").distance == 3
    for call in (lambda: gedkit.mces(every, every, edge_label="bond"),
                 lambda: gedkit.pairwise([every, every], node_label="atom")):
        with pytest.warns(Note, match="2 gedkit.Graph inputs keep the labels"):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gedkit.ged(every, every)
        gedkit.ged(nxg, nxg, node_label="atom", edge_label="bond")
        coll = gedkit.Collection()
        coll.add([every])
        coll.range(every, 0)


def test_labels_that_print_alike_but_differ_are_said_once():
    """A molecule written to GEXF (whose labels are text) and read back was 7 edits from
    itself, '1.5' against 1.5 on every aromatic bond, without a word: a note says which
    labels print alike but differ; labels that are equal (1 and 1.0) or of one type are
    not noted."""
    from gedkit.errors import Note

    text = gedkit.Graph({0: "C", 1: "C"}, [(0, 1, "1.5")])
    number = gedkit.Graph({0: "C", 1: "C"}, [(0, 1, 1.5)])
    with pytest.warns(Note, match="edge labels '1.5' and 1.5 print alike") as caught:
        assert gedkit.ged(text, number).distance == 1
    assert len([w for w in caught if issubclass(w.category, Note)]) == 1
    with pytest.warns(Note, match="print alike"):
        gedkit.pairwise([text, number, number], progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gedkit.ged(gedkit.Graph({0: 1}), gedkit.Graph({0: 1.0})).distance == 0
        assert gedkit.ged(number, number).distance == 0
