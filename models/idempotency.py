"""Idempotency keys: a member's request sent again with the same Idempotency-Key gets the
first answer instead of running twice (an unlock clicked twice charges once).

A key is claimed in its own short transaction before the request runs, so a second
request with the key, even at the same moment, finds the claim: it answers 409 while the
first still runs and the first answer once it has finished. A key is kept KEPT; a claim
whose request never finished (its process died) is taken over after ABANDONED.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from models.clock import iso, utcnow
from models.db import write_transaction
from models.errors import DomainError, ValidationError
from models.tables import IdempotencyKey

KEPT = timedelta(hours=24)
ABANDONED = timedelta(minutes=2)
MAX_LENGTH = 255


class RequestInProgress(DomainError):
    code = "request_in_progress"
    status = 409
    message = "The first request with this Idempotency-Key is still running."


class KeyReused(DomainError):
    code = "idempotency_key_reused"
    status = 409
    message = "This Idempotency-Key was sent with another request."


@dataclass(frozen=True)
class Answer:
    status: int
    body: str  # JSON


def checked_key(key: str) -> str:
    """The key as sent, if it is one: 1 to 255 visible ASCII characters (a UUID is)."""
    if not 0 < len(key) <= MAX_LENGTH or not all("!" <= c <= "~" for c in key):
        raise ValidationError(
            fields={"Idempotency-Key": f"1 to {MAX_LENGTH} visible ASCII characters, a UUID"}
        )
    return key


def claim(user_id: str, key: str, request: str, now: datetime | None = None) -> Answer | None:
    """Take the key for `request` (what the request is, e.g. "unlock v123"): None when
    the request is to run now, the first answer when it already ran."""
    now = now or utcnow()
    with write_transaction():
        taken = (
            IdempotencyKey.insert(
                user=user_id, idempotency_key=key, request=request, created_at=iso(now)
            )
            .on_conflict_ignore()
            .as_rowcount()
            .execute()
        )
        if taken:
            return None
        row = IdempotencyKey.get(
            (IdempotencyKey.user == user_id) & (IdempotencyKey.idempotency_key == key)
        )
        status: int | None = row.response_status
        lapsed = row.created_at < iso(now - (ABANDONED if status is None else KEPT))
        if lapsed and _take_over(row, request, now):
            return None
        if status is None:
            raise RequestInProgress()
        if row.request != request:
            raise KeyReused()
        return Answer(status, row.response_body or "")


def _take_over(row: IdempotencyKey, request: str, now: datetime) -> bool:
    """Start the key afresh, unless another request just did."""
    taken: int = (
        IdempotencyKey.update(
            request=request, response_status=None, response_body=None, created_at=iso(now)
        )
        .where(
            (IdempotencyKey.user == row.user_id)
            & (IdempotencyKey.idempotency_key == row.idempotency_key)
            & (IdempotencyKey.created_at == row.created_at)
        )
        .execute()
    )
    return taken == 1


def record(user_id: str, key: str, answer: Answer) -> None:
    """Keep the answer of the request that claimed the key (in the caller's transaction
    when the answer is the request's own work, so both stand or fall together)."""
    (
        IdempotencyKey.update(response_status=answer.status, response_body=answer.body)
        .where((IdempotencyKey.user == user_id) & (IdempotencyKey.idempotency_key == key))
        .execute()
    )


def release(user_id: str, key: str) -> None:
    """Give up a claim whose request failed without an answer: the key may be sent again."""
    (
        IdempotencyKey.delete()
        .where(
            (IdempotencyKey.user == user_id)
            & (IdempotencyKey.idempotency_key == key)
            & IdempotencyKey.response_status.is_null()
        )
        .execute()
    )


def purge_expired(now: datetime | None = None) -> int:
    """Delete the keys older than KEPT; how many."""
    cutoff = iso((now or utcnow()) - KEPT)
    purged: int = IdempotencyKey.delete().where(IdempotencyKey.created_at < cutoff).execute()
    return purged
