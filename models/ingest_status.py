"""What ingestion is doing, for `subsearch ingest status` and the admin's ingestion panel:
fetching or paused (until when, and why), how fetches failed in the last 24 hours by
kind, and videos by status; and the operator's re-queueing of failed or unavailable
videos (`subsearch videos retry`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import cast

from peewee import fn

from models import platform_pause
from models.clock import iso, utcnow
from models.db import write_transaction
from models.platform.quota import QuotaLedger
from models.settings import get_settings
from models.tables import Channel, Video

# What an operator may send to be fetched again.
RETRYABLE = ("failed", "unavailable")


@dataclass(frozen=True)
class IngestStatus:
    pause: platform_pause.Pause | None  # None: fetching
    failures_24h: dict[str, int]  # videos whose last failure, within 24 h, was of this kind
    videos: dict[str, int]  # videos by subtitle_status
    units_spent: int  # the Data API's units spent today (Pacific time)
    units_left: int


def ingest_status() -> IngestStatus:
    since = iso(utcnow() - timedelta(hours=24))
    failures = cast(
        "Iterable[tuple[str, int]]",
        Video.select(Video.last_failure_kind, fn.COUNT(Video.id))
        .where(Video.last_failure_at >= since)
        .group_by(Video.last_failure_kind)
        .tuples(),
    )
    statuses = cast(
        "Iterable[tuple[str, int]]",
        Video.select(Video.subtitle_status, fn.COUNT(Video.id))
        .group_by(Video.subtitle_status)
        .tuples(),
    )
    daily = get_settings().video_api_daily_units
    spent = QuotaLedger(daily).spent_today()
    return IngestStatus(
        units_spent=spent,
        units_left=daily - spent,
        pause=platform_pause.state(),
        failures_24h={str(kind): int(count) for kind, count in failures},
        videos={str(status): int(count) for status, count in statuses},
    )


def channel_exists(channel_id: str) -> bool:
    return Channel.select().where(Channel.id == channel_id).exists()


def requeue(statuses: tuple[str, ...], channel_id: str | None = None) -> list[str]:
    """The videos in `statuses` (of one channel), made due afresh: their failures in a
    row forgotten, so the retry schedule starts again after the fetch the caller sends.
    Returns their ids."""
    wanted = Video.subtitle_status.in_([s for s in statuses if s in RETRYABLE])
    if channel_id:
        wanted &= Video.channel == channel_id
    with write_transaction():
        ids = [v.id for v in Video.select(Video.id).where(wanted).order_by(Video.id)]
        Video.update(fetch_attempts=0, next_fetch_at=None).where(wanted).execute()
    return ids
