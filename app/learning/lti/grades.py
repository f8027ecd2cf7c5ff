"""Grades back to the LMS (Assignment and Grade Services).

After each answer in a lesson launched from an LMS, the learner's score for that lesson goes
into an outbox in the database, in the answer's own transaction, so no score is lost when the
LMS is down. A sender posts the outbox to the line item's `/scores`, with an access token got by
a client-credentials grant and a JWT assertion signed with gradlab's published key (cached
until it expires), and retries with backoff.

The score is the share of the lesson's predictions and myths answered right at the first try,
out of all of them (an answer given after reading the lesson ahead counts as answered, not as
right); `activityProgress` is Completed and `gradingProgress` FullyGraded once the lesson is
done (`app/learning/answers/completion.py`, the one definition of done), else InProgress and Pending
(the grade can still change).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.learning.answers.completion import is_done, lesson_questions
from app.learning.kinds import MYTH, PREDICTION
from app.learning.lti import claims as c
from app.learning.lti.platform_http import PlatformError, post_json
from app.learning.lti.tokens import PlatformTokens
from app.lessons.format import Lesson
from app.progress.models.learners import MythAnswer, StepAnswer
from app.progress.store import ProgressStore

log = logging.getLogger("gradlab.lti")
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
SCORE_SCOPES = (c.SCORE_SCOPE, c.LINEITEM_SCOPE)
MAX_BACKOFF = timedelta(hours=1)


@dataclass(frozen=True)
class LessonScore:
    right_first: int
    answered: int
    total: int


def lesson_score(store: ProgressStore, learner: str, lesson: Lesson) -> LessonScore:
    """First-try results on today's version of each question of the lesson."""
    current = lesson_questions(lesson)
    first: dict[tuple[str, int], bool] = {}
    for kind, model, number in (
        (PREDICTION, StepAnswer, StepAnswer.step),
        (MYTH, MythAnswer, MythAnswer.myth),
    ):
        for row in store.lesson_rows(model, learner, lesson.slug):  # oldest first
            key = (kind.name, getattr(row, number.key))
            if current.get(key) == row.fingerprint and key not in first:
                # An answer given after reading the lesson ahead counts as answered, not right.
                first[key] = bool(row.correct) and not row.seen_answers
    return LessonScore(sum(first.values()), len(first), len(current))


def score_body(score: LessonScore, sub: str, at: datetime) -> str:
    done = is_done(score.answered, score.total)
    return json.dumps(
        {
            "userId": sub,
            "scoreGiven": score.right_first / score.total if score.total else 0,
            "scoreMaximum": 1,
            "comment": f"{score.right_first} of {score.total} right at the first try",
            "timestamp": at.isoformat(),
            "activityProgress": "Completed" if done else "InProgress",
            "gradingProgress": "FullyGraded" if done else "Pending",
        }
    )


def queue_lesson_score(store: ProgressStore, learner: str, lesson: Lesson) -> None:
    """Put the learner's score for a launched lesson in the outbox (nothing for others)."""
    link = store.grade_link(learner, lesson.slug)
    if link is not None:
        body = score_body(lesson_score(store, learner, lesson), link.sub, datetime.now(UTC))
        store.add_to_outbox(link.platform_id, link.lineitem_url, body)


class ScoreSender:
    """Posts the outbox; call `send_due` from a thread now and then."""

    def __init__(self, store: ProgressStore, tokens: PlatformTokens | None = None) -> None:
        self.store = store
        self.tokens = tokens or PlatformTokens(store)

    def send_due(self) -> int:
        now = datetime.now(UTC)
        sent = 0
        for pending in self.store.due_scores(now):
            try:
                token = self.tokens.token(pending.platform_id, SCORE_SCOPES)
                post_json(_scores_url(pending.lineitem_url), pending.body, SCORE_TYPE, token)
            except PlatformError as exc:
                wait = min(MAX_BACKOFF, timedelta(seconds=5 * 2**pending.tries))
                log.warning("lti: score %d not sent (%s); next try in %s", pending.id, exc, wait)
                self.tokens.forget(pending.platform_id)  # a refused token is not reused
                self.store.score_failed(pending.id, str(exc), wait, now)
                continue
            self.store.score_sent(pending.id, datetime.now(UTC))
            sent += 1
        return sent


def _scores_url(lineitem: str) -> str:
    base, _, query = lineitem.partition("?")
    return f"{base.rstrip('/')}/scores" + (f"?{query}" if query else "")


SEND_EVERY_S = 2.0


async def send_scores(sender: ScoreSender, stopping: asyncio.Event) -> None:
    """Post the outbox now and then until the server stops; never on the event loop."""
    while not stopping.is_set():
        try:
            await asyncio.to_thread(sender.send_due)
        except Exception:
            log.exception("lti: sending scores failed; trying again")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), SEND_EVERY_S)
