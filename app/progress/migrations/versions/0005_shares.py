"""shares: snippets shared by link, immutable, with a keyed hash of the author instead of an id

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 06:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "shares",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("lesson", sa.String(length=64), nullable=True),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("author_key", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_viewed", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_shares_author_created", "shares", ["author_key", "created_at"])
    op.create_index("ix_shares_last_viewed", "shares", ["last_viewed"])


def downgrade() -> None:
    op.drop_index("ix_shares_last_viewed", table_name="shares")
    op.drop_index("ix_shares_author_created", table_name="shares")
    op.drop_table("shares")
