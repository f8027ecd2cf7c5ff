"""A wrong answer is kept with the review card it queues in one transaction: one turn of the
writer, one commit, and never an answer without its card (app/progress/base.py, `together`)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from tests.catalogs import LESSON
from tests.clock import time_passes

WRONG = [
    (f"{LESSON}/steps/1/prediction", {"choice": "None", "confidence": "certain"}),
    (f"{LESSON}/myths/1/answer", {"answer": "yes"}),
    (f"{LESSON}/drills/step-1.x/answer", {"value": "0"}),
]


@pytest.mark.parametrize(("path", "body"), WRONG, ids=["prediction", "myth", "drill"])
def test_a_wrong_answer_and_its_review_card_commit_once(
    client: TestClient, path: str, body: dict[str, str]
) -> None:
    client.get("/")  # the learner's cookie, before counting
    if "drills" in path:  # a drill opens once its step is answered (rightly: no card of its own)
        client.post(
            f"{LESSON}/steps/1/prediction",
            json={"choice": "tensor([4., 6.])", "confidence": "fairly_sure"},
        )
    commits: list[int] = []
    event.listen(client.app.state.store.engine, "commit", lambda _: commits.append(1))  # type: ignore[attr-defined]
    assert client.post(path, json=body).status_code == 200
    assert len(commits) == 1
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]  # the card is there
    assert item["key"] in path


def test_a_review_answer_and_the_card_it_reschedules_commit_once(client: TestClient) -> None:
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    commits: list[int] = []
    event.listen(client.app.state.store.engine, "commit", lambda _: commits.append(1))  # type: ignore[attr-defined]
    assert client.post(
        f"/api/review/{item['id']}/answer", json={"answer": "no", "confidence": "certain"}
    ).json()["correct"]
    assert len(commits) == 1
