"""Time passing for the review queue in tests: cards fall due as if minutes had gone by."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient


def time_passes(where: TestClient | str, wait: timedelta = timedelta(minutes=11)) -> None:
    """As if `wait` had gone by for the review queue: every card falls due that much earlier
    (a miss waits out a learning step before it is asked again), and every review answer was
    given that much earlier (so it stays before or after the times cards fell due, as it
    was). `where`: an in-process client, or the database URL of a live server."""
    from sqlalchemy import create_engine, select, update

    from app.progress.models.modes import ReviewAnswer, ReviewCard

    live = isinstance(where, str)
    engine = create_engine(where) if live else where.app.state.store.engine  # type: ignore[union-attr]
    with engine.begin() as connection:
        for card_id, due in connection.execute(select(ReviewCard.id, ReviewCard.due)).all():
            moved = update(ReviewCard).where(ReviewCard.id == card_id).values(due=due - wait)
            connection.execute(moved)
        answers = connection.execute(select(ReviewAnswer.id, ReviewAnswer.created_at)).all()
        for answer_id, at in answers:  # one by one: SQLite cannot subtract a time span
            earlier = update(ReviewAnswer).where(ReviewAnswer.id == answer_id)
            connection.execute(earlier.values(created_at=at - wait))
    if live:
        engine.dispose()
