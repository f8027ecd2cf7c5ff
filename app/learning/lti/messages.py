"""The shapes the LTI modules pass around, and the one refusal."""

from __future__ import annotations

from dataclasses import dataclass


class LtiRefused(Exception):
    """A login or launch gradlab will not accept; `check` names the check that failed."""

    def __init__(self, check: str, detail: str = "") -> None:
        super().__init__(f"{check}{': ' + detail if detail else ''}")
        self.check = check


@dataclass(frozen=True)
class DeepLinkRequest:
    """What a deep-linking launch asks for, kept in the instructor's cookie until they pick."""

    platform_id: int
    deployment_id: str
    return_url: str
    data: str | None
