"""class post-test open: a teacher opens the concept inventory's post-test for their class,
before its learners have finished the path

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("classes", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("post_test_open", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("classes", schema=None) as batch_op:
        batch_op.drop_column("post_test_open")
