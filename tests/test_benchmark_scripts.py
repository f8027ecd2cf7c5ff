"""The benchmark scripts the README tells people to run still start (they are not run in CI:
their figures need an idle machine)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.config import PROJECT_ROOT


@pytest.mark.parametrize("script", sorted((PROJECT_ROOT / "benchmarks").glob("[!_]*.py")), ids=str)
def test_the_benchmark_script_starts(script) -> None:  # type: ignore[no-untyped-def]
    answer = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120
    )
    assert answer.returncode == 0, answer.stderr
    assert "usage:" in answer.stdout
