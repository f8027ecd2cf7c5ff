"""Which parts of a lesson a learner may be sent (app/lessons/disclosure.py), on the real
curriculum: the rules every page and the lint share."""

from __future__ import annotations

from app.lessons.disclosure import Disclosure, asks
from tests.catalogs import BUNDLED, FIXTURES


def test_the_reference_opens_only_when_every_question_is_committed() -> None:
    for lesson in BUNDLED.lessons:
        asking = {n for n, step in enumerate(lesson.steps, 1) if asks(step)}
        assert asking, lesson.slug
        assert not Disclosure(lesson, frozenset()).reference
        assert not Disclosure(lesson, frozenset(asking - {max(asking)})).reference
        assert Disclosure(lesson, frozenset(asking)).reference
        assert Disclosure(lesson, frozenset(), read_ahead=True).reference
        # Before its own commit a step is closed; in order, everything before it is open.
        for number in asking:
            shown = Disclosure.before_step(lesson, number)
            assert not shown.step_open(number) and shown.opened_through == number - 1


def test_a_step_that_asks_nothing_is_open_at_once() -> None:
    for lesson in BUNDLED.lessons:
        fresh = Disclosure(lesson, frozenset())
        for number, step in enumerate(lesson.steps, 1):
            assert fresh.step_open(number) is not asks(step), (lesson.slug, number)


def test_a_pitfall_opens_with_the_reference_or_after_its_step() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    assert Disclosure(lesson, frozenset()).pitfalls() == []
    assert [n for n, _ in Disclosure(lesson, frozenset({1})).pitfalls()] == [1]
    early = lesson.model_copy(
        update={"pitfalls": [lesson.pitfalls[0].model_copy(update={"after_step": 1})]}
    )
    assert Disclosure(early, frozenset()).pitfalls() == []  # step 1 is not committed yet
    assert [n for n, _ in Disclosure(early, frozenset({1})).pitfalls()] == [1]


def test_a_value_question_beside_a_choice_opens_with_the_choice() -> None:
    """Its mere presence would say the code does not raise: it waits for the choice's commit.
    A step that asks only the value asks it at once."""
    gated = 0
    for lesson in BUNDLED.lessons:
        for number, step in enumerate(lesson.steps, 1):
            fresh = Disclosure(lesson, frozenset())
            if step.value_prediction is None:
                assert not fresh.value_open(number), (lesson.slug, number)
            elif step.prediction is None:
                assert fresh.value_open(number), (lesson.slug, number)
            else:
                gated += 1
                assert not Disclosure.before_step(lesson, number).value_open(number)
                assert Disclosure(lesson, frozenset({number})).value_open(number)
                assert Disclosure(lesson, frozenset(), read_ahead=True).value_open(number)
    assert gated > 0, "the curriculum has a value question beside a choice"
