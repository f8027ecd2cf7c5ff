"""Review asks a new form every time: a step with variants is asked on an instance other than
the lesson page's, a myth with forms as one of its forms, and a return never as the one before
(on SQLite and PostgreSQL). The fixture lessons (tests/fixtures/review-forms) have four steps
with variants and two myths with forms each, their answers computed by the real sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.learning.kinds import PREDICTION
from app.lessons.format import Lesson
from app.lessons.loader import load_catalog
from app.lessons.variants import choose, instances
from app.main import create_app
from tests.clock import time_passes
from tests.conftest import make_settings

FORMS_LESSONS = Path(__file__).parents[1] / "fixtures" / "review-forms"
CATALOG = load_catalog([FORMS_LESSONS])
HOUR = timedelta(hours=1)


@pytest.fixture
def forms_client(migrated_url: str) -> Iterator[TestClient]:
    """A learner on the two fixture lessons, on SQLite and on PostgreSQL, without a sandbox
    (every instance's and form's answer is stored in the lesson)."""
    settings = make_settings(lessons_dir=FORMS_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _lesson(slug: str) -> Lesson:
    found = CATALOG.get(slug)
    assert found is not None
    return found


def _wrong(choices: list[str], right: str) -> str:
    return next(choice for choice in choices if choice != right)


def _miss_everything(client: TestClient) -> dict[tuple[str, str, str], str]:
    """Miss every prediction and myth of both lessons on their lesson pages; what each page
    showed: (lesson, kind, key) -> the code or question met there (a step's own code and the
    instance its typed value asked)."""
    met: dict[tuple[str, str, str], str] = {}
    for lesson in CATALOG.lessons:
        api = f"/api/lessons/{lesson.slug}"
        for number, step in enumerate(lesson.steps, start=1):
            assert step.prediction is not None and step.snippet is not None
            wrong = _wrong(step.prediction.texts, step.prediction.answer)
            body = {"choice": wrong, "confidence": "certain"}
            reveal = client.post(f"{api}/steps/{number}/prediction", json=body).json()
            met[(lesson.slug, "prediction", str(number))] = reveal["value"]["code"]
        for number, myth in enumerate(lesson.myths, start=1):
            wrong = "no" if myth.answer == "yes" else "yes"
            body = {"answer": wrong, "confidence": "certain"}
            assert client.post(f"{api}/myths/{number}/answer", json=body).is_success
            met[(lesson.slug, "myth", str(number))] = myth.question
    return met


def _asked(item: dict[str, Any]) -> str:
    """What a review item asks: a prediction's code, a myth's question."""
    return str(item["code"]) if item["kind"] == "prediction" else str(item["question_html"])


def _by_item(queue: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(item["lesson"], item["kind"], item["key"]): item for item in queue["due"]}


def _answer_wrong(client: TestClient, item: dict[str, Any]) -> dict[str, Any]:
    url = f"/api/review/{item['id']}/answer?form={item['form']}"
    if item["kind"] == "prediction":
        lesson = _lesson(item["lesson"])
        step = lesson.steps[int(item["key"]) - 1]
        (instance,) = [i for i in instances(step) if i.code == item["code"]]
        assert instance.answer is not None
        body = {"choice": _wrong(item["choices"], instance.answer), "confidence": "certain"}
    else:
        myth = _lesson(item["lesson"]).myths[int(item["key"]) - 1]
        form = myth.forms[item["form"]]
        body = {"answer": "no" if form.answer == "yes" else "yes", "confidence": "certain"}
    answered = client.post(url, json=body)
    assert answered.status_code == 200, answered.text
    result: dict[str, Any] = answered.json()
    assert result["correct"] is False
    return result


def test_every_return_asks_another_form_than_the_lesson_page_and_the_time_before(
    forms_client: TestClient,
) -> None:
    client = forms_client
    met = _miss_everything(client)
    assert len(met) == 12  # 8 predictions and 4 myths, in two lessons
    time_passes(client, HOUR)
    first = client.get("/api/review").json()
    assert client.get("/api/review").json() == first  # a reload asks the same
    items = _by_item(first)
    assert set(items) == set(met)
    for where, item in items.items():
        lesson = _lesson(where[0])
        if where[1] == "prediction":
            step = lesson.steps[int(where[2]) - 1]
            own = step.snippet.code if step.snippet is not None else ""
            # Neither the step's own code nor the instance its typed value asked there.
            assert item["code"] not in (own, met[where]), where
            assert item["form"] == next(i.index for i in instances(step) if i.code == item["code"])
        else:
            myth = lesson.myths[int(where[2]) - 1]
            assert item["form"] is not None
            assert myth.forms[item["form"]].question.split("`")[0] in item["question_html"]
            assert myth.question.split("`")[0] not in item["question_html"], where
    page = client.get("/review").text
    assert all(f'data-form="{item["form"]}"' in page for item in items.values())

    for item in items.values():
        _answer_wrong(client, item)
    time_passes(client, HOUR)
    second = _by_item(client.get("/api/review").json())
    assert set(second) == set(met)
    for where, item in second.items():
        assert _asked(item) != _asked(items[where]), where  # not as it was the time before
        assert item["form"] != items[where]["form"], where
        if where[1] == "prediction":
            assert item["code"] != met[where], where  # still never the lesson page's

    # And the third return, after another miss, not as the second.
    for item in second.values():
        _answer_wrong(client, item)
    time_passes(client, HOUR)
    third = _by_item(client.get("/api/review").json())
    assert all(third[where]["form"] != second[where]["form"] for where in third)


def test_a_myth_form_is_graded_and_revealed_as_itself(forms_client: TestClient) -> None:
    client = forms_client
    lesson = _lesson("forms-one")
    myth = lesson.myths[0]
    client.post(
        "/api/lessons/forms-one/myths/1/answer", json={"answer": "yes", "confidence": "certain"}
    )
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    form = myth.forms[item["form"]]
    assert "belief" not in str(item) and form.reality not in str(item)  # the reveal waits
    url = f"/api/review/{item['id']}/answer?form={item['form']}"
    result = client.post(url, json={"answer": form.answer, "confidence": "certain"}).json()
    reveal = result["reveal"]
    assert result["correct"] is True and reveal["answer"] == form.answer
    assert reveal["demo"] == {"code": form.demo.code, "output": form.demo.output}
    # The form's own reality, about its own code; not the lesson question's.
    assert reveal["reality_html"] in (
        "<p><code>backward()</code> returns <code>None</code>.</p>\n",
        "<p><code>out</code> is <code>None</code>; 5 is in <code>w.grad</code>.</p>\n",
    )
    assert "hands back the gradient" in reveal["belief_html"]  # the myth's, for every form
    assert "breaks" in reveal["why_it_matters_html"]


def test_a_variant_reveal_speaks_of_the_instance_shown(forms_client: TestClient) -> None:
    client = forms_client
    step = _lesson("forms-one").steps[0]
    assert step.prediction is not None
    client.post(
        "/api/lessons/forms-one/steps/1/prediction",
        json={"choice": "None", "confidence": "certain"},
    )
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    (instance,) = [i for i in instances(step) if i.code == item["code"]]
    wrong = next(c for c in instance.choices if c.text not in (instance.answer, "None"))
    url = f"/api/review/{item['id']}/answer?form={item['form']}"
    reveal = client.post(url, json={"choice": wrong.text, "confidence": "certain"}).json()["reveal"]
    assert reveal["answer"] == instance.answer and reveal["output"] == instance.output
    assert reveal["explanation_html"] == f"<p>{instance.explanation}</p>\n".replace(
        "`x * ", "<code>x * "
    ).replace("` is", "</code> is")
    x = instance.code.split("tensor(")[1].split(",")[0]
    assert reveal["why_html"] == f"<code>{x}</code> is the value of <code>x</code>, not the slope."
    # Never the step's own explanation, which names the step's own numbers.
    assert step.explanation not in str(reveal) and reveal["step"]["explanation_html"] == ""
    assert reveal["step"]["concept_html"]  # what holds for every instance stays


def test_an_answer_to_another_form_is_refused_and_keeps_the_item(
    forms_client: TestClient,
) -> None:
    client = forms_client
    client.post(
        "/api/lessons/forms-two/myths/2/answer", json={"answer": "yes", "confidence": "certain"}
    )
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    other = (item["form"] + 1) % len(_lesson("forms-two").myths[1].forms)
    url = f"/api/review/{item['id']}/answer"
    body = {"answer": "yes", "confidence": "certain"}
    forged = client.post(f"{url}?form={other}", json=body)
    assert forged.status_code == 422
    assert forged.json()["type"] == "/problems/not-the-form-asked"
    assert "reload the review" in forged.json()["detail"]
    assert client.get("/api/review").json()["due"] == [item]  # nothing kept
    assert client.post(f"{url}?form=-1", json=body).status_code == 422
    assert client.post(f"{url}?form={item['form']}", json=body).status_code == 200


@pytest.mark.parametrize("count", [2, 3, 5])
def test_choose_never_repeats_while_another_remains(count: int) -> None:
    for key in (f"learner/{n}" for n in range(40)):
        for never in (None, *range(count)):
            for previous in (None, *range(count)):
                chosen = choose(count, key, never=never, previous=previous)
                assert chosen == choose(count, key, never=never, previous=previous)
                assert chosen != never
                if count > 2 or never is None:
                    assert chosen != previous
    assert choose(1, "k", never=0, previous=0) == 0  # nothing else: the one there is


def test_a_missed_typed_value_returns_as_its_drill_on_another_instance_each_time(
    forms_client: TestClient,
) -> None:
    client = forms_client
    api = "/api/lessons/forms-two/steps/2"
    reveal = client.post(f"{api}/prediction", json={"choice": "None", "confidence": "certain"})
    met = reveal.json()["value"]["code"]
    assert client.post(f"{api}/value", json={"value": "12345"}).json()["correct"] is False
    asked = [met]
    for _ in range(3):
        time_passes(client, HOUR)
        items = client.get("/api/review").json()["due"]
        (drill,) = [item for item in items if item["kind"] == "drill"]
        assert drill["code"] not in (met, asked[-1])  # not the lesson page's, nor the last
        url = f"/api/review/{drill['id']}/answer?form={drill['form']}"
        body = {"value": "12345", "confidence": "certain"}
        assert client.post(url, json=body).json()["correct"] is False
        asked.append(drill["code"])


def test_a_step_without_a_typed_value_may_be_asked_on_every_instance() -> None:
    """Its lesson page asks no instance, so review avoids none but the previous return's."""
    lesson = load_catalog([Path(__file__).parents[1] / "fixtures" / "variant-lessons"]).lessons[0]
    step = lesson.steps[1]
    assert step.value_prediction is None and len(instances(step)) == 3
    seen = set()
    for n in range(30):
        for asked in (None, 0, 1, 2):
            prompt = PREDICTION.prompt(lesson, "2", f"learner/{n}", "learner", asked)
            assert prompt is not None and prompt.form != asked
            seen.add(prompt.form)
    assert seen == {0, 1, 2}
