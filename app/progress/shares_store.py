"""Snippets shared by link: kept once, read by id, deleted by their author or an operator.

There is no statement that changes a share's code: a share is immutable. Only `last_viewed`
moves, and only through `mark_viewed`, which the share page's beacon (a POST) calls."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy import BindParameter, bindparam, delete, func, select, update

from app.progress.base import StoreBase
from app.progress.models.declarative import stored_utc
from app.progress.models.shares import Share


@dataclass(frozen=True)
class StoredShare:
    id: str
    code: str
    lesson: str | None
    step: int | None
    author_key: str
    created_at: datetime
    last_viewed: datetime


_ID: BindParameter[str] = bindparam("id")
_SHARE = select(
    Share.id,
    Share.code,
    Share.lesson,
    Share.step,
    Share.author_key,
    Share.created_at,
    Share.last_viewed,
).where(Share.id == _ID)
_MADE_SINCE = select(func.count(), func.min(Share.created_at)).where(
    Share.author_key == bindparam("author"), Share.created_at > bindparam("since")
)
_VIEWED = (
    update(Share)
    .where(Share.id == bindparam("share"), Share.last_viewed < bindparam("before"))
    .values(last_viewed=bindparam("now"))
)


class SharesRecords(StoreBase):
    def add_share(self, share: StoredShare) -> None:
        with self.writing() as connection:
            connection.execute(self.insert(Share), asdict(share))

    def share(self, share_id: str) -> StoredShare | None:
        with self.reading() as connection:
            row = connection.execute(_SHARE, {"id": share_id}).first()
        if row is None:
            return None
        return StoredShare(
            row.id,
            row.code,
            row.lesson,
            row.step,
            row.author_key,
            stored_utc(row.created_at),
            stored_utc(row.last_viewed),
        )

    def shares_made_since(self, author_key: str, since: datetime) -> tuple[int, datetime | None]:
        """How many shares this author made after `since`, and when the oldest of them was."""
        with self.reading() as connection:
            count, oldest = connection.execute(
                _MADE_SINCE, {"author": author_key, "since": since}
            ).one()
        return int(count), stored_utc(oldest) if oldest is not None else None

    def mark_viewed(self, share_id: str, now: datetime, before: datetime) -> None:
        """Move `last_viewed` to `now` when it is older than `before` (at most one write per
        share in that time, however many visitors)."""
        with self.writing() as connection:
            connection.execute(_VIEWED, {"share": share_id, "now": now, "before": before})

    def delete_share(self, share_id: str, author_key: str | None = None) -> bool:
        """Delete a share (only if `author_key` is its author's, when given); was there one?"""
        statement = delete(Share).where(Share.id == share_id)
        if author_key is not None:
            statement = statement.where(Share.author_key == author_key)
        with self.writing() as connection:
            return connection.execute(statement).rowcount > 0

    def delete_shares_viewed_before(self, cutoff: datetime) -> int:
        with self.writing() as connection:
            return connection.execute(delete(Share).where(Share.last_viewed < cutoff)).rowcount
