"""Disclosure for a learner, and the honest way around it: reading a lesson ahead opens it
whole, and every answer given after that is kept as seen, not counted as understood."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.progress.models.learners import MythAnswer, ReadAhead, StepAnswer
from tests.catalogs import LESSON, page_text

TAKEAWAY = "Backward fills"  # the fixture's takeaway: reference text
PITFALL = "backward() needs a scalar"  # the fixture's pitfall root cause
MODES = (
    "/deep-dive",
    "/quick-read",
    "/step-by-step",
    "/cheat-sheet",
    "/code-lab",
    "/pitfall-fixer",
)


def _page(client: TestClient, mode: str = "") -> str:
    return page_text(client.get(f"/lessons/first-steps{mode}").text)


def test_a_fresh_learner_is_sent_no_reference_and_told_why(client: TestClient) -> None:
    for mode in MODES:
        text = _page(client, mode)
        assert TAKEAWAY not in text and PITFALL not in text, mode or "deep dive"
        assert "Read ahead: show every answer" in text, mode or "deep dive"
    lesson = client.get(LESSON).json()
    assert lesson["takeaways"] == [] and lesson["pitfalls"] == []
    assert lesson["reference_withheld"] is True
    assert client.get(f"{LESSON}/flashcards/takeaway-1").status_code == 409
    assert client.get(f"{LESSON}/pitfalls/1/fix").status_code == 409
    assert client.get(f"{LESSON}/pitfalls/1/hints/1").status_code == 409


def test_answering_the_build_up_opens_the_reference(client: TestClient) -> None:
    client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "fairly_sure"}
    )
    for mode in MODES:
        text = _page(client, mode)
        assert "Read ahead: show every answer" not in text, mode or "deep dive"
    whole = _page(client, "/deep-dive")  # the lesson's address opens the guided path's end
    assert TAKEAWAY in whole and PITFALL in whole
    assert client.get(LESSON).json()["takeaways"] == ["Backward fills `.grad` of leaves."]
    assert client.get(f"{LESSON}/flashcards/takeaway-1").status_code == 200


def test_reading_ahead_opens_everything_and_goes_back_to_the_mode(client: TestClient) -> None:
    assert client.get(f"{LESSON}/steps/1/value").status_code == 405  # a GET never opens it
    answer = client.post("/lessons/first-steps/read-ahead?mode=cheat-sheet", follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/lessons/first-steps/cheat-sheet"
    text = _page(client)
    assert TAKEAWAY in text and PITFALL in text
    assert "Answer: tensor([4., 6.])" in text  # the step's answer, drawn with it
    assert "You chose to read this lesson ahead" in text
    value = client.post(f"{LESSON}/steps/1/value", json={"value": "", "reveal": True})
    assert value.status_code == 200 and value.json()["expected"] == [4.0, 6.0]
    unknown = client.post("/lessons/nope/read-ahead", follow_redirects=False)
    assert unknown.status_code == 404


def test_answers_after_reading_ahead_are_kept_as_seen_and_not_counted(client: TestClient) -> None:
    client.post("/lessons/first-steps/read-ahead", follow_redirects=False)
    right = {"choice": "tensor([4., 6.])", "confidence": "certain"}
    assert client.post(f"{LESSON}/steps/1/prediction", json=right).json()["correct"] is True
    myth = client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"}).json()
    assert myth["correct"] is True
    assert myth["score"] == {"answered": 0, "correct": 0, "total": 1}  # kept, not scored
    calibration = client.get("/api/progress/calibration").json()
    assert calibration["based_on"] == 0
    assert [row["answered"] for row in calibration["levels"]] == [0, 0, 0]
    progress = client.get(f"{LESSON}/progress").json()
    assert progress["steps"]["1"]["answer"]["correct"] is True  # still shown to them
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.reading() as connection:
        assert connection.execute(select(StepAnswer.seen_answers)).scalars().all() == [True]
        assert connection.execute(select(MythAnswer.seen_answers)).scalars().all() == [True]
        assert len(connection.execute(select(ReadAhead)).all()) == 1


def test_answers_before_reading_ahead_still_count(client: TestClient) -> None:
    first = {"choice": "None", "confidence": "certain"}
    client.post(f"{LESSON}/steps/1/prediction", json=first)
    client.post("/lessons/first-steps/read-ahead", follow_redirects=False)
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})
    calibration = client.get("/api/progress/calibration").json()
    assert calibration["based_on"] == 1
    levels = {row["level"]: row for row in calibration["levels"]}
    assert (levels["certain"]["answered"], levels["certain"]["right"]) == (1, 0)


def test_resetting_forgets_the_read_ahead(client: TestClient) -> None:
    client.post("/lessons/first-steps/read-ahead", follow_redirects=False)
    assert TAKEAWAY in _page(client)
    assert client.post("/api/progress/reset").status_code == 204
    assert TAKEAWAY not in _page(client)
