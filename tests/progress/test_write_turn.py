"""Writers to one SQLite file take turns across processes too (app/progress/write_turn.py): a
write waits while another process holds the turn, and lands as soon as it is released."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.config.paths import PROJECT_ROOT
from app.progress.database import make_engine, migrate
from app.progress.records import StepAnswerRecord
from app.progress.store import ProgressStore
from app.progress.write_turn import WriteTurn

ANSWER = StepAnswerRecord("a", "fairly_sure", True, "fp")


def _store(tmp_path: Path) -> ProgressStore:
    engine = make_engine(f"sqlite:///{tmp_path / 'progress.db'}")
    migrate(engine)
    return ProgressStore(engine)


def test_a_write_waits_for_another_processs_turn(tmp_path: Path) -> None:
    store = _store(tmp_path)
    lock_file = tmp_path / "progress.db.write-lock"
    landed = threading.Event()

    def answer() -> None:
        store.record_step_answer("ada", "lesson", 1, ANSWER)
        landed.set()

    # Another open file description of the lock file: for flock, another holder, as another
    # process's would be.
    with lock_file.open("a") as other:
        fcntl.flock(other, fcntl.LOCK_EX)
        writer = threading.Thread(target=answer)
        writer.start()
        assert not landed.wait(0.5)  # held off while the other holds the turn
        fcntl.flock(other, fcntl.LOCK_UN)
        assert landed.wait(10)
    writer.join()
    assert 1 in store.lesson_state("ada", "lesson").steps


def test_a_nested_turn_keeps_the_file_locked_until_the_outer_one_ends(tmp_path: Path) -> None:
    turn = WriteTurn(tmp_path / "lock")

    def free_for_others() -> bool:
        with (tmp_path / "lock").open("a") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            fcntl.flock(other, fcntl.LOCK_UN)
            return True

    with turn:
        with turn:
            assert not free_for_others()
        assert not free_for_others()  # the inner turn's end did not let others in
    assert free_for_others()


WRITER = """
import sys
from app.progress.database import make_engine
from app.progress.records import StepAnswerRecord
from app.progress.store import ProgressStore
store = ProgressStore(make_engine(sys.argv[1]))
for step in range(1, 41):
    store.record_step_answer(sys.argv[2], "lesson", step, StepAnswerRecord("a", "certain", True, "f"))
"""


def test_two_processes_writing_at_once_all_land(tmp_path: Path) -> None:
    store = _store(tmp_path)
    url = f"sqlite:///{tmp_path / 'progress.db'}"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, url, name], cwd=PROJECT_ROOT)
        for name in ("ada", "bob")
    ]
    assert [writer.wait(120) for writer in writers] == [0, 0]
    for name in ("ada", "bob"):
        assert sorted(store.lesson_state(name, "lesson").steps) == list(range(1, 41))


def test_a_lock_file_that_cannot_be_opened_costs_the_turn_not_the_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    turn = WriteTurn(tmp_path / "no such folder" / "lock")
    with caplog.at_level("WARNING", logger="gradlab"), turn:
        pass
    assert "will not take turns with other processes" in caplog.text
    with turn:  # and the next turns go on, within the process
        pass
