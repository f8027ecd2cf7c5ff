"""The question widgets in Chromium: a committed prediction brings the step's run with its
reveal, a page loads only the modules it uses, and a myth is answered through the same module on
the deep dive and on myth busters."""

from __future__ import annotations

import re

from playwright.sync_api import Page, Request, expect

from tests.clock import time_passes
from tests.e2e.conftest import SCREENSHOTS, goto_ready, wait_ready
from tests.live import LiveServer

STEP_3 = ".step[data-step='3']"  # what-is-grad: a choice, no typed value, a backward pass
RUNNER = ("/js/lesson.js", "/js/runnable.js", "/js/run-output.js", "/js/graph.js", "codemirror")


def scripts_loaded(page: Page) -> list[str]:
    """Record the URL of every script the page asks for (call before goto)."""
    urls: list[str] = []

    def record(request: Request) -> None:
        if request.resource_type == "script":
            urls.append(request.url)

    page.on("request", record)
    return urls


def test_a_committed_prediction_brings_the_steps_run_with_its_reveal(
    page: Page, bundled_server: LiveServer
) -> None:
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            page.goto(f"{bundled_server.url}/lessons/what-is-grad/deep-dive")
            step = page.locator(STEP_3)
            if width == 1280 and scheme == "light":
                expect(step.locator(".run-output")).to_be_hidden()  # nothing runs before
                step.get_by_label("Fairly sure").check()
                step.get_by_role("button", name="About x.grad times 0.001", exact=True).click()
                expect(step.locator(".prediction-feedback")).to_contain_text("Right.")
            else:  # the reload restores the reveal; the learner runs it again
                expect(step.locator(".prediction-feedback")).to_contain_text("Right.")
                step.get_by_role("button", name="Run").click()
            # No click on Run: the output, the .grad inspector and the graph come with the reveal.
            expect(step.locator(".run-stdout")).to_have_text("tensor(0.5000)\n0.00050\n")
            expect(step.locator(".inspector table")).to_contain_text("x")
            expect(step.locator(".graph svg[role='img']")).to_be_visible()
            # The backward walk stays one click away.
            walk = step.locator(".backward-walk details.bw")
            expect(walk).to_have_count(1)
            expect(walk.locator(".bw-step")).to_be_hidden()
            step.locator(".backward-walk summary").click()
            expect(walk.locator(".bw-step")).to_be_visible()
            step.screenshot(path=str(SCREENSHOTS / f"widgets-step-revealed-{width}-{scheme}.png"))


def test_a_typed_value_still_to_answer_holds_the_run_back(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/step-by-step")
    step = page.locator(".step[data-step='1']")
    step.get_by_label("Guess").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(step.locator(".prediction-feedback")).to_contain_text("Not quite.")
    # The run's inspector would answer the step's typed value: it waits for that answer.
    form = step.locator("form.value-prediction")
    expect(form).to_be_visible()
    expect(step.locator(".run-output")).to_be_hidden()
    form.get_by_role("textbox").fill("[4, 6]")
    form.get_by_role("button", name="Check").click()
    expect(form.locator(".value-feedback")).to_contain_text("Right.")
    expect(step.locator(".run-stdout")).to_have_text("tensor([4., 6.])\n")
    expect(step.locator(".inspector table")).to_contain_text("[4., 6.]")


def test_the_cheat_sheet_loads_neither_the_lesson_nor_the_code_runner(
    page: Page, bundled_server: LiveServer
) -> None:
    scripts = scripts_loaded(page)
    page.goto(f"{bundled_server.url}/lessons/debugging-gradients/cheat-sheet")
    expect(page.get_by_role("button", name="Print this page")).to_be_visible()
    wait_ready(page)
    assert any(url.endswith("/js/pages/cheat-sheet.js") for url in scripts), scripts
    assert any(url.endswith("/js/lesson-nav.js") for url in scripts), scripts
    loaded = [url for url in scripts if any(part in url for part in (*RUNNER, "/widgets/"))]
    assert not loaded, loaded


def test_a_myth_is_answered_through_one_module_on_the_deep_dive_and_myth_busters(
    page: Page, server: LiveServer
) -> None:
    scripts = scripts_loaded(page)
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    myth = page.locator(".myth[data-myth='1']")
    myth.get_by_role("button", name="No", exact=True).click()
    verdict = myth.locator(".myth-feedback")
    expect(verdict).to_contain_text("Right.")
    expect(verdict).to_contain_text("It is None until a backward pass reaches it.")
    expect(verdict).to_have_class(re.compile(r"\bverdict\b"))
    expect(verdict).to_have_attribute("data-result", "right")
    deep_dive = list(scripts)
    assert any(url.endswith("/js/widgets/yes-no.js") for url in deep_dive), deep_dive

    scripts.clear()
    goto_ready(page, f"{server.url}/lessons/first-steps/myth-busters")
    quiz_myth = page.locator(".quiz-myth[data-myth='1']")
    quiz_myth.get_by_role("button", name="Yes", exact=True).click()
    quiz_verdict = quiz_myth.locator(".quiz-feedback")
    expect(quiz_verdict).to_contain_text("Not quite. The answer is No.")
    expect(quiz_verdict).to_have_class(re.compile(r"\bverdict\b"))
    expect(quiz_verdict).to_have_attribute("data-result", "wrong")
    assert any(url.endswith("/js/widgets/yes-no.js") for url in scripts), scripts
    assert not [url for url in scripts if any(part in url for part in RUNNER)], scripts
    # The two verdicts look alike: one rule set draws both.
    style = "e => ['borderLeftWidth', 'borderLeftColor', 'paddingLeft'].map(p => getComputedStyle(e)[p])"
    quiz_style = quiz_verdict.evaluate(style)
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    expect(verdict).to_have_attribute("data-result", "wrong")  # the newer answer, restored
    assert verdict.evaluate(style) == quiz_style
    assert quiz_style[0] == "4px"


def test_a_review_item_is_answered_through_its_widget(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(".step[data-step='1']")
    step.get_by_label("Certain").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(step.locator(".prediction-feedback")).to_contain_text("Not quite.")
    time_passes(server.database_url)
    page.goto(f"{server.url}/review")
    item = page.locator(".review-item").first
    item.get_by_label("Fairly sure").check()
    item.get_by_role("button", name="tensor([4., 6.])", exact=True).click()
    feedback = item.locator(".review-feedback")
    expect(feedback).to_contain_text("Right.")
    expect(feedback).to_contain_text("You answered")
    expect(feedback).to_contain_text("it leaves your review")  # the step has one version
    expect(feedback).to_have_class(re.compile(r"\bverdict\b"))
    expect(item.get_by_role("button", name="Finish")).to_be_focused()
    # An answered item can not be loaded again: its look is taken in every size and scheme here.
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            item.screenshot(path=str(SCREENSHOTS / f"widgets-review-item-{width}-{scheme}.png"))
