"""Ids sort in creation order, even within one millisecond and across processes."""

from __future__ import annotations

import subprocess
import sys

from core import ids


def test_ascending_ids_sort_in_creation_order_within_a_millisecond() -> None:
    made = [ids.ascending("msg") for _ in range(5000)]
    assert made == sorted(made) and len(set(made)) == len(made)


def test_descending_ids_sort_newest_first() -> None:
    made = [ids.descending("ses") for _ in range(1000)]
    assert made == sorted(made, reverse=True)


def test_ids_from_a_later_process_sort_after() -> None:
    script = "from core import ids; print(ids.ascending('msg'))"
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert first.stdout.strip() < second.stdout.strip()


def test_check_and_timestamp() -> None:
    made = ids.ascending("prt")
    assert ids.check(made, "prt") and not ids.check(made, "msg") and not ids.check("prt_xyz", "prt")
    assert ids.timestamp_us(made) > 1_700_000_000_000_000
