"""A learner's path through gradlab, in headless Chromium against a real server."""

from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.e2e.conftest import goto_ready
from tests.live import LiveServer

STEP_1 = ".step[data-step='1']"


def replace_code(page: Page, runnable: str, code: str) -> None:
    """Select everything in the runnable's editor and type `code` over it."""
    editor = page.locator(f"{runnable} [aria-label='Code editor']")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def test_catalog_to_lesson(page: Page, server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.goto(server.url)
    expect(page.get_by_role("heading", name="The learning path")).to_be_visible()
    shot("catalog")
    page.get_by_role("link", name=re.compile("First steps with .grad")).click()
    expect(page).to_have_url(f"{server.url}/lessons/first-steps")
    expect(page.get_by_role("heading", level=1)).to_have_text("First steps with .grad")
    expect(page.locator(f"{STEP_1} [aria-label='Code editor']")).to_be_visible()


def test_run_edited_code_and_read_grads_in_the_inspector(
    page: Page, server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/lessons/second-steps/deep-dive")
    runnable = ".runnable[data-step='1']"
    replace_code(
        page,
        runnable,
        "import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "loss = (w * 5).sum()\nloss.backward()\nprint(w.grad)\n",
    )
    page.locator(runnable).get_by_role("button", name="Run").click()
    expect(page.locator(f"{runnable} .run-stdout")).to_have_text("tensor([5., 5.])\n")
    table = page.locator(f"{runnable} .inspector table")
    expect(table).to_contain_text(".grad inspector")
    row = table.locator("tr", has_text="w").first
    expect(row).to_contain_text("[5., 5.]")
    expect(table.locator("tr", has_text="loss")).to_contain_text("None")
    expect(page.locator(f"{runnable} .graph svg[role='img']")).to_be_visible()
    shot("run-inspector-graph")


def test_ctrl_enter_runs_the_code(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/second-steps/deep-dive")
    runnable = ".runnable[data-step='1']"
    replace_code(page, runnable, "print('from the keyboard')\n")
    page.keyboard.press("Control+Enter")
    expect(page.locator(f"{runnable} .run-stdout")).to_have_text("from the keyboard\n")


def test_a_prediction_is_committed_before_the_reveal(page: Page, server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(STEP_1)
    run = step.get_by_role("button", name="Run")
    expect(run).to_be_disabled()  # nothing is revealed before committing
    feedback = step.locator(".prediction-feedback")
    expect(feedback).to_be_empty()
    step.get_by_label("Certain").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(feedback).to_contain_text("tensor([4., 6.])")
    expect(feedback).to_contain_text("2x at [2, 3].")
    expect(step.get_by_role("button", name="None", exact=True)).to_be_disabled()
    expect(run).to_be_enabled()
    shot("prediction-revealed")
    concept = step.locator(".step-reveal")
    expect(concept).to_contain_text("Concept:")
    step.get_by_role("button", name="Try again").click()
    # Asked again, nothing of the reveal stays: not the verdict, not the step's own text.
    expect(feedback).to_be_empty()
    expect(concept).to_be_hidden()
    expect(concept).to_be_empty()
    step.get_by_role("button", name="tensor([4., 6.])").click()
    expect(concept).to_contain_text("Concept:")
    expect(feedback).to_contain_text(re.compile("right|correct", re.IGNORECASE))


def test_a_myth_is_graded_with_feedback_in_a_live_region(
    page: Page, server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    myth = page.locator(".myth[data-myth='1']")
    status = myth.get_by_role("status")
    expect(status).to_be_empty()
    myth.get_by_role("button", name="No", exact=True).click()
    expect(status).to_contain_text("It is None until a backward pass reaches it.")
    expect(status).to_contain_text("Reading it early gives None.")
    expect(page.locator(".myth-score")).to_contain_text("1")
    shot("myth-feedback")


def test_a_value_prediction_is_checked_element_by_element(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    page.locator(STEP_1).get_by_label("Guess").check()
    page.locator(STEP_1).get_by_role("button", name="None").click()  # the value comes with it
    form = page.locator("form.value-prediction[data-step='1']")
    form.locator("input[name='value']").fill("[4, 5]")
    form.get_by_role("button", name="Check").click()
    feedback = form.locator(".value-feedback")
    expect(feedback).to_contain_text("1 of 2 numbers are right")
    expect(feedback.get_by_role("listitem")).to_have_text(
        [re.compile("right"), re.compile("wrong")]
    )
    form.locator("input[name='value']").fill("tensor([4., 6.])")
    form.get_by_role("button", name="Check").click()
    expect(feedback).to_contain_text("2x.")


def test_everything_is_kept_after_a_reload(page: Page, server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(STEP_1)
    step.get_by_label("Fairly sure").check()
    step.get_by_role("button", name="tensor([4., 6.])").click()
    expect(step.locator(".prediction-feedback")).to_contain_text("2x at [2, 3].")
    page.locator(".myth[data-myth='1']").get_by_role("button", name="Yes", exact=True).click()
    expect(page.locator(".myth[data-myth='1'] .myth-feedback")).to_contain_text("It is None")
    replace_code(page, ".runnable[data-step='1']", "print('my own version')\n")
    page.wait_for_timeout(1500)  # edits are saved after a pause
    page.reload()
    expect(step.locator(".prediction-feedback")).to_contain_text("2x at [2, 3].")
    expect(page.locator(".myth[data-myth='1'] .myth-feedback")).to_contain_text("It is None")
    expect(page.locator(".runnable[data-step='1'] .cm-content")).to_contain_text("my own version")
    expect(page.locator(".lesson-progress")).to_contain_text("1/1 steps")
    shot("after-reload")
    page.goto(server.url)
    expect(page.locator(".lesson-card", has_text="First steps")).to_contain_text(
        "1/1 steps, 0/1 myths"
    )


def test_a_failing_snippet_highlights_its_line_and_explains(
    page: Page, server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/lessons/second-steps/deep-dive")
    runnable = ".runnable[data-step='1']"
    replace_code(
        page,
        runnable,
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\ny.backward()\n",
    )
    page.locator(runnable).get_by_role("button", name="Run").click()
    hint = page.locator(f"{runnable} .error-hint")
    expect(hint).to_contain_text("RuntimeError")
    expect(hint).to_contain_text("needs a single number")
    error_line = page.locator(f"{runnable} .cm-error-line")
    expect(error_line).to_have_count(1)
    expect(error_line).to_contain_text("y.backward()")
    shot("error-hint")


def test_a_timeout_is_explained_in_words(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/playground")
    replace_code(page, ".runnable", "while True:\n    pass\n")
    page.get_by_role("button", name="Run").click()
    expect(page.locator(".runnable .error-hint")).to_contain_text("longer than", timeout=15_000)


def test_the_playground_runs_code(page: Page, server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/playground")
    page.get_by_role("button", name="Run").click()
    expect(page.locator(".runnable .run-stdout")).to_have_text("tensor([2., 4., 6.])\n")
    shot("playground")


def test_lessons_are_navigable_with_the_keyboard(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    page.locator("h1").click()
    page.keyboard.press("Alt+Shift+ArrowRight")
    expect(page).to_have_url(f"{server.url}/lessons/second-steps")
    # The new page listens for the keys once its module scripts ran (before DOMContentLoaded).
    page.wait_for_load_state("domcontentloaded")
    page.keyboard.press("Alt+Shift+ArrowLeft")
    expect(page).to_have_url(f"{server.url}/lessons/first-steps")


def _no_serious_violations(page: Page) -> None:
    results = Axe().run(page)
    serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not serious, [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in serious
    ]


def test_pages_have_no_serious_accessibility_violations(
    page: Page, bundled_server: LiveServer
) -> None:
    lessons = (
        "/lessons/what-is-grad",
        "/lessons/what-is-grad/deep-dive",
        "/lessons/grad-deep-dive",
    )
    for path in ("/", *lessons, "/playground"):
        goto_ready(page, bundled_server.url + path)
        _no_serious_violations(page)
    page.emulate_media(color_scheme="dark")
    goto_ready(page, bundled_server.url + "/lessons/what-is-grad")
    _no_serious_violations(page)


def test_no_page_scrolls_sideways_on_a_phone(browser, bundled_server: LiveServer) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    slugs = [link.split("/")[-1] for link in [a for a in _lesson_links(phone, bundled_server)]]
    for path in ["/", "/playground", *(f"/lessons/{slug}" for slug in slugs)]:
        goto_ready(phone, bundled_server.url + path)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width}px wide at 390px"
    goto_ready(phone, bundled_server.url + "/lessons/what-is-grad")
    phone.screenshot(path="test-artifacts/screenshots/phone-lesson.png", full_page=False)
    context.close()


def _lesson_links(page: Page, live: LiveServer) -> list[str]:
    page.goto(live.url)
    links: list[str] = page.eval_on_selector_all(
        "a.lesson-link", "links => links.map(link => link.getAttribute('href'))"
    )
    assert len(links) >= 12
    return links


def test_dark_theme_follows_the_system(page: Page, bundled_server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.emulate_media(color_scheme="dark")
    page.goto(bundled_server.url + "/lessons/what-is-grad")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(15, 17, 23)"
    shot("lesson-dark", full_page=False)
