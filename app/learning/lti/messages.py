"""The shapes the LTI modules pass around; the one refusal is app.errors.LtiRefused."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

from app.errors import LtiRefused

__all__ = ["DeepLinkRequest", "Launched", "LtiRefused", "deep_link_request"]


@dataclass(frozen=True)
class DeepLinkRequest:
    """What a deep-linking launch asks for, kept in the instructor's cookie until they pick."""

    platform_id: int
    deployment_id: str
    return_url: str
    data: str | None


@dataclass(frozen=True)
class Launched:
    learner: str
    class_id: str | None
    instructor_key: str | None  # set for instructors: their cookie's key for the class
    lesson: str | None
    deep_link: DeepLinkRequest | None = None
    # Set once the launch is checked (app/learning/lti/resume.py): the random value the
    # session keeps, and the signed link that opens the same session in a window of its own.
    check: str = ""
    resume: str = ""

    @property
    def landing(self) -> str:
        if self.deep_link is not None:
            return "/lti/deep-link"
        if self.instructor_key is not None and self.class_id is not None:
            return f"/classes/{self.class_id}"
        return f"/lessons/{self.lesson}" if self.lesson else "/"

    @property
    def landed_url(self) -> str:
        """Where a launch sends the browser first: a page that checks the cookie came back."""
        return "/lti/landed?" + urllib.parse.urlencode({"to": self.landing, "c": self.resume})


def deep_link_request(raw: object) -> DeepLinkRequest:
    """A deep-linking request back from the cookie it was kept in (signed, so only ours)."""
    if not isinstance(raw, dict):
        raise LtiRefused("deep linking", "no deep-linking request in progress: launch it again")
    try:
        return DeepLinkRequest(
            int(raw["platform_id"]),
            str(raw["deployment_id"]),
            str(raw["return_url"]),
            None if raw.get("data") is None else str(raw["data"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise LtiRefused("deep linking", "the request in progress is unreadable") from exc
