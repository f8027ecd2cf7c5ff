"""LTI 1.3: the course sites (platforms) that launch gradlab, their deployments and keys, the
logins under way, the users and courses they launch, and the grades sent back.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.progress.models.declarative import Base, utc_now


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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class LtiLogin(Base):
    """A login's state once its launch used it (its SHA-256): a state, and so the nonce it
    carries, is good for one launch. The login itself writes nothing (its state is signed)."""

    __tablename__ = "lti_logins"

    state: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


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
    next_try: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
