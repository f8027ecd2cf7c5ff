"""A lesson's own code is answered from its first real run, without a fork; any other code runs
fresh; a reload forgets; and the answer is what a fresh run of another zygote gives, for every
piece of code of the bundled lessons."""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config.paths import BUNDLED_LESSONS
from app.learning.running.known_runs import KnownRuns, known_codes
from app.learning.running.runs import Runs, Who
from app.lessons.loader import Catalog, load_catalog
from app.lessons.variants import instances
from app.main import create_app
from app.sandbox.result import RunResult
from app.web.metrics import Metrics
from tests.conftest import (
    FIXTURE_LESSONS,
    SandboxHarness,
    SandboxOnItsLoop,
    in_own_thread,
    make_settings,
)

ROOM = "192.0.2.1"  # every learner here is at one client address


class Counted(SandboxOnItsLoop):
    """The session's real sandbox, counting the runs it is asked for (each one a fork)."""

    def __init__(self, harness: SandboxHarness) -> None:
        super().__init__(harness)
        self.asked: list[str] = []

    async def run(self, code: str, who: Who | None = None) -> RunResult:
        self.asked.append(code)
        return await super().run(code, who)


@pytest.fixture(scope="module")
def fixture_catalog() -> Catalog:
    return load_catalog(FIXTURE_LESSONS)


def first_step_code(catalog: Catalog) -> str:
    lesson = catalog.get("first-steps")
    assert lesson is not None
    return next(step.snippet.code for step in lesson.steps if step.snippet)


def counts(metrics: Metrics) -> dict[str, float | None]:
    value = metrics.registry.get_sample_value
    return {
        "hit": value("gradlab_known_runs_total", {"outcome": "hit"}),
        "miss": value("gradlab_known_runs_total", {"outcome": "miss"}),
        "entries": value("gradlab_known_runs_kept", {"unit": "entries"}),
    }


def test_the_known_code_is_every_checked_snippet_and_instance_as_the_page_sends_it() -> None:
    catalog = load_catalog(BUNDLED_LESSONS)
    known = known_codes(catalog)
    lesson = catalog.lessons[0]
    for _, snippet in lesson.snippets():
        assert snippet.code in known
        assert snippet.code.removesuffix("\n") in known  # the editor drops the final newline
        assert snippet.code + "# mine\n" not in known
    step = next(step for one in catalog.lessons for step in one.steps if instances(step))
    assert all(instance.code in known for instance in instances(step))
    assert "import torch\n" not in known


def test_known_code_forks_once_and_is_then_answered_without_the_sandbox(
    default_sandbox: SandboxHarness, fixture_catalog: Catalog
) -> None:
    sandbox, metrics = Counted(default_sandbox), Metrics()
    runs = Runs(sandbox, KnownRuns(fixture_catalog, metrics))
    code = first_step_code(fixture_catalog)
    edited = code + "# a learner's edit\n"

    async def scenario() -> list[RunResult]:
        first = await runs.run(code, Who(ROOM, "ada"))
        # Many learners at once, while nothing is kept yet for the page's form of the code.
        page_form = code.removesuffix("\n")
        together = await asyncio.gather(
            *(runs.run(page_form, Who(ROOM, f"l{n}")) for n in range(6))
        )
        return [
            first,
            await runs.run(code, Who(ROOM, "bob")),
            *together,
            await runs.run(edited, Who(ROOM, "ada")),
        ]

    first, again, *together, mine = in_own_thread(asyncio.run, scenario())
    assert first.status == "ok" and again is first
    assert len({id(result) for result in together}) == 1  # one run answered all six
    assert sandbox.asked == [code, code.removesuffix("\n"), edited]
    assert counts(metrics) == {"hit": 6.0, "miss": 2.0, "entries": 2.0}
    assert mine.status == "ok"
    in_own_thread(
        asyncio.run, runs.run(edited, Who(ROOM, "ada"))
    )  # edited code always runs: never kept
    assert sandbox.asked[-1] == edited and counts(metrics)["entries"] == 2.0


def test_a_run_the_sandbox_cut_short_is_not_kept(
    default_sandbox: SandboxHarness, tmp_path: Path
) -> None:
    folder = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS, folder)
    lesson = folder / "first-steps.yaml"
    flood = "        while True:\n            print('x' * 100000)\n"
    text = lesson.read_text()
    lesson.write_text(text.replace("        import torch\n", flood + "        import torch\n", 1))
    catalog = load_catalog(folder)
    sandbox = Counted(default_sandbox)
    runs = Runs(sandbox, KnownRuns(catalog))
    code = first_step_code(catalog)
    assert code.startswith("while True")
    first = in_own_thread(asyncio.run, runs.run(code, Who(ROOM, "ada")))
    assert first.status == "killed"  # the output flood: the sandbox's limit, not the code's answer
    assert runs.known is not None and runs.known.entries == 0
    assert in_own_thread(asyncio.run, runs.run(code, Who(ROOM, "ada"))).status == "killed"
    assert len(sandbox.asked) == 2


def test_what_is_kept_is_bounded(default_sandbox: SandboxHarness, fixture_catalog: Catalog) -> None:
    codes = sorted(known_codes(fixture_catalog))[:4]
    known = KnownRuns(fixture_catalog, entries=2)
    runs = Runs(Counted(default_sandbox), known)

    async def all_of_them() -> None:
        for code in codes:
            await runs.run(code, Who(ROOM, "ada"))

    in_own_thread(asyncio.run, all_of_them())
    assert known.entries <= 2
    tiny = KnownRuns(fixture_catalog, size=10)  # no answer fits in ten bytes
    in_own_thread(asyncio.run, Runs(Counted(default_sandbox), tiny).run(codes[0], Who(ROOM, "ada")))
    assert tiny.entries == 0 and tiny.size == 0


@pytest.fixture
def reloading(default_sandbox: SandboxHarness, tmp_path: Path) -> Iterator[TestClient]:
    folder = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS, folder)
    settings = make_settings(sandbox_enabled=True, lessons_dir=folder)
    app = create_app(settings, reload=True, started=SandboxOnItsLoop(default_sandbox))
    with TestClient(app) as client:
        yield client


def test_a_lesson_reload_forgets_the_answers_of_the_old_code(reloading: TestClient) -> None:
    app = reloading.app
    code = first_step_code(app.state.catalog)  # type: ignore[attr-defined]
    for _ in range(2):
        assert reloading.post("/api/run", json={"code": code}).json()["status"] == "ok"
    assert app.state.learning.runs.known.entries == 1  # type: ignore[attr-defined]
    folder = app.state.settings.lessons_dir[0]  # type: ignore[attr-defined]
    lesson = Path(folder) / "first-steps.yaml"
    lesson.write_text(lesson.read_text().replace("[2.0, 3.0]", "[4.0, 3.0]", 1))
    in_own_thread(asyncio.run, app.state.live_catalog.reload())  # type: ignore[attr-defined]
    known = app.state.learning.runs.known  # type: ignore[attr-defined]
    assert known.entries == 0
    assert not known.knows(code)
    assert known.knows(code.replace("[2.0, 3.0]", "[4.0, 3.0]"))


def comparable(result: RunResult) -> str:
    """The answer as the API sends it, but for how long the run took."""
    return json.dumps(result.model_dump(mode="json", exclude={"duration_ms"}), sort_keys=True)


@pytest.mark.slow
def test_every_bundled_code_is_answered_as_a_fresh_run_of_another_zygote_gives(
    default_sandbox: SandboxHarness,
) -> None:
    """Every snippet and variant instance of the bundled lessons: its kept answer (filled on the
    session's sandbox) is byte for byte what a fresh run gives on a second sandbox, a zygote of
    its own (as another server process, or this one's after a restart, would run it)."""
    catalog = load_catalog(BUNDLED_LESSONS)
    known = KnownRuns(catalog)
    runs = Runs(SandboxOnItsLoop(default_sandbox), known)
    codes = sorted(code for code in known_codes(catalog) if code.endswith("\n"))
    other = SandboxHarness(make_settings(sandbox_enabled=True))
    try:

        async def kept_answers() -> list[RunResult]:
            found: list[RunResult] = []
            for start in range(0, len(codes), 8):
                batch = codes[start : start + 8]
                found += await asyncio.gather(*(runs.run(code, None) for code in batch))
            return found

        kept = in_own_thread(asyncio.run, kept_answers())
        fresh: list[RunResult] = []
        for start in range(0, len(codes), 8):
            fresh += other.run_many(codes[start : start + 8])
    finally:
        other.close()
    assert len(codes) > 800
    assert all(result.status in ("ok", "error") for result in kept)
    assert known.entries == len(codes)
    differ = [
        code
        for code, a, b in zip(codes, kept, fresh, strict=True)
        if comparable(a) != comparable(b)
    ]
    assert not differ, f"{len(differ)} answers differ, the first:\n{differ[0]}"


def test_metrics_show_the_hits_misses_and_size_from_the_start() -> None:
    token = secrets.token_urlsafe(16)
    with TestClient(create_app(make_settings(metrics_token=token))) as client:
        scraped = client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
    assert scraped.status_code == 200
    for series in (
        'gradlab_known_runs_total{outcome="hit"} 0.0',
        'gradlab_known_runs_total{outcome="miss"} 0.0',
        'gradlab_known_runs_kept{unit="entries"} 0.0',
        'gradlab_known_runs_kept{unit="bytes"} 0.0',
    ):
        assert series in scraped.text
