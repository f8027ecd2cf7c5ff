"""Shared fixtures and markers.

Fixtures: in-process clients on the test lessons (`sqlite_client`; `client`, on SQLite and on
PostgreSQL) and on the real curriculum (`bundled`), one real sandbox per session (`sandbox`),
and a PostgreSQL server (`postgres`). Markers: every test under tests/e2e, and every test that
asks for a browser fixture, is marked `browser`, so `-m "not browser"` deselects them all."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config.paths import BUNDLED_LESSONS
from app.config.settings import Settings
from app.lessons.check import Runner
from app.main import create_app
from app.sandbox.fair import Who
from app.sandbox.result import RunResult
from app.sandbox.runner import SandboxHealth
from app.sandbox.service import Sandbox

T = TypeVar("T")

FIXTURE_LESSONS = Path(__file__).parent / "fixtures" / "lessons"
E2E = Path(__file__).parent / "e2e"
# pytest-playwright's fixtures: a test that takes one drives Chromium, wherever it lives.
BROWSER_FIXTURES = frozenset({"page", "context", "browser", "browser_type"})


# Every temporary file the tests make, and the apps, servers and sandboxes they start, goes under
# one folder per test run, removed when the session ends (a run made hundreds before). Made once
# per run: xdist's workers and a second import of this module (as `tests.conftest`) reuse it.
# Others may pass through it (PostgreSQL runs as its own user), not list it.
_MADE_HERE = "GRADLAB_TESTS_TEMP" not in os.environ
if _MADE_HERE:
    os.environ["GRADLAB_TESTS_TEMP"] = tempfile.mkdtemp(prefix="gradlab-tests-")
    os.chmod(os.environ["GRADLAB_TESTS_TEMP"], 0o711)  # noqa: S103 - traverse, not list
TEMP_ROOT = Path(os.environ["GRADLAB_TESTS_TEMP"])
tempfile.tempdir = str(TEMP_ROOT)
os.environ["TMPDIR"] = str(TEMP_ROOT)


def pytest_sessionfinish() -> None:
    if _MADE_HERE:
        shutil.rmtree(TEMP_ROOT, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every browser test `browser`: a `pytestmark` in a conftest.py marks nothing. Then
    run the files that hold a `slow` test first: the processes start on the long tests and end
    on short ones, instead of one process running a long test alone at the end of the run. Each
    file's tests go to one process (`--dist loadfile`, pyproject's addopts), so a module's
    fixture (a live server, a database) is set up once, not once in each process."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if item.path.is_relative_to(E2E) or fixtures & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: the order within stays


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll `predicate` until it holds or `timeout` passes (for effects that happen after a
    response, like the removal of a finished run's scratch directory)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


_migrated: list[Path] = []


def migrated_sqlite_url() -> str:
    """A fresh SQLite file whose schema is already the newest: a copy of one migrated once per
    session (migrating takes almost all of an app's start, and every test client starts one)."""
    import sqlite3

    from app.progress.database import make_engine, migrate

    if not _migrated:
        template = Path(tempfile.mkdtemp(prefix="gradlab-test-")) / "migrated.db"
        engine = make_engine(f"sqlite:///{template}")
        migrate(engine)
        engine.dispose()
        _migrated.append(template)
    database = Path(tempfile.mkdtemp(prefix="gradlab-test-")) / "progress.db"
    with sqlite3.connect(_migrated[0]) as source, sqlite3.connect(database) as copy:
        source.backup(copy)
    return f"sqlite:///{database}"


def make_settings(**overrides: Any) -> Settings:
    """Settings for a test app: the fixture lessons, a fresh (already migrated) SQLite file,
    no sandbox."""
    values: dict[str, Any] = {
        "lessons_dir": FIXTURE_LESSONS,
        "sandbox_enabled": False,
    }
    if "database_url" not in overrides:
        values["database_url"] = migrated_sqlite_url()
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """One PostgreSQL server for the session (skipped where PostgreSQL is not installed)."""
    from tests import postgres as pg

    if not pg.available():
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    server = pg.PostgresServer()
    yield server
    server.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    """Each progress test runs on SQLite and on a real PostgreSQL server."""
    if request.param == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix="gradlab-test-"))
        return f"sqlite:///{folder / 'progress.db'}"
    server = request.getfixturevalue("postgres")
    url: str = server.new_database()
    return url


@pytest.fixture
def sqlite_client() -> Iterator[TestClient]:
    """The test lessons on a fresh SQLite file, without a sandbox."""
    with TestClient(create_app(make_settings())) as test_client:
        yield test_client


@pytest.fixture(params=["sqlite", "postgresql"])
def migrated_url(request: pytest.FixtureRequest) -> str:
    """Like `database_url`, with the newest schema already in place (copied, not migrated)."""
    if request.param == "sqlite":
        return migrated_sqlite_url()
    server = request.getfixturevalue("postgres")
    url: str = server.new_database(migrated=True)
    return url


@pytest.fixture
def client(migrated_url: str) -> Iterator[TestClient]:
    """A learner's client on the test lessons, once on SQLite and once on PostgreSQL (see
    `migrated_url`), without a sandbox."""
    with TestClient(create_app(make_settings(database_url=migrated_url))) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def bundled() -> Iterator[TestClient]:
    """The real curriculum, in-process, on SQLite, without a sandbox."""
    settings = make_settings(lessons_dir=BUNDLED_LESSONS)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def curriculum_with_sandbox(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """For a module fixture parametrised ["sqlite", "postgresql"]: the real curriculum and the
    session's real sandbox (`app_on_shared_sandbox`), on a fresh migrated database of that
    engine."""
    if request.param == "sqlite":
        url = migrated_sqlite_url()
    else:
        url = request.getfixturevalue("postgres").new_database(migrated=True)
    settings = make_settings(sandbox_enabled=True, lessons_dir=BUNDLED_LESSONS, database_url=url)
    with TestClient(app_on_shared_sandbox(request, settings)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def sandbox_client(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The whole app with the session's real sandbox behind it (`app_on_shared_sandbox`)."""
    settings = make_settings(sandbox_enabled=True)
    with TestClient(app_on_shared_sandbox(request, settings)) as test_client:
        yield test_client


def in_own_thread(function: Callable[..., T], *args: Any, timeout: float = 120) -> T:
    """`function(*args)` in a thread of its own, its result or its exception here: the browser
    tests leave an event loop running in the tests' thread, where `asyncio.run` refuses."""
    outcome: list[T] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(function(*args))
        except BaseException as exc:  # noqa: BLE001 - raised again below, in the test
            failures.append(exc)

    runner = threading.Thread(target=run)
    runner.start()
    runner.join(timeout)
    assert not runner.is_alive(), f"{function.__name__} did not finish in {timeout} s"
    if failures:
        raise failures[0]
    return outcome[0]


class SandboxHarness:
    """A real Sandbox on its own event loop thread, driven synchronously by tests."""

    def __init__(self, settings: Settings) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.sandbox = Sandbox(settings)
        self.call(self.sandbox.start())

    def call(self, coroutine: Any, timeout: float = 120) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(timeout)

    def run(self, code: str, doctor: bool = False) -> RunResult:
        result: RunResult = self.call(self.sandbox.run(code, doctor=doctor))
        return result

    def run_many(self, codes: list[str]) -> list[RunResult]:
        async def gather() -> list[RunResult]:
            return list(await asyncio.gather(*(self.sandbox.run(code) for code in codes)))

        results: list[RunResult] = self.call(gather())
        return results

    def on_loop(self, function: Callable[[], T]) -> T:
        """`function()` called on the sandbox's loop (its state is that loop's), its result."""

        async def call() -> T:
            return function()

        result: T = self.call(call(), timeout=10)
        return result

    def runner(self) -> Runner:
        """A runner for code on another event loop (`gradlab check` runs its own): each run
        goes to this sandbox on its own loop."""

        async def run(code: str) -> RunResult:
            future = asyncio.run_coroutine_threadsafe(self.sandbox.run(code), self.loop)
            return await asyncio.wrap_future(future)

        return run

    def close(self) -> None:
        self.call(self.sandbox.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHarness]:
    harness = SandboxHarness(
        make_settings(sandbox_enabled=True, wall_time_s=2, cpu_time_s=2, memory_mib=512)
    )
    yield harness
    harness.close()


@pytest.fixture(scope="session")
def default_sandbox() -> Iterator[SandboxHarness]:
    """A real sandbox with the default settings (as `gradlab check` and an app start one), one
    per session, on its own loop: the tests of `gradlab check` pass its `runner()` as the
    command's `started`, and the apps that only need a real sandbox behind them run on it
    (`app_on_shared_sandbox`), instead of each starting one (a torch import of seconds)."""
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    yield harness
    harness.close()


@pytest.fixture(scope="session")
def check_sandbox(default_sandbox: SandboxHarness) -> SandboxHarness:
    """The sandbox for the tests that run `gradlab check` or `--update`: the default one."""
    return default_sandbox


class SandboxOnItsLoop(Sandbox):
    """What an app sees of a harness's sandbox, started on the harness's loop: every call the
    app makes (`run`, `health`, `longest_line`) goes to that sandbox on that loop, the only one
    its zygote's socket and its line belong to. The app never starts nor stops it
    (`create_app(..., started=)`): the harness does."""

    def __init__(self, harness: SandboxHarness) -> None:
        # Sandbox.__init__ is not called: no line, zygote or phase log of its own, so a call not
        # forwarded here fails loudly instead of running on a second, unstarted sandbox.
        self.harness = harness
        self.settings = harness.sandbox.settings
        self.workers = harness.sandbox.workers

    async def start(self) -> None:
        raise AssertionError("an app never starts a sandbox it was given")

    async def stop(self) -> None:
        raise AssertionError("an app never stops a sandbox it was given")

    async def run(self, code: str, who: Who | None = None, doctor: bool = False) -> RunResult:
        sandbox = self.harness.sandbox
        running = sandbox.run(code, who, doctor)
        future = asyncio.run_coroutine_threadsafe(running, self.harness.loop)
        return await asyncio.wrap_future(future)  # a cancelled request cancels the run there

    def health(self) -> SandboxHealth:
        health: SandboxHealth = self.harness.on_loop(self.harness.sandbox.health)
        return health

    def longest_line(self) -> int:
        longest: int = self.harness.on_loop(self.harness.sandbox.longest_line)
        return longest


# The settings an app on the shared sandbox may choose for itself: any other (a limit, the
# workers, the queue, the snippet's size) is the sandbox's, and must be the shared one's.
APP_ONLY_SETTINGS = frozenset({"lessons_dir", "database_url"})


def app_on_shared_sandbox(request: pytest.FixtureRequest, settings: Settings) -> FastAPI:
    """The app of `settings` on the session's started sandbox (`default_sandbox`), which it
    neither starts nor stops. For tests that need a real sandbox behind the app, not tests of
    the sandbox's life, limits or configuration: settings that differ from the shared
    sandbox's in anything but `APP_ONLY_SETTINGS` fail here (such a test starts its own)."""
    harness: SandboxHarness = request.getfixturevalue("default_sandbox")
    mine = settings.model_dump(exclude=set(APP_ONLY_SETTINGS))
    shared = harness.sandbox.settings.model_dump(exclude=set(APP_ONLY_SETTINGS))
    differ = sorted(name for name in mine if mine[name] != shared[name])
    assert not differ, f"settings {differ} differ from the shared sandbox's: start an own one"
    return create_app(settings, started=SandboxOnItsLoop(harness))
