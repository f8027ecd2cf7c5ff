"""forms shown: which other form of its question (a step's variant instance, a myth's form)
each review answer answered, and which instance each drill answer on the drills page answered,
so that what a learner was shown is known for good, not only the latest form

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("review_answers", "drill_attempts"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("form", sa.Integer(), nullable=True))


def downgrade() -> None:
    for table in ("review_answers", "drill_attempts"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("form")
