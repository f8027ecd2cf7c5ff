"""The readiness mark the browser tests wait for (static/js/ready.js): set once a page's
start-up fetches are answered and its widgets mounted, also when a fetch fails. What is read
after the mark is read once, without a retrying expect: the mark alone must cover it. A held
request (page.route) keeps a start-up fetch unanswered, so the mark is seen to wait for it."""

from __future__ import annotations

from playwright.sync_api import Page, Route, expect

from tests.e2e.conftest import READY, goto_ready, wait_ready
from tests.live import LiveServer

STEP_1 = ".step[data-step='1']"


def held_progress(page: Page, slug: str) -> list[Route]:
    """Hold the page's GET .../progress until the test lets it go: the list fills with it once
    the page has asked."""
    held: list[Route] = []
    page.route(f"**/api/lessons/{slug}/progress", lambda route: held.append(route))
    return held


def opened_waiting(page: Page, url: str, held: list[Route]) -> Route:
    """Open `url` (to its load event) and return its held progress request; the page is not
    ready while it is held."""
    page.goto(url)
    for _ in range(500):  # the request may reach the route handler just after the load event
        if held:
            break
        page.wait_for_timeout(20)
    assert held, f"{url} never asked for its progress"
    assert page.locator(READY).count() == 0, "marked ready before its progress came"
    return held.pop()


def test_the_mark_waits_for_the_saved_progress_and_the_editors(
    page: Page, server: LiveServer
) -> None:
    url = f"{server.url}/lessons/first-steps/deep-dive"
    goto_ready(page, url)
    step = page.locator(STEP_1)
    step.get_by_label("Certain").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(step.locator(".prediction-feedback")).to_contain_text("tensor([4., 6.])")

    held = held_progress(page, "first-steps")
    opened_waiting(page, url, held).continue_()
    wait_ready(page)
    # The committed prediction came back from the progress, after the page loaded.
    assert step.locator(".prediction").first.get_attribute("data-committed") == "true"
    assert "Your committed answer" in (step.locator(".prediction-feedback").text_content() or "")
    sections = page.locator("section.runnable").count()
    assert sections and page.locator("section.runnable.runnable--live").count() == sections


def test_a_page_whose_start_up_fetch_fails_is_ready_with_its_error_shown(
    page: Page, server: LiveServer
) -> None:
    held = held_progress(page, "first-steps")
    opened_waiting(page, f"{server.url}/lessons/first-steps/deep-dive", held).abort()
    wait_ready(page)
    assert "Could not reach the server" in (page.locator(".lesson-progress").text_content() or "")


def test_a_page_with_no_start_up_work_is_ready_at_once(page: Page, server: LiveServer) -> None:
    goto_ready(page, f"{server.url}/progress")
    assert page.locator(READY).count() == 1
