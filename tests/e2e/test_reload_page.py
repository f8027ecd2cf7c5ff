"""`gradlab serve --reload` in a real browser, under a strict CSP: edit a lesson file and the
open page shows the change; break it and the page shows the error while the catalog serves."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Route, expect

from app.processes import child_pids
from tests.conftest import FIXTURE_LESSONS
from tests.live import LiveServer

pytestmark = pytest.mark.browser

# A strict policy for scripts: from the site only, no inline script, requests to the site only.
# (Styles are the security headers' business, not this script's.)
STRICT_CSP = "script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'"


@pytest.fixture
def lessons(tmp_path: Path) -> Path:
    for path in FIXTURE_LESSONS.glob("*.yaml"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


@pytest.fixture
def reload_server(lessons: Path) -> Iterator[LiveServer]:
    live = LiveServer(lessons, serve_args=("--reload",))
    yield live
    live.stop()


def _strict_csp(route: Route) -> None:
    try:
        response = route.fetch()
    except PlaywrightError:  # the server stopped at the end of the test, mid-poll
        route.abort()
        return
    route.fulfill(
        response=response,
        headers={**response.headers, "content-security-policy": STRICT_CSP},
    )


def test_the_open_page_follows_the_file(
    page: Page, reload_server: LiveServer, lessons: Path, shot
) -> None:  # type: ignore[no-untyped-def]
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.route(f"{reload_server.url}/**", _strict_csp)
    sandbox_processes = set(child_pids(reload_server.process.pid))
    assert sandbox_processes, "the server started no sandbox"
    lesson = lessons / "first-steps.yaml"
    page.goto(f"{reload_server.url}/lessons/first-steps/deep-dive")
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_have_text("First steps with .grad")

    # The author edits the file: the open page refreshes itself.
    lesson.write_text(lesson.read_text().replace("First steps with .grad", "First steps, edited"))
    expect(heading).to_have_text("First steps, edited", timeout=20_000)

    # The author breaks it: the page shows the file, the field and the problem.
    lesson.write_text(lesson.read_text().replace("level: foundation", "level: wizard", 1))
    expect(heading).to_have_text("This lesson does not load", timeout=20_000)
    error = page.locator(".lesson-error")
    expect(error).to_contain_text(str(lesson))
    expect(error).to_contain_text("level")
    expect(error).to_contain_text("Input should be")
    shot("reload-broken-lesson")

    # The catalog still serves the other lesson and lists the broken one with its error.
    catalog = page.context.new_page()
    catalog.goto(reload_server.url)
    expect(catalog.get_by_role("link", name="Second steps")).to_be_visible()
    expect(catalog.locator(".broken-lessons")).to_contain_text("first-steps")
    expect(catalog.locator(".broken-lessons .lesson-error")).to_contain_text("level")
    catalog.close()

    # Fixed again, the lesson is back by itself.
    lesson.write_text(lesson.read_text().replace("level: wizard", "level: foundation", 1))
    expect(heading).to_have_text("First steps, edited", timeout=20_000)
    assert violations == []
    # All along, the same server and the same sandbox zygote: nothing restarted.
    assert reload_server.process.poll() is None
    assert sandbox_processes <= set(child_pids(reload_server.process.pid))
