"""What a learner was shown: the one record that review reads so as never to ask code and
numbers again that the learner has seen.

It is derived from the records that already exist, never stored apart: the forms each review
card asked (its `asked`, and the form each review answer answered), the variant instance of
each recall answer, and the instance each drill answer on the drills page answered; of a
myth, the forms review asked (their questions), those fresh rounds of myth busters asked
(counted from the learner's answers to it) and the one the next round will ask. Each is named
by the fingerprint of its code (`code_print`: the code's text, so its numbers; a myth form's
question), per lesson, since only a lesson's own steps share code. A step's own code and the
instance its typed value asked on the lesson page are left out of every review by `pick`
already (its `avoid`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from app.learning.kinds import DRILL, find_kind
from app.learning.kinds.myth import rounds_seen
from app.lessons.format import Lesson, Step
from app.lessons.variants import code_print, instances
from app.modes.drills import Drill, drills_page_key, find_drill, for_learner
from app.progress.records import DrillRecord, FormAnswered, RecallRecord
from app.progress.store import ProgressStore, StoredCard


def form_code(lesson: Lesson, kind_name: str, key: str, form: int) -> str | None:
    """The code that form `form` of item `key` (a kind whose forms are a step's variant
    instances) showed, the question it asked (a kind whose forms are texts: a myth's), or
    None."""
    kind = find_kind(kind_name)
    if kind is not None and kind.form_text is not None:
        return kind.form_text(lesson, key, form)
    step = kind.form_step(lesson, key) if kind is not None and kind.form_step else None
    if not step or step > len(lesson.steps):
        return None
    found = (i.code for i in instances(lesson.steps[step - 1]) if i.index == form)
    return next(found, None)


def shown(
    store: ProgressStore,
    learner: str,
    lesson: Lesson,
    cards: Iterable[StoredCard],
    forms: Mapping[int, Iterable[FormAnswered]],
    recall: list[RecallRecord] | None = None,
) -> frozenset[str]:
    """The code fingerprints of what `learner` was shown in `lesson`: the forms `cards` (their
    review cards) asked (`forms`: by card, those its review answers answered, as
    `ProgressStore.review_forms` reads them), their recall answers and the drills they
    answered (`recall`: their recall answers, when read already)."""
    return review_shown(lesson, cards, forms) | shown_elsewhere(store, learner, lesson, recall)


def review_shown(
    lesson: Lesson,
    cards: Iterable[StoredCard],
    forms: Mapping[int, Iterable[FormAnswered]],
    known: dict[tuple[int, int], str | None] | None = None,
) -> frozenset[str]:
    """The code fingerprints of the forms review asked of `lesson`: each card's latest
    (`asked`) and those its review answers answered (`forms`). `known`: each (card, form)'s
    fingerprint found so far, kept across calls on the same cards."""
    known = {} if known is None else known
    found: set[str] = set()
    for card in cards:
        if card.lesson != lesson.slug:
            continue
        for form in {card.asked, *(answered.form for answered in forms.get(card.id, ()))}:
            if form is None:
                continue
            if (card.id, form) not in known:
                code = form_code(lesson, card.kind, card.key, form)
                known[card.id, form] = code_print(code) if code else None
            if printed := known[card.id, form]:
                found.add(printed)
    return frozenset(found)


def shown_elsewhere(
    store: ProgressStore,
    learner: str,
    lesson: Lesson,
    recall: list[RecallRecord] | None = None,
) -> frozenset[str]:
    """The code fingerprints of what `learner` was shown in `lesson` outside review: their
    recall answers, the drills they answered on the drills page and the myths' rounds."""
    codes: list[str | None] = [
        form_code(lesson, answer.kind, str(answer.step), answer.form)
        for answer in (store.recall_answers(learner, lesson.slug) if recall is None else recall)
    ]
    for drill_id, record in store.drill_state(learner, lesson.slug).items():
        drill = find_drill(lesson, drill_id)
        if drill is not None and drill.step:
            codes += [form_code(lesson, DRILL.name, drill_id, form) for form in record.forms]
            if not record.forms:  # kept before drill answers kept their instance
                codes.append(for_learner(lesson, drill, learner, drills_page_key(drill)).code)
    found = {code_print(code) for code in codes if code}
    for number, answered in store.myth_answer_counts(learner, lesson.slug).items():
        if 1 <= number <= len(lesson.myths):
            found.update(rounds_seen(lesson, number, learner, answered))
    return frozenset(found)


def learner_shown(
    store: ProgressStore, learner: str, lesson: Lesson, recall: list[RecallRecord] | None = None
) -> frozenset[str]:
    """`shown` with the learner's review cards and review answers read here."""
    cards, forms = store.review_cards(learner), store.review_forms(learner)
    return shown(store, learner, lesson, cards, forms, recall)


def only(step: Step, form: int) -> frozenset[str]:
    """What `seen` would be if every instance of `step` but `form` had been shown: `pick`
    then asks instance `form` (a question answered already keeps the instance it was asked)."""
    return frozenset(code_print(i.code) for i in instances(step) if i.index != form)


def page_drill(
    lesson: Lesson,
    drill: Drill,
    learner: str,
    state: Mapping[str, DrillRecord],
    seen: frozenset[str],
) -> Drill:
    """`drill` as the drills page asks `learner` it: on a step with variants, the instance the
    step's drills were answered on there (the page asks every tensor of a step on one
    instance), else one whose code is not in `seen` while one remains; the same on the page
    and for its answer, as long as nothing else was shown in between."""
    if not drill.step:
        return drill
    answered = [
        record.forms
        for drill_id, record in state.items()
        if (other := find_drill(lesson, drill_id)) is not None and other.step == drill.step
    ]
    kept = next((forms[-1] for forms in answered if forms), None)
    if answered and kept is None:  # answered before drill answers kept their instance
        return for_learner(lesson, drill, learner, drills_page_key(drill))
    if kept is not None:
        seen = only(lesson.steps[drill.step - 1], kept)
    return for_learner(lesson, drill, learner, drills_page_key(drill), seen=seen)
