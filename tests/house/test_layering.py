"""The core stays free of presentation and big-data dependencies.

Every module under kdump/ except kdump/cli, kdump/render and kdump/spark must not import
click, rich or pyspark: not at module level, not inside a function, not under
``if TYPE_CHECKING`` and not through ``importlib.import_module("...")`` with a literal.
Nor may it reach them through kdump.cli / kdump.render / kdump.spark (``python -m kdump``,
kdump/__main__.py, is the one entry point allowed to import the command line).

And the floors (ARCHITECTURE.md): ``FLOORS`` below lists them bottom first; no module
imports from a floor above its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

KDUMP = Path(__file__).resolve().parents[2] / "kdump"
ALLOWED_DIRS = {"cli", "render", "spark", "tui"}
#: the HTML report's template engine and chart library belong to kdump/render too
FORBIDDEN = {"click", "rich", "pyspark", "jinja2", "pygal", "textual"}
#: ``python -m kdump``: the entry point may import the command line (nothing else may)
ENTRY_POINTS = {"__main__.py"}


def core_modules() -> list[Path]:
    out = []
    for p in sorted(KDUMP.rglob("*.py")):
        rel = p.relative_to(KDUMP)
        if rel.parts[0] in ALLOWED_DIRS:
            continue
        out.append(p)
    return out


def imported_names(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in ``tree``, at any depth.

    ``module`` is the dotted name of the file (for resolving relative imports)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            # "from kdump import render" names a subpackage too
            found += [(node.lineno, f"{name}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if fname in ("import_module", "__import__") and node.args and isinstance(
                    node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def forbidden_imports(path: Path) -> list[str]:
    rel = path.relative_to(KDUMP.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = [*parts[:-1], "x"]  # relative imports resolve against the package itself
    module = ".".join(parts)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = []
    for line, name in imported_names(tree, module):
        top = name.split(".")[0]
        if top in FORBIDDEN:
            bad.append(f"{path.relative_to(KDUMP.parent)}:{line}: imports {name}")
        segs = name.split(".")
        if (top == "kdump" and len(segs) > 1 and segs[1] in ALLOWED_DIRS
                and path.name not in ENTRY_POINTS):
            bad.append(f"{path.relative_to(KDUMP.parent)}:{line}: imports {name}")
    return bad


def test_there_are_core_modules_to_check() -> None:
    names = {p.relative_to(KDUMP).as_posix() for p in core_modules()}
    assert {"records/v2.py", "records/file_records.py", "ops/dump/__init__.py", "files/index.py",
            "codecs.py", "source.py"} <= names


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: p.relative_to(KDUMP).as_posix())
def test_core_module_imports_no_click_rich_or_pyspark(path: Path) -> None:
    assert forbidden_imports(path) == []


def test_the_checker_catches_every_form(tmp_path: Path) -> None:
    src = (
        "import os\n"
        "def f():\n"
        "    import rich.console\n"
        "    from click import echo\n"
        "class C:\n"
        "    def g(self):\n"
        "        import pyspark.sql as ps\n"
        "import importlib\n"
        "importlib.import_module('rich.table')\n"
        "from ..render import text\n"
        "from kdump.cli import main\n"
    )
    tree = ast.parse(src)
    names = [n for _, n in imported_names(tree, "kdump.ops.x")]
    bad = [n for n in names if n.split(".")[0] in FORBIDDEN
           or (n.startswith("kdump.") and n.split(".")[1] in ALLOWED_DIRS)]
    assert sorted(bad) == ["click", "click.echo", "kdump.cli", "kdump.cli.main", "kdump.render",
                           "kdump.render.text", "pyspark.sql", "rich.console", "rich.table"]


# ------------------------------------------------------------------ floors
#
# kdump is a house of floors (ARCHITECTURE.md): a module may import from its own floor and
# the floors below it, never from one above, whether at module level, inside a function or
# under ``if TYPE_CHECKING``.  Bottom first; a floor is a set of folders of kdump/, and
# "" stands for the single-file modules at kdump/'s top (errors.py, source.py, ...).

FLOORS: list[tuple[str, frozenset[str]]] = [
    ("ground", frozenset({"", "model"})),  # errors, findings, the output model, layouts, fs, ...
    ("protocol", frozenset({"protocol"})),  # Kafka's generated message encoding
    ("records", frozenset({"records"})),  # batches and records in a byte buffer
    ("files", frozenset({"files"})),  # Kafka's files: logs, indexes, snapshots, checkpoints
    ("decoders", frozenset({"decoders", "schemaregistry"})),  # what record keys and values mean
    ("operations", frozenset({"ops", "metadata"})),  # one command's work, as objects
    ("render", frozenset({"render"})),  # objects to text, JSON, tables
    ("tui", frozenset({"tui"})),  # kdump browse's Textual screens
    ("spark", frozenset({"spark"})),  # the same work on Spark
    ("cli", frozenset({"cli"})),  # options in, renderers out
]
#: the package's own ``__init__`` (the library API: its module-level imports are ground
#: floor only, checked below; the rest inside its functions) and ``python -m kdump``
TOP = {"__init__.py", "__main__.py"}


def floor_of_parts(parts: list[str]) -> int | None:
    """The floor of ``kdump.<parts>`` (a file's or an import's dotted path below kdump)."""
    if not parts:
        return None  # "kdump" itself: the package (see test_package_root_imports_ground_only)
    # a folder's name, or a top-level module's (or a name it holds: kdump._native.speedups)
    folder = parts[0] if (KDUMP / parts[0]).is_dir() else ""
    for i, (_, members) in enumerate(FLOORS):
        if folder in members:
            return i
    raise AssertionError(f"kdump/{'/'.join(parts)} is on no floor: add it to FLOORS")


def floor_of_file(path: Path) -> int | None:
    rel = path.relative_to(KDUMP)
    if rel.as_posix() in TOP:
        return None
    return floor_of_parts(list(rel.with_suffix("").parts))


def dotted(path: Path) -> str:
    parts = list(path.relative_to(KDUMP.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = [*parts[:-1], "x"]  # relative imports resolve against the package itself
    return ".".join(parts)


def upward_imports(path: Path, source: str | None = None) -> list[str]:
    """Every import in ``path`` of a module on a floor above the file's own."""
    own = floor_of_file(path)
    if own is None:
        return []
    text = source if source is not None else path.read_text(encoding="utf-8")
    bad = []
    for line, name in imported_names(ast.parse(text), dotted(path)):
        segs = name.split(".")
        if segs[0] != "kdump":
            continue
        target = floor_of_parts(segs[1:])
        if target is not None and target > own:
            bad.append(f"kdump/{path.relative_to(KDUMP).as_posix()}:{line}: floor "
                       f"{FLOORS[own][0]} imports {name} (floor {FLOORS[target][0]})")
    return bad


ALL_MODULES = sorted(KDUMP.rglob("*.py"))


def test_every_module_is_on_a_floor() -> None:
    folders = {p.relative_to(KDUMP).parts[0] for p in ALL_MODULES if p.parent != KDUMP}
    assert folders == set().union(*(m for _, m in FLOORS)) - {""}
    for p in ALL_MODULES:
        assert p.relative_to(KDUMP).as_posix() in TOP or floor_of_file(p) is not None


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: p.relative_to(KDUMP).as_posix())
def test_no_import_runs_up_a_floor(path: Path) -> None:
    assert upward_imports(path) == []


def test_package_root_imports_ground_only() -> None:
    """``import kdump`` (which every ``from kdump import x`` runs) loads the ground floor
    only; the API's functions import the floors above when called (and its type hints
    under ``if TYPE_CHECKING``, which run nothing)."""
    tree = ast.parse((KDUMP / "__init__.py").read_text(encoding="utf-8"))
    names = [n for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
             for _, n in imported_names(node, "kdump.x") if n.startswith("kdump.")]
    assert names and {floor_of_parts(n.split(".")[1:]) for n in names} == {0}


def test_the_floor_check_catches_an_upward_import() -> None:
    src = ("from __future__ import annotations\n"
           "from typing import TYPE_CHECKING\n"
           "from ..errors import KdumpError\n"  # down: fine
           "from .record import Record\n"  # same floor: fine
           "if TYPE_CHECKING:\n"
           "    from ..files.logdir import KafkaFile\n"
           "def f():\n"
           "    from ..protocol.control import decode_control_value\n"  # down: fine
           "    import kdump.ops.verify\n"
           "    from kdump import cli\n")
    assert upward_imports(KDUMP / "records" / "control.py", src) == [
        "kdump/records/control.py:6: floor records imports kdump.files.logdir (floor files)",
        "kdump/records/control.py:6: floor records imports kdump.files.logdir.KafkaFile "
        "(floor files)",
        "kdump/records/control.py:9: floor records imports kdump.ops.verify (floor operations)",
        "kdump/records/control.py:10: floor records imports kdump.cli (floor cli)",
    ]
    # the ground floor may import nothing above it; the CLI anything
    assert upward_imports(KDUMP / "source.py", "from .records import v2\n") == [
        "kdump/source.py:1: floor ground imports kdump.records (floor records)",
        "kdump/source.py:1: floor ground imports kdump.records.v2 (floor records)",
    ]
    assert upward_imports(KDUMP / "cli" / "verify.py", "from ..ops import verify\n") == []


# ------------------------------------------------------------------ the face, and no circles
#
# The package's face (kdump/__init__.py, the library API) sits on top of the house: no
# module of kdump takes a name from it (``from .. import __version__``, ``import kdump``),
# only submodules through it (``from .. import fs``).  And no two modules import each
# other, directly or round a longer circle, at module level, inside a function or under
# ``if TYPE_CHECKING``: a circle is a piece two modules share that belongs below both.


def module_name(path: Path) -> str:
    """``kdump.ops.dump`` for kdump/ops/dump.py, ``kdump.ops`` for kdump/ops/__init__.py."""
    parts = list(path.relative_to(KDUMP.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: every module of kdump: its dotted name -> its file
MODULES: dict[str, Path] = {module_name(p): p for p in ALL_MODULES}


def module_imports(module: str, source: str, known: Iterable[str], *, package: bool = False
                   ) -> list[tuple[int, str, str]]:
    """(line, module imported, what) for every import of a module of ``known`` in the
    source of ``module``: ``import a.b``, ``from a import b`` (the submodule ``a.b`` when
    there is one, else the module ``a`` the name comes from), relative ones, those inside
    functions and under ``if TYPE_CHECKING``, ``importlib.import_module("a.b")``, and a
    table of module names a module imports from by a computed name (kdump/decoders'
    ``INTERNAL``: ``import_module(module)``).  ``what``: the name taken from the module,
    or ``""`` when the module itself is imported.  Modules not in ``known`` (the C
    extension ``kdump._speedups``, other packages) are left out."""
    known = set(known)
    pkg = module.split(".") if package else module.split(".")[:-1]
    tree = ast.parse(source)
    out: list[tuple[int, str, str]] = []
    computed = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in known:  # ``import kdump`` takes the face itself
                    out.append((node.lineno, a.name, a.name if a.name == "kdump" else ""))
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(pkg[: len(pkg) - node.level + 1] + ([node.module] if node.module
                                                                 else [])) \
                if node.level else (node.module or "")
            for a in node.names:
                if f"{base}.{a.name}" in known:
                    out.append((node.lineno, f"{base}.{a.name}", ""))
                elif base in known:
                    out.append((node.lineno, base, a.name))
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if fname in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    if arg.value in known:
                        out.append((node.lineno, arg.value, ""))
                else:
                    computed = True
    if computed:
        out += [(node.lineno, node.value, "") for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
                and node.value in known and node.value != module]
    return out


def names_from_the_face(path: Path, source: str | None = None) -> list[str]:
    """Every name ``path`` takes from the package's face ``kdump/__init__.py``."""
    if path == KDUMP / "__init__.py":
        return []
    text = source if source is not None else path.read_text(encoding="utf-8")
    return [f"kdump/{path.relative_to(KDUMP).as_posix()}:{line}: "
            + ("imports the package's face (kdump/__init__.py) itself" if what == "kdump" else
               f"takes {what} from the package's face (kdump/__init__.py): import it from "
               "the module that defines it")
            for line, target, what in module_imports(module_name(path), text, MODULES,
                                                     package=path.name == "__init__.py")
            if target == "kdump" and what]


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: p.relative_to(KDUMP).as_posix())
def test_no_module_takes_a_name_from_the_package_face(path: Path) -> None:
    assert names_from_the_face(path) == []


def test_the_face_check_catches_a_name_taken_from_the_face() -> None:
    report = KDUMP / "ops" / "report.py"
    assert names_from_the_face(report, "from .. import __version__\n"
                                       "from .. import fs as kfs\n"
                                       "from kdump import layouts\n"
                                       "def f():\n"
                                       "    import kdump\n"
                                       "    from kdump import Problem, limits\n") == [
        "kdump/ops/report.py:1: takes __version__ from the package's face (kdump/__init__.py):"
        " import it from the module that defines it",
        "kdump/ops/report.py:5: imports the package's face (kdump/__init__.py) itself",
        "kdump/ops/report.py:6: takes Problem from the package's face (kdump/__init__.py):"
        " import it from the module that defines it",
    ]
    # a package's own __init__: ``from . import x`` is its submodule x
    assert names_from_the_face(KDUMP / "decoders" / "__init__.py",
                               "from . import simple\nfrom .. import fs\n") == []


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, dict[str, int]]:
    """module -> {module it imports: the first line that does}, for ``sources`` (module ->
    (its source, is it a package's __init__))."""
    graph: dict[str, dict[str, int]] = {m: {} for m in sources}
    for m, (text, package) in sources.items():
        for line, target, _ in module_imports(m, text, sources, package=package):
            if target != m:
                graph[m].setdefault(target, line)
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def describe(circle: list[str], graph: dict[str, dict[str, int]]) -> str:
    """``a -> b (line 3)`` for every import between the modules of ``circle``."""
    return "; ".join(f"{a} imports {b} (line {graph[a][b]})"
                     for a in circle for b in sorted(graph[a]) if b in circle)


def private_names_taken(path: Path, source: str | None = None,
                        known: Iterable[str] = MODULES) -> list[str]:
    """Every private name (``_x``, not ``__x__``) one module of kdump takes from another,
    and every private module (``kdump._native``) imported from outside its package: a
    helper two modules need is public where it belongs.  The C extension (``_speedups``,
    imported by name through :mod:`kdump.native`) is the one exception."""
    module = module_name(path)
    src = path.read_text() if source is None else source
    out = []
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    where = path.relative_to(KDUMP.parent).as_posix()
    for line, mod, what in sorted(module_imports(module, src, known,
                                                 package=path.name == "__init__.py")):
        if what.startswith("_") and not what.startswith("__"):
            out.append(f"{where}:{line}: takes {what} from {mod}")
        elif (mod.rsplit(".", 1)[-1].startswith("_") and not mod.endswith("__")
              and mod.rsplit(".", 1)[0] != package):
            out.append(f"{where}:{line}: imports the private module {mod}")
    return out


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: p.relative_to(KDUMP).as_posix())
def test_no_private_name_crosses_a_module(path: Path) -> None:
    assert private_names_taken(path) == []


def test_the_private_name_check_catches_every_form() -> None:
    src = ("from .rebuild import _inside, safe_name\n"
           "from ..files import logdir\n"
           "def f():\n"
           "    from ..files.logdir import _looks_like_logdir as looks\n"
           "from ..records._native import speedups\n"
           "from .._native import speedups\n")
    # private modules as they once were (kdump/_native.py, kdump/records/_native.py)
    known = {*MODULES, "kdump._native", "kdump.records._native"}
    assert private_names_taken(KDUMP / "ops" / "x.py", src, known) == [
        "kdump/ops/x.py:1: takes _inside from kdump.ops.rebuild",
        "kdump/ops/x.py:4: takes _looks_like_logdir from kdump.files.logdir",
        "kdump/ops/x.py:5: imports the private module kdump.records._native",
        "kdump/ops/x.py:6: imports the private module kdump._native",
    ]


def test_no_two_modules_import_each_other() -> None:
    graph = import_graph({m: (p.read_text(encoding="utf-8"), p.name == "__init__.py")
                          for m, p in MODULES.items()})
    assert sum(map(len, graph.values())) > 500  # the graph is read, not empty
    assert [describe(c, graph) for c in circles(graph)] == []


def test_the_circle_check_catches_every_form() -> None:
    sources = {
        "kdump": ("from .findings import Problem\ndef f():\n    from .ops import a, f\n", True),
        "kdump.findings": ("", False),
        "kdump.ops": ("", True),
        # a lazy import closes a circle as well as a module-level one
        "kdump.ops.a": ("from .b import x\n", False),
        "kdump.ops.b": ("def f():\n    from . import a\n", False),
        # under TYPE_CHECKING, round three modules
        "kdump.ops.c": ("if TYPE_CHECKING:\n    from kdump.ops.d import D\n", False),
        "kdump.ops.d": ("import kdump.ops.e as e\n", False),
        "kdump.ops.e": ("import importlib\nimportlib.import_module('kdump.ops.c')\n", False),
        # a table of modules imported by a computed name
        "kdump.dec": ("T = {'x': 'kdump.dec.x'}\ndef g(n):\n    import_module(T[n])\n",
                      True),
        "kdump.dec.x": ("from kdump.dec import T\n", False),
        # submodules through the face are no circle with it; a name from it is
        "kdump.fs": ("from . import findings\n", False),
        "kdump.ops.f": ("from .. import findings, fs\n", False),
    }
    graph = import_graph(sources)
    assert circles(graph) == [["kdump.dec", "kdump.dec.x"], ["kdump.ops.a", "kdump.ops.b"],
                              ["kdump.ops.c", "kdump.ops.d", "kdump.ops.e"]]
    assert describe(["kdump.ops.a", "kdump.ops.b"], graph) == (
        "kdump.ops.a imports kdump.ops.b (line 1); kdump.ops.b imports kdump.ops.a (line 2)")
    sources["kdump.ops.f"] = ("from .. import Problem\n", False)
    assert ["kdump", "kdump.ops.f"] in circles(import_graph(sources))


def test_the_version_is_on_the_ground_floor_and_pyproject_agrees() -> None:
    """``kdump.__version__`` is kdump/version.py's, and pyproject.toml's ``version``."""
    import re

    import kdump
    from kdump.version import __version__

    pyproject = (KDUMP.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert kdump.__version__ is __version__
    assert re.search(r'^version = "([^"]+)"$', pyproject, re.M)[1] == __version__  # type: ignore[index]


# ------------------------------------------------------------------ rooms of a fair size

#: lines a module of kdump/ may have without a reason for its size
MAX_LINES = 600


def size_reason(path: Path) -> str | None:
    """The line of the module's docstring starting with ``Size:`` (why it is larger)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return next((line for line in doc.splitlines() if line.startswith("Size:")), None)


#: a ``Size:`` line must give a reason, not a word: at least this many words after it
MIN_REASON_WORDS = 6


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: p.relative_to(KDUMP).as_posix())
def test_module_over_600_lines_says_why(path: Path) -> None:
    """No module of kdump/ over MAX_LINES lines without a ``Size:`` line in its docstring
    saying why it is one module (tests/ are exempt: tests/writer.py and the test files)."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    reason = size_reason(path)
    assert lines <= MAX_LINES or reason is not None, (
        f"kdump/{path.relative_to(KDUMP).as_posix()} has {lines} lines: split it by "
        "responsibility, or give the reason in a docstring line starting with 'Size:'")
    assert lines <= MAX_LINES or len(reason.split()) > MIN_REASON_WORDS, (
        f"kdump/{path.relative_to(KDUMP).as_posix()}: {reason!r} is not a reason")


#: lines a C file of kdump/ may have with a reason (the issue's "about 1,000"; no reason
#: takes one past it); over MAX_LINES it says why, as a Python module does
MAX_C_LINES = 1200
C_FILES = sorted([*KDUMP.glob("*.c"), *KDUMP.glob("*.h")])


def c_size_reason(path: Path) -> str | None:
    """The line of the C file's leading comment starting with ``Size:`` (`` * Size: ...``)."""
    text = path.read_text(encoding="utf-8")
    comment = text[:text.index("*/")] if text.startswith("/*") and "*/" in text else ""
    lines = (line.strip().lstrip("*").strip() for line in comment.splitlines())
    return next((line for line in lines if line.startswith("Size:")), None)


def test_there_are_c_files_to_check() -> None:
    assert KDUMP / "_speedups.c" in C_FILES and len(C_FILES) > 2


@pytest.mark.parametrize("path", C_FILES, ids=lambda p: p.name)
def test_c_file_of_a_fair_size(path: Path) -> None:
    """No C file of kdump/ over MAX_C_LINES lines; over MAX_LINES, a ``Size:`` line in its
    leading comment says why it is one file."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_C_LINES, (
        f"kdump/{path.name} has {lines} lines (at most {MAX_C_LINES}): split it by family "
        "(kdump/_speedups.h lists the files; setup.py builds them all)")
    reason = c_size_reason(path)
    assert lines <= MAX_LINES or reason is not None, (
        f"kdump/{path.name} has {lines} lines: split it, or give the reason in a line "
        "of its leading comment starting with 'Size:'")
    assert lines <= MAX_LINES or len(reason.split()) > MIN_REASON_WORDS, (
        f"kdump/{path.name}: {reason!r} is not a reason")


def test_c_size_reason_is_read_from_the_leading_comment(tmp_path: Path) -> None:
    big = tmp_path / "big.c"
    big.write_text("/*\n * A big file.\n *\n * Size: one walker and its callers.\n */\n")
    assert c_size_reason(big) == "Size: one walker and its callers."
    big.write_text("/* A big file. */\n/* Size: in a later comment does not count */\n")
    assert c_size_reason(big) is None


def test_size_reason_is_read_from_the_docstring(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_text('"""A big room.\n\nSize: one table.\n"""\n' + "x = 1\n" * 700)
    assert size_reason(big) == "Size: one table."
    big.write_text('"""A big room."""\n# Size: in a comment does not count\n')
    assert size_reason(big) is None
