"""The learning modes, the review queue and /progress, in headless Chromium against a real
server (with its real sandbox)."""

from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from app.config.paths import BUNDLED_LESSONS
from app.learning.pages.registry import MODES
from app.lessons.loader import load_catalog
from tests.clock import time_passes
from tests.e2e.conftest import SCREENSHOTS, goto_ready, wait_ready
from tests.live import LiveServer


def answer_the_build_up(page: Page, url: str) -> None:
    """Commit the fixture lesson's one prediction as this page's learner: its pitfalls, drills
    and cards open (docs/quizzes.md)."""
    page.goto(f"{url}/lessons/first-steps/quick-read")  # the learner's cookie
    body = {"choice": "tensor([4., 6.])", "confidence": "fairly_sure"}
    assert page.request.post(f"{url}/api/lessons/first-steps/steps/1/prediction", data=body).ok


def replace_code(page: Page, scope: str, code: str) -> None:
    editor = page.locator(f"{scope} [aria-label='Code editor']")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def no_serious_violations(page: Page) -> None:
    results = Axe().run(page)
    serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not serious, [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in serious
    ]


WHAT_IS_GRAD = load_catalog(BUNDLED_LESSONS).get("what-is-grad")
assert WHAT_IS_GRAD is not None
STEPS = len(WHAT_IS_GRAD.steps)
# A wrong answer to the first myth, whichever way the lesson's myth goes.
WRONG_MYTH_1 = "No" if WHAT_IS_GRAD.myths[0].answer == "yes" else "Yes"


def test_step_by_step_unlocks_the_next_step_after_a_prediction(
    page: Page, bundled_server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{bundled_server.url}/lessons/what-is-grad/step-by-step")
    first, second = page.locator("#step-1"), page.locator("#step-2")
    next_step = page.get_by_role("button", name="Next step")
    expect(first).to_be_visible()
    expect(second).to_be_hidden()
    expect(page.locator(".sbs-label")).to_have_text(f"Step 1 of {STEPS}")
    expect(next_step).to_be_disabled()
    expect(page.locator(".sbs-lock")).to_be_visible()
    first.get_by_label("Certain").check()
    answer = WHAT_IS_GRAD.steps[0].prediction
    assert answer is not None
    first.get_by_role("button", name=answer.answer, exact=True).click()
    expect(first.locator(".prediction-feedback")).to_contain_text("Right.")
    expect(next_step).to_be_enabled()
    expect(page.locator(".sbs-lock")).to_be_hidden()
    shot("modes-step-by-step-unlocked")
    next_step.click()
    expect(second).to_be_visible()
    expect(first).to_be_hidden()
    expect(page.locator(".sbs-label")).to_have_text(f"Step 2 of {STEPS}")
    expect(page.locator("#step-2 .step-heading")).to_be_focused()
    expect(next_step).to_be_disabled()
    page.get_by_role("button", name="Previous step").click()
    expect(first).to_be_visible()
    expect(next_step).to_be_enabled()
    # Coming back resumes at the first step not yet predicted.
    page.goto(f"{bundled_server.url}/lessons/what-is-grad/step-by-step")
    expect(second).to_be_visible()
    expect(page.locator(".sbs-label")).to_have_text(f"Step 2 of {STEPS}")
    page.goto(f"{bundled_server.url}/lessons/what-is-grad")
    page.get_by_text("Other ways to study this lesson").click()
    expect(page.get_by_role("link", name=re.compile("Step by step · last used"))).to_be_visible()


def test_a_pitfall_is_fixed_until_the_check_passes(page: Page, server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    answer_the_build_up(page, server.url)
    page.goto(f"{server.url}/lessons/first-steps/pitfall-fixer")
    fixer = page.locator("#pitfall-1")
    verdict = fixer.locator(".fixer-verdict")
    fixer.get_by_role("button", name="Check my fix").click()
    expect(verdict).to_contain_text("Not yet.")
    expect(verdict).to_contain_text("RuntimeError")
    fixer.get_by_role("button", name="Hint 1 of 3").click()
    expect(fixer.locator(".fixer-hints")).to_contain_text("As written it stops with RuntimeError")
    # The learner's code is not the lesson's: the hint finds its line where the learner has it.
    replace_code(
        page,
        "#pitfall-1",
        "# my notes\nimport torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "(x * 2).backward()\n",
    )
    fixer.get_by_role("button", name="Hint 2 of 3").click()
    expect(fixer.locator(".fixer-hints")).to_contain_text("Look at this line")
    expect(fixer.locator(".fixer-hint-where")).to_have_text("In your code that is line 4.")
    fixer.get_by_role("button", name="Hint 3 of 3").click()
    expect(fixer.locator(".fixer-hints")).to_contain_text("backward() needs a scalar.")
    replace_code(
        page,
        "#pitfall-1",
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "(x * 2).sum().backward()\n",
    )
    fixer.get_by_role("button", name="Check my fix").click()
    expect(verdict).to_contain_text("Not yet.")
    expect(verdict).to_contain_text("should print")  # it runs now, but prints nothing
    page.keyboard.insert_text("print(x.grad)\n")
    fixer.get_by_role("button", name="Check my fix").click()
    expect(verdict).to_contain_text("Fixed!")
    expect(fixer).to_have_attribute("data-fixed", "true")
    shot("modes-pitfall-fixed")
    page.reload()
    expect(page.locator("#pitfall-1")).to_contain_text("You fixed this one before")


def test_a_drill_answered_wrong_then_right(page: Page, server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    answer_the_build_up(page, server.url)
    page.goto(f"{server.url}/lessons/first-steps/predict-the-gradient")
    group = page.locator(".drill-group").first
    run = group.get_by_role("button", name="Run")
    expect(run).to_be_disabled()  # answer first, then run
    drill = group.locator(".drill[data-drill='step-1.x']")
    value = drill.get_by_label("After this code runs, what is x.grad?")
    feedback = drill.locator(".value-feedback")
    value.fill("[4, 5]")
    drill.get_by_role("button", name="Check").click()
    expect(feedback).to_contain_text("Not yet.")
    expect(feedback).to_contain_text("1 of 2 numbers are right")
    expect(feedback.get_by_role("listitem")).to_have_text(
        [re.compile("right"), re.compile("wrong")]
    )
    expect(feedback).to_contain_text("review queue")
    expect(value).to_have_attribute("aria-invalid", "true")
    shot("modes-drill-wrong")
    value.fill("tensor([4., 6.])")
    value.press("Enter")
    expect(feedback).to_contain_text("Right.")
    expect(feedback).to_contain_text("x.grad = [4., 6.]")
    expect(page.locator(".drill-score")).to_have_text("1 of 1 right")
    expect(run).to_be_enabled()
    run.click()
    expect(group.locator(".run-stdout")).to_have_text("tensor([4., 6.])\n")
    expect(group.locator(".inspector table")).to_contain_text("[4., 6.]")
    shot("modes-drill-right")


def test_a_missed_item_appears_in_review_and_leaves_when_answered(
    page: Page, server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/lessons/first-steps/myth-busters")
    myth = page.locator(".quiz-myth[data-myth='1']")
    myth.get_by_role("button", name="Yes", exact=True).click()
    expect(myth.locator(".quiz-feedback")).to_contain_text("Not quite. The answer is No.")
    page.get_by_role("button", name="See your score").click()
    result = page.locator(".quiz-result")
    expect(result.locator(".quiz-score")).to_have_text("You got 0 of 1 right.")
    expect(result).to_contain_text("It is None until a backward pass reaches it.")
    shot("modes-myth-score")

    page.goto(f"{server.url}/review")  # not at once: a miss waits out a learning step
    expect(page.get_by_role("heading", name="Nothing to review right now")).to_be_visible()
    expect(page.locator(".review-later")).to_contain_text("comes back in 10 minutes")
    time_passes(server.database_url)
    page.goto(server.url)
    page.get_by_role("link", name="1 item due").click()
    expect(page).to_have_url(f"{server.url}/review")
    wait_ready(page)  # the page's script listens to the answers before one is clicked
    item = page.locator(".review-item").first
    expect(item).to_contain_text("Is .grad filled when the tensor is created?")
    expect(page.locator(".review-count")).to_have_text("1 item in this sitting")
    shot("modes-review-due")
    no = item.get_by_role("button", name="No", exact=True)
    no.click()  # how sure comes first, as on a lesson page
    feedback = item.locator(".review-feedback")
    expect(feedback).to_contain_text("First say how sure you are")
    expect(item.get_by_label("Guess")).to_be_focused()
    item.get_by_label("Certain").check()
    no.click()
    expect(feedback).to_contain_text("Right.")
    # The fixture's myth has no other form to ask: answered right, it leaves review.
    expect(feedback).to_contain_text("it leaves your review")
    page.get_by_role("button", name="Finish").click()
    expect(page.get_by_role("heading", name="All done for now")).to_be_visible()
    page.reload()
    expect(page.locator(".review-count")).to_have_text("0 items in this sitting")
    expect(page.get_by_role("heading", name="Nothing to review right now")).to_be_visible()
    page.goto(server.url)
    expect(page.get_by_role("link", name=re.compile("items? due"))).to_have_count(0)


def test_a_review_item_asks_how_sure_and_its_code_runs_once_answered(
    page: Page, server: LiveServer
) -> None:
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(".step[data-step='1']")
    step.get_by_label("Certain").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(step.locator(".prediction-feedback")).to_contain_text("Not quite.")
    time_passes(server.database_url)
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{server.url}/review")
        item = page.locator(".review-item[data-kind='prediction']")
        run = item.get_by_role("button", name="Run")
        expect(run).to_be_disabled()  # its output would answer the question
        expect(item.locator(".run-lock-note")).to_have_text("Answer first, then run this code.")
        item.screenshot(path=str(SCREENSHOTS / f"review-item-{width}.png"))
    item.get_by_label("Fairly sure").check()
    item.get_by_role("button", name="tensor([4., 6.])", exact=True).click()
    expect(item.locator(".review-feedback")).to_contain_text("Right.")
    expect(run).to_be_enabled()
    run.click()
    expect(item.locator(".run-stdout")).to_have_text("tensor([4., 6.])\n")
    expect(item.locator(".inspector table")).to_contain_text("[4., 6.]")


def test_flashcards_are_turned_over_and_graded_with_the_keyboard(
    page: Page, server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    answer_the_build_up(page, server.url)
    page.goto(f"{server.url}/lessons/first-steps/flashcards")
    card = page.locator(".flashcard[data-card='takeaway-1']")
    expect(card.locator(".cloze")).to_contain_text("Backward fills")
    expect(card.locator(".flashcard-back")).to_be_empty()  # the answer is not in the page
    card.get_by_role("button", name="Show answer").focus()
    page.keyboard.press("Enter")
    expect(card.locator(".flashcard-back")).to_contain_text("Backward fills .grad of leaves.")
    expect(card.locator(".flashcard-back")).to_be_focused()
    shot("modes-flashcard-back")
    page.keyboard.press("Tab")
    expect(card.get_by_role("button", name=re.compile("^Again"))).to_be_focused()
    page.keyboard.press("Enter")
    second = page.locator(".flashcard[data-card='insight-1']")
    expect(second).to_be_visible()
    expect(page.locator(".deck-label")).to_have_text("Card 2 of 2")
    second.get_by_role("button", name="Show answer").click()
    second.get_by_role("button", name=re.compile("^Good")).click()
    expect(page.locator(".deck-summary")).to_contain_text("1 again, 1 good")
    expect(page.locator(".deck-summary")).to_contain_text(
        "1 card will come back in your review queue"
    )


def test_the_progress_page_draws_calibration(page: Page, server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(".step[data-step='1']")
    step.get_by_label("Certain").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(step.locator(".prediction-feedback")).to_contain_text("Not quite.")
    page.goto(f"{server.url}/progress")
    certain = page.locator(".calibration-row[data-level='certain']")
    expect(certain).to_contain_text("0% right (0 of 1)")
    expect(page.locator(".calibration-row[data-level='guess']")).to_contain_text("no answers yet")
    expect(page.locator(".queue-stats")).to_contain_text("0 due now")
    expect(page.locator(".queue-stats")).to_contain_text(
        "1 scheduled for later (next in 10 minutes)"
    )
    expect(certain).to_contain_text("24 more answers needed")
    shot("modes-progress")
    miss = page.locator(".certain-misses a")
    expect(miss).to_have_text("First steps with .grad, step 1: Squares")
    miss.click()
    expect(page.locator(".step[data-step='1'] .prediction-feedback")).to_contain_text("Not quite.")


def test_the_cheat_sheet_prints_without_navigation_or_buttons(
    page: Page, bundled_server: LiveServer
) -> None:
    page.goto(f"{bundled_server.url}/lessons/debugging-gradients/cheat-sheet")
    # The whole sheet (a fresh learner's states only the steps they have answered).
    page.get_by_role("button", name="Read ahead: show every answer").click()
    expect(page.get_by_role("button", name="Print this page")).to_be_visible()
    page.emulate_media(media="print")
    for hidden in (".site-header", ".mode-switcher", ".pager", ".sheet-print", ".site-footer"):
        expect(page.locator(hidden).first).to_be_hidden()
    expect(page.get_by_role("heading", name="The API, by example")).to_be_visible()
    # Code wraps instead of being cut: nothing is wider than the page.
    overflowing = page.evaluate(
        "[...document.querySelectorAll('.sheet code, .sheet pre')]"
        ".filter(n => n.scrollWidth > n.clientWidth + 1).length"
    )
    assert overflowing == 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.pdf(path=str(SCREENSHOTS / "modes-cheat-sheet.pdf"), format="A4")


def test_mode_pages_fit_a_phone(browser, bundled_server: LiveServer) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    paths = ["/review", "/progress"] + [
        f"/lessons/{slug}/{mode.slug}"
        for slug in ("what-is-grad", "debugging-gradients", "reading-leaf-gradients")
        for mode in MODES
    ]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for path in paths:
        goto_ready(phone, bundled_server.url + path)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width}px wide at 390px"
        if path.startswith("/lessons/what-is-grad/"):
            phone.screenshot(path=str(SCREENSHOTS / f"modes-phone-{path.split('/')[-1]}.png"))
    context.close()


def test_an_answered_myth_and_the_review_it_leaves_have_no_serious_accessibility_violations(
    page: Page, bundled_server: LiveServer
) -> None:
    """Every mode page, review and progress, at both widths in both schemes, are axe-checked by
    tests/e2e/test_accessibility_matrix.py; here, a myth's feedback on its page and the review
    item it leaves."""
    page.goto(f"{bundled_server.url}/lessons/what-is-grad/myth-busters")
    myth = page.locator(".quiz-myth[data-myth='1']")
    myth.get_by_role("button", name=WRONG_MYTH_1, exact=True).click()
    expect(page.locator(".quiz-feedback").first).not_to_be_empty()
    no_serious_violations(page)
    time_passes(bundled_server.database_url)
    page.goto(f"{bundled_server.url}/review")
    expect(page.locator(".review-item").first).to_be_visible()
    no_serious_violations(page)


def test_dark_mode_pages_look_right(page: Page, bundled_server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.emulate_media(color_scheme="dark")
    for mode in ("step-by-step", "flashcards", "cheat-sheet", "pitfall-fixer"):
        goto_ready(page, f"{bundled_server.url}/lessons/what-is-grad/{mode}")
        shot(f"modes-dark-{mode}", full_page=False)
    current = page.locator(".mode-switcher a[aria-current='page']")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(15, 17, 23)"
    expect(current).to_have_text("Pitfall fixer")
