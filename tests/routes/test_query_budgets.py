"""How many SQL statements each request of a load-test round issues, against a budget.

A round is what benchmarks/simulated_learner.py's learner sends (catalog, lesson page,
progress, a run, a prediction, a myth) on the lesson it uses, with the real sandbox behind the
run. Every
statement a request sends is counted (tests/statements.py), on SQLite and on PostgreSQL, for a new learner's first round and for a later one. The counts must equal
the budgets: a request that reads more than before fails here, and one that reads less asks
for its budget to be lowered, so that the saving is kept. Counting is exact where timing is
noisy; docs/performance.md says how to measure the time a change costs."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from app.config.paths import BUNDLED_LESSONS
from benchmarks.simulated_learner import LESSON, SNIPPET
from tests.conftest import app_on_shared_sandbox, make_settings
from tests.statements import statements_sent

# Statements per request: (a new learner's first round, a later round).
BUDGETS: dict[str, tuple[int, int]] = {
    # 3, and 2 more since "done" became the one rule of completion.py: each lesson's first
    # answers by fingerprint (a prediction read and a myth read, both indexed); and 1 for the
    # concept inventory's offer while the learner has not taken or skipped the pre-test (the
    # round's learner never does; once they have, their cookie says so and costs nothing).
    "GET / (catalog)": (0, 6),
    # The learner's state in the lesson in one statement (a UNION ALL of its five parts), and
    # the modes they chose.
    "GET /lessons/{slug}": (2, 2),
    "GET progress": (1, 1),
    "POST /api/run": (0, 0),
    "POST prediction, a miss": (9, 8),
    "POST prediction, right": (6, 6),
    "POST myth": (8, 7),
}


@pytest.fixture
def round_client(migrated_url: str, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The bundled curriculum with the session's real sandbox, on SQLite and on PostgreSQL."""
    settings = make_settings(
        lessons_dir=BUNDLED_LESSONS, database_url=migrated_url, sandbox_enabled=True
    )
    with TestClient(app_on_shared_sandbox(request, settings)) as test_client:
        yield test_client


def _the_round(client: TestClient) -> dict[str, Callable[[], httpx.Response]]:
    """The requests of a load-test round, in its order (the prediction's step fixed where the load
    test draws one at random, and its choice both wrong and right)."""
    lesson = client.get(f"/api/lessons/{LESSON}").json()
    client.cookies.clear()  # the round's learner is new: its first catalog has no cookie
    step = next(n for n, s in enumerate(lesson["steps"], 1) if s.get("prediction"))
    asked = client.app.state.catalog.get(LESSON).steps[step - 1].prediction  # type: ignore[attr-defined]
    wrong = next(text for text in asked.texts if text != asked.answer)
    api = f"/api/lessons/{LESSON}"

    def predict(choice: str) -> httpx.Response:
        answer = {"choice": choice, "confidence": "fairly_sure"}
        return client.post(f"{api}/steps/{step}/prediction", json=answer)

    return {
        "GET / (catalog)": lambda: client.get("/"),
        "GET /lessons/{slug}": lambda: client.get(f"/lessons/{LESSON}"),
        "GET progress": lambda: client.get(f"{api}/progress"),
        "POST /api/run": lambda: client.post(
            "/api/run", json={"code": SNIPPET, "lesson": LESSON, "step": step}
        ),
        "POST prediction, a miss": lambda: predict(wrong),
        "POST prediction, right": lambda: predict(asked.answer),
        "POST myth": lambda: client.post(f"{api}/myths/1/answer", json={"answer": "yes"}),
    }


def test_each_request_of_a_round_stays_within_its_query_budget(round_client: TestClient) -> None:
    engine = round_client.app.state.store.engine  # type: ignore[attr-defined]
    requests = _the_round(round_client)
    first = {name: len(statements_sent(engine, send)) for name, send in requests.items()}
    later = {name: len(statements_sent(engine, send)) for name, send in requests.items()}
    counts = {name: (first[name], later[name]) for name in requests}
    assert counts == BUDGETS


def test_the_budgets_in_the_docs_are_these() -> None:
    """docs/performance.md lists the budgets, in this order: a list in the docs is tested."""
    from app.config.paths import PROJECT_ROOT

    text = (PROJECT_ROOT / "docs" / "performance.md").read_text()
    table = text.split("The budgets today, first round / later round:")[1].split("\n\n")[1]
    listed = [
        tuple(int(n) for n in row.rsplit("|", 2)[1].split("/")) for row in table.splitlines()[2:]
    ]
    assert listed == list(BUDGETS.values())
