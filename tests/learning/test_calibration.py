"""Calibration on /progress, and what resetting forgets."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.pedagogy.calibration import MIN_ANSWERS, LevelStats, Verdict, advice, calibration
from tests.catalogs import LESSON, page_text
from tests.clock import time_passes

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
    client.post(
        f"{LESSON}/steps/1/prediction",
        json={"choice": "tensor([4., 6.])", "confidence": "fairly_sure"},
    )  # opens it
    client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "again"})
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    time_passes(client)
    assert client.get("/api/review").json()["due_count"] >= 1
    assert client.post("/api/progress/reset").status_code == 204
    assert client.get("/api/review").json()["due_count"] == 0
    assert client.get("/api/progress/calibration").status_code == 200


# --- No default confidence, and a summary that says only what the data supports ---------------


def test_a_commit_without_a_confidence_is_refused_and_records_nothing(client: TestClient) -> None:
    refused = client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None"})
    assert refused.status_code == 422
    assert "how sure you are" in refused.json()["detail"]
    assert "1" not in client.get(f"{LESSON}/progress").json()["steps"]
    assert client.get("/api/progress/calibration").json()["based_on"] == 0
    assert client.get("/api/review").json()["due_count"] == 0  # the miss was not queued either


def test_the_prediction_widget_has_no_confidence_chosen(client: TestClient) -> None:
    page = client.get("/lessons/first-steps").text
    fieldset = page.split('<fieldset class="confidence">', 1)[1].split("</fieldset>", 1)[0]
    assert fieldset.count('type="radio"') == 3
    assert "checked" not in fieldset


def _summary(attempts: list[tuple[str, bool]]) -> tuple[list[LevelStats], str]:
    rows = calibration(attempts)
    return rows, advice(rows)


def test_fairly_sure_right_39_percent_is_overconfident_not_agreement() -> None:
    rows, said = _summary([("fairly_sure", n < 11) for n in range(28)])
    fairly = next(row for row in rows if row.level == "fairly_sure")
    assert (fairly.right, fairly.answered, fairly.percent) == (11, 28, 39)
    assert fairly.verdict is Verdict.overconfident
    assert "39% right (11 of 28)" in fairly.finding and "overconfident" in fairly.finding
    assert "agree" not in said and "match" not in said
    assert "“Fairly sure” you are right less often than that claims" in said


def test_certain_0_of_2_is_too_few_to_judge_not_agreement() -> None:
    rows, said = _summary([("certain", False), ("certain", False)])
    certain = next(row for row in rows if row.level == "certain")
    assert certain.verdict is Verdict.too_few
    assert f"at least {MIN_ANSWERS}" in certain.finding and "0 of 2 right" in certain.finding
    assert f"{MIN_ANSWERS - 2} more answers needed" in certain.finding
    assert "agree" not in said and "match" not in said
    assert "too few answers to judge" in said and str(MIN_ANSWERS) in said


def test_both_cases_together_name_the_overconfidence_and_the_thin_level() -> None:
    attempts = [("fairly_sure", n < 11) for n in range(28)] + [("certain", False)] * 2
    _, said = _summary(attempts)
    assert "“Fairly sure”" in said and "“Certain”: too few answers" in said
    assert "match" not in said


def test_guesses_mostly_right_are_underconfidence_and_a_kept_claim_matches() -> None:
    attempts = [("guess", n < 24) for n in range(30)] + [("certain", n < 27) for n in range(30)]
    rows, said = _summary(attempts)
    verdicts = {row.level: row.verdict for row in rows}
    assert verdicts == {
        "certain": Verdict.matches,
        "fairly_sure": Verdict.none,
        "guess": Verdict.underconfident,
    }
    assert "“Guess” you are right more often" in said
    assert "your results match" not in said  # not while one level is off


def test_agreement_only_when_every_judged_level_keeps_its_claim() -> None:
    attempts = [("certain", n < 27) for n in range(30)] + [("guess", n < 8) for n in range(25)]
    _, said = _summary(attempts)
    assert said == "When you say “Certain” and “Guess”, your results match."


def test_the_progress_page_shows_each_levels_finding(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "certain"})
    out = client.get("/api/progress/calibration").json()
    assert out["min_answers"] == MIN_ANSWERS
    certain = next(row for row in out["levels"] if row["level"] == "certain")
    assert certain["verdict"] == "too_few"
    page = page_text(client.get("/progress").text)
    assert "too few answers to judge" in page and "agree" not in page


def test_eight_guesses_mostly_right_are_not_yet_underconfidence() -> None:
    rows, said = _summary([("guess", n < 7) for n in range(8)])
    guess = next(row for row in rows if row.level == "guess")
    assert guess.verdict is Verdict.too_few and guess.needed == MIN_ANSWERS - 8
    assert "underconfident" not in guess.finding and "more often" not in said
    assert f"{MIN_ANSWERS - 8} more answers needed" in guess.finding
    one_short = next(r for r in calibration([("guess", True)] * (MIN_ANSWERS - 1)) if r.answered)
    assert "1 more answer needed" in one_short.finding


def test_the_minimum_keeps_the_95_percent_interval_within_20_points() -> None:
    """The arithmetic docs/learning.md gives: at p = 0.5, the widest case."""
    half_width = 1.96 * (0.5 * 0.5 / MIN_ANSWERS) ** 0.5
    assert half_width <= 0.20 < 1.96 * (0.5 * 0.5 / (MIN_ANSWERS - 1)) ** 0.5


def test_progress_says_how_many_more_answers_and_lists_the_certain_misses(
    client: TestClient,
) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "certain"})
    out = client.get("/api/progress/calibration").json()
    certain = next(row for row in out["levels"] if row["level"] == "certain")
    assert certain["needed"] == MIN_ANSWERS - 1
    link = "/lessons/first-steps/step-by-step#step-1"
    assert out["certain_misses"] == [
        {
            "lesson": "first-steps",
            "lesson_title": "First steps with .grad",
            "step": 1,
            "title": "Squares",
            "link": link,
        }
    ]
    html = client.get("/progress").text
    page = page_text(html)
    assert f"too few to judge: {MIN_ANSWERS - 1} more answers needed" in page
    assert "Certain, and missed" in page and f'href="{link}"' in html
    assert client.get(link.split("#")[0]).status_code == 200


def test_a_right_answer_or_a_missed_guess_is_not_a_certain_miss(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    client.post(
        f"{LESSON}/steps/1/prediction",
        json={"choice": "tensor([4., 6.])", "confidence": "certain"},
    )  # a later attempt, after the reveal: not counted
    assert client.get("/api/progress/calibration").json()["certain_misses"] == []
    assert "Certain, and missed" not in client.get("/progress").text
