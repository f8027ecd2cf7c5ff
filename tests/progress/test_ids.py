"""Ids an operator types on a command line never read as an option there."""

from __future__ import annotations

from app.progress.ids import command_line_id
from app.progress.store import ProgressStore


def test_no_id_starts_with_a_dash() -> None:
    ids = [command_line_id(12) for _ in range(2000)]  # about 31 of them would, by chance alone
    assert not [made for made in ids if made.startswith("-")]
    assert len(set(ids)) == len(ids) and {len(made) for made in ids} == {16}


def test_a_class_id_never_starts_with_a_dash(migrated_url: str) -> None:
    from app.progress.database import make_engine

    engine = make_engine(migrated_url)
    store = ProgressStore(engine)
    made = [store.create_class(f"Class {n}").info.id for n in range(200)]
    engine.dispose()
    assert not [class_id for class_id in made if class_id.startswith("-")]
