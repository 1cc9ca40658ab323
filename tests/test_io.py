"""gedkit.io: every format read, JSON and t/v/e round trips, and clear errors for bad files."""

from __future__ import annotations

import io
import json
import sys
import tarfile
import warnings
import zipfile
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from helpers import SHARED_DATA, random_graph

import gedkit
from gedkit import FormatError, Graph, GraphError, MissingDependencyError, OptionError
from gedkit.io import cxl_entries, detect_format, formats

HERE = Path(__file__).resolve().parent
FIX = HERE / "data" / "io"
EXAMPLES = HERE.parent / "examples"

CAFFEINE = "Cn1cnc2c1c(=O)n(C)c(=O)n2C"
THEOBROMINE = "Cn1cnc2c1c(=O)[nH]c(=O)n2C"


def shared(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available (needs ../shared/data)")
    return path


def chem():
    return pytest.importorskip("rdkit")


# -- format detection --------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "fmt"), [
    ("a.gxl", "gxl"), ("a.CXL", "cxl"), ("a.gexf", "gexf"), ("a.graphml", "graphml"),
    ("a.json", "json"), ("a.txt", "tve"), ("a.tve", "tve"), ("a.graph", "tve"),
    ("a.smi", "smiles"), ("a.smiles", "smiles"), ("a.sdf", "sdf"), ("a.mol", "mol"),
    ("a.gdb", "gdb"), ("a.csv", "csv"), ("a.TSV", "csv"),
])
def test_detect_format_by_extension(name, fmt):
    assert detect_format(name) == fmt
    assert name.lower().endswith(formats()[fmt])


def test_unknown_extension_lists_the_formats(tmp_path):
    path = tmp_path / "graph.xyz"
    path.write_text("t # 0\nv 0\n")
    with pytest.raises(FormatError, match=r"'\.xyz'.*format=.*gxl.*tve \(\.txt \.tve \.graph\)"):
        gedkit.read(path)
    assert gedkit.read(path, format="tve") == Graph([0], name="0")
    with pytest.raises(FormatError, match="unknown format 'nope'"):
        gedkit.read(path, format="nope")


def test_missing_file_and_bad_options():
    with pytest.raises(FileNotFoundError, match=r"absent\.json"):
        gedkit.read(FIX / "absent.json")
    with pytest.raises(OptionError, match="directed"):
        gedkit.read(FIX / "small.gxl", directed="maybe")
    with pytest.raises(OptionError, match="graph_dir"):
        gedkit.read(FIX / "small.gxl", graph_dir=FIX)
    with pytest.raises(OptionError, match="node_label"):
        gedkit.read(FIX / "small.gxl", node_label=3)


# -- GXL / CXL ---------------------------------------------------------------------------------
def test_gxl_typed_values_and_ids():
    g = gedkit.read(FIX / "small.gxl", node_label="*", edge_label="*")
    assert g.name == "small"  # the file stem, not the stale id inside
    assert g.ids == ("_1", "_2", "_3")
    assert g.node_label("_1") == {"symbol": "C", "chem": 6, "x": 0.5}
    assert g.node_label("_2") == {"symbol": "O", "chem": 8, "x": 1.5}  # String/Integer/Double
    assert g.edge_label("_1", "_3") == {"valence": 1, "ring": True}
    assert isinstance(g.node_label("_3")["x"], float)
    assert gedkit.read(FIX / "small.gxl").node_labels == (None, None, None)
    picked = gedkit.read(FIX / "small.gxl", node_label=["symbol", "chem"], edge_label="valence")
    assert picked.node_labels[0] == {"symbol": "C", "chem": 6}
    assert sorted(picked.edge_labels) == [1, 2]


def test_gxl_missing_label_attribute_names_the_file():
    with pytest.raises(GraphError, match=r"small\.gxl.*node '_1'.*'charge'.*chem, symbol, x"):
        gedkit.read(FIX / "small.gxl", node_label="charge")


def test_cxl_collection():
    graphs = gedkit.read_all(FIX / "collection.cxl", node_label="symbol")
    assert [g.name for g in graphs] == ["small", "second"]
    assert graphs[1] == Graph({"a": "C", "b": "C"}, [("a", "b")])
    assert cxl_entries(FIX / "collection.cxl") == [("small.gxl", "a"), ("second.gxl", "B")]
    with pytest.raises(FormatError, match=r"several graphs.*read_all"):
        gedkit.read(FIX / "collection.cxl")


def test_cxl_graph_dir(tmp_path):
    (tmp_path / "list.cxl").write_text(
        '<GraphCollection><print file="second.gxl" class="x"/></GraphCollection>'
    )
    with pytest.raises(FormatError, match=r"list\.cxl.*'second\.gxl' not found.*graph_dir"):
        gedkit.read_all(tmp_path / "list.cxl")
    assert gedkit.read(tmp_path / "list.cxl", graph_dir=FIX).name == "second"
    with pytest.raises(FormatError, match=r"missing_entry\.cxl.*'absent\.gxl'"):
        gedkit.read_all(FIX / "missing_entry.cxl")


def test_directed_gxl_rejected_unless_asked():
    with pytest.raises(GraphError, match=r"directed\.gxl.*directed.*directed='ignore'"):
        gedkit.read(FIX / "directed.gxl")
    g = gedkit.read(FIX / "directed.gxl", edge_label="orient", directed="ignore")
    assert g.m == 2
    assert g.edge_label("_1", "_2") == 0.5  # the first of the two opposite edges
    assert g.edge_label("_3", "_2") == 1.0


def test_an_edgeless_graph_of_a_directed_gxl_file_is_directed_when_kept(tmp_path):
    """IAM Fingerprint has edgeless graphs in directed files: read with directed="keep" they
    are directed too, so they compare with the set's other graphs (each such pair failed with
    'graph ... is directed and graph ... is not'); under the other policies, undirected."""
    path = tmp_path / "empty.gxl"
    path.write_text('<gxl><graph id="e" edgemode="directed"><node id="1"/></graph></gxl>')
    assert gedkit.read(path, directed="keep").directed
    assert not gedkit.read(path).directed and not gedkit.read(path, directed="ignore").directed
    arcs = gedkit.read(FIX / "directed.gxl", edge_label="orient", directed="keep")
    assert gedkit.ged(arcs, gedkit.read(path, directed="keep"), timeout=None).optimal


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(("body", "error", "match"), [
    ('<graph edgemode="undirected"><node/></graph>', FormatError, "<node> number 1 has no 'id'"),
    ('<graph edgemode="undirected"><node id="1"/><edge from="1"/></graph>', FormatError,
     "<edge> number 1 lacks a 'from' or 'to'"),
    ('<graph edgemode="undirected"><node id="1"><attr><int>1</int></attr></node></graph>',
     FormatError, "has no 'name'"),
    ('<graph edgemode="undirected"><node id="1"><attr name="a"/></node></graph>', FormatError,
     "exactly one typed value"),
    ('<graph edgemode="undirected"><node id="1"><attr name="a"><bool>maybe</bool></attr></node>'
     '</graph>', FormatError, "holds 'maybe'"),
    ('<graph edgemode="sideways"/>', FormatError, "unknown GXL edgemode 'sideways'"),
    ('<graph edgemode="undirected"><rel/></graph>', FormatError, "hyperedges"),
    ('<graph><node id="1"/><node id="2"/><edge from="1" to="2"/></graph>', GraphError,
     "is directed"),  # GXL's default edgemode is directed
    ('<graph edgemode="undirected"><node id="1"/><node id="2"/>'
     '<edge from="1" to="2" isdirected="true"/></graph>', GraphError, "is directed"),
    ('<graph edgemode="undirected"><node id="1"/><node id="1"/></graph>', GraphError,
     "node id '1' appears twice"),
    ('<graph edgemode="undirected"><node id="1"/><edge from="1" to="9"/></graph>', GraphError,
     "unknown node '9'"),
])
def test_gxl_malformed(tmp_path, body, error, match):
    path = write(tmp_path, "bad.gxl", f"<gxl>{body}</gxl>")
    with pytest.raises(error, match=match) as info:
        gedkit.read(path)
    assert "bad.gxl" in str(info.value)


def test_gxl_with_a_default_namespace(tmp_path):
    path = write(tmp_path, "ns.gxl", '<gxl xmlns="http://www.gupro.de/GXL/gxl-1.0"><graph '
                 'edgemode="undirected"><node id="1"/><node id="2"/><edge from="1" to="2"/>'
                 "</graph></gxl>")
    assert gedkit.read(path) == Graph(["1", "2"], [("1", "2")])


def test_gxl_number_with_text_keeps_the_text(tmp_path):
    # IAM Protein stores amino-acid sequences in <int> elements
    path = write(tmp_path, "p.gxl", '<gxl><graph edgemode="undirected"><node id="1">'
                 '<attr name="sequence"><int>TPEE</int></attr></node></graph></gxl>')
    assert gedkit.read(path, node_label="sequence").node_labels == ("TPEE",)


@pytest.mark.parametrize(("name", "error", "match"), [
    ("truncated.gxl", FormatError, r"truncated\.gxl: not well-formed XML.*line"),
    ("unknown_type.gxl", FormatError, r"unknown_type\.gxl.*unsupported GXL value type <tup>"),
    ("truncated.gexf", FormatError, r"truncated\.gexf: not well-formed XML"),
    ("directed.gexf", GraphError, r"directed\.gexf.*is directed"),
    ("directed.graphml", GraphError, r"directed\.graphml.*is directed"),
    ("truncated.json", FormatError, r"truncated\.json:2: not valid JSON"),
    ("not_nodelink.json", FormatError, r"not_nodelink\.json: not node-link JSON"),
    ("unknown_node.json", GraphError, r"unknown_node\.json: edge \(1, 3\) names unknown node 3"),
    ("multiedge.json", GraphError, r"multiedge\.json: multi-edge between 2 and 1"),
    ("bad_id.txt", FormatError, r"bad_id\.txt:3: node id 'a' is not a non-negative integer"),
    ("unknown_node.txt", FormatError, r"unknown_node\.txt:5: .*names node 2, which has no 'v'"),
    ("multiedge.txt", GraphError, r"multiedge\.txt:5: second edge between 1 and 0 .*does not "
                                  r"take multigraphs"),
    ("no_header.txt", FormatError, r"no_header\.txt:1: 'v' line outside a graph"),
    ("extra_column.txt", FormatError, r"extra_column\.txt:2: expected 'v <node> \[label\]'"),
    ("after_end.txt", FormatError, r"after_end\.txt:4: content after the end marker"),
    ("missing_entry.cxl", FormatError, r"missing_entry\.cxl: listed graph 'absent\.gxl'"),
])
def test_malformed_fixture_files(name, error, match):
    with pytest.raises(error, match=match):
        gedkit.read_all(FIX / name)


# -- GEXF / GraphML ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["small.gexf", "small.graphml"])
def test_networkx_formats(name):
    g = gedkit.read(FIX / name, node_label="type", edge_label="valence")
    assert g == Graph({"0": "C", "1": "O", "2": "N"}, [("0", "1", 2), ("0", "2", 1)])
    assert g.name == "small"
    # file bookkeeping (GEXF node label = id, edge ids) is not data
    everything = gedkit.read(FIX / name, node_label="*", edge_label="*")
    assert everything.node_labels[0] == {"type": "C"}
    assert sorted(everything.edge_labels, key=str) == [{"valence": 1}, {"valence": 2}]


def test_directed_networkx_formats_with_ignore(tmp_path):
    g = gedkit.read(FIX / "directed.gexf", directed="ignore", node_label="type")
    assert g.m == 2 and g.node_labels == ("C", "O", "N")
    # of two opposite edges the first in the file labels the edge, as in the other formats
    # (NetworkX lists a directed graph's edges by source: the second labelled it)
    path = write(tmp_path, "d.graphml", '<graphml xmlns="http://graphml.graphdrawing.org/'
                 'xmlns"><key id="d1" for="edge" attr.name="bond" attr.type="string"/><graph '
                 'edgedefault="directed"><node id="0"/><node id="1"/><edge source="1" '
                 'target="0"><data key="d1">first</data></edge><edge source="0" target="1">'
                 '<data key="d1">second</data></edge></graph></graphml>')
    assert gedkit.read(path, directed="ignore", edge_label="bond").edge_labels == ("first",)


# -- node-link JSON ----------------------------------------------------------------------------
def test_json_read_edges_key_and_name():
    g = gedkit.read(FIX / "small.json", node_label="type", edge_label="valence")
    assert g == Graph({"a": "C", "b": "O", "c": "N"}, [("a", "b", 2), ("c", "a", 1)])
    assert g.name == "tiny"


@pytest.mark.parametrize(("text", "match"), [
    ('[1, 2]', r"graph \[0\]: not node-link JSON"),
    ('{"nodes": [{"id": 1}]}', "exactly one edge list"),
    ('{"nodes": [], "links": [], "edges": []}', "exactly one edge list"),
    ('{"nodes": [{"name": 1}], "links": []}', r"node entry \[0\] is not an object with an 'id'"),
    ('{"nodes": [{"id": 1}], "links": [{"source": 1}]}', r"edge entry \[0\]"),
    ('{"nodes": [], "links": [], "directed": "no"}', "must be true or false"),
])
def test_json_malformed(tmp_path, text, match):
    with pytest.raises(FormatError, match=match):
        gedkit.read(write(tmp_path, "bad.json", text))


def test_json_directed_and_unhashable_ids(tmp_path):
    directed = write(tmp_path, "d.json", '{"directed": true, "nodes": [{"id": 1}, {"id": 2}], '
                     '"links": [{"source": 1, "target": 2}, {"source": 2, "target": 1}]}')
    with pytest.raises(GraphError, match=r"d\.json.*is directed"):
        gedkit.read(directed)
    assert gedkit.read(directed, directed="ignore") == Graph([1, 2], [(1, 2)])
    lists = write(tmp_path, "l.json", '{"nodes": [{"id": [1]}], "links": []}')
    with pytest.raises(GraphError, match=r"l\.json: node id \[1\] is not hashable"):
        gedkit.read(lists)


# -- t/v/e -------------------------------------------------------------------------------------
def test_a_collection_file_reads_as_a_graph_file(tmp_path, capsys):
    """A gedkit.Collection file is a graph source like any file: every graph in insertion
    order named by its id, FILE#ID by id (looked up) or by number, labels as stored (others
    refused), and the same on the command line (ged, pairwise, building another collection)."""
    from gedkit import Collection
    from gedkit.cli import main

    a = Graph({0: "C", 1: "O"}, [(0, 1, 2)], name="first")
    b = Graph({0: "C", 1: "N", 2: "C"}, [(0, 1, 1), (1, 2, 1)])
    c = Graph({0: "S"})
    lib = tmp_path / "lib.gdb"
    with Collection.create(lib, node_label="label", edge_label="label") as coll:
        coll.add([a, b, c], ids=["x", 7, "z"])
    graphs = gedkit.read_all(lib)
    assert [g.name for g in graphs] == ["x", "7", "z"]
    assert [g.node_labels for g in graphs] == [a.node_labels, b.node_labels, c.node_labels]
    assert gedkit.read(f"{lib}#7").node_labels == b.node_labels  # the id 7 (a number)
    # ids that include numbers: a number is an id, never a position (no id 2: no graph)
    with pytest.raises(FormatError, match=r"no graph with id 2 \(its ids include numbers, "
                                          r"so #2 means id 2, not graph number 2"):
        gedkit.read(f"{lib}#2")
    with pytest.raises(FormatError, match="no graph with id 'w'"):
        gedkit.read(f"{lib}#w")
    with pytest.raises(OptionError, match="read with node_label='label'"):
        gedkit.read_all(lib, node_label="symbol")
    assert gedkit.read_all(lib, node_label="label", edge_label="label")[1].name == "7"
    assert gedkit.ged(f"{lib}#x", f"{lib}#7", timeout=None).distance == gedkit.ged(
        a, b, timeout=None).distance
    assert main(["pairwise", str(lib), "--timeout", "none", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"] == ["x", "7", "z"]
    assert out["distance"][0][1] == gedkit.ged(a, b, timeout=None).distance
    merged = tmp_path / "merged.gdb"
    assert main(["collection", "build", str(merged), str(lib)]) == 0
    assert Collection.open(merged).ids == ["x", "7", "z"]
    # names only: a number is a position too
    named = tmp_path / "named.gdb"
    with Collection.create(named, node_label="label", edge_label="label") as coll:
        coll.add([a, b, c], ids=["x", "y", "z"])
    assert gedkit.read(f"{named}#2").name == "z"
    # numbered, one removed: #1 is no graph (it picked id 2, graph number 1, silently)
    numbered = tmp_path / "numbered.gdb"
    with Collection.create(numbered, node_label="label", edge_label="label") as coll:
        coll.add([a, b, c])
        coll.remove([1])
    assert gedkit.read(f"{numbered}#2").node_labels == c.node_labels
    with pytest.raises(FormatError, match="no graph with id 1 "):
        gedkit.read(f"{numbered}#1")
    assert main(["ged", f"{numbered}#1", f"{numbered}#2"]) == 2
    assert "no graph with id 1 " in capsys.readouterr().err


def test_tve_parsing():
    g0, g1 = gedkit.read_all(FIX / "graphs.txt")
    assert g0 == Graph({0: 6, 1: 8, 2: "C"}, [(0, 1, 2), (1, 2, None)], name="g0")
    assert g0.name == "g0" and g1.name == "7"
    assert g1 == Graph({0: 1.5, 1: None}, [(0, 1, "x")])
    bare = gedkit.read_all(FIX / "graphs.txt", node_label=None, edge_label=None)
    assert all(lab is None for g in bare for lab in g.node_labels + g.edge_labels)
    with pytest.raises(OptionError, match="one unnamed label column"):
        gedkit.read_all(FIX / "graphs.txt", node_label="atom")


def test_a_tve_file_cut_inside_its_last_line_says_so(tmp_path):
    """A labelled t/v/e file cut inside its last line (``e 1 2`` of ``e 1 2 1``) read as an
    unlabelled edge, silently; a line without a label that ends is an unlabelled node or
    edge, as the format allows."""
    cut = tmp_path / "cut.txt"
    cut.write_text("t # 0\nv 0 C\nv 1 N\nv 2 O\ne 0 1 1\ne 1 2")
    with pytest.raises(FormatError, match=r"cut\.txt:6: the file ends inside this line"):
        gedkit.read_all(cut)
    cut.write_text("t # 0\nv 0 C\nv 1 N\nv 2 O\ne 0 1 1\ne 1 2\n")
    assert gedkit.read_all(cut)[0].edge_labels == (1, None)
    cut.write_text("t # 0\nv 0\nv 1\ne 0 1")  # unlabelled throughout: nothing cut
    assert gedkit.read_all(cut)[0].m == 1


def test_tve_empty_and_bad_header(tmp_path):
    empty = write(tmp_path, "empty.txt", "# nothing here\n\n")
    assert gedkit.read_all(empty) == []
    with pytest.raises(FormatError, match="holds no graph"):
        gedkit.read(empty)
    with pytest.raises(FormatError, match=r":1: expected 't # <graph id>'"):
        gedkit.read(write(tmp_path, "t.txt", "t # 1 2\n"))
    with pytest.raises(FormatError, match=r":1: unknown line type 'x'"):
        gedkit.read(write(tmp_path, "x.txt", "x 1\n"))
    with pytest.raises(FormatError, match=r"b\.txt: not a tve file: not UTF-8"):
        (tmp_path / "b.txt").write_bytes(b"t # 0\nv 0 \xff\xfe\n")
        gedkit.read(tmp_path / "b.txt")


def test_the_first_file_decides_whether_labels_repeating_ids_are_labels(tmp_path):
    """Node labels that repeat the ids (no label, as GEXF writes them) in one file, other
    values in its isomorphic twin: both files read alike, whichever comes first (the first
    lost its labels, the second kept them: distance 3 without a word)."""
    text = ('<gexf version="1.2" xmlns="http://www.gexf.net/1.2draft"><graph defaultedgetype='
            '"undirected"><nodes><node id="0" label="{}"/><node id="1" label="1"/><node id="2" '
            'label="{}"/></nodes><edges><edge id="0" source="0" target="1"/><edge id="1" '
            'source="1" target="2"/></edges></graph></gexf>')
    same = write(tmp_path, "same.gexf", text.format(0, 2))
    twin = write(tmp_path, "twin.gexf", text.format(2, 0))
    assert gedkit.ged(same, twin).distance == gedkit.ged(twin, same).distance == 0
    assert gedkit.read(twin).node_labels == ("2", "1", "0")


def test_gephis_drawing_is_no_label(tmp_path):
    """GEXF's viz (Gephi's position, size, colour of a node), which NetworkX reads as an
    attribute, is left out unless named: a Gephi export was read unlabelled, its nodes having
    two attributes."""
    node = ('<node id="{}" label="{}"><attvalues><attvalue for="0" value="{}"/></attvalues>'
            '<viz:position x="{}" y="0.0" z="0.0"/></node>')
    text = ('<gexf version="1.2" xmlns="http://www.gexf.net/1.2draft" xmlns:viz="http://www.gexf'
            '.net/1.2draft/viz"><graph defaultedgetype="undirected"><attributes class="node">'
            '<attribute id="0" title="type" type="string"/></attributes><nodes>'
            + node.format(0, 0, "C", 0.0) + node.format(1, 1, "O", 10.0)
            + '</nodes><edges><edge id="0" source="0" target="1"/></edges></graph></gexf>')
    path = write(tmp_path, "gephi.gexf", text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gedkit.read(path).node_labels == ("C", "O")
    assert gedkit.read(path, node_label="*").node_labels == ({"type": "C"}, {"type": "O"})
    drawn = gedkit.read(path, node_label=["type", "viz"]).node_labels
    assert drawn[1]["viz"]["position"]["x"] == 10.0


def test_the_graphs_of_a_gxl_file_are_named_by_their_ids(tmp_path):
    """Several graphs of one GXL file take their ids as names, so that FILE#ID picks one
    (they were FILE[0], FILE[1] whatever their ids); without an id of their own each, as
    before, and a file of one graph is named after the file (as IAM's .cxl files list it)."""
    body = ('<graph id="{}" edgemode="undirected"><node id="a"/></graph>'
            '<graph id="{}" edgemode="undirected"><node id="a"/><node id="b"/>'
            '<edge from="a" to="b"/></graph>')
    path = write(tmp_path, "two.gxl", "<gxl>" + body.format("alpha", "beta") + "</gxl>")
    assert [g.name for g in gedkit.read_all(path)] == ["alpha", "beta"]
    assert gedkit.read(f"{path}#beta").m == 1
    same = write(tmp_path, "same.gxl", "<gxl>" + body.format("x", "x") + "</gxl>")
    assert [g.name for g in gedkit.read_all(same)] == ["same[0]", "same[1]"]
    one = write(tmp_path, "one.gxl", '<gxl><graph id="g7" edgemode="undirected"/></gxl>')
    assert gedkit.read(one).name == "one"


def test_read_refuses_several_graphs():
    with pytest.raises(FormatError, match=r"graphs\.txt: .*several graphs.*gedkit\.read_all"):
        gedkit.read(FIX / "graphs.txt")


# -- writing and round trips -------------------------------------------------------------------
def test_round_trip_random_graphs(tmp_path):
    rng = np.random.default_rng(7)
    graphs = [random_graph(rng, n, name=f"r{n}") for n in range(0, 9)]
    gedkit.write(graphs, tmp_path / "all.txt")
    gedkit.write(graphs, tmp_path / "all.json")
    assert gedkit.read_all(tmp_path / "all.txt") == graphs
    back = gedkit.read_all(tmp_path / "all.json", node_label="label", edge_label="label")
    assert back == graphs
    assert [g.name for g in back] == [g.name for g in graphs]
    gedkit.write(graphs[5], tmp_path / "one.json")
    assert gedkit.read(tmp_path / "one.json", node_label="label", edge_label="label") == graphs[5]


def test_round_trip_json_labels_and_ids(tmp_path):
    g = Graph(
        {"a": {"atom": "C", "xy": [0.5, 1.0]}, 7: None, "c": {"atom": "O", "xy": [1, 2]}},
        [("a", 7, (1, 2)), (7, "c", None), ("a", "c", {"w": 1.5})],
        name="mixed",
    )
    gedkit.write(g, tmp_path / "g.json")
    assert gedkit.read(tmp_path / "g.json", node_label="label", edge_label="label") == g
    unlabelled = Graph(["x", "y"], [("x", "y")])
    gedkit.write(unlabelled, tmp_path / "u.json", node_label="atom")
    assert gedkit.read(tmp_path / "u.json") == unlabelled
    # read back with the labels named, and a file whose later graph is unlabelled (the
    # attribute was left out where every label of a kind was None: both failed)
    assert gedkit.read(tmp_path / "u.json", node_label="atom", edge_label="label") == unlabelled
    labelled = Graph({0: "C", 1: "O"}, [(0, 1, 1)], name="a")
    gedkit.write([labelled, unlabelled], tmp_path / "both.json")
    assert gedkit.read_all(tmp_path / "both.json") == [labelled, unlabelled]
    assert gedkit.read_all(tmp_path / "both.json", node_label="label",
                           edge_label="label") == [labelled, unlabelled]
    dicts = Graph({1: {"atom": "C"}, 2: {}}, [(1, 2, {"bond": 2})])
    gedkit.write(dicts, tmp_path / "d.json", node_label="*", edge_label="*")
    assert gedkit.read(tmp_path / "d.json", node_label="*", edge_label="*") == dicts
    assert '{"id": 1, "atom": "C"}' in (tmp_path / "d.json").read_text()


@pytest.mark.parametrize("name", ["g.json.gz", "g.txt.gz"])
def test_written_gz_files_are_compressed_and_read_back(tmp_path, name):
    """A .gz name is written gzipped (it was plain text, which gedkit then refused to read
    as gzip), and a text file starting with a byte-order mark reads as without it."""
    g = Graph({0: "C", 1: "O"}, [(0, 1, 1)], name="g")
    gedkit.write(g, tmp_path / name)
    assert (tmp_path / name).read_bytes()[:2] == b"\x1f\x8b"
    assert gedkit.read(tmp_path / name) == g
    plain = tmp_path / name.removesuffix(".gz")
    gedkit.write(g, plain)
    marked = tmp_path / ("bom" + plain.suffix)
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert gedkit.read(marked) == gedkit.read(plain)


def test_round_trip_tve_renumber(tmp_path):
    g = Graph({"_1": "C", "_2": "O"}, [("_1", "_2", 2)], name="CO")
    with pytest.raises(FormatError, match=r"node id '_1'.*renumber=True"):
        gedkit.write(g, tmp_path / "g.txt")
    assert not (tmp_path / "g.txt").exists()
    gedkit.write(g, tmp_path / "g.txt", renumber=True)
    assert gedkit.read(tmp_path / "g.txt") == Graph({0: "C", 1: "O"}, [(0, 1, 2)])


@pytest.mark.parametrize(("graph", "name", "match"), [
    (Graph({0: "a b"}), "g.txt", "label 'a b' of node 0"),
    (Graph({0: "12"}), "g.txt", "label '12' of node 0"),
    (Graph({0: True}), "g.txt", "label True"),
    (Graph({0: {"a": 1}}), "g.txt", "cannot be written as a t/v/e token"),
    (Graph({0: "C"}, name="two words"), "g.txt", "graph name 'two words'"),
    (Graph({0: float("inf")}), "g.json", "inf, which JSON cannot hold"),
    (Graph({0: {1: "x"}}), "g.json", "non-string keys"),
    (Graph({(0, 1): "C"}), "g.json", r"node id \(0, 1\).*strings or numbers"),
    (Graph({0: object()}), "g.json", "object, which JSON cannot hold"),
])
def test_writers_refuse_what_would_not_read_back(tmp_path, graph, name, match):
    with pytest.raises(FormatError, match=match):
        gedkit.write(graph, tmp_path / name)
    assert not (tmp_path / name).exists()


def test_write_options(tmp_path):
    g = Graph({0: "C", 1: "O"}, [(0, 1)])
    with pytest.raises(FormatError, match="cannot write gxl files; it writes: json, tve"):
        gedkit.write(g, tmp_path / "g.gxl")
    with pytest.raises(FormatError, match=r"writing with label '\*' needs attribute-dict"):
        gedkit.write(g, tmp_path / "g.json", node_label="*")
    with pytest.raises(OptionError, match="renumber"):
        gedkit.write(g, tmp_path / "g.json", renumber=True)
    with pytest.raises(OptionError, match="'id'"):
        gedkit.write(g, tmp_path / "g.json", node_label="id")
    with pytest.raises(OptionError, match="must be 'label'"):
        gedkit.write(g, tmp_path / "g.txt", node_label="atom")
    with pytest.raises(GraphError, match=r"'not a graph' is neither an existing file nor a "
                       "SMILES string"):
        gedkit.write([g, "not a graph"], tmp_path / "g.json")
    with pytest.raises(GraphError, match=r"expected a gedkit\.Graph, .*got int"):
        gedkit.write([g, 5], tmp_path / "g.json")
    # one graph as every entry point takes one (a NetworkX graph was iterated as its nodes)
    gedkit.write(nx.path_graph(3), tmp_path / "p.json")
    gedkit.write("CCO", tmp_path / "m.json")
    assert gedkit.read(tmp_path / "p.json").n == 3 and gedkit.read(tmp_path / "m.json").m == 2
    gedkit.write(g, tmp_path / "g.dat", format="tve")
    assert gedkit.read(tmp_path / "g.dat", format="tve") == g


def test_numpy_labels_are_written_as_python_values(tmp_path):
    g = Graph({0: np.int64(3), 1: np.float32(0.5)}, [(0, 1, np.int16(2))])
    for name in ("g.json", "g.txt"):
        gedkit.write(g, tmp_path / name)
        assert gedkit.read(tmp_path / name, node_label="label", edge_label="label") == g


# -- molecules ---------------------------------------------------------------------------------
def test_smiles_file(tmp_path):
    chem()
    caffeine, theobromine, aspirin = gedkit.read_all(FIX / "molecules.smi")
    assert (caffeine.name, theobromine.name, aspirin.name) == (
        "caffeine", "theobromine", "molecules[2]")
    assert caffeine.n == 14 and caffeine.m == 15
    assert sorted(set(caffeine.edge_labels)) == [1, 1.5, 2]
    assert set(aspirin.node_labels) == {"C", "O"}
    assert caffeine == gedkit.io.from_smiles(CAFFEINE)
    full = gedkit.read_all(FIX / "molecules.smi", node_label="*", edge_label="*")[0]
    assert full.node_label(0) == {"atom": "C", "charge": 0, "aromatic": False, "hydrogens": 3}
    assert full.edge_label(1, 2) == {"bond": 1.5, "aromatic": True}
    with pytest.raises(FormatError, match=r"bad\.smi:2: RDKit cannot parse the SMILES 'C1CC\('"):
        gedkit.read_all(FIX / "bad.smi")
    with pytest.raises(FormatError, match=r"cannot parse the SMILES 'C1CC\('$"):
        gedkit.io.from_smiles("C1CC(")
    # one that parses but whose valence RDKit rejects: RDKit's reason, not only "cannot parse"
    valence = r"cannot parse the SMILES 'C\[N\]\(C\)\(C\)\(C\)C': Explicit valence for atom"
    with pytest.raises(FormatError, match=valence):
        gedkit.io.from_smiles("C[N](C)(C)(C)C")
    bad = tmp_path / "bad_valence.smi"
    bad.write_text("CCO ok\nC[N](C)(C)(C)C five\n")
    skipped: list = []
    graphs = list(gedkit.io.read_graphs(bad, gedkit.io.Unlabelled(), skipped=skipped))
    assert len(graphs) == 1 and "bad_valence.smi:2: RDKit cannot parse" in skipped[0]
    assert "Explicit valence for atom # 1 N, 5" in skipped[0]
    # a line (a row) that is not UTF-8 is one record that cannot be read (it stopped the
    # whole file)
    for name, text, line in (("latin.smi", b"CCO ethanol\nCCN caf\xe9\nCCC propane\n", 2),
                             ("latin.csv", b"smiles,name\nCCO,ethanol\nCCN,caf\xe9\n"
                                           b"CCC,propane\n", 3)):
        latin = tmp_path / name
        latin.write_bytes(text)
        skipped = []
        graphs = list(gedkit.io.read_graphs(latin, gedkit.io.Unlabelled(), skipped=skipped))
        assert [g.name for g in graphs] == ["ethanol", "propane"]
        assert skipped == [f"{latin}:{line}: not UTF-8 text"]
        with pytest.raises(FormatError, match=rf"{name}:{line}: not UTF-8 text"):
            gedkit.read_all(latin)


def test_docstring_examples_of_the_chem_module():
    chem()
    from rdkit import Chem

    g = gedkit.io.from_rdkit(Chem.MolFromSmiles("C=O"), name="formaldehyde")
    assert (g.node_labels, g.edge_labels, g.name) == (("C", "O"), (2,), "formaldehyde")
    phenol = gedkit.io.from_smiles("c1ccccc1O", name="phenol")
    assert (phenol.n, phenol.m, sorted(set(phenol.edge_labels))) == (7, 7, [1, 1.5])


def test_kekulized_bonds_are_read_only_when_named():
    chem()
    benzene = gedkit.io.from_smiles("c1ccccc1")
    kekule = gedkit.io.from_smiles("c1ccccc1", edge_label="kekule")
    assert set(benzene.edge_labels) == {1.5}
    assert sorted(kekule.edge_labels) == [1, 1, 1, 2, 2, 2]  # a Kekule structure
    # RDKit perceives aromaticity in a Kekule SMILES too: "bond" reads it aromatic
    assert gedkit.io.from_smiles("C1=CC=CC=C1") == benzene
    assert gedkit.io.from_smiles("C1=CC=CC=C1", edge_label="kekule") == kekule
    both = gedkit.io.from_smiles("c1ccccc1O", edge_label=["bond", "kekule"])
    assert {label["bond"] for label in both.edge_labels} == {1, 1.5}
    assert {label["kekule"] for label in both.edge_labels} == {1, 2}
    # "*" keeps the attributes it always read, so labels read with it stay comparable
    assert set(gedkit.io.from_smiles("c1ccccc1", edge_label="*").edge_labels[0]) == {
        "bond", "aromatic"}
    # the molecule itself is left aromatic
    from rdkit import Chem

    mol = Chem.MolFromSmiles("c1ccccc1")
    gedkit.io.from_rdkit(mol, edge_label="kekule")
    assert mol.GetBondWithIdx(0).GetIsAromatic()


def test_a_molecule_with_hydrogen_atoms_is_its_smiles(tmp_path):
    """RDKit keeps hydrogen atoms added to a molecule (AddHs, for 3D embedding) and drops them
    reading SMILES and SDF: one molecule must be one graph whichever way it comes (with its
    hydrogens it was 12 edits from its own SMILES, and a collection search found nothing
    near); the hydrogens RDKit keeps as atoms reading files (isotopes) stay nodes alike."""
    chem()
    from rdkit import Chem

    ethanol = Chem.AddHs(Chem.MolFromSmiles("CCO"))
    assert ethanol.GetNumAtoms() == 9
    g = gedkit.io.from_rdkit(ethanol)
    explicit = "[H]C([H])([H])C([H])([H])O[H]"
    assert g == gedkit.io.from_smiles("CCO") == gedkit.io.from_smiles(explicit)
    assert gedkit.ged(ethanol, "CCO").distance == 0
    full = gedkit.io.from_rdkit(ethanol, node_label="*")
    assert [label["hydrogens"] for label in full.node_labels] == [3, 2, 1]
    assert ethanol.GetNumAtoms() == 9  # the caller's molecule is left as it was
    aspirin = Chem.AddHs(Chem.MolFromSmiles("CC(=O)Oc1ccccc1C(=O)O"))
    with Chem.SDWriter(str(tmp_path / "aspirin.sdf")) as out:
        out.write(aspirin)
    assert gedkit.io.from_rdkit(aspirin) == gedkit.read(tmp_path / "aspirin.sdf")
    deuterated = "[2H]C([2H])([2H])O"
    assert gedkit.io.from_rdkit(Chem.MolFromSmiles(deuterated)).n == 5
    assert gedkit.io.from_smiles(deuterated).n == 5


def test_mol_and_sdf_files(tmp_path):
    chem()
    caffeine = gedkit.io.from_smiles(CAFFEINE)
    assert gedkit.read(FIX / "caffeine.mol") == caffeine
    assert gedkit.read(FIX / "caffeine.mol").name == "caffeine"
    both = gedkit.read_all(FIX / "caffeine.sdf")
    assert both == [caffeine, gedkit.io.from_smiles(THEOBROMINE)]
    assert [g.name for g in both] == ["caffeine", "theobromine"]
    with pytest.raises(FormatError, match="read_all"):
        gedkit.read(FIX / "caffeine.sdf")
    with pytest.raises(FormatError, match=r"bad\.mol: RDKit cannot parse"):
        gedkit.read(FIX / "bad.mol")
    with pytest.raises(FormatError, match=r"bad\.sdf: RDKit cannot parse molecule number 1 \(#0\) "
                       r"\(titled 'this is not'\)$"):
        gedkit.read_all(FIX / "bad.sdf")
    # a .mol holding several molecules: refused (RDKit read the first and dropped the rest)
    several = tmp_path / "two.mol"
    several.write_bytes((FIX / "caffeine.sdf").read_bytes())
    with pytest.raises(FormatError, match=r"two\.mol: a MOL file holds one molecule"):
        gedkit.read_all(several)
    assert gedkit.read_all(several, format="sdf") == both


def test_cxsmiles_extensions_are_read_with_their_smiles(tmp_path):
    """A CXSMILES line (``SMILES |extension| title``): the extension was the molecule's
    name ('|r| alanine rac'); RDKit reads it with the SMILES, the title follows it."""
    chem()
    smi = tmp_path / "cx.smi"
    smi.write_text("C[C@H](N)C(=O)O |r| alanine rac\nCCN |$;;$|\nCO methanol\n")
    graphs = gedkit.read_all(smi)
    assert [g.name for g in graphs] == ["alanine rac", "cx[1]", "methanol"]
    assert graphs[0] == gedkit.io.from_smiles("C[C@H](N)C(=O)O")
    assert gedkit.io.chem.record_names(smi, False) == [g.name for g in graphs]
    assert gedkit.read(f"{smi}#alanine rac") == graphs[0]


def test_one_molecule_of_a_smiles_file_is_picked_without_parsing_the_others(tmp_path):
    """``FILE#ID`` on a SMILES file or table finds the record by name, else by number,
    and parses that molecule alone (MOSES's ``test.csv.gz#0`` parsed all 176,000 looking
    for one named "0": 77 s); a record RDKit rejects elsewhere in the file is not read."""
    chem()
    smi = tmp_path / "f.smi"
    smi.write_text("C1CC(( broken\nCCO ethanol\nCCN\n")
    assert gedkit.read(f"{smi}#ethanol") == gedkit.io.from_smiles("CCO")
    picked = gedkit.read(f"{smi}#2")
    assert picked == gedkit.io.from_smiles("CCN") and picked.name == "f[2]"
    table = tmp_path / "t.csv"
    table.write_text("smiles,id\nC1CC((,x\nc1ccccc1,benzene\n")
    assert gedkit.read(f"{table}#benzene").n == 6 and gedkit.read(f"{table}#1").n == 6
    with pytest.raises(FormatError, match=r"no graph named 'zz' \(it holds 3 graphs; its "
                                          r"names: 'broken', 'ethanol', 'f\[2\]'"):
        gedkit.read(f"{smi}#zz")
    with pytest.raises(FormatError, match="RDKit cannot parse"):
        gedkit.read(f"{smi}#0")


def test_a_table_whose_header_is_not_utf8_says_so(tmp_path):
    """A CSV table of random bytes or in UTF-16: "not UTF-8 text", as the other formats say
    (it said "no SMILES column in its header" with the bytes escaped)."""
    chem()
    for name, data in (("bin.csv", bytes(range(128, 256)) * 3),
                       ("wide.csv", "name,SMILES\nx,CCO\n".encode("utf-16"))):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(FormatError, match=rf"{name}:1: not UTF-8 text \(the header"):
            gedkit.read_all(tmp_path / name)


def test_smiles_tables_csv_and_tsv(tmp_path):
    chem()
    plain = gedkit.read_all(FIX / "molecules.smi")
    assert gedkit.read_all(FIX / "molecules.csv") == plain
    assert [g.name for g in gedkit.read_all(FIX / "molecules.csv")] == [g.name for g in plain]
    table = tmp_path / "lib.csv"
    table.write_text(f"Zinc_ID,SMILES,weight\nZ1,{CAFFEINE},194\n\nZ2,{THEOBROMINE},180\n")
    assert gedkit.read_all(table) == [gedkit.io.from_smiles(CAFFEINE),
                                      gedkit.io.from_smiles(THEOBROMINE)]
    assert [g.name for g in gedkit.read_all(table)] == ["Z1", "Z2"]
    assert gedkit.read(f"{table}#Z2") == gedkit.io.from_smiles(THEOBROMINE)
    # a tab-separated table, the SMILES column found by a name containing "smiles", no name
    # column: named after the file; bad rows raise, or are told and left out
    tsv = tmp_path / "lib.tsv"
    tsv.write_text(f"canonical_smiles\tweight\n{CAFFEINE}\t194\nC1CC(\t0\n\t1\n")
    with pytest.raises(FormatError, match=r"lib\.tsv:3: RDKit cannot parse the SMILES 'C1CC\('"):
        gedkit.read_all(tsv)
    skipped: list[str] = []
    notice = gedkit.io.common.Unlabelled()
    kept = list(gedkit.io.read_graphs(tsv, notice, skipped=skipped))
    assert [g.name for g in kept] == ["lib[0]"]
    assert skipped == [f"{tsv}:3: RDKit cannot parse the SMILES 'C1CC('",
                       f"{tsv}:4: no SMILES in column 'canonical_smiles'"]
    # a .smi line whose SMILES column is empty: its title is not read as a SMILES
    smi = tmp_path / "tabbed.smi"
    smi.write_text(f"{CAFFEINE}\tq1\n\tq2\n")
    skipped = []
    kept = list(gedkit.io.read_graphs(smi, notice, skipped=skipped))
    assert [g.name for g in kept] == ["q1"] and skipped == [f"{smi}:2: no SMILES before the tab"]
    # semicolons, the delimiter the header holds most of
    semi = tmp_path / "one.csv"
    semi.write_text("name;smiles\ncaffeine;" + CAFFEINE + "\n")
    assert gedkit.read(semi).name == "caffeine"
    untitled = tmp_path / "untitled.csv"
    untitled.write_text(f"smiles\n{CAFFEINE}\n")
    assert gedkit.read(untitled).name == "untitled"
    headless = tmp_path / "headless.csv"
    headless.write_text(f"{CAFFEINE},caffeine\n")
    with pytest.raises(FormatError, match=r"headless\.csv: no SMILES column in its header"):
        gedkit.read_all(headless)
    (tmp_path / "empty.csv").write_text("")
    assert gedkit.read_all(tmp_path / "empty.csv") == []


def test_gzip_compressed_files_read_as_the_files_they_hold(tmp_path):
    import gzip
    import shutil

    chem()
    for name in ("molecules.smi", "caffeine.sdf"):
        packed = tmp_path / (name + ".gz")
        with open(FIX / name, "rb") as f, gzip.open(packed, "wb") as out:
            shutil.copyfileobj(f, out)
        plain = gedkit.read_all(FIX / name)
        assert gedkit.read_all(packed) == plain
        assert [g.name for g in gedkit.read_all(packed)] == [g.name for g in plain]
    # untitled molecules are named after the file without .gz
    packed = tmp_path / "lib.csv.gz"
    with gzip.open(packed, "wt") as out:
        out.write(f"smiles\n{CAFFEINE}\n{THEOBROMINE}\n")
    assert [g.name for g in gedkit.read_all(packed)] == ["lib[0]", "lib[1]"]
    g = Graph({0: "C", 1: "O"}, [(0, 1, 2)], name="CO")
    gedkit.write(g, tmp_path / "co.json")
    with open(tmp_path / "co.json", "rb") as f, gzip.open(tmp_path / "co.json.gz", "wb") as out:
        shutil.copyfileobj(f, out)
    assert gedkit.read(tmp_path / "co.json.gz") == g
    assert detect_format("x.TXT.GZ") == "tve"
    # formats not read compressed, files that are not gzip inside, truncated ones
    with pytest.raises(FormatError, match=r"reads gxl files uncompressed only .* gunzip"):
        gedkit.read(tmp_path / "g.gxl.gz")
    with pytest.raises(FormatError, match=r"reads mol files uncompressed only"):
        detect_format(tmp_path / "x.gz", format="mol")
    with pytest.raises(FormatError, match=r"its extension '\.gz'"):
        detect_format("x.gz")
    (tmp_path / "fake.smi.gz").write_text("CCO\n")
    with pytest.raises(FormatError, match=r"fake\.smi\.gz: not a readable gzip file"):
        gedkit.read_all(tmp_path / "fake.smi.gz")
    (tmp_path / "cut.csv.gz").write_bytes(packed.read_bytes()[:20])
    with pytest.raises(FormatError, match=r"cut\.csv\.gz: not a readable gzip file"):
        gedkit.read_all(tmp_path / "cut.csv.gz")
    # SDF goes through RDKit, which wrapped the stream's error in a SystemError (a traceback)
    chem()
    sdf = gzip.compress((FIX / "caffeine.sdf").read_bytes() * 3)
    (tmp_path / "cut.sdf.gz").write_bytes(sdf[:len(sdf) // 2])
    with pytest.raises(FormatError, match=r"cut\.sdf\.gz: not a readable gzip file"):
        gedkit.read_all(tmp_path / "cut.sdf.gz")
    (tmp_path / "fake.sdf.gz").write_bytes((FIX / "caffeine.sdf").read_bytes())
    with pytest.raises(FormatError, match=r"fake\.sdf\.gz: not a readable gzip file"):
        gedkit.read_all(tmp_path / "fake.sdf.gz")


def test_untitled_molecules_are_named_after_the_file(tmp_path):
    chem()
    text = (FIX / "caffeine.sdf").read_text()
    untitled = "\n".join("" if line in ("caffeine", "theobromine") else line
                         for line in text.splitlines())
    write(tmp_path, "pair.sdf", untitled)
    assert [g.name for g in gedkit.read_all(tmp_path / "pair.sdf")] == ["pair[0]", "pair[1]"]
    write(tmp_path, "one.sdf", untitled.split("$$$$")[0] + "$$$$\n")
    assert gedkit.read(tmp_path / "one.sdf").name == "one"
    write(tmp_path, "empty.sdf", "")
    assert gedkit.read_all(tmp_path / "empty.sdf") == []


def test_missing_rdkit_is_reported(monkeypatch):
    monkeypatch.setitem(sys.modules, "rdkit", None)
    with pytest.raises(MissingDependencyError, match=r"'rdkit'.*gedkit\[chem\]") as info:
        gedkit.read(FIX / "molecules.smi")
    assert info.value.package == "rdkit"
    with pytest.raises(MissingDependencyError):
        gedkit.io.from_smiles("CCO")


# -- bundled examples and fixtures -------------------------------------------------------------
def test_examples():
    caffeine = gedkit.read(EXAMPLES / "caffeine.json", node_label="atom", edge_label="bond")
    theobromine = gedkit.read(EXAMPLES / "theobromine.json", node_label="atom",
                              edge_label="bond")
    assert gedkit.read_all(EXAMPLES / "molecules.txt") == [caffeine, theobromine]
    assert (caffeine.n, caffeine.m, theobromine.n, theobromine.m) == (14, 15, 13, 14)
    assert gedkit.ged(caffeine, theobromine).distance == 2


def test_examples_are_the_smiles_molecules():
    chem()
    assert gedkit.read(EXAMPLES / "caffeine.json", node_label="atom", edge_label="bond") == (
        gedkit.io.from_smiles(CAFFEINE))
    assert gedkit.read_all(EXAMPLES / "molecules.txt")[1] == gedkit.io.from_smiles(THEOBROMINE)


def read_ged_table(path: Path) -> tuple[list[str], np.ndarray]:
    rows = [line.split("\t") for line in path.read_text().splitlines()]
    assert [row[0] for row in rows[1:]] == rows[0][1:]  # rows in header order
    return rows[0][1:], np.array([[int(x) for x in row[1:]] for row in rows[1:]])


@pytest.mark.parametrize(("sample", "labelled"), [("aids700_sample", True),
                                                  ("linux_sample", False)])
def test_ground_truth_samples(sample, labelled):
    graphs = gedkit.read_all(HERE / "data" / f"{sample}.txt")
    gids, ged = read_ged_table(HERE / "data" / f"{sample}_ged.tsv")
    assert len(graphs) == 20 and [g.name for g in graphs] == gids
    assert ged.shape == (20, 20) and (ged == ged.T).all() and (np.diag(ged) == 0).all()
    assert all(lab is None for g in graphs for lab in g.edge_labels)
    assert all((lab is not None) == labelled for g in graphs for lab in g.node_labels)
    small = sorted(range(20), key=lambda i: graphs[i].n)[:4]
    for i in small:
        for j in small:
            if i < j:
                assert gedkit.ged(graphs[i], graphs[j]).distance == ged[i, j]


# -- the real data sets (skipped without ../shared/data) ---------------------------------------
@pytest.mark.parametrize(("zip_name", "sample", "node_attr"), [
    ("AIDS700nef/AIDS700nef.zip", "aids700_sample", "type"),
    ("LINUX/LINUX.zip", "linux_sample", None),
])
def test_gexf_sets_match_the_samples(tmp_path, zip_name, sample, node_attr):
    archive = shared(zip_name)
    folder = zip_name.split("/")[0]
    wanted = gedkit.read_all(HERE / "data" / f"{sample}.txt")[:5]
    with zipfile.ZipFile(archive) as z:
        for g in wanted:
            path = tmp_path / f"{g.name}.gexf"
            path.write_bytes(z.read(f"{folder}/train/{g.name}.gexf"))
            read = gedkit.read(path, node_label=node_attr)
            assert read.name == g.name
            ids = [int(u) for u in read.ids]
            as_ints = Graph(dict(zip(ids, read.node_labels, strict=True)),
                            [(ids[a], ids[b]) for a, b in read.edges.tolist()])
            assert as_ints == g
    if node_attr:
        labelled = gedkit.read(path, node_label="*", edge_label="*")
        assert set(labelled.node_labels[0]) == {"type"}
        assert set(labelled.edge_labels[0]) == {"valence"}


IAM_FILES = [
    ("AIDS", "AIDS/data/100.gxl", "symbol", "valence"),
    ("GREC", "GREC/data/image10_1.gxl", "type", "frequency"),
    ("Letter", "Letter/HIGH/AP1_0000.gxl", "x", None),
    ("Mutagenicity", "Mutagenicity/data/molecule_1.gxl", "chem", "valence"),
    ("Protein", "Protein/data/enzyme_1.gxl", "sequence", "frequency"),
]


@pytest.mark.parametrize(("archive", "member", "node_attr", "edge_attr"), IAM_FILES)
def test_iam_gxl(tmp_path, archive, member, node_attr, edge_attr):
    path = _extract(shared("IAM", f"{archive}.tar.gz"), member, tmp_path)
    g = gedkit.read(path, node_label=node_attr, edge_label=edge_attr)
    assert g.n > 0 and g.m > 0
    assert g.name == path.stem
    assert all(lab is not None for lab in g.node_labels)
    if archive == "AIDS":
        assert set(g.node_labels) == {"C", "O", "S"}  # padded "C  " in the file


def test_iam_fingerprint_is_directed(tmp_path):
    path = _extract(shared("IAM", "Fingerprint.tar.gz"), "Fingerprint/data/f0001_01.gxl",
                    tmp_path)
    with pytest.raises(GraphError, match=r"f0001_01\.gxl.*directed='ignore'"):
        gedkit.read(path)
    g = gedkit.read(path, node_label=["x", "y"], edge_label="angle", directed="ignore")
    assert (g.n, g.m) == (7, 5)  # 10 directed edges, each present both ways


def _extract(archive: Path, member: str, folder: Path) -> Path:
    with tarfile.open(archive) as tar:
        data = tar.extractfile(member).read()
    path = folder / Path(member).name
    path.write_bytes(data)
    return path


def test_greyc_collection():
    graphs = gedkit.read_all(shared("GREYC-chem", "acyclic", "dataset.cxl"), node_label="chem",
                             edge_label="valence")
    entries = cxl_entries(SHARED_DATA / "GREYC-chem" / "acyclic" / "dataset.cxl")
    assert len(graphs) == len(entries) > 100
    assert graphs[0].name == Path(entries[0][0]).stem
    assert max(g.n for g in graphs) <= 11
    assert all(isinstance(lab, int) for g in graphs for lab in g.node_labels)


def test_gdr4ged_graphs():
    house = gedkit.read(shared("GDR4GED", "CMU", "graphs", "house.seq0.gxl"), edge_label="dist")
    assert house.n == 30 and all(isinstance(d, float) for d in house.edge_labels)
    subset = shared("GDR4GED", "GREC", "subsets", "train5.cxl")
    graphs = gedkit.read_all(subset, node_label="type", graph_dir=SHARED_DATA / "GDR4GED" / "GREC"
                             / "graphs")
    assert [g.name + ".gxl" for g in graphs] == [f for f, _ in cxl_entries(subset)]


def test_graphml_written_by_networkx_reads_back(tmp_path):
    import networkx as nx

    h = nx.Graph()
    h.add_edge("u", "v", w=3)
    h.add_node("z", kind="leaf")
    buffer = io.BytesIO()
    nx.write_graphml(h, buffer)
    (tmp_path / "h.graphml").write_bytes(buffer.getvalue())
    g = gedkit.read(tmp_path / "h.graphml", node_label="*", edge_label="w")
    assert g == Graph({"u": {}, "v": {}, "z": {"kind": "leaf"}}, [("u", "v", 3)])


@pytest.mark.parametrize("suffix", [".graphml", ".gexf"])
def test_a_label_attribute_equal_to_some_node_ids_is_kept_on_every_node(tmp_path, suffix):
    """A node attribute named "label" is dropped only where it merely repeats every node's id
    (GEXF's own labels); a user's "label" whose value equals the id on a few nodes (label "0"
    on node 0) stays on those nodes too."""
    import networkx as nx

    h = nx.path_graph(6)
    for v in h.nodes:
        h.nodes[v]["label"] = str(v % 3)  # equals the id on nodes 0, 1, 2
    path = tmp_path / f"h{suffix}"
    (nx.write_graphml if suffix == ".graphml" else nx.write_gexf)(h, path)
    g = gedkit.read(path, node_label="label")
    assert [g.node_labels[g.ids.index(str(v))] for v in range(6)] == ["0", "1", "2"] * 2
    echo = nx.path_graph(3)
    for v in echo.nodes:
        echo.nodes[v]["label"] = str(v)  # the id again on every node: no label
    (nx.write_graphml if suffix == ".graphml" else nx.write_gexf)(echo, path)
    assert gedkit.read(path).node_labels == (None, None, None)
    # unless named: then it is what was asked for (it was "no attribute 'label'")
    assert gedkit.read(path, node_label="label").node_labels == ("0", "1", "2")


def test_every_graph_of_a_graphml_file_is_read_and_nested_graphs_refused(tmp_path):
    """A GraphML file of several graphs gives them all (the second was dropped, and FILE#1
    said the file held one); a node holding a graph of its own is refused (NetworkX drops
    it)."""
    head = ('<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
            '<key id="d0" for="node" attr.name="symbol" attr.type="string"/>')
    two = tmp_path / "two.graphml"
    two.write_text(head + '<graph id="G1" edgedefault="undirected"><node id="0"><data '
                   'key="d0">C</data></node></graph><graph id="G2" edgedefault="undirected">'
                   '<node id="0"><data key="d0">C</data></node><node id="1"><data key="d0">O'
                   '</data></node><edge source="0" target="1"/></graph></graphml>')
    graphs = gedkit.read_all(two)
    assert [(g.name, g.n, g.m) for g in graphs] == [("two[0]", 1, 0), ("two[1]", 2, 1)]
    assert gedkit.read(f"{two}#1").node_labels == ("C", "O")
    nested = tmp_path / "nested.graphml"
    nested.write_text(head + '<graph id="G" edgedefault="undirected"><node id="a"><graph '
                      'id="a:" edgedefault="undirected"><node id="a::x"/></graph></node>'
                      '<node id="b"/></graph></graphml>')
    with pytest.raises(FormatError, match="nested graphs"):
        gedkit.read(nested)


def test_read_and_write_take_file_paths_and_say_so():
    """A graph object (a NetworkX graph, say) given to read, or a number to write: one
    line naming what was given, not pathlib's TypeError."""
    import networkx as nx

    with pytest.raises(gedkit.OptionError, match=r"read takes a file path \(str or Path\), "
                                                  r"got Graph; a graph object needs no reading"):
        gedkit.read(nx.path_graph(3))
    with pytest.raises(gedkit.OptionError, match=r"read takes a file path .*got int$"):
        gedkit.read_all(7)
    with pytest.raises(gedkit.OptionError, match=r"write takes a file path .*got int$"):
        gedkit.write(gedkit.Graph({0: "C"}), 7)


def test_null_attributes_written_for_unlabelled_edges_are_no_labels_left_out(tmp_path):
    """gedkit.write gives every edge of a graph with unlabelled edges "label": null; read
    back with the node labels named, no note says the edges carry an attribute left out."""
    g = gedkit.Graph({0: "C", 1: "O", 2: "N"}, [(0, 1), (1, 2)])
    gedkit.write(g, tmp_path / "g.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error", gedkit.UnlabelledWarning)
        back = gedkit.read(tmp_path / "g.json", node_label="label")
    assert back.node_labels == ("C", "O", "N") and back.edge_labels == (None, None)


def test_graphml_key_defaults_apply_and_a_file_without_its_namespace_is_said(tmp_path):
    """A GraphML ``<key>`` with a ``<default>`` gives its value to the nodes without the
    attribute, as the format says (they were read without it: an error naming it, or
    unlabelled); a file whose elements lack the GraphML namespace is said so (it "held no
    graph")."""
    ns = ' xmlns="http://graphml.graphdrawing.org/xmlns"'
    body = ('<key id="d0" for="node" attr.name="t" attr.type="string"><default>C</default>'
            '</key><key id="d1" for="edge" attr.name="w" attr.type="int"><default>1</default>'
            '</key><graph edgedefault="undirected"><node id="n0"/><node id="n1"><data '
            'key="d0">N</data></node><edge source="n0" target="n1"/></graph></graphml>')
    path = tmp_path / "d.graphml"
    path.write_text(f'<?xml version="1.0"?><graphml{ns}>{body}')
    g = gedkit.read(path, node_label="t", edge_label="w")
    assert g.node_labels == ("C", "N") and g.edge_labels == (1,)
    bare = tmp_path / "bare.graphml"
    bare.write_text(f'<?xml version="1.0"?><graphml>{body}')
    with pytest.raises(FormatError, match="outside the GraphML namespace"):
        gedkit.read(bare)
    # GEXF's attribute defaults likewise (not applied: an error naming the attribute)
    gexf = write(tmp_path, "d.gexf", '<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2">'
                 '<graph defaultedgetype="undirected"><attributes class="node"><attribute '
                 'id="0" title="t" type="string"><default>C</default></attribute></attributes>'
                 '<nodes><node id="n0"/><node id="n1"><attvalues><attvalue for="0" value="N"/>'
                 '</attvalues></node></nodes><edges><edge source="n0" target="n1"/></edges>'
                 "</graph></gexf>")
    assert gedkit.read(gexf, node_label="t").node_labels == ("C", "N")


def test_an_sdf_record_missing_its_separator_is_said(tmp_path):
    """Two molecules without the '$$$$' line between them: RDKit read the first and took the
    second's lines for data fields, the second lost without a word; now the record is an
    error naming it, or left out and told with a list of what was skipped."""
    chem()
    mol = (FIX / "caffeine.sdf").read_text().split("$$$$")[0].strip("\n") + "\n"
    path = write(tmp_path, "merged.sdf", mol + "$$$$\n" + mol + mol + "$$$$\n" + mol
                 + "$$$$\n")
    with pytest.raises(FormatError, match=r"merged\.sdf: record number 2 \(#1\).* holds two "
                                          r"molecules .*the '\$\$\$\$' line between them is "
                                          "missing"):
        gedkit.read_all(path)
    skipped: list = []
    kept = list(gedkit.io.read_graphs(path, gedkit.io.Unlabelled(), skipped=skipped))
    assert len(kept) == 2 and len(skipped) == 1


def test_a_numbered_graph_is_read_past_a_bad_record_after_it(tmp_path):
    """``FILE#0`` of an SDF file whose third record RDKit cannot read: the first molecule (it
    failed for the bad record, read while looking for a molecule named "0")."""
    good = (FIX / "caffeine.sdf").read_text()
    path = tmp_path / "mixed.sdf"
    path.write_text(good + "this is not\nan SDF record\n$$$$\n" + good)
    assert gedkit.read(f"{path}#0").n == gedkit.read_all(FIX / "caffeine.sdf")[0].n
    with pytest.raises(FormatError, match=r"molecule number 3 \(#2\)"):
        gedkit.read(f"{path}#5")


def test_a_collection_files_graphs_read_unlabelled(tmp_path):
    """node_label=None / edge_label=None (--no-node-label) read a collection file's graphs
    without those labels (they came back labelled as stored: an MCES of 6 common edges where
    the unlabelled answer is 9); another label than the stored is still refused."""
    chem()
    path = tmp_path / "lib.gdb"
    with gedkit.Collection.create(path) as coll:
        coll.add(["CCO", "CCN"], ids=["a", "b"])
    g = gedkit.read(f"{path}#b", node_label=None)
    assert g.name == "b" and g.node_labels == (None,) * 3 and g.edge_labels == (1, 1)
    h = gedkit.read(f"{path}#a", edge_label=None)
    assert h.node_labels == ("C", "C", "O") and h.edge_labels == (None, None)
    assert gedkit.ged(f"{path}#a", f"{path}#b").distance == 1
    with pytest.raises(OptionError, match="cannot be read again with node_label='x'"):
        gedkit.read(f"{path}#a", node_label="x")


def test_a_name_two_molecules_share_is_refused_by_file_hash_id(tmp_path):
    """``FILE#ID`` of a SMILES file where two molecules are titled ID: an error saying so
    and how to pick one (the first was picked silently)."""
    chem()
    path = tmp_path / "dup.smi"
    path.write_text("CCO x\nCCN x\nCCC y\n")
    with pytest.raises(FormatError, match=r"two graphs are named 'x' \(numbers 0 and 1\): "
                                          r"pick one by its number, .*dup\.smi#0"):
        gedkit.read(f"{path}#x")
    assert gedkit.read(f"{path}#1").node_labels == ("C", "C", "N")
    assert gedkit.read(f"{path}#y").name == "y"


def test_read_all_leaves_out_what_rdkit_cannot_read_where_asked(tmp_path):
    """``errors="skip"``, as ``Collection.add`` and the command line have it (RDKit's own NCI
    file has eight such records: read_all raised at the first, with no way past it)."""
    pytest.importorskip("rdkit")
    from gedkit.errors import OptionError, SkippedWarning

    smi = tmp_path / "b.smi"
    smi.write_text("CCO ethanol\nC1CC bad\nCCN amine\n")
    with pytest.raises(gedkit.errors.FormatError, match=r"b\.smi:2: RDKit cannot parse"):
        gedkit.read_all(smi)
    with pytest.warns(SkippedWarning, match=r"^1 graph could not be read and was left out; "
                                            r"the first: .*b.smi:2: RDKit cannot parse"):
        graphs = gedkit.read_all(smi, errors="skip")
    assert [g.name for g in graphs] == ["ethanol", "amine"]
    with pytest.raises(OptionError, match="errors must be 'raise' or 'skip'"):
        gedkit.read_all(smi, errors="ignore")
