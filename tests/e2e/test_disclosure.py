"""Progressive disclosure, read as the browser has it: a fresh learner opens every lesson in
every mode, and no page's HTML (text, attributes, hidden elements, closed <details>) carries
the answer of a prediction they have not committed, nor a myth's reveal, nor the typed-value
question of a step whose choice waits. The typed value is refused (409) before the commit and
checked after it; its form comes with the commit, without a reload."""

from __future__ import annotations

import html
import re

import pytest
from playwright.sync_api import Page, expect

from app.config.paths import BUNDLED_LESSONS
from app.learning.pages.registry import MODES
from app.lessons.format import Lesson, Step
from app.lessons.lint_text import mentions, plain
from app.lessons.loader import load_catalog
from tests.e2e.conftest import SCREENSHOTS, LiveServer

pytestmark = pytest.mark.browser

BUNDLED = load_catalog(BUNDLED_LESSONS)
# Below this length an answer (None, True, 6.0) is a common word that any page may hold.
MIN_ANSWER = 6

# The page's HTML without what asks the questions: the choices (each holds one answer among
# others) and the code (the question's input). Everything else stays: text, attributes,
# hidden elements, closed <details>.
PAGE_WITHOUT_CHOICES = """() => {
  const copy = document.documentElement.cloneNode(true);
  for (const node of copy.querySelectorAll(
    '.choices, .runnable-source, pre.highlight.code, .cm-editor, script, style')) node.remove();
  return copy.outerHTML;
}"""


def answers(lesson: Lesson) -> list[tuple[int, Step, list[str]]]:
    """(step, the texts that would answer it) for each prediction with a telling answer: its
    answer, and the printed output when that is the answer."""
    found = []
    for number, step in enumerate(lesson.steps, start=1):
        if step.prediction is None:
            continue
        answer = plain(step.prediction.answer)
        output = " ".join(step.snippet.output.split()) if step.snippet else ""
        texts = [answer] if len(answer) >= MIN_ANSWER else []
        if len(output) >= MIN_ANSWER and (answer in output or output in answer):
            texts.append(output)
        if texts:
            found.append((number, step, texts))
    return found


def offences(lesson: Lesson, where: str, page_html: str) -> list[str]:
    readable = plain(html.unescape(page_html))
    found = []
    for number, step, texts in answers(lesson):
        question = plain(step.prediction.question) if step.prediction else ""
        haystack = readable.replace(question, " ")  # a question may name several choices
        for text in texts:
            if mentions(haystack, text):
                found.append(f"{lesson.slug} {where}: step {number}'s answer {text!r}")
                break
    for number, step in enumerate(lesson.steps, start=1):
        # The value form (its root names its kind): its mere presence would say the code does
        # not raise (tests/routes reads the text).
        form = re.search(rf'data-kind="value" data-step="{number}"', page_html)
        if step.prediction is not None and step.value_prediction is not None and form:
            found.append(f"{lesson.slug} {where}: step {number}'s value question")
    for number, myth in enumerate(lesson.myths, start=1):
        # A myth's verdict travels with its reality and belief: neither is sent before it.
        for part in (myth.reality, myth.belief, myth.why_it_matters):
            if plain(part)[:60] in readable:
                found.append(f"{lesson.slug} {where}: myth {number}'s reveal")
                break
    return found


@pytest.mark.lesson_content
def test_a_fresh_learner_is_sent_no_uncommitted_answer_on_any_page(
    page: Page, bundled_server: LiveServer
) -> None:
    found: list[str] = []
    for lesson in BUNDLED.lessons:
        for mode in MODES:
            path = f"/lessons/{lesson.slug}/{mode.slug}"
            page.goto(bundled_server.url + path, wait_until="domcontentloaded")
            found += offences(lesson, mode.slug, page.evaluate(PAGE_WITHOUT_CHOICES))
    assert not found, "Pages that carry an answer before its commit:\n" + "\n".join(found)


def test_the_value_is_refused_before_the_commit_and_checked_after(
    page: Page, bundled_server: LiveServer
) -> None:
    page.goto(bundled_server.url + "/")  # the learner's cookie, shared by page.request
    for lesson in BUNDLED.lessons:
        numbered = [(n, s) for n, s in enumerate(lesson.steps, 1) if s.value_prediction]
        gated = [(n, s) for n, s in numbered if s.prediction is not None]
        if not gated:
            continue
        number, step = gated[0]
        api = f"{bundled_server.url}/api/lessons/{lesson.slug}/steps/{number}"
        refused = page.request.post(f"{api}/value", data={"value": "", "reveal": True})
        assert refused.status == 409, lesson.slug
        # Problem Details and nothing else: no expected value, explanation nor hint.
        assert set(refused.json()) == {"type", "title", "status", "detail"}, lesson.slug
        assert step.prediction is not None
        choice = {"choice": step.prediction.answer, "confidence": "guess"}
        assert page.request.post(f"{api}/prediction", data=choice).status == 200
        checked = page.request.post(f"{api}/value", data={"value": "", "reveal": True})
        assert checked.status == 200, lesson.slug
        # The answer is told now (it may be None: an instance whose gradient never arrives).
        assert "expected" in checked.json() and checked.json()["explanation_html"], lesson.slug


# The form as the page has it, without what differs between two drawings of the same form
# (generated ids, the state of a check): the server's and the script's must be the same.
FORM_MARKUP = """(form) => {
  const copy = form.cloneNode(true);
  for (const node of [copy, ...copy.querySelectorAll("*")]) {
    for (const name of ["id", "aria-describedby", "aria-invalid", "aria-busy", "data-correct",
      "data-committed", "data-result"]) node.removeAttribute(name);
  }
  copy.querySelector(".value-feedback").replaceChildren();
  return copy.outerHTML.replace(/\\s+/g, " ").replace(/>\\s+</g, "><");
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_value_question_appears_with_the_commit_without_a_reload(
    page: Page, server: LiveServer, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(".step[data-step='1']")
    form = step.locator("form.value-prediction")
    expect(step.locator(".choices")).to_be_visible()
    expect(form).to_have_count(0)  # not sent, not hidden: the page never had it
    assert "Type <code>x.grad</code>." not in page.content()
    step.screenshot(path=str(SCREENSHOTS / f"value-question-before-commit-{width}.png"))
    page.evaluate("window.stillTheSamePage = true")

    step.get_by_label("Fairly sure").check()
    step.get_by_role("button", name="None", exact=True).click()
    expect(form).to_be_visible()
    assert page.evaluate("window.stillTheSamePage") is True  # drawn without a reload
    field = step.get_by_role("textbox", name="Your turn: Type x.grad.")
    expect(field).to_be_enabled()
    drawn_here = form.evaluate(FORM_MARKUP)
    step.get_by_role("button", name="Type x.grad now").click()
    expect(field).to_be_focused()
    field.fill("[4, 6]")
    field.press("Enter")
    expect(form.locator(".value-feedback")).to_contain_text("Right.")
    expect(form.locator(".value-feedback")).to_contain_text("x.grad = ")
    step.screenshot(path=str(SCREENSHOTS / f"value-question-after-commit-{width}.png"))
    assert page.evaluate("window.stillTheSamePage") is True

    page.reload()  # a committed step: the server draws the same form
    expect(form).to_have_count(1)
    expect(form.locator(".value-feedback")).to_contain_text("Correct.")
    expect(form.locator(".value-feedback")).to_have_attribute("aria-live", "polite")  # restored
    assert form.evaluate(FORM_MARKUP) == drawn_here


def test_step_by_step_draws_the_value_question_after_the_commit(
    page: Page, server: LiveServer
) -> None:
    page.goto(f"{server.url}/lessons/first-steps/step-by-step")
    step = page.locator(".step[data-step='1']")
    expect(step.locator(".choices")).to_be_visible()
    expect(step.locator("form.value-prediction")).to_have_count(0)
    step.get_by_label("Guess").check()
    step.get_by_role("button", name="tensor([4., 6.])", exact=True).click()
    field = step.get_by_role("textbox", name="Your turn: Type x.grad.")
    field.fill("[4, 5]")
    step.get_by_role("button", name="Check").click()
    expect(step.locator(".value-feedback")).to_contain_text("1 of 2 numbers are right")
    expect(page.locator(".sbs-next")).to_be_enabled()


def test_the_reference_opens_once_the_build_up_is_answered(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    expect(page.locator("#takeaways, #pitfalls")).to_have_count(0)  # not sent, not hidden
    expect(page.locator("#reference .disclosure-notice")).to_contain_text("Read ahead")
    page.locator(".step[data-step='1']").get_by_label("Guess").check()
    page.locator(".step[data-step='1'] .choice").first.click()
    show = page.get_by_role("button", name="Show the reference")
    expect(show).to_be_visible()
    show.click()
    expect(page.locator("#takeaways")).to_contain_text("Backward fills")
    expect(page.locator("#pitfalls")).to_be_visible()


def test_reading_ahead_shows_every_answer(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/cheat-sheet")
    page.get_by_role("button", name="Read ahead: show every answer").click()
    expect(page).to_have_url(f"{server.url}/lessons/first-steps/cheat-sheet")
    expect(page.locator(".read-ahead-on")).to_be_visible()
    expect(page.locator(".sheet-rules")).to_contain_text("d(x²)/dx = 2x")
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    expect(page.locator(".step[data-step='1'] .read-ahead-answer")).to_contain_text(
        "tensor([4., 6.])"
    )
    expect(page.locator("form.value-prediction[data-step='1'] input")).to_be_enabled()


def test_step_by_step_lets_a_reader_ahead_move_on(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/step-by-step")
    expect(page.locator(".sbs-next")).to_be_visible()
    page.get_by_role("button", name="Read ahead: show every answer").click()
    expect(page).to_have_url(f"{server.url}/lessons/first-steps/step-by-step")
    page.locator(".sbs-next").click()  # no commit needed: the lesson is read ahead
    expect(page.locator(".sbs-done")).to_be_visible()
    expect(page.locator(".sbs-done a", has_text="cheat sheet")).to_be_visible()


def test_step_by_step_ends_pointing_to_its_takeaways_not_listing_them(
    page: Page, server: LiveServer
) -> None:
    """The path ends on recall (tests/e2e/test_recall_page.py); this lesson has no variants,
    so it asks none, and its takeaways stay in the reference, one link away."""
    page.goto(f"{server.url}/lessons/first-steps/step-by-step")
    done = page.locator(".sbs-done")
    step = page.locator(".sbs-steps > .step").first
    step.get_by_label("Fairly sure").check()
    step.locator(".choice").first.click()
    page.locator(".sbs-next").click()  # the one step of this lesson: "Finish"
    expect(done).to_be_visible()
    expect(done.locator(".takeaways")).to_have_count(0)
    expect(done.locator("section.recall")).to_have_count(0)
    done.get_by_role("link", name="cheat sheet").click()
    expect(page.locator(".takeaways")).to_contain_text("Backward fills")
