"""The ordering widget in Chromium: lines moved by keyboard alone (Move up / Move down, focus
staying on the moved line's button), a wrong order and a right one graded by the real sandbox,
the committed order restored on reload, at desktop and phone width, light and dark, with no
axe violation in the widget."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from app.lessons.loader import load_catalog
from tests.clock import time_passes
from tests.e2e.conftest import SCREENSHOTS
from tests.live import LiveServer

SLUG = "what-is-grad"


def the_step() -> tuple[int, list[str]]:
    from app.config.paths import BUNDLED_LESSONS

    lesson = load_catalog(BUNDLED_LESSONS).get(SLUG)
    assert lesson is not None
    number, step = next((n, s) for n, s in enumerate(lesson.steps, 1) if s.ordering)
    assert step.ordering is not None
    return number, step.ordering.texts


def shown_order(widget: Locator) -> list[str]:
    return widget.locator(".ordering-line").evaluate_all(
        "(lines) => lines.map((l) => l.dataset.line)"
    )


def put_in_order(page: Page, widget: Locator, wanted: list[str]) -> None:
    """Move each wanted line up to its place with the keyboard only."""
    for place, text in enumerate(wanted):
        at = shown_order(widget).index(text)
        if at == place:
            continue
        widget.get_by_role("button", name=f"Move up: {text}").focus()
        for _ in range(at - place):
            page.keyboard.press("Enter")
        # Focus stays on the moved line's button, so pressing again moves it further.
        expect(widget.get_by_role("button", name=f"Move up: {text}")).to_be_focused()
    assert shown_order(widget) == wanted


def test_an_ordering_by_keyboard_graded_by_running_and_restored(
    page: Page, bundled_server: LiveServer
) -> None:
    number, lines = the_step()
    square, backward, show = lines
    for width, height, scheme in ((1280, 900, "light"), (390, 844, "dark")):
        page.context.clear_cookies()  # a new learner each time
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme=scheme)
        page.goto(f"{bundled_server.url}/lessons/{SLUG}/deep-dive")
        step = page.locator(f".step[data-step='{number}']")
        widget = step.locator(".ordering")
        step.scroll_into_view_if_needed()
        # Before the commit: the lines, never the step's code nor its reveal.
        assert shown_order(widget) != lines and sorted(shown_order(widget)) == sorted(lines)
        expect(step.locator("section.runnable")).to_have_count(0)
        expect(step.locator(".step-reveal")).to_be_hidden()
        violations = [
            (v["id"], str(node["target"]))
            for v in Axe().run(page).response["violations"]
            for node in v["nodes"]
            if "ordering" in str(node["target"])
        ]
        assert not violations, violations
        # Nothing scrolls sideways at phone width but the code itself.
        overflow = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        assert overflow is False

        put_in_order(page, widget, [square, show, backward])
        step.get_by_label("Certain").check()
        widget.get_by_role("button", name="Check my order").click()
        verdict = widget.locator(".prediction-feedback")
        expect(verdict).to_contain_text("Not quite", timeout=60_000)
        expect(verdict).to_contain_text("None")  # what that order printed
        widget.get_by_role("button", name="Try again").click()
        put_in_order(page, widget, lines)
        widget.get_by_role("button", name="Check my order").click()
        expect(verdict).to_contain_text("Right", timeout=60_000)
        expect(step.locator(".step-reveal")).to_be_visible()
        expect(widget.get_by_role("button", name=f"Move up: {square}")).to_be_hidden()
        step.screenshot(path=str(SCREENSHOTS / f"ordering-{width}-{scheme}.png"))

        page.reload()  # the committed order comes back, graded
        widget = page.locator(f".step[data-step='{number}'] .ordering")
        expect(widget.locator(".prediction-feedback")).to_contain_text("Right")
        assert shown_order(widget) == lines


def test_a_missed_ordering_is_put_in_order_again_in_review(
    page: Page, bundled_server: LiveServer
) -> None:
    number, lines = the_step()
    square, backward, show = lines
    page.context.clear_cookies()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{bundled_server.url}/lessons/{SLUG}/deep-dive")
    widget = page.locator(f".step[data-step='{number}'] .ordering")
    widget.scroll_into_view_if_needed()
    put_in_order(page, widget, [backward, square, show])
    page.locator(f".step[data-step='{number}']").get_by_label("Guess").check()
    widget.get_by_role("button", name="Check my order").click()
    expect(widget.locator(".prediction-feedback")).to_contain_text("NameError", timeout=60_000)
    time_passes(bundled_server.database_url)

    page.goto(f"{bundled_server.url}/review")
    item = page.locator(".review-item[data-widget='ordering']")
    expect(item).to_be_visible()
    expect(item.locator("fieldset.confidence")).to_have_count(1)
    put_in_order(page, item, lines)
    item.get_by_label("Fairly sure").check()
    item.get_by_role("button", name="Check my order").click()
    expect(item.locator(".review-feedback")).to_contain_text("Right", timeout=60_000)
    expect(item.locator(".review-when")).to_contain_text("comes back")
    expect(item.get_by_role("button", name="Finish")).to_be_focused()
