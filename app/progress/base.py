"""The progress store's foundation: sessions, learners and the secrets the server keeps."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Engine, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from app.progress.models import AppSecret, Learner, LearnerRecord
from app.progress.write_turn import write_turn

_Row = TypeVar("_Row", bound=LearnerRecord)


class StoreBase:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        # On SQLite, writers take turns without the database's sleeps (app/progress/write_turn).
        self._write_turn = write_turn(engine)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A transaction that only reads."""
        with self._sessions.begin() as session:
            yield session

    @contextmanager
    def writing(self, learner: str | None = None) -> Iterator[Session]:
        """A transaction that writes (on SQLite, one at a time on the file); with a
        `learner`, their row is made first if they have none, in the same transaction."""
        with self._write_turn, self._sessions.begin() as session:
            if learner is not None:
                # Insert-if-absent: two first answers of one new learner cannot both insert.
                session.execute(
                    _insert(session)(Learner).values(id=learner).on_conflict_do_nothing()
                )
            yield session

    # --- learners and secrets ----------------------------------------------------------------
    def new_learner(self) -> str:
        learner_id = str(uuid.uuid4())
        with self.writing() as session:
            session.add(Learner(id=learner_id))
        return learner_id

    def add_record(self, learner: str, record: object) -> None:
        """Keep one row of what a learner did (making the learner's row on their first)."""
        with self.writing(learner) as session:
            session.add(record)

    def lesson_rows(self, model: type[_Row], learner: str, lesson: str) -> Sequence[_Row]:
        """Every row of `model` a learner made in one lesson, oldest first."""
        with self.session() as session:
            return session.scalars(
                select(model)
                .where(model.learner_id == learner, model.lesson == lesson)
                .order_by(model.id)
            ).all()

    def secret(self, name: str) -> str:
        """A random secret made once and kept in the database (shared by every instance).

        Insert-if-absent, then read: instances starting together all insert a candidate, the
        database keeps the first, and every one of them reads back that same value."""
        with self.writing() as session:
            session.execute(
                _insert(session)(AppSecret)
                .values(name=name, value=secrets.token_urlsafe(48))
                .on_conflict_do_nothing(index_elements=["name"])
            )
        with self.session() as session:
            kept = session.get(AppSecret, name)
            if kept is None:
                raise RuntimeError(f"the secret {name!r} could not be stored")
            return kept.value


def _insert(session: Session) -> Callable[..., Any]:
    """The dialect's INSERT, which has ON CONFLICT DO NOTHING on both databases we run on."""
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
