"""The course's roster (Names and Role Provisioning Services): on an instructor's launch the
class is filled with the course's learners, so the dashboard lists those who have not
launched yet too. Only the LMS's id and name of each learner are kept."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from app.errors import InvalidText
from app.learning.classes.dashboard import clean_display_name
from app.learning.lti import claims as c
from app.learning.lti.platform_http import PlatformError, get_page
from app.learning.lti.tokens import PlatformTokens
from app.progress.lti_store import Platform
from app.progress.store import ProgressStore

log = logging.getLogger("gradlab.lti")
MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 50


def sync_roster(
    store: ProgressStore, tokens: PlatformTokens, platform: Platform, class_id: str, url: str
) -> int:
    """Add the course's active learners to the class; how many were listed. A platform that
    cannot be reached only delays the roster: the failure is logged, the launch goes on."""
    added = 0
    try:
        token = tokens.token(platform.id, (c.NRPS_SCOPE,))
        next_url: str | None = url
        for _ in range(MAX_PAGES):
            if next_url is None:
                break
            page, next_url = get_page(next_url, token, MEMBERSHIPS)
            for member in (page or {}).get("members", []):
                if _learner(member):
                    learner = store.lti_learner(platform.issuer, str(member["user_id"]))
                    name = display_name(member, str(member["user_id"]))
                    store.join_class(class_id, learner, name, keep_name=True)
                    added += 1
    except PlatformError as exc:
        log.warning("lti: the roster of class %s could not be read (%s)", class_id, exc)
    return added


def _learner(member: object) -> bool:
    if not isinstance(member, dict) or not member.get("user_id"):
        return False
    roles = member.get("roles") or []
    active = member.get("status", "Active") == "Active"
    return active and any(str(role).endswith("#Learner") or role == "Learner" for role in roles)


def display_name(person: Mapping[str, object], user_id: str) -> str:
    """The name an LMS gives a person (in a launch's claims or a roster's member), as a
    display name; without one, a neutral name from their id."""
    raw = person.get("name") or f"{person.get('given_name', '')} {person.get('family_name', '')}"
    try:
        return clean_display_name(str(raw)[:60])
    except InvalidText:
        return f"Learner {user_id[:8]}"
