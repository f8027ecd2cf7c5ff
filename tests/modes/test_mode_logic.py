"""The modes' pure logic on the real lessons: drills, flashcards, pitfall hints and verdicts,
the cheat sheet."""

from __future__ import annotations

import pytest

from app.lessons.disclosure import Disclosure
from app.lessons.schema import Pitfall, Snippet
from app.modes.cheatsheet import api_entries, error_fixes, rules
from app.modes.drills import lesson_drills
from app.modes.flashcards import lesson_flashcards
from app.modes.pitfalls import first_change, hint, judge_fix
from app.sandbox.result import ErrorInfo, RunResult, TensorInfo
from tests.catalogs import BUNDLED, FIXTURES

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
    shown = Disclosure.everything(lesson)
    names = [entry.name for entry in api_entries(shown)]
    assert names[:4] == ["torch.tensor()", ".sum()", ".backward()", ".grad"]
    (fix,) = error_fixes(shown)
    assert (fix.wrong_line, fix.fixed_line) == ("(x * 2).backward()", "(x * 2).sum().backward()")
    assert "RuntimeError" in fix.symptom


def test_the_cheat_sheet_states_only_what_the_learner_has_answered() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    fresh = Disclosure(lesson, frozenset())
    assert api_entries(fresh) == [] and error_fixes(fresh) == [] and rules(fresh) == []
    answered = Disclosure(lesson, frozenset({1}))
    assert rules(answered) == [lesson.steps[0]] and error_fixes(answered)
