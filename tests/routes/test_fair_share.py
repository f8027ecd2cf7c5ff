"""Runs over HTTP against the real sandbox: each learner's line, its limits (429 with
Retry-After), new learners limited per client address, and the refusals in /metrics."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.main import create_app
from tests.conftest import make_settings, wait_until

TOKEN = secrets.token_urlsafe(24)
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SLEEP = "import time\ntime.sleep(1.5)\nprint('woke')\n"
LESSON = "first-steps"


def _metric(client: TestClient, name: str, labels: dict[str, str] | None = None) -> float:
    text = client.get("/metrics", headers=AUTH).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and (labels is None or sample.labels == labels):
                return float(sample.value)
    raise AssertionError(f"{name} {labels} not in /metrics")


@pytest.fixture(scope="module")
def app() -> Iterator[Clients]:
    """One worker; a learner may have one run in progress and one waiting."""
    settings = make_settings(
        sandbox_enabled=True,
        workers=1,
        runs_per_learner=1,
        queued_per_learner=1,
        metrics_token=TOKEN,
        new_learners_per_minute=3,
    )
    with TestClient(create_app(settings)) as started:
        yield Clients(started)


class Clients:
    """Clients of one started app, each with its own cookies and client address, all on the
    started client's event loop (the sandbox's)."""

    def __init__(self, started: TestClient) -> None:
        self.started = started

    def __call__(self, address: str = "192.0.2.100", port: int = 50000) -> TestClient:
        client = TestClient(self.started.app, client=(address, port))
        client.portal = self.started.portal
        return client


def _learner(app: Clients, address: str) -> TestClient:
    """A learner of its own (a cookie from a lesson page) at a client address."""
    client = app(address)
    assert client.get(f"/api/lessons/{LESSON}").status_code == 200
    return client


def _in_background(client: TestClient, code: str, answers: list[int]) -> threading.Thread:
    def post() -> None:
        answers.append(client.post("/api/run", json={"code": code}).status_code)

    thread = threading.Thread(target=post)
    thread.start()
    return thread


def _health(client: TestClient) -> dict[str, int]:
    sandbox: dict[str, int] = client.get("/healthz").json()["sandbox"]
    return sandbox


def test_a_learner_past_its_limits_gets_429_and_another_learner_is_served(app: Clients) -> None:
    busy, quiet = _learner(app, "192.0.2.1"), _learner(app, "192.0.2.2")
    refused_before = _metric(busy, "gradlab_refusals_total", {"reason": "learner_limit"})
    answers: list[int] = []
    running = _in_background(busy, SLEEP, answers)
    assert wait_until(lambda: _health(busy)["busy"] == 1)
    waiting = _in_background(busy, SLEEP, answers)
    assert wait_until(lambda: _health(busy)["queued"] == 1)
    assert _metric(busy, "gradlab_sandbox_longest_line") == 1

    refused = busy.post("/api/run", json={"code": "print(1)"})
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) > 0
    assert "wait for one to finish" in refused.json()["detail"]
    assert _metric(busy, "gradlab_refusals_total", {"reason": "learner_limit"}) == (
        refused_before + 1
    )
    assert _metric(busy, "gradlab_runs_total", {"status": "limited"}) >= 1

    # The quiet learner arrives last but runs before the busy learner's waiting run: it has
    # had none of the sandbox lately.
    order: list[str] = []
    quiet_thread = threading.Thread(
        target=lambda: order.append(quiet.post("/api/run", json={"code": "print(7)"}).text)
    )
    quiet_thread.start()
    assert wait_until(lambda: _health(busy)["queued"] == 2)
    waiting.join(30)
    assert order, "the busy learner's second run finished before the quiet learner's first"
    quiet_thread.join(30)
    running.join(30)
    assert answers == [200, 200]


def test_without_a_cookie_runs_share_the_client_address_line(app: Clients) -> None:
    first, second = (app("192.0.2.3", 1) for _ in range(2))
    answers: list[int] = []
    running = _in_background(first, SLEEP, answers)
    assert wait_until(lambda: _health(first)["busy"] == 1)
    waiting = _in_background(second, SLEEP, answers)
    assert wait_until(lambda: _health(first)["queued"] == 1)
    # A third client without a cookie at the same address: the same line, already full.
    assert app("192.0.2.3", 2).post("/api/run", json={"code": "print(1)"}).status_code == 429
    running.join(30)
    waiting.join(30)
    assert answers == [200, 200]


def test_new_learners_are_limited_per_client_address(app: Clients) -> None:
    before = _metric(app(), "gradlab_refusals_total", {"reason": "client_limit"})
    statuses = [app("198.51.100.7", 1).get(f"/api/lessons/{LESSON}").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    refused = app("198.51.100.7", 1).get(f"/api/lessons/{LESSON}")
    assert int(refused.headers["retry-after"]) > 0
    # Another address, and a learner who already has a cookie, are not held back.
    assert app("198.51.100.8", 1).get("/api/lessons").status_code == 200
    assert _learner(app, "198.51.100.9").get(f"/api/lessons/{LESSON}").status_code == 200
    after = _metric(app(), "gradlab_refusals_total", {"reason": "client_limit"})
    assert after == before + 2


def test_the_addresses_of_one_ipv6_64_are_one_client(app: Clients) -> None:
    """A home or an office has a /64 and may take any address in it: four new learners from
    four of its addresses are four from one client; another /64 is another client."""
    statuses = [
        app(f"2001:db8:7:7::{n:x}", 1).get(f"/api/lessons/{LESSON}").status_code
        for n in range(1, 5)
    ]
    assert statuses == [200, 200, 200, 429]
    assert app("2001:db8:7:8::1", 1).get(f"/api/lessons/{LESSON}").status_code == 200


def test_an_untrusted_peer_cannot_choose_its_address_with_x_forwarded_for(app: Clients) -> None:
    statuses = [
        app("198.51.100.20", 1)
        .get(f"/api/lessons/{LESSON}", headers={"X-Forwarded-For": f"203.0.113.{n}"})
        .status_code
        for n in range(4)
    ]
    assert statuses == [200, 200, 200, 429]


def test_a_trusted_proxy_passes_on_each_client_address() -> None:
    settings = make_settings(trusted_proxies="10.0.0.0/8", new_learners_per_minute=1)
    application = create_app(settings)

    def new_learner(forwarded: str) -> int:
        client = TestClient(application, client=("10.1.2.3", 1))
        answer = client.get(f"/api/lessons/{LESSON}", headers={"X-Forwarded-For": forwarded})
        return answer.status_code

    # Each client address its own bucket of one; an address the client put in front of the
    # proxy's own entry is not believed.
    assert [new_learner(f"203.0.113.{n}") for n in range(3)] == [200, 200, 200]
    assert new_learner("203.0.113.0") == 429
    assert new_learner("1.2.3.4, 203.0.113.1") == 429
