"""inventory answers: a learner's concept-inventory tests, before the path and after it, kept
apart from the lessons' questions

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "inventory_answers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("phase", sa.String(length=8), nullable=False),
        sa.Column("form", sa.String(length=1), nullable=False),
        sa.Column("item", sa.String(length=64), nullable=False),
        sa.Column("choice", sa.Text(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("confidence", sa.String(length=16), nullable=False),
        sa.Column("fingerprint", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("learner_id", "phase", "item", name="uq_inventory_answer"),
    )


def downgrade() -> None:
    op.drop_table("inventory_answers")
