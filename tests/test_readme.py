"""The README's method tables agree with the methods' one declaration of their options."""

from __future__ import annotations

import re
from pathlib import Path

import gedkit
import gedkit.mces
from gedkit.mces.base import available as mces_methods
from gedkit.solvers import available as ged_methods

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def test_every_method_is_in_the_readme():
    ged = _section("Methods")
    rows = [line for line in ged.splitlines() if line.startswith("| `")]
    listed = {name for row in rows for name in re.findall(r"`([a-z_]+)`", row.split("|")[1])}
    assert set(ged_methods()) <= listed
    mces = _section("Maximum common edge subgraph")
    for name in mces_methods():
        assert f"`{name}`" in mces, name


def test_every_option_the_readme_names_is_declared():
    # `key=` or `key=value` in the method sections must be an option some method declares
    declared = {key for cls in [*ged_methods().values(), *mces_methods().values()]
                for key in cls.options}
    call_keywords = {"timeout", "memory", "threshold", "method", "costs", "node_label",
                     "edge_label", "ids"}
    for title in ("Methods", "Maximum common edge subgraph"):
        for key in re.findall(r"`([a-z_]+)=", _section(title)):
            assert key in declared or key in call_keywords, key
    assert gedkit.methods().keys() == ged_methods().keys()
