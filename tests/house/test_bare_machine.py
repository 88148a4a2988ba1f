"""The README's test command on a bare machine (issue 49): a test that needs a system
tool (chromium, poppler's pdftotext/pdfinfo, tmux) skips with a reason naming it when
the tool is missing, and fails under CI (``CI=true``, as .ci/run sets), through
tests/support/tools.py ``require_tool``.

Two checks: every call of such a tool in the tests sits in a test that asks for it
first (read from the source: the bug of issue 49 was a ``pdftotext`` run that nobody
had asked for), and those tests, run with the tools hidden from ``PATH``, skip naming
the tool (CI unset) and fail (CI=true).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import subprocess_env

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
#: the system tools tests may run; the names chromium_path() looks for included
TOOLS = ("chromium", "chromium-browser", "google-chrome", "pdftotext", "pdftoppm", "pdfinfo",
         "tmux")
#: the support classes that start a tool: chromium (tests/support/browser.py), tmux
#: (tests/support/terminal.py)
STARTS = {"Browser": "chromium", "Terminal": "tmux"}


def _called(node: ast.AST) -> set[str]:
    """The names of the functions ``node`` calls (``f(...)`` and ``x.f(...)``)."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name):
                names.add(f.id)
            elif isinstance(f, ast.Attribute):
                names.add(f.attr)
    return names


def _asked(node: ast.AST) -> set[str]:
    """The tools ``node`` asks for: ``require_chromium()``, ``require_tool("name", ...)``,
    ``require_poppler("name", ...)`` (no names: all of ``POPPLER``)."""
    from tests.support.browser import POPPLER

    asked = set()
    for n in ast.walk(node):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        args = [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if name == "require_chromium":
            asked.add("chromium")
        elif name == "require_tool" and args:
            asked.add(args[0])
        elif name == "require_poppler":
            asked.update(args or POPPLER)
    return asked


def _runs_tools(node: ast.AST) -> set[str]:
    """The tools ``node`` runs as a subprocess (a list whose first item is a literal)."""
    found = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in ("run", "Popen", "check_output", "check_call") and n.args:
            first = n.args[0]
            if isinstance(first, ast.List) and first.elts \
                    and isinstance(first.elts[0], ast.Constant) and first.elts[0].value in TOOLS:
                found.add(first.elts[0].value)
    found.update(STARTS[c] for c in _called(node) & STARTS.keys())
    return found


def _reach(helpers: dict[str, ast.FunctionDef], f: ast.FunctionDef,
           seen: set[str]) -> tuple[set[str], set[str]]:
    """(tools asked for, tools run) by ``f`` and the module's ``helpers`` it calls."""
    asked, tools = _asked(f), _runs_tools(f)
    for name in _called(f) & helpers.keys() - seen:
        seen.add(name)
        a, t = _reach(helpers, helpers[name], seen)
        asked, tools = asked | a, tools | t
    return asked, tools


def tool_tests() -> dict[str, set[str]]:
    """Test node ids (``path::name``) that run a system tool -> the tools, and raise
    when one runs a tool it did not ask for first (``require_*``)."""
    out: dict[str, set[str]] = {}
    unasked = []
    for path in sorted(TESTS.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        helpers = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}

        for f in helpers.values():
            if not f.name.startswith("test_"):
                continue
            asked, tools = _reach(helpers, f, {f.name})
            if not tools:
                continue
            node = f"{path.relative_to(ROOT)}::{f.name}"
            if tools - asked:
                unasked.append(f"{node} runs {sorted(tools - asked)} without asking")
            out[node] = tools
    assert not unasked, "tests run a system tool without require_tool:\n" + "\n".join(unasked)
    return out


def test_every_test_that_runs_a_tool_asks_for_it_first() -> None:
    found = tool_tests()
    # the ones this check was written against, at least (issue 49)
    for node in ("tests/ops/report/test_report_kafka4.py::test_kafka4_page_in_a_real_browser",
                 "tests/ops/report/test_report.py::test_print_pages",
                 "tests/ops/browse/test_browse.py::test_in_a_real_terminal"):
        assert node in found, node
    assert found["tests/ops/report/test_report_kafka4.py::test_kafka4_page_in_a_real_browser"] \
        == {"chromium", "pdftotext"}


def _path_without_tools(tmp: Path) -> str:
    """A PATH of one directory: a link to every program on this PATH but the tools."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not d or not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            target = os.path.join(d, name)
            link = bin_dir / name
            if name in TOOLS or link.exists() or link.is_symlink() \
                    or not os.access(target, os.X_OK) or os.path.isdir(target):
                continue
            link.symlink_to(target)
    return str(bin_dir)


@pytest.mark.slow
def test_the_tool_tests_skip_naming_the_tool_and_fail_under_ci(tmp_path: Path) -> None:
    nodes = sorted(tool_tests())
    env = subprocess_env()
    env["PATH"] = _path_without_tools(tmp_path)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    for k in [k for k in env if k == "CI"]:
        del env[k]
    cmd = [sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider",
           "-o", "addopts=", *nodes]
    bare = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert bare.returncode == 0, bare.stdout + bare.stderr
    # every one skips, its reason naming a tool and how to install it
    skips = re.findall(r"^SKIPPED \[\d+\] (\S+): (.*)$", bare.stdout, re.M)
    assert skips, bare.stdout
    for _, reason in skips:
        assert re.fullmatch(r"(chromium|pdftotext|pdfinfo|tmux) is not installed "
                            r"\(\.ci/run installs Debian's [a-z-]+ package\)", reason), reason
    assert re.search(r"\b(\d+) skipped", bare.stdout) and " passed" not in bare.stdout \
        and " failed" not in bare.stdout, bare.stdout
    env["CI"] = "true"
    ci = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert ci.returncode == 1, ci.stdout + ci.stderr
    assert " skipped" not in ci.stdout and " passed" not in ci.stdout, ci.stdout
    failed = re.findall(r"^FAILED (\S+) - (.*)$", ci.stdout, re.M)
    assert failed, ci.stdout
    for _, reason in failed:
        assert "under CI this is a failure, not a skip" in reason, reason


def test_hypothesis_times_nothing() -> None:
    """No hypothesis test fails by the clock (issue 49): no per-example deadline and no
    too-slow health check by default (tests/conftest.py), and no test sets a deadline."""
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
    timed = [f"{p.relative_to(ROOT)}:{n}" for p in sorted(TESTS.rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\bdeadline=(?!None\b)[\w(]", line)]  # a keyword, not a variable
    assert timed == []
