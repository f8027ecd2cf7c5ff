"""recall answers: a learner's answers to the recall questions that end a lesson (a step's
question asked on one of its variant instances)

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "recall_answers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("form", sa.Integer(), nullable=False),
        sa.Column("choice", sa.Text(), nullable=False),
        sa.Column("confidence", sa.String(length=16), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("fingerprint", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "learner_id", "lesson", "step", "kind", "form", "fingerprint", name="uq_recall_answer"
        ),
    )
    with op.batch_alter_table("recall_answers", schema=None) as batch_op:
        batch_op.create_index("ix_recall_learner_lesson", ["learner_id", "lesson"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("recall_answers", schema=None) as batch_op:
        batch_op.drop_index("ix_recall_learner_lesson")
    op.drop_table("recall_answers")
