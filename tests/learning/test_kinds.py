"""Question kinds: one declaration each (app/learning/kinds/), which the review queue, the
grader's entry points, the mode registry and the templates read; no other module handles a
kind by its name."""

from __future__ import annotations

import ast
import hashlib
import json
import re
from pathlib import Path

import pytest

from app.config.paths import PACKAGE_DIR, TEMPLATES_DIR
from app.errors import AnswerError
from app.learning.kinds import (
    DRILL,
    EXERCISE,
    FIX,
    FLASHCARD,
    KINDS,
    MYTH,
    ORDERING,
    PREDICTION,
    SELECT_ALL,
    VALUE,
    QuestionKind,
    find_kind,
    prediction_fingerprint,
    step_kind,
)
from app.learning.pages.registry import MODES, find_mode
from app.lessons.format import Step
from app.modes.drills import lesson_drills
from app.modes.flashcards import lesson_flashcards
from app.pedagogy.scheduler import Grade
from app.web.templates import templates
from tests.catalogs import BUNDLED

NAMES = {kind.name for kind in KINDS}
LESSON = BUNDLED.lessons[0]  # the first lesson: it has predictions, myths, drills and cards

# --- the declarations ---------------------------------------------------------------------------


def test_the_stored_names_never_change() -> None:
    # Review cards and fingerprints keep these names: renaming one retires every record of it.
    assert [kind.name for kind in KINDS] == [
        "prediction",
        "value",
        "myth",
        "drill",
        "flashcard",
        "fix",
        "exercise",
        "ordering",
        "select_all",
    ]
    assert all(find_kind(kind.name) is kind for kind in KINDS)
    assert find_kind("essay") is None


def test_a_fingerprint_hashes_the_kind_name_and_the_question() -> None:
    step = next(step for step in LESSON.steps if step.prediction is not None)
    assert step.prediction is not None
    parts = ("prediction", step.prediction.question, sorted(step.prediction.texts))
    stored = json.dumps([*parts, step.prediction.answer], ensure_ascii=False)
    assert (
        prediction_fingerprint(step.prediction) == hashlib.sha256(stored.encode()).hexdigest()[:32]
    )
    assert PREDICTION.fingerprint("same") != MYTH.fingerprint("same")  # kinds never collide


def test_every_kind_is_asked_by_a_mode_and_links_back_to_one_that_asks_it() -> None:
    for kind in KINDS:
        page = find_mode(kind.page)
        assert page is not None and kind in page.asks, kind.name
    asked = {kind for mode in MODES for kind in mode.asks}
    assert asked == set(KINDS)


def test_a_link_goes_to_the_page_and_to_the_item_when_the_page_shows_one() -> None:
    assert PREDICTION.link("first-steps", "3") == "/lessons/first-steps/step-by-step#step-3"
    assert MYTH.link("first-steps", "2") == "/lessons/first-steps/myth-busters"


def test_every_kind_has_its_widget_macro_and_a_reviewed_kind_its_review_item() -> None:
    widgets = templates.env.get_template("_widgets.html").module
    for kind in KINDS:
        assert kind.widget in (
            "choice",
            "yes-no",
            "value",
            "card",
            "code",
            "ordering",
            "select-all",
        )
        if kind.review is not None:
            assert callable(getattr(widgets, kind.review_macro, None)), kind.name


def test_the_reviewed_kinds() -> None:
    assert {kind for kind in KINDS if kind.review is not None} == {
        PREDICTION,
        MYTH,
        DRILL,
        FLASHCARD,
        EXERCISE,
        ORDERING,
        SELECT_ALL,
    }
    # A typed value is reviewed as its step's drill; a fix is practice, not recall (an
    # exercise is reviewed by writing it again, graded by a run: tests/routes/test_exercise_loop.py).
    assert VALUE.prompt(LESSON, "1", "ada") is None
    assert FIX.prompt(LESSON, "1", "ada") is None


# --- prompts and grading ------------------------------------------------------------------------


def _keys() -> dict[str, str]:
    return {
        PREDICTION.name: str(
            next(n for n, step in enumerate(LESSON.steps, 1) if step.prediction is not None)
        ),
        MYTH.name: "1",
        DRILL.name: lesson_drills(LESSON)[0].id,
        FLASHCARD.name: lesson_flashcards(LESSON)[0].id,
    }


@pytest.mark.parametrize("kind", [PREDICTION, MYTH, DRILL, FLASHCARD], ids=lambda k: k.name)
def test_a_reviewed_kind_builds_its_prompt_and_refuses_an_item_the_lesson_lacks(
    kind: QuestionKind,
) -> None:
    prompt = kind.prompt(LESSON, _keys()[kind.name], "ada")
    assert prompt is not None and prompt.kind is kind and prompt.question
    assert prompt.link.startswith(f"/lessons/{LESSON.slug}/{kind.page}")
    assert kind.prompt(LESSON, "999", "ada") is None


@pytest.mark.parametrize("kind", [PREDICTION, MYTH, DRILL], ids=lambda k: k.name)
def test_a_kind_that_asks_how_sure_refuses_an_answer_without_it(kind: QuestionKind) -> None:
    prompt = kind.prompt(LESSON, _keys()[kind.name], "ada")
    assert prompt is not None and kind.confidence
    with pytest.raises(AnswerError, match="how sure"):
        kind.grade(prompt, kind.read({"choice": "x", "answer": "yes", "value": "1"}))


def test_each_reviewed_kind_grades_a_right_answer_as_right() -> None:
    keys = _keys()
    step = LESSON.steps[int(keys[PREDICTION.name]) - 1]
    assert step.prediction is not None
    right = {
        PREDICTION: {"choice": step.prediction.answer, "confidence": "certain"},
        MYTH: {"answer": LESSON.myths[0].answer, "confidence": "certain"},
        DRILL: {"value": json.dumps(lesson_drills(LESSON)[0].expected), "confidence": "certain"},
        FLASHCARD: {"rating": Grade.good.value},
    }
    for kind, body in right.items():
        prompt = kind.prompt(LESSON, keys[kind.name], "ada")
        assert prompt is not None
        graded = kind.grade(prompt, kind.read(body))
        assert graded.correct and graded.grade == Grade.good, kind.name


# --- no kind is handled anywhere else -------------------------------------------------------------

# String constants equal to a kind's name that are not kinds, each with what it is.
NOT_KINDS = {
    ("app/lessons/format.py", "prediction"): "a step's `prediction` field (Step.QUESTIONS)",
    ("app/lessons/format.py", "ordering"): "a step's `ordering` field (Step.QUESTIONS)",
    ("app/lessons/format.py", "select_all"): "a step's `select_all` field (Step.QUESTIONS)",
    ("app/lessons/prose_check.py", "value"): "a misconception's `value` field of the lesson format",
    ("app/inventory_cli.py", "value"): "a gain's `value` in the dashboard's JSON (GainOut)",
    ("app/progress/base.py", "value"): "the app_secret table's `value` column",
    ("app/progress/store.py", "myth"): "a row's part in the one lesson-state query",
    ("app/progress/store.py", "prediction"): "a row's part in the one lesson-state query",
    ("app/sandbox/inspection.py", "value"): "a tensor's value in an inspection record",
}


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_no_python_outside_the_declarations_names_a_kind() -> None:
    root = PACKAGE_DIR.parent
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where.startswith(("app/learning/kinds/", "app/progress/migrations/")):
            continue  # the declarations; migrations name columns, as history
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and node.value in NAMES
                and id(node) not in docs
                and (where, node.value) not in NOT_KINDS
            ):
                found.append(f"{where}:{node.lineno} {node.value!r}")
    assert found == [], "use the kind's declaration (app/learning/kinds/) instead"


def test_no_template_names_a_kind() -> None:
    quoted = re.compile("[\"'](" + "|".join(sorted(NAMES)) + ")[\"']")
    expression = re.compile(r"{%.*?%}|{{.*?}}", re.S)
    found = [
        f"{path.relative_to(TEMPLATES_DIR)}: {tag}"
        for path in sorted(Path(TEMPLATES_DIR).rglob("*.html"))
        for tag in expression.findall(path.read_text(encoding="utf-8"))
        if quoted.search(tag)
    ]
    assert found == [], "read the kind's declaration (prompt.kind.label, .widget, ...) instead"


def test_a_mode_says_it_asks_only_the_kinds_the_lesson_has() -> None:
    deep_dive = find_mode("deep-dive")
    assert deep_dive is not None
    assert LESSON.exercises, "the first lesson has code to write"
    assert deep_dive.asked_in(LESSON) == [PREDICTION, VALUE, ORDERING, MYTH, EXERCISE]
    without_myths = LESSON.model_copy(update={"myths": [], "exercises": []})
    assert MYTH.count_in(without_myths) == 0
    assert EXERCISE.count_in(without_myths) == 0
    assert deep_dive.asked_in(without_myths) == [PREDICTION, VALUE, ORDERING]


def test_every_question_a_step_asks_is_one_kind_that_says_what_commits_it() -> None:
    # "Is it committed?" (app/learning/answers/questions.py) reads the kind of the step's first
    # question: a new field of `Step.QUESTIONS` needs its kind, or no step asking it commits.
    declared = [kind.step_field for kind in KINDS if kind.step_field is not None]
    assert sorted(declared) == sorted(Step.QUESTIONS)
    for field in Step.QUESTIONS:
        kind = step_kind(field)
        assert kind is not None and kind.committed is not None, field


def test_a_review_answer_is_read_as_its_kinds_own_answer() -> None:
    # Each reviewed kind declares the model its answer is read as: another kind's fields are
    # refused, naming the ones that fit, and no kind reads the union of every kind's fields.
    models = {kind.name: kind.review.answer for kind in KINDS if kind.review is not None}
    assert len({models[kind.name] for kind in (PREDICTION, MYTH, DRILL, FLASHCARD)}) == 4
    with pytest.raises(
        AnswerError, match="answered with `choice` and `confidence`: choice: Field required"
    ):
        PREDICTION.read({"answer": "yes", "confidence": "certain"})
    with pytest.raises(
        AnswerError, match="a myth, answered with `answer` and `confidence`: answer: Input"
    ):
        MYTH.read({"answer": "maybe", "confidence": "certain"})
    with pytest.raises(AnswerError, match="a flashcard, answered with `rating`: rating: Field"):
        FLASHCARD.read({"value": "1"})
    with pytest.raises(AnswerError, match="confidence: Input should be"):
        DRILL.read({"value": "1", "confidence": "very"})
    assert FLASHCARD.read({"rating": "good", "choice": "ignored"}).model_dump() == {
        "confidence": None,
        "rating": Grade.good,
    }
    drill = DRILL.prompt(LESSON, _keys()[DRILL.name], "ada")
    assert drill is not None  # an answer read by another kind is not graded as this one's
    with pytest.raises(AnswerError, match="not answered that way"):
        DRILL.grade(drill, MYTH.read({"answer": "yes", "confidence": "certain"}))
    with pytest.raises(AnswerError, match="never answered in review"):
        VALUE.read({"value": "1"})
