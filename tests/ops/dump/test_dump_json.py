"""``kdump dump --format json``: the JSON Lines contract.

Field names are part of kdump's interface: the exact key set of every object type is
held fixed here, so adding, renaming or dropping a field is a deliberate change.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import golden_util as g
from tests.support import writer as w

TS = w.DEFAULT_TIMESTAMP
LOG0 = "00000000000000000000.log"

FILE_KEYS = {"type", "file", "kind", "description", "size", "base_offset", "epoch", "topic",
             "partition", "active", "leftover", "partition_state"}
BATCH_COMMON = {"type", "file", "position", "base_offset", "last_offset", "count", "magic",
                "compression", "crc", "crc_valid", "size", "timestamp_type", "max_timestamp",
                "attributes"}
BATCH_V2 = BATCH_COMMON | {"first_timestamp", "partition_leader_epoch", "producer_id",
                           "producer_epoch", "base_sequence", "last_sequence",
                           "is_transactional", "is_control", "delete_horizon_ms"}
RECORD_COMMON = {"type", "file", "topic", "partition", "batch_position", "producer_id",
                 "producer_epoch", "is_transactional", "is_control", "offset", "timestamp",
                 "timestamp_type",
                 "key", "key_encoding", "value", "value_encoding", "key_size", "value_size",
                 "headers", "crc_valid", "size"}
RECORD_V2 = RECORD_COMMON | {"sequence"}
RECORD_LEGACY = RECORD_COMMON | {"magic", "crc"}
HEADER_KEYS = {"key", "key_encoding", "value", "value_encoding"}
PROBLEM_KEYS = {"type", "file", "position", "kind", "severity", "detail", "base_offset", "length"}
LOG_END_KEYS = {"type", "file", "size", "end", "valid_bytes", "trailing_bytes",
                "unreadable_bytes", "batches", "records", "limited"}
INDEX_ENTRY_KEYS = {"type", "file", "slot", "offset", "position"}
TIME_INDEX_ENTRY_KEYS = {"type", "file", "slot", "timestamp", "offset"}
INDEX_STATUS_KEYS = {"type", "file", "status", "message"}
TXN_ENTRY_KEYS = {"type", "file", "slot", "version", "producer_id", "first_offset",
                  "last_offset", "last_stable_offset"}
SNAPSHOT_ENTRY_KEYS = {"type", "file", "producer_id", "producer_epoch", "coordinator_epoch",
                       "current_txn_first_offset", "last_timestamp", "first_sequence",
                       "last_sequence", "last_offset", "offset_delta", "timestamp"}
PROPERTIES_KEYS = {"type", "file", "kind", "values"}
NOTE_KEYS = {"type", "file", "text"}


def parse(out: str) -> list[dict[str, Any]]:
    objs = []
    for line in out.splitlines():
        obj = json.loads(line)
        assert isinstance(obj, dict), line
        assert isinstance(obj.get("type"), str), line
        objs.append(obj)
    assert out == "" or out.endswith("\n")
    return objs


def of_type(objs: list[dict[str, Any]], t: str) -> list[dict[str, Any]]:
    return [o for o in objs if o["type"] == t]


def jdump(kdump, d: Path, *args: str) -> tuple[list[dict[str, Any]], Any]:
    r = kdump("dump", "--format", "json", *args, cwd=d)
    return parse(r.out), r


def test_every_line_is_an_object_with_a_type(kdump, sample_dir: Path) -> None:
    # the walk passes over the broker's .lock: named, it is read (a note)
    objs, r = jdump(kdump, sample_dir, "--print-data-log", ".", "./.lock")
    assert r.rc == 0
    types = {o["type"] for o in objs}
    assert {"file", "batch", "record", "log_end", "index_entry", "time_index_entry",
            "txn_index_entry", "producer_snapshot_entry", "checkpoint_entry", "properties",
            "note", "index_status", "problem"} <= types
    assert r.err == ""


def test_field_names_are_fixed(kdump, sample_dir: Path) -> None:
    objs, _ = jdump(kdump, sample_dir, "--print-data-log", ".", "./.lock")
    expect = {
        "file": [FILE_KEYS], "log_end": [LOG_END_KEYS], "index_entry": [INDEX_ENTRY_KEYS],
        "time_index_entry": [TIME_INDEX_ENTRY_KEYS], "index_status": [INDEX_STATUS_KEYS],
        "txn_index_entry": [TXN_ENTRY_KEYS], "producer_snapshot_entry": [SNAPSHOT_ENTRY_KEYS],
        "properties": [PROPERTIES_KEYS], "note": [NOTE_KEYS],
        "batch": [BATCH_V2, BATCH_COMMON],
        "record": [RECORD_V2, RECORD_LEGACY, RECORD_V2 | {"control"}],
    }
    seen: dict[str, set[frozenset[str]]] = {}
    for o in objs:
        if o["type"] in ("problem", "checkpoint_entry"):
            continue
        assert set(o) in expect[o["type"]], (o["type"], sorted(o))
        seen.setdefault(o["type"], set()).add(frozenset(o))
        for h in o.get("headers", []):
            assert set(h) == HEADER_KEYS
    # each variant occurs in the sample
    assert {frozenset(s) for s in expect["batch"]} == seen["batch"]
    assert {frozenset(s) for s in expect["record"]} == seen["record"]


def test_problem_and_checkpoint_fields(kdump, sample_dir: Path, golden_fixture) -> None:
    objs, _ = jdump(kdump, sample_dir, "--deep-iteration", ".")
    problems = of_type(objs, "problem")
    assert problems
    for p in problems:
        assert PROBLEM_KEYS <= set(p)
    gap = [p for p in problems if p["kind"] == "offset-gap"]
    assert {(p["after"], p["next"]) for p in gap} == {(0, 3), (3, 9), (9, 12)}
    assert {p["severity"] for p in gap} == {"info"}
    cps = of_type(objs, "checkpoint_entry")
    kinds = {c["kind"]: set(c) for c in cps}
    base = {"type", "file", "kind", "line"}
    assert kinds["recovery-point-offset-checkpoint"] == base | {"topic", "partition",
                                                                 "recovery_point"}
    assert kinds["replication-offset-checkpoint"] == base | {"topic", "partition",
                                                              "high_watermark"}
    assert kinds["log-start-offset-checkpoint"] == base | {"topic", "partition",
                                                            "log_start_offset"}
    assert kinds["cleaner-offset-checkpoint"] == base | {"topic", "partition",
                                                          "cleaner_checkpoint"}
    assert kinds["leader-epoch-checkpoint"] == base | {"epoch", "start_offset"}
    lec = [c for c in cps if c["kind"] == "leader-epoch-checkpoint"
           and c["file"] == "./orders-0/leader-epoch-checkpoint"]
    assert [(c["line"], c["epoch"], c["start_offset"]) for c in lec] == [
        (3, 0, 0), (4, 1, 96), (5, 3, 120)]


def test_seed_batch_and_record_values(kdump, tmp_path: Path) -> None:
    (tmp_path / LOG0).write_bytes(
        w.v2_batch([w.Rec(b"key", b"value", timestamp=1524709879130)], partition_leader_epoch=0))
    objs, r = jdump(kdump, tmp_path, "--print-data-log", LOG0)
    assert r.rc == 0
    assert [o["type"] for o in objs] == ["file", "batch", "record", "log_end"]
    assert objs[1] == {
        "type": "batch", "file": LOG0, "position": 0, "base_offset": 0, "last_offset": 0,
        "count": 1, "size": 76, "magic": 2, "compression": "none",
        "timestamp_type": "CreateTime", "max_timestamp": 1524709879130, "crc": 2857248333,
        "crc_valid": True, "first_timestamp": 1524709879130, "partition_leader_epoch": 0,
        "producer_id": -1, "producer_epoch": -1, "base_sequence": -1, "last_sequence": -1,
        "is_transactional": False, "is_control": False, "delete_horizon_ms": None,
        "attributes": 0,
    }
    assert objs[2] == {
        "type": "record", "file": LOG0, "topic": None, "partition": None,
        "batch_position": 0, "producer_id": -1, "producer_epoch": -1,
        "is_transactional": False, "is_control": False, "offset": 0,
        "timestamp": 1524709879130, "timestamp_type": "CreateTime", "key_size": 3,
        "value_size": 5, "key": "key", "key_encoding": "utf8", "value": "value",
        "value_encoding": "utf8", "headers": [], "sequence": -1, "crc_valid": True,
        "size": 15,
    }
    assert objs[3] == {"type": "log_end", "file": LOG0, "size": 76, "end": 76,
                       "valid_bytes": 76, "trailing_bytes": 0, "unreadable_bytes": 0,
                       "batches": 1, "records": 1, "limited": False}


def test_legacy_batch_and_record_values(kdump, tmp_path: Path) -> None:
    m = w.legacy_message(1, None, b"v", offset=4, timestamp=TS, log_append_time=True)
    (tmp_path / "00000000000000000004.log").write_bytes(m)
    objs, _ = jdump(kdump, tmp_path, "--deep-iteration", "00000000000000000004.log")
    batch, rec = objs[1], objs[2]
    assert set(batch) == BATCH_COMMON
    assert (batch["magic"], batch["count"], batch["timestamp_type"], batch["max_timestamp"],
            batch["attributes"]) == (1, None, "LogAppendTime", TS, 8)
    assert set(rec) == RECORD_LEGACY
    assert (rec["key"], rec["key_encoding"], rec["key_size"], rec["value"], rec["crc_valid"],
            rec["magic"]) == (None, None, -1, "v", True, 1)


def test_headers_are_a_list_of_objects(kdump, tmp_path: Path) -> None:
    (tmp_path / LOG0).write_bytes(w.v2_batch(
        [w.Rec(b"k", b"v", headers=[("a", b"1"), ("b", None), ("a", b"\xff")])]))
    objs, _ = jdump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert of_type(objs, "record")[0]["headers"] == [
        {"key": "a", "key_encoding": "utf8", "value": "1", "value_encoding": "utf8"},
        {"key": "b", "key_encoding": "utf8", "value": None, "value_encoding": None},
        {"key": "a", "key_encoding": "utf8", "value": "/w==", "value_encoding": "base64"},
    ]


def _payload_batch() -> bytes:
    return w.v2_batch([
        w.Rec("\u00e9t\u00e9".encode(), b"\x00\xff\xfe", headers=[("h", b"\x80")]),
        w.Rec(None, None),
        w.Rec(b"", b"plain"),
    ])


def test_payload_encoding_utf8_is_lossless(kdump, tmp_path: Path) -> None:
    (tmp_path / LOG0).write_bytes(_payload_batch())
    objs, _ = jdump(kdump, tmp_path, "--deep-iteration", LOG0)
    recs = of_type(objs, "record")
    assert (recs[0]["key"], recs[0]["key_encoding"]) == ("\u00e9t\u00e9", "utf8")
    assert (recs[0]["value"], recs[0]["value_encoding"]) == ("AP/+", "base64")
    assert base64.b64decode(recs[0]["value"]) == b"\x00\xff\xfe"
    assert recs[0]["headers"][0]["value"] == "gA=="
    assert (recs[1]["key"], recs[1]["key_encoding"], recs[1]["value"],
            recs[1]["value_encoding"]) == (None, None, None, None)
    assert (recs[2]["key"], recs[2]["value"]) == ("", "plain")
    # non-ASCII is written as UTF-8, not \u escapes
    r = kdump("dump", "--format", "json", "--deep-iteration", LOG0, cwd=tmp_path)
    assert "\u00e9t\u00e9" in r.out


@pytest.mark.parametrize(("encoding", "enc"), [("base64", lambda b: base64.b64encode(b).decode()),
                                               ("hex", lambda b: b.hex())])
def test_payload_encoding_base64_and_hex(kdump, tmp_path: Path, encoding: str, enc) -> None:
    (tmp_path / LOG0).write_bytes(_payload_batch())
    objs, _ = jdump(kdump, tmp_path, "--deep-iteration", "--payload-encoding", encoding, LOG0)
    recs = of_type(objs, "record")
    assert recs[0]["key"] == enc("\u00e9t\u00e9".encode())
    assert recs[0]["key_encoding"] == encoding
    assert recs[0]["value"] == enc(b"\x00\xff\xfe")
    # header keys are Strings in Kafka: text under every encoding (issue 15)
    assert recs[0]["headers"][0] == {"key": "h", "key_encoding": "utf8",
                                     "value": enc(b"\x80"), "value_encoding": encoding}
    assert (recs[1]["key"], recs[1]["value"]) == (None, None)
    assert (recs[2]["key"], recs[2]["value"]) == ("", enc(b"plain"))


@pytest.mark.parametrize("encoding", ["base64", "hex", "utf8"])
def test_header_key_selectable_under_every_encoding(kdump, tmp_path: Path, encoding: str) -> None:
    """`jq '.headers[] | select(.key=="trace-id")'` works whatever --payload-encoding."""
    (tmp_path / LOG0).write_bytes(w.v2_batch([
        w.Rec(b"k", b"v", headers=[("trace-id", b"\x01\x02"), ("other", b"x")]),
        w.Rec(b"k", b"v", headers=[(b"\xff\xfe", b"y")]),
    ]))
    objs, _ = jdump(kdump, tmp_path, "--deep-iteration", "--payload-encoding", encoding, LOG0)
    recs = of_type(objs, "record")
    hits = [h for r in recs for h in r["headers"] if h["key"] == "trace-id"]
    assert len(hits) == 1 and hits[0]["key_encoding"] == "utf8"
    # a key that is not UTF-8 is base64, and says so
    assert recs[1]["headers"][0]["key"] == base64.b64encode(b"\xff\xfe").decode()
    assert recs[1]["headers"][0]["key_encoding"] == "base64"


def test_record_carries_topic_partition_and_producer(kdump, tmp_path: Path) -> None:
    d = tmp_path / "orders-3"
    d.mkdir()
    (d / LOG0).write_bytes(w.v2_batch([w.Rec(b"k", b"v")], producer_id=42, producer_epoch=7,
                                      base_sequence=0))
    (d / "00000000000000000001.log").write_bytes(w.end_txn_marker_batch(
        True, base_offset=1, producer_id=9, producer_epoch=1, coordinator_epoch=5))
    objs, _ = jdump(kdump, tmp_path, "--deep-iteration", "orders-3")
    recs = of_type(objs, "record")
    assert [(r["topic"], r["partition"], r["producer_id"], r["producer_epoch"],
             r["is_transactional"], r["is_control"], "control" in r) for r in recs] == [
        ("orders", 3, 42, 7, False, False, False), ("orders", 3, 9, 1, True, True, True)]


def test_json_value_decoder_gives_structure(kdump, tmp_path: Path) -> None:
    (tmp_path / LOG0).write_bytes(w.v2_batch([w.Rec(b"k", b'{"a":[1,2]}')]))
    objs, _ = jdump(kdump, tmp_path, "--value-decoder", "json", LOG0)
    rec = of_type(objs, "record")[0]
    # the raw bytes stay in value; the decoded structure is under decoded (issue 16)
    assert (rec["value"], rec["value_encoding"]) == ('{"a":[1,2]}', "utf8")
    assert rec["decoded"] == {"value": {"a": [1, 2]}}
    assert (rec["key"], rec["key_encoding"]) == ("k", "utf8")


def test_control_record_objects(kdump, tmp_path: Path) -> None:
    (tmp_path / LOG0).write_bytes(w.end_txn_marker_batch(
        True, base_offset=0, producer_id=9, producer_epoch=1, coordinator_epoch=5))
    objs, _ = jdump(kdump, tmp_path, "--deep-iteration", LOG0)
    batch, rec = objs[1], objs[2]
    assert (batch["is_control"], batch["is_transactional"], batch["attributes"]) == (True, True,
                                                                                       0x30)
    assert rec["control"] == {"type": "COMMIT", "type_id": 1, "key_version": 0,
                              "coordinator_epoch": 5, "value_version": 0}


def test_kraft_control_data(kdump, golden_fixture) -> None:
    d = golden_fixture("kraft")
    objs, _ = jdump(kdump, d, "--deep-iteration", "__cluster_metadata-0")
    ctl = [o["control"] for o in of_type(objs, "record") if "control" in o]
    assert ctl[0] == {"type": "LEADER_CHANGE", "type_id": 2, "key_version": 0,
                      "value_version": 0,
                      "data": {"version": 0, "leaderId": 1,
                               "voters": [{"voterId": 1}, {"voterId": 2}, {"voterId": 3}],
                               "grantingVoters": [{"voterId": 1}, {"voterId": 2}]}}
    assert ctl[1]["data"] == {"version": 0, "kRaftVersion": 1}
    assert ctl[2]["data"]["voters"][0]["endpoints"] == [
        {"name": "CONTROLLER", "host": "localhost", "port": 9093}]
    assert ctl[3] == {"type": "UNKNOWN", "type_id": 42, "key_version": 0}


def test_index_and_snapshot_objects(kdump, golden_fixture) -> None:
    d = golden_fixture("offset-index")
    objs, r = jdump(kdump, d, "bad-0/00000000000000000000.index")
    assert [(o["slot"], o["offset"], o["position"]) for o in of_type(objs, "index_entry")] == [
        (0, 5, 94), (1, 7, 188), (2, 11, 282), (3, 14, 480)]
    mism = [p for p in of_type(objs, "problem") if p["kind"] == "index-mismatch"]
    assert [(p["index_offset"], p["log_offset"], p["position"]) for p in mism] == [
        (7, 8, 8), (14, 17, 24)]
    zero = [p for p in of_type(objs, "problem") if p["kind"] == "index-zero-slots"]
    assert [(p["position"], p["length"], p["severity"]) for p in zero] == [(32, 32, "info")]
    assert r.rc == 1
    d = golden_fixture("producer-snapshot")
    objs, _ = jdump(kdump, d, "snap-0/00000000000000000071.snapshot")
    snap = of_type(objs, "producer_snapshot_entry")
    assert snap[1]["current_txn_first_offset"] == 56
    assert (snap[2]["first_sequence"], snap[2]["last_offset"]) == (None, -1)
    assert snap[3]["first_sequence"] == 2147483645


def test_damage_problems_have_exact_positions(kdump, golden_fixture) -> None:
    d = golden_fixture("damaged")
    objs, r = jdump(kdump, d, "dmg-0")
    probs = [(p["file"], p["position"], p["kind"], p["length"], p["severity"])
             for p in of_type(objs, "problem")]
    log0, log6 = "dmg-0/00000000000000000000.log", "dmg-0/00000000000000000006.log"
    assert probs == [
        (log0, 72, "crc-mismatch", 72, "error"),
        (log0, 216, "zeroed-region", 40, "error"),
        (log0, 400, "truncated", 30, "error"),
        (log6, 70, "zero-tail", 100, "info"),
    ]
    ends = {o["file"]: o for o in of_type(objs, "log_end")}
    assert (ends[log0]["valid_bytes"], ends[log0]["trailing_bytes"], ends[log0]["batches"]) == (
        400, 30, 5)
    assert r.rc == 1


@pytest.mark.both_modes
@pytest.mark.parametrize("case", [c for c in g.GOLDEN_CASES if "json" in c.formats],
                         ids=lambda c: c.name)
def test_golden_json(kdump, golden_fixture, update_golden: bool, case: g.GoldenCase) -> None:
    d = golden_fixture(case.name)
    r = kdump("dump", "--format", "json", *case.args, cwd=d)
    parse(r.out)
    g.check_golden(f"{case.name}.json", g.render(r.out, r.err, r.rc, d), update_golden)


def test_non_utf8_file_names_and_control_characters_stay_valid_json(tmp_path: Path) -> None:
    """Issue 18: a name with bytes that are not UTF-8 is written losslessly as the
    surrogateescape code points (``\\udcXX``), C1 and bidi controls as ``\\uXXXX``; every
    line is valid UTF-8 and parses, in the native and the pure-Python writer alike."""
    import os
    import subprocess
    import sys

    name = b"t\xff\xc3-0"
    part = os.path.join(os.fsencode(tmp_path), name)
    os.mkdir(part)
    value = "a\u0085b\u202ec\u2066d\u200fe\u061cf\u009fg".encode()
    seg = os.path.join(part, LOG0.encode())
    with open(seg, "wb") as f:
        f.write(w.v2_batch([w.Rec(b"k", value, headers=[("h\u202e", b"x")])]))
    outs = []
    for env_extra in ({}, {"KDUMP_PURE_PYTHON": "1"}):
        env = dict(os.environ, **env_extra)
        p = subprocess.run([sys.executable, "-m", "kdump", "dump", "--format", "json",
                            "--deep-iteration", "."], cwd=part, env=env, capture_output=True,
                           check=False)
        assert p.returncode == 0, p.stderr
        outs.append(p.stdout)
        lines = p.stdout.decode("utf-8").splitlines()  # strict: valid UTF-8
        objs = [json.loads(x) for x in lines]
        assert p.stdout.isascii()  # every non-ASCII character here is one to escape
        rec = next(o for o in objs if o["type"] == "record")
        assert rec["value"] == value.decode()
        assert rec["headers"][0]["key"] == "h\u202e"
        for ch in ("\\u0085", "\\u202e", "\\u2066", "\\u200f", "\\u061c", "\\u009f"):
            assert ch.encode() in p.stdout
    # the directory's name round-trips, in a file given by its full path too
    p = subprocess.run([sys.executable, "-m", "kdump", "dump", "--format", "json", seg],
                       capture_output=True, check=False)
    objs = [json.loads(x) for x in p.stdout.decode("utf-8").splitlines()]
    files = {o["file"] for o in objs if "file" in o}
    assert {os.fsencode(f) for f in files} == {seg}
    assert b"\\udcff\\udcc3" in p.stdout
    assert outs[0] == outs[1]
