"""Python's garbage collector, set for a long-running server.

Measured with `gc.callbacks` in `gradlab serve` under 100 learners of
`benchmarks/load_test.py` (30 s, twice each way): with Python's defaults the
collector ran 1,100 – 1,350 young collections and 9 – 11 full ones, 2.1 – 2.7 s in all (about
0.4 ms a request), and a full collection stopped every request for up to 150 ms, since it
walked the ~148,000 objects the server made at start-up (lessons, templates, routes, SQLAlchemy
and pydantic machinery) that live as long as the process. Frozen after start-up, and with a young
collection once 20,000 more objects were made than freed (Python's default is 700), the same
runs spent 0.30 – 0.38 s, most of it before the freeze.

Frozen objects are still freed when nothing refers to them; only the cycle collector skips
them. What is loaded later (a lesson reloaded under `--reload`) is collected as usual.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000


def settle_for_serving() -> None:
    """Call once the app is built, before serving: collect, freeze what is left, and let the
    youngest generation grow before it is collected."""
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)
