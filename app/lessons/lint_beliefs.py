"""The belief behind each wrong choice: what the class dashboard tells a teacher.

A wrong choice of a choice question (a step's prediction, an inventory item) states, in
`misconception`, the belief of a learner who picks it ("Thinks `.grad` holds the tensor's own
value."), in a teacher's words. The right choice stands for no misconception, so it has none.
`why` is the rebuttal written to the learner; a belief that copies it would show the teacher
the learner's text again, so it says something of its own. A select-all's statements can each be
got wrong (ticked though false, or left though true), so each states the belief of a learner who
gets it wrong.
"""

from __future__ import annotations

from collections.abc import Iterator

from app.lessons.format_questions import ChoicePrediction, Question


def belief_problems(question: Question) -> Iterator[str]:
    """What is wrong with the beliefs behind one question's wrong answers (its declaration's
    `believed`): each states one, of its own."""
    for text, belief, why in question.believed():
        if belief is None:
            yield (
                f"the wrong answer {text!r} has no `misconception` (the belief behind it, in a "
                "teacher's words, for the class dashboard)"
            )
        elif why is not None and belief.strip() == why.strip():
            yield (
                f"the wrong answer {text!r} has a `misconception` that copies its `why`: state "
                "the belief, not the rebuttal written to the learner"
            )


def right_choice_problems(prediction: ChoicePrediction) -> Iterator[str]:
    """The right choice stands for no misconception."""
    if (right := prediction.choice(prediction.answer)) and right.misconception is not None:
        yield (
            "the right choice has a `misconception`: only a wrong choice stands for a belief "
            "to address"
        )
