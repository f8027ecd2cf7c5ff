"""read ahead: a learner may choose to see a whole lesson at once; their later answers in it
are marked as given after seeing the answers, and are not counted as what they understood

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 06:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TABLES = ("prediction_attempts", "value_attempts", "myth_answers")


def upgrade() -> None:
    op.create_table(
        "read_aheads",
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("learner_id", "lesson"),
    )
    # Answers kept before this revision were given without reading ahead (it did not exist).
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(
                sa.Column("seen_answers", sa.Boolean(), server_default=sa.false(), nullable=False)
            )


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("seen_answers")
    op.drop_table("read_aheads")
