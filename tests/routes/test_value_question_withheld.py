"""A step that asks a choice and a typed value sends the value question only once the choice is
committed: before, the form's mere presence would say the code does not raise (a step whose
code raises has no value to type), and its wording may hint. Read on the real curriculum, as a
fresh learner, in every mode page and in GET /api/lessons/{slug}; then committed, on the pages
that draw the build-up and in the JSON."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app import rendering
from app.learning.pages.registry import MODES
from app.lessons.format import Lesson
from app.lessons.variants import instances
from tests.catalogs import BUNDLED

BUILD_UP_MODES = ("deep-dive", "step-by-step")


def gated(lesson: Lesson) -> list[tuple[int, str, str]]:
    """(step, its form's opening, its question as the page renders it) for each step that
    asks a choice and a value."""
    found = []
    for number, step in enumerate(lesson.steps, start=1):
        if step.prediction is None or step.value_prediction is None:
            continue
        form = f'data-kind="value" data-step="{number}"'
        found.append((number, form, str(rendering.markdown_inline(step.value_prediction.question))))
    return found


def sent_anyway(lesson: Lesson) -> set[str]:
    """Value questions a fresh learner is sent: those of steps that ask only a value (another
    step's question may read the same)."""
    return {
        str(rendering.markdown_inline(step.value_prediction.question))
        for step in lesson.steps
        if step.value_prediction is not None and step.prediction is None
    }


def offences(lesson: Lesson, where: str, html: str) -> list[str]:
    found = []
    for number, form, question in gated(lesson):
        if form in html:
            found.append(f"{lesson.slug} {where}: step {number}'s value form")
        if question in html and question not in sent_anyway(lesson):
            found.append(f"{lesson.slug} {where}: step {number}'s value question {question!r}")
    return found


def test_no_page_sends_a_value_question_before_its_choice_is_committed(
    bundled: TestClient,
) -> None:
    found: list[str] = []
    checked = 0
    for lesson in BUNDLED.lessons:
        if not gated(lesson):
            continue
        checked += 1
        bundled.cookies.clear()  # a fresh learner
        for mode in MODES:
            page = bundled.get(f"/lessons/{lesson.slug}/{mode.slug}")
            assert page.status_code == 200, (lesson.slug, mode.slug)
            found += offences(lesson, mode.slug, page.text)
        steps = bundled.get(f"/api/lessons/{lesson.slug}").json()["steps"]
        for number, _, _ in gated(lesson):
            if "value_prediction" in steps[number - 1]:
                found.append(f"{lesson.slug} API: step {number}'s value_prediction")
    assert checked > 0
    assert not found, "Sent before the choice's commit:\n" + "\n".join(found)


def test_the_commit_opens_the_value_question_in_the_pages_and_the_json(
    bundled: TestClient,
) -> None:
    for lesson in BUNDLED.lessons:
        if not gated(lesson):
            continue
        bundled.cookies.clear()
        for number, _, question in gated(lesson):
            step = lesson.steps[number - 1]
            assert step.prediction is not None and step.value_prediction is not None
            commit = {"choice": step.prediction.texts[0], "confidence": "guess"}
            url = f"/api/lessons/{lesson.slug}/steps/{number}/prediction"
            reveal = bundled.post(url, json=commit).json()
            # On a step with variants the value is asked on an instance: other numbers.
            code = reveal["value"].pop("code")
            assert code in ([i.code for i in instances(step)] or [None]), (lesson.slug, number)
            assert reveal["value"] == {
                "question_html": question,
                "tensor": step.value_prediction.tensor,
            }, (lesson.slug, number)
        for mode in BUILD_UP_MODES:
            html = bundled.get(f"/lessons/{lesson.slug}/{mode}").text
            for number, form, question in gated(lesson):
                assert form in html and question in html, (lesson.slug, mode, number)
        steps = bundled.get(f"/api/lessons/{lesson.slug}").json()["steps"]
        for number, _, _ in gated(lesson):
            guess = lesson.steps[number - 1].value_prediction
            assert guess is not None
            sent = {"question": guess.question, "tensor": guess.tensor}
            assert steps[number - 1]["value_prediction"] == sent, (lesson.slug, number)
