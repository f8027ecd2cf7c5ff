"""Snippets shared by link."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.progress.models.declarative import Base, utc_now


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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    last_viewed: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
