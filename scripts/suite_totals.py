"""Print each suite's time and test counts, then the total as one "N passed, N failed" line.

Reads the JUnit XML reports `scripts/check` asked pytest for (one per suite) and the `times` file it wrote.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def counts(report: Path) -> dict[str, int]:
    """Passed, failed (failures + errors), skipped of one pytest JUnit report."""
    root = ET.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    tests = sum(int(s.get("tests", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    return {"passed": tests - failed - skipped, "failed": failed, "skipped": skipped}


def main(folder: Path) -> None:
    times = folder / "times"
    rows = [line.split() for line in times.read_text().splitlines()] if times.exists() else []
    total = {"passed": 0, "failed": 0, "skipped": 0}
    print("\nsuite       seconds  budget  passed  failed  skipped")
    for name, took, budget in rows:
        report = folder / f"{name}.xml"
        # A suite whose pytest died before writing its report counts as one failure, never as silence.
        got = counts(report) if report.exists() else {"passed": 0, "failed": 1, "skipped": 0}
        for key in total:
            total[key] += got[key]
        print(f"{name:<10} {took:>8} {budget:>7} {got['passed']:>7} {got['failed']:>7} {got['skipped']:>8}")
    print(f"total: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
