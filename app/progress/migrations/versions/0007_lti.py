"""LTI 1.3: registered course sites and their deployments, gradlab's signing keys, logins in
flight, LMS users and courses mapped to learners and classes, where grades go, and the outbox
of scores

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 06:26:42.271565
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_keys",
        sa.Column("kid", sa.String(length=64), nullable=False),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("kid"),
    )
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("auth_url", sa.Text(), nullable=False),
        sa.Column("token_url", sa.Text(), nullable=False),
        sa.Column("jwks_url", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platform"),
    )
    op.create_table(
        "lti_contexts",
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.Column("context_id", sa.String(length=255), nullable=False),
        sa.Column("class_id", sa.String(length=22), nullable=False),
        sa.Column("memberships_url", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["class_id"], ["classes.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("platform_id", "deployment_id", "context_id"),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("platform_id", "deployment_id"),
    )
    op.create_table(
        "lti_grade_links",
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("lineitem_url", sa.Text(), nullable=False),
        sa.Column("sub", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("learner_id", "lesson"),
    )
    op.create_table(
        "lti_logins",
        sa.Column("state", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("state"),
    )
    op.create_table(
        "lti_scores",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("lineitem_url", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("next_try", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lti_scores", schema=None) as batch_op:
        batch_op.create_index("ix_lti_score_due", ["sent_at", "next_try"], unique=False)

    op.create_table(
        "lti_users",
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("sub", sa.String(length=255), nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("issuer", "sub"),
    )


def downgrade() -> None:
    op.drop_table("lti_users")
    with op.batch_alter_table("lti_scores", schema=None) as batch_op:
        batch_op.drop_index("ix_lti_score_due")

    op.drop_table("lti_scores")
    op.drop_table("lti_logins")
    op.drop_table("lti_grade_links")
    op.drop_table("lti_deployments")
    op.drop_table("lti_contexts")
    op.drop_table("lti_platforms")
    op.drop_table("lti_keys")
