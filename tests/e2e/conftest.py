"""A real gradlab server on a free loopback port, and headless Chromium driven by Playwright."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.config.paths import BUNDLED_LESSONS, PROJECT_ROOT
from tests.conftest import FIXTURE_LESSONS
from tests.live import LiveServer

# Debian's headless shell (`chromium-headless-shell`, what .ci/run installs): the same Blink
# without the full browser around it, so the browser tests take about a quarter less CPU than
# under `chromium --headless`. The full browser where it is all there is; GRADLAB_CHROMIUM
# names another.
CHROMIUM = os.environ.get("GRADLAB_CHROMIUM") or next(
    (
        path
        for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
        if Path(path).exists()
    ),
    "/usr/bin/chromium-headless-shell",
)
SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"


READY = "html[data-ready='true']"


def wait_ready(page: Any) -> None:
    """Wait until the page's scripts have finished their start-up work: their fetches answered
    (or failed, the error shown) and their widgets and editors mounted. static/js/ready.js marks
    the document once that is done; a page with no start-up work is marked at once."""
    page.wait_for_selector(READY, state="attached")


def goto_ready(page: Any, url: str) -> Any:
    """Open `url` and wait until the page is ready (wait_ready); the navigation's response."""
    response = page.goto(url)
    wait_ready(page)
    return response


def serious_violations(page: Any) -> list[tuple[str, list[Any]]]:
    """axe's serious and critical violations on the page: each rule's id and its first three
    elements."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        (v["id"], [n["target"] for n in v["nodes"]][:3])
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if not Path(CHROMIUM).exists():
        skip = pytest.mark.skip(
            reason=f"no Chromium at {CHROMIUM} (apt-get install chromium-headless-shell)"
        )
        for item in items:
            if "e2e" in str(item.fspath):
                item.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    return {
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def server() -> Iterator[LiveServer]:
    """The test lessons (stable text to assert on)."""
    live = LiveServer(FIXTURE_LESSONS)
    yield live
    live.stop()


@pytest.fixture(scope="session")
def bundled_server() -> Iterator[LiveServer]:
    """The real curriculum."""
    live = LiveServer(BUNDLED_LESSONS)
    yield live
    live.stop()


@pytest.fixture
def shot(page) -> Any:  # type: ignore[no-untyped-def]
    """Save a screenshot to test-artifacts/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str, full_page: bool = True) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


@pytest.fixture
def page(page):  # type: ignore[no-untyped-def]
    """Every page fails the test on a JavaScript error."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, f"JavaScript errors: {errors}"
