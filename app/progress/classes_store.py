"""Classes in the progress store: the class, its two capability links, its members, their
first attempts at every question, and learners' reports of problems with questions.

A link's token is shown once, when it is made; the store keeps its SHA-256 hash. A token is
found by its hash (an index lookup) and the hash is compared again in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import BindParameter, bindparam, delete, func, literal, null, select, update

from app.progress.base import StoreBase
from app.progress.ids import command_line_id
from app.progress.models.classes import ClassMember, Classroom, QuestionReport
from app.progress.models.learners import MythAnswer, StepAnswer, StepState

TOKEN_BYTES = 24  # 192 bits of randomness per link
ID_BYTES = 12


@dataclass(frozen=True)
class ClassInfo:
    id: str
    name: str
    created_at: datetime
    members: int = 0
    post_test_open: bool = False  # the teacher opened the inventory's post-test for the class


@dataclass(frozen=True)
class ClassLinks:
    """A class's two tokens, as made: the only time they exist outside a learner's browser."""

    info: ClassInfo
    join_token: str
    instructor_token: str


@dataclass(frozen=True)
class Member:
    learner: str
    display_name: str
    joined_at: datetime


class FirstAttempt(NamedTuple):
    """A learner's first answer to one version of a question (a step's answer or a myth). A
    tuple, not a dataclass: a large class has tens of thousands, made straight from rows."""

    learner: str
    lesson: str
    kind: str  # the name of the question's kind (app/learning/kinds/)
    number: int
    fingerprint: str | None
    choice: str  # the choice's text, or "yes"/"no" for a myth
    confidence: str | None  # myths carry none
    correct: bool
    at: datetime
    seen: bool = False  # given after the learner read the lesson ahead


@dataclass(frozen=True)
class Report:
    id: int
    learner: str
    lesson: str
    kind: str
    number: int
    fingerprint: str | None
    text: str
    at: datetime


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def _info(row: Any, members: int = 0) -> ClassInfo:
    return ClassInfo(row.id, row.name, row.created_at, members, bool(row.post_test_open))


class ClassRecords(StoreBase):
    # --- the class and its links -------------------------------------------------------------
    def create_class(self, name: str) -> ClassLinks:
        class_id = command_line_id(ID_BYTES)
        join, instructor = _new_token(), _new_token()
        with self.writing() as connection:
            connection.execute(
                self.insert(Classroom),
                {
                    "id": class_id,
                    "name": name,
                    "join_hash": token_hash(join),
                    "instructor_hash": token_hash(instructor),
                },
            )
        info = self.find_class(class_id)
        assert info is not None  # noqa: S101 - just written in this thread
        return ClassLinks(info, join, instructor)

    def rotate_links(self, class_id: str) -> ClassLinks | None:
        """New links for a class; the old ones (and instructor cookies made from them) stop
        working at once."""
        join, instructor = _new_token(), _new_token()
        with self.writing() as connection:
            changed = connection.execute(
                update(Classroom)
                .where(Classroom.id == class_id)
                .values(join_hash=token_hash(join), instructor_hash=token_hash(instructor))
            ).rowcount
        info = self.find_class(class_id) if changed else None
        return ClassLinks(info, join, instructor) if info else None

    def delete_class(self, class_id: str) -> bool:
        with self.writing() as connection:
            connection.execute(delete(ClassMember).where(ClassMember.class_id == class_id))
            deleted = connection.execute(delete(Classroom).where(Classroom.id == class_id))
        return bool(deleted.rowcount)

    def list_classes(self) -> list[ClassInfo]:
        members = (
            select(ClassMember.class_id, func.count().label("n"))
            .group_by(ClassMember.class_id)
            .subquery()
        )
        query = (
            select(Classroom, func.coalesce(members.c.n, 0).label("n"))
            .outerjoin(members, members.c.class_id == Classroom.id)
            .order_by(Classroom.created_at)
        )
        with self.reading() as connection:
            return [_info(row, row.n) for row in connection.execute(query)]

    def find_class(self, class_id: str) -> ClassInfo | None:
        with self.reading() as connection:
            row = connection.execute(select(Classroom).where(Classroom.id == class_id)).first()
        return _info(row) if row else None

    def class_by_token(self, token: str, *, instructor: bool) -> ClassInfo | None:
        """The class a join (or instructor) token opens, if it is a current one."""
        column = Classroom.instructor_hash if instructor else Classroom.join_hash
        wanted = token_hash(token)
        with self.reading() as connection:
            row = connection.execute(
                select(Classroom, column.label("kept")).where(column == wanted)
            ).first()
        if row is None or not hmac.compare_digest(row.kept, wanted):
            return None
        return _info(row)

    def instructor_key(self, class_id: str) -> str | None:
        """What an instructor cookie holds for a class: the current instructor hash (a link
        rotated since the cookie was made no longer matches)."""
        with self.reading() as connection:
            kept: str | None = connection.scalar(
                select(Classroom.instructor_hash).where(Classroom.id == class_id)
            )
        return kept

    def open_post_test(self, class_id: str, opened: bool = True) -> bool:
        """Open (or close again) the concept inventory's post-test for a class's members,
        whether or not they finished the path; False when there is no such class."""
        with self.writing() as connection:
            changed = connection.execute(
                update(Classroom).where(Classroom.id == class_id).values(post_test_open=opened)
            ).rowcount
        return bool(changed)

    def post_test_opened_for(self, learner: str) -> bool:
        """Is the learner in a class whose teacher opened the post-test?"""
        query = (
            select(ClassMember.class_id)
            .join(Classroom, Classroom.id == ClassMember.class_id)
            .where(ClassMember.learner_id == learner, Classroom.post_test_open.is_(True))
            .limit(1)
        )
        with self.reading() as connection:
            return connection.execute(query).first() is not None

    # --- members -----------------------------------------------------------------------------
    def join_class(
        self, class_id: str, learner: str, display_name: str, *, keep_name: bool = False
    ) -> None:
        """Join, or change one's display name in a class already joined (with `keep_name`,
        a member keeps the name they have)."""
        statement = (
            self.insert_ignoring(ClassMember)
            if keep_name
            else self.upsert(ClassMember, "display_name")
        )
        with self.writing(learner) as connection:
            connection.execute(
                statement,
                {"class_id": class_id, "learner_id": learner, "display_name": display_name},
            )

    def leave_class(self, class_id: str, learner: str) -> bool:
        with self.writing() as connection:
            left = connection.execute(
                delete(ClassMember).where(
                    ClassMember.class_id == class_id, ClassMember.learner_id == learner
                )
            )
        return bool(left.rowcount)

    def memberships(self, learner: str) -> list[tuple[ClassInfo, str]]:
        """The classes a learner is in, with the display name they chose for each."""
        query = (
            select(Classroom, ClassMember.display_name)
            .join(ClassMember, ClassMember.class_id == Classroom.id)
            .where(ClassMember.learner_id == learner)
            .order_by(ClassMember.joined_at)
        )
        with self.reading() as connection:
            return [(_info(row), row.display_name) for row in connection.execute(query)]

    def members(self, class_id: str) -> list[Member]:
        query = (
            select(ClassMember.learner_id, ClassMember.display_name, ClassMember.joined_at)
            .where(ClassMember.class_id == class_id)
            .order_by(ClassMember.joined_at, ClassMember.display_name)
        )
        with self.reading() as connection:
            return [Member(*row) for row in connection.execute(query)]

    # --- what the members did ----------------------------------------------------------------
    def first_attempts(
        self, class_id: str | None, *, step_answer: str, myth: str, learner: str | None = None
    ) -> list[FirstAttempt]:
        """Every member's (with None: every learner's; with `learner`: that one's) first answer
        to each version of every step question (its committed answers) and myth, oldest first,
        each labelled with the name given for its sort (`step_answer`, `myth`: the learning
        core's names, which the store does not know). Later attempts are left out: they follow
        a reveal."""
        members: Any = (
            select(ClassMember.learner_id).where(ClassMember.class_id == class_id)
            if class_id is not None
            else None
        )
        queries, values = _all_firsts(step_answer, myth, members), {}
        if learner is not None:  # the catalog's, on every visit: built once
            queries, values = _one_learners_firsts(step_answer, myth), {"learner": learner}
        with self.reading() as connection:
            found = [
                FirstAttempt(*row) for query in queries for row in connection.execute(query, values)
            ]
        return sorted(found, key=lambda attempt: attempt.at)

    def steps_done_by(self, learners: Iterable[str]) -> dict[str, dict[str, int]]:
        """learner -> lesson -> steps done, for many learners in one query."""
        ids = list(learners)
        done: dict[str, dict[str, int]] = {learner: {} for learner in ids}
        if not ids:
            return done
        query = (
            select(StepState.learner_id, StepState.lesson, func.count())
            .where(StepState.learner_id.in_(ids), StepState.done.is_(True))
            .group_by(StepState.learner_id, StepState.lesson)
        )
        with self.reading() as connection:
            for learner, lesson, count in connection.execute(query):
                done[learner][lesson] = count
        return done

    # --- reports -----------------------------------------------------------------------------
    def add_report(
        self, learner: str, lesson: str, kind: str, number: int, fingerprint: str, text: str
    ) -> None:
        self.add_row(
            learner,
            QuestionReport,
            lesson=lesson,
            kind=kind,
            number=number,
            fingerprint=fingerprint,
            text=text,
        )

    def reports(self, learners: Iterable[str] | None = None) -> list[Report]:
        """Every report, newest first; or only those by the given learners."""
        query = select(QuestionReport).order_by(QuestionReport.id.desc())
        if learners is not None:
            query = query.where(QuestionReport.learner_id.in_(list(learners)))
        with self.reading() as connection:
            return [
                Report(
                    r.id,
                    r.learner_id,
                    r.lesson,
                    r.kind,
                    r.number,
                    r.fingerprint,
                    r.text,
                    r.created_at,
                )
                for r in connection.execute(query)
            ]


def _all_firsts(step_answer: str, myth: str, learners: Any) -> tuple[Any, Any]:
    """The two queries of `first_attempts`, step answers' and myths', for `learners` (a list,
    a subquery, a bound parameter, or None for everyone)."""
    return (
        _firsts(
            StepAnswer,
            step_answer,
            StepAnswer.step,
            StepAnswer.choice,
            StepAnswer.confidence,
            learners,
        ),
        _firsts(MythAnswer, myth, MythAnswer.myth, MythAnswer.answer, null(), learners),
    )


@cache
def _one_learners_firsts(step_answer: str, myth: str) -> tuple[Any, Any]:
    """`_all_firsts` for the learner bound as "learner", built once (app/progress/base.py)."""
    return _all_firsts(step_answer, myth, bindparam("learner"))


def _firsts(model: Any, kind: str, number: Any, choice: Any, confidence: Any, learners: Any) -> Any:
    """The first row each learner made at each version of each question of `model`, in the
    order of FirstAttempt's fields."""
    first = select(func.min(model.id)).group_by(
        model.learner_id, model.lesson, number, model.fingerprint
    )
    if isinstance(learners, BindParameter):
        first = first.where(model.learner_id == learners)
    elif learners is not None:
        first = first.where(model.learner_id.in_(learners))
    return select(
        model.learner_id,
        model.lesson,
        literal(kind),
        number,
        model.fingerprint,
        choice,
        confidence,
        model.correct,
        model.created_at,
        model.seen_answers,
    ).where(model.id.in_(first))
