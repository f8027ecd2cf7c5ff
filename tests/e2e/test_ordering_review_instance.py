"""An ordering asked in review on a variant instance, in Chromium: the review item draws the
instance's lines (never in its author's order) and output, the learner puts them in order by
keyboard, and the real sandbox runs that order in the instance's code: right, with the
instance's own explanation, and the item answered. At 1280 px light and at 390 px dark, axe
clean, never wider than the screen (screenshots: ordering-review-*.png)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from app.lessons.format import Step
from app.lessons.loader import load_catalog
from app.lessons.variants import instances
from tests.clock import time_passes
from tests.e2e.conftest import SCREENSHOTS, serious_violations
from tests.e2e.test_ordering_widget import put_in_order, shown_order
from tests.live import LiveServer

SLUG = "gradients-accumulate"


def the_step() -> tuple[int, Step]:
    from app.config.paths import BUNDLED_LESSONS

    lesson = load_catalog(BUNDLED_LESSONS).get(SLUG)
    assert lesson is not None
    return next((n, s) for n, s in enumerate(lesson.steps, 1) if s.ordering and s.variants)


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_an_ordering_asked_on_an_instance_in_review_is_answerable(
    browser: Browser, bundled_server: LiveServer, width: int, scheme: str
) -> None:
    number, step = the_step()
    assert step.ordering is not None
    first, second, summed, clear, third, fresh = step.ordering.texts
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.goto(f"{bundled_server.url}/lessons/{SLUG}/deep-dive")
    widget = page.locator(f".step[data-step='{number}'] .ordering")
    widget.scroll_into_view_if_needed()
    put_in_order(page, widget, [first, clear, second, summed, third, fresh])  # clears None
    page.locator(f".step[data-step='{number}']").get_by_label("Certain").check()
    widget.get_by_role("button", name="Check my order").click()
    expect(widget.locator(".prediction-feedback")).to_contain_text("Not quite", timeout=60_000)
    time_passes(bundled_server.database_url)

    page.goto(f"{bundled_server.url}/review")
    item = page.locator(".review-item[data-widget='ordering']")
    expect(item).to_be_visible()
    form = item.get_attribute("data-form")
    assert form is not None  # asked on an instance, not the lesson page's code
    instance = instances(step)[int(form)]
    lines = list(instance.lines)
    assert shown_order(item) != lines and sorted(shown_order(item)) == sorted(lines)
    expect(item.locator(".ordering-output")).to_have_text(instance.output.rstrip("\n"))
    found = serious_violations(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    item.screenshot(path=str(SCREENSHOTS / f"ordering-review-{width}-{scheme}-asked.png"))
    put_in_order(page, item, lines)
    item.get_by_label("Fairly sure").check()
    item.get_by_role("button", name="Check my order").click()
    feedback = item.locator(".review-feedback")
    expect(feedback).to_contain_text("Right", timeout=60_000)
    expect(feedback).to_contain_text("comes back")
    # The instance's own order and explanation, not the step's.
    expect(feedback).to_contain_text("One of the orders that work")
    expect(feedback).not_to_contain_text("The lesson's order")
    expect(feedback.locator(".feedback-explanation")).to_contain_text("The first read is")
    expect(item.get_by_role("button", name="Finish")).to_be_visible()
    found += serious_violations(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    item.screenshot(path=str(SCREENSHOTS / f"ordering-review-{width}-{scheme}-answered.png"))
    context.close()
    assert not found, found
