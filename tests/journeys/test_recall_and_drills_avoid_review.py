"""The recall and the drills page draw from the record of what a learner was shown
(app/learning/practice/seen.py), as review does: after a sitting of review asked a step on one of its
instances, the step's recall question and its drills ask another one while one remains, and an
answer is graded on the instance the page showed (sent with the answer; another is refused).
On SQLite and PostgreSQL, on the review-forms fixture lessons (three instances a step)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.lessons.format import Step
from app.lessons.variants import instances
from app.main import create_app
from tests.clock import time_passes
from tests.conftest import make_settings
from tests.journeys.test_review_forms import FORMS_LESSONS, HOUR, _lesson, _wrong

SLUG = "forms-one"
API = f"/api/lessons/{SLUG}"
RECALL_ITEM = re.compile(r'<li class="recall-item" data-step="(\d+)" data-form="(\d+)"')
DRILL_ITEM = re.compile(r'data-drill="step-(\d+)\.(\w+)" data-tensor="[^"]*" data-form="(\d+)"')


@pytest.fixture
def forms_client(migrated_url: str) -> Iterator[TestClient]:
    settings = make_settings(lessons_dir=FORMS_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _code(step: Step, form: int) -> str:
    return instances(step)[form].code.strip()


def _miss_and_review(client: TestClient) -> dict[int, set[str]]:
    """Miss every prediction of the lesson (which commits its build-up), then, an hour later,
    answer the sitting of review wrongly: per step, the code the learner was shown (its own,
    the instance its typed value asks, the one review asked)."""
    lesson = _lesson(SLUG)
    shown: dict[int, set[str]] = {}
    for number, step in enumerate(lesson.steps, start=1):
        assert step.prediction is not None and step.snippet is not None
        body = {"choice": _wrong(step.prediction.texts, step.prediction.answer)}
        url = f"{API}/steps/{number}/prediction"
        reveal = client.post(url, json=body | {"confidence": "certain"}).json()
        shown[number] = {step.snippet.code.strip(), reveal["value"]["code"].strip()}
    time_passes(client, HOUR)
    due = client.get("/api/review").json()["due"]
    assert len(due) == len(lesson.steps)
    for item in due:
        step = lesson.steps[int(item["key"]) - 1]
        shown[int(item["key"])].add(_code(step, item["form"]))
        answer = instances(step)[item["form"]].answer
        assert answer is not None
        body = {"choice": _wrong(item["choices"], answer), "confidence": "certain"}
        url = f"/api/review/{item['id']}/answer?form={item['form']}"
        assert client.post(url, json=body).status_code == 200
    return shown


def _unseen(step: Step, shown: set[str]) -> set[str]:
    return {instance.code.strip() for instance in instances(step)} - shown


def test_the_recall_asks_an_instance_review_did_not_show(forms_client: TestClient) -> None:
    client = forms_client
    lesson = _lesson(SLUG)
    shown = _miss_and_review(client)
    page = client.get(f"/lessons/{SLUG}/deep-dive").text
    assert client.get(f"/lessons/{SLUG}/deep-dive").text.count("recall-item") == page.count(
        "recall-item"
    )
    asked = [(int(step), int(form)) for step, form in RECALL_ITEM.findall(page)]
    assert len(asked) == 3
    for number, form in asked:
        step = lesson.steps[number - 1]
        assert _unseen(step, shown[number]), number  # one instance was left to ask
        assert _code(step, form) not in shown[number], number
        other = next(i.index for i in instances(step) if i.index != form)
        instance = instances(step)[form]
        assert instance.answer is not None
        body = {"choice": instance.answer, "confidence": "certain"}
        refused = client.post(f"{API}/recall/{number}?form={other}", json=body)
        assert refused.status_code == 422, refused.text
        answered = client.post(f"{API}/recall/{number}?form={form}", json=body)
        assert answered.status_code == 200 and answered.json()["correct"] is True
    # Answered, each question keeps the instance it was answered on (its answer is shown).
    again = client.get(f"/lessons/{SLUG}/deep-dive").text
    assert [(int(s), int(f)) for s, f in RECALL_ITEM.findall(again)] == asked


def test_the_drills_page_asks_an_instance_review_did_not_show(forms_client: TestClient) -> None:
    client = forms_client
    lesson = _lesson(SLUG)
    shown = _miss_and_review(client)
    page = client.get(f"/lessons/{SLUG}/predict-the-gradient").text
    drawn = [(int(step), tensor, int(form)) for step, tensor, form in DRILL_ITEM.findall(page)]
    assert {number for number, _, _ in drawn} == set(range(1, len(lesson.steps) + 1))
    for number, tensor, form in drawn:
        step = lesson.steps[number - 1]
        assert _unseen(step, shown[number]), number
        assert _code(step, form) not in shown[number], (number, tensor)
        url = f"{API}/drills/step-{number}.{tensor}/answer"
        right = str(instances(step)[form].grads[tensor])
        for other in (i.index for i in instances(step) if i.index != form):
            refused = client.post(f"{url}?form={other}", json={"value": right})
            assert refused.status_code == 422
            assert refused.json()["type"] == "/problems/not-the-form-asked"
        answered = client.post(f"{url}?form={form}", json={"value": right})
        assert answered.status_code == 200 and answered.json()["correct"] is True, answered.text
    # Answered there, the page keeps asking those instances (what it shows stays graded).
    again = client.get(f"/lessons/{SLUG}/predict-the-gradient").text
    assert [(int(s), t, int(f)) for s, t, f in DRILL_ITEM.findall(again)] == drawn
