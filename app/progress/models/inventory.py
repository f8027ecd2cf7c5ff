"""The concept inventory's answers: a test before the learning path and after it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.progress.models.declarative import Base, utc_now


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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
