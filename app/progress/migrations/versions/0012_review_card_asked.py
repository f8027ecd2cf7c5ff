"""review card asked: which other form of its question (a step's variant instance, a myth's
form) the card's latest review asked, so that the next return asks another

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("review_cards", schema=None) as batch_op:
        batch_op.add_column(sa.Column("asked", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("review_cards", schema=None) as batch_op:
        batch_op.drop_column("asked")
