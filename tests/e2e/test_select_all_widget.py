"""The select-all widget in Chromium: statements ticked by keyboard, a wrong set and a right one
graded at once, the step's reveal shown with the verdict and hidden again by "Try again", the
code unlocked by the commit, the committed set restored on reload, and a miss answered again in
review on an instance; at desktop and phone width, light and dark, with no axe violation in the
widget and nothing wider than the screen."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from app.lessons.format import SelectAll
from app.lessons.loader import load_catalog
from app.lessons.variants import instances
from tests.clock import time_passes
from tests.e2e.conftest import SCREENSHOTS, wait_ready
from tests.live import LiveServer

SLUG = "debugging-gradients"


def the_step() -> tuple[int, SelectAll]:
    from app.config.paths import BUNDLED_LESSONS

    lesson = load_catalog(BUNDLED_LESSONS).get(SLUG)
    assert lesson is not None
    number, step = next((n, s) for n, s in enumerate(lesson.steps, 1) if s.select_all)
    assert step.select_all is not None
    return number, step.select_all


def tick(page: Page, widget: Locator, texts: list[str]) -> None:
    """Tick exactly `texts`, by keyboard: focus each box and press Space."""
    for box in widget.locator("input.select-all-box").all():
        wanted = box.get_attribute("value") in texts
        if box.is_checked() != wanted:
            box.focus()
            page.keyboard.press("Space")
        assert box.is_checked() == wanted


def test_a_select_all_by_keyboard_graded_and_restored(
    page: Page, bundled_server: LiveServer
) -> None:
    number, question = the_step()
    wrong = [question.right[0], next(o.text for o in question.options if not o.applies)]
    for width, height, scheme in ((1280, 900, "light"), (390, 844, "dark")):
        page.context.clear_cookies()  # a new learner each time
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme=scheme)
        page.goto(f"{bundled_server.url}/lessons/{SLUG}/deep-dive")
        step = page.locator(f".step[data-step='{number}']")
        widget = step.locator(".select-all")
        step.scroll_into_view_if_needed()
        expect(step.locator(".step-reveal")).to_be_hidden()
        expect(step.locator("section.runnable")).to_have_attribute("data-locked", "true")
        violations = [
            (v["id"], str(node["target"]))
            for v in Axe().run(page).response["violations"]
            for node in v["nodes"]
            if "select-all" in str(node["target"]) or f"step-{number}" in str(node["target"])
        ]
        assert not violations, violations
        assert page.evaluate("document.documentElement.scrollWidth > window.innerWidth") is False

        # Without a confidence nothing is sent.
        tick(page, widget, wrong)
        widget.get_by_role("button", name="Check").click()
        verdict = widget.locator(".prediction-feedback")
        expect(verdict).to_contain_text("say how sure")
        step.get_by_label("Fairly sure").check()
        widget.get_by_role("button", name="Check").click()
        expect(verdict).to_contain_text("Not quite")
        expect(verdict.locator(".select-all-verdict--wrong")).to_have_count(
            len(set(wrong) ^ set(question.right))
        )
        expect(step.locator(".step-reveal")).to_be_visible()
        widget.get_by_role("button", name="Try again").click()
        expect(step.locator(".step-reveal")).to_be_hidden()  # the reveal goes with the verdict
        tick(page, widget, question.right)
        step.get_by_label("Certain").check()
        widget.get_by_role("button", name="Check").click()
        expect(verdict).to_contain_text("Right")
        expect(step.locator("section.runnable")).not_to_have_attribute("data-locked", "true")
        step.screenshot(path=str(SCREENSHOTS / f"select-all-{width}-{scheme}.png"))

        page.reload()  # the committed set comes back, graded, its boxes locked
        wait_ready(page)
        widget = page.locator(f".step[data-step='{number}'] .select-all")
        expect(widget.locator(".prediction-feedback")).to_contain_text("Right")
        for box in widget.locator("input.select-all-box").all():
            assert box.is_checked() == (box.get_attribute("value") in question.right)
            expect(box).to_be_disabled()


def test_a_missed_select_all_comes_back_in_review_on_an_instance(
    page: Page, bundled_server: LiveServer
) -> None:
    from app.config.paths import BUNDLED_LESSONS

    number, question = the_step()
    page.context.clear_cookies()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{bundled_server.url}/lessons/{SLUG}/deep-dive")
    step = page.locator(f".step[data-step='{number}']")
    widget = step.locator(".select-all")
    widget.scroll_into_view_if_needed()
    step.get_by_label("Guess").check()
    widget.get_by_role("button", name="Check").click()  # nothing ticked: wrong here
    expect(widget.locator(".prediction-feedback")).to_contain_text("Not quite")
    time_passes(bundled_server.database_url)

    page.goto(f"{bundled_server.url}/review")
    item = page.locator(".review-item[data-widget='select-all']")
    expect(item).to_be_visible()
    form = item.get_attribute("data-form")
    assert form is not None
    lesson = load_catalog(BUNDLED_LESSONS).get(SLUG)
    assert lesson is not None
    instance = instances(lesson.steps[number - 1])[int(form)]
    tick(page, item, question.holding(instance.readings))
    item.get_by_label("Fairly sure").check()
    item.get_by_role("button", name="Check").click()
    expect(item.locator(".review-feedback")).to_contain_text("Right")
    item.screenshot(path=str(SCREENSHOTS / "select-all-review-390-light.png"))


def test_a_select_all_has_its_report_box_and_the_report_is_kept(
    page: Page, bundled_server: LiveServer
) -> None:
    """The report box goes under every step question, of its kind (`data-kind`): a select-all's
    report is about the select-all, and the server takes it."""
    number, _ = the_step()
    page.goto(f"{bundled_server.url}/lessons/{SLUG}/deep-dive")
    wait_ready(page)
    widget = page.locator(f".step[data-step='{number}'] .select-all")
    expect(widget).to_have_attribute("data-kind", "select_all")
    box = widget.locator(".report-problem")
    box.locator("summary").click()
    box.get_by_label("What is wrong with this question?").fill("Two statements say the same")
    with page.expect_response(lambda r: r.url.endswith(f"/api/lessons/{SLUG}/report")) as sent:
        box.get_by_role("button", name="Send the report").click()
    assert sent.value.status == 204
    assert sent.value.request.post_data_json["kind"] == "select_all"
    expect(box.get_by_role("status")).to_contain_text("Thank you")
