"""step answers: the table of a step's committed answers (a choice, or an ordering's lines)
takes a name that says so, `prediction_attempts` -> `step_answers`, with its index and, on
PostgreSQL, its key, foreign key and id sequence; every row stays

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

OLD, NEW = "prediction_attempts", "step_answers"
OLD_INDEX, NEW_INDEX = "ix_prediction_learner_lesson", "ix_step_answer_learner_lesson"


def upgrade() -> None:
    _rename(OLD, NEW, OLD_INDEX, NEW_INDEX)


def downgrade() -> None:
    _rename(NEW, OLD, NEW_INDEX, OLD_INDEX)


def _rename(table: str, to: str, index: str, to_index: str) -> None:
    op.rename_table(table, to)
    if op.get_bind().dialect.name == "postgresql":
        # PostgreSQL keeps the names it derived from the table's: rename them with it (renaming
        # the key renames its index; the column's default follows its sequence, whatever its name).
        op.execute(f"ALTER INDEX {index} RENAME TO {to_index}")
        op.execute(f"ALTER TABLE {to} RENAME CONSTRAINT {table}_pkey TO {to}_pkey")
        op.execute(
            f"ALTER TABLE {to} RENAME CONSTRAINT {table}_learner_id_fkey TO {to}_learner_id_fkey"
        )
        op.execute(f"ALTER SEQUENCE {table}_id_seq RENAME TO {to}_id_seq")
        return
    # SQLite cannot rename an index: made again under its new name, on the renamed table.
    op.drop_index(index, table_name=to)
    op.create_index(to_index, to, ["learner_id", "lesson"], unique=False)
