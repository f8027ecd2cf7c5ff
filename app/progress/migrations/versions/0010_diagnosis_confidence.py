"""exercise attempts: how sure a learner was when naming a bug (an exercise's diagnosis), and
what a missed check was about (error, output or grads), which picks its hint

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exercise_attempts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("confidence", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("miss", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("exercise_attempts", schema=None) as batch_op:
        batch_op.drop_column("miss")
        batch_op.drop_column("confidence")
