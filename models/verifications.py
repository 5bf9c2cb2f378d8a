"""Short-lived server-side values (sign-in state), kept in `verifications`.

Shaped as the cache authlib asks for, so the state of a sign-in lives here and
is deleted when used: a replayed callback finds nothing.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from models.clock import iso, now_iso, utcnow
from models.tables import Verification


class VerificationStore:
    def get(self, key: str) -> str | None:
        row = Verification.get_or_none(
            (Verification.identifier == key) & (Verification.expires_at > now_iso())
        )
        return row.value if row else None

    def set(self, key: str, value: str, expires_in: int | None = None) -> None:
        now = now_iso()
        expires = iso(utcnow() + timedelta(seconds=expires_in or 600))
        (
            Verification.insert(
                id=str(uuid.uuid4()),
                identifier=key,
                value=value,
                expires_at=expires,
                created_at=now,
                updated_at=now,
            )
            .on_conflict(
                conflict_target=[Verification.identifier],
                update={
                    Verification.value: value,
                    Verification.expires_at: expires,
                    Verification.updated_at: now,
                },
            )
            .execute()
        )

    def delete(self, key: str) -> None:
        Verification.delete().where(Verification.identifier == key).execute()


def purge_expired(now: datetime | None = None) -> int:
    """Delete sign-in state past its expiry (a sign-in left half-way); returns how many."""
    purged: int = (
        Verification.delete().where(Verification.expires_at <= iso(now or utcnow())).execute()
    )
    return purged
