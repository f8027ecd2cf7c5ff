"""What gradlab remembers of a learner: one row per fact, every attempt kept."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def _now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class LearnerRecord:
    """Columns of every row that keeps one thing a learner did in a lesson. `sort_order` puts
    them where the migrations did: the row number, the learner and the lesson first, then the
    table's own columns, its fingerprint if it has one, and the time last."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True, sort_order=-3)
    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), sort_order=-2
    )
    lesson: Mapped[str] = mapped_column(String(64), sort_order=-1)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, sort_order=2
    )


class Fingerprinted:
    """Which version of the question a row answers (see app/learning/questions.py): a record
    whose fingerprint no longer matches its lesson's question is retired, never shown."""

    fingerprint: Mapped[str | None] = mapped_column(String(32), nullable=True, sort_order=1)


class SeenAnswers:
    """Was the answer given after the learner chose to read the lesson ahead (every answer
    shown)? Set when the row is written, from the learner's read-ahead of that lesson: such
    an answer is kept and shown, never counted as what the learner understood."""

    seen_answers: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), sort_order=1
    )


class Learner(Base):
    __tablename__ = "learners"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class StepState(Base):
    """A step's current state for a learner: done, and the learner's own version of its code."""

    __tablename__ = "step_states"

    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    lesson: Mapped[str] = mapped_column(String(64), primary_key=True)
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    done: Mapped[bool] = mapped_column(Boolean, default=False)
    code: Mapped[str | None] = mapped_column(Text, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, onupdate=_now
    )


class PredictionAttempt(LearnerRecord, Fingerprinted, SeenAnswers, Base):
    __tablename__ = "prediction_attempts"
    __table_args__ = (Index("ix_prediction_learner_lesson", "learner_id", "lesson"),)

    step: Mapped[int] = mapped_column(Integer)
    choice: Mapped[str] = mapped_column(Text)
    confidence: Mapped[str] = mapped_column(String(16))
    correct: Mapped[bool] = mapped_column(Boolean)


class ValueAttempt(LearnerRecord, Fingerprinted, SeenAnswers, Base):
    __tablename__ = "value_attempts"
    __table_args__ = (Index("ix_value_learner_lesson", "learner_id", "lesson"),)

    step: Mapped[int] = mapped_column(Integer)
    value: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)


class MythAnswer(LearnerRecord, Fingerprinted, SeenAnswers, Base):
    __tablename__ = "myth_answers"
    __table_args__ = (Index("ix_myth_learner_lesson", "learner_id", "lesson"),)

    myth: Mapped[int] = mapped_column(Integer)
    answer: Mapped[str] = mapped_column(String(3))
    correct: Mapped[bool] = mapped_column(Boolean)


class ReadAhead(Base):
    """A learner chose to see a whole lesson at once, answers included (one row per lesson)."""

    __tablename__ = "read_aheads"

    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    lesson: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class AppSecret(Base):
    """Secrets the server makes for itself (the cookie-signing key) when none is configured."""

    __tablename__ = "app_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


# --- learning modes and the review queue ----------------------------------------------------


class LessonMode(Base):
    """The mode a learner last used for a lesson (deep-dive, flashcards, ...)."""

    __tablename__ = "lesson_modes"

    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    lesson: Mapped[str] = mapped_column(String(64), primary_key=True)
    mode: Mapped[str] = mapped_column(String(32))
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, onupdate=_now
    )


class DrillAttempt(LearnerRecord, Base):
    """A typed `.grad` value in Predict the gradient."""

    __tablename__ = "drill_attempts"
    __table_args__ = (Index("ix_drill_learner_lesson", "learner_id", "lesson"),)

    drill: Mapped[str] = mapped_column(String(160))
    value: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)


class FlashcardRating(LearnerRecord, Base):
    """A learner's own grade of a flashcard (again, hard, good, easy)."""

    __tablename__ = "flashcard_ratings"
    __table_args__ = (Index("ix_flashcard_learner_lesson", "learner_id", "lesson"),)

    card: Mapped[str] = mapped_column(String(64))
    rating: Mapped[str] = mapped_column(String(8))


class PitfallCheck(LearnerRecord, Base):
    """One "Check my fix" in the pitfall fixer, passed or not."""

    __tablename__ = "pitfall_checks"
    __table_args__ = (Index("ix_pitfall_learner_lesson", "learner_id", "lesson"),)

    pitfall: Mapped[int] = mapped_column(Integer)
    passed: Mapped[bool] = mapped_column(Boolean)


class ExerciseAttempt(LearnerRecord, Base):
    """One answer to an exercise (code to write): a check of the learner's lines (`code`) or,
    for an exercise that asks it, the diagnosis of its bug (`diagnosis`)."""

    __tablename__ = "exercise_attempts"
    __table_args__ = (Index("ix_exercise_learner_lesson", "learner_id", "lesson"),)

    exercise: Mapped[int] = mapped_column(Integer)
    part: Mapped[str] = mapped_column(String(16))  # code | diagnosis
    answer: Mapped[str] = mapped_column(Text)  # the lines (JSON) or the diagnosis chosen
    passed: Mapped[bool] = mapped_column(Boolean)
    # How sure the learner was of a diagnosis (guess | fairly_sure | certain); None for code.
    confidence: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # What a missed check was about (error | output | grads): it picks the hint; None otherwise.
    miss: Mapped[str | None] = mapped_column(String(16), nullable=True)


class ReviewCard(LearnerRecord, Fingerprinted, Base):
    """One item of a learner's review queue and its spaced-repetition memory (FSRS)."""

    __tablename__ = "review_cards"
    __table_args__ = (
        UniqueConstraint("learner_id", "lesson", "kind", "key", name="uq_review_card_item"),
        Index("ix_review_learner_due", "learner_id", "due"),
    )

    kind: Mapped[str] = mapped_column(String(16))  # prediction | myth | drill | flashcard
    key: Mapped[str] = mapped_column(String(160))  # step or myth number, drill or card id
    state: Mapped[int] = mapped_column(Integer)
    step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    stability: Mapped[float | None] = mapped_column(Float, nullable=True)
    difficulty: Mapped[float | None] = mapped_column(Float, nullable=True)
    due: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_review: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The newest miss already taken into account, so that each miss counts once.
    last_miss_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # A right answer given as a guess, or a miss given as certain: it comes back first.
    urgent: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Which other form of the question (a step's variant instance, a myth's form) the latest
    # review asked; None: none yet, or the item has no other form. The next return asks another.
    asked: Mapped[int | None] = mapped_column(Integer, nullable=True)


class RecallAnswer(LearnerRecord, Fingerprinted, Base):
    """An answer to one of a lesson's recall questions (app/learning/recall.py): a step's
    question asked on one of its variant instances (`form`) once the build-up is committed.
    One per question and form is kept; the answer feeds the step's review card."""

    __tablename__ = "recall_answers"
    __table_args__ = (
        # One answer per question: a second one (another tab, a request sent twice) is refused.
        UniqueConstraint(
            "learner_id", "lesson", "step", "kind", "form", "fingerprint", name="uq_recall_answer"
        ),
        Index("ix_recall_learner_lesson", "learner_id", "lesson"),
    )

    step: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # the question kind asked (its stored name)
    form: Mapped[int] = mapped_column(Integer)  # the variant instance asked
    choice: Mapped[str] = mapped_column(Text)
    confidence: Mapped[str] = mapped_column(String(16))
    correct: Mapped[bool] = mapped_column(Boolean)


class ReviewAnswer(Base):
    """One review of a queue item: its grade and when."""

    __tablename__ = "review_answers"
    __table_args__ = (Index("ix_review_answer_learner", "learner_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    card_id: Mapped[int] = mapped_column(ForeignKey("review_cards.id", ondelete="CASCADE"))
    grade: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class Share(Base):
    """A snippet shared by link (app/learning/shares.py). Never changed once made; it names no
    learner: `author_key` is a keyed hash of its author's id, only good for letting that same
    author delete it. `last_viewed` is moved forward by the page's view beacon, never by a GET."""

    __tablename__ = "shares"
    __table_args__ = (
        Index("ix_shares_author_created", "author_key", "created_at"),
        Index("ix_shares_last_viewed", "last_viewed"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    code: Mapped[str] = mapped_column(Text)
    lesson: Mapped[str | None] = mapped_column(String(64), nullable=True)
    step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    author_key: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    last_viewed: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


# --- classes: a teacher's view of a group of learners -----------------------------------------


class Classroom(Base):
    """A class a teacher made. Its two links are capabilities: only their SHA-256 hashes are
    kept, so a copy of the database cannot be turned into working links."""

    __tablename__ = "classes"

    id: Mapped[str] = mapped_column(String(22), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    join_hash: Mapped[str] = mapped_column(String(64), unique=True)
    instructor_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ClassMember(Base):
    """A learner in a class, under the display name they chose for it."""

    __tablename__ = "class_members"
    __table_args__ = (Index("ix_class_member_learner", "learner_id"),)

    class_id: Mapped[str] = mapped_column(
        ForeignKey("classes.id", ondelete="CASCADE"), primary_key=True
    )
    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    display_name: Mapped[str] = mapped_column(String(60))
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class QuestionReport(LearnerRecord, Fingerprinted, Base):
    """ "Report a problem with this question": a learner's words, kept with the version of the
    question they were about."""

    __tablename__ = "question_reports"
    __table_args__ = (Index("ix_question_report_lesson", "lesson"),)

    kind: Mapped[str] = mapped_column(String(16))  # prediction | myth
    number: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)


# --- the concept inventory: a test before the path and after it ------------------------------


class InventoryAnswer(Base):
    """One answer of a learner's concept-inventory test (`phase` pre or post). Kept apart from
    the lessons' questions: no review card, calibration, item statistic or grade reads it. A
    learner takes each phase once (the unique key)."""

    __tablename__ = "inventory_answers"
    __table_args__ = (UniqueConstraint("learner_id", "phase", "item", name="uq_inventory_answer"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    phase: Mapped[str] = mapped_column(String(8))  # pre | post
    form: Mapped[str] = mapped_column(String(1))  # A | B
    item: Mapped[str] = mapped_column(String(64))
    choice: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    confidence: Mapped[str] = mapped_column(String(16))
    # The version of the item answered (app/lessons/inventory.py, Item.fingerprint).
    fingerprint: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


# --- LTI 1.3: course sites that launch gradlab ------------------------------------------------


class LtiPlatform(Base):
    """A course site (an LMS) registered to launch gradlab: what it told us to trust."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platform"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_url: Mapped[str] = mapped_column(Text)
    token_url: Mapped[str] = mapped_column(Text)
    jwks_url: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class LtiDeployment(Base):
    __tablename__ = "lti_deployments"

    platform_id: Mapped[int] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True
    )
    deployment_id: Mapped[str] = mapped_column(String(255), primary_key=True)


class LtiKey(Base):
    """gradlab's own signing keys (published at /lti/jwks); the newest active one signs."""

    __tablename__ = "lti_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    private_pem: Mapped[str] = mapped_column(Text)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class LtiLogin(Base):
    """A login's state once its launch used it (its SHA-256): a state, and so the nonce it
    carries, is good for one launch. The login itself writes nothing (its state is signed)."""

    __tablename__ = "lti_logins"

    state: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class LtiUser(Base):
    """An LMS user (issuer and subject) and the gradlab learner they are."""

    __tablename__ = "lti_users"

    issuer: Mapped[str] = mapped_column(String(255), primary_key=True)
    sub: Mapped[str] = mapped_column(String(255), primary_key=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))


class LtiContext(Base):
    """An LMS course (a context of one deployment) and the class it is in gradlab."""

    __tablename__ = "lti_contexts"

    platform_id: Mapped[int] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True
    )
    deployment_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    context_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    class_id: Mapped[str] = mapped_column(ForeignKey("classes.id", ondelete="CASCADE"))
    memberships_url: Mapped[str | None] = mapped_column(Text, nullable=True)


class LtiGradeLink(Base):
    """Where a launched learner's score for one lesson goes: a line item of the LMS."""

    __tablename__ = "lti_grade_links"

    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    lesson: Mapped[str] = mapped_column(String(64), primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    lineitem_url: Mapped[str] = mapped_column(Text)
    sub: Mapped[str] = mapped_column(String(255))


class LtiScore(Base):
    """The outbox of scores for the LMS: kept until the LMS took it, retried with backoff."""

    __tablename__ = "lti_scores"
    __table_args__ = (Index("ix_lti_score_due", "sent_at", "next_try"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    lineitem_url: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)  # the Score JSON, as it will be posted
    tries: Mapped[int] = mapped_column(Integer, default=0)
    next_try: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
