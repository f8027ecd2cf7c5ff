"""The progress store's foundation: sessions, learners and the secrets the server keeps."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.progress.models import AppSecret, Learner


class StoreBase:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session

    # --- learners and secrets ----------------------------------------------------------------
    def new_learner(self) -> str:
        learner_id = str(uuid.uuid4())
        with self.session() as session:
            session.add(Learner(id=learner_id))
        return learner_id

    def ensure_learner(self, learner_id: str) -> None:
        with self.session() as session:
            if session.get(Learner, learner_id) is None:
                session.add(Learner(id=learner_id))

    def add_record(self, learner: str, record: object) -> None:
        """Keep one row of what a learner did (making the learner's row on their first)."""
        self.ensure_learner(learner)
        with self.session() as session:
            session.add(record)

    def secret(self, name: str) -> str:
        """A random secret made once and kept in the database (shared by every instance)."""
        with self.session() as session:
            found = session.get(AppSecret, name)
            if found is not None:
                return found.value
        try:
            with self.session() as session:
                session.add(AppSecret(name=name, value=secrets.token_urlsafe(48)))
        except IntegrityError:
            pass  # another instance made it first; use theirs
        with self.session() as session:
            made = session.get(AppSecret, name)
            if made is None:
                raise RuntimeError(f"the secret {name!r} could not be stored")
            return made.value
