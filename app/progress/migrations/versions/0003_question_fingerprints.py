"""question fingerprints: each answer and review card names the version of the question it
answers, so that a rewritten or renumbered question retires the records of the old one

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 08:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TABLES = ("prediction_attempts", "value_attempts", "myth_answers", "review_cards")


def upgrade() -> None:
    # Records made before this revision have no fingerprint: they are retired (not shown as
    # the answer to today's question, not counted in calibration), never deleted.
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("fingerprint", sa.String(length=32), nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("fingerprint")
