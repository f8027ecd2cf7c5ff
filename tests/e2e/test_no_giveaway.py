"""LESSON CONTENT CHECK: in a real browser, before any commit, no step of any bundled
lesson shows its prediction's answer, nor a number of that answer that is not already in the
code or the question, in the visible text around the prediction (the choices themselves and the
code aside). A failure lists each offending lesson and step."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from app.config.paths import BUNDLED_LESSONS
from app.lessons.lint_text import mentions, numbers, plain
from app.lessons.loader import load_catalog
from tests.live import LiveServer

BUNDLED = load_catalog(BUNDLED_LESSONS)

# The visible text of a step, without its choices, its code and its "Step N" label.
VISIBLE_AROUND = """(step) => {
  let text = step.innerText;
  for (const node of step.querySelectorAll('.choices, .runnable, .step-number')) {
    const inner = node.innerText;
    if (inner) text = text.split(inner).join(' ');
  }
  return text;
}"""


@pytest.mark.lesson_content
def test_no_step_gives_its_answer_away_before_the_commit(
    page: Page, bundled_server: LiveServer
) -> None:
    offences: list[str] = []
    for lesson in BUNDLED.lessons:
        page.goto(f"{bundled_server.url}/lessons/{lesson.slug}/deep-dive")
        for number, step in enumerate(lesson.steps, start=1):
            if step.prediction is None:
                continue
            locator = page.locator(f".step[data-step='{number}']")
            visible = plain(locator.evaluate(VISIBLE_AROUND))
            answer = plain(step.prediction.answer)
            where = f"{lesson.slug} step {number} ({step.title})"
            # The text read is the step's own: its title is there, its setup too.
            assert plain(step.title) in visible, where
            assert not step.setup or plain(step.setup)[:40] in visible, where
            # The question may name several choices ("True or False?"); the rest may not.
            visible = visible.replace(plain(step.prediction.question), " ")
            if mentions(visible, answer):
                offences.append(f"{where}: shows the answer {answer!r}")
                continue
            known = (step.snippet.code if step.snippet else "") + " " + step.prediction.question
            leaked = (numbers(answer) - numbers(known)) & numbers(visible)
            for value in sorted(leaked):
                offences.append(f"{where}: shows {value:g} from the answer {answer!r}")
    assert not offences, "Steps that give their answer away:\n" + "\n".join(offences)
