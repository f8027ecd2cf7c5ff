"""Snippets shared by link: making one, its page, its editable copy, deleting it, expiry.

A share is immutable: no call here or in the store changes its code, and a new share gets a new
id. Its id is 96 random bits, so links cannot be guessed. It names no learner: only a keyed hash
of its author's id is kept (HMAC with the server's secret), which lets that same author delete it
and counts their shares for the hourly limit, and means nothing to anyone without the secret.

Reads are reads: showing a share writes nothing. Its page posts a beacon once shown, and that
moves `last_viewed` forward (at most once an hour per share); `GRADLAB_SHARE_DAYS` counts from
there. docs/shares.md says the same for readers.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.errors import NotFound, SnippetTooLarge, TooManyRequests
from app.learning.answers.questions import find_lesson, find_step
from app.learning.schemas import ShareBody, ShareMade
from app.lessons.loader import Catalog
from app.progress.ids import command_line_id
from app.progress.shares_store import StoredShare
from app.progress.store import ProgressStore

ID_BYTES = 12  # 96 random bits: token_urlsafe makes 16 characters of them


def new_share_id() -> str:
    """A new share's id: 16 URL-safe characters, never starting with "-" (app/progress/ids.py)."""
    return command_line_id(ID_BYTES)


HOUR = timedelta(hours=1)
VIEW_GRAIN = HOUR  # `last_viewed` moves at most this often: one write per share an hour
DESCRIPTION_CHARS = 160
MISSING = (
    "There is no shared snippet at this link: the link may be mistyped, or the share was "
    "deleted or expired."
)


class ShareNotFound(NotFound):
    """No share with this id (never made, deleted, or expired): a 404 to the routes."""

    slug = "unknown-share"
    title = "There is no shared snippet at this link"


class TooManyShares(TooManyRequests):
    """Over the hourly limit of shares, per learner or per address."""

    slug = "too-many-shares"
    title = "Too many shares in the last hour"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(max(1, retry_after), message)


@dataclass(frozen=True)
class SharePolicy:
    code_bytes: int
    per_hour: int
    per_address_per_hour: int
    days: int | None
    secret: str


@dataclass(frozen=True)
class ShareView:
    """What the share page shows: the code, where it came from, and its preview text."""

    id: str
    code: str
    title: str
    description: str
    lesson_slug: str | None
    lesson_title: str | None
    step: int | None
    mine: bool  # the visitor made it (their cookie): they may delete it


def now() -> datetime:
    return datetime.now(UTC)


class AddressLimit:
    """Shares made per client address in the last hour, in this process's memory only: an
    address is never written down. Several server processes each count their own."""

    def __init__(self, per_hour: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_hour = per_hour
        self.clock = clock
        self.made: dict[str, deque[float]] = {}
        self.lock = threading.Lock()

    def check_and_count(self, address: str) -> None:
        now_s = self.clock()
        with self.lock:
            for key in [k for k, times in self.made.items() if times[-1] <= now_s - 3600]:
                del self.made[key]  # addresses quiet for an hour are forgotten
            times = self.made.setdefault(address, deque())
            while times and times[0] <= now_s - 3600:
                times.popleft()
            if len(times) >= self.per_hour:
                wait = int(times[0] + 3600 - now_s) + 1
                raise TooManyShares(
                    f"Too many shares from your address this hour (at most {self.per_hour}).",
                    wait,
                )
            times.append(now_s)


class Shares:
    def __init__(
        self,
        store: ProgressStore,
        policy: SharePolicy,
        count: Callable[[str], None] = lambda event: None,
    ) -> None:
        self.store = store
        self.policy = policy
        self.count = count  # "made" or "viewed", for /metrics
        self.addresses = AddressLimit(policy.per_address_per_hour)
        self.pruned_at: float | None = None

    def author_key(self, learner: str) -> str:
        key = self.policy.secret.encode()
        return hmac.new(key, f"share-author:{learner}".encode(), hashlib.sha256).hexdigest()

    # --- writes --------------------------------------------------------------------------------
    def make(
        self, catalog: Catalog, learner: str, address: str, body: ShareBody, base_url: str
    ) -> ShareMade:
        """Keep the code as a new share (SnippetTooLarge, NotFound for an unknown lesson or
        step, TooManyShares over the hourly limits)."""
        if len(body.code.encode("utf-8", errors="replace")) > self.policy.code_bytes:
            raise SnippetTooLarge(f"the snippet is larger than {self.policy.code_bytes} bytes")
        step = self._checked_step(catalog, body)
        author = self.author_key(learner)
        made = now()
        count, oldest = self.store.shares_made_since(author, made - HOUR)
        if count >= self.policy.per_hour and oldest is not None:
            wait = int((oldest + HOUR - made).total_seconds()) + 1
            limit = self.policy.per_hour
            raise TooManyShares(f"You made {limit} shares this hour, the most there may be.", wait)
        self.addresses.check_and_count(address)
        share_id = new_share_id()
        share = StoredShare(share_id, body.code, body.lesson, step, author, made, made)
        self.store.add_share(share)
        self.count("made")
        self._prune_now_and_then()
        return ShareMade(id=share_id, url=f"{base_url.rstrip('/')}/s/{share_id}")

    def delete(self, share_id: str, learner: str | None) -> None:
        """Delete a share, only for its author; to anyone else it does not exist."""
        if learner is None or not self.store.delete_share(share_id, self.author_key(learner)):
            raise ShareNotFound(MISSING)

    def seen(self, share_id: str) -> None:
        """The share page was shown: move `last_viewed` forward, at most once an hour."""
        share = self.live(share_id)
        moment = now()
        if share.last_viewed < moment - VIEW_GRAIN:
            self.store.mark_viewed(share_id, moment, moment - VIEW_GRAIN)

    def remove(self, share: str) -> bool:
        """An operator's deletion (`gradlab shares rm`): whoever made it. `share` is its id or
        its link (the id is the link's last part)."""
        return self.store.delete_share(share.rstrip("/").rsplit("/s/", 1)[-1])

    def prune(self) -> int:
        """Delete the shares unviewed for GRADLAB_SHARE_DAYS; how many went."""
        if self.policy.days is None:
            return 0
        return self.store.delete_shares_viewed_before(now() - timedelta(days=self.policy.days))

    # --- reads ---------------------------------------------------------------------------------
    def live(self, share_id: str) -> StoredShare:
        """The share, unless it never was, was deleted, or is past GRADLAB_SHARE_DAYS."""
        share = self.store.share(share_id) if len(share_id) <= 32 else None
        if share is None or self._expired(share):
            raise ShareNotFound(MISSING)
        return share

    def view(self, catalog: Catalog, share_id: str, learner: str | None) -> ShareView:
        share = self.live(share_id)
        mine = learner is not None and hmac.compare_digest(
            share.author_key, self.author_key(learner)
        )
        self.count("viewed")  # in memory, for /metrics: a view writes nothing
        lesson = catalog.get(share.lesson) if share.lesson else None
        title = f"Shared from “{lesson.title}”" if lesson else "A shared PyTorch snippet"
        return ShareView(
            id=share.id,
            code=share.code,
            title=title,
            description=_describe(share.code),
            lesson_slug=lesson.slug if lesson else None,
            lesson_title=lesson.title if lesson else None,
            step=share.step if lesson else None,
            mine=mine,
        )

    # --- helpers -------------------------------------------------------------------------------
    def _checked_step(self, catalog: Catalog, body: ShareBody) -> int | None:
        if body.lesson is None:
            return None
        lesson = find_lesson(catalog, body.lesson)
        if body.step is not None:
            find_step(lesson, body.step)
        return body.step

    def _expired(self, share: StoredShare) -> bool:
        days = self.policy.days
        return days is not None and share.last_viewed < now() - timedelta(days=days)

    def _prune_now_and_then(self) -> None:
        """Expiry rides on the making of shares, at most once an hour per process."""
        moment = time.monotonic()
        if self.pruned_at is None or moment - self.pruned_at >= HOUR.total_seconds():
            self.pruned_at = moment
            self.prune()


def _describe(code: str) -> str:
    """A link preview's text: the code's first lines, on one line, shortened."""
    text = " ".join(code.split())
    if len(text) > DESCRIPTION_CHARS:
        text = text[: DESCRIPTION_CHARS - 1].rstrip() + "…"
    return text or "An empty snippet."
