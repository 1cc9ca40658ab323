"""A cost model described in words that change when it does (:func:`describe`): what
identifies a :func:`gedkit.pairwise` job's costs when it is resumed, and, in short
(:func:`briefly`), what a collection search's answer records as its ``measure``, by which
:func:`gedkit.search.merge` refuses answers searched under other costs."""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import sysconfig
import types
import weakref
from typing import Any

__all__ = ["COSTS_VERSION", "UNCHECKED", "briefly", "describe"]

#: marks a cost model whose functions cannot be checked to be the same (a pairwise job holding
#: one is never resumed)
UNCHECKED = "<cannot be checked>"
#: tells a costs fingerprint of this gedkit (full precision, every callable) from an older one
COSTS_VERSION = "costs/2"
#: module globals a function may read whose value is their whole meaning
_PLAIN = (int, float, complex, str, bytes, bool, type(None))


class _Unchecked(Exception):
    """A value the fingerprint cannot pin down (an open file, a random generator...)."""


def describe(model: Any) -> str:
    """The cost model in words that change when it does: its class, and every value it holds
    at full precision (its repr rounds numbers to 6 digits: 1234567 and 1234568 read alike),
    the functions a custom model holds by their compiled code, what they close over, bind
    (``functools.partial``) or read from their module. A value that cannot be pinned down
    makes the description :data:`UNCHECKED` (a pairwise job holding it is never resumed).

    >>> from gedkit.costs import constant
    >>> describe(constant(node_sub=1234567)) == describe(constant(node_sub=1234568))
    False
    """
    kind = type(model)
    try:
        state = _value(getattr(model, "__dict__", {}), set())
    except (_Unchecked, RecursionError):
        state = UNCHECKED
    return f"{COSTS_VERSION} {model!r} {kind.__module__}.{kind.__qualname__} {state}"


def briefly(model: Any) -> str:
    """The cost model in a few words that still change when it does: its repr and a digest
    of :func:`describe` (``", unchecked"`` after it where that cannot pin the model down:
    then only its class and repr tell it apart).

    >>> from gedkit.costs import chem_2, constant
    >>> briefly(chem_2()).split(" #")[0]
    '<CostModel chem_2(node_ins_del=11, edge_ins_del=1.1, alpha=0.25)>'
    >>> briefly(constant(node_sub=1234567)) == briefly(constant(node_sub=1234568))
    False
    """
    shown = repr(model)
    kept = _BRIEFLY.get(model) if _weakly(model) else None
    if kept is not None and kept[0] == shown:  # a model of plain values, as it was
        return kept[1]
    words = describe(model)
    digest = hashlib.sha256(words.encode("utf-8", "backslashreplace")).hexdigest()[:16]
    text = f"{shown} #{digest}{', unchecked' if words.endswith(UNCHECKED) else ''}"
    # kept where nothing but values its repr shows could change it (a search asks once a
    # call: describing a named model took 12 µs of a 1 ms range search of 100 queries)
    if _weakly(model) and _plain(getattr(model, "__dict__", None)):
        _BRIEFLY[model] = (shown, text)
    return text


#: :func:`briefly`'s answers for models of plain values, by model
_BRIEFLY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _weakly(model: Any) -> bool:
    """Whether ``model`` can key :data:`_BRIEFLY` (hashed by identity, weakly referenced)."""
    return type(model).__hash__ is object.__hash__ and hasattr(type(model), "__weakref__")


def _plain(value: Any) -> bool:
    """Whether ``value`` is plain values all through: numbers, strings, and tuples, lists and
    dicts of them (no function, whose globals may change)."""
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, tuple | list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return False


def _value(value: Any, seen: set[int]) -> str:
    """``value`` as text that tells apart values a cost function would tell apart; raises
    :class:`_Unchecked` for one it cannot."""
    if isinstance(value, float):  # repr: the shortest text that reads back as the same float
        return repr(value)
    if isinstance(value, _PLAIN):
        return repr(value)
    if id(value) in seen:  # a function reading itself (recursion), a cycle of objects
        return "<again>"
    seen = seen | {id(value)}
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({', '.join(_value(v, seen) for v in value)})"
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}({sorted(_value(v, seen) for v in value)})"
    if isinstance(value, dict):
        items = sorted(f"{_value(k, seen)}: {_value(v, seen)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return _callable_or_data(value, seen)


def _callable_or_data(value: Any, seen: set[int]) -> str:
    """The values :func:`_value` does not spell out itself: arrays, functions, partials,
    methods, callable objects."""
    import numpy as np  # the fingerprint of a job always has it loaded

    if isinstance(value, np.ndarray):
        data = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()[:16]
        return f"array({value.dtype}, {value.shape}, {data})"
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, types.FunctionType):
        return _function(value, seen)
    if isinstance(value, functools.partial):
        return (f"partial({_value(value.func, seen)}, {_value(value.args, seen)}, "
                f"{_value(value.keywords, seen)})")
    if isinstance(value, types.MethodType):
        return f"method({_value(value.__func__, seen)}, {_value(value.__self__, seen)})"
    if isinstance(value, (types.BuiltinFunctionType, np.ufunc)):
        owner = getattr(value, "__self__", None)  # a builtin bound to an object has state
        if owner is not None and not isinstance(owner, types.ModuleType):
            raise _Unchecked(value)
        return f"builtin({getattr(value, '__module__', None)}.{value.__qualname__})"
    if isinstance(value, (type, types.ModuleType)):  # named: their code is not the job's
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', value)}"
    return _instance(value, seen)


def _instance(value: Any, seen: set[int]) -> str:
    """An object (a callable instance, a model's helper): its class's code and plain values,
    and its own state."""
    kind = type(value)
    if _library(kind) or (not hasattr(value, "__dict__") and not any(
            getattr(klass, "__slots__", None) for klass in kind.__mro__)):
        return _pickled(value)  # its state may be held in C, out of __dict__'s reach
    members = {}
    for klass in reversed(kind.__mro__[:-1]):  # the class's code: __call__ and what it uses
        if _library(klass):
            continue
        for name, member in vars(klass).items():
            if isinstance(member, (types.FunctionType, *_PLAIN, tuple, frozenset)):
                members[f"{klass.__qualname__}.{name}"] = member
    state = dict(getattr(value, "__dict__", {}))
    for klass in kind.__mro__:
        for name in getattr(klass, "__slots__", ()):
            if hasattr(value, name):
                state[name] = getattr(value, name)
    return f"{kind.__module__}.{kind.__qualname__}({_value(members, seen)}, {_value(state, seen)})"


def _library(thing: Any) -> bool:
    """Whether a function or class comes with Python or an installed package: its code and
    the globals it reads are that package's version's, not the job's (walking them would
    reach every module the package uses)."""
    module = sys.modules.get(getattr(thing, "__module__", None) or "")
    path = getattr(module, "__file__", None)
    if module is None or path is None:
        return module is not None  # built into the interpreter
    folders = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib",
                                                       "platlib")}
    return any(os.path.abspath(path).startswith(os.path.abspath(f) + os.sep) for f in folders)


def _pickled(value: Any) -> str:
    """An object whose state only pickling reaches (a random generator's, held in C)."""
    try:
        data = pickle.dumps(value, protocol=4)
    except Exception:  # whatever stops pickling, the object cannot be checked
        raise _Unchecked(value) from None
    return f"{type(value).__qualname__}:pickle:{hashlib.sha256(data).hexdigest()[:16]}"


def _function(f: types.FunctionType, seen: set[int]) -> str:
    """A function by its code (nested functions' included), the values it closes over, its
    defaults, and the module globals its code reads."""
    cells = [c.cell_contents for c in f.__closure__ or () if _has_contents(c)]
    globals_ = {} if _library(f) else {
        name: f.__globals__[name] for name in sorted(_names(f.__code__)) if name in f.__globals__
    }
    text = (f"{_code(f.__code__)} {_value(cells, seen)} {_value(f.__defaults__, seen)} "
            f"{_value(f.__kwdefaults__, seen)} {_value(globals_, seen)}")
    digest = hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()
    return f"{f.__qualname__}:{digest[:16]}"


def _code(code: types.CodeType) -> str:
    """Compiled code as text: its bytecode and constants, nested code objects included (a
    lambda inside a function is a constant of it: its repr is only its name and line)."""
    consts = [_code(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts]
    return f"{code.co_code.hex()}:{code.co_names}:{consts}"


def _names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the code nested in it may read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _has_contents(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:  # an empty cell
        return False
    return True
