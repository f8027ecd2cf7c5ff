"""Live reload for authors (`gradlab serve --reload`): the catalog follows the lesson files.

The lesson folders are watched (watchfiles). When a lesson file changes the catalog is loaded
again, keeping a broken lesson aside with its error (see `load_catalog(keep_broken=True)`),
and published to the running app; the sandbox and everything else keep running. `version`
counts the reloads, so that an open page can tell it is out of date.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from watchfiles import Change, awatch

from app.lessons.loader import Catalog, LessonError, load_catalog

log = logging.getLogger("gradlab.reload")


def _is_lesson_file(change: Change, path: str) -> bool:
    return path.endswith(".yaml") and not Path(path).name.startswith(".")


def log_broken(catalog: Catalog) -> None:
    for broken in catalog.broken:
        log.warning("lesson %s is broken, shown with its error:\n%s", broken.slug, broken.problem)


class LiveCatalog:
    """Reloads the catalog from `folders` on every change, handing it to `publish`."""

    def __init__(self, folders: Sequence[Path], publish: Callable[[Catalog], None]) -> None:
        self.folders = tuple(folders)
        self.version = 0
        self._publish = publish

    async def reload(self) -> None:
        try:
            catalog = await asyncio.to_thread(load_catalog, self.folders, keep_broken=True)
        except LessonError as exc:  # a whole folder went away: keep serving what we have
            log.error("lessons not reloaded: %s", exc)
            return
        self._publish(catalog)
        self.version += 1
        log.info("lessons reloaded: %d lessons, %d broken", len(catalog), len(catalog.broken))
        log_broken(catalog)

    async def watch(self, stop: asyncio.Event) -> None:
        """Reload on every batch of lesson-file changes until `stop` is set."""
        async for _changes in awatch(
            *self.folders, watch_filter=_is_lesson_file, stop_event=stop, debounce=300
        ):
            await self.reload()
