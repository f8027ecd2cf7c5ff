"""Which form each due review item asks: on code the learner was not shown, nor by a due item
of an older card, while another form remains, and the same for as long as it is due, whatever
is answered meanwhile and in whatever order (a sitting's order changes with every answer).
What "shown" is comes from seen.py; the queue (queue.py) asks what this draws.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from app.learning.kinds import Prompt
from app.learning.practice.seen import review_shown, shown_elsewhere
from app.lessons.variants import code_print
from app.pedagogy.scheduler import utc
from app.progress.records import FormAnswered
from app.progress.store import ProgressStore, StoredCard


def draw(
    store: ProgressStore,
    learner: str,
    due: Sequence[tuple[StoredCard, Prompt]],
    cards: list[StoredCard],
    lessons: set[str],
    ask: Callable[[StoredCard, frozenset[str]], Prompt | None],
) -> dict[int, Prompt]:
    """What each due item of `lessons` asks, by card: on code the learner was not shown
    (seen.py), nor by a due item of an older card, while another form remains; a form is
    the first unseen in the return's own order. Every due item is drawn, in or out of this
    sitting (which of them a sitting holds changes with every answer), and what one asks
    stays as it was while it is due, whatever is answered meanwhile and in whatever order:
    an older card's form is one the item avoided already, and a newer card's answer given
    since the item fell due is one the item never avoided (`_as_drawn`)."""
    forms = store.review_forms(learner) if lessons else {}
    elsewhere: dict[str, frozenset[str]] = {}
    older: dict[str, set[str]] = {}  # the forms drawn for the due items of older cards
    known: dict[tuple[int, int], str | None] = {}  # each card's forms' code, found once
    own: dict[str, list[StoredCard]] = {}  # the lesson's cards
    now_shown: dict[str, frozenset[str]] = {}  # what review showed of it, up to now
    latest = {card: max(f.at for f in answered) for card, answered in forms.items() if answered}
    drawn: dict[int, Prompt] = {}
    for card, asked in sorted(due, key=lambda item: item[0].id):
        lesson = asked.lesson
        if lesson.slug not in lessons:
            continue  # another lesson's code is never this sitting's
        if lesson.slug not in elsewhere:
            elsewhere[lesson.slug] = shown_elsewhere(store, learner, lesson)
            older[lesson.slug] = set()
            own[lesson.slug] = [other for other in cards if other.lesson == lesson.slug]
        if then := _as_drawn(card, own[lesson.slug], forms, latest):
            seen = review_shown(lesson, *then, known) | elsewhere[lesson.slug]
        else:
            if lesson.slug not in now_shown:
                now_shown[lesson.slug] = review_shown(lesson, own[lesson.slug], forms, known)
            seen = now_shown[lesson.slug] | elsewhere[lesson.slug]
        prompt = ask(card, seen | older[lesson.slug]) or asked
        code = prompt.instance.code if prompt.instance is not None else prompt.code
        if prompt.form is not None and code:
            older[lesson.slug].add(code_print(code))
        drawn[card.id] = prompt
    return drawn


def _as_drawn(
    card: StoredCard,
    cards: list[StoredCard],
    forms: Mapping[int, tuple[FormAnswered, ...]],
    latest: Mapping[int, datetime],
) -> tuple[list[StoredCard], dict[int, tuple[FormAnswered, ...]]] | None:
    """The learner's cards and the forms review asked of them, as they were when a due `card`
    fell due, for the cards drawn after it (newer ones): their review answers given since
    are left out (so is the latest form they asked, which such an answer set). A newer due
    card avoids the form drawn for an older one, so its answer adds nothing that older card
    avoided; leaving it out keeps what the older card asks as the sitting showed it, even
    when the forms have run out and both were asked on one (`draw`). `latest`: each card's
    latest answer's time (of those in `forms`). None: nothing to leave out (as in a
    sitting's first view)."""
    since = utc(card.memory.due)

    def since_due(other: StoredCard) -> bool:
        return other.id > card.id and other.id in latest and latest[other.id] >= since

    if not any(since_due(other) for other in cards):
        return None
    then_cards = [replace(other, asked=None) if since_due(other) else other for other in cards]
    then_forms = {
        other.id: tuple(f for f in forms.get(other.id, ()) if not since_due(other) or f.at < since)
        for other in cards
    }
    return then_cards, then_forms
