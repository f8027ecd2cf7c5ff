"""What the store keeps of the concept inventory: each learner's answers, before the path
(`pre`) and after it (`post`), each phase taken once for good: a reset of the learner's
progress keeps them (only forgetting the learner deletes them). In a table of their own, so
that nothing that reads the lessons' answers (review, calibration, item statistics, grades)
sees them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy import BindParameter, bindparam, select
from sqlalchemy.exc import IntegrityError

from app.progress.base import StoreBase
from app.progress.models.declarative import stored_utc
from app.progress.models.inventory import InventoryAnswer

PRE, POST = "pre", "post"


@dataclass(frozen=True)
class InventoryRecord:
    """One answer as it is recorded."""

    item: str
    choice: str
    correct: bool
    confidence: str
    fingerprint: str


@dataclass(frozen=True)
class StoredInventoryAnswer:
    learner: str
    phase: str
    form: str
    item: str
    choice: str
    correct: bool
    confidence: str
    fingerprint: str
    at: datetime


_LEARNER: BindParameter[str] = bindparam("learner")
_COLUMNS = (
    InventoryAnswer.learner_id,
    InventoryAnswer.phase,
    InventoryAnswer.form,
    InventoryAnswer.item,
    InventoryAnswer.choice,
    InventoryAnswer.correct,
    InventoryAnswer.confidence,
    InventoryAnswer.fingerprint,
    InventoryAnswer.created_at,
)
_PHASES = select(InventoryAnswer.phase).where(InventoryAnswer.learner_id == _LEARNER).distinct()
_TAKEN = (
    select(InventoryAnswer.id)
    .where(InventoryAnswer.learner_id == _LEARNER, InventoryAnswer.phase == bindparam("phase"))
    .limit(1)
)
_OF_LEARNER = (
    select(*_COLUMNS).where(InventoryAnswer.learner_id == _LEARNER).order_by(InventoryAnswer.id)
)


class InventoryRecords(StoreBase):
    def record_inventory(
        self, learner: str, phase: str, form: str, answers: Iterable[InventoryRecord]
    ) -> bool:
        """Keep one test's answers, all or none; False (nothing kept) when this learner has
        taken this phase already, even by a request racing this one."""
        rows = [
            {"learner_id": learner, "phase": phase, "form": form, **asdict(answer)}
            for answer in answers
        ]
        try:
            with self.writing(learner) as connection:
                taken = connection.execute(_TAKEN, {"learner": learner, "phase": phase}).first()
                if taken is not None:
                    return False
                connection.execute(self.insert(InventoryAnswer), rows)
        except IntegrityError:  # the other request of a race inserted first
            return False
        return True

    def inventory_phases(self, learner: str) -> set[str]:
        """The phases (pre, post) this learner has taken."""
        with self.reading() as connection:
            return set(connection.scalars(_PHASES, {"learner": learner}))

    def inventory_answers(self, learner: str) -> list[StoredInventoryAnswer]:
        with self.reading() as connection:
            return [_answer(row) for row in connection.execute(_OF_LEARNER, {"learner": learner})]

    def inventory_answers_of(self, learners: Iterable[str] | None) -> list[StoredInventoryAnswer]:
        """Every answer of these learners (a class's members), or with None of everyone."""
        statement = select(*_COLUMNS).order_by(InventoryAnswer.id)
        if learners is not None:
            statement = statement.where(InventoryAnswer.learner_id.in_(list(learners)))
        with self.reading() as connection:
            return [_answer(row) for row in connection.execute(statement)]


def _answer(row: object) -> StoredInventoryAnswer:
    at: datetime = row.created_at  # type: ignore[attr-defined]
    return StoredInventoryAnswer(
        row.learner_id,  # type: ignore[attr-defined]
        row.phase,  # type: ignore[attr-defined]
        row.form,  # type: ignore[attr-defined]
        row.item,  # type: ignore[attr-defined]
        row.choice,  # type: ignore[attr-defined]
        row.correct,  # type: ignore[attr-defined]
        row.confidence,  # type: ignore[attr-defined]
        row.fingerprint,  # type: ignore[attr-defined]
        stored_utc(at),
    )
