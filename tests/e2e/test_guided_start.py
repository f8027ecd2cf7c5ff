"""The guided path's first question is near its top: on a first visit to every bundled lesson,
the words a learner can see before step 1's question (the header, the lede, the big picture with
its picture folded, the step's title and setup) stay within a screen's reading."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.catalogs import BUNDLED
from tests.live import LiveServer

# About 150 words: a first question within one screen on a desktop. The bound is the issue's
# "about 150" with the step's own question allowed on top (a question can run to 25 words).
MOST_WORDS = 175

WORDS_BEFORE_QUESTION = """() => {
  const question = document.querySelector(".step[data-step='1'] .prediction-question, .step[data-step='1'] .ordering-question");
  const main = document.querySelector("main");
  const range = document.createRange();
  range.setStart(main, 0);
  range.setEndAfter(question);
  const box = document.createElement("div");
  box.append(range.cloneContents());
  // What the browser draws: folded details show their summary only.
  for (const fold of box.querySelectorAll("details:not([open])")) {
    for (const child of [...fold.children]) if (child.tagName !== "SUMMARY") child.remove();
  }
  for (const hidden of box.querySelectorAll("[hidden], .visually-hidden, script, noscript")) hidden.remove();
  return box.textContent.split(/\\s+/).filter(Boolean).length;
}"""


@pytest.mark.parametrize("slug", [lesson.slug for lesson in BUNDLED.lessons])
def test_the_first_question_is_near_the_top(
    page: Page, bundled_server: LiveServer, slug: str
) -> None:
    page.goto(f"{bundled_server.url}/lessons/{slug}")
    words = page.evaluate(WORDS_BEFORE_QUESTION)
    assert words <= MOST_WORDS, f"{slug}: {words} words before the first question"
