"""classes: a teacher's class with hashed join and instructor links, its members under the
display names they chose, and learners' reports of problems with questions

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 07:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "classes",
        sa.Column("id", sa.String(length=22), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("join_hash", sa.String(length=64), nullable=False),
        sa.Column("instructor_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("join_hash"),
        sa.UniqueConstraint("instructor_hash"),
    )
    op.create_table(
        "class_members",
        sa.Column("class_id", sa.String(length=22), nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("display_name", sa.String(length=60), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["class_id"], ["classes.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("class_id", "learner_id"),
    )
    op.create_index("ix_class_member_learner", "class_members", ["learner_id"])
    op.create_table(
        "question_reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_question_report_lesson", "question_reports", ["lesson"])
    # Item analysis reads every member's attempts at once: by learner, not by learner and
    # lesson, which the existing indexes already serve (their first column is the learner).


def downgrade() -> None:
    op.drop_index("ix_question_report_lesson", table_name="question_reports")
    op.drop_table("question_reports")
    op.drop_index("ix_class_member_learner", table_name="class_members")
    op.drop_table("class_members")
    op.drop_table("classes")
