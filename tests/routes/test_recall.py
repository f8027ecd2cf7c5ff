"""The recall that ends a lesson (app/learning/practice/recall.py), over HTTP on SQLite and PostgreSQL:
nothing of it is sent before the build-up is committed; then three questions, each a variant
instance of a different step, the same on every reload; an answer is graded as review grades
it, kept, drawn again on return, and fed to the step's review card; a forged question is
refused and nothing is kept."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.learning.kinds import PREDICTION
from app.learning.practice.recall import RECALL_SIZE, recall_questions
from app.lessons.format import Lesson
from app.lessons.loader import load_catalog
from app.lessons.variants import pick
from app.main import create_app
from app.modes.drills import value_key
from app.progress.models.learners import Learner
from app.progress.models.modes import RecallAnswer, ReviewAnswer, ReviewCard
from tests.clock import time_passes
from tests.conftest import make_settings
from tests.statements import statements_sent

FORMS = Path(__file__).parents[1] / "fixtures" / "review-forms"
VARIANTS = Path(__file__).parents[1] / "fixtures" / "variant-lessons"
LESSON = load_catalog([FORMS]).get("forms-one")
assert LESSON is not None
API = "/api/lessons/forms-one"
ITEM = re.compile(r'<li class="recall-item" data-step="(\d+)" data-form="(\d+)"')


@pytest.fixture
def recall_client(migrated_url: str) -> Iterator[TestClient]:
    """A learner's client on lessons whose steps have variants, on SQLite and PostgreSQL."""
    settings = make_settings(lessons_dir=FORMS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _learner(client: TestClient) -> str:
    """The one learner of the client's database (made by its first answer)."""
    with client.app.state.store.reading() as connection:  # type: ignore[attr-defined]
        return str(connection.scalar(select(Learner.id)))


def _commit_all(client: TestClient, lesson: Lesson = LESSON, slug: str = "forms-one") -> None:
    for number, step in enumerate(lesson.steps, start=1):
        assert step.prediction is not None
        answer = {"choice": step.prediction.answer, "confidence": "certain"}
        sent = client.post(f"/api/lessons/{slug}/steps/{number}/prediction", json=answer)
        assert sent.status_code == 200, sent.text


def _items(html: str) -> list[tuple[int, int]]:
    return [(int(step), int(form)) for step, form in ITEM.findall(html)]


def _item_html(html: str, step: int) -> str:
    start = html.index(f'<li class="recall-item" data-step="{step}"')
    return html[start : html.index("</li>", start)]


def _choices(html: str, step: int) -> list[str]:
    return re.findall(r'data-choice="([^"]*)"', _item_html(html, step))


def _count(client: TestClient, model: Any) -> int:
    with client.app.state.store.reading() as connection:  # type: ignore[attr-defined]
        return int(connection.scalar(select(func.count()).select_from(model)) or 0)


def _cards(client: TestClient) -> dict[str, Any]:
    with client.app.state.store.reading() as connection:  # type: ignore[attr-defined]
        rows = connection.execute(select(ReviewCard.key, ReviewCard.asked, ReviewCard.due)).all()
    return {row.key: row for row in rows}


def test_nothing_of_the_recall_is_sent_before_the_build_up_is_committed(
    recall_client: TestClient,
) -> None:
    client = recall_client
    client.get("/")
    for number, step in enumerate(LESSON.steps[:-1], start=1):  # all but the last
        assert step.prediction is not None
        answer = {"choice": step.prediction.answer, "confidence": "fairly_sure"}
        client.post(f"{API}/steps/{number}/prediction", json=answer)
    for page in ("deep-dive", "step-by-step"):
        html = client.get(f"/lessons/forms-one/{page}").text
        assert 'data-waiting="true"' in html and "recall-item" not in html
        for question in recall_questions(LESSON, _learner(client)):  # no instance's code
            assert question.prompt.code is not None
            assert question.prompt.code.strip() not in html
    refused = client.post(f"{API}/recall/2?form=0", json={"choice": "None", "confidence": "guess"})
    assert refused.status_code == 409
    assert refused.json()["type"] == "/problems/prediction-not-committed"
    assert _count(client, RecallAnswer) == 0


def test_three_questions_of_different_steps_on_other_numbers_the_same_on_every_reload(
    recall_client: TestClient,
) -> None:
    client = recall_client
    client.get("/")
    _commit_all(client)
    learner = _learner(client)
    html = client.get("/lessons/forms-one/deep-dive").text
    items = _items(html)
    assert len(items) == RECALL_SIZE and len({step for step, _ in items}) == RECALL_SIZE
    assert _items(client.get("/lessons/forms-one/deep-dive").text) == items  # a reload
    assert _items(client.get("/lessons/forms-one/step-by-step").text) == items
    for step, form in items:
        own = LESSON.steps[step - 1]
        assert own.snippet is not None
        shown = _item_html(html, step)
        typed = pick(own, value_key(learner, "forms-one", step), ran=True)
        assert typed is not None and typed.index != form  # not the typed value's instance
        assert own.snippet.code.strip().splitlines()[2] not in shown  # not the step's own code
    steps = [step for step, _ in items]
    assert steps[0] <= 2 and steps[-1] == len(LESSON.steps)  # early to late


def test_a_lesson_without_variants_asks_no_recall(client: TestClient) -> None:
    """The `client` fixture's lesson has no variants: its path ends without a recall."""
    client.get("/")
    client.post(
        "/api/lessons/first-steps/steps/1/prediction",
        json={"choice": "tensor([4., 6.])", "confidence": "certain"},
    )
    html = client.get("/lessons/first-steps/step-by-step").text
    assert 'class="recall' not in html
    assert "cheat-sheet" in html  # the takeaways are pointed to, not listed
    assert '<ul class="takeaways">' not in html.split('class="sbs-done')[1]


def test_a_recall_answer_is_graded_kept_drawn_again_and_feeds_the_review(
    recall_client: TestClient,
) -> None:
    client = recall_client
    client.get("/")
    _commit_all(client)
    html = client.get("/lessons/forms-one/deep-dive").text
    (step, form), (other, other_form) = _items(html)[:2]
    question = next(q for q in recall_questions(LESSON, _learner(client)) if q.number == step)
    assert question.prompt.instance is not None
    wrong = next(t for t in _choices(html, step) if t != question.prompt.instance.answer)
    before = _count(client, ReviewAnswer)

    missed = client.post(
        f"{API}/recall/{step}?form={form}", json={"choice": wrong, "confidence": "certain"}
    )
    assert missed.status_code == 200, missed.text
    answer = missed.json()
    assert answer["correct"] is False
    assert answer["reveal"]["answer"] == question.prompt.instance.answer
    assert answer["reveal"]["output"] == question.prompt.instance.output
    assert answer["comes_back"] == "in 10 minutes"
    card = _cards(client)[str(step)]  # the miss entered the queue, the form asked kept
    assert card.asked == form
    assert _count(client, ReviewAnswer) == before  # a new card: no review answered

    again = client.post(
        f"{API}/recall/{step}?form={form}", json={"choice": wrong, "confidence": "guess"}
    )
    assert again.status_code == 409 and again.json()["type"] == "/problems/not-due"
    assert _count(client, RecallAnswer) == 1

    kept = [_count(client, model) for model in (RecallAnswer, ReviewCard, ReviewAnswer)]
    shown = client.get("/lessons/forms-one/deep-dive").text  # on return: answered, revealed
    assert client.get("/lessons/forms-one/step-by-step").status_code == 200
    assert [_count(client, m) for m in (RecallAnswer, ReviewCard, ReviewAnswer)] == kept
    saved = re.search(r"data-saved='([^']*)'", _item_html(shown, step))
    assert saved is not None and wrong in saved.group(1) and '"correct": false' in saved.group(1)
    assert "data-saved" not in _item_html(shown, other)

    # The review asks the step again on another instance than the recall's.
    time_passes(client)
    due = client.get("/api/review").json()["due"]
    item = next(i for i in due if i["key"] == str(step) and i["kind"] == PREDICTION.name)
    assert item["form"] != form

    # A right answer where a card is due reviews it, as review does, and keeps the form.
    other_question = next(
        q for q in recall_questions(LESSON, _learner(client)) if q.number == other
    )
    assert other_question.prompt.instance is not None
    right = {"choice": other_question.prompt.instance.answer, "confidence": "certain"}
    client.post(f"{API}/steps/{other}/prediction", json={"choice": "None", "confidence": "certain"})
    time_passes(client)  # the miss on the lesson page made a card of `other`, now due
    reviewed = client.post(f"{API}/recall/{other}?form={other_form}", json=right)
    assert reviewed.status_code == 200 and reviewed.json()["correct"] is True
    assert reviewed.json()["comes_back"] is not None
    assert _cards(client)[str(other)].asked == other_form
    assert _count(client, ReviewAnswer) == before + 1


def test_a_forged_question_is_refused_and_nothing_is_kept(recall_client: TestClient) -> None:
    client = recall_client
    client.get("/")
    _commit_all(client)
    items = _items(client.get("/lessons/forms-one/deep-dive").text)
    asked = {step for step, _ in items}
    step, form = items[0]
    absent = next(n for n in range(1, len(LESSON.steps) + 1) if n not in asked)
    body = {"choice": "None", "confidence": "certain"}
    refusals = {
        f"{API}/recall/{absent}?form=0": (404, "unknown-step"),
        f"{API}/recall/99?form=0": (404, "unknown-step"),
        f"{API}/recall/{step}?form={form + 1 if form < 2 else 0}": (422, "not-the-form-asked"),
        f"{API}/recall/{step}?form=-1": (422, None),
        f"{API}/recall/{step}": (422, None),
        "/api/lessons/no-such-lesson/recall/1?form=0": (404, "unknown-lesson"),
    }
    for url, (status, problem) in refusals.items():
        refused = client.post(url, json=body)
        assert refused.status_code == status, (url, refused.text)
        if problem:
            assert refused.json()["type"] == f"/problems/{problem}"
    not_a_choice = client.post(
        f"{API}/recall/{step}?form={form}", json={"choice": "<b>x</b>", "confidence": "certain"}
    )
    assert not_a_choice.status_code == 422
    no_confidence = client.post(f"{API}/recall/{step}?form={form}", json={"choice": "None"})
    assert no_confidence.status_code == 422
    assert _count(client, RecallAnswer) == 0 and _count(client, ReviewCard) == 0


def test_a_lesson_with_fewer_steps_with_variants_asks_fewer(migrated_url: str) -> None:
    lesson = load_catalog([VARIANTS]).get("other-numbers")
    assert lesson is not None
    settings = make_settings(lessons_dir=VARIANTS, database_url=migrated_url)
    with TestClient(create_app(settings)) as client:
        client.get("/")
        _commit_all(client, lesson, "other-numbers")
        items = _items(client.get("/lessons/other-numbers/deep-dive").text)
    assert [step for step, _ in items] == [1, 2]


def _statements(client: TestClient, url: str) -> int:
    engine = client.app.state.store.engine  # type: ignore[attr-defined]
    return len(statements_sent(engine, lambda: client.get(url)))


def test_the_recall_reads_once_and_only_once_the_build_up_is_committed(
    recall_client: TestClient,
) -> None:
    """The lesson's pages read two statements (its state, the modes chosen) as before the
    recall; once every step is committed, five more: the learner's recall answers and what
    they were shown (app/learning/practice/seen.py: their review cards, the forms their review answers
    answered, their drill answers, their myth answers counted), so that a recall question
    asks an instance they were not shown."""
    client = recall_client
    client.get("/")
    pages = (
        "/lessons/forms-one",
        "/lessons/forms-one/step-by-step",
        "/lessons/forms-one/deep-dive",
    )
    *first, last = LESSON.steps
    for number, step in enumerate(first, start=1):
        assert step.prediction is not None
        answer = {"choice": step.prediction.answer, "confidence": "fairly_sure"}
        client.post(f"{API}/steps/{number}/prediction", json=answer)
    assert [_statements(client, page) for page in pages] == [2, 2, 2]
    assert last.prediction is not None
    answer = {"choice": last.prediction.answer, "confidence": "fairly_sure"}
    client.post(f"{API}/steps/{len(LESSON.steps)}/prediction", json=answer)
    assert [_statements(client, page) for page in pages] == [7, 7, 7]
