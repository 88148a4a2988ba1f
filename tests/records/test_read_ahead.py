"""When verify-crc's walk starts a thread reading ahead (``read_ahead_pays``): when a
second CPU is free now, as Linux counts runnable tasks, not by the 1-minute load average,
which counts the process asking (a command run again at once read its own last run's load
as another's, and the thread stayed off: bench/README, the tenth session's floor run)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kdump.records import file_records as fr

BIG = 64 * fr.FAST_CHUNK


@pytest.fixture
def loadavg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    p = tmp_path / "loadavg"
    monkeypatch.setattr(fr, "LOADAVG", str(p))
    monkeypatch.setattr(fr, "READ_AHEAD", None)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    return p


@pytest.mark.parametrize(("line", "others", "pays"), [
    ("2.95 2.87 3.29 1/79 2289", 0, True),   # a high average, only this process now
    ("0.10 0.20 0.30 2/79 2289", 1, False),  # a low average, another task runnable now
    ("0.10 0.20 0.30 3/80 2290", 2, False),
])
def test_a_free_cpu_now_decides(loadavg: Path, monkeypatch: pytest.MonkeyPatch, line: str,
                                others: int, pays: bool) -> None:
    loadavg.write_text(line + "\n")
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))  # never read
    assert fr.runnable_others() == others
    assert fr.read_ahead_pays(BIG) is pays
    assert fr.read_ahead_pays(2 * fr.FAST_CHUNK) is False  # one stretch: no thread


def test_without_the_count_the_load_average_decides(loadavg: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert not loadavg.exists()
    assert fr.runnable_others() is None
    monkeypatch.setattr(os, "getloadavg", lambda: (1.2, 0.0, 0.0))
    assert fr.read_ahead_pays(BIG) is True
    monkeypatch.setattr(os, "getloadavg", lambda: (1.7, 0.0, 0.0))
    assert fr.read_ahead_pays(BIG) is False
