"""The progress store's schema: the models and the Alembic migrations agree, on SQLite and
PostgreSQL; a migration adds the question fingerprints, and one renames the table of step
answers keeping every row, up and down."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from sqlalchemy import select

from app.main import create_app
from app.progress.database import alembic_config, make_engine
from app.progress.models.learners import StepAnswer
from tests.conftest import make_settings


def test_the_models_match_the_migrations(database_url: str) -> None:
    engine = make_engine(database_url)
    config = alembic_config(engine)
    command.upgrade(config, "head")
    command.check(config)  # raises when a model changed without a migration


def test_the_migration_adds_the_fingerprints(tmp_path: Path) -> None:
    app = create_app(make_settings(database_url=f"sqlite:///{tmp_path / 'p.db'}"))
    with app.state.store.reading() as connection:
        columns = connection.execute(
            StepAnswer.__table__.select().limit(0)  # type: ignore[attr-defined]
        ).keys()
    assert "fingerprint" in list(columns)


STEP_ANSWER = {
    "learner_id": "ada",
    "lesson": "first-steps",
    "step": 2,
    "choice": '["y = x * 2", "y.backward()"]',  # an ordering's lines, kept as a step answer
    "confidence": "certain",
    "correct": True,
    "fingerprint": "f" * 32,
    "seen_answers": False,
}


def _names(engine: sa.Engine, table: str) -> set[str]:
    """The table's index and constraint names, and on PostgreSQL its id sequence."""
    found = {index["name"] or "" for index in sa.inspect(engine).get_indexes(table)}
    found |= {key["name"] or "" for key in sa.inspect(engine).get_foreign_keys(table)}
    found.add(sa.inspect(engine).get_pk_constraint(table)["name"] or "")
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            found.add(connection.scalar(sa.text(f"SELECT pg_get_serial_sequence('{table}', 'id')")))
    return found - {""}


def test_the_step_answers_keep_their_rows_under_their_new_name(database_url: str) -> None:
    """Rows written at 0014 into prediction_attempts are found in step_answers at head, and
    back in prediction_attempts after a downgrade, under names that follow the table's."""
    engine = make_engine(database_url)
    config = alembic_config(engine)
    command.upgrade(config, "0014")
    old = sa.table("prediction_attempts", *map(sa.column, [*STEP_ANSWER, "created_at"]))
    with engine.begin() as connection:
        learners = sa.table("learners", sa.column("id"), sa.column("created_at"))
        connection.execute(sa.insert(learners), {"id": "ada", "created_at": datetime.now(UTC)})
        for _ in range(2):
            connection.execute(sa.insert(old), {**STEP_ANSWER, "created_at": datetime.now(UTC)})
    command.upgrade(config, "head")
    tables = set(sa.inspect(engine).get_table_names())
    assert "step_answers" in tables and "prediction_attempts" not in tables
    with engine.connect() as connection:
        rows = connection.execute(select(StepAnswer).order_by(StepAnswer.id)).mappings().all()
    assert [row["id"] for row in rows] == [1, 2]
    assert all({k: row[k] for k in STEP_ANSWER} == STEP_ANSWER for row in rows)
    assert not any("prediction" in name for name in _names(engine, "step_answers"))
    with engine.begin() as connection:  # the id goes on counting where it was
        connection.execute(sa.insert(StepAnswer), {**STEP_ANSWER, "step": 3})
        assert connection.scalar(sa.select(sa.func.max(StepAnswer.id))) == 3
    command.downgrade(config, "0014")
    assert "step_answers" not in set(sa.inspect(engine).get_table_names())
    with engine.connect() as connection:
        kept = connection.execute(sa.text("SELECT step FROM prediction_attempts ORDER BY id"))
        assert kept.scalars().all() == [2, 2, 3]
    assert not any("step_answer" in name for name in _names(engine, "prediction_attempts"))
    command.upgrade(config, "head")
    command.check(config)
    engine.dispose()
