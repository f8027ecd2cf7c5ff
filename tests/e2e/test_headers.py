"""Every kind of page, in Chromium, under the strict Content-Security-Policy: no violation."""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from app.learning.pages.registry import MODES
from tests.clock import time_passes
from tests.e2e.conftest import wait_ready
from tests.live import LiveServer

pytestmark = pytest.mark.browser

# Runs before any page script: every violation the browser reports is kept on the window.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`
  );
});
"""


def _watch(page: Page) -> list[str]:
    console: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            console.append(message.text)

    page.on("console", on_console)
    page.add_init_script(RECORD_VIOLATIONS)
    return console


def _violations(page: Page, console: list[str]) -> list[str]:
    recorded: list[str] = page.evaluate("window.__cspViolations")
    return recorded + console


def test_every_page_kind_runs_under_the_policy_without_a_violation(
    page: Page, server: LiveServer
) -> None:
    console = _watch(page)
    seen: dict[str, list[str]] = {}

    def visit(path: str, status: int = 200) -> None:
        response = page.goto(server.url + path)
        assert response is not None and response.status == status, path
        assert "script-src 'self'" in response.headers["content-security-policy"], path
        wait_ready(page)
        seen[path] = _violations(page, console)
        console.clear()

    # A lesson with a run (output, inspector, graph) and a committed prediction.
    visit("/lessons/first-steps")
    step = page.locator(".step[data-step='1']")
    step.get_by_label("Certain").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(step.locator(".prediction-feedback")).to_contain_text("Not quite.")
    step.get_by_role("button", name="Run").click()
    expect(step.locator(".graph svg[role='img']")).to_be_visible()
    seen["/lessons/first-steps (after a run)"] = _violations(page, console)

    visit("/")
    for mode in MODES:
        visit(f"/lessons/first-steps/{mode.slug}")
    visit("/playground")
    page.get_by_role("button", name="Run").first.click()
    expect(page.locator(".run-stdout").first).not_to_be_empty()
    seen["/playground (after a run)"] = _violations(page, console)
    time_passes(server.database_url)  # the missed prediction is due: a review item on the page
    visit("/review")
    expect(page.locator(".review-item").first).to_be_visible()
    visit("/progress")  # calibration bars drawn from the prediction above
    bar = page.locator(".calibration-row[data-level='certain'] .calibration-fill")
    expect(bar).to_have_attribute("width", "0")
    visit("/no-such-page", status=404)

    violations = {path: found for path, found in seen.items() if found}
    assert not violations, "\n".join(f"{path}: {found}" for path, found in violations.items())


def test_the_violation_detector_sees_an_inline_style(page: Page, server: LiveServer) -> None:
    """The test above could not fail if the detector were deaf: make one violation on purpose."""
    console = _watch(page)
    page.goto(server.url)
    page.evaluate(
        "document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">inline</p>')"
    )
    page.wait_for_timeout(300)
    assert any("style-src" in found for found in _violations(page, console))
