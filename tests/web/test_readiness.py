"""Health that tells the truth: /readyz fails while the database cannot answer (and while the
sandbox cannot run), /healthz stays up, and the metrics say so; a database that comes back
makes the same app ready again, on the same engine and pool."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from app.learning.readiness import UNREACHABLE, DatabaseProbe
from app.main import create_app
from app.progress.database import make_engine, require_reachable
from tests.conftest import in_own_thread, make_settings, wait_until

TOKEN = secrets.token_urlsafe(24)
AUTH = {"Authorization": f"Bearer {TOKEN}"}
LESSON = "/api/lessons/first-steps"


def _samples(client: TestClient) -> dict[str, float]:
    text = client.get("/metrics", headers=AUTH).text
    found = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            found[name] = float(value)
    return found


@pytest.fixture
def own_postgres() -> Iterator[Any]:
    """A PostgreSQL server of this test's own: it is stopped and started again."""
    from tests import postgres as pg

    if not pg.available():
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    server = pg.PostgresServer()
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # a test that left it stopped
            server.close()


@pytest.mark.slow
def test_a_stopped_postgresql_makes_the_instance_unready_and_a_restart_ready(
    own_postgres: Any,
) -> None:
    url = own_postgres.new_database(migrated=True)
    app = create_app(make_settings(database_url=url, metrics_token=TOKEN))
    with TestClient(app) as client:
        engine = app.state.store.engine
        assert client.get("/readyz").status_code == 200
        assert client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"}).status_code == 200
        assert _samples(client)["gradlab_database_ready"] == 1

        own_postgres.stop()
        stopped = time.monotonic()
        assert wait_until(lambda: client.get("/readyz").status_code == 503, timeout=5)
        print(f"not ready {time.monotonic() - stopped:.2f} s after the stop")
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.headers["retry-after"] == "2"
        assert ready.json()["type"] == "/problems/not-ready"
        assert ready.json()["detail"].endswith(f": database: {UNREACHABLE}")
        alive = client.get("/healthz")  # liveness: the process answers, and says what is wrong
        assert alive.status_code == 200
        assert alive.json()["status"] == "ok" and alive.json()["ready"] is False
        assert alive.json()["database"] == {"ready": False, "problem": UNREACHABLE}
        refused = client.put(f"{LESSON}/steps/1/code", json={"code": "print(2)"})
        assert refused.status_code == 503 and refused.json()["type"].endswith("store-unavailable")
        assert client.get("/lessons/first-steps").status_code == 503
        down = _samples(client)
        assert down["gradlab_database_ready"] == 0
        assert down['gradlab_database_errors_total{kind="connection"}'] >= 1
        code_route = "/api/lessons/{slug}/steps/{number}/code"
        assert down[f'gradlab_http_server_errors_total{{route="{code_route}",status="503"}}'] == 1
        assert down['gradlab_http_server_errors_total{route="/lessons/{slug}",status="503"}'] == 1
        assert down['gradlab_http_server_errors_total{route="/readyz",status="503"}'] >= 1

        own_postgres.start()
        assert wait_until(lambda: client.get("/readyz").status_code == 200, timeout=30)
        assert app.state.store.engine is engine  # the same app, engine and pool
        assert client.put(f"{LESSON}/steps/1/code", json={"code": "print(3)"}).status_code == 204
        assert client.get("/lessons/first-steps").status_code == 200
        assert client.get("/healthz").json()["database"] == {"ready": True}
        assert _samples(client)["gradlab_database_ready"] == 1


def test_a_database_that_says_nothing_is_unready_after_the_timeout_with_one_question() -> None:
    """A server that takes the connection and never answers (a firewall that drops packets):
    the probe answers "not ready" after its timeout while the driver still waits, and asking
    again meanwhile starts no second question."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        engine = make_engine(f"postgresql+psycopg://gradlab@127.0.0.1:{port}/gradlab")
        probe = DatabaseProbe(lambda: require_reachable(engine), timeout_s=0.5, fresh_s=0)

        async def twice() -> tuple[bool, bool]:
            first = await probe.probe()
            second = await probe.probe()
            return first.ready, second.ready

        assert in_own_thread(asyncio.run, twice()) == (False, False)
        asking = [t for t in threading.enumerate() if t.name == probe.thread_name]
        assert len(asking) == 1, asking
        assert probe.last.problem == UNREACHABLE
    engine.dispose()


def test_a_healthy_sqlite_instance_without_a_sandbox_is_ready(sqlite_client: TestClient) -> None:
    """A server whose sandbox is switched off serves its pages: ready."""
    ready = sqlite_client.get("/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["ready"] is True and body["database"] == {"ready": True}
    assert body["sandbox"]["problem"] == "disabled"


def test_a_sandbox_not_yet_started_is_not_ready() -> None:
    """Before the lifespan starts the sandbox (a pod's first seconds): alive, not ready."""
    client = TestClient(create_app(make_settings(sandbox_enabled=True)))  # no lifespan
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["detail"].endswith(": sandbox: not started")
    alive = client.get("/healthz")
    assert alive.status_code == 200 and alive.json()["ready"] is False
    assert alive.json()["database"] == {"ready": True}


def test_the_database_errors_are_counted_by_kind(postgres: Any) -> None:
    """A write that loses a race (a constraint refuses it) is an integrity error, not a
    connection error: the alert leaves it out."""
    url = postgres.new_database(migrated=True)
    app = create_app(make_settings(database_url=url, metrics_token=TOKEN))
    with TestClient(app) as client:
        before = _samples(client)
        with app.state.store.engine.connect() as connection:
            connection.execute(text("CREATE TEMP TABLE once (id int PRIMARY KEY)"))
            connection.execute(text("INSERT INTO once VALUES (1)"))
            with pytest.raises(IntegrityError):
                connection.execute(text("INSERT INTO once VALUES (1)"))
        after = _samples(client)
    for kind, grew in {"integrity": 1, "connection": 0, "operational": 0, "other": 0}.items():
        name = f'gradlab_database_errors_total{{kind="{kind}"}}'
        assert after[name] - before[name] == grew, kind
