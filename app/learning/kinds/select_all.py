"""A step's "select all that apply": tick every statement that holds once the step's code has
run (which tensors have a `.grad`, which calls raise, which are leaves). What holds is what a
run says (each statement's `holds`, proved by `gradlab check`), so on a step with variants each
instance asks the same statements about other code. Graded at once, by the set ticked: right
only when it is exactly the set that holds. Kept as the step's committed answer (the ticked
texts, sorted), shown to each learner in an order of their own, asked again in review and
recall on an instance the learner has not seen."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pydantic import Field

from app import rendering
from app.errors import NotAChoice
from app.learning.answers.grader import Graded, schedule, snippet_error, step_reveal
from app.learning.kinds.kind import (
    Answered,
    Prompt,
    QuestionKind,
    Review,
    ReviewAnswer,
    StepItem,
    StepSide,
    item_number,
)
from app.learning.kinds.ordering import read_order, stored_order
from app.learning.kinds.prediction import choice_order
from app.learning.schemas import SelectAllReveal, StatementVerdict
from app.lessons.format import Lesson, SelectAll, Step
from app.lessons.memo import per_object
from app.lessons.variants import Instance, pick
from app.progress.records import StepRecord


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
def select_all_fingerprint(step: Step) -> str | None:
    question = step.select_all
    if question is None:
        return None
    return SELECT_ALL.fingerprint(question.question, sorted(question.texts), sorted(question.right))


def kept(picked: list[str]) -> str:
    """The ticked statements as the step's committed answer keeps them: sorted, so that one
    set is one answer whatever order it was ticked in (kept as an order is, a JSON list)."""
    return stored_order(sorted(set(picked)))


def _asked(step: Step) -> SelectAll:
    if step.select_all is None:
        raise NotAChoice("This step asks no select-all question")
    return step.select_all


def graded(question: SelectAll, picked: list[str], holding: list[str]) -> bool:
    """Right when the ticked set is exactly what holds; a statement the question does not
    have is refused."""
    if unknown := [text for text in picked if question.option(text) is None]:
        raise NotAChoice(f"{unknown[0]!r} is not one of the statements")
    return set(picked) == set(holding)


def reveal(
    question: SelectAll,
    picked: list[str],
    holding: list[str],
    ran: Step | Instance,
    attempt: int,
    step: Step,
) -> SelectAllReveal:
    """Each statement, whether it holds, whether it was ticked, and, where the two differ,
    what that belief gets wrong; the explanation and the output of the code it asked about
    (an instance's own, in review)."""
    statements = [
        StatementVerdict(
            text=option.text,
            holds=option.text in holding,
            ticked=option.text in picked,
            # A statement's `why` speaks of the step's own code; on an instance, whose code
            # gives the statements other roles, its explanation says why instead.
            why_html=(
                str(rendering.markdown_inline(option.why))
                if isinstance(ran, Step) and (option.text in holding) != (option.text in picked)
                else None
            ),
        )
        for option in question.options
    ]
    own = isinstance(ran, Step)
    explanation = question.explanation if own else ran.explanation
    code = ran.snippet if isinstance(ran, Step) else ran
    shown = step_reveal(step)
    return SelectAllReveal(
        correct=set(picked) == set(holding),
        statements=statements,
        explanation_html=str(rendering.markdown(explanation)),
        output=code.output if code is not None else None,
        error=snippet_error(code),
        attempt=attempt,
        # On an instance, its explanation (above) stands in for the step's own numbers.
        step=shown if own else shown.model_copy(update={"explanation_html": ""}),
    )


class PickedAnswer(ReviewAnswer):
    """A select-all answered in review or recall: the statements ticked."""

    picked: list[str] = Field(max_length=6)


def _grade_step(step: Step, answer: PickedAnswer, _: Answered) -> bool:
    question = _asked(step)
    return graded(question, answer.picked, question.right)


def _reveal_step(
    step: Step, answer: str, correct: bool, attempt: int, _: Answered
) -> SelectAllReveal:
    question = _asked(step)
    return reveal(question, read_order(answer), question.right, step, attempt, step)


def _prompt(
    lesson: Lesson,
    key: str,
    order: str,
    learner: str | None,
    asked: int | None,
    seen: frozenset[str] = frozenset(),
) -> Prompt | None:
    number = item_number(key, len(lesson.steps))
    step = lesson.steps[number - 1] if number else None
    fingerprint = select_all_fingerprint(step) if step is not None else None
    if number is None or step is None or step.select_all is None or fingerprint is None:
        return None
    # Each return asks an instance: other code than the lesson page's and than the return
    # before, and none the learner was shown while another remains.
    instance = pick(step, order, previous=asked, seen=seen, ran=True)
    code = instance.code if instance else step.snippet.code if step.snippet else None
    return Prompt(
        lesson,
        SELECT_ALL,
        key,
        f"Step {number}: {step.title}",
        step.select_all.question,
        fingerprint,
        code=code,
        choices=choice_order(order, lesson.slug, number, step.select_all.texts),
        instance=instance,
        form=instance.index if instance else None,
    )


def _grade_review(prompt: Prompt, answer: PickedAnswer) -> Graded:
    step = prompt.lesson.steps[int(prompt.key) - 1]
    question = _asked(step)
    instance = prompt.instance
    holding = question.holding(instance.readings) if instance is not None else question.right
    correct = graded(question, answer.picked, holding)
    shown = reveal(question, answer.picked, holding, instance or step, 0, step)
    return Graded(correct, schedule(correct), shown)


def _committed(step: Step, record: StepRecord) -> bool:
    saved = record.answer
    return saved is not None and saved.fingerprint == select_all_fingerprint(step)


class _SetBeliefs(Mapping[str, str]):
    """The belief behind a set a learner ticked (as kept): the beliefs of the statements it
    got wrong, ticked though false or left though true; none for the right set."""

    def __init__(self, question: SelectAll) -> None:
        self._question = question

    def __getitem__(self, answer: str) -> str:
        picked, holding = set(read_order(answer)), set(self._question.right)
        wrong = [
            option.misconception
            for option in self._question.options
            if option.misconception and (option.text in picked) != (option.text in holding)
        ]
        if not wrong:
            raise KeyError(answer)
        return " ".join(wrong)

    def __iter__(self) -> Iterator[str]:
        return iter(())  # the sets are whatever learners sent: none listed in advance

    def __len__(self) -> int:
        return 0


def _item(step: Step) -> StepItem | None:
    # Its answers are the sets learners sent: no fixed list of choices.
    if (question := step.select_all) is None:
        return None
    return StepItem(question.question, kept(question.right), {}, (), _SetBeliefs(question))


def _shown(answer: str) -> str:
    ticked = read_order(answer)
    return "ticked " + ", ".join(ticked) if ticked else "ticked none"


SELECT_ALL = QuestionKind(
    name="select_all",
    label="Select all that apply",
    plural="select-all questions",
    page="step-by-step",
    widget="select-all",
    confidence=True,
    count_in=lambda lesson: sum(step.select_all is not None for step in lesson.steps),
    review=Review(_prompt, PickedAnswer, _grade_review),
    anchor="step-{key}",
    step_field="select_all",
    committed=_committed,
    step_answer=select_all_fingerprint,
    form_step=lambda lesson, key: item_number(key, len(lesson.steps)),
    step_item=_item,
    shown=_shown,
    step=StepSide(
        keep=lambda answer: kept(answer.picked),
        sent=lambda text: {"picked": read_order(text)},
        grade=_grade_step,
        reveal=_reveal_step,
    ),
)
