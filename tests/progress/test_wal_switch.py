"""Opening a SQLite file switches it to WAL once, and a connection that SQLite turns away with
"database is locked" at that moment (processes opening a fresh file together) tries again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.progress import database
from app.progress.database import make_engine


class Crowded:
    """A cursor whose first `refusals` statements meet a file another process is switching."""

    def __init__(self, refusals: int, mode: str = "delete") -> None:
        self.refusals, self.mode, self.statements = refusals, mode, []

    def execute(self, sql: str) -> Crowded:
        self.statements.append(sql)
        if self.refusals:
            self.refusals -= 1
            raise sqlite3.OperationalError("database is locked")
        if sql == "PRAGMA journal_mode=WAL":
            self.mode = "wal"
        return self

    def fetchone(self) -> tuple[str]:
        return (self.mode,)


def test_a_fresh_file_is_in_wal_after_the_first_connection(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'p.db'}")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    engine.dispose()


def test_a_refused_switch_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database, "WAL_PAUSE_S", 0)
    cursor = Crowded(refusals=3)
    database._switch_to_wal(cursor)
    assert cursor.mode == "wal" and len(cursor.statements) == 5


def test_a_file_already_in_wal_is_not_switched_again() -> None:
    cursor = Crowded(refusals=0, mode="wal")
    database._switch_to_wal(cursor)
    assert cursor.statements == ["PRAGMA journal_mode"]


def test_other_errors_and_a_lock_that_never_lifts_still_fail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(database, "WAL_PAUSE_S", 0)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        database._switch_to_wal(Crowded(refusals=database.WAL_ATTEMPTS))

    class Broken(Crowded):
        def execute(self, sql: str) -> Crowded:
            raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(sqlite3.OperationalError, match="disk"):
        database._switch_to_wal(Broken(refusals=0))
