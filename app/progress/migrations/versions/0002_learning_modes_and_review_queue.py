"""learning modes and review queue: last mode per lesson, drill attempts, flashcard ratings,
pitfall checks, review cards (FSRS memory) and review answers

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 00:37:35.913279
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "drill_attempts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("drill", sa.String(length=160), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("revealed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("drill_attempts", schema=None) as batch_op:
        batch_op.create_index("ix_drill_learner_lesson", ["learner_id", "lesson"], unique=False)

    op.create_table(
        "flashcard_ratings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("card", sa.String(length=64), nullable=False),
        sa.Column("rating", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("flashcard_ratings", schema=None) as batch_op:
        batch_op.create_index("ix_flashcard_learner_lesson", ["learner_id", "lesson"], unique=False)

    op.create_table(
        "lesson_modes",
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("mode", sa.String(length=32), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("learner_id", "lesson"),
    )
    op.create_table(
        "pitfall_checks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("pitfall", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("pitfall_checks", schema=None) as batch_op:
        batch_op.create_index("ix_pitfall_learner_lesson", ["learner_id", "lesson"], unique=False)

    op.create_table(
        "review_cards",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("key", sa.String(length=160), nullable=False),
        sa.Column("state", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("stability", sa.Float(), nullable=True),
        sa.Column("difficulty", sa.Float(), nullable=True),
        sa.Column("due", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_review", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_miss_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("learner_id", "lesson", "kind", "key", name="uq_review_card_item"),
    )
    with op.batch_alter_table("review_cards", schema=None) as batch_op:
        batch_op.create_index("ix_review_learner_due", ["learner_id", "due"], unique=False)

    op.create_table(
        "review_answers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("grade", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["review_cards.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("review_answers", schema=None) as batch_op:
        batch_op.create_index(
            "ix_review_answer_learner", ["learner_id", "created_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("review_answers", schema=None) as batch_op:
        batch_op.drop_index("ix_review_answer_learner")

    op.drop_table("review_answers")
    with op.batch_alter_table("review_cards", schema=None) as batch_op:
        batch_op.drop_index("ix_review_learner_due")

    op.drop_table("review_cards")
    with op.batch_alter_table("pitfall_checks", schema=None) as batch_op:
        batch_op.drop_index("ix_pitfall_learner_lesson")

    op.drop_table("pitfall_checks")
    op.drop_table("lesson_modes")
    with op.batch_alter_table("flashcard_ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_flashcard_learner_lesson")

    op.drop_table("flashcard_ratings")
    with op.batch_alter_table("drill_attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_drill_learner_lesson")

    op.drop_table("drill_attempts")
