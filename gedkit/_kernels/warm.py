"""Compiling the kernels without spending a caller's time limit on it.

numba compiles a kernel at its first call: seconds per family, about a minute for all of them on
a fresh install. Cached on disk, later processes load them in milliseconds. A solve with a time
limit must not spend it compiling, so:

- kernels come in *families* (:data:`FAMILIES`), each warmed by running the solvers that use it
  on tiny problems of every kind real calls make (both orientations, label-equality and general
  costs, thresholds), which compiles every specialisation those calls need; a marker file then
  says so;
- :func:`ready` reads the markers (without importing numba): a ready family loads from the cache;
- :func:`wait` returns True at once for ready families; otherwise it starts one background
  process that compiles them (it goes on after the call returns, so the next call is fast) and
  waits as long as the budget can pay for the estimated compile, returning False when it cannot,
  so that the caller returns cheaper bounds instead;
- :func:`warm_up` (``gedkit warmup``, run by the README's install command) compiles every family
  ahead of time.

Markers live beside numba's own cache (``NUMBA_CACHE_DIR`` when set, else ``__pycache__`` next
to this file when writable, else the user's cache folder) and carry a stamp of numba's version and
of every kernel source file, so an upgrade or an edited kernel makes them stale, as it makes
numba's cache stale.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

__all__ = ["FAMILIES", "CompileNotice", "all_ready", "compile_later", "ready", "started", "wait",
           "warm_up"]

_PACKAGE = Path(__file__).resolve().parents[1]
# every module that defines numba kernels: a change to any of them makes the markers stale
_SOURCES = ("_kernels/*.py",)
_POLL = 0.05  # seconds between looks at the markers while a compile runs


class CompileNotice(UserWarning):
    """Said once when a call waits for kernels to compile (a fresh install, no warm-up)."""


def _tiny_graphs() -> list:
    """Small labelled graphs of different sizes, so that pairs come in both orientations."""
    from gedkit.graph import Graph

    a = Graph({0: "C", 1: "C", 2: "O", 3: "N"}, [(0, 1, 1), (1, 2, 2), (1, 3, 1), (0, 3, 1)])
    b = Graph({0: "C", 1: "O", 2: "C", 3: "C", 4: "N"},
              [(0, 1, 2), (0, 2, 1), (2, 3, 1), (3, 4, 1), (0, 4, 1)])
    c = Graph({0: "O", 1: "C", 2: "C"}, [(0, 1, 1), (1, 2, 1)])
    return [a, b, c]


def _problems() -> list:
    """Tiny problems under label-equality costs, fractional constant costs, and general
    (matrix) costs, in both orientations."""
    from gedkit import costs

    general = costs.custom(node_sub=lambda x, y: 0.0 if x == y else 1.5,
                           edge_sub=lambda x, y: abs(x - y) * 0.5)
    models = [costs.uniform(), costs.constant(node_sub=0.5, edge_ins=2), general]
    graphs = _tiny_graphs()
    return [m.compile(g, h) for m in models for g in graphs for h in graphs if g is not h]


def _run_solvers(*names: str, thresholds: bool = False) -> None:
    from gedkit.solvers import Budget, get_solver

    for problem in _problems():
        for name in names:
            get_solver(name).solve(problem, Budget())
            if thresholds:
                for tau in (0.5, 2.0, 50.0):
                    get_solver(name).solve(problem, Budget(threshold=tau))


def _warm_cost(problems: list | None = None) -> None:
    import numpy as np

    from gedkit._kernels.cost_kernel import map_cost

    for p in _problems() if problems is None else problems:
        f = np.full(p.n1, -1, dtype=np.int64)
        map_cost(f, p.node_costs, p.adj1, p.adj2, p.edge_label_matrix,
                 p.g1.edges, p.edge_labels1, p.g2.edges, p.edge_labels2)


def _warm_mces() -> None:
    import numpy as np

    from gedkit._kernels.mces_search import common_edges
    from gedkit.mces import exact
    from gedkit.mces.base import Budget, get_method
    from gedkit.mces.problem import MCESProblem

    graphs = _tiny_graphs()
    for g in graphs:
        for h in graphs:
            if g is not h:
                p = MCESProblem(g, h)
                for name in ("ga", "exact", "auto"):
                    get_method(name).solve(p, Budget())
                # auto's GA stage, under auto's options: its exact probe settles tiny pairs
                # first, and a first GA call of a process compiled these (~10 s, past limits)
                auto = get_method("auto")
                auto._ga(p, Budget(), **auto.config)
                # the search's entry points the solves above may not reach on tiny pairs:
                # a search started apart and paused (its open states' bound), and a first
                # call that pauses, resumed with the pair's symmetry
                start = np.full(p.n1, -1, dtype=np.int64)
                pair = exact._with_symmetry(p, exact._search_pair(p))
                for connected in (False, True):
                    run = exact._Search(pair, p, start, p.g1.m, None, connected=connected)
                    run.go(Budget(), 1)
                    run.open_bound()
                    first = exact._first_search(p, start, p.g1.m, connected, 1)
                    if not first.done:
                        exact._Search(pair, p, first.best_map, p.g1.m, None,
                                      connected=connected, resume=first).go(Budget(), None)
                # MCESProblem.common runs its plain source until this family is ready
                common_edges(np.full(p.n1, -1, dtype=np.int64), np.zeros(p.n2, dtype=bool),
                             p.node_labels1, p.node_labels2, p.g1.edges, p.edge_labels1,
                             p.g2.adjacency, p.edge_labels2, np.zeros(p.g1.m, dtype=bool))


def _warm_levenshtein() -> None:
    import numpy as np

    from gedkit._kernels.levenshtein import levenshtein_matrix

    chars = np.array([ord(c) for c in "ababc"], dtype=np.int64)
    levenshtein_matrix(chars, np.array([0, 2, 5], dtype=np.int64), np.ones((2, 2), dtype=bool))


def _warm_search() -> None:
    import numpy as np

    from gedkit import costs
    from gedkit.search import Collection
    from gedkit.search.batch import BatchVerifier
    from gedkit.search.filters import GedFilter, query_signatures

    graphs = _tiny_graphs()
    coll = Collection()
    coll.add(graphs, progress=False)
    records = coll._records(coll._signatures.rowids)
    general = costs.custom(node_sub=lambda x, y: 0.0 if x == y else 1.5)
    for model in (costs.uniform(), costs.constant(node_sub=0.5, edge_ins=2), general):
        for g in graphs:
            filt = GedFilter(model, g, coll._store.vocab)
            batch = BatchVerifier.prepare(model, filt)
            for threshold in (None, 2.0):
                batch.run(records, threshold)

    # costs that depend on more than label equality: the label-set stage
    unequal = costs.custom(node_sub=lambda x, y: 0.0 if x == y else 1.0 + ("O" in (x, y)))
    for g in graphs:
        filt = GedFilter(unequal, g, coll._store.vocab)
        for rows in (None, np.arange(2)):
            filt._labelsets(coll._signatures, rows, compiled=True)
    query_signatures(graphs, coll._store.vocab)
    for g in graphs:  # the filters' compiled path, over every graph and over some
        filt = GedFilter(costs.uniform(), g, coll._store.vocab)
        filt.within(coll._signatures, 2.0, compiled=True)
        filt._branch_classes(coll._signatures, np.arange(2), 2.0, compiled=True)  # kNN's
        for branches in (False, True):
            for rows in (None, np.arange(2)):
                filt._equality(coll._signatures, rows, branches, compiled=True)


# family -> (seconds a cold compile takes on a 2-core laptop, what compiles it)
FAMILIES: dict[str, tuple[float, Callable[[], None]]] = {
    "cost": (2.0, _warm_cost),
    "assignment": (8.0, lambda: _run_solvers("node", "bipartite", "branch", "branch_fast",
                                             "star")),
    "local_search": (10.0, lambda: _run_solvers("refine", "bp_beam")),
    "ipfp": (4.0, lambda: _run_solvers("ipfp")),
    "tree_search": (30.0, lambda: _run_solvers("astar", "dfs", thresholds=True)),
    "mces": (40.0, _warm_mces),
    "levenshtein": (3.0, _warm_levenshtein),
    "search": (60.0, _warm_search),
}


# -- markers -------------------------------------------------------------------------------------

@cache
def _stamp() -> str:
    """numba's version, the interpreter, and every kernel source file's size and mtime."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        numba_version = version("numba")
    except PackageNotFoundError:
        numba_version = "?"
    kernels = [path for pattern in _SOURCES for path in sorted(_PACKAGE.glob(pattern))
               if path.name not in ("warm.py", "__init__.py")]  # those two are not kernels
    return files_stamp(kernels, numba_version, sys.version, sys.platform)


def files_stamp(paths: Iterable[Path], *extra: str) -> str:
    """A short hash of ``extra`` and every file's size and mtime: what goes stale when one of
    the files is edited or replaced (markers, the ``gedkit methods`` listing)."""
    parts = list(extra)
    for path in paths:
        st = path.stat()
        parts.append(f"{path.relative_to(_PACKAGE)}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


@cache
def marker_dir() -> Path:
    """Where the markers are (see the module docstring)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return Path(env) / "gedkit-warm"
    tree = _PACKAGE / "_kernels" / "__pycache__"
    if _writable(tree):
        return tree / "gedkit-warm"
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gedkit" / "warm"


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _marker(family: str) -> Path:
    return marker_dir() / f"{family}-{_stamp()}"


_STARTED = False  # has a kernel run in this process (numba's own start-up, ~0.5 s, paid)?


def started() -> bool:
    """Whether compiled kernels run in this process, so that numba's start-up (half a second
    or more, even when every kernel loads from the cache) is paid: numba's compiler context
    holds its registries once the first kernel has been compiled or loaded. (Read from the
    modules numba has loaded, never importing one: another thread may be importing numba.)"""
    global _STARTED
    if not _STARTED and "numba" in sys.modules:
        registry = sys.modules.get("numba.core.registry")
        if registry is None or getattr(getattr(registry, "__spec__", None), "_initializing",
                                       False):
            return False  # not loaded, or being loaded by another thread
        target = getattr(registry, "cpu_target", None)
        if target is None:  # another numba: count it paid, as before
            _STARTED = True
            return True
        context = target.__dict__.get("_toplevel_target_context")  # never creates it
        try:
            _STARTED = context is not None and bool(context._registries)
        except AttributeError:
            _STARTED = True
    return _STARTED


_START = threading.Lock()  # one thread at a time pays numba's start-up


def start() -> None:
    """Pay numba's start-up in this process (its import, its registries, one kernel loaded
    from the cache), one thread at a time: threads whose first solves imported numba at once
    failed with numba's partly initialised modules ("module 'numba' has no attribute
    'core'") or Python's import deadlock error. Nothing when started, or when the ``cost``
    kernels are not compiled (their compile is not this call's to wait for)."""
    if started() or not ready("cost"):
        return
    with _START:
        if not started():
            _warm_cost(_problems()[:1])


_SKIPPED = [0]  # solves of this process that left their kernels out for numba's start-up
_STARTING: list[threading.Thread] = []  # the background start, once there is one


def start_later(wait: float = 0.0) -> None:
    """A solve left its kernels out because numba's start-up did not fit its time limit:
    from the second such solve of a process on, the start-up is paid in a background thread,
    so that later solves find it paid (on a crowded machine, where every estimate is
    stretched, a process whose calls all had 1 s never paid it: every call gave up at once,
    "one expansion of the search does not fit"). Not at the first: a one-shot process (the
    command line) ends before it would pay off. While it runs, the solve waits for it up to
    ``wait`` seconds, idle: a caller running plain-Python bounds meanwhile held the
    interpreter lock, and on a crowded machine twelve 1 s calls in a row ended with the
    start still under way (each gave up what its kernels prove in a millisecond)."""
    _SKIPPED[0] += 1
    if _SKIPPED[0] >= 2 and not _STARTING and not started() and ready("cost"):
        thread = threading.Thread(target=start, name="gedkit-numba-start-up", daemon=True)
        _STARTING.append(thread)
        thread.start()
    if wait > 0 and _STARTING and _STARTING[0].is_alive():
        _STARTING[0].join(wait)


def settle() -> None:
    """Wait for the background start (:func:`start_later`), if one runs: a process forked
    while a thread of it imports numba would inherit the import's locks held."""
    if _STARTING and _STARTING[0].is_alive():
        _STARTING[0].join()


_READY: set[str] = set()
_MISSED: dict[str, float] = {}  # family -> when its marker was last found missing


def ready(family: str) -> bool:
    """Whether ``family`` loads from the cache (or already ran in this process)."""
    if family in _READY:
        return True
    if family not in FAMILIES:
        raise KeyError(f"unknown kernel family {family!r}")
    now = time.monotonic()
    if now - _MISSED.get(family, -1.0) < _POLL:
        return False  # looked a moment ago: callers in hot loops pay no file-system call
    if _marker(family).exists():
        _READY.add(family)
        return True
    _MISSED[family] = now
    return False


def _kernel_caches() -> set[Path]:
    """The folders numba keeps the kernels' compiled code in (beside their sources, under
    ``NUMBA_CACHE_DIR``, or the user's cache), as numba itself locates them."""
    import importlib

    from numba.core.registry import CPUDispatcher

    folders = set()
    for path in sorted((_PACKAGE / "_kernels").glob("*.py")):
        if path.name in ("warm.py", "__init__.py"):
            continue
        module = importlib.import_module(f"gedkit._kernels.{path.stem}")
        for value in vars(module).values():
            cache = getattr(value, "_cache", None) if isinstance(value, CPUDispatcher) else None
            if getattr(cache, "_cache_path", None):
                folders.add(Path(cache._cache_path))
    return folders


def _forget_stale_code() -> None:
    """Once per set of kernel sources, before anything compiles: delete every kernel's
    cached code. numba invalidates a function's cache only when its own file changes, so a
    kernel whose callee lives in another file (the tree search inlines the branch bound of
    branch.py) would go on loading code built from the callee's old source. Held under the
    compile lock, so that of several compiling processes only the first one deletes."""
    folder = marker_dir()
    folder.mkdir(parents=True, exist_ok=True)
    mark = folder / f"sources-{_stamp()}"
    if mark.exists():
        return
    with _CompileLock(wait=not _HOLDING):
        if mark.exists():
            return
        for cache in _kernel_caches():
            for stale in (*cache.glob("*.nbi"), *cache.glob("*.nbc")):
                stale.unlink(missing_ok=True)
        for old in folder.glob("sources-*"):
            old.unlink(missing_ok=True)
        mark.touch()


_HOLDING = False  # this process holds the compile lock (a background compile)


class _CompileLock:
    """The marker folder's advisory lock (none where the platform has no fcntl): exclusive,
    waiting for it, or ``acquired`` False when another process holds it and ``wait`` is
    False. A process that holds it already (``_HOLDING``) takes it again at once."""

    def __init__(self, wait: bool):
        self.wait, self.acquired, self.file = wait, True, None

    def __enter__(self) -> _CompileLock:
        try:
            import fcntl
        except ImportError:  # no advisory locks here: at worst two processes compile
            return self
        if _HOLDING:
            return self
        self.file = open(marker_dir() / "compile.lock", "w")  # closed by __exit__
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | (0 if self.wait else fcntl.LOCK_NB))
        except OSError:
            self.acquired = False
        return self

    def __exit__(self, *exc) -> None:
        if self.file is not None:
            self.file.close()  # releases the lock


def _serialised_cache_saves() -> None:
    """numba's saves of compiled code, one process at a time per cache folder (on its
    ``save.lock``). A save reads the function's index, names its data file after the
    entries there and writes both: two processes compiling one shared kernel side by side
    (``_counts_in``, which both the GED and the MCES families call, at two dtypes) each
    named theirs ``.1.nbc``, the second overwrote the first's code, and every process after
    them loaded one signature's code for the other ("Invalid use of ... Known signatures"),
    a fresh install's ``gedkit warmup`` failing until the cache was deleted."""
    from numba.core import caching

    save = caching.IndexDataCacheFile.save
    if getattr(save, "_gedkit", False):
        return
    try:
        import fcntl
    except ImportError:  # (no advisory locks: as numba does it)
        return

    def locked_save(self, key, data):
        with open(os.path.join(self._cache_path, "save.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # (released as the file closes)
            save(self, key, data)

    locked_save._gedkit = True  # type: ignore[attr-defined]
    caching.IndexDataCacheFile.save = locked_save


def _compile(families: Iterable[str]) -> dict[str, float]:
    """Compile ``families`` in this process, writing their markers; seconds per family."""
    spent = {}
    folder = marker_dir()
    folder.mkdir(parents=True, exist_ok=True)
    _serialised_cache_saves()
    _forget_stale_code()
    for family in families:
        tick = time.perf_counter()
        FAMILIES[family][1]()
        spent[family] = time.perf_counter() - tick
        for stale in folder.glob(f"{family}-*"):
            stale.unlink(missing_ok=True)  # markers of older kernel sources
        _marker(family).touch()
        _READY.add(family)
    return spent


# -- waiting within a budget ---------------------------------------------------------------------

_BACKGROUND: subprocess.Popen | None = None
_NOTICED = False


def _start_background(first: list[str]) -> None:
    """One compile process per caller process: ``first`` families, then all the others."""
    global _BACKGROUND
    if _BACKGROUND is not None and _BACKGROUND.poll() is None:
        return
    order = first + [f for f in FAMILIES if f not in first]
    folder = marker_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "compile.log", "ab") as log:
        _BACKGROUND = subprocess.Popen(
            [sys.executable, "-m", "gedkit._kernels.warm", "--background", *order],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            start_new_session=True,  # a Ctrl-C of the caller must not kill it half-way
        )


def all_ready(families: Iterable[str]) -> bool:
    """Whether every family in ``families`` loads from the cache (see :func:`ready`)."""
    return all(ready(f) for f in families)


def compile_later(families: Iterable[str]) -> None:
    """Start compiling the families of ``families`` that are not ready in the background,
    without waiting: for a caller that answered without them, so that the next call finds
    them compiled."""
    missing = [f for f in families if not ready(f)]
    if missing:
        _start_background(missing)


def wait(families: Iterable[str], budget) -> bool:
    """True when every family in ``families`` is ready, now or before ``budget`` runs out.

    A family not ready is compiled by a background process; this waits for it only while the
    budget's remaining time covers the compile's estimate, so a short time limit returns False
    at once (the caller then answers with cheaper bounds and the next call finds the kernels
    compiled). Without a time limit it waits as long as the compile takes, saying so once.
    """
    global _NOTICED
    missing = [f for f in families if not ready(f)]
    if not missing:
        return True
    _start_background(missing)
    estimate = sum(FAMILIES[f][0] for f in missing)
    if budget.remaining() < estimate:
        return False
    if not _NOTICED:
        _NOTICED = True
        warnings.warn(
            f"compiling gedkit's kernels for first use ({', '.join(missing)}; about "
            f"{estimate:.0f} s, once); 'gedkit warmup' compiles them all ahead of time",
            CompileNotice, stacklevel=3,
        )
    while True:
        missing = [f for f in missing if not ready(f)]
        if not missing:
            return True
        if budget.expired():
            return False
        if _BACKGROUND is not None and _BACKGROUND.poll() is not None:
            # it ended (or found another process compiling) without these markers: it failed,
            # or the kernel sources changed since this process stamped them; compile here,
            # where an error surfaces with its traceback
            _compile(missing)
            return True
        time.sleep(_POLL)


# what a fresh process pays before its first compiled call returns: numba's import, its
# registries, one kernel loaded from the cache (measured by :func:`record_start_up`)
_START_UP_SCRIPT = """
import time
from gedkit._kernels import warm
problems = warm._problems()[:1]  # (numpy and gedkit: paid before the clock)
t = time.perf_counter()
warm._warm_cost(problems)
print(time.perf_counter() - t)
"""


def _start_up_file() -> Path:
    from importlib.metadata import version  # (numba's own, without importing numba)

    return marker_dir() / f"start-up-numba-{version('numba')}"


def record_start_up(runs: int = 3) -> float | None:
    """Measure numba's start-up in this machine's fresh processes (the slowest of ``runs``,
    after one untimed: right after an install or a compile the first process reads
    numba's and gedkit's files from disk, 0.97 s against 0.45-0.71 s for the next ones
    after the page cache was dropped, and an install's record of 1.31 s made every later
    first call under a 1 s limit skip its compiled kernels; the ``cost`` kernels must be
    compiled) and keep it beside the markers, where
    :func:`recorded_start_up` finds it; None when it cannot be measured."""
    seconds = []
    for _ in range(runs + 1):
        try:
            done = subprocess.run([sys.executable, "-c", _START_UP_SCRIPT], capture_output=True,
                                  text=True, timeout=120)
            seconds.append(float(done.stdout.strip().splitlines()[-1]))
        except (OSError, ValueError, IndexError, subprocess.SubprocessError):
            return None
    slowest = max(seconds[1:])
    try:
        _start_up_file().write_text(f"{slowest:.4f}\n")
    except OSError:
        return None
    recorded_start_up.cache_clear()
    return slowest


@cache
def recorded_start_up() -> float | None:
    """numba's start-up as :func:`record_start_up` measured it on this machine (``gedkit
    warmup`` does), or None."""
    try:
        value = float(_start_up_file().read_text())
    except (OSError, ValueError):
        return None
    return value if 0 < value < 60 else None


def warm_up(jobs: int = 2, families: Iterable[str] | None = None) -> dict[str, float]:
    """Compile every kernel family (or those named) ahead of time, in ``jobs`` processes
    (1 or fewer: in this one).

    Returns the seconds each family took (close to 0 when it was already cached). After it,
    every solver's first call in any process loads its kernels from numba's cache.

    Examples
    --------
    >>> spent = warm_up(jobs=1, families=["cost"])
    >>> sorted(spent), ready("cost")
    (['cost'], True)
    """
    from gedkit.errors import OptionError

    if isinstance(families, str) or not (families is None or isinstance(families, Iterable)):
        # (a string was taken letter by letter: families 'c', 'o', 's', 't')
        raise OptionError(f"families must be a list of kernel family names, got {families!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise OptionError(f"jobs must be an integer, got {jobs!r}")
    names = list(FAMILIES if families is None else families)
    unknown = [f for f in names if f not in FAMILIES]
    if unknown:
        raise OptionError(f"unknown kernel families {unknown}; choose from {list(FAMILIES)}")
    spent = _compile(names) if jobs <= 1 or len(names) <= 1 else _compile_apart(names, jobs)
    if families is None:  # a whole warm-up: what a first call pays, measured here
        record_start_up()
    return spent


def _compile_apart(names: list[str], jobs: int) -> dict[str, float]:
    """:func:`warm_up`'s compile of the families ``names`` in ``jobs`` processes."""
    # longest first, each to the least loaded process
    groups: list[list[str]] = [[] for _ in range(min(jobs, len(names)))]
    for family in sorted(names, key=lambda f: -FAMILIES[f][0]):
        min(groups, key=lambda g: sum(FAMILIES[f][0] for f in g)).append(family)
    procs = [subprocess.Popen([sys.executable, "-m", "gedkit._kernels.warm", *g],
                              stdout=subprocess.PIPE, text=True) for g in groups]
    spent: dict[str, float] = {}
    try:
        for proc in procs:
            out, _ = proc.communicate()
            if proc.returncode:
                from gedkit.errors import GedkitError

                raise GedkitError(f"compiling kernels failed (exit status {proc.returncode})")
            for line in out.splitlines():
                family, _, seconds = line.partition(" ")
                spent[family] = float(seconds)
    except BaseException:
        # Ctrl-C (or a failed compile): the other processes stop too, instead of compiling
        # on after this one has returned; a family's marker is written only once it is
        # compiled, so what they leave is found stale and compiled again next time
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        for proc in procs:
            proc.wait()
        raise
    for family in names:
        ready(family)
    return spent


def _main(argv: list[str]) -> int:
    global _HOLDING
    background = argv[:1] == ["--background"]
    families = argv[1:] if background else argv
    if background:
        lock = _CompileLock(wait=False).__enter__()  # held until this process exits
        if not lock.acquired:
            return 0  # another process compiles already
        _HOLDING = True
    try:
        for family in families:
            if ready(family):  # (said as 0: warm_up reports every family asked for)
                print(family, "0.000", flush=True)
                continue
            for name, seconds in _compile([family]).items():
                print(name, f"{seconds:.3f}", flush=True)
    except KeyboardInterrupt:  # Ctrl-C at a terminal reaches this process too: no traceback
        return 130
    except BrokenPipeError:  # the warm-up that reads this process's output has gone
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (nothing to flush at exit)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
