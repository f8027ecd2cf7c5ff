"""The modes' pure logic on the real lessons: drills, flashcards, pitfall hints and verdicts,
the cheat sheet."""

from __future__ import annotations

import pytest

from app.lessons.behaviour import same_grad
from app.lessons.cloze import common, shows_elsewhere
from app.lessons.disclosure import Disclosure
from app.lessons.format import Pitfall, Snippet
from app.lessons.variants import instances
from app.modes.cheatsheet import api_entries, error_fixes, rules
from app.modes.drills import for_learner, lesson_drills
from app.modes.flashcards import lesson_flashcards
from app.modes.pitfalls import first_change, goal_grads, hint, judge_fix
from app.sandbox.result import ErrorInfo, RunResult, TensorInfo
from tests.catalogs import BUNDLED, FIXTURES

# --- the pure logic on the real lessons ------------------------------------------------------


def test_drills_come_from_declared_grads_or_a_variant_instance() -> None:
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
        for drill in lesson_drills(catalog_lesson):
            step = catalog_lesson.steps[drill.step - 1] if drill.step else None
            if step is not None and instances(step):
                # On a step with variants each learner is asked an instance, None included
                # where that instance's run leaves None.
                asked = for_learner(catalog_lesson, drill, "learner", "drills")
                assert asked.instance is not None and asked.code != drill.code
                assert asked.expected == instances(step)[asked.instance].grads[drill.tensor]
            else:
                assert drill.expected is not None
        assert ids, f"{catalog_lesson.slug} has no drill"


def test_flashcards_blank_the_idea_or_ask_the_authored_question() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    cards = lesson_flashcards(lesson)
    assert [card.id for card in cards] == ["takeaway-1", "insight-1"]
    # "Backward fills `.grad` of leaves.": `.grad` alone is no idea; the learner completes it.
    assert cards[0].cloze == ("Backward fills ", "") and cards[0].answer == "`.grad` of leaves."
    assert cards[0].prompt == "Complete the sentence."
    assert cards[1].prompt == "**Squares**: Which tensors does backward write a gradient to?"
    assert cards[1].back == "Backward fills leaves." and cards[1].cloze is None


def test_no_bundled_card_blanks_a_common_name_or_shows_its_own_answer() -> None:
    insights = 0
    for catalog_lesson in BUNDLED.lessons:
        for card in lesson_flashcards(catalog_lesson):
            assert "key insight" not in card.prompt
            if card.origin == "insight" and card.cloze is None:
                insights += 1
            if card.cloze is None or card.answer is None:
                continue
            assert card.cloze[0] + card.answer + card.cloze[1] == card.back
            assert not common(card.answer), (catalog_lesson.slug, card.id, card.answer)
            front = f"{card.prompt} {card.cloze[0]} {card.cloze[1]}"
            assert not shows_elsewhere(card.answer, front), (catalog_lesson.slug, card.id)
    assert insights >= 10  # the authored insight questions


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


def test_the_hint_ladder_leads_without_giving_the_fix_or_numbering_lines() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    pitfall = lesson.pitfalls[0]
    first = hint(pitfall, 1)
    assert first.title == "What to compare" and "`RuntimeError`" in first.text
    second = hint(pitfall, 2)
    assert second.code == "(x * 2).backward()"  # quoted from the broken code
    assert "line 3" not in second.text.lower()  # never numbered: the learner's code differs
    assert hint(pitfall, 3).text == "backward() needs a scalar."  # the root cause comes last
    fix = first_change(pitfall).correct_text
    for level in (1, 2, 3):
        shown = hint(pitfall, level)
        assert fix not in shown.text and shown.code != fix
    with pytest.raises(ValueError, match="hint levels"):
        hint(pitfall, 4)


@pytest.mark.parametrize(
    "pitfall",
    [p for lesson in BUNDLED.lessons for p in lesson.pitfalls],
    ids=lambda p: p.title[:40] if isinstance(p, Pitfall) else "",
)
def test_no_hint_quotes_the_corrected_line(pitfall: Pitfall) -> None:
    fix = first_change(pitfall).correct_text
    if fix and fix not in pitfall.wrong.code:  # a line the broken code already has is no giveaway
        for level in (1, 2):
            shown = hint(pitfall, level)
            assert shown.code != fix and f"`{fix}`" not in shown.text


def test_an_output_symptom_names_where_the_outputs_part() -> None:
    pitfall = _bundled_pitfall("grad-in-training-loops", 2)
    text = hint(pitfall, 1).text
    assert "output line 3" in text and "`2 0.0433`" in text and "`2 26.7588`" in text
    where = hint(pitfall, 2)
    assert where.text.startswith("Something is missing just before")
    assert where.code == 'print(step, f"{loss.item():.4f}")'


def _bundled_pitfall(slug: str, number: int) -> Pitfall:
    lesson = BUNDLED.get(slug)
    assert lesson is not None
    return lesson.pitfalls[number - 1]


def _with_grads(snippet: Snippet, **grads: object) -> RunResult:
    run = _declared_run(snippet)
    tensors = [t.model_copy(update={"grad": grads.get(t.name, t.grad)}) for t in run.tensors]
    return run.model_copy(update={"tensors": tensors})


def test_none_and_zeros_are_the_same_unless_the_pitfall_is_about_them() -> None:
    assert same_grad(None, [0.0, 0.0], none_is_zero=True).matches
    assert same_grad([0.0, 0.0], None, none_is_zero=True).matches
    assert not same_grad(None, [0.0, 0.0], none_is_zero=False).matches
    assert not same_grad(None, [0.0, 1.0], none_is_zero=True).matches
    about_none = _bundled_pitfall("what-is-grad", 2)
    assert about_none.none_matters
    assert [want.name for want in goal_grads(about_none)] == ["a", "w"]
    assert judge_fix(about_none, _declared_run(about_none.correct)).passed
    zeros = judge_fix(about_none, _with_grads(about_none.correct, a=0.0))
    assert not zeros.passed and "`a.grad` is `0.0`" in zeros.reasons[0]
    # Elsewhere the corrected code's `None` is how that fix ends, not the goal.
    loop = _bundled_pitfall("grad-in-training-loops", 2)
    assert not loop.none_matters and goal_grads(loop) == []
    assert judge_fix(loop, _with_grads(loop.correct, w=-0.31, b=0.12)).passed


def test_every_pitfall_states_its_goal_grads_in_words() -> None:
    for lesson in BUNDLED.lessons:
        for pitfall in lesson.pitfalls:
            for want in goal_grads(pitfall):
                assert want.text.startswith("`")
                assert (want.value is None) <= pitfall.none_matters


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
