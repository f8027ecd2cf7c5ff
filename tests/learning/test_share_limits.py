"""The hourly limit per client address: a window that slides, addresses forgotten once quiet,
and never written anywhere; and the author key, which only the server's secret can make."""

from __future__ import annotations

import pytest

from app.learning.shares import AddressLimit, SharePolicy, Shares, TooManyShares


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_address_window_slides_by_the_hour() -> None:
    clock = Clock()
    limit = AddressLimit(2, clock)
    limit.check_and_count("10.0.0.1")
    clock.now += 600
    limit.check_and_count("10.0.0.1")
    limit.check_and_count("10.0.0.2")  # another address has its own count
    with pytest.raises(TooManyShares) as refused:
        limit.check_and_count("10.0.0.1")
    assert refused.value.wait == 3000 + 1  # when the first of the two is an hour old
    clock.now += 3000
    limit.check_and_count("10.0.0.1")  # the first one has left the window
    clock.now += 3600
    limit.check_and_count("10.0.0.3")
    assert set(limit.made) == {"10.0.0.3"}  # quiet addresses are forgotten


def test_the_author_key_needs_the_secret() -> None:
    def key(secret: str, learner: str) -> str:
        policy = SharePolicy(
            code_bytes=100, per_hour=1, per_address_per_hour=1, days=None, secret=secret
        )
        return Shares(None, policy).author_key(learner)  # type: ignore[arg-type]

    assert key("one", "learner-a") == key("one", "learner-a")
    assert key("one", "learner-a") != key("one", "learner-b")
    assert key("one", "learner-a") != key("two", "learner-a")
