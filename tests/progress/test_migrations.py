"""The progress store's schema: the models and the Alembic migrations agree, on SQLite and
PostgreSQL, and the newest migration adds the question fingerprints."""

from __future__ import annotations

from pathlib import Path

from alembic import command

from app.main import create_app
from app.progress.database import alembic_config, make_engine
from app.progress.models.learners import PredictionAttempt
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
            PredictionAttempt.__table__.select().limit(0)  # type: ignore[attr-defined]
        ).keys()
    assert "fingerprint" in list(columns)
