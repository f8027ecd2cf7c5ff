"""LESSON CONTENT CHECK (issue 11): in a real browser, before any commit, no step of any bundled
lesson shows its prediction's answer, nor a number of that answer that is not already in the
code or the question, in the visible text around the prediction (the choices themselves and the
code aside). It fails on lesson text, not on code, until every lesson is rewritten: the failure
lists each offending lesson and step."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from app.config import PROJECT_ROOT
from app.lessons.loader import load_catalog
from tests.e2e.conftest import LiveServer

BUNDLED = load_catalog(PROJECT_ROOT / "lessons")
NUMBER = re.compile(r"\d+(?:\.\d+)?")

# The visible text of a step, without its choices, its code and its "Step N" label.
VISIBLE_AROUND = """(step) => {
  let text = step.innerText;
  for (const node of step.querySelectorAll('.choices, .runnable, .step-number')) {
    const inner = node.innerText;
    if (inner) text = text.split(inner).join(' ');
  }
  return text;
}"""


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("`", "")).strip()


def _numbers(text: str) -> set[str]:
    return {n.rstrip(".") for n in NUMBER.findall(text)}


def _shows(number: str, text: str) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text) is not None


@pytest.mark.lesson_content
def test_no_step_gives_its_answer_away_before_the_commit(
    page: Page, bundled_server: LiveServer
) -> None:
    offences: list[str] = []
    for lesson in BUNDLED.lessons:
        page.goto(f"{bundled_server.url}/lessons/{lesson.slug}")
        for number, step in enumerate(lesson.steps, start=1):
            if step.prediction is None:
                continue
            locator = page.locator(f".step[data-step='{number}']")
            visible = _plain(locator.evaluate(VISIBLE_AROUND))
            answer = _plain(step.prediction.answer)
            where = f"{lesson.slug} step {number} ({step.title})"
            if answer and answer in visible:
                offences.append(f"{where}: shows the answer {answer!r}")
                continue
            known = _plain(
                (step.snippet.code if step.snippet else "") + " " + step.prediction.question
            )
            for value in sorted(_numbers(answer) - _numbers(known)):
                if _shows(value, visible):
                    offences.append(f"{where}: shows {value!r} from the answer {answer!r}")
    assert not offences, "Steps that give their answer away:\n" + "\n".join(offences)
