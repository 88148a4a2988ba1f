"""Finding kinds and severities are enums built from the documented table
(kdump.findings.KINDS, docs/findings.md and the man page's PROBLEM KINDS): every kind kdump
can make is documented, every documented kind is made somewhere, and nothing else can be
made."""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

import pytest

from kdump.findings import ERROR, INFO, KINDS, Kind, Problem, Severity

KDUMP = Path(__file__).resolve().parents[2] / "kdump"


def _kind_literals() -> dict[str, list[str]]:
    """Every string that kdump's code passes as a kind: the third argument (or ``kind=``)
    of a call to ``Problem`` or to a ``*problem`` helper, and the strings assigned to a
    variable named ``kind`` (then passed on)."""
    found: dict[str, list[str]] = {}

    def add(node: ast.AST | None, where: str) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.setdefault(node.value, []).append(where)
        elif isinstance(node, ast.IfExp):
            add(node.body, where)
            add(node.orelse, where)

    for path in sorted(KDUMP.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            where = f"{path.relative_to(KDUMP)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name == "Problem" or name.endswith("problem"):
                    if len(node.args) > 2:
                        add(node.args[2], where)
                    for kw in node.keywords:
                        if kw.arg == "kind":
                            add(kw.value, where)
            elif isinstance(node, ast.Assign):
                if any(isinstance(t, ast.Name) and t.id == "kind" for t in node.targets):
                    add(node.value, where)
    return found


def test_every_kind_in_the_code_is_documented() -> None:
    used = _kind_literals()
    assert {k: v for k, v in used.items() if k not in KINDS} == {}


def test_every_documented_kind_is_made_somewhere() -> None:
    """Each documented kind is written, quoted, in kdump's code (at a call, or in a table
    such as kdump/records/faults.py's messages): the table holds no dead kind."""
    source = "\n".join(p.read_text() for p in KDUMP.rglob("*.py")
                       if p.name != "findings.py")
    assert [k for k in KINDS if f'"{k}"' not in source] == []


def test_kind_and_severity_are_the_tables_enums() -> None:
    p = Problem("x.log", 7, "crc-mismatch", "bad", severity="warning")
    assert p.kind is Kind.CRC_MISMATCH and p.severity is Severity.WARNING
    assert [k.value for k in Kind] == list(KINDS)
    assert [s.value for s in Severity] == ["error", "warning", "info"]
    assert Problem("x", None, "truncated", "cut").severity is ERROR
    # a str wherever a str goes: comparisons, f-strings, JSON, pickling (--jobs workers)
    assert p.kind == "crc-mismatch" and f"{p.kind}|{p.severity:>8}" == "crc-mismatch| warning"
    assert str(INFO) == "info"
    assert json.dumps({"kind": p.kind, p.severity: 1}) == '{"kind": "crc-mismatch", "warning": 1}'
    assert pickle.loads(pickle.dumps(p)) == p
    with pytest.raises(ValueError):
        Problem("x", None, "no-such-kind", "?")
    with pytest.raises(ValueError):
        Problem("x", None, "truncated", "?", severity="fatal")


def test_every_kind_says_what_kafka_behaviour_it_is_argued_from() -> None:
    from kdump.findings import ARGUED_FROM

    assert list(ARGUED_FROM) == list(KINDS)
    assert [k for k, why in ARGUED_FROM.items() if len(why) < 20 or "|" in why] == []


def test_readme_and_man_page_kind_tables_are_the_generated_ones() -> None:
    """docs/findings.md's table of kinds is kdump.findings.kinds_markdown(); man/kdump.1's
    PROBLEM KINDS has each kind's meaning and what it is argued from."""
    from kdump.cli.manpages import render_all
    from kdump.findings import ARGUED_FROM, kinds_markdown

    root = KDUMP.parent
    readme = (root / "docs" / "findings.md").read_text(encoding="utf-8")
    start = readme.index("<!-- kinds:start -->\n") + len("<!-- kinds:start -->\n")
    assert readme[start:readme.index("<!-- kinds:end -->")] == kinds_markdown()
    assert kinds_markdown().splitlines()[2] == (
        f"| `bad-length` | {KINDS['bad-length']} | {ARGUED_FROM['bad-length']} |")
    page = render_all()["kdump.1"]
    assert (root / "man" / "kdump.1").read_text(encoding="utf-8") == page
    section = page.split(".SH PROBLEM KINDS\n", 1)[1].split(".SH ", 1)[0]
    assert section.count(".TP\n") == len(KINDS)
    assert ".B orphan\\-index\n" in section
    assert "Argued from: LogLoader.loadSegmentFiles: " in section
