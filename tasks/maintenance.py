"""Housekeeping of sign-in data: expired or revoked sessions and used-up sign-in state."""

from __future__ import annotations

import logging
from datetime import timedelta

import dramatiq

from models.clock import iso, now_iso, utcnow
from models.tables import Session, Verification

log = logging.getLogger(__name__)

# Revoked sessions are kept a day so a support question about a sign-out can be answered.
REVOKED_KEEP = timedelta(days=1)


@dramatiq.actor(queue_name="maintenance", max_retries=3)
def purge_expired_sessions():
    """Delete expired sessions and sign-in state. Retries 3 times; a rerun deletes nothing new."""
    now = now_iso()
    sessions = (
        Session.delete()
        .where((Session.expires_at <= now) | (Session.revoked_at <= iso(utcnow() - REVOKED_KEEP)))
        .execute()
    )
    states = Verification.delete().where(Verification.expires_at <= now).execute()
    log.info("purged %d sessions and %d sign-in states", sessions, states)
