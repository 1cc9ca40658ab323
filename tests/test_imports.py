"""The package's import structure: no cycle, every module importable on its own, learned methods
registered without being imported."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gedkit"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _module_level_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules ``name`` imports when it is imported: module-level statements
    (not those inside functions or under ``if TYPE_CHECKING``), each edge to the module named,
    or to the package itself where names are taken from its namespace."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    deps = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            deps.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            submodules = [f"{source}.{a.name}" for a in node.names
                          if f"{source}.{a.name}" in modules]
            deps.update(submodules)
            if len(submodules) < len(node.names):
                deps.add(source)
    return {d for d in deps if d in modules and d != name}


def test_the_import_graph_has_no_cycle():
    modules = _modules()
    graph = {name: _module_level_imports(name, path, modules) for name, path in modules.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                cycle = [*path[path.index(dep):], dep] if dep in path else [name, dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep, [*path, dep])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert len(graph) > 50  # the walk saw the whole package


def test_every_module_imports_on_its_own():
    # one interpreter; gedkit's modules are forgotten before each import, so that no module
    # works only because another one happened to be imported first
    names = sorted(n for n in _modules() if not n.endswith("__main__"))  # those run the CLI
    script = (
        "import importlib, json, sys\n"
        f"names = {names!r}\n"
        "failed = {}\n"
        "for name in names:\n"
        "    for loaded in [m for m in sys.modules if m == 'gedkit' or m.startswith('gedkit.')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as err:\n"
        "        failed[name] = f'{type(err).__name__}: {err}'\n"
        "print(json.dumps(failed))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=600)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {}


def test_learned_methods_are_registered_without_being_imported():
    script = (
        "import json, sys\n"
        "import gedkit, gedkit.solvers, gedkit.mces\n"
        "from gedkit.solvers.registry import _SOLVERS\n"
        "from gedkit.mces.base import _METHODS\n"
        "before = [m in sys.modules for m in ('gedkit.learned.solver', 'gedkit.mces.nga.method',"
        " 'torch')]\n"
        "names = (_SOLVERS.names(), _METHODS.names())\n"
        "gedkit.solvers.solver_class('gelato'); gedkit.mces.base.method_class('nga')\n"
        "after = [m in sys.modules for m in ('gedkit.learned.solver', 'gedkit.mces.nga.method')]\n"
        "print(json.dumps([before, names, after]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=300)
    before, (ged, mces), after = json.loads(out.stdout.strip().splitlines()[-1])
    assert before == [False, False, False]
    assert "gelato" in ged and "nga" in mces
    assert after == [True, True]
