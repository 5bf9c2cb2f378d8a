"""View tokens: each ad of a render (a serve answer, a page) carries a signed, short-lived
token binding the reservation, its position and the render, so a beacon or a click can
prove it came from an ad this service showed (docs/ads.md, View tokens).

A token is base64url(render id 12 bytes | position 1 byte | expiry 4 bytes | MAC 16
bytes): 44 characters. The MAC (HMAC-SHA256, truncated) covers the reservation id too,
so a token proves nothing for another reservation; the id is not carried.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from models.clock import utcnow
from models.settings import get_settings

TTL = timedelta(minutes=30)
KEY_PURPOSE = b"subsearch ad view token v1"
_BODY = struct.Struct(">12sBI")  # render id, position, expiry (Unix seconds)
_MAC_BYTES = 16
TOKEN_LENGTH = 44  # base64 of 33 bytes, no padding needed

VALID = "valid"
EXPIRED = "expired"  # genuine, but older than TTL
FORGED = "forged"  # missing, malformed, bad signature, or another reservation's


@dataclass(frozen=True)
class Verified:
    status: str
    # The render and ad this token was made for, the same however often it comes back:
    # the impression's event id. None unless the signature holds.
    identity: str | None = None

    @property
    def genuine(self) -> bool:
        """Signed by us for this reservation, expired or not."""
        return self.status in (VALID, EXPIRED)


@lru_cache(maxsize=4)
def _key(secret_key: str) -> bytes:
    # A key of its own, so a token is never valid as any other signature of SECRET_KEY.
    return hmac.new(secret_key.encode(), KEY_PURPOSE, hashlib.sha256).digest()


def _mac(reservation_id: str, body: bytes) -> bytes:
    key = _key(get_settings().secret_key)
    return hmac.new(key, body + reservation_id.encode(), hashlib.sha256).digest()[:_MAC_BYTES]


def new_render_id() -> bytes:
    """One per serve answer or page render; every ad of it shares it."""
    return secrets.token_bytes(12)


def make(reservation_id: str, position: int, render_id: bytes, now: datetime | None = None) -> str:
    expires = int(((now or utcnow()) + TTL).timestamp())
    body = _BODY.pack(render_id, position, expires)
    return base64.urlsafe_b64encode(body + _mac(reservation_id, body)).decode("ascii")


def verify(token: str | None, reservation_id: str, now: datetime | None = None) -> Verified:
    """Any string at all (a query parameter) gives an answer, never an exception."""
    if not token or len(token) != TOKEN_LENGTH:
        return Verified(FORGED)
    try:
        raw = base64.urlsafe_b64decode(token.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return Verified(FORGED)
    body, mac = raw[: _BODY.size], raw[_BODY.size :]
    if len(mac) != _MAC_BYTES or not hmac.compare_digest(mac, _mac(reservation_id, body)):
        return Verified(FORGED)
    render_id, position, expires = _BODY.unpack(body)
    identity = f"view:{base64.urlsafe_b64encode(render_id).decode()}:{position}:{reservation_id}"
    if (now or utcnow()).timestamp() >= expires:
        return Verified(EXPIRED, identity)
    return Verified(VALID, identity)
