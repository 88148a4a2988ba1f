"""``kdump export``'s native per-record columns (``record_columns`` in kdump/_speedups.c)
against their pure-Python twin: the same objects batch by batch, and the same dataset
written with ``KDUMP_PURE_PYTHON=1`` on every fixture (damaged, control and transactional
batches, legacy v0/v1, every codec, null keys and values, headers, ``__cluster_metadata``
redaction, schema-registry decoded columns)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

try:
    from tests.conftest import subprocess_env
    from tests.test_export import damaged, fleet, k4, secrets_metadata_logdir
except ImportError:  # pragma: no cover
    from conftest import subprocess_env  # type: ignore[no-redef, unused-ignore]
    from test_export import damaged, fleet, k4, secrets_metadata_logdir  # type: ignore[no-redef, unused-ignore]  # noqa: F401

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("fastavro", reason="the schemas extra is not installed")

from kdump._native import speedups  # noqa: E402
from kdump.records.v2 import RecordBatch  # noqa: E402

#: the module (the package's ``rows`` is a function of it)
R = importlib.import_module("kdump.ops.export.rows")

native = pytest.mark.skipif(speedups is None, reason="the extension is not built")


@pytest.fixture(scope="module")
def logdirs(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path, fleet: Path,
            k4: Path, damaged: Path) -> dict[str, Path]:
    return {"sample": sample_dir, "fleet": fleet, "k4": k4, "damaged": damaged,
            "metadata": secrets_metadata_logdir(tmp_path_factory.mktemp("meta"))}


# --- the function ------------------------------------------------------------------------------
@native
@pytest.mark.parametrize("name", ["sample", "fleet", "k4", "damaged", "metadata"])
def test_native_columns_are_the_twins(logdirs: dict[str, Path], name: str) -> None:
    opts = R.ReadOptions(paths=(str(logdirs[name]),))
    slices, _ = R.plan(opts)
    seen = 0
    for s in slices:
        for b in R.slice_batches(s):
            try:
                if isinstance(b, RecordBatch):
                    records, _fault = b.decode_records()
                else:
                    records = list(b.records())
            except Exception:  # damage: what read before it is compared below
                continue
            got = speedups.record_columns(records)
            assert got is not NotImplemented
            want = R.record_columns_py(records)
            assert len(got) == len(want) == 6
            for g, x in zip(got, want, strict=True):
                assert len(g) == len(x) == len(records)
                assert all(a is c for a, c in zip(g, x, strict=True))
            seen += len(records)
    assert seen > 0


@native
def test_native_columns_leave_other_inputs_to_the_twin() -> None:
    class Other:
        __slots__ = ("headers", "key", "offset", "sequence", "timestamp", "value")

    rec = Other()
    rec.offset, rec.timestamp, rec.key, rec.value = 1, 2, b"k", None
    rec.headers, rec.sequence = [], -1
    assert speedups.record_columns([rec]) == [[1], [2], [b"k"], [None], [[]], [-1]]
    assert speedups.record_columns(()) is NotImplemented  # not a list
    assert speedups.record_columns([]) == [[], [], [], [], [], []]
    unset = Other()
    assert speedups.record_columns([unset]) is NotImplemented  # a slot not set
    assert speedups.record_columns([rec, object()]) is NotImplemented  # mixed classes
    assert R.record_columns([rec, rec]) == R.record_columns_py([rec, rec])
    with pytest.raises(TypeError):
        speedups.record_columns()


# --- the dataset ---------------------------------------------------------------------------------
def _export(src: Path, out: Path, pure: bool, *flags: str) -> dict[str, Any]:
    env = subprocess_env()
    env.pop("KDUMP_PURE_PYTHON", None)
    if pure:
        env["KDUMP_PURE_PYTHON"] = "1"
    r = subprocess.run([sys.executable, "-m", "kdump", "export", str(src), "-o", str(out),
                        *flags], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    tables = {}
    for p in sorted(out.rglob("*.parquet")):
        tables[str(p.relative_to(out))] = pq.read_table(p)
    findings = (out / "_findings").read_text() if (out / "_findings").exists() else None
    return {"rc": r.returncode, "out": r.stdout.replace(str(out), "OUT"), "err": r.stderr,
            "findings": findings, "tables": tables}


@native
@pytest.mark.parametrize("name,flags", [
    ("sample", ()), ("fleet", ()), ("k4", ()), ("damaged", ()), ("metadata", ()),
    ("metadata", ("--show-secrets",)),
])
def test_native_and_pure_python_write_the_same_dataset(logdirs: dict[str, Path], name: str,
                                                       flags: tuple[str, ...],
                                                       tmp_path: Path) -> None:
    got = _export(logdirs[name], tmp_path / "native", False, *flags)
    want = _export(logdirs[name], tmp_path / "pure", True, *flags)
    assert got["rc"] == want["rc"]
    assert got["out"] == want["out"]
    assert got["findings"] == want["findings"]
    assert got["tables"].keys() == want["tables"].keys()
    assert got["tables"]
    for rel, table in got["tables"].items():
        other = want["tables"][rel]
        assert table.schema == other.schema, rel
        assert table.to_pylist() == other.to_pylist(), rel
    if name == "damaged":
        assert got["rc"] == 1 and got["findings"]
