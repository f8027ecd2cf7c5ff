"""The shapes the LTI modules pass around; the one refusal is app.errors.LtiRefused."""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import LtiRefused

__all__ = ["DeepLinkRequest", "LtiRefused"]


@dataclass(frozen=True)
class DeepLinkRequest:
    """What a deep-linking launch asks for, kept in the instructor's cookie until they pick."""

    platform_id: int
    deployment_id: str
    return_url: str
    data: str | None
