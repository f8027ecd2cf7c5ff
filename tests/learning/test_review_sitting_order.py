"""A review sitting answered in any order grades each item on the form the sitting showed.

The items of one step (its prediction, its select-all, its drills) share the step's variant
instances, and each avoids the others' while an unseen one remains. Once the unseen forms run
out, two items may be asked on one; answered newest card first, the newer one's form becomes
one the learner was shown before the older is answered, and the older must still ask, and
grade, what the sitting showed. A sitting holds 20 items at most, and which due items it holds
changes with every answer: an item that leaves the sitting and comes back asks what it asked.
The real curriculum, through the queue itself, sitting after sitting, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from app.config.paths import BUNDLED_LESSONS
from app.learning.kinds import DRILL, PREDICTION, SELECT_ALL
from app.learning.practice.queue import QueueItem, ReviewQueue
from app.lessons.format import Lesson
from app.main import create_app
from app.modes.drills import lesson_drills
from app.progress.models.learners import Learner
from tests.conftest import make_settings

# Lessons whose steps have many instances, drills on them, and (the first) a select-all.
LESSONS = ("graphs-used-twice", "gradients-accumulate")
# Forms are drawn in orders of each learner's own; before the mend, this learner's sittings
# were refused (and so were most learners').
LEARNER = "learner-ada"


def _body(item: QueueItem) -> dict[str, object] | None:
    """A wrong-or-right answer as the page would send it (so that the item comes back)."""
    prompt = item.prompt
    if prompt.kind is PREDICTION:
        return {"choice": prompt.choices[0], "confidence": "guess"}
    if prompt.kind is SELECT_ALL:
        return {"picked": prompt.choices[:1], "confidence": "guess"}
    if prompt.kind is DRILL:
        return {"value": "0", "confidence": "guess"}
    return None


def _miss_every_item(queue: ReviewQueue, lesson: Lesson, now: datetime) -> None:
    for number, step in enumerate(lesson.steps, start=1):
        if step.prediction is not None:
            queue.note_miss(lesson.slug, PREDICTION, str(number), now)
        if step.select_all is not None:
            queue.note_miss(lesson.slug, SELECT_ALL, str(number), now)
    for drill in lesson_drills(lesson):
        queue.note_miss(lesson.slug, DRILL, drill.id, now)


def _answer_newest_first(queue: ReviewQueue, now: datetime) -> int:
    """One sitting, answered newest card first, each with the form it showed; how many."""
    shown = queue.view(now).due
    assert shown
    asked = {item.card.id: item.prompt.form for item in shown}
    graded = 0
    for item in sorted(shown, key=lambda item: -item.card.id):
        body = _body(item)
        if body is None:
            continue
        # As the page sends it: with the form shown (a 409 or a 422 would raise).
        assert queue.answer(item.card.id, body, now, item.prompt.form) is not None
        graded += 1
        # What the items still due ask is what this sitting showed them.
        for still in queue.view(now).due:
            if still.card.id in asked:
                assert still.prompt.form == asked[still.card.id], still
    return graded


def test_a_sitting_answered_newest_card_first_grades_what_it_showed(migrated_url: str) -> None:
    app = create_app(make_settings(database_url=migrated_url, lessons_dir=BUNDLED_LESSONS))
    store, catalog = app.state.store, app.state.catalog
    with store.engine.begin() as connection:  # a learner of a fixed id: the same draws
        connection.execute(insert(Learner).values(id=LEARNER))
    for slug in LESSONS:
        lesson = catalog.get(slug)
        assert lesson is not None
        queue = ReviewQueue(store, catalog, LEARNER)
        now = datetime(2026, 1, 5, tzinfo=UTC)
        _miss_every_item(queue, lesson, now)
        graded = 0
        for _ in range(4):
            now += timedelta(minutes=11)
            graded += _answer_newest_first(queue, now)
        assert graded > 40, (slug, graded)
