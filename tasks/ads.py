"""Scheduled ad upkeep: expiry of ended ads and release of unpaid holds."""

from __future__ import annotations

import logging

import dramatiq

from models.ads.reservations import expire_ended, release_unpaid_holds

log = logging.getLogger(__name__)


@dramatiq.actor(queue_name="ads", max_retries=5)
def expire_ad_reservations():
    """`active` past `end_month` -> `expired`. A rerun finds none left to move."""
    log.info("expired %d ad reservation(s)", expire_ended())


@dramatiq.actor(queue_name="ads", max_retries=5)
def release_unpaid_ad_holds():
    """Remove reservations unpaid after their checkout expired (never a paid one). A
    rerun finds nothing left to release."""
    released = release_unpaid_holds()
    if released:
        log.info("released %d unpaid hold(s)", len(released))
