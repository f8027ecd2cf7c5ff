"""exercise attempts: every check of the lines a learner wrote into an exercise's blanks, and
every diagnosis of an exercise's bug, passed or not

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "exercise_attempts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("exercise", sa.Integer(), nullable=False),
        sa.Column("part", sa.String(length=16), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("exercise_attempts", schema=None) as batch_op:
        batch_op.create_index("ix_exercise_learner_lesson", ["learner_id", "lesson"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("exercise_attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_exercise_learner_lesson")
    op.drop_table("exercise_attempts")
