"""The progress store's foundation: connections, learners and the secrets the server keeps.

The store speaks SQLAlchemy Core on plain connections, with its statements built once where
they are hot: through an ORM session, with the statement built for each call, reading one
lesson's myths took 352 us against 51 us this way (docs/performance.md). The
models stay the schema's one definition, for Core and for the migrations.
"""

from __future__ import annotations

import secrets
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

from sqlalchemy import Connection, Engine, Insert, Row, Table, bindparam, insert, select
from sqlalchemy.dialects import postgresql, sqlite

from app.progress.database import require_reachable
from app.progress.models.app_secrets import AppSecret
from app.progress.models.learners import Learner
from app.progress.write_turn import write_turn
from app.progress.writer import Writer, writer_for


class StoreBase:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # On SQLite, writers take turns without the database's sleeps (app/progress/write_turn).
        self._write_turn = write_turn(engine)
        # Where callers on an event loop hand their writes (app/progress/writer).
        self.writer: Writer = writer_for(engine)
        self._dialect = engine.dialect.name
        # The connection of the `together` block this thread is in, if any.
        self._open = threading.local()

    @contextmanager
    def together(self) -> Iterator[None]:
        """One transaction for everything the store does in this block, in this thread: one
        turn to write and one commit for an answer and the review card it changes. Nested
        blocks join the outer one. The block belongs to its thread: writes are called in a
        thread, never across an `await` (tests/learning/test_store_off_the_loop.py)."""
        if self._current() is not None:
            yield
            return
        with self._write_turn, self.engine.begin() as connection:
            self._open.connection = connection
            try:
                yield
            finally:
                self._open.connection = None

    def ping(self) -> None:
        """Ask the database `SELECT 1`; DatabaseUnavailable, saying where and why, if it cannot
        answer (app/learning/readiness.py asks this off the event loop)."""
        require_reachable(self.engine)

    @property
    def reads_in_place(self) -> bool:
        """May a read run on the caller's own thread, even an event loop's? On SQLite, yes: the
        file is local, and in WAL mode a reader never waits for a writer, so a read takes a
        fraction of a millisecond, less than a hop to a thread and back. A server (PostgreSQL)
        is a round trip away and may be restarting. Writes are never in place: they wait for
        the one writer (docs/performance.md)."""
        return self._dialect == "sqlite"

    def _current(self) -> Connection | None:
        connection: Connection | None = getattr(self._open, "connection", None)
        return connection

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection to read on (the open `together` block's, inside one)."""
        if (current := self._current()) is not None:
            yield current
            return
        with self.engine.connect() as connection:
            yield connection

    @contextmanager
    def writing(self, learner: str | None = None) -> Iterator[Connection]:
        """A transaction that writes (on SQLite, one at a time on the file); with a
        `learner`, their row is made first if they have none, in the same transaction."""
        with self.together(), self.reading() as connection:  # the block's own connection
            if learner is not None:
                # Insert-if-absent: two first answers of one new learner cannot both insert.
                connection.execute(self.insert_ignoring(Learner), {"id": learner})
            yield connection

    def insert(self, model: type[Any]) -> Insert:
        """INSERT of one row of `model`, its values given as the parameters."""
        return _insert(model.__table__)

    def insert_ignoring(self, model: type[Any]) -> Insert:
        """INSERT that keeps the row already there when a unique key clashes."""
        return _insert_ignoring(self._dialect, model.__table__)

    def upsert(self, model: type[Any], *changed: str) -> Insert:
        """INSERT, or on a clash of the primary key UPDATE the `changed` columns (and the
        row's `updated_at`, which ON CONFLICT does not set by itself) from the parameters."""
        return _upsert(self._dialect, model.__table__, changed)

    # --- learners and secrets ----------------------------------------------------------------
    def new_learner(self) -> str:
        learner_id = str(uuid.uuid4())
        with self.writing() as connection:
            connection.execute(self.insert(Learner), {"id": learner_id})
        return learner_id

    def add_row(self, learner: str, model: type[Any], **values: object) -> None:
        """Keep one row of what a learner did (making the learner's row on their first)."""
        with self.writing(learner) as connection:
            connection.execute(self.insert(model), {"learner_id": learner, **values})

    def lesson_rows(self, model: type[Any], learner: str, lesson: str) -> Sequence[Row[Any]]:
        """Every row of `model` a learner made in one lesson, oldest first."""
        with self.reading() as connection:
            return connection.execute(
                _lesson_rows(model.__table__), {"learner": learner, "lesson": lesson}
            ).all()

    def secret(self, name: str) -> str:
        """A random secret made once and kept in the database (shared by every instance).

        Insert-if-absent, then read: instances starting together all insert a candidate, the
        database keeps the first, and every one of them reads back that same value."""
        with self.writing() as connection:
            connection.execute(
                self.insert_ignoring(AppSecret),
                {"name": name, "value": secrets.token_urlsafe(48)},
            )
        with self.reading() as connection:
            kept = connection.scalar(
                select(AppSecret.value).where(AppSecret.name == bindparam("name")), {"name": name}
            )
        if kept is None:
            raise RuntimeError(f"the secret {name!r} could not be stored")
        return kept


# Statements built once (per model, per dialect): see the module's docstring.
@cache
def _insert(table: Table) -> Insert:
    return insert(table)


@cache
def _lesson_rows(table: Table) -> Any:
    return (
        select(table)
        .where(table.c.learner_id == bindparam("learner"), table.c.lesson == bindparam("lesson"))
        .order_by(table.c.id)
    )


def _dialect_insert(dialect: str) -> Callable[[Table], Any]:
    """The dialect's INSERT, which has ON CONFLICT on both databases we run on."""
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


@cache
def _insert_ignoring(dialect: str, table: Table) -> Insert:
    statement: Insert = _dialect_insert(dialect)(table).on_conflict_do_nothing()
    return statement


@cache
def _upsert(dialect: str, table: Table, changed: tuple[str, ...]) -> Insert:
    statement = _dialect_insert(dialect)(table)
    keys = [column.name for column in table.primary_key]
    updates = {name: statement.excluded[name] for name in changed}
    if "updated_at" in table.c:
        updates["updated_at"] = statement.excluded.updated_at
    upsert: Insert = statement.on_conflict_do_update(index_elements=keys, set_=updates)
    return upsert
