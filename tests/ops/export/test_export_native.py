"""``kdump export``'s native per-record columns (``record_columns`` in kdump/_speedups_packed.c)
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

from tests.conftest import subprocess_env
from tests.ops.export import test_export
from tests.ops.export.test_export import secrets_metadata_logdir

# export's fixtures, shared here (pytest finds a fixture by the module's names)
damaged, fleet, k4 = test_export.damaged, test_export.fleet, test_export.k4

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("fastavro", reason="the schemas extra is not installed")

from kdump.native import speedups  # noqa: E402
from kdump.records.v2 import RecordBatch  # noqa: E402

#: the module (the package's ``rows`` is a function of it)
R = importlib.import_module("kdump.ops.export.rows")
A = importlib.import_module("kdump.ops.export.arrow")

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


# --- packed columns: Arrow's offsets and validity from lengths -----------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kdump.errors import KdumpError  # noqa: E402
from kdump.records.packed import lengths_offsets, lengths_offsets_py  # noqa: E402


def _lens(values: list[int]) -> bytes:
    import array

    return array.array("i", values).tobytes()


def test_lengths_offsets_examples() -> None:
    # 3, null, 0, 2: offsets 0 3 3 3 5, bit 1 clear
    got = lengths_offsets_py(_lens([3, -1, 0, 2]))
    assert got == (_lens([0, 3, 3, 3, 5]), bytes([0b1101]), 1)
    assert lengths_offsets_py(b"") == (_lens([0]), None, 0)
    assert lengths_offsets_py(_lens([1, 1])) == (_lens([0, 1, 2]), None, 0)
    # nine nulls: two bitmap bytes, all clear
    assert lengths_offsets_py(_lens([-1] * 9)) == (_lens([0] * 10), bytes(2), 9)
    with pytest.raises(OverflowError):
        lengths_offsets_py(_lens([2**31 - 1, 1]))
    with pytest.raises(OverflowError):  # the wrapper: the native one leaves it to the twin
        lengths_offsets(_lens([2**31 - 1, 1]))


@native
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.just(-1), st.integers(0, 1000)), max_size=40))
def test_lengths_offsets_native_is_the_twin(values: list[int]) -> None:
    assert speedups.lengths_offsets(_lens(values)) == lengths_offsets_py(_lens(values))


def test_a_column_past_arrows_offsets_is_said_not_crashed() -> None:
    with pytest.raises(KdumpError, match="more than 2 GiB"):
        A.varsize_array(pa.binary(), _lens([2**31 - 1, 1]), b"")


def test_packed_arrays_hold_nulls_headers_and_text(tmp_path: Path) -> None:
    """The six packed columns as Arrow arrays: null keys and values, empty ones, headers
    with null values and a key that is not UTF-8 (U+FFFD, as the headers column's text),
    a LogAppendTime batch; with the extension and without, the same arrays."""
    from kdump.records import v2
    from tests.support.writer import Rec, v2_batch  # the project's encoder

    recs = [Rec(key=None, value=b"v0", headers=[(b"h", None), (b"\xff\xfeok", b"x")]),
            Rec(key=b"", value=None), Rec(key=b"k2", value=b"", headers=[("t", b"")])]
    data = v2_batch(recs, base_offset=40, log_append_time=1_700_000_000_123,
                    producer_id=3, producer_epoch=0, base_sequence=2**31 - 2)
    b = RecordBatch("x.log", 0, data, 0)
    packed, n, fault = b.packed_records()
    assert (n, fault) == (3, None)
    buf, start, end = b.payload()
    twin = v2.packed_v2_records_py(buf, start, end, 3, 1000, b.base_offset, b.base_timestamp,
                                  b.max_timestamp, b.base_sequence)
    assert twin[0] == packed
    from kdump.ops.export.schema import arrow_schema

    schema = arrow_schema(R.ReadOptions(paths=("x",)).fields())
    names = ["offset", "timestamp", "key", "value", "headers", "sequence"]
    arrays = A.packed_arrays(list(packed), [schema.field(f).type for f in names])
    got = {f: a.to_pylist() for f, a in zip(names, arrays, strict=True)}
    assert got == {
        "offset": [40, 41, 42],
        "timestamp": [1_700_000_000_123] * 3,
        "key": [None, b"", b"k2"],
        "value": [b"v0", None, b""],
        "headers": [[{"key": "h", "value": None}, {"key": "\ufffd\ufffdok", "value": b"x"}],
                    [], [{"key": "t", "value": b""}]],
        "sequence": [2**31 - 2, 2**31 - 1, 0],  # DefaultRecordBatch.incrementSequence wraps
    }
    assert [a.null_count for a in arrays] == [0, 0, 1, 1, 0, 0]
    for a in arrays:
        a.validate(full=True)


# --- plain columns without pa.array ------------------------------------------------------------
@pytest.mark.parametrize("typ,values", [
    ("int32", [1, None, -5, 2**31 - 1]), ("int64", [2**63 - 1, -(2**63), None]),
    ("int16", [None, None]), ("int8", []), ("bool", [True, False, None, True] * 5),
    ("string", ["a", None, "", "\u00e9\U0001f600", "x" * 300]),
    ("binary", [b"\x00\xff", None, b""]), ("string", [None] * 9), ("bool", [True] * 8),
])
def test_plain_array_is_pa_array(typ: str, values: list[Any]) -> None:
    t = getattr(pa, typ if typ != "bool" else "bool_")()
    got = A.plain_array(values, t)
    want = pa.array(values, type=t)
    got.validate(full=True)
    assert got.type == want.type
    assert got.to_pylist() == want.to_pylist() == values
    assert got.null_count == want.null_count
    assert got.equals(want)


def test_plain_array_leaves_the_rest_to_pa_array() -> None:
    with pytest.raises((OverflowError, pa.ArrowInvalid)):
        A.plain_array([2**31], pa.int32())  # out of range: pa.array's own error
    assert A.plain_array([1.5], pa.float64()).to_pylist() == [1.5]
    with pytest.raises((TypeError, pa.ArrowInvalid, pa.ArrowTypeError)):
        A.plain_array([1], pa.string())  # not text: pa.array's own error


def test_export_of_a_plain_topic_imports_no_pandas(tmp_path: Path) -> None:
    """pandas (installed with the test extras) is not imported by exporting a plain
    topic: pa.array would import it, about a second of start-up (arrow.plain_array)."""
    pytest.importorskip("pandas")
    from tests.support import writer

    writer.big_segment(tmp_path / "in" / "t-0", 200_000)
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('pandas' in sys.modules, 'pyarrow' in sys.modules))\n"
            f"sys.argv = ['kdump', 'export', {str(tmp_path / 'in')!r}, '-o', "
            f"{str(tmp_path / 'out')!r}]\n"
            "from kdump.cli import main\nmain()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "exported" in r.stdout
    assert r.stdout.splitlines()[-1].split() == ["False", "True"]
