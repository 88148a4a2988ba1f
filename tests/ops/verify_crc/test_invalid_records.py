"""Records of a batch whose CRC fails (issue 41.5): each JSON record says so
(``crc_valid``: its batch's CRC-32C for v2), and the totals count them apart
(``invalid_records`` of verify-crc's summary and size-report's rows; the report's
Records card), never as records read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import KdumpRunner
from tests.support import writer as w

LOG0 = "00000000000000000000.log"


def _damaged(root: Path) -> Path:
    """A broker log dir with one partition of three batches (2, 3 and 4 records), the
    middle one's CRC failing: one byte of its last record's value flipped."""
    b = w.broker_logdir(root / "b1", 1)
    batches = w.replica_batches([(0, 2, 0), (2, 3, 0), (5, 4, 0)])
    w.write_replica(b / "orders-0", batches)
    log = b / "orders-0" / LOG0
    data = bytearray(log.read_bytes())
    at = len(batches[0]) + len(batches[1]) - 2  # its last value byte (before the header count)
    data[at] ^= 0x01
    log.write_bytes(bytes(data))
    return b


def _objs(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_dump_json_records_carry_their_batchs_crc_verdict(kdump: KdumpRunner,
                                                          tmp_path: Path) -> None:
    b = _damaged(tmp_path)
    for args in ((), ("--payload-encoding", "hex")):
        r = kdump("dump", "--format", "json", "--deep-iteration", *args, str(b / "orders-0"))
        assert r.rc == 1
        recs = [(o["offset"], o["crc_valid"]) for o in _objs(r.out) if o["type"] == "record"]
        assert recs == [(0, True), (1, True), (2, False), (3, False), (4, False),
                        (5, True), (6, True), (7, True), (8, True)]


def test_verify_crc_counts_the_records_of_a_failing_batch_apart(kdump: KdumpRunner,
                                                                 tmp_path: Path) -> None:
    b = _damaged(tmp_path)
    r = kdump("verify-crc", "--format", "json", str(b))
    assert r.rc == 1
    summary = next(o for o in _objs(r.out) if o["type"] == "summary")
    assert (summary["records"], summary["invalid_records"], summary["invalid_batches"]) == (6, 3, 1)


def test_size_report_counts_the_records_of_a_failing_batch_apart(kdump: KdumpRunner,
                                                                 tmp_path: Path) -> None:
    b = _damaged(tmp_path)
    r = kdump("size-report", "--format", "json", "--by", "partition", str(b))
    rows = {o["type"]: o for o in _objs(r.out)}
    for kind in ("partition", "total"):
        assert (rows[kind]["records"], rows[kind]["invalid_records"], rows[kind]["batches"]) \
            == (6, 3, 3), kind
    assert rows["partition"]["records_exact"] is False
    # a CRC failure is a finding here too, exit 1 by the one rule (issue 46)
    [crc] = [o for o in _objs(r.out) if o["type"] == "problem"]
    assert (crc["kind"], crc["base_offset"], r.rc) == ("crc-mismatch", 2, 1)
    r = kdump("size-report", "--format", "text", str(b))
    assert r.rc == 1
    assert r.err.splitlines()[-1] == (
        "size-report: 3 records in batches whose CRC fails are not counted in records "
        "(invalid_records; the crc-mismatch findings name the batches)")
    assert ": crc-mismatch: " in r.err.splitlines()[0]
    assert r.out.splitlines()[-1].split()[:6] == ["TOTAL", str(rows["total"]["bytes"]),
                                                  str(rows["total"]["disk_bytes"]), "1", "3", "6"]
    r = kdump("size-report", "--format", "json", "--shallow", str(b))
    total = next(o for o in _objs(r.out) if o["type"] == "total")
    assert (total["records"], total["invalid_records"]) == (9, 0)  # --shallow checks no CRC


def test_the_reports_records_card_counts_them_apart(kdump: KdumpRunner, tmp_path: Path) -> None:
    b = _damaged(tmp_path)
    out = tmp_path / "report.html"
    r = kdump("report", str(b), "-o", str(out))
    assert r.rc == 1, r.err
    page = out.read_text()
    card = page[page.index('<div class="k">Records</div>'):]
    card = card[:card.index("</div></div>") + 12]
    assert card == ('<div class="k">Records</div><div class="v">6</div><div class="s" '
                    'id="invalid-records">+ 3 in batches whose CRC fails</div></div>')
