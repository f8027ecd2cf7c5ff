"""The readiness mark the browser tests wait for (static/js/ready.js): set once a page's
start-up fetches are answered and its widgets mounted, also when a fetch fails. What is read
after goto_ready is read once, without a retrying expect: the mark alone must cover it."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import READY, goto_ready
from tests.live import LiveServer

STEP_1 = ".step[data-step='1']"


def test_the_mark_waits_for_the_saved_progress_and_the_editors(
    page: Page, server: LiveServer
) -> None:
    url = f"{server.url}/lessons/first-steps/deep-dive"
    goto_ready(page, url)
    step = page.locator(STEP_1)
    step.get_by_label("Certain").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(step.locator(".prediction-feedback")).to_contain_text("tensor([4., 6.])")

    goto_ready(page, url)
    # The committed prediction came back from GET .../progress, after the page loaded.
    assert step.locator(".prediction").first.get_attribute("data-committed") == "true"
    assert "Your committed answer" in (step.locator(".prediction-feedback").text_content() or "")
    sections = page.locator("section.runnable").count()
    assert sections and page.locator("section.runnable.runnable--live").count() == sections


def test_a_page_whose_start_up_fetch_fails_is_ready_with_its_error_shown(
    page: Page, server: LiveServer
) -> None:
    page.route("**/api/lessons/first-steps/progress", lambda route: route.abort())
    goto_ready(page, f"{server.url}/lessons/first-steps/deep-dive")
    assert "Could not reach the server" in (page.locator(".lesson-progress").text_content() or "")


def test_a_page_with_no_start_up_work_is_ready_at_once(page: Page, server: LiveServer) -> None:
    goto_ready(page, f"{server.url}/progress")
    assert page.locator(READY).count() == 1
