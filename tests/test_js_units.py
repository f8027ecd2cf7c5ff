"""The unit tests of the browser code that need no browser (tests/js, `node --test`), run by pytest
so that the one test command runs them too. Those that need a document use happy-dom from
frontend/node_modules (`cd frontend && npm ci`, as .ci/run does first). Skipped only where Node.js
is not installed, or where frontend/ has no node_modules at all."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.js_fixtures import FIXTURES, fixtures_text

JS_TESTS = Path(__file__).parent / "js"
NODE_MODULES = Path(__file__).parent.parent / "frontend" / "node_modules"


def test_the_node_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js on PATH (the JavaScript unit tests need it)")
    if not NODE_MODULES.is_dir():
        pytest.skip(
            "no frontend/node_modules: run `cd frontend && npm ci` (the DOM tests need happy-dom)"
        )
    # Installed, but without the DOM package: the lock file and the install disagree.
    assert (NODE_MODULES / "happy-dom").is_dir(), (
        "frontend/node_modules lacks happy-dom: run `npm ci` again"
    )
    assert sorted(JS_TESTS.glob("*.test.mjs")), f"no *.test.mjs in {JS_TESTS}"
    done = subprocess.run(
        [node, "--test", str(JS_TESTS)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"node --test failed:\n{done.stdout}\n{done.stderr}"


def test_the_widget_fixtures_are_what_the_macros_render() -> None:
    # tests/js mounts the widgets on this markup: a changed macro must reach them.
    assert FIXTURES.read_text(encoding="utf-8") == fixtures_text(), (
        "tests/js/fixtures/widgets.json is stale: run `PYTHONPATH=$PWD python3 tests/js_fixtures.py`"
    )
