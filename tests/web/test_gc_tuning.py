"""`gradlab serve` freezes what start-up made, so that a full collection walks only what requests
make (see app/web/gc_tuning.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from app.config.paths import PROJECT_ROOT

PROGRAM = """
import gc, json
from app.main import create_app
from app.web.gc_tuning import YOUNG_THRESHOLD, settle_for_serving
from tests.conftest import make_settings
app = create_app(make_settings())
gc.collect()
before = len(gc.get_objects())
settle_for_serving()
print(json.dumps({"before": before, "after": len(gc.get_objects()),
                  "frozen": gc.get_freeze_count(), "young": gc.get_threshold()[0],
                  "expected_young": YOUNG_THRESHOLD}))
"""


def test_start_up_objects_are_frozen_out_of_the_collectors_walk() -> None:
    # In a process of its own: freezing here would keep this test process's objects forever.
    shown = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    counts = json.loads(shown.stdout.strip().splitlines()[-1])
    assert counts["before"] > 50_000  # an app's worth of long-lived objects
    assert counts["after"] < counts["before"] // 10
    # Less a few objects made between the count and the freeze, which were garbage by then.
    assert counts["frozen"] >= counts["before"] - counts["after"] - 100
    assert counts["young"] == counts["expected_young"]
