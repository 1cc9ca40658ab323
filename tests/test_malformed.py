"""Malformed input, in every reader alike: gedkit's own one-line error, never another exception
and never a silently wrong graph; and no XML reader reads a file through an entity."""

from __future__ import annotations

import re
import shutil
import warnings

import numpy as np
import pytest
from fuzzing import FIXTURES, SEEDS, mutated, read_mutant

import gedkit
from gedkit import FormatError, GedkitError, Graph, GraphError

GEXF = ('<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2"><graph '
        'defaultedgetype="undirected"><nodes>{nodes}</nodes><edges>{edges}</edges></graph></gexf>')
GRAPHML = ('<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault='
           '"undirected">{nodes}{edges}</graph></graphml>')


def _mol_with_bond_type(bond_type: str) -> str:
    lines = (FIXTURES / "caffeine.mol").read_text().splitlines()
    first_bond = 4 + int(lines[3][:3])  # header (3 lines), counts line, atom block
    lines[first_bond] = lines[first_bond][:6] + bond_type.rjust(3) + lines[first_bond][9:]
    return "\n".join(lines) + "\n"


CASES = [
    # name, file content, error type, message fragment
    ("big_int.json", '{"nodes": [{"id": ' + "1" * 4301 + '}], "links": []}', FormatError,
     "integer of more than 4300 digits"),
    ("deep.json", '{"nodes": [{"id": 0, "a": ' + "[" * 2000 + "]" * 2000 + '}], "links": []}',
     FormatError, "nested too deeply"),
    # reads as JSON, but a solve would recurse through the label: refused at read time
    ("deep_label.json", '{"nodes": [{"id": 0, "a": ' + "[" * 900 + "]" * 900 + '}], "links": []}',
     GraphError, "nests deeper than 64 levels"),
    ("null_id.json", '{"nodes": [{"id": null}], "links": []}', GraphError,
     "node id None in graph 'null_id' is not allowed"),
    ("nan.json", '{"nodes": [{"id": 0, "a": NaN}], "links": []}', GraphError, "NaN label"),
    ("nan_dict.json", '{"nodes": [{"id": 0, "a": {"b": [1, NaN]}}], "links": []}', GraphError,
     "NaN label"),
    ("big_id.txt", "t # 0\nv " + "1" * 5000 + " C\n", FormatError,
     ":2: the number " + "1" * 59 + "… (5,000 characters) has more digits"),
    ("big_label.txt", "t # 0\nv 0 " + "2" * 4301 + "\n", FormatError, ":2: the number 222"),
    ("big_int.gxl", '<gxl><graph edgemode="undirected"><node id="a"><attr name="n"><int>'
     + "3" * 4400 + "</int></attr></node></graph></gxl>", FormatError, "of 4400 digits"),
    ("nan.gxl", '<gxl><graph edgemode="undirected"><node id="a"><attr name="x"><float>NaN'
     "</float></attr></node></graph></gxl>", GraphError, "NaN label"),
    ("undeclared.gexf", GEXF.format(nodes='<node id="0"/>', edges='<edge source="0" target="9"/>'),
     FormatError, "edge number 1 names node '9', which this GEXF file does not declare"),
    ("twice.gexf", GEXF.format(nodes='<node id="0"/><node id="0"/>', edges=""), FormatError,
     "node id '0' is declared twice in this GEXF file"),
    ("undeclared.graphml", GRAPHML.format(nodes='<node id="0"/>',
                                          edges='<edge source="9" target="0"/>'),
     FormatError, "names node '9', which this GraphML file does not declare"),
    ("twice.graphml", GRAPHML.format(nodes='<node id="0"/><node id="0"/>', edges=""),
     FormatError, "node id '0' is declared twice in this GraphML file"),
    # an edge without an end read as one to a node None, the rest in NetworkX's words
    ("no_source.graphml", GRAPHML.format(nodes='<node id="a"/><node id="b"/>',
                                         edges='<edge target="b"/>'),
     FormatError, "no_source.graphml: edge number 1 has no source"),
    ("no_target.gexf", GEXF.format(nodes='<node id="0"/>', edges='<edge source="0"/>'),
     FormatError, "no_target.gexf: edge number 1 has no target"),
    ("no_id.gexf", GEXF.format(nodes='<node label="a"/>', edges=""), FormatError,
     "node number 1 has no id"),
    ("typed.graphml", '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="d0" '
     'for="node" attr.name="el" attr.type="int"/><graph edgedefault="undirected"><node '
     'id="a"><data key="d0">xx</data></node></graph></graphml>', FormatError,
     "node 'a' has el = 'xx', not an int as its key 'd0' declares"),
    ("boolean.graphml", '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="d0" '
     'for="edge" attr.name="on" attr.type="boolean"/><graph edgedefault="undirected"><node '
     'id="a"/><node id="b"/><edge source="a" target="b"><data key="d0">maybe</data></edge>'
     "</graph></graphml>", FormatError,
     "edge number 1 has on = 'maybe', not a boolean as its key 'd0' declares"),
    ("type.graphml", '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="d0" '
     'for="node" attr.name="el" attr.type="weird"/><graph/></graphml>', FormatError,
     "key 'd0' declares type 'weird'; GraphML's types are boolean, double"),
    ("key.graphml", GRAPHML.format(nodes='<node id="a"><data key="d9">1</data></node>',
                                   edges=""), FormatError,
     "node 'a' has a value for key 'd9', which this GraphML file does not declare"),
    ("sideways.graphml", GRAPHML.replace('"undirected"', '"sideways"').format(
        nodes='<node id="a"/>', edges=""), FormatError,
     "edgedefault='sideways' is none of directed, undirected"),
    ("typed.gexf", '<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2"><graph><attributes '
     'class="node"><attribute id="0" title="w" type="integer"/></attributes><nodes><node id="0">'
     '<attvalues><attvalue for="0" value="zz"/></attvalues></node></nodes></graph></gexf>',
     FormatError, "node '0' has w = 'zz', not an integer as its attribute '0' declares"),
    ("attribute.gexf", GEXF.format(nodes='<node id="0"><attvalues><attvalue for="7" value="1"/>'
                                         "</attvalues></node>", edges=""), FormatError,
     "node '0' has a value for attribute '7', which this GEXF file does not declare for nodes"),
    ("mixed.graphml", GRAPHML.format(nodes='<node id="a"/><node id="b"/>',
                                     edges='<edge source="a" target="b" directed="true"/>'),
     FormatError, "edge number 1 is directed, the graph's edges undirected: gedkit reads a "
     "graph's edges all directed or all undirected"),
    ("mixed.gexf", GEXF.format(nodes='<node id="0"/><node id="1"/>',
                               edges='<edge source="0" target="1" type="directed"/>'),
     FormatError, "edge number 1 is directed, the graph's edges undirected"),
    ("port.graphml", GRAPHML.format(nodes='<node id="a"><port name="p"/></node>', edges=""),
     FormatError, "GraphML ports (<port>) are not supported"),
    ("hyper.graphml", GRAPHML.format(nodes='<node id="a"/><hyperedge><endpoint node="a"/>'
                                           "</hyperedge>", edges=""),
     FormatError, "GraphML hyperedges (<hyperedge>) are not supported"),
    ("long.graphml", '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="d0" '
     'for="node" attr.name="n" attr.type="long"/><graph edgedefault="undirected"><node id="a">'
     '<data key="d0">' + "9" * 5000 + "</data></node></graph></graphml>", FormatError,
     "node 'a' has n = a number of 5000 digits, more than gedkit reads"),
    # an entity only an external DTD could declare would read as "" inside an attribute
    ("external.gexf", '<?xml version="1.0"?><!DOCTYPE gexf SYSTEM "gexf.dtd">'
     + GEXF.format(nodes='<node id="0" label="&name;"/>', edges=""), FormatError,
     "entity &name; is not declared in the file; gedkit does not read the external DTD "
     "'gexf.dtd'"),
    ("external.graphml", '<?xml version="1.0"?><!DOCTYPE graphml SYSTEM "g.dtd">'
     + GRAPHML.format(nodes='<node id="&n;"/>', edges=""), FormatError, "entity &n;"),
]
MOLECULE_CASES = [
    ("any_bond.mol", _mol_with_bond_type("99"), FormatError,
     "bond between atoms 0 and 1 has no bond order (RDKit bond type UNSPECIFIED)"),
    ("any_bond.sdf", _mol_with_bond_type("8") + "$$$$\n", FormatError, "has no bond order"),
]


@pytest.mark.parametrize(("name", "content", "error", "fragment"), CASES,
                         ids=[case[0] for case in CASES])
def test_malformed_files(tmp_path, name, content, error, fragment):
    path = tmp_path / name
    path.write_text(content)
    labels = {} if name.endswith(".txt") else {"node_label": "*", "edge_label": "*"}
    with pytest.raises(error) as info:
        gedkit.read_all(path, **labels)
    message = str(info.value)
    assert message.startswith(str(path)) and fragment in message and "\n" not in message
    assert len(message) < 400  # a 4,300-digit number is not quoted whole


@pytest.mark.parametrize(("name", "content", "error", "fragment"), MOLECULE_CASES,
                         ids=[case[0] for case in MOLECULE_CASES])
def test_malformed_molecules(tmp_path, name, content, error, fragment):
    pytest.importorskip("rdkit")
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(error, match=re.escape(fragment)):
        gedkit.read_all(path)


def test_over_deep_and_nan_labels_built_by_hand():
    deep: list = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(GraphError, match=r"node 0 .*nests deeper than 64"):
        Graph({0: deep})
    with pytest.raises(GraphError, match=r"edge \(0, 1\) in graph 'g' has a NaN label"):
        Graph([0, 1], [(0, 1, float("nan"))], name="g")
    with pytest.raises(GraphError, match="NaN label"):
        Graph({0: {"x": np.float32("nan")}})
    with pytest.raises(GraphError, match="node id NaN"):
        Graph([float("nan")])
    with pytest.raises(GraphError, match="node id None"):
        Graph([None])
    nested: list = [1.5]
    for _ in range(63):
        nested = [nested]
    assert Graph({0: nested}).node_keys  # 64 levels are fine, and usable as keys


def _secret(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    return secret


@pytest.mark.parametrize(("name", "template"), [
    ("text.gxl", '<!DOCTYPE gxl [<!ENTITY s SYSTEM "{uri}">]><gxl><graph edgemode="undirected">'
     '<node id="a"><attr name="t"><string>&s;</string></attr></node></graph></gxl>'),
    ("dtd.gxl", '<!DOCTYPE gxl SYSTEM "{uri}"><gxl><graph edgemode="undirected"><node id="a">'
     '<attr name="t"><string>&s;</string></attr></node></graph></gxl>'),
    ("parameter.gxl", '<!DOCTYPE gxl [<!ENTITY % p SYSTEM "{uri}"> %p;]><gxl><graph '
     'edgemode="undirected"><node id="a"/></graph></gxl>'),
    ("attribute.gexf", '<!DOCTYPE gexf [<!ENTITY s SYSTEM "{uri}">]>'
     + GEXF.format(nodes='<node id="0" label="&s;"/>', edges="")),
    ("dtd.gexf", '<!DOCTYPE gexf SYSTEM "{uri}">'
     + GEXF.format(nodes='<node id="0" label="&s;"/>', edges="")),
    ("text.graphml", '<!DOCTYPE graphml [<!ENTITY s SYSTEM "{uri}">]>'
     + GRAPHML.format(nodes='<node id="0"><data key="d">&s;</data></node>', edges="")),
    ("collection.cxl", '<!DOCTYPE GraphCollection [<!ENTITY s SYSTEM "{uri}">]>'
     '<GraphCollection><print file="&s;"/></GraphCollection>'),
])
def test_no_file_is_read_through_an_xml_entity(tmp_path, name, template):
    secret = _secret(tmp_path)
    # the DTD variants name a DTD that would declare the entity as the secret file
    dtd = tmp_path / "evil.dtd"
    dtd.write_text(f'<!ENTITY s SYSTEM "{secret.as_uri()}">')
    uri = dtd.as_uri() if "dtd" in name or "parameter" in name else secret.as_uri()
    path = tmp_path / name
    path.write_text(template.format(uri=uri))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gedkit.errors.UnlabelledWarning)
        try:
            graphs = gedkit.read_all(path, node_label="*", edge_label="*")
        except GedkitError as err:
            assert "TOP-SECRET" not in str(err)
            return
    # read without the entity: nothing of the secret in the labels
    assert all("TOP-SECRET" not in repr(g.node_labels) for g in graphs)


@pytest.mark.parametrize("fmt", list(SEEDS))
def test_fuzzed_files_read_or_raise_gedkit_errors(tmp_path, fmt):
    if fmt in ("smiles", "csv", "gzip", "sdf", "mol"):
        pytest.importorskip("rdkit")
    rng = np.random.default_rng(sorted(SEEDS).index(fmt))
    seed = (FIXTURES / SEEDS[fmt]).read_bytes()
    outcomes = set()
    for k in range(25):
        work = tmp_path / str(k)
        work.mkdir()
        _, data = mutated(rng, seed)
        outcomes.add(read_mutant(fmt, data, work))  # anything but a GedkitError escapes
        shutil.rmtree(work)
    assert read_mutant(fmt, seed, tmp_path) == "graphs"  # the fixture itself reads
    assert "error" in outcomes


@pytest.mark.parametrize("fmt", ["graphml", "gexf", "gxl"])
def test_a_document_declaring_entities_is_refused(tmp_path, fmt):
    """Nested entities expand without bound (a GEXF node id of 3,000,000 characters from a
    few hundred bytes was read and searched); graph files have no use for entities of their
    own: a document declaring one is refused before anything is expanded."""
    levels = "".join(f'<!ENTITY e{k} "{f"&e{k - 1};" * 10}">' for k in range(1, 9))
    prolog = f'<?xml version="1.0"?><!DOCTYPE root [<!ENTITY e0 "lol">{levels}]>'
    body = {"graphml": GRAPHML.format(nodes='<node id="&e8;"/>', edges=""),
            "gexf": GEXF.format(nodes='<node id="&e8;"/>', edges=""),
            "gxl": '<gxl><graph edgemode="undirected"><node id="&e8;"/></graph></gxl>'}[fmt]
    path = tmp_path / f"bomb.{fmt}"
    path.write_text(prolog + body)
    with pytest.raises(FormatError, match=r"declares the XML entity 'e0'"):
        gedkit.read_all(path)


# -- a huge value in a message ---------------------------------------------------------------
# A label, an id, a graph's name or a file's line is the caller's, of any length: a message
# quoting one quotes it cut (gedkit.text.quoted), where a 100,000-character label made a
# one-line error of 100,000 characters.

HUGE = "X" * 100_000
BIG = Graph({0: HUGE, 1: "C"}, [(0, 1)])
PLAIN = Graph({0: "C", 1: "C"}, [(0, 1)])


def _file(folder, name: str, text: str):
    (folder / name).write_text(text)
    return folder / name


def _failing(a, b):
    raise KeyError(HUGE)


def _not_molecule(g):
    from gedkit.draw.molecule import not_molecule

    return not_molecule(g)


HUGE_CASES = [
    # name, call(tmp_path), error (None: the message is returned), words it says
    ("rascal", lambda _: gedkit.mces(BIG, PLAIN, method="rascal"), GraphError,
     "not an element symbol"),
    ("letter", lambda _: gedkit.ged(BIG, PLAIN, costs="letter"), gedkit.CostModelError,
     "reads node attribute 'x'"),
    ("chem", lambda _: gedkit.ged(Graph({0: {"y": HUGE}}), PLAIN, costs="chem_1"),
     gedkit.CostModelError, "missing from the node label"),
    ("callable cost", lambda _: gedkit.ged(BIG, PLAIN, costs=gedkit.costs.custom(
        node_sub=_failing)), gedkit.CostModelError, "failed: KeyError"),
    ("directed and not", lambda _: gedkit.ged(Graph([0], name=HUGE, directed=True), BIG),
     GraphError, "is directed and graph"),
    ("node id twice", lambda _: Graph([HUGE, HUGE]), GraphError, "appears twice"),
    ("no node", lambda _: BIG.edge_label(0, HUGE), GraphError, "no node"),
    ("NaN label", lambda _: Graph({0: {"a": float("nan"), "b": HUGE}}, name=HUGE), GraphError,
     "NaN label value"),
    ("t/v/e line", lambda d: gedkit.read_all(_file(d, "a.txt", f"t # 0\nv 0 C\n{HUGE} 1\n")),
     FormatError, "unknown line type"),
    ("directed file", lambda d: gedkit.read(_file(
        d, "a.json", '{"directed": true, "graph": {"name": "' + HUGE + '"}, "nodes": [{"id": 0}'
        ', {"id": 1}], "links": [{"source": 0, "target": 1}]}')), GraphError, "is directed"),
    ("GXL value", lambda d: gedkit.read(_file(
        d, "a.gxl", '<gxl><graph edgemode="undirected"><node id="a"><attr name="b"><bool>'
        + HUGE + "</bool></attr></node></graph></gxl>"), node_label="*"), FormatError,
     "is <bool> but holds"),
    ("molecule drawing", lambda _: _not_molecule(BIG), None, "is no element symbol"),
]


@pytest.mark.parametrize(("name", "call", "error", "words"), HUGE_CASES,
                         ids=[case[0] for case in HUGE_CASES])
def test_a_huge_value_is_quoted_cut(tmp_path, name, call, error, words):
    if name == "rascal":
        pytest.importorskip("rdkit")
    if error is None:
        message = call(tmp_path)
    else:
        with pytest.raises(error) as info:
            call(tmp_path)
        message = str(info.value)
    assert len(message) < 500 and "\n" not in message, message[:600]
    assert words in message and "XXXX…" in message and "characters)" in message, message
