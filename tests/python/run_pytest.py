"""Runs one pytest suite for CTest: exit 77 (Skipped) when pytest is missing or
every case skipped, pytest's own code otherwise."""

import sys

try:
    import pytest
except ImportError:
    print("SKIPPED: pytest is not installed (Debian: python3-pytest)")
    sys.exit(77)


class Outcomes:
    def __init__(self) -> None:
        self.ran = 0
        self.skipped = 0

    def pytest_runtest_logreport(self, report) -> None:
        if report.skipped:
            self.skipped += 1
        elif report.when == "call":
            self.ran += 1


outcomes = Outcomes()
code = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *sys.argv[1:]], plugins=[outcomes])
if code == 0 and outcomes.ran == 0 and outcomes.skipped > 0:
    sys.exit(77)
sys.exit(int(code))
