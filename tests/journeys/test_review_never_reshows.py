"""Two review sittings an hour apart never ask code and numbers the learner was shown before:
not a step's own code, not the instance its typed value asked, not a recall question's, not
the drills page's, not an earlier item's (of either sitting), while an unseen form remains.
Predictions and drills of one step share their instances, so one's code must not come back
as the other. On SQLite and PostgreSQL, on the review-forms fixture lessons."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.learning.practice.recall import recall_questions
from app.lessons.variants import finished, instances
from app.main import create_app
from app.modes.drills import lesson_drills
from app.progress.models.learners import Learner
from tests.clock import time_passes
from tests.conftest import make_settings
from tests.journeys.test_review_forms import CATALOG, FORMS_LESSONS, HOUR, _lesson, _wrong


def code_print(code: str) -> str:
    """Code as the learner reads it: its text, so its numbers."""
    return code.strip()


@pytest.fixture
def forms_client(migrated_url: str) -> Iterator[TestClient]:
    settings = make_settings(lessons_dir=FORMS_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _learner(client: TestClient) -> str:
    engine = client.app.state.store.engine  # type: ignore[attr-defined]
    with engine.connect() as connection:
        (learner,) = connection.execute(select(Learner.id)).scalars().all()
    return str(learner)


def _study(client: TestClient) -> set[str]:
    """Miss every prediction, typed value and myth, answer every recall question and every
    drill (wrongly, so each enters review); what was shown, as code fingerprints per lesson."""
    shown: set[str] = set()
    for lesson in CATALOG.lessons:
        api = f"/api/lessons/{lesson.slug}"
        for number, step in enumerate(lesson.steps, start=1):
            assert step.prediction is not None and step.snippet is not None
            body = {"choice": _wrong(step.prediction.texts, step.prediction.answer)}
            reveal = client.post(
                f"{api}/steps/{number}/prediction", json=body | {"confidence": "certain"}
            )
            shown |= {code_print(step.snippet.code), code_print(reveal.json()["value"]["code"])}
            assert client.post(f"{api}/steps/{number}/value", json={"value": "12345"}).is_success
        for number, myth in enumerate(lesson.myths, start=1):
            body = {"answer": "no" if myth.answer == "yes" else "yes", "confidence": "certain"}
            assert client.post(f"{api}/myths/{number}/answer", json=body).is_success
        learner = _learner(client)
        for question in recall_questions(lesson, learner):
            instance = question.prompt.instance
            assert instance is not None and instance.answer is not None
            body = {
                "choice": _wrong(question.prompt.choices, instance.answer),
                "confidence": "certain",
            }
            url = f"{api}/recall/{question.number}?form={instance.index}"
            assert client.post(url, json=body).is_success, url
            shown.add(code_print(instance.code))
        # The drills page, as drawn: each drill answered on the instance it shows (data-form).
        page = client.get(f"/lessons/{lesson.slug}/predict-the-gradient").text
        drawn = dict(
            re.findall(r'data-drill="([^"]+)" data-tensor="[^"]*" data-form="(\d+)"', page)
        )
        for drill in lesson_drills(lesson):
            if drill.step:
                form = int(drawn[drill.id])
                url = f"{api}/drills/{drill.id}/answer?form={form}"
                assert client.post(url, json={"value": "12345"}).is_success, url
                shown.add(code_print(instances(lesson.steps[drill.step - 1])[form].code))
    return shown


def _forms(item: dict[str, Any]) -> set[str]:
    """The codes an item could be asked on (its step's instances)."""
    lesson = _lesson(item["lesson"])
    number = int(item["key"]) if item["kind"] != "drill" else int(item["key"][5:].split(".")[0])
    step = lesson.steps[number - 1]
    found = finished(step) if item["kind"] == "drill" else instances(step)
    return {code_print(instance.code) for instance in found}


def _sitting(
    client: TestClient, shown: set[str], *, backwards: bool = False
) -> list[tuple[str, str, str]]:
    """One sitting: every item with code is asked on unseen code while its step has some;
    each is answered wrongly (so it comes back), and what it showed joins `shown`."""
    repeated = []
    due = client.get("/api/review").json()["due"]
    assert (
        sum(item["kind"] in ("prediction", "drill") for item in due) >= 16
    )  # 8 steps: a choice and a drill
    # Answered in any order, each item is graded on the form the sitting showed (a 200).
    for item in reversed(due) if backwards else due:
        if item["code"] is None or item["form"] is None:
            continue
        asked = code_print(item["code"])
        if asked in shown and _forms(item) - shown:
            repeated.append((item["lesson"], item["kind"], item["key"]))
        shown.add(asked)
        url = f"/api/review/{item['id']}/answer?form={item['form']}"
        if item["kind"] == "drill":
            body: dict[str, str] = {"value": "12345", "confidence": "certain"}
        else:
            step = _lesson(item["lesson"]).steps[int(item["key"]) - 1]
            (instance,) = [i for i in instances(step) if i.code == item["code"]]
            assert instance.answer is not None
            body = {"choice": _wrong(item["choices"], instance.answer), "confidence": "certain"}
        answered = client.post(url, json=body)
        assert answered.status_code == 200, answered.text
        # The sitting's order changes with each answer; what the others ask does not.
        now = {i["id"]: (i["form"], i["code"]) for i in client.get("/api/review").json()["due"]}
        assert all(now[i["id"]] == (i["form"], i["code"]) for i in due if i["id"] in now)
    return repeated


def test_two_sittings_never_ask_code_and_numbers_shown_before(forms_client: TestClient) -> None:
    client = forms_client
    shown = _study(client)
    time_passes(client, HOUR)
    assert _sitting(client, shown) == []
    time_passes(client, HOUR)
    assert _sitting(client, shown, backwards=True) == []


def test_a_question_with_one_version_leaves_review_once_answered_right(client: TestClient) -> None:
    """first-steps' step 1 and its myth have no other version: asked once more after a miss
    (nothing else to ask), then, answered right, never again word for word, however long one
    waits; one answered wrongly in review stays, and a later miss would bring one back."""
    from tests.catalogs import FIXTURES

    lesson = FIXTURES.get("first-steps")
    assert lesson is not None and lesson.steps[0].prediction is not None
    prediction, myth = lesson.steps[0].prediction, lesson.myths[0]
    api = "/api/lessons/first-steps"
    body = {"choice": _wrong(prediction.texts, prediction.answer), "confidence": "certain"}
    assert client.post(f"{api}/steps/1/prediction", json=body).is_success
    wrong = "no" if myth.answer == "yes" else "yes"
    body = {"answer": wrong, "confidence": "certain"}
    assert client.post(f"{api}/myths/1/answer", json=body).is_success
    time_passes(client, HOUR)
    items = {item["kind"]: item for item in client.get("/api/review").json()["due"]}
    assert set(items) == {"prediction", "myth"}
    assert all(item["form"] is None for item in items.values())  # one version each
    right = {"choice": prediction.answer, "confidence": "certain"}
    answered = client.post(f"/api/review/{items['prediction']['id']}/answer", json=right)
    assert answered.json()["correct"] is True
    missed = {"answer": wrong, "confidence": "certain"}
    answered = client.post(f"/api/review/{items['myth']['id']}/answer", json=missed)
    assert answered.json()["correct"] is False
    for _ in range(3):
        time_passes(client, timedelta(days=60))
        queue = client.get("/api/review").json()
        assert [item["kind"] for item in queue["due"]] == ["myth"]  # the right one left
        assert queue["due_count"] == 1


def test_a_fresh_round_of_myth_busters_asks_the_myths_other_forms(
    forms_client: TestClient,
) -> None:
    """Played once, the myth busters page asks each myth with forms as one of them, graded
    and revealed as that form; a form the myth does not have is refused."""
    client = forms_client
    lesson = _lesson("forms-one")
    api = f"/api/lessons/{lesson.slug}/myths"
    first = client.get(f"/lessons/{lesson.slug}/myth-busters").text
    assert "data-form" not in first  # the first round asks the lesson's questions
    for number, myth in enumerate(lesson.myths, start=1):
        body = {"answer": myth.answer, "confidence": "certain"}
        assert client.post(f"{api}/{number}/answer", json=body).json()["correct"] is True
    page = client.get(f"/lessons/{lesson.slug}/myth-busters").text
    assert "This is a fresh round." in page
    asked_in_round: dict[str, int] = {}
    for number, myth in enumerate(lesson.myths, start=1):
        marker = f'data-myth="{number}" data-form="'
        assert marker in page, number
        form = int(page.split(marker)[1].split('"')[0])
        asked = myth.forms[form]
        assert asked.question.split("`")[0] in page
        assert myth.question.split("`")[0] not in page, number
        wrong = "no" if asked.answer == "yes" else "yes"
        url = f"{api}/{number}/answer?form={form}"
        reveal = client.post(url, json={"answer": wrong, "confidence": "certain"}).json()
        assert reveal["correct"] is False and reveal["answer"] == asked.answer
        missing = client.post(f"{api}/{number}/answer?form={len(myth.forms)}", json=body)
        assert missing.status_code == 422
        asked_in_round[str(number)] = form
    # Missed there, each myth returns in review as a form other than the round's.
    time_passes(client, HOUR)
    items = [item for item in client.get("/api/review").json()["due"] if item["kind"] == "myth"]
    assert {item["key"] for item in items} == set(asked_in_round)
    assert all(item["form"] != asked_in_round[item["key"]] for item in items)


def _round_forms(page: str) -> dict[int, int]:
    """The form a myth busters page asks each myth as, by myth number."""
    found = re.findall(r'data-myth="(\d+)" data-form="(\d+)"', page)
    return {int(number): int(form) for number, form in found}


def test_each_fresh_round_of_myth_busters_asks_another_form(forms_client: TestClient) -> None:
    """Four fresh rounds of myth busters: each asks every myth as another form than the round
    before (and, on a myth with three forms, than every round before until each was asked),
    never the lesson page's question; reading the page writes nothing (a reload asks the
    same). Review then asks a form no round asked while one remains."""
    client = forms_client
    lesson = _lesson("forms-two")
    api, page = f"/api/lessons/{lesson.slug}/myths", f"/lessons/{lesson.slug}/myth-busters"
    for number, myth in enumerate(lesson.myths, start=1):
        body = {"answer": myth.answer, "confidence": "certain"}
        assert client.post(f"{api}/{number}/answer", json=body).is_success
    rounds: list[dict[int, int]] = []
    for _ in range(4):
        text = client.get(page).text
        asked = _round_forms(text)
        assert _round_forms(client.get(page).text) == asked  # a GET writes nothing
        assert set(asked) == {1, 2}
        for number, form in asked.items():
            myth = lesson.myths[number - 1]
            assert myth.question.split("`")[0] not in text
            right = myth.forms[form].answer
            body = {"answer": right, "confidence": "certain"}
            reveal = client.post(f"{api}/{number}/answer?form={form}", json=body).json()
            assert reveal["correct"] is True
        rounds.append(asked)
    for before, after in itertools.pairwise(rounds):
        assert all(before[number] != after[number] for number in before), rounds
    three = [asked[2] for asked in rounds]  # myth 2 has three forms: all of them, then again
    assert len(lesson.myths[1].forms) == 3 and sorted(three[:3]) == [0, 1, 2], three
    assert three[3] == three[0]
    # Missed now, myth 2 comes back in review as no form the rounds asked while one remains:
    # none does (the rounds asked all three), so it asks another than the next round will.
    missed = "no" if lesson.myths[1].forms[three[3]].answer == "yes" else "yes"
    body = {"answer": missed, "confidence": "certain"}
    assert client.post(f"{api}/2/answer?form={three[3]}", json=body).is_success
    time_passes(client, HOUR)
    (item,) = [i for i in client.get("/api/review").json()["due"] if i["kind"] == "myth"]
    upcoming = _round_forms(client.get(page).text)[2]
    assert item["form"] != upcoming, (item["form"], upcoming)


def test_answering_an_item_never_changes_what_another_asks(forms_client: TestClient) -> None:
    """A sitting's order is a hash of what is due, so every answer reorders it; the form each
    other item asks stays. Several learners, each a sitting of predictions and drills that
    share their steps' instances, answered one by one and read again after each answer."""
    client = forms_client
    for _ in range(6):
        client.cookies.clear()
        for lesson in CATALOG.lessons:
            api = f"/api/lessons/{lesson.slug}"
            for number, step in enumerate(lesson.steps, start=1):
                assert step.prediction is not None
                body = {"choice": _wrong(step.prediction.texts, step.prediction.answer)}
                url = f"{api}/steps/{number}/prediction"
                assert client.post(url, json=body | {"confidence": "certain"}).is_success
                assert client.post(f"{api}/steps/{number}/value", json={"value": "1e9"}).is_success
        time_passes(client, HOUR)
        _sitting(client, set())
