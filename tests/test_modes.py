"""The nine learning modes, the review queue and calibration: pages in-process for every
bundled lesson, the pure logic on the lessons, and the APIs on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from app.config import PROJECT_ROOT
from app.learning.queue import ReviewQueue
from app.learning.registry import MODES
from app.learning.review_items import Answer
from app.lessons.loader import load_catalog
from app.lessons.schema import Pitfall, Snippet
from app.main import create_app
from app.modes.cheatsheet import api_entries, error_fixes
from app.modes.drills import lesson_drills
from app.modes.flashcards import lesson_flashcards
from app.modes.pitfalls import first_change, hint, judge_fix
from app.sandbox.result import ErrorInfo, RunResult, TensorInfo
from tests.conftest import FIXTURE_LESSONS, make_settings

BUNDLED = load_catalog(PROJECT_ROOT / "lessons")
FIXTURES = load_catalog(FIXTURE_LESSONS)
LESSON = "/api/lessons/first-steps"


@pytest.fixture(scope="module")
def bundled() -> Iterator[TestClient]:
    """The real curriculum, in-process, no sandbox."""
    with TestClient(create_app(make_settings(lessons_dir=PROJECT_ROOT / "lessons"))) as client:
        yield client


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    """The test lessons on SQLite and on PostgreSQL (see `database_url`)."""
    with TestClient(create_app(make_settings(database_url=database_url))) as test_client:
        yield test_client


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# --- every mode renders for every lesson -----------------------------------------------------


@pytest.mark.parametrize("mode", [mode.slug for mode in MODES])
@pytest.mark.parametrize("slug", [lesson.slug for lesson in BUNDLED.lessons])
def test_every_mode_renders_for_every_bundled_lesson(
    bundled: TestClient, slug: str, mode: str
) -> None:
    page = bundled.get(f"/lessons/{slug}/{mode}")
    assert page.status_code == 200, page.text[:500]
    assert 'class="mode-switcher"' in page.text
    assert re.search(rf'href="[^"]*/lessons/{slug}/{mode}" [^>]*aria-current="page"', page.text)
    assert "Traceback" not in page.text


@pytest.mark.parametrize("mode", [mode.slug for mode in MODES])
def test_modes_render_for_a_lesson_without_myths_or_pitfalls(client: TestClient, mode: str) -> None:
    assert client.get(f"/lessons/second-steps/{mode}").status_code == 200


def test_an_unknown_mode_is_the_friendly_404(bundled: TestClient) -> None:
    page = bundled.get("/lessons/what-is-grad/speed-reading")
    assert page.status_code == 404
    assert "Page not found" in page.text and "step-by-step" in page.text
    assert bundled.get("/lessons/nope/flashcards").status_code == 404


def test_the_switcher_links_all_nine_modes_from_the_deep_dive(bundled: TestClient) -> None:
    page = bundled.get("/lessons/what-is-grad").text
    for mode in MODES:
        assert f'/lessons/what-is-grad/{mode.slug}"' in page
    assert len(MODES) == 9


def test_the_last_mode_is_remembered_per_lesson(client: TestClient) -> None:
    assert "last used" not in client.get("/lessons/first-steps").text
    client.get("/lessons/first-steps/flashcards")  # a page view writes nothing: the page posts
    assert "last used" not in client.get("/lessons/first-steps").text
    client.post(f"{LESSON}/mode", json={"mode": "flashcards"})
    page = client.get("/lessons/first-steps").text
    assert re.search(
        r'/lessons/first-steps/flashcards"[^>]*>Flashcards<span class="mode-last">', page
    )
    assert "last used" not in client.get("/lessons/second-steps").text  # per lesson
    client.post(f"{LESSON}/mode", json={"mode": "cheat-sheet"})
    assert client.post(f"{LESSON}/mode", json={"mode": "nope"}).status_code == 404
    assert re.search(
        r">Cheat sheet<span class=\"mode-last\">", client.get("/lessons/first-steps").text
    )
    progress = client.get("/progress").text
    assert "last in Cheat sheet" in progress


# --- answers are never in a page before the learner answers ----------------------------------


def test_mode_pages_keep_the_answers_on_the_server(bundled: TestClient) -> None:
    lesson = BUNDLED.get("what-is-grad")
    assert lesson is not None
    pages = {
        mode.slug: _text(bundled.get(f"/lessons/what-is-grad/{mode.slug}").text) for mode in MODES
    }
    for step in lesson.steps:
        assert step.prediction is not None
        explanation = _text(str(step.prediction.explanation)).split(".")[0]
        for mode in ("step-by-step", "code-lab", "predict-the-gradient", "quick-read"):
            assert explanation not in pages[mode]
    for myth in lesson.myths:
        assert myth.reality.split(".")[0] not in pages["myth-busters"]
        assert myth.demo is None or myth.demo.code not in pages["code-lab"]  # not answered yet
    for number, step in enumerate(lesson.steps, start=1):
        assert f"{step.insight[:40]}" not in pages["flashcards"], number
    for pitfall in lesson.pitfalls:
        assert (
            pitfall.correct.code.strip()
            not in bundled.get("/lessons/what-is-grad/pitfall-fixer").text
        )
        assert pitfall.root_cause.split(".")[0] not in pages["pitfall-fixer"]


# --- the pure logic on the real lessons ------------------------------------------------------


def test_drills_come_from_declared_non_none_grads() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    drills = {drill.id: drill for drill in lesson_drills(lesson)}
    # step 1 declares x (and y: None, no drill); the pitfall's fix declares nothing;
    # its wrong code raises (no drill).
    assert list(drills) == ["step-1.x"]
    assert drills["step-1.x"].expected == [4.0, 6.0]
    for catalog_lesson in BUNDLED.lessons:
        ids = [drill.id for drill in lesson_drills(catalog_lesson)]
        assert len(ids) == len(set(ids))
        assert all(drill.expected is not None for drill in lesson_drills(catalog_lesson))
        assert ids, f"{catalog_lesson.slug} has no drill"


def test_flashcards_hide_a_code_span_or_cut_the_sentence() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    cards = lesson_flashcards(lesson)
    assert [card.id for card in cards] == ["takeaway-1", "insight-1"]
    assert cards[0].cloze == ("Backward fills ", " of leaves.") and cards[0].answer == "`.grad`"
    assert cards[1].back == "Backward fills leaves." and cards[1].cloze is None
    for catalog_lesson in BUNDLED.lessons:
        for card in lesson_flashcards(catalog_lesson):
            if card.cloze and card.answer:
                assert card.cloze[0] + card.answer + card.cloze[1] == card.back


def _declared_run(snippet: Snippet) -> RunResult:
    """The run a snippet declares (and `gradlab check` proved), as the sandbox would report it."""
    error = (
        ErrorInfo(type=snippet.error.type, message=snippet.error.message_contains)
        if snippet.error
        else None
    )
    tensors = [
        TensorInfo(
            name=name,
            shape=[],
            dtype="torch.float32",
            requires_grad=True,
            is_leaf=True,
            grad_fn=None,
            value=None,
            grad=grad,
        )
        for name, grad in snippet.grads.items()
    ]
    return RunResult(
        status="error" if error else "ok", stdout=snippet.output, error=error, tensors=tensors
    )


@pytest.mark.parametrize(
    "pitfall",
    [p for lesson in BUNDLED.lessons for p in lesson.pitfalls],
    ids=lambda p: p.title[:40] if isinstance(p, Pitfall) else "",
)
def test_every_pitfall_can_be_fixed_and_its_wrong_code_is_not_a_fix(pitfall: Pitfall) -> None:
    assert judge_fix(pitfall, _declared_run(pitfall.correct)).passed
    verdict = judge_fix(pitfall, _declared_run(pitfall.wrong))
    assert not verdict.passed and verdict.reasons
    for level in (1, 2, 3):
        assert hint(pitfall, level).text
    assert first_change(pitfall).correct_text


def test_the_hint_ladder_points_at_the_line_that_differs() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    pitfall = lesson.pitfalls[0]
    assert hint(pitfall, 1).text == "backward() needs a scalar."
    second = hint(pitfall, 2)
    assert second.line == 3 and second.code == "(x * 2).backward()"
    assert hint(pitfall, 3).code == "(x * 2).sum().backward()"
    with pytest.raises(ValueError, match="hint levels"):
        hint(pitfall, 4)


def test_the_cheat_sheet_lists_the_api_and_the_fixes() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    names = [entry.name for entry in api_entries(lesson)]
    assert names[:4] == ["torch.tensor()", ".sum()", ".backward()", ".grad"]
    (fix,) = error_fixes(lesson)
    assert (fix.wrong_line, fix.fixed_line) == ("(x * 2).backward()", "(x * 2).sum().backward()")
    assert "RuntimeError" in fix.symptom


# --- Predict the gradient ---------------------------------------------------------------------


def test_a_drill_is_graded_per_element_and_a_miss_is_queued(client: TestClient) -> None:
    url = f"{LESSON}/drills/step-1.x/answer"
    wrong = client.post(url, json={"value": "[4, 5]"}).json()
    assert (wrong["correct"], wrong["elements"], wrong["expected"], wrong["queued"]) == (
        False,
        [True, False],
        None,
        True,
    )
    unreadable = client.post(url, json={"value": "four"}).json()
    assert unreadable["parsed"] is False and "number" in unreadable["problem"]
    right = client.post(url, json={"value": "tensor([4., 6.])"}).json()
    assert right["correct"] is True and right["expected"] == [4.0, 6.0]
    shown = client.post(url, json={"value": "", "reveal": True}).json()
    assert shown["expected"] == [4.0, 6.0]
    due = client.get("/api/review").json()["due"]
    assert [(item["kind"], item["key"]) for item in due] == [("drill", "step-1.x")]
    assert client.post(f"{LESSON}/drills/step-9.x/answer", json={"value": "1"}).status_code == 404
    page = client.get("/lessons/first-steps/predict-the-gradient").text
    assert "1 of 1 right" in page and 'data-correct="true"' in page


# --- Flashcards -------------------------------------------------------------------------------


def test_a_flashcard_is_turned_over_and_rated(client: TestClient) -> None:
    back = client.get(f"{LESSON}/flashcards/takeaway-1").json()
    assert back == {
        "back_html": "<p>Backward fills <code>.grad</code> of leaves.</p>\n",
        "answer_html": "<code>.grad</code>",
    }
    good = client.post(f"{LESSON}/flashcards/insight-1/rating", json={"rating": "good"}).json()
    assert good == {"queued": False, "due_count": 0}
    hard = client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "hard"}).json()
    assert hard == {"queued": True, "due_count": 1}
    assert (
        client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "meh"}).status_code
        == 422
    )
    assert client.get(f"{LESSON}/flashcards/takeaway-9").status_code == 404
    assert "Last time: hard" in client.get("/lessons/first-steps/flashcards").text


# --- Pitfall fixer ----------------------------------------------------------------------------


def test_the_hints_and_the_fix_come_on_request(client: TestClient) -> None:
    first = client.get(f"{LESSON}/pitfalls/1/hints/1").json()
    assert first["title"] == "The root cause" and "scalar" in first["text_html"]
    second = client.get(f"{LESSON}/pitfalls/1/hints/2").json()
    assert (second["line"], second["code"]) == (3, "(x * 2).backward()")
    assert client.get(f"{LESSON}/pitfalls/1/hints/4").status_code == 404
    assert client.get(f"{LESSON}/pitfalls/2/hints/1").status_code == 404
    fix = client.get(f"{LESSON}/pitfalls/1/fix").json()
    assert "(x * 2).sum().backward()" in fix["code"]


def test_a_fix_is_judged_by_running_it(sandbox_client: TestClient) -> None:
    url = f"{LESSON}/pitfalls/1/check"
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    wrong = sandbox_client.post(url, json={"code": lesson.pitfalls[0].wrong.code}).json()
    assert wrong["passed"] is False
    assert "RuntimeError" in " ".join(wrong["reasons_html"])
    # Not the lesson's text, the same behaviour: a different fix passes.
    mine = (
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = x * 2\n"
        "y.backward(torch.ones_like(y))  # my own way\n"
        "print(x.grad)\n"
    )
    right = sandbox_client.post(url, json={"code": mine}).json()
    assert right["passed"] is True and right["reasons_html"] == []
    assert right["result"]["stdout"] == "tensor([2., 2.])\n"
    off = sandbox_client.post(
        url, json={"code": mine.replace("print(x.grad)", "print(x.grad * 2)")}
    )
    assert off.json()["passed"] is False
    assert "should print" in " ".join(off.json()["reasons_html"])
    page = sandbox_client.get("/lessons/first-steps/pitfall-fixer").text
    assert "You fixed this one before" in page


def test_checking_a_fix_needs_the_sandbox(client: TestClient) -> None:
    answer = client.post(f"{LESSON}/pitfalls/1/check", json={"code": "print(1)"})
    assert answer.status_code == 503


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
    client.post(f"{LESSON}/steps/1/value", json={"value": "[1, 1]"})
    (item,) = client.get("/api/review").json()["due"]
    assert (item["kind"], item["key"], item["tensor"]) == ("drill", "step-1.x", "x")


def test_a_flashcard_in_review_takes_the_learners_rating(client: TestClient) -> None:
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
    client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "again"})
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    assert client.get("/api/review").json()["due_count"] >= 1
    assert client.post("/api/progress/reset").status_code == 204
    assert client.get("/api/review").json()["due_count"] == 0
    assert client.get("/api/progress/calibration").status_code == 200
