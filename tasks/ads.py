"""Scheduled ad upkeep: expiry of ended ads and release of unpaid holds."""

from __future__ import annotations

import logging

from dramatiq.middleware import Shutdown

from models.ads import measurement
from models.ads.reservations import expire_ended, release_unpaid_holds
from models.metrics import HOLD_RELEASES
from workers import beacons
from workers.actors import actor

log = logging.getLogger(__name__)


@actor(queue_name="ads", max_retries=5)
def expire_ad_reservations() -> None:
    """`active` past `end_month` -> `expired`. A rerun finds none left to move."""
    log.info("expired %d ad reservation(s)", expire_ended())


@actor(queue_name="ads", max_retries=5)
def release_unpaid_ad_holds() -> None:
    """Remove reservations unpaid after their checkout expired (never a paid one). A
    rerun finds nothing left to release."""
    released = release_unpaid_holds()
    if released:
        HOLD_RELEASES.labels(source="expiry").inc(len(released))
        log.info("released %d unpaid hold(s)", len(released))


# notify_shutdown: when the worker is told to stop (SIGTERM), Dramatiq raises Shutdown
# in this actor's thread (its ShutdownNotifications middleware), so a run ends within a
# second or so instead of reading on for a minute (docs/ads.md, Counting: Stopping).
@actor(queue_name="measure", max_retries=0, notify_shutdown=True)
def count_beacons(seconds: float = beacons.RUN_SECONDS) -> None:
    """Count the beacons' stream for `seconds`, a batch per transaction (sent every
    minute, each run a little longer, so one always reads). Not retried: what a failed
    run held is claimed by the next one, and event ids make a second pass count nothing;
    two runs at once share the stream. Redis timeouts are retried inside the run
    (workers/beacons.py). Stopped with the worker, it ends at once: entries it read but
    had not committed stay pending, claimed and counted once by the next run."""
    try:
        counted = beacons.consume_for(seconds)
    except Shutdown:
        log.info("the worker is stopping: what this run had not committed stays pending")
        return
    log.info("counted %d impression(s) and %d click(s)", counted.impressions, counted.clicks)


@actor(queue_name="ads", max_retries=5)
def prune_impression_events() -> None:
    """Drop impression event ids older than 7 days (redeliveries come within minutes)."""
    log.info("pruned %d impression event id(s)", measurement.prune_impression_events())
