"""A class behind one address (a lab, a NAT) presses Run at the same moment.

Starts `gradlab serve` on a free loopback port with the default limits; every client is
127.0.0.1, so all are one address to it. --learners learners each open --page once (the
playground by default) and keep the cookie it gives; then, --rounds times, --pause seconds
apart, all of them ask at once for a run of a small backward snippet. Prints how many runs were
served and how many refused (429, 503), and the p50/p95 of the served runs from the moment the
class pressed Run. With --no-cookie every learner throws its cookies away, so all their runs
wait in the address's one line (what a class met when its first page gave no cookie).

Usage: python benchmarks/one_address.py [--learners 30] [--rounds 10] [--pause 2]
       [--page /playground] [--no-cookie]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_sandbox import SNIPPET, free_port, machine_line, percentile, start_server


async def learner(base: str, page: str, keep_cookie: bool) -> aiohttp.ClientSession:
    jar: aiohttp.abc.AbstractCookieJar = (
        aiohttp.CookieJar(unsafe=True) if keep_cookie else aiohttp.DummyCookieJar()
    )
    client = aiohttp.ClientSession(
        base_url=base, cookie_jar=jar, timeout=aiohttp.ClientTimeout(total=60)
    )
    async with client.get(page) as answer:
        answer.raise_for_status()
    return client


async def press_run(client: aiohttp.ClientSession, pressed: float) -> tuple[int, float]:
    async with client.post("/api/run", json={"code": SNIPPET}) as answer:
        await answer.read()
        return answer.status, (time.perf_counter() - pressed) * 1000


async def measure(
    base: str, learners: int, rounds: int, pause: float, page: str, keep: bool
) -> None:
    clients = await asyncio.gather(*(learner(base, page, keep) for _ in range(learners)))
    statuses: Counter[int] = Counter()
    served_ms: list[float] = []
    try:
        await press_run(clients[0], time.perf_counter())  # the server's first run, not counted
        for _ in range(rounds):
            pressed = time.perf_counter()
            answers = await asyncio.gather(*(press_run(c, pressed) for c in clients))
            statuses.update(status for status, _ in answers)
            served_ms += [ms for status, ms in answers if status == 200]
            await asyncio.sleep(pause)
    finally:
        for client in clients:
            await client.close()
    asked = learners * rounds
    cookies = "kept" if keep else "thrown away"
    print(f"{learners} learners at one address, {rounds} rounds, page {page}, cookies {cookies}")
    print(f"{'runs asked':24} {asked}")
    print(f"{'served':24} {statuses[200]}")
    print(f"{'refused (429)':24} {statuses[429]}")
    print(f"{'refused (503)':24} {statuses[503]}")
    others = {code: n for code, n in statuses.items() if code not in (200, 429, 503)}
    if others:
        print(f"{'other answers':24} {others}")
    if served_ms:
        print(
            f"{'served, from the press':24} p50 {statistics.median(served_ms):7.1f} ms  "
            f"p95 {percentile(served_ms, 0.95):7.1f} ms  max {max(served_ms):7.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--pause", type=float, default=2.0, help="seconds between rounds")
    parser.add_argument("--page", default="/playground", help="the page each learner opens")
    parser.add_argument("--no-cookie", action="store_true", help="every learner drops cookies")
    args = parser.parse_args()
    port = free_port()
    print(machine_line())
    # The defaults, not the benchmarks' one-address settings: the limits are what is measured.
    server = start_server(port, settings={})
    try:
        asyncio.run(
            measure(
                f"http://127.0.0.1:{port}",
                args.learners,
                args.rounds,
                args.pause,
                args.page,
                not args.no_cookie,
            )
        )
    finally:
        server.terminate()
        server.wait(30)
    print(machine_line())


if __name__ == "__main__":
    main()
