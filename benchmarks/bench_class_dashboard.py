"""How long a class's dashboard takes to build for a large class that answered everything.

Generates a class of `--learners` learners (300 by default) in which every learner has made a
first attempt, and a second one, at every prediction and myth of the bundled curriculum, then
times, `--repeat` times each, what the dashboard's page and its JSON cost: the store's query of
first attempts and the whole dashboard (item analysis, misconceptions, funnels, calibration,
roster), and the page rendered through a real in-process request.

Usage: python benchmarks/bench_class_dashboard.py [--learners 300] [--database-url URL]
Numbers, not assertions: see docs/teaching.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

# Run as a script: the project root on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_sandbox import machine_line


def _fill(store, catalog, class_id: str, learners: int) -> int:  # type: ignore[no-untyped-def]
    from app.learning.kinds import myth_fingerprint, prediction_fingerprint
    from app.progress.models.classes import ClassMember
    from app.progress.models.learners import Learner, MythAnswer, StepAnswer

    rng = random.Random(1)
    start = datetime.now(UTC) - timedelta(days=1)
    people, members, predictions, myths = [], [], [], []
    for n in range(learners):
        learner = str(uuid.uuid4())
        ability = rng.random()
        people.append({"id": learner})
        members.append({"class_id": class_id, "learner_id": learner, "display_name": f"L{n}"})
        at = start
        for lesson in catalog.lessons:
            for step_number, step in enumerate(lesson.steps, start=1):
                if (p := step.prediction) is None:
                    continue
                for attempt in (1, 2):
                    right = attempt == 2 or rng.random() < ability
                    at += timedelta(seconds=7)
                    predictions.append(
                        {
                            "learner_id": learner,
                            "lesson": lesson.slug,
                            "step": step_number,
                            "choice": p.answer if right else rng.choice(p.texts),
                            "confidence": rng.choice(["guess", "fairly_sure", "certain"]),
                            "correct": right,
                            "fingerprint": prediction_fingerprint(p),
                            "created_at": at,
                        }
                    )
            for myth_number, myth in enumerate(lesson.myths, start=1):
                right = rng.random() < ability
                at += timedelta(seconds=5)
                wrong = "no" if myth.answer == "yes" else "yes"
                myths.append(
                    {
                        "learner_id": learner,
                        "lesson": lesson.slug,
                        "myth": myth_number,
                        "answer": myth.answer if right else wrong,
                        "correct": right,
                        "fingerprint": myth_fingerprint(myth),
                        "created_at": at,
                    }
                )
    with store.writing() as connection:
        for model, rows in (
            (Learner, people),
            (ClassMember, members),
            (StepAnswer, predictions),
            (MythAnswer, myths),
        ):
            connection.execute(store.insert(model), rows)
    return len(predictions) + len(myths)


def _time(call, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), max(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    args = parser.parse_args()

    from fastapi.testclient import TestClient

    from app.config.paths import BUNDLED_LESSONS
    from app.config.settings import Settings
    from app.learning.classes.dashboard import dashboard
    from app.main import create_app

    url = args.database_url or f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}"
    settings = Settings(lessons_dir=BUNDLED_LESSONS, database_url=url, sandbox_enabled=False)
    app = create_app(settings)
    with TestClient(app) as client:
        store, catalog = app.state.store, app.state.learning.catalog
        links = store.create_class("Benchmark")
        started = time.perf_counter()
        rows = _fill(store, catalog, links.info.id, args.learners)
        print(
            f"{args.learners} learners, {rows} answers written in "
            f"{time.perf_counter() - started:.1f} s"
        )
        print(machine_line(), "| database:", url.split(":", 1)[0])
        query = _time(lambda: store.first_attempts(links.info.id), args.repeat)
        board = _time(lambda: dashboard(catalog, store, links.info), args.repeat)
        client.get(f"/teach/{links.instructor_token}")
        page = _time(
            lambda: client.get(f"/classes/{links.info.id}").raise_for_status(), args.repeat
        )
        items = _time(
            lambda: client.get(f"/api/classes/{links.info.id}/items").raise_for_status(),
            args.repeat,
        )
        for name, (median, worst) in (
            ("first attempts (store query)", query),
            ("dashboard (core)", board),
            ("GET /classes/{id} (page)", page),
            ("GET /api/classes/{id}/items", items),
        ):
            print(f"{name:<32} median {median:8.1f} ms   max {worst:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
