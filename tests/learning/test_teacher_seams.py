"""What a teacher meets: one meaning of "done" on the dashboard, the progress page and the LTI
grade; a CSV export a spreadsheet opens as it is; calibration advice told about the class, not
to it; and reported problems on their question's card. On SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli import main
from app.learning.lti.grades import lesson_score, score_body
from app.pedagogy.calibration import MIN_ANSWERS, LevelStats, advice
from tests.conftest import FIXTURE_LESSONS

LESSON = "first-steps"
PREDICTION = f"/api/lessons/{LESSON}/steps/1/prediction"
MYTH = f"/api/lessons/{LESSON}/myths/1/answer"
RIGHT = "tensor([4., 6.])"


def _class(client: TestClient) -> tuple[str, str, str]:
    links = client.app.state.store.create_class("Section B")  # type: ignore[attr-defined]
    return links.info.id, links.join_token, links.instructor_token


def _learner(client: TestClient, join: str, name: str) -> str:
    client.cookies.clear()
    assert client.post(f"/api/join/{join}", json={"display_name": name}).status_code == 200
    learner: str = client.get("/api/progress/export").json()["learner"]
    return learner


def _instructor(client: TestClient, instructor: str) -> None:
    client.cookies.clear()
    assert client.get(f"/teach/{instructor}", follow_redirects=False).status_code == 303


def _agree(client: TestClient, class_id: str, instructor: str, learner: str) -> bool:
    """Whether the dashboard, the progress API and the LTI grade call the lesson done, after
    asserting that they agree."""
    cookies = dict(client.cookies)
    progress = client.get("/api/progress").json()["lessons"][LESSON]["done"]
    app = client.app
    lesson = app.state.catalog.get(LESSON)  # type: ignore[attr-defined]
    score = lesson_score(app.state.store, learner, lesson)  # type: ignore[attr-defined]
    grade = json.loads(score_body(score, "sub", datetime.now(UTC)))["activityProgress"]
    _instructor(client, instructor)
    roster = client.get(f"/api/classes/{class_id}").json()["roster"]
    client.cookies.clear()
    client.cookies.update(cookies)
    dashboard = roster[0]["lessons_done"] == 1
    assert progress == dashboard == (grade == "Completed"), (progress, dashboard, grade)
    return bool(progress)


def test_done_means_the_same_on_the_dashboard_the_progress_page_and_the_lti_grade(
    client: TestClient,
) -> None:
    class_id, join, instructor = _class(client)
    learner = _learner(client, join, "Ada")
    assert not _agree(client, class_id, instructor, learner)
    client.post(PREDICTION, json={"choice": RIGHT, "confidence": "certain"})
    assert not _agree(client, class_id, instructor, learner)  # the myth is still unanswered
    client.post(MYTH, json={"answer": "no"})
    assert _agree(client, class_id, instructor, learner)
    assert "done · " in client.get("/progress").text


def _export(client: TestClient, class_id: str) -> tuple[bytes, list[dict[str, str]]]:
    response = client.get(f"/api/classes/{class_id}/export.csv")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    return response.content, rows


def test_the_export_opens_in_a_spreadsheet_as_it_is(client: TestClient) -> None:
    class_id, join, instructor = _class(client)
    _learner(client, join, "=Honest")
    client.post(PREDICTION, json={"choice": "None", "confidence": "fairly_sure"})
    client.post(MYTH, json={"answer": "no"})
    _learner(client, join, "Reader")
    client.post(f"/lessons/{LESSON}/read-ahead", follow_redirects=False)
    client.post(PREDICTION, json={"choice": RIGHT, "confidence": "certain"})
    _instructor(client, instructor)
    raw, rows = _export(client, class_id)
    assert raw.startswith(b"\xef\xbb\xbflearner,lesson,")  # UTF-8 with a byte order mark
    assert len(rows) == 3  # one row per first attempt, the left-out one included
    by = {(row["learner"], row["kind"]): row for row in rows}
    honest = by[("'=Honest", "prediction")]  # a name is never a formula
    assert honest["lesson"] == "First steps with .grad"  # the title, not the slug
    assert honest["question"] == "What does x.grad print?"  # plain text, no Markdown
    assert (honest["answer"], honest["right_answer"]) == ("None", RIGHT)
    assert (honest["correct"], honest["confidence"]) == ("wrong", "fairly sure")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", honest["answered_at"])
    assert honest["left_out_of_statistics"] == ""
    myth = by[("'=Honest", "myth")]
    assert myth["question"] == "Is .grad filled when the tensor is created?"
    assert (myth["right_answer"], myth["correct"], myth["confidence"]) == ("no", "right", "")
    reader = by[("Reader", "prediction")]
    assert reader["left_out_of_statistics"] == "read the lesson ahead (saw the answers first)"
    # The dashboard leaves out the same row the CSV marks.
    assert client.get(f"/api/classes/{class_id}").json()["left_out"] == 1


def test_the_dashboard_tells_the_teacher_about_the_class_not_the_learner(
    client: TestClient,
) -> None:
    class_id, join, instructor = _class(client)
    # Right guesses, as many as a level needs to be judged: the class is underconfident.
    for n in range(MIN_ANSWERS):
        _learner(client, join, f"Learner {n}")
        client.post(PREDICTION, json={"choice": RIGHT, "confidence": "guess"})
    _instructor(client, instructor)
    told = client.get(f"/api/classes/{class_id}").json()["calibration_advice"]
    assert "your learners say “Guess” they are right more often" in told
    assert "they know more than they give themselves credit for" in told
    page = client.get(f"/classes/{class_id}").text
    assert "they know more than they give themselves credit for" in page
    assert "you know more" not in page and "give yourself" not in page


def test_advice_to_a_teacher_never_speaks_to_a_learner() -> None:
    cases = [
        [],
        [LevelStats("certain", "Certain", MIN_ANSWERS, 5)],  # overconfident
        [LevelStats("guess", "Guess", MIN_ANSWERS, MIN_ANSWERS)],  # underconfident
        [LevelStats("fairly_sure", "Fairly sure", MIN_ANSWERS, 18)],  # matches
        [LevelStats("certain", "Certain", 2, 1)],  # too few
    ]
    for levels in cases:
        told = advice(levels, teacher=True)
        # "your learners" speaks to the teacher; "you", "yourself", "your results" to a learner.
        assert told and not re.search(r"\byou\b|yourself|your (?!learners)", told, re.I), told
    # The learner's own page still speaks to them.
    assert "you know more than you give yourself credit for" in advice(cases[2])


def test_a_report_is_on_its_questions_card_with_the_lessons_title(client: TestClient) -> None:
    class_id, join, instructor = _class(client)
    _learner(client, join, "Ada")
    client.post(PREDICTION, json={"choice": "None", "confidence": "guess"})
    body = {"kind": "prediction", "number": 1, "text": "Choice <b>two</b> looks the same"}
    assert client.post(f"/api/lessons/{LESSON}/report", json=body).status_code == 204
    _instructor(client, instructor)
    page = client.get(f"/classes/{class_id}").text
    card = page.split(f'id="item-{LESSON}-prediction-1"')[1].split("</article>")[0]
    assert "Choice &lt;b&gt;two&lt;/b&gt; looks the same" in card
    summary = page.split('id="reports"')[1].split("</section>")[0]
    assert f'href="#item-{LESSON}-prediction-1">First steps with .grad, prediction 1' in summary


def test_stats_for_one_lesson_has_the_figures_of_the_whole(
    client: TestClient, migrated_url: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """`gradlab stats --lesson` shows a lesson's rows with the same discrimination as without
    it and as the dashboard: each learner's share right is over every question."""
    class_id, join, instructor = _class(client)
    # Six learners: their first-steps answers alone would give another discrimination than
    # with second-steps' myth counted in each learner's share right.
    for n in range(6):
        _learner(client, join, f"Learner {n}")
        client.post(PREDICTION, json={"choice": RIGHT if n % 2 else "None", "confidence": "guess"})
        client.post(MYTH, json={"answer": "no" if n % 3 else "yes"})
        client.post(
            "/api/lessons/second-steps/myths/1/answer", json={"answer": "yes" if n < 3 else "no"}
        )
    _instructor(client, instructor)
    board = {
        (i["lesson"], i["kind"], i["number"]): i["discrimination"]
        for i in client.get(f"/api/classes/{class_id}/items").json()["items"]
    }
    monkeypatch.setenv("GRADLAB_DATABASE_URL", migrated_url)
    monkeypatch.setenv("GRADLAB_LESSONS_DIR", str(FIXTURE_LESSONS))

    def stats(*extra: str) -> dict[tuple[str, str, int], float | None]:
        assert main(["stats", "--format", "json", *extra]) == 0
        items = json.loads(capsys.readouterr().out)["items"]
        return {(i["lesson"], i["kind"], i["number"]): i["discrimination"] for i in items}

    whole, one = stats(), stats("--lesson", LESSON)
    assert set(one) == {key for key in whole if key[0] == LESSON} and one
    assert one == {key: whole[key] for key in one} == {key: board[key] for key in one}
    assert any(value is not None for value in one.values())
    # The table names the misconceptions to address by the belief behind each (the fixture's
    # `misconception` for "None"), as the dashboard does.
    assert main(["stats", "--lesson", LESSON]) == 0
    table = capsys.readouterr().out
    assert "'None' x3" in table
    assert "    Thinks .grad stays None after backward(), as on a fresh tensor." in table
