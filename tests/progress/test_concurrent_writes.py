"""Many threads answering at once: every write lands, on SQLite and on PostgreSQL.

The routes run in a thread pool, so answers arrive on many threads together. On SQLite they
take turns on the store's write lock (StoreBase.writing) instead of failing or sleeping in
SQLite's busy handler."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from app.progress.database import make_engine
from app.progress.records import StepAnswerRecord
from app.progress.store import ProgressStore

THREADS = 16
ANSWERS = 12  # per thread


def test_answers_from_many_threads_all_land(migrated_url: str) -> None:
    engine = make_engine(migrated_url)
    store = ProgressStore(engine)

    def learner(index: int) -> None:
        name = f"learner-{index}"
        for step in range(1, ANSWERS + 1):
            answer = StepAnswerRecord("a", "fairly_sure", step % 2 == 0, "fp")
            store.record_step_answer(name, "lesson", step, answer)
            store.mark_done(name, "other", step)

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(learner, range(THREADS)))  # re-raises any thread's error
    for index in range(THREADS):
        state = store.lesson_state(f"learner-{index}", "lesson")
        assert sorted(state.steps) == list(range(1, ANSWERS + 1))
        assert store.steps_done(f"learner-{index}") == {"lesson": ANSWERS, "other": ANSWERS}
    engine.dispose()
