"""docs/coverage.md is what scripts/coverage_table.py writes from the modules themselves."""

import pathlib
import subprocess
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts/coverage_table.py"


def test_coverage_table_is_current() -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                         text=True, check=False)
    if run.returncode == 77:
        pytest.skip(run.stdout.strip())
    assert run.returncode == 0, run.stderr
