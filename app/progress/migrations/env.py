"""Alembic environment: migrations run on the engine the app hands over (never a URL in a file)."""

from __future__ import annotations

from alembic import context

from app.progress.models.declarative import Base

engine = context.config.attributes["engine"]
with engine.begin() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()
