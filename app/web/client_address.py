"""Who is asking, when there is no learner yet: the client's address, and a limit on the
learners one address may create.

The address is the TCP peer's, unless that peer is a proxy named in GRADLAB_TRUSTED_PROXIES:
then it is the last address in X-Forwarded-For that is not itself a trusted proxy (each proxy
appends the address it saw; only the entries our own proxies added can be believed). A client
that talks to the server directly cannot choose its address by sending X-Forwarded-For.

An IPv6 client counts as its /64 network (`counted_as`), here and in the sandbox's share
between addresses: any address of it is the same client.

The limit is a token bucket per address, in memory, per server process: with N processes or
replicas an address may create up to N times as many learners. It bounds a script that drops
its cookie to get a fresh learner (and a fresh line of runs) with every request.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import TooManyNewLearners

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
# Addresses remembered at most: the oldest are forgotten first (a forgotten address starts
# with a full bucket, which errs towards serving).
MAX_ADDRESSES = 100_000


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def counted_as(host: str) -> str:
    """What the limits and shares per address count a client as: its IPv4 address, or for an
    IPv6 client its /64 network, since a home or an office is given at least a /64 and may
    take any address in it (an address of IPv4 mapped into IPv6 is the IPv4 one)."""
    address = _address(host)
    if not isinstance(address, ipaddress.IPv6Address):
        return host
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network((address, 64), strict=False))


def client_address(
    peer: str | None, forwarded_for: list[str], trusted: tuple[Network, ...]
) -> str | None:
    """The client's address: the peer's, or behind trusted proxies the nearest untrusted
    address they forwarded."""

    def is_trusted(text: str | None) -> bool:
        address = _address(text) if text else None
        return address is not None and any(address in network for network in trusted)

    if not trusted or not is_trusted(peer):
        return peer
    hops = [hop.strip() for header in forwarded_for for hop in header.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not is_trusted(hop):
            return hop if _address(hop) is not None else peer
    return hops[0] if hops else peer


class ClientAddressMiddleware:
    """Sets the request's client (`request.client.host`) to `client_address`."""

    def __init__(self, app: ASGIApp, trusted: tuple[Network, ...]) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.trusted:
            peer = scope.get("client")
            forwarded = [
                value.decode("latin-1")
                for name, value in scope["headers"]
                if name == b"x-forwarded-for"
            ]
            host = client_address(peer[0] if peer else None, forwarded, self.trusted)
            if host is not None and peer is not None and host != peer[0]:
                scope["client"] = (host, 0)
        await self.app(scope, receive, send)


@dataclass
class _Bucket:
    tokens: float
    at: float


class NewLearnerLimit:
    """A token bucket per address: `per_minute` tokens a minute, as many at once."""

    def __init__(self, per_minute: int, on_refusal: Callable[[], None] = lambda: None) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.on_refusal = on_refusal
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def take(self, address: str) -> None:
        """Spend one token of `address`'s bucket, or raise TooManyNewLearners."""
        wait = self._spend(address)
        if wait is not None:
            self.on_refusal()
            raise TooManyNewLearners(
                "Too many new learners from your address; try again shortly.", retry_after=wait
            )

    def try_take(self, address: str) -> bool:
        """Spend one token of `address`'s bucket if it has one; False (and nothing refused,
        nothing counted) when it has none."""
        return self._spend(address) is None

    def _spend(self, address: str) -> int | None:
        """Spend a token: None, or the seconds until the bucket has one."""
        now = time.monotonic()
        bucket = self._buckets.pop(address, None) or _Bucket(self.capacity, now)
        bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        self._buckets[address] = bucket
        while len(self._buckets) > MAX_ADDRESSES:
            self._buckets.popitem(last=False)
        if bucket.tokens < 1:
            return int((1 - bucket.tokens) / self.rate) + 1
        bucket.tokens -= 1
        return None
