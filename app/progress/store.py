"""The progress store: record what a learner did, and summarise it. Knows nothing of HTTP."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BindParameter,
    Boolean,
    Connection,
    String,
    Text,
    bindparam,
    cast,
    delete,
    func,
    literal_column,
    null,
    select,
    union_all,
)

from app.progress.exercises_store import ExerciseRecords
from app.progress.inventory_store import InventoryRecords
from app.progress.lti_store import LtiRecords
from app.progress.models.declarative import Base
from app.progress.models.learners import (
    Learner,
    MythAnswer,
    ReadAhead,
    StepAnswer,
    StepState,
    ValueAttempt,
)
from app.progress.modes_store import ModesRecords
from app.progress.records import (
    LessonRecords,
    MythRecord,
    StepAnswerRecord,
    StepRecord,
    StoredCard,
    ValueRecord,
)
from app.progress.shares_store import SharesRecords

__all__ = ["LessonRecords", "LessonTotals", "ProgressStore", "StoredCard"]


@dataclass(frozen=True)
class LessonTotals:
    steps: int
    myths: int


_LEARNER: BindParameter[str] = bindparam("learner")
_LESSON: BindParameter[str] = bindparam("lesson")

# Statements built once (app/progress/base.py says why).
_ATTEMPTS = (
    select(func.count())
    .select_from(StepAnswer)
    .where(
        StepAnswer.learner_id == _LEARNER,
        StepAnswer.lesson == _LESSON,
        StepAnswer.step == bindparam("step"),
        # IS, not =: a question without a fingerprint counts its attempts too.
        StepAnswer.fingerprint.is_not_distinct_from(bindparam("fingerprint")),
    )
)
_READ_AHEAD = select(ReadAhead.created_at).where(
    ReadAhead.learner_id == _LEARNER, ReadAhead.lesson == _LESSON
)


def _latest(model: Any) -> Any:
    """The ids of the latest row a learner made at each step of one lesson, chosen in SQL."""
    return (
        select(func.max(model.id))
        .where(model.learner_id == _LEARNER, model.lesson == _LESSON)
        .group_by(model.step)
    )


def _latest_myths(*where: Any) -> Any:
    """The latest answer to each myth (a learner may answer one often), chosen in SQL."""
    latest = (
        select(func.max(MythAnswer.id))
        .where(MythAnswer.learner_id == _LEARNER, *where)
        .group_by(MythAnswer.lesson, MythAnswer.myth)
    )
    return select(
        MythAnswer.lesson,
        MythAnswer.myth,
        MythAnswer.answer,
        MythAnswer.correct,
        MythAnswer.fingerprint,
        MythAnswer.seen_answers,
    ).where(MythAnswer.id.in_(latest))


_LESSON_MYTHS = _latest_myths(MythAnswer.lesson == _LESSON)


def _lesson_state_statement() -> Any:
    """Everything `lesson_state` reads, in one statement: each part's rows tagged with their
    part (a step's state, the latest committed answer and typed value of each step, the latest
    answer to each myth, the read-ahead mark) and brought to one set of columns. One statement
    instead of five: every lesson page, answer and mode page reads it."""
    no_text, no_flag = cast(null(), Text), cast(null(), Boolean)
    no_fingerprint = cast(null(), String(32))
    latest_myths = _LESSON_MYTHS.with_only_columns(MythAnswer.id)
    parts: list[Any] = [
        select(
            literal_column("'state'").label("part"),
            StepState.step.label("number"),
            cast(StepState.code, Text).label("text"),
            no_text.label("detail"),
            cast(StepState.done, Boolean).label("flag"),
            no_flag.label("other_flag"),
            no_fingerprint.label("fingerprint"),
            no_flag.label("seen"),
        ).where(StepState.learner_id == _LEARNER, StepState.lesson == _LESSON),
        select(
            literal_column("'step_answer'"),
            StepAnswer.step,
            StepAnswer.choice,
            StepAnswer.confidence,
            StepAnswer.correct,
            no_flag,
            StepAnswer.fingerprint,
            StepAnswer.seen_answers,
        ).where(StepAnswer.id.in_(_latest(StepAnswer))),
        select(
            literal_column("'value'"),
            ValueAttempt.step,
            ValueAttempt.value,
            no_text,
            ValueAttempt.correct,
            ValueAttempt.revealed,
            ValueAttempt.fingerprint,
            ValueAttempt.seen_answers,
        ).where(ValueAttempt.id.in_(_latest(ValueAttempt))),
        select(
            literal_column("'myth'"),
            MythAnswer.myth,
            MythAnswer.answer,
            no_text,
            MythAnswer.correct,
            no_flag,
            MythAnswer.fingerprint,
            MythAnswer.seen_answers,
        ).where(MythAnswer.id.in_(latest_myths)),
        select(
            literal_column("'read_ahead'"),
            literal_column("0"),
            no_text,
            no_text,
            no_flag,
            no_flag,
            no_fingerprint,
            no_flag,
        ).where(ReadAhead.learner_id == _LEARNER, ReadAhead.lesson == _LESSON),
    ]
    return union_all(*parts)


_LESSON_STATE = _lesson_state_statement()
_ALL_MYTHS = _latest_myths()
_DONE = StepState.learner_id == _LEARNER, StepState.done.is_(True)
_LESSON_DONE = (
    select(StepState.lesson, func.count()).where(*_DONE, StepState.lesson == _LESSON)
).group_by(StepState.lesson)
_ALL_DONE = select(StepState.lesson, func.count()).where(*_DONE).group_by(StepState.lesson)
_DONE_STEPS = select(StepState.lesson, StepState.step).where(*_DONE)


class ProgressStore(ModesRecords, ExerciseRecords, InventoryRecords, SharesRecords, LtiRecords):
    """Steps, step answers, typed values and myth answers (here), the learning modes and the
    review queue (ModesRecords), exercises (ExerciseRecords), the concept inventory
    (InventoryRecords), shared snippets (SharesRecords),
    classes and LTI (LtiRecords), connections and learners (StoreBase)."""

    # --- recording ---------------------------------------------------------------------------
    def record_step_answer(
        self, learner: str, lesson: str, step: int, answer: StepAnswerRecord
    ) -> int:
        """Keep the attempt, mark the step done; return the attempt's number (1 = first) at
        this version of the question."""
        at = {"learner_id": learner, "lesson": lesson, "step": step}
        with self.writing(learner) as connection:
            connection.execute(self.insert(StepAnswer), {**at, **asdict(answer)})
            connection.execute(self.upsert(StepState, "done"), _step(at, done=True))
            attempts: int = (
                connection.scalar(
                    _ATTEMPTS,
                    {
                        "learner": learner,
                        "lesson": lesson,
                        "step": step,
                        "fingerprint": answer.fingerprint,
                    },
                )
                or 0
            )
        return attempts

    def record_value(self, learner: str, lesson: str, step: int, answer: ValueRecord) -> None:
        self.add_row(learner, ValueAttempt, lesson=lesson, step=step, **asdict(answer))

    def record_myth(self, learner: str, lesson: str, myth: int, answer: MythRecord) -> None:
        self.add_row(learner, MythAnswer, lesson=lesson, myth=myth, **asdict(answer))

    def record_read_ahead(self, learner: str, lesson: str) -> None:
        """The learner chose to see the whole lesson at once (kept once: the first time)."""
        with self.writing(learner) as connection:
            connection.execute(
                self.insert_ignoring(ReadAhead), {"learner_id": learner, "lesson": lesson}
            )

    def read_ahead(self, learner: str, lesson: str) -> bool:
        """Has the learner chosen to read this lesson ahead?"""
        with self.reading() as connection:
            return _read_ahead(connection, {"learner": learner, "lesson": lesson})

    def mark_done(self, learner: str, lesson: str, step: int) -> None:
        at = {"learner_id": learner, "lesson": lesson, "step": step}
        with self.writing(learner) as connection:
            connection.execute(self.upsert(StepState, "done"), _step(at, done=True))

    def save_code(self, learner: str, lesson: str, step: int, code: str | None) -> None:
        at = {"learner_id": learner, "lesson": lesson, "step": step}
        with self.writing(learner) as connection:
            connection.execute(self.upsert(StepState, "code"), _step(at, code=code))

    def reset(self, learner: str) -> None:
        """Forget everything this learner did, in every mode (the learner id stays). The concept
        inventory stays: each test is taken once for good, so a reset cannot raise a gain."""
        with self.writing() as connection:  # the modes' rows below: the same transaction
            for model in (StepState, StepAnswer, ValueAttempt, MythAnswer, ReadAhead):
                connection.execute(delete(model).where(model.learner_id == learner))
            self.reset_modes(learner)

    def forget_learner(self, learner: str) -> None:
        """Delete everything kept about a learner, their row and class memberships included."""
        with self.writing() as connection:
            for table in reversed(Base.metadata.sorted_tables):  # children before parents
                if "learner_id" in table.c:
                    connection.execute(delete(table).where(table.c.learner_id == learner))
            connection.execute(delete(Learner).where(Learner.id == learner))

    # --- reading -----------------------------------------------------------------------------
    def everything_about(self, learner: str) -> dict[str, list[dict[str, object]]]:
        """Every row kept about a learner, by table: what they download from /progress."""
        found: dict[str, list[dict[str, object]]] = {}
        with self.reading() as connection:
            for table in Base.metadata.sorted_tables:
                column = table.c.get("learner_id") if table.name != "learners" else table.c.id
                if column is None:
                    continue
                rows = connection.execute(select(table).where(column == learner)).mappings()
                found[table.name] = [
                    {k: _plain(v) for k, v in row.items() if k != "learner_id"} for row in rows
                ]
        return found

    def lesson_state(self, learner: str, lesson: str) -> LessonRecords:
        """The latest of everything the learner did in one lesson, by step and myth number."""
        with self.reading() as connection:
            rows = connection.execute(_LESSON_STATE, {"learner": learner, "lesson": lesson}).all()
        steps: dict[int, StepRecord] = {}
        myths: dict[int, MythRecord] = {}
        read_ahead = False
        for row in rows:
            if row.part == "read_ahead":
                read_ahead = True
            elif row.part == "myth":
                myths[row.number] = MythRecord(row.text, row.flag, row.fingerprint, row.seen)
            else:
                entry = steps.setdefault(row.number, StepRecord())
                if row.part == "state":
                    entry.done, entry.code = row.flag, row.text
                elif row.part == "step_answer":
                    entry.answer = StepAnswerRecord(
                        row.text, row.detail, row.flag, row.fingerprint, row.seen
                    )
                else:
                    entry.value = ValueRecord(
                        row.text, row.flag, row.other_flag, row.fingerprint, row.seen
                    )
        return LessonRecords(steps=steps, myths=myths, read_ahead=read_ahead)

    def lesson_myths(self, learner: str, lesson: str) -> dict[int, MythRecord]:
        """The latest answer to each myth of one lesson, by myth number."""
        with self.reading() as connection:
            return _lesson_myths(connection, {"learner": learner, "lesson": lesson})

    def myth_answer_counts(self, learner: str, lesson: str) -> dict[int, int]:
        """How many times the learner answered each myth of one lesson, by myth number."""
        counted = (
            select(MythAnswer.myth, func.count())
            .where(MythAnswer.learner_id == learner, MythAnswer.lesson == lesson)
            .group_by(MythAnswer.myth)
        )
        with self.reading() as connection:
            return {myth: count for myth, count in connection.execute(counted)}

    def myth_answers(self, learner: str) -> dict[tuple[str, int], MythRecord]:
        """The latest answer to every myth, by (lesson, myth number)."""
        with self.reading() as connection:
            rows = connection.execute(_ALL_MYTHS, {"learner": learner})
            return {(a.lesson, a.myth): _myth(a) for a in rows}

    def steps_done(self, learner: str, lesson: str | None = None) -> dict[str, int]:
        """Per lesson (or for the one given): how many steps are done."""
        with self.reading() as connection:
            if lesson is None:
                done = connection.execute(_ALL_DONE, {"learner": learner}).all()
            else:
                done = connection.execute(
                    _LESSON_DONE, {"learner": learner, "lesson": lesson}
                ).all()
        return {lesson: count for lesson, count in done}

    def done_steps(self, learner: str) -> dict[str, set[int]]:
        """Per lesson: the numbers of the steps that are done."""
        found: dict[str, set[int]] = {}
        with self.reading() as connection:
            for lesson, step in connection.execute(_DONE_STEPS, {"learner": learner}):
                found.setdefault(lesson, set()).add(step)
        return found


def _plain(value: object) -> object:
    """A column's value as JSON holds it."""
    return value.isoformat() if isinstance(value, datetime) else value


def _step(at: dict[str, object], **values: object) -> dict[str, object]:
    """The parameters of a step's state, new or changed: not done and no code of its own,
    unless `values` says otherwise."""
    return {**at, "done": False, "code": None, **values}


def _myth(row: Any) -> MythRecord:
    return MythRecord(row.answer, row.correct, row.fingerprint, row.seen_answers)


def _read_ahead(connection: Connection, where: dict[str, str]) -> bool:
    return connection.execute(_READ_AHEAD, where).first() is not None


def _lesson_myths(connection: Connection, where: dict[str, str]) -> dict[int, MythRecord]:
    """The latest answer to each myth of one lesson, by myth number."""
    return {a.myth: _myth(a) for a in connection.execute(_LESSON_MYTHS, where)}


def open_store(database_url: str, migrate_mode: str) -> ProgressStore:
    """The store a command works on: the database prepared as a server would (migrated, or
    checked current), without Alembic's chatter."""
    import logging

    from app.progress.database import make_engine, prepare_schema

    logging.getLogger("alembic").setLevel(logging.WARNING)
    engine = make_engine(database_url)
    prepare_schema(engine, migrate_mode)
    return ProgressStore(engine)
