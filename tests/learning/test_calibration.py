"""Calibration on /progress, and what resetting forgets."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.catalogs import LESSON

# --- Calibration ------------------------------------------------------------------------------


def test_calibration_counts_first_attempts_per_confidence(client: TestClient) -> None:
    empty = client.get("/api/progress/calibration").json()
    assert [row["answered"] for row in empty["levels"]] == [0, 0, 0]
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "certain"})
    # A second attempt comes after the answer was shown: it does not count.
    client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])", "confidence": "certain"}
    )
    levels = {row["level"]: row for row in client.get("/api/progress/calibration").json()["levels"]}
    assert (levels["certain"]["answered"], levels["certain"]["right"]) == (1, 0)
    assert levels["certain"]["percent"] == 0 and levels["guess"]["percent"] is None
    page = client.get("/progress").text
    assert "0% right" in page and "(0 of 1)" in page and "no answers yet" in page


def test_reset_my_progress_also_empties_the_review_queue_and_modes(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])"})  # opens it
    client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "again"})
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    assert client.get("/api/review").json()["due_count"] >= 1
    assert client.post("/api/progress/reset").status_code == 204
    assert client.get("/api/review").json()["due_count"] == 0
    assert client.get("/api/progress/calibration").status_code == 200
