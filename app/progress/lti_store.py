"""LTI 1.3 in the progress store: registered platforms and deployments, gradlab's keys, logins
in flight, the mapping of LMS users and courses to learners and classes, and the score outbox.

Knows nothing of JWTs or HTTP: app/learning/lti does the protocol.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, select, update

from app.progress.classes_store import ClassRecords
from app.progress.models.learners import Learner
from app.progress.models.lti import (
    LtiContext,
    LtiDeployment,
    LtiGradeLink,
    LtiKey,
    LtiLogin,
    LtiPlatform,
    LtiScore,
    LtiUser,
)


@dataclass(frozen=True)
class Platform:
    id: int
    issuer: str
    client_id: str
    auth_url: str
    token_url: str
    jwks_url: str
    deployments: tuple[str, ...] = ()


@dataclass(frozen=True)
class StoredKey:
    kid: str
    private_pem: str
    active: bool


@dataclass(frozen=True)
class GradeLink:
    platform_id: int
    lineitem_url: str
    sub: str


_GRADE_LINK = select(LtiGradeLink.platform_id, LtiGradeLink.lineitem_url, LtiGradeLink.sub).where(
    LtiGradeLink.learner_id == bindparam("learner"), LtiGradeLink.lesson == bindparam("lesson")
)


@dataclass(frozen=True)
class PendingScore:
    id: int
    platform_id: int
    lineitem_url: str
    body: str
    tries: int


class LtiRecords(ClassRecords):
    # --- platforms ---------------------------------------------------------------------------
    def add_platform(
        self,
        issuer: str,
        client_id: str,
        deployment_ids: list[str],
        auth_url: str,
        token_url: str,
        jwks_url: str,
    ) -> Platform:
        """Register a platform, or add deployments to one already registered."""
        with self.writing() as connection:
            connection.execute(
                self.insert_ignoring(LtiPlatform),
                {
                    "issuer": issuer,
                    "client_id": client_id,
                    "auth_url": auth_url,
                    "token_url": token_url,
                    "jwks_url": jwks_url,
                },
            )
            platform_id = connection.scalar(
                select(LtiPlatform.id).where(
                    LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id
                )
            )
            connection.execute(
                update(LtiPlatform)
                .where(LtiPlatform.id == platform_id)
                .values(auth_url=auth_url, token_url=token_url, jwks_url=jwks_url)
            )
            for deployment in deployment_ids:
                connection.execute(
                    self.insert_ignoring(LtiDeployment),
                    {"platform_id": platform_id, "deployment_id": deployment},
                )
        found = self.platform(issuer, client_id)
        assert found is not None  # noqa: S101 - just written
        return found

    def platforms(self) -> list[Platform]:
        with self.reading() as connection:
            rows = connection.execute(select(LtiPlatform).order_by(LtiPlatform.id)).all()
            deployments = connection.execute(select(LtiDeployment)).all()
        by_platform: dict[int, list[str]] = {}
        for row in deployments:
            by_platform.setdefault(row.platform_id, []).append(row.deployment_id)
        return [_platform(row, by_platform.get(row.id, [])) for row in rows]

    def platform(self, issuer: str, client_id: str | None = None) -> Platform | None:
        """The platform with this issuer (and client id, when the platform sent one)."""
        matches = [
            p
            for p in self.platforms()
            if p.issuer == issuer and (client_id is None or p.client_id == client_id)
        ]
        return matches[0] if len(matches) == 1 else None

    def platform_by_id(self, platform_id: int) -> Platform | None:
        return next((p for p in self.platforms() if p.id == platform_id), None)

    def remove_platform(self, platform_id: int) -> bool:
        with self.writing() as connection:
            for model in (LtiDeployment, LtiContext, LtiGradeLink, LtiScore):
                connection.execute(delete(model).where(model.platform_id == platform_id))
            gone = connection.execute(delete(LtiPlatform).where(LtiPlatform.id == platform_id))
        return bool(gone.rowcount)

    # --- gradlab's keys ----------------------------------------------------------------------
    def lti_keys(self) -> list[StoredKey]:
        """Every key, newest first."""
        with self.reading() as connection:
            rows = connection.execute(select(LtiKey).order_by(LtiKey.created_at.desc())).all()
        return [StoredKey(r.kid, r.private_pem, r.active) for r in rows]

    def add_lti_key(self, kid: str, private_pem: str, *, retire_others: bool) -> None:
        with self.writing() as connection:
            if retire_others:
                connection.execute(update(LtiKey).values(active=False))
            connection.execute(
                self.insert(LtiKey), {"kid": kid, "private_pem": private_pem, "active": True}
            )

    # --- logins in flight --------------------------------------------------------------------
    def spend_state(self, state: str, forget_before: datetime) -> bool:
        """Mark a login's state used; False if it was used already. States older than
        `forget_before` are forgotten: their signature has expired anyway."""
        with self.writing() as connection:
            connection.execute(delete(LtiLogin).where(LtiLogin.created_at < forget_before))
            spent = connection.execute(
                self.insert_ignoring(LtiLogin), {"state": _digest(state)}
            ).rowcount
        return bool(spent)

    # --- users and courses -------------------------------------------------------------------
    def lti_learner(self, issuer: str, sub: str) -> str:
        """The learner an LMS user is, made on their first launch."""
        with self.writing() as connection:
            learner = str(uuid.uuid4())
            connection.execute(self.insert_ignoring(Learner), {"id": learner})
            connection.execute(
                self.insert_ignoring(LtiUser), {"issuer": issuer, "sub": sub, "learner_id": learner}
            )
            kept = str(
                connection.scalar(
                    select(LtiUser.learner_id).where(LtiUser.issuer == issuer, LtiUser.sub == sub)
                )
            )
            if kept != learner:  # the user had one already: drop the spare row
                connection.execute(delete(Learner).where(Learner.id == learner))
        return kept

    def context_class(self, platform_id: int, deployment: str, context: str) -> str | None:
        with self.reading() as connection:
            found: str | None = connection.scalar(
                select(LtiContext.class_id).where(
                    LtiContext.platform_id == platform_id,
                    LtiContext.deployment_id == deployment,
                    LtiContext.context_id == context,
                )
            )
        return found

    def link_context(
        self,
        platform_id: int,
        deployment: str,
        context: str,
        class_id: str,
        memberships_url: str | None,
    ) -> None:
        with self.writing() as connection:
            connection.execute(
                self.upsert(LtiContext, "class_id", "memberships_url"),
                {
                    "platform_id": platform_id,
                    "deployment_id": deployment,
                    "context_id": context,
                    "class_id": class_id,
                    "memberships_url": memberships_url,
                },
            )

    # --- grades ------------------------------------------------------------------------------
    def set_grade_link(self, learner: str, lesson: str, link: GradeLink) -> None:
        with self.writing() as connection:
            connection.execute(
                self.upsert(LtiGradeLink, "platform_id", "lineitem_url", "sub"),
                {
                    "learner_id": learner,
                    "lesson": lesson,
                    "platform_id": link.platform_id,
                    "lineitem_url": link.lineitem_url,
                    "sub": link.sub,
                },
            )

    def grade_link(self, learner: str, lesson: str) -> GradeLink | None:
        """Where a launched lesson's score goes; None for a learner not launched into it
        (asked after every answer: a statement built once)."""
        with self.reading() as connection:
            row = connection.execute(_GRADE_LINK, {"learner": learner, "lesson": lesson}).first()
        return GradeLink(row.platform_id, row.lineitem_url, row.sub) if row else None

    def add_to_outbox(self, platform_id: int, lineitem_url: str, body: str) -> None:
        with self.writing() as connection:
            connection.execute(
                self.insert(LtiScore),
                {"platform_id": platform_id, "lineitem_url": lineitem_url, "body": body},
            )

    def due_scores(self, now: datetime, limit: int = 50) -> list[PendingScore]:
        with self.reading() as connection:
            rows = connection.execute(
                select(LtiScore)
                .where(LtiScore.sent_at.is_(None), LtiScore.next_try <= now)
                .order_by(LtiScore.id)
                .limit(limit)
            ).all()
        return [PendingScore(r.id, r.platform_id, r.lineitem_url, r.body, r.tries) for r in rows]

    def score_sent(self, score_id: int, at: datetime) -> None:
        with self.writing() as connection:
            connection.execute(update(LtiScore).where(LtiScore.id == score_id).values(sent_at=at))

    def score_failed(self, score_id: int, error: str, retry_in: timedelta, now: datetime) -> None:
        with self.writing() as connection:
            connection.execute(
                update(LtiScore)
                .where(LtiScore.id == score_id)
                .values(tries=LtiScore.tries + 1, next_try=now + retry_in, last_error=error[:500])
            )


def _platform(row: Any, deployments: list[str]) -> Platform:
    return Platform(
        row.id,
        row.issuer,
        row.client_id,
        row.auth_url,
        row.token_url,
        row.jwks_url,
        tuple(sorted(deployments)),
    )


def _digest(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()
