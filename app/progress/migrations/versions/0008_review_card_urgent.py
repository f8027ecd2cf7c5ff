"""review card urgent: a right answer given as a guess, or a miss given as certain, comes back
before the rest of its review sitting

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("review_cards", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("urgent", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("review_cards", schema=None) as batch_op:
        batch_op.drop_column("urgent")
