"""Secrets the server makes for itself and keeps in the database."""

from __future__ import annotations

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.progress.models.declarative import Base


class AppSecret(Base):
    """Secrets the server makes for itself (the cookie-signing key) when none is configured."""

    __tablename__ = "app_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
