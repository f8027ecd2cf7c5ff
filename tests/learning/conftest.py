"""The LTI tests' pair: gradlab and a platform someone else wrote, each on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.lti_platform import Pair


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    both = Pair()
    yield both
    both.stop()
