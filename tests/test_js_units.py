"""The unit tests of the browser code that need no browser (tests/js, `node --test`), run by pytest
so that the one test command runs them too. Skipped only where Node.js is not installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = Path(__file__).parent / "js"


def test_the_node_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js on PATH (the JavaScript unit tests need it)")
    assert sorted(JS_TESTS.glob("*.test.mjs")), f"no *.test.mjs in {JS_TESTS}"
    done = subprocess.run(
        [node, "--test", str(JS_TESTS)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"node --test failed:\n{done.stdout}\n{done.stderr}"
