"""Doctests of modules whose optional dependency is not installed are skipped, not failed."""

from __future__ import annotations

import importlib.util

import pytest

# module whose examples need it -> the optional package
_NEEDS = {"gedkit/io/pyg.py": "torch_geometric"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for path, package in _NEEDS.items():
            if str(item.fspath).endswith(path) and importlib.util.find_spec(package) is None:
                item.add_marker(pytest.mark.skip(reason=f"{package} is not installed"))
