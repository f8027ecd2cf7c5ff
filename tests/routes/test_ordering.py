"""The ordering kind end to end, on the real curriculum with the real sandbox, on SQLite and
PostgreSQL: an order is graded by running it (any order that prints the step's output passes),
kept as the step's committed answer, and nothing sent before the commit gives the order."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.lessons.format import Lesson, Step
from tests.catalogs import BUNDLED
from tests.clock import time_passes


def ordering_step(slug: str) -> tuple[Lesson, int, Step]:
    lesson = BUNDLED.get(slug)
    assert lesson is not None
    number, step = next((n, s) for n, s in enumerate(lesson.steps, 1) if s.ordering is not None)
    return lesson, number, step


def lines(slug: str) -> list[str]:
    _, _, step = ordering_step(slug)
    assert step.ordering is not None
    return step.ordering.texts


def commit(
    curriculum_learner: TestClient, slug: str, order: list[str], confidence: str | None = "certain"
):  # type: ignore[no-untyped-def]
    _, number, _ = ordering_step(slug)
    body: dict[str, object] = {"order": order}
    if confidence:
        body["confidence"] = confidence
    return curriculum_learner.post(f"/api/lessons/{slug}/steps/{number}/ordering", json=body)


def test_six_lessons_ask_an_ordering() -> None:
    asking = [lesson.slug for lesson in BUNDLED.lessons if any(s.ordering for s in lesson.steps)]
    assert len(asking) >= 6


def test_the_lessons_order_passes_and_is_kept_as_the_steps_answer(
    curriculum_learner: TestClient,
) -> None:
    slug = "what-is-grad"
    _, number, step = ordering_step(slug)
    answer = commit(curriculum_learner, slug, lines(slug))
    assert answer.status_code == 200, answer.text
    reveal = answer.json()
    assert reveal["correct"] is True
    assert reveal["output"] == reveal["expected"] == step.snippet.output == "tensor(3.)\n"
    assert reveal["answer"] == lines(slug) and reveal["error"] is None
    assert reveal["step"]["insight_html"]
    saved = curriculum_learner.get(f"/api/lessons/{slug}/progress").json()["steps"][str(number)]
    assert saved["done"] is True
    assert saved["answer"]["kind"] == "ordering" and saved["answer"]["correct"] is True
    assert saved["answer"]["sent"] == {"order": lines(slug)}
    assert step.ordering is not None


def test_another_order_that_behaves_the_same_passes(curriculum_learner: TestClient) -> None:
    # The hook may be registered before or after the loss is built: only before backward().
    slug = "retain-grad-and-hooks"
    y, hook, z, backward, show = lines(slug)
    assert commit(curriculum_learner, slug, [y, z, hook, backward, show]).json()["correct"] is True
    # Registered after backward(), it never fires.
    late = commit(curriculum_learner, slug, [y, z, backward, hook, show]).json()
    assert late["correct"] is False and late["output"] == "x.grad: tensor([18., 36.])\n"
    assert late["attempt"] == 2


def test_a_wrong_order_is_graded_by_what_it_prints_or_raises(
    curriculum_learner: TestClient,
) -> None:
    slug = "what-is-grad"
    square, backward, show = lines(slug)
    early = commit(curriculum_learner, slug, [square, show, backward]).json()
    assert early["correct"] is False and early["output"] == "None\n"
    raises = commit(curriculum_learner, slug, [backward, square, show]).json()
    assert raises["correct"] is False and raises["error"]["type"] == "NameError"
    # Two right orders of the loop body, and one that wipes .grad before step() reads it.
    slug = "grad-in-training-loops"
    zero, loss, backward, step, show = lines(slug)
    assert (
        commit(curriculum_learner, slug, [loss, zero, backward, step, show]).json()["correct"]
        is True
    )
    assert (
        commit(curriculum_learner, slug, [loss, backward, step, zero, show]).json()["correct"]
        is True
    )
    assert (
        commit(curriculum_learner, slug, [loss, backward, zero, step, show]).json()["correct"]
        is False
    )


def test_an_order_that_is_not_of_the_lines_is_refused_and_nothing_is_kept(
    curriculum_learner: TestClient,
) -> None:
    slug = "what-is-grad"
    _, number, _ = ordering_step(slug)
    square, backward, _ = lines(slug)
    for order in ([square, backward], [square, backward, "import os"], [square] * 3):
        refused = commit(curriculum_learner, slug, order)
        assert refused.status_code == 422, refused.text
    assert commit(curriculum_learner, slug, lines(slug), confidence=None).status_code == 422
    steps = curriculum_learner.get(f"/api/lessons/{slug}/progress").json()["steps"]
    assert str(number) not in steps


def test_nothing_sent_before_the_commit_gives_the_order(curriculum_learner: TestClient) -> None:
    for lesson in BUNDLED.lessons:
        for number, step in enumerate(lesson.steps, 1):
            if step.ordering is None or step.snippet is None:
                continue
            sent = curriculum_learner.get(f"/api/lessons/{lesson.slug}").json()["steps"][number - 1]
            assert "snippet" not in sent and "concept" not in sent and "insight" not in sent
            asked = sent["ordering"]
            assert set(asked) == {"question", "head", "lines", "output"}
            assert sorted(asked["lines"]) == sorted(step.ordering.texts)
            assert asked["lines"] != step.ordering.texts
            assert asked["output"] == step.snippet.output
            page = curriculum_learner.get(f"/lessons/{lesson.slug}").text
            assert step.snippet.code.strip() not in page
            assert step.ordering.explanation.strip()[:60] not in page


def test_each_learner_has_an_order_of_their_own(curriculum_app: TestClient) -> None:
    slug = "retain-grad-and-hooks"
    orders = set()
    for _ in range(4):
        curriculum_app.cookies.clear()
        curriculum_app.get(f"/lessons/{slug}")  # the page gives the visitor an id
        sent = curriculum_app.get(f"/api/lessons/{slug}").json()["steps"]
        orders.add(tuple(next(s for s in sent if s.get("ordering"))["ordering"]["lines"]))
    assert len(orders) > 1


def test_the_class_dashboard_counts_each_order_sent(curriculum_learner: TestClient) -> None:
    store = curriculum_learner.app.state.store  # type: ignore[attr-defined]
    links = store.create_class("Orderings")
    slug = "what-is-grad"
    _, number, _ = ordering_step(slug)
    square, backward, show = lines(slug)
    sent = [lines(slug), [square, show, backward], lines(slug)]
    for n, order in enumerate(sent):
        curriculum_learner.cookies.clear()
        joined = curriculum_learner.post(
            f"/api/join/{links.join_token}", json={"display_name": f"L{n}"}
        )
        assert joined.status_code == 200
        assert commit(curriculum_learner, slug, order).status_code == 200
        commit(
            curriculum_learner, slug, lines(slug)
        )  # a later attempt follows the reveal: not counted
    curriculum_learner.cookies.clear()
    curriculum_learner.get(f"/teach/{links.instructor_token}", follow_redirects=False)
    items = curriculum_learner.get(f"/api/classes/{links.info.id}/items").json()["items"]
    item = next(i for i in items if i["lesson"] == slug and i["number"] == number)
    assert item["kind"] == "ordering" and item["answered"] == 3
    assert item["difficulty"] == pytest.approx(2 / 3)
    rows = {row["text"]: (row["picked"], row["correct"]) for row in item["choices"]}
    assert rows == {
        "`y = x ** 2` → `y.backward()` → `print(x.grad)`": (2, True),
        "`y = x ** 2` → `print(x.grad)` → `y.backward()`": (1, False),
    }
    page = curriculum_learner.get(f"/classes/{links.info.id}").text
    assert f'id="item-{slug}-ordering-{number}"' in page


def test_a_missed_ordering_comes_back_in_review_shuffled_and_graded_by_a_run(
    curriculum_learner: TestClient,
) -> None:
    slug = "retain-grad-and-hooks"
    _, number, step = ordering_step(slug)
    y, hook, z, backward, show = lines(slug)
    missed = commit(curriculum_learner, slug, [y, z, backward, hook, show]).json()
    assert missed["correct"] is False and missed["comes_back"] is None  # it enters the queue
    assert (
        curriculum_learner.get("/api/review").json()["due_count"] == 0
    )  # spaced: never due at once
    time_passes(curriculum_learner)
    item = curriculum_learner.get("/api/review").json()["due"][0]
    assert (item["kind"], item["lesson"], item["key"]) == ("ordering", slug, str(number))
    assert item["link"] == f"/lessons/{slug}/step-by-step#step-{number}"
    drawn = curriculum_learner.get("/review").text.split('class="review-item"', 1)[1]
    assert 'data-widget="ordering"' in drawn and "Check my order" in drawn
    assert drawn.count('class="ordering-line"') == len(lines(slug))
    assert drawn.count('<fieldset class="confidence">') == 1  # the review item's own
    assert step.snippet is not None and step.snippet.code.strip() not in drawn
    refused = curriculum_learner.post(f"/api/review/{item['id']}/answer", json={"choice": "x"})
    assert refused.status_code == 422  # graded by running it, not by the queue's answer
    solved = commit(curriculum_learner, slug, [y, hook, z, backward, show]).json()
    assert solved["correct"] is True and solved["due_count"] == 0
    assert solved["comes_back"]
    assert curriculum_learner.get("/api/review").json()["due_count"] == 0


def test_an_order_given_as_certain_and_wrong_counts_in_calibration_and_comes_back_first(
    curriculum_learner: TestClient,
) -> None:
    slug = "retain-grad-and-hooks"
    _, number, _ = ordering_step(slug)
    y, hook, z, backward, show = lines(slug)
    curriculum_learner.post(
        "/api/lessons/what-is-grad/myths/1/answer", json={"answer": "yes"}
    )  # a miss
    assert (
        commit(curriculum_learner, slug, [y, z, backward, hook, show], "certain").json()["correct"]
        is False
    )
    assert commit(curriculum_learner, slug, [y, hook, z, backward, show], "certain").json()[
        "correct"
    ]
    out = curriculum_learner.get("/api/progress/calibration").json()
    levels = {row["level"]: row for row in out["levels"]}
    assert (levels["certain"]["answered"], levels["certain"]["right"]) == (1, 0)  # the first
    assert [(m["lesson"], m["step"]) for m in out["certain_misses"]] == [(slug, number)]
    time_passes(curriculum_learner)
    due = curriculum_learner.get("/api/review").json()["due"]
    assert due[0]["kind"] == "ordering"  # a certain miss first, before the older myth
