"""What the store hands back: typed records, never dictionaries read by key."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

# A review card's `asked` once its question, which has a single version, was answered right in
# review: asked again it would come back word for word, so it leaves the queue until missed
# again (a miss after its last review brings it back).
LEFT_REVIEW = -1


@dataclass(frozen=True)
class StepAnswerRecord:
    """A step's committed answer: a choice, or an order (its lines as JSON) told apart by its
    fingerprint; as kept, and (read back) the latest one."""

    choice: str
    confidence: str
    correct: bool
    fingerprint: str | None
    seen_answers: bool = False  # given after reading the lesson ahead


@dataclass(frozen=True)
class ValueRecord:
    """A typed `.grad` on one step: as kept, and (read back) the latest one."""

    value: str
    correct: bool
    revealed: bool
    fingerprint: str | None
    seen_answers: bool = False  # given after reading the lesson ahead


@dataclass(frozen=True)
class MythRecord:
    """A yes/no answer to a myth: as kept, and (read back) the latest one."""

    answer: str
    correct: bool
    fingerprint: str | None
    seen_answers: bool = False  # given after reading the lesson ahead


@dataclass
class StepRecord:
    done: bool = False
    code: str | None = None
    answer: StepAnswerRecord | None = None  # the latest committed answer: a choice or an order
    value: ValueRecord | None = None


@dataclass(frozen=True)
class LessonRecords:
    """The latest of everything a learner did in one lesson, by step and myth number."""

    steps: dict[int, StepRecord] = field(default_factory=dict)
    myths: dict[int, MythRecord] = field(default_factory=dict)
    read_ahead: bool = False  # the learner chose to see the whole lesson at once


@dataclass(frozen=True)
class FirstStepAnswer:
    """The first attempt at one version of a step's question (for calibration)."""

    lesson: str
    step: int
    fingerprint: str | None
    confidence: str
    correct: bool
    seen_answers: bool = False


@dataclass(frozen=True)
class DrillRecord:
    """One drill: answered right at least once, revealed, attempts, the latest value."""

    correct: bool
    revealed: bool
    attempts: int
    value: str
    forms: tuple[int, ...] = ()  # the step's variant instances answered, oldest first


@dataclass(frozen=True)
class PitfallRecord:
    """One pitfall: fixed (a check passed) and how many checks were made."""

    fixed: bool
    checks: int


@dataclass(frozen=True)
class ExerciseRecord:
    """One exercise: solved (a check passed), the checks made and missed, and the diagnosis
    given first, if the exercise asks one (None: not yet diagnosed)."""

    solved: bool = False
    checks: int = 0
    misses: int = 0
    diagnosis: str | None = None
    diagnosed_right: bool = False
    diagnosis_confidence: str | None = None  # how sure the learner was of it
    # Missed checks by what they were about (error, output, grads): the hint ladder of each.
    misses_by: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class LessonCounts:
    """Per lesson, across its records: steps done; drills right, pitfalls fixed, exercises
    attempted and solved."""

    steps_done: int = 0
    drills_right: int = 0
    pitfalls_fixed: int = 0
    exercises_attempted: int = 0
    exercises_solved: int = 0


@dataclass(frozen=True)
class CardMemory:
    """The scheduling fields of a review card, as written and as read."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    last_miss_at: datetime | None = None
    urgent: bool = False  # a right guess or a confident miss: first in its sitting


@dataclass(frozen=True)
class FormAnswered:
    """A form of a card's question (a variant instance, a myth's form) that one of its review
    answers answered, and when (the queue's time of the answer)."""

    form: int
    at: datetime


@dataclass(frozen=True)
class StoredCard:
    """A review-queue item as stored: what it points at and its scheduling memory."""

    id: int
    lesson: str
    kind: str
    key: str
    fingerprint: str | None
    memory: CardMemory
    asked: int | None = None  # the other form of its question its latest review asked

    @property
    def left(self) -> bool:
        """Answered right on its only version and not missed since: out of the queue."""
        kept = self.memory
        missed = kept.last_miss_at
        return (
            self.asked == LEFT_REVIEW
            and kept.last_review is not None
            and (missed is None or missed < kept.last_review)
        )


@dataclass(frozen=True)
class RecallRecord:
    """A learner's answer to one recall question: the step, the kind and form (the variant
    instance) asked, the choice given, how sure, right or not, and the question's version."""

    step: int
    kind: str
    form: int
    choice: str
    confidence: str
    correct: bool
    fingerprint: str | None
