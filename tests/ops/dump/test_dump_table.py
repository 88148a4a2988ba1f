"""``kdump dump --format table``: rich tables for people, at a fixed 100 columns, no colour."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import golden_util as g
from tests.support import writer as w

ANSI = re.compile(r"\x1b\[")
LOG0 = "00000000000000000000.log"


def table(kdump, d: Path, *args: str):  # type: ignore[no-untyped-def]
    return kdump("dump", "--format", "table", *args, cwd=d)


def test_fits_100_columns_without_colour(kdump, sample_dir: Path) -> None:
    r = table(kdump, sample_dir, "--print-data-log", ".")
    assert r.rc == 0
    assert r.out
    assert not ANSI.search(r.out) and not ANSI.search(r.err)
    too_wide = [line for line in r.out.splitlines() if len(line) > 100]
    assert too_wide == []


def test_batches_and_records_are_shown(kdump, tmp_path: Path) -> None:
    (tmp_path / LOG0).write_bytes(
        w.v2_batch([w.Rec(b"key", b"value", timestamp=1524709879130)], producer_id=42,
                   producer_epoch=1, base_sequence=0, transactional=True)
        + w.end_txn_marker_batch(True, base_offset=1, producer_id=42, producer_epoch=1,
                                 coordinator_epoch=5))
    r = table(kdump, tmp_path, "--print-data-log", LOG0)
    assert f"{LOG0}   log segment (record batches) · 154 bytes" in r.out
    assert "key = value" in r.out
    assert "42/1" in r.out
    assert "COMMIT" in r.out and "coordinatorEpoch=5" in r.out
    assert "2 batches, 2 records" in r.out
    assert r.err == ""


def test_bad_crc_is_marked_and_problems_go_to_stderr(kdump, golden_fixture) -> None:
    d = golden_fixture("damaged")
    r = table(kdump, d, "dmg-0/00000000000000000000.log")
    rows = [line for line in r.out.splitlines() if line.startswith("│")]
    # at 100 columns the batch's fields other than offsets, time and size share a column
    assert [row.split("│")[-2].strip().rsplit(" · crc ", 1)[-1] for row in rows] == \
        ["ok", "BAD", "ok", "ok", "ok"]
    assert "position 216: zeroed-region" in r.err.replace("\n", " ")
    assert "position 400: truncated" in r.err.replace("\n", " ")
    assert r.rc == 1


def test_index_tables(kdump, golden_fixture) -> None:
    d = golden_fixture("offset-index")
    r = table(kdump, d, "clean-0/00000000000000000000.index")
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in r.out.splitlines()
             if line.startswith("│")]
    assert cells == [["0", "5", "94"], ["1", "8", "188"], ["2", "11", "282"], ["3", "14", "380"],
                     ["4", "17", "480"]]


@pytest.mark.both_modes
@pytest.mark.parametrize("case", [c for c in g.GOLDEN_CASES if "table" in c.formats],
                         ids=lambda c: c.name)
def test_golden_table(kdump, golden_fixture, update_golden: bool, case: g.GoldenCase) -> None:
    d = golden_fixture(case.name)
    r = table(kdump, d, *case.args)
    assert not ANSI.search(r.out)
    g.check_golden(f"{case.name}.table", g.render(r.out, r.err, r.rc, d), update_golden)
