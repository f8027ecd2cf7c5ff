"""The review queue: misses enter it when recorded, FSRS reschedules them, answers are graded
by the one grader."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import update

from app.config.paths import BUNDLED_LESSONS
from app.learning.kinds import MYTH, ORDERING, PREDICTION
from app.learning.practice.queue import ReviewQueue
from app.main import create_app
from app.progress.models.modes import ReviewCard
from tests.catalogs import BUNDLED, LESSON
from tests.clock import time_passes
from tests.conftest import make_settings

# --- The review queue -------------------------------------------------------------------------


def test_a_missed_prediction_is_reviewed_and_leaves_the_queue(client: TestClient) -> None:
    assert client.get("/api/review").json()["due_count"] == 0
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "certain"})
    time_passes(client)
    queue = client.get("/api/review").json()
    (item,) = queue["due"]
    assert (item["kind"], item["key"], sorted(item["choices"])) == (
        "prediction",
        "1",
        ["None", "tensor([4., 6.])"],
    )
    assert "2x at [2, 3]" not in str(item)  # the answer is not in the prompt
    assert "1 item due" in client.get("/").text
    assert "What does" in client.get("/review").text
    answer = client.post(
        f"/api/review/{item['id']}/answer",
        json={"choice": "tensor([4., 6.])", "confidence": "certain"},
    )
    result = answer.json()
    assert result["correct"] is True and result["comes_back"] == "in 2 days"
    assert result["reveal"]["explanation_html"] == "<p>2x at [2, 3].</p>\n"
    assert result["due_count"] == 0
    # The step has one version: answered right, it leaves review rather than come back as is.
    assert result["left"] is True
    assert client.get("/api/review").json()["scheduled"] == 0
    assert "items due" not in client.get("/").text and "item due" not in client.get("/").text
    again = client.post(
        f"/api/review/{item['id']}/answer", json={"choice": "None", "confidence": "guess"}
    )
    assert again.status_code == 409  # answered already: not due


def test_a_wrong_review_answer_comes_back_in_ten_minutes(client: TestClient) -> None:
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    assert item["kind"] == "myth" and "It starts at zero" not in str(item)  # the belief waits
    url = f"/api/review/{item['id']}/answer"
    assert client.post(url, json={"answer": "yes"}).status_code == 422  # how sure, first
    result = client.post(url, json={"answer": "yes", "confidence": "fairly_sure"}).json()
    assert result["reveal"]["belief_html"] == "It starts at zero."
    assert result["correct"] is False and result["comes_back"] == "in 10 minutes"
    assert "None until a backward pass" in result["reveal"]["reality_html"]
    assert client.post(url, json={"answer": "maybe", "confidence": "guess"}).status_code == 422
    missing = client.post(
        "/api/review/999999/answer", json={"answer": "yes", "confidence": "guess"}
    )
    assert missing.status_code == 404


def test_review_answers_must_fit_the_item(client: TestClient) -> None:
    client.post(
        f"{LESSON}/steps/1/prediction",
        json={"choice": "tensor([4., 6.])", "confidence": "fairly_sure"},
    )  # opens it
    client.post(f"{LESSON}/drills/step-1.x/answer", json={"value": "0"})
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    url = f"/api/review/{item['id']}/answer"
    sure = {"confidence": "certain"}
    assert client.post(url, json={"choice": "None", **sure}).status_code == 422  # wants a value
    unreadable = client.post(url, json={"value": "four", **sure}).json()
    assert unreadable["graded"] is False  # nothing counted: type again
    assert client.get("/api/review").json()["due_count"] == 1
    right = client.post(url, json={"value": "[4, 6]", **sure}).json()
    assert right["graded"] is True and right["correct"] is True


def test_a_value_prediction_miss_is_reviewed_as_its_drill(client: TestClient) -> None:
    client.post(
        f"{LESSON}/steps/1/prediction",
        json={"choice": "tensor([4., 6.])", "confidence": "fairly_sure"},
    )  # opens it
    client.post(f"{LESSON}/steps/1/value", json={"value": "[1, 1]"})
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    assert (item["kind"], item["key"], item["tensor"]) == ("drill", "step-1.x", "x")


def test_a_flashcard_in_review_takes_the_learners_rating(client: TestClient) -> None:
    client.post(
        f"{LESSON}/steps/1/prediction",
        json={"choice": "tensor([4., 6.])", "confidence": "fairly_sure"},
    )  # opens it
    client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "again"})
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    assert item["kind"] == "flashcard"
    assert client.post(f"/api/review/{item['id']}/answer", json={}).status_code == 422
    result = client.post(f"/api/review/{item['id']}/answer", json={"rating": "easy"}).json()
    assert result["correct"] is True and result["comes_back"] == "in 8 days"


def test_a_new_miss_of_a_learned_item_is_a_lapse(migrated_url: str) -> None:
    app = create_app(make_settings(database_url=migrated_url))
    store, catalog = app.state.store, app.state.catalog
    learner = store.new_learner()
    queue = ReviewQueue(store, catalog, learner)
    now = datetime.now(UTC)
    queue.note_miss("first-steps", MYTH, "1", now)
    queue.note_miss("first-steps", MYTH, "1", now)  # counted once
    (card,) = store.review_cards(learner)
    assert queue.view(now).due == []  # not at once: after the learning step
    now += timedelta(minutes=10)
    answer = {"answer": "no", "confidence": "certain"}
    outcome, memory = queue.answer(card.id, answer, now) or (None, None)
    assert outcome is not None and memory is not None and outcome.correct
    assert queue.view(now).due == []
    # Forgotten a day later: back in the queue ten minutes after that miss.
    later = now + timedelta(days=1)
    queue.note_miss("first-steps", MYTH, "1", later)
    (card,) = store.review_cards(learner)
    assert queue.view(later).due == []
    assert [item.card.key for item in queue.view(later + timedelta(minutes=10)).due] == ["1"]
    store.reset_modes(learner)
    assert store.review_cards(learner) == []


def test_the_due_count_is_the_views_without_drawing_what_is_not_due(migrated_url: str) -> None:
    app = create_app(make_settings(database_url=migrated_url))
    store, catalog = app.state.store, app.state.catalog
    learner = store.new_learner()
    queue = ReviewQueue(store, catalog, learner)
    now = datetime.now(UTC)
    queue.note_miss("first-steps", MYTH, "1", now)
    queue.note_miss("first-steps", MYTH, "1", now - timedelta(minutes=5))
    queue.note_miss("no-such-lesson", MYTH, "1", now - timedelta(hours=1))  # gone: never due
    queue.note_miss("second-steps", MYTH, "1", now - timedelta(hours=1))
    queue.note_miss("first-steps", PREDICTION, "1", now - timedelta(hours=1))
    rewritten = next(c for c in store.review_cards(learner) if c.kind == PREDICTION.name)
    with store.engine.begin() as connection:  # its question was since rewritten: never due
        connection.execute(
            update(ReviewCard).where(ReviewCard.id == rewritten.id).values(fingerprint="older")
        )
    cards = store.review_cards(learner)
    other = next(card.memory.due for card in cards if card.lesson == "second-steps")
    moments = [now, now + timedelta(minutes=10), now + timedelta(days=30), other]
    for moment in [*moments, other - timedelta(microseconds=1)]:
        assert queue.due_count(moment) == queue.view(moment).due_total
    assert [queue.due_count(moment) for moment in moments] == [1, 2, 2, 1]
    assert queue.due_count(other - timedelta(microseconds=1)) == 0  # due at, not before


def test_an_order_missed_as_certain_comes_back_first_and_one_sent_in_review_is_weighed(
    migrated_url: str,
) -> None:
    # An ordering is graded by a run on its page (`note_check`), and weighed by how sure the
    # learner said they were, as a review answer is.
    settings = make_settings(lessons_dir=BUNDLED_LESSONS, database_url=migrated_url)
    app = create_app(settings)
    store, catalog = app.state.store, app.state.catalog
    lesson = next(one for one in BUNDLED.lessons if any(step.ordering for step in one.steps))
    key = str(next(n for n, step in enumerate(lesson.steps, 1) if step.ordering is not None))
    now = datetime.now(UTC)
    for confidence, urgent in (("certain", True), ("guess", False), (None, False)):
        learner = store.new_learner()
        queue = ReviewQueue(store, catalog, learner)
        assert queue.note_check(lesson.slug, ORDERING, key, False, now, confidence) is None
        (card,) = store.review_cards(learner)
        assert card.kind == ORDERING.name and card.memory.urgent is urgent, confidence
        # Due: a right order given as a guess is reviewed as `hard`, and comes back first.
        later = now + timedelta(minutes=10)
        memory = queue.note_check(lesson.slug, ORDERING, key, True, later, "guess")
        assert memory is not None
        (card,) = store.review_cards(learner)
        assert card.memory.urgent is True


def test_the_review_page_says_when_nothing_is_due(client: TestClient) -> None:
    page = client.get("/review").text
    assert "Nothing to review right now" in page and "0 items in this sitting" in page


# --- Spaced, mixed and varied -----------------------------------------------------------------


def test_a_miss_is_not_due_at_once_but_after_a_learning_step(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "again"})
    queue = client.get("/api/review").json()
    assert (queue["due_count"], queue["scheduled"]) == (0, 3)
    assert queue["next_due_text"] == "in 10 minutes"
    assert "Nothing to review right now" in client.get("/review").text
    time_passes(client)
    assert client.get("/api/review").json()["due_count"] == 3


def _wrong_choice(step_prediction: object) -> str:
    texts: list[str] = step_prediction.texts  # type: ignore[attr-defined]
    answer: str = step_prediction.answer  # type: ignore[attr-defined]
    return next(text for text in texts if text != answer)


def test_a_sitting_mixes_lessons_and_kinds_and_is_capped(migrated_url: str) -> None:
    settings = make_settings(
        lessons_dir=BUNDLED_LESSONS, review_sitting=6, database_url=migrated_url
    )
    lessons = BUNDLED.lessons[:3]
    with TestClient(create_app(settings)) as learner:
        missed = 0
        for lesson in lessons:  # lesson by lesson, as a learner works through them
            api = f"/api/lessons/{lesson.slug}"
            for number, step in enumerate(lesson.steps, start=1):
                if step.prediction is not None:
                    body = {"choice": _wrong_choice(step.prediction), "confidence": "fairly_sure"}
                    assert learner.post(f"{api}/steps/{number}/prediction", json=body).is_success
                    missed += 1
            for number, myth in enumerate(lesson.myths, start=1):
                wrong = "no" if myth.answer == "yes" else "yes"
                assert learner.post(
                    f"{api}/myths/{number}/answer", json={"answer": wrong}
                ).is_success
                missed += 1
        time_passes(learner)
        queue = learner.get("/api/review").json()
    assert queue["due_count"] == missed > 6 and queue["sitting"] == 6
    sitting = queue["due"]
    assert len(sitting) == 6  # capped
    order = [item["lesson"] for item in sitting]
    assert set(order[:3]) == {lesson.slug for lesson in lessons}  # lessons take turns
    assert all(a != b for a, b in itertools.pairwise(order))  # never blocked by lesson
    assert {item["kind"] for item in sitting} == {"prediction", "myth"}  # kinds mixed
    stored = sorted(sitting, key=lambda item: item["id"])
    assert sitting != stored  # not in database order


def test_a_right_guess_and_a_confident_miss_come_back_first(client: TestClient) -> None:
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})  # a plain miss, first
    right = {"choice": "tensor([4., 6.])", "confidence": "guess"}
    assert client.post(f"{LESSON}/steps/1/prediction", json=right).json()["correct"] is True
    time_passes(client)
    due = client.get("/api/review").json()["due"]
    assert [(item["kind"], item["key"]) for item in due] == [("prediction", "1"), ("myth", "1")]
    # Right again, but still a guess: it comes back sooner than a sure answer would.
    guess = client.post(f"/api/review/{due[0]['id']}/answer", json=right).json()
    assert guess["correct"] is True and guess["comes_back"] == "in 15 minutes"


def test_a_right_answer_given_as_sure_is_not_queued(client: TestClient) -> None:
    sure = {"choice": "tensor([4., 6.])", "confidence": "fairly_sure"}
    client.post(f"{LESSON}/steps/1/prediction", json=sure)
    time_passes(client)
    assert client.get("/api/review").json()["scheduled"] == 0
    assert client.get("/api/review").json()["due_count"] == 0


def test_each_return_asks_its_choices_in_a_new_order(migrated_url: str) -> None:
    settings = make_settings(lessons_dir=BUNDLED_LESSONS, database_url=migrated_url)
    app = create_app(settings)
    store, catalog = app.state.store, app.state.catalog
    slug, number, texts = next(
        (lesson.slug, n, step.prediction.texts)
        for lesson in catalog.lessons
        for n, step in enumerate(lesson.steps, start=1)
        if step.prediction is not None and len(step.prediction.texts) >= 4
    )
    learner = store.new_learner()
    queue = ReviewQueue(store, catalog, learner)
    now = datetime.now(UTC)
    queue.note_miss(slug, PREDICTION, str(number), now)
    (card,) = store.review_cards(learner)
    orders = set()
    for day in range(1, 11):  # ten returns, each one rescheduling the card
        store.update_review_card(card.id, replace(card.memory, due=now + timedelta(days=day)))
        (item,) = queue.view(now + timedelta(days=day)).due
        assert sorted(item.prompt.choices) == sorted(texts)
        assert queue.view(now + timedelta(days=day)).due[0].prompt.choices == item.prompt.choices
        orders.add(tuple(item.prompt.choices))
        (card,) = store.review_cards(learner)
    assert len(orders) > 1  # not the one fixed order of this learner
