"""The HTTP contract, checked from outside: Schemathesis against a live server, over every
operation /openapi.json lists (a new endpoint is covered without being named here).

Each generated request must get an answer the document promises: no server error, a documented
status, a documented content type, a body that fits the documented schema, documented headers.
Lesson slugs and question numbers come from a dictionary most of the time, so that requests
reach the learning core instead of stopping at an unknown lesson."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.learning.pages.registry import MODES
from app.lessons.loader import load_catalog
from app.modes.drills import lesson_drills
from app.modes.flashcards import lesson_flashcards
from tests.conftest import FIXTURE_LESSONS
from tests.live import LiveServer

CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "missing_required_header",
]
EXAMPLES_PER_OPERATION = 25


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(FIXTURE_LESSONS, queue_size="64")
    yield server
    server.stop()


def _config(folder: Path) -> Path:
    """Real identifiers for the path parameters, used four times in five."""
    lessons = load_catalog(FIXTURE_LESSONS).lessons
    known = {
        "lessons": [lesson.slug for lesson in lessons],
        "numbers": [1, 2, 3],
        "drills": [drill.id for lesson in lessons for drill in lesson_drills(lesson)],
        "cards": [card.id for lesson in lessons for card in lesson_flashcards(lesson)],
        "modes": [mode.slug for mode in MODES],
    }
    bound = {"slug": "lessons", "number": "numbers", "level": "numbers"}
    bound |= {"drill_id": "drills", "card_id": "cards"}
    lines = [
        f"[dictionaries.{name}]\nvalues = {json.dumps(values)}" for name, values in known.items()
    ]
    lines.append("[parameters]")
    for parameter, name in bound.items():
        lines.append(f'"path.{parameter}" = {{ dictionary = "{name}", probability = 0.8 }}')
    lines.append('"body.mode" = { dictionary = "modes", probability = 0.8 }')
    config = folder / "schemathesis.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


@pytest.mark.slow
def test_every_operation_keeps_the_documented_contract(live: LiveServer, tmp_path: Path) -> None:
    command = [
        *(sys.executable, "-m", "schemathesis.cli", "--no-color"),
        *("--config-file", str(_config(tmp_path))),
        *("run", f"{live.url}/openapi.json"),
        *("--checks", ",".join(CHECKS)),
        *("--max-examples", str(EXAMPLES_PER_OPERATION)),
        *("--phases", "examples,coverage,fuzzing"),
        *("--workers", "1", "--seed", "1"),
        *("--report", "ndjson", "--report-dir", str(tmp_path / "report")),
        "--generation-database=none",
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    print(run.stdout[-6000:])
    assert run.returncode == 0, run.stdout[-20_000:] + run.stderr[-4000:]
    document = httpx.get(f"{live.url}/openapi.json").json()
    operations = sum(len(methods) for methods in document["paths"].values())
    assert f"Tested: {operations}\n" in run.stdout, run.stdout[-3000:]
