"""Code to write, in Chromium: a line written into a blank on the deep dive, a custom backward
graded by gradcheck, a bug named and then fixed; at 1280 and 390 px, light and dark."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import SCREENSHOTS, goto_ready, wait_ready
from tests.e2e.test_backward_walk import no_serious_violations
from tests.live import LiveServer

WRONG_BACKWARD = "x, w = ctx.saved_tensors\nreturn 2 * w * x, x * x"
BACKWARD = "x, w = ctx.saved_tensors\nreturn grad_output * 2 * w * x, grad_output * x * x"


def read_ahead(page: Page, url: str) -> None:
    goto_ready(page, url)
    with page.expect_navigation():
        page.get_by_role("button", name="Read ahead: show every answer").first.click()
    wait_ready(page)


def write(page: Page, exercise: str, code: str) -> None:
    """Type `code` over what the exercise's (first) blank holds."""
    page.locator(f"{exercise} .exercise-blank [aria-label^='Exercise']").first.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def test_a_line_is_written_checked_and_fixed(page: Page, bundled_server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1280, "height": 900})
    read_ahead(page, f"{bundled_server.url}/lessons/what-is-grad/deep-dive")
    exercise = page.locator("#exercise-1")
    # On the deep dive it follows the step it concerns.
    expect(page.locator("#step-2 + .exercise")).to_have_id("exercise-1")
    expect(exercise.locator(".fixer-goal")).to_contain_text("w.grad: 20.0")
    write(page, "#exercise-1", "loss.backward")
    exercise.get_by_role("button", name="Check my code").click()
    verdict = exercise.locator(".exercise-verdict")
    expect(verdict).to_contain_text("Not yet.")
    expect(verdict).to_contain_text("should print")
    expect(exercise.locator(".exercise-hints")).to_contain_text("Hint 1: About the gradient")
    write(page, "#exercise-1", "torch.autograd.backward(loss)")
    page.keyboard.press("Control+Enter")  # runs the check from the editor
    expect(verdict).to_contain_text("Right!")
    expect(exercise).to_have_attribute("data-solved", "true")
    exercise.scroll_into_view_if_needed()
    shot("exercise-line-light", full_page=False)
    page.emulate_media(color_scheme="dark")
    shot("exercise-line-dark", full_page=False)
    no_serious_violations(page, "#exercise-1")


def test_a_backward_is_graded_by_gradcheck(page: Page, bundled_server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1280, "height": 900})
    read_ahead(page, f"{bundled_server.url}/lessons/custom-autograd-function/deep-dive")
    exercise = page.locator("#exercise-1")
    expect(exercise).to_contain_text("Write the backward")
    write(page, "#exercise-1", WRONG_BACKWARD)
    exercise.get_by_role("button", name="Check my code").click()
    verdict = exercise.locator(".exercise-verdict")
    expect(verdict).to_contain_text("gradcheck: failed for input 0 (torch.randn(3))")
    expect(verdict).to_contain_text("analytical")
    exercise.scroll_into_view_if_needed()
    shot("exercise-backward-failed-light", full_page=False)
    write(page, "#exercise-1", BACKWARD)
    exercise.get_by_role("button", name="Check my code").click()
    expect(verdict).to_contain_text("Right!")


def test_on_a_phone_the_bug_is_named_then_fixed(browser, bundled_server: LiveServer) -> None:  # type: ignore[no-untyped-def]
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        phone = context.new_page()
        read_ahead(phone, f"{bundled_server.url}/lessons/grad-deep-dive/deep-dive")
        exercise = phone.locator("#exercise-1")
        expect(exercise.locator(".exercise-buggy")).to_contain_text(
            "total.backward(retain_graph=True)"
        )
        expect(exercise.locator(".exercise-work")).to_be_hidden()  # no blank before the diagnosis
        exercise.get_by_role("button", name="No path", exact=False).click()
        expect(exercise.locator(".exercise-reveal")).to_contain_text("First say how sure you are")
        exercise.get_by_label("Certain").check()
        exercise.get_by_role("button", name="No path", exact=False).click()
        reveal = exercise.locator(".exercise-reveal")
        expect(reveal).to_contain_text("Not that one.")
        expect(reveal.get_by_role("link", name="Graphs used twice", exact=False)).to_be_visible()
        write(phone, "#exercise-1", "loss.backward()")
        exercise.get_by_role("button", name="Check my code").click()
        expect(exercise.locator(".exercise-verdict")).to_contain_text("Right!")
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the capstone is {width}px wide at 390px"
        exercise.scroll_into_view_if_needed()
        phone.screenshot(path=str(SCREENSHOTS / f"exercise-phone-{scheme}.png"))
        read_ahead(phone, f"{bundled_server.url}/lessons/what-is-grad/pitfall-fixer")
        write(phone, "#exercise-1", "loss.backward()")
        phone.locator("#exercise-1").get_by_role("button", name="Check my code").click()
        expect(phone.locator("#exercise-1 .exercise-verdict")).to_contain_text("Right!")
        phone.screenshot(path=str(SCREENSHOTS / f"exercise-phone-fixer-{scheme}.png"))
        context.close()


def test_code_to_write_opens_with_the_commit_that_opens_it(
    page: Page, bundled_server: LiveServer
) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{bundled_server.url}/lessons/what-is-grad/deep-dive")
    note = page.locator(".exercise-waiting[data-after-step='2']")
    expect(note).to_be_visible()
    expect(page.locator("#exercise-1")).to_have_count(0)  # not sent before the commit
    for number in (1, 2):
        step = page.locator(f".step[data-step='{number}']")
        step.get_by_label("Fairly sure").check()
        step.locator(".choice").first.click()
        expect(
            step.locator(".prediction .verdict, .prediction [data-result]").first
        ).to_be_visible()
    # No reload: the card takes the note's place after step 2, and it works.
    expect(page.locator("#step-2 + .exercise")).to_have_id("exercise-1")
    expect(note).to_have_count(0)
    write(page, "#exercise-1", "torch.autograd.backward(loss)")
    page.locator("#exercise-1").get_by_role("button", name="Check my code").click()
    expect(page.locator("#exercise-1 .exercise-verdict")).to_contain_text("Right!")
