"""The review queue: misses enter it when recorded, FSRS reschedules them, answers are graded
by the one grader."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from app.learning.queue import ReviewQueue
from app.learning.review_items import Answer
from app.main import create_app
from tests.catalogs import LESSON
from tests.conftest import make_settings

# --- The review queue -------------------------------------------------------------------------


def test_a_missed_prediction_is_reviewed_and_leaves_the_queue(client: TestClient) -> None:
    assert client.get("/api/review").json()["due_count"] == 0
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "certain"})
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
    answer = client.post(f"/api/review/{item['id']}/answer", json={"choice": "tensor([4., 6.])"})
    result = answer.json()
    assert result["correct"] is True and result["comes_back"] == "in 2 days"
    assert result["reveal"]["explanation_html"] == "<p>2x at [2, 3].</p>\n"
    assert result["due_count"] == 0
    assert client.get("/api/review").json()["scheduled"] == 1
    assert "items due" not in client.get("/").text and "item due" not in client.get("/").text
    again = client.post(f"/api/review/{item['id']}/answer", json={"choice": "None"})
    assert again.status_code == 409  # answered already: not due


def test_a_wrong_review_answer_comes_back_in_ten_minutes(client: TestClient) -> None:
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    (item,) = client.get("/api/review").json()["due"]
    assert item["kind"] == "myth" and "It starts at zero" not in str(item)  # the belief waits
    result = client.post(f"/api/review/{item['id']}/answer", json={"answer": "yes"}).json()
    assert result["reveal"]["belief_html"] == "It starts at zero."
    assert result["correct"] is False and result["comes_back"] == "in 10 minutes"
    assert "None until a backward pass" in result["reveal"]["reality_html"]
    assert (
        client.post(f"/api/review/{item['id']}/answer", json={"answer": "maybe"}).status_code == 422
    )
    assert client.post("/api/review/999999/answer", json={"answer": "yes"}).status_code == 404


def test_review_answers_must_fit_the_item(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])"})  # opens it
    client.post(f"{LESSON}/drills/step-1.x/answer", json={"value": "0"})
    (item,) = client.get("/api/review").json()["due"]
    url = f"/api/review/{item['id']}/answer"
    assert client.post(url, json={"choice": "None"}).status_code == 422  # a drill wants a value
    unreadable = client.post(url, json={"value": "four"}).json()
    assert unreadable["graded"] is False  # nothing counted: type again
    assert client.get("/api/review").json()["due_count"] == 1
    right = client.post(url, json={"value": "[4, 6]"}).json()
    assert right["graded"] is True and right["correct"] is True


def test_a_value_prediction_miss_is_reviewed_as_its_drill(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])"})  # opens it
    client.post(f"{LESSON}/steps/1/value", json={"value": "[1, 1]"})
    (item,) = client.get("/api/review").json()["due"]
    assert (item["kind"], item["key"], item["tensor"]) == ("drill", "step-1.x", "x")


def test_a_flashcard_in_review_takes_the_learners_rating(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])"})  # opens it
    client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "again"})
    (item,) = client.get("/api/review").json()["due"]
    assert item["kind"] == "flashcard"
    assert client.post(f"/api/review/{item['id']}/answer", json={}).status_code == 422
    result = client.post(f"/api/review/{item['id']}/answer", json={"rating": "easy"}).json()
    assert result["correct"] is True and result["comes_back"] == "in 8 days"


def test_a_new_miss_of_a_learned_item_is_a_lapse(database_url: str) -> None:
    app = create_app(make_settings(database_url=database_url))
    store, catalog = app.state.store, app.state.catalog
    learner = store.new_learner()
    queue = ReviewQueue(store, catalog, learner)
    now = datetime.now(UTC)
    queue.note_miss("first-steps", "myth", "1", now)
    queue.note_miss("first-steps", "myth", "1", now)  # counted once
    (card,) = store.review_cards(learner)

    outcome, memory = queue.answer(card.id, Answer(answer="no"), now) or (None, None)
    assert outcome is not None and memory is not None and outcome.correct
    assert queue.view(now).due == []
    # Forgotten a day later: back in the queue ten minutes after that miss.
    later = now + timedelta(days=1)
    queue.note_miss("first-steps", "myth", "1", later)
    (card,) = store.review_cards(learner)
    assert queue.view(later).due == []
    assert [item.card.key for item in queue.view(later + timedelta(minutes=10)).due] == ["1"]
    store.reset_modes(learner)
    assert store.review_cards(learner) == []


def test_the_review_page_says_when_nothing_is_due(client: TestClient) -> None:
    page = client.get("/review").text
    assert "Nothing to review right now" in page and "0 items due" in page
