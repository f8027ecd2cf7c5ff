"""The practice around lessons: drills, flashcards, pitfall fixes, the review queue and
calibration. Every answer is graded by app/learning/answers/grader.py; misses enter the queue as
they are recorded, so reading the queue never writes."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from app import rendering
from app.errors import (
    NotTheFormAsked,
    PredictionNotCommitted,
    UnknownDrill,
    UnknownFlashcard,
    UnknownPitfall,
    UnknownReviewItem,
)
from app.learning.answers import grader
from app.learning.answers.questions import disclosure_of, find_lesson
from app.learning.kinds import DRILL, step_answer_of
from app.learning.practice.queue import QueueView, ReviewQueue
from app.learning.practice.recall import answer_recall
from app.learning.practice.seen import learner_shown, page_drill
from app.learning.practice_schemas import (
    CalibrationOut,
    CalibrationRow,
    CertainMiss,
    RecallResult,
    ReviewItemOut,
    ReviewQueueOut,
    ReviewResult,
)
from app.learning.running.runs import Runs, Who
from app.learning.schemas import (
    DrillFeedback,
    FixOut,
    FixVerdict,
    FlashcardBack,
    HintOut,
    RatingResult,
    ReviewAnswerBody,
    ValueBody,
)
from app.lessons.disclosure import Disclosure
from app.lessons.format import Lesson, Pitfall
from app.lessons.loader import Catalog
from app.modes import pitfalls
from app.modes.drills import drill_open, find_drill
from app.modes.flashcards import card_open, find_flashcard
from app.pedagogy.calibration import MIN_ANSWERS, advice, calibration
from app.pedagogy.scheduler import Grade, describe_wait
from app.progress.store import ProgressStore

__all__ = ["Practice", "calibration_of", "queue_items"]


def now() -> datetime:
    return datetime.now(UTC)


_CLOSED = "Answer the build-up first (or read the lesson ahead): this would give answers away."


def _pitfall(lesson: Lesson, number: int) -> Pitfall:
    if not 1 <= number <= len(lesson.pitfalls):
        raise UnknownPitfall(f"Lesson {lesson.slug!r} has no pitfall {number}")
    return lesson.pitfalls[number - 1]


def queue_items(view: QueueView) -> list[ReviewItemOut]:
    return [
        ReviewItemOut(
            id=item.card.id,
            lesson=item.prompt.lesson.slug,
            lesson_title=item.prompt.lesson.title,
            kind=item.prompt.kind.name,
            kind_name=item.prompt.kind.label,
            key=item.prompt.key,
            source=item.prompt.source,
            question_html=str(rendering.markdown_inline(item.prompt.question)),
            code=item.prompt.code,
            choices=item.prompt.choices,
            tensor=item.prompt.tensor,
            link=item.prompt.link,
            form=item.prompt.form,
        )
        for item in view.due
    ]


def calibration_of(catalog: Catalog, store: ProgressStore, learner: str | None) -> CalibrationOut:
    """First attempts only, on each question as it is now: an answer to an older version of a
    question (or one recorded before questions had fingerprints) says nothing about it, nor
    does one given after the learner chose to read the lesson ahead."""
    # A step's committed answer, a choice or an order (each weighed by how sure it was given).
    current: dict[tuple[str, int], str] = {
        (lesson.slug, number): asked[1]
        for lesson in catalog.lessons
        for number, step in enumerate(lesson.steps, start=1)
        if (asked := step_answer_of(step)) is not None
    }
    firsts = store.first_step_answers(learner) if learner else []
    kept = [
        first
        for first in firsts
        if first.fingerprint is not None
        and not first.seen_answers  # given after reading ahead: says nothing of the learner
        and current.get((first.lesson, first.step)) == first.fingerprint
    ]
    counted = [(first.confidence, first.correct) for first in kept]
    rows = calibration(counted)
    missed = {(f.lesson, f.step) for f in kept if f.confidence == "certain" and not f.correct}
    return CalibrationOut(
        levels=[
            CalibrationRow(
                level=row.level,
                label=row.label,
                answered=row.answered,
                right=row.right,
                percent=row.percent,
                verdict=row.verdict.value,
                finding=row.finding,
                needed=row.needed,
            )
            for row in rows
        ],
        advice=advice(rows),
        min_answers=MIN_ANSWERS,
        based_on=len(counted),
        certain_misses=[
            CertainMiss(
                lesson=lesson.slug,
                lesson_title=lesson.title,
                step=number,
                title=step.title,
                link=f"/lessons/{lesson.slug}/step-by-step#step-{number}",
            )
            for lesson in catalog.lessons  # in the path's order
            for number, step in enumerate(lesson.steps, start=1)
            if (lesson.slug, number) in missed
        ],
    )


class Practice:
    """Drills, flashcards, pitfall fixes and reviews of one learner."""

    def __init__(
        self, catalog: Catalog, store: ProgressStore, runs: Runs, learner: str, sitting_size: int
    ) -> None:
        self.catalog, self.store, self.runs, self.learner = catalog, store, runs, learner
        self.queue = ReviewQueue(store, catalog, learner, sitting_size)

    def _disclosure(self, lesson: Lesson) -> Disclosure:
        return disclosure_of(lesson, self.store.lesson_state(self.learner, lesson.slug))

    def _open_pitfall(self, slug: str, number: int) -> Pitfall:
        """A pitfall the learner may see (its code and fix answer build-up questions)."""
        lesson = find_lesson(self.catalog, slug)
        pitfall = _pitfall(lesson, number)
        if not self._disclosure(lesson).pitfall_open(pitfall):
            raise PredictionNotCommitted(_CLOSED)
        return pitfall

    # --- Predict the gradient -----------------------------------------------------------------
    def answer_drill(
        self, slug: str, drill_id: str, body: ValueBody, form: int | None = None
    ) -> DrillFeedback:
        """A miss enters the review queue; the answer comes back only when right or when
        `reveal` asks for it, and only for a drill whose step the learner has answered. It is
        graded on the instance the drills page asks now (seen.py's `page_drill`), which must be
        `form` when given (the page's `data-form`): never on one the learner was not shown."""
        lesson = find_lesson(self.catalog, slug)
        drill = find_drill(lesson, drill_id)
        if drill is None:
            raise UnknownDrill(f"Lesson {slug!r} has no drill {drill_id!r}")
        if not drill_open(drill, self._disclosure(lesson)):
            raise PredictionNotCommitted(_CLOSED)
        state = self.store.drill_state(self.learner, slug)
        seen = learner_shown(self.store, self.learner, lesson) if drill.step else frozenset()
        drill = page_drill(lesson, drill, self.learner, state, seen)
        if form is not None and form != drill.instance:
            raise NotTheFormAsked(
                f"Drill {drill_id} is not asked on instance {form} now: reload the page and "
                "answer the code it shows"
            )
        correct, feedback = grader.grade_typed(
            grader.ValueRubric(drill.expected, misconceptions=drill.misconceptions),
            body.value,
            body.reveal,
        )
        if correct is None:
            return feedback
        with self.store.together():  # the answer and its review card: one transaction
            self.store.record_drill(
                self.learner, slug, drill_id, body.value, correct, body.reveal, drill.instance
            )
            if not correct:
                self.queue.note_miss(slug, DRILL, drill_id, now())
        return feedback.model_copy(update={"queued": not correct})

    # --- Flashcards ---------------------------------------------------------------------------
    def flashcard_back(self, slug: str, card_id: str) -> FlashcardBack:
        lesson = find_lesson(self.catalog, slug)
        card = find_flashcard(lesson, card_id)
        if card is None:
            raise UnknownFlashcard(f"Lesson {slug!r} has no flashcard {card_id!r}")
        if not card_open(card, self._disclosure(lesson)):
            raise PredictionNotCommitted(_CLOSED)
        return grader.flashcard_back(card)

    def rate_flashcard(self, slug: str, card_id: str, rating: Grade) -> RatingResult:
        """The learner's own grade of a card; `again` and `hard` put it in the review queue."""
        self.flashcard_back(slug, card_id)  # UnknownFlashcard for an unknown card
        moment = now()
        with self.store.together():
            self.store.record_flashcard(self.learner, slug, card_id, rating.value)
            self.queue.note_flashcard(slug, card_id, rating, moment)
        # `again` and `hard` queue a card (it comes back after a learning step), as they relearn
        # one that was queued already.
        queued = rating in (Grade.again, Grade.hard)
        return RatingResult(queued=queued, due_count=self.queue.due_count(moment))

    # --- Pitfall fixer ------------------------------------------------------------------------
    def hint(self, slug: str, number: int, level: int) -> HintOut:
        """The hint ladder: 1 what to compare, 2 where to look (quoted, not numbered), 3 why."""
        pitfall = self._open_pitfall(slug, number)
        if not 1 <= level <= pitfalls.HINT_LEVELS:
            raise UnknownPitfall(f"Hints go from 1 to {pitfalls.HINT_LEVELS}")
        found = pitfalls.hint(pitfall, level)
        return HintOut(
            level=found.level,
            title=found.title,
            text_html=str(rendering.markdown(found.text)),
            code=found.code,
        )

    def fix(self, slug: str, number: int) -> FixOut:
        pitfall = self._open_pitfall(slug, number)
        root_cause = str(rendering.markdown(pitfall.root_cause))
        return FixOut(code=pitfall.correct.code, root_cause_html=root_cause)

    async def check_fix(self, slug: str, number: int, code: str, address: str) -> FixVerdict:
        """Run the fix (in this learner's line at the client `address`) and compare what it
        does with what the corrected code is declared to do. Text is never compared."""
        # A read of the store: in a thread, off the event loop (see Learning.answer_step).
        pitfall = await asyncio.to_thread(self._open_pitfall, slug, number)
        verdict = grader.fix_verdict(pitfall, await self.runs.run(code, Who(address, self.learner)))
        # The store is synchronous: off the event loop (see Learning.answer_step).
        await self.store.writer(
            self.store.record_pitfall_check, self.learner, slug, number, verdict.passed
        )
        return verdict

    # --- The review queue ---------------------------------------------------------------------
    def review_queue(self) -> ReviewQueueOut:
        moment = now()
        view = self.queue.view(moment)
        return ReviewQueueOut(
            due=queue_items(view),
            due_count=view.due_total,
            sitting=self.queue.sitting_size,
            scheduled=view.scheduled,
            next_due=view.next_due,
            next_due_text=describe_wait(view.next_due, moment) if view.next_due else None,
        )

    def answer_review(
        self, card_id: int, body: ReviewAnswerBody, form: int | None = None
    ) -> ReviewResult:
        """Graded as its lesson page grades it, then rescheduled by FSRS. NotDue when it was
        answered already, NotFound when there is no such item, NotTheFormAsked when `form` is
        not the form of the question this return asks."""
        moment = now()
        answered = self.queue.answer(card_id, body, moment, form)
        if answered is None:
            raise UnknownReviewItem(f"There is no review item {card_id}")
        outcome, memory = answered
        return ReviewResult(
            correct=outcome.correct,
            graded=outcome.grade is not None,
            reveal=outcome.reveal,
            next_due=memory.due,
            comes_back=describe_wait(memory.due, moment),
            due_count=self.queue.due_count(moment),
            left=self.queue.left(card_id),
        )

    def answer_recall(
        self, slug: str, number: int, body: Mapping[str, object], form: int | None
    ) -> RecallResult:
        """An answer to the lesson's recall question on step `number`
        (app/learning/practice/recall.py): graded as review grades it, kept, and fed to the
        step's review card."""
        lesson = find_lesson(self.catalog, slug)
        shown = self._disclosure(lesson)
        return answer_recall(shown, self.store, self.queue, number, body, form, now())

    def view(self) -> QueueView:
        return self.queue.view(now())

    def due_total(self) -> int:
        """How many review items are due now (`view().due_total`, read more cheaply)."""
        return self.queue.due_count(now())

    def reviewed_today(self) -> int:
        return self.store.review_answers_since(self.learner, now() - timedelta(hours=24))
