"""Classes: a teacher's view of a group of learners, its members under the names they chose,
and the problems learners report with a question.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from app.progress.models.declarative import Base, Fingerprinted, LearnerRecord, utc_now


class Classroom(Base):
    """A class a teacher made. Its two links are capabilities: only their SHA-256 hashes are
    kept, so a copy of the database cannot be turned into working links."""

    __tablename__ = "classes"

    id: Mapped[str] = mapped_column(String(22), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    join_hash: Mapped[str] = mapped_column(String(64), unique=True)
    instructor_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    # The teacher opened the concept inventory's post-test for the class (before the path's end).
    post_test_open: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


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
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class QuestionReport(LearnerRecord, Fingerprinted, Base):
    """ "Report a problem with this question": a learner's words, kept with the version of the
    question they were about."""

    __tablename__ = "question_reports"
    __table_args__ = (Index("ix_question_report_lesson", "lesson"),)

    kind: Mapped[str] = mapped_column(String(16))  # prediction | myth
    number: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
