"""Channel import and refresh, subtitle fetching and the retries of failed fetches, from
the video platform."""

from __future__ import annotations

import logging
import random

from dramatiq.rate_limits import WindowRateLimiter
from dramatiq.rate_limits.backends import RedisBackend

from models import ingest
from models.platform import NotFoundOnPlatform
from models.redis_client import get_redis
from models.settings import get_settings
from tasks.search import embed_later, index_videos
from workers.actors import actor

log = logging.getLogger(__name__)

# The platform's quota resets daily: back off up to an hour, for about a day.
QUOTA_RETRIES = 30
QUOTA_MAX_BACKOFF_MS = 60 * 60_000


@actor(queue_name="channels", max_retries=QUOTA_RETRIES, max_backoff=QUOTA_MAX_BACKOFF_MS)
def import_channel(id_or_handle: str) -> None:
    """Import a channel and its videos, then fetch each new video's subtitles. A rerun
    upserts the same channel and finds no new videos."""
    try:
        result = ingest.import_channel(id_or_handle)
    except NotFoundOnPlatform:
        log.warning("no channel %s on the platform", id_or_handle)
        return
    for video_id in result.new_video_ids:
        fetch_video_subtitles.send(video_id)
    log.info("imported %s with %d new videos", result.channel_id, len(result.new_video_ids))


@actor(queue_name="subtitles", max_retries=QUOTA_RETRIES, max_backoff=QUOTA_MAX_BACKOFF_MS)
def fetch_video_subtitles(video_id: str) -> None:
    """Fetch and store one video's subtitles and index them. A rerun stores and indexes
    the same ones; an index that refused gets the write again through index_videos (from
    the stored cues, not the platform)."""
    try:
        _take_a_fetch_slot()
        indexed = ingest.index_subtitles(video_id)
    except ingest.FetchLater as later:
        fetch_video_subtitles.send_with_options(args=(video_id,), delay=_delay_ms(later))
        log.info("subtitles of %s: later, %s", video_id, later)
        return
    _index_later(video_id, indexed)
    log.info("subtitles of %s: %s", video_id, indexed.status if indexed else None)


@actor(queue_name="subtitles", max_retries=QUOTA_RETRIES, max_backoff=QUOTA_MAX_BACKOFF_MS)
def retry_video_subtitles(video_id: str, attempts: int) -> None:
    """Fetch a failed video again (retried like a fetch, for the quota). It acts only while
    the video is still `failed` after `attempts` failures, so a second message for the
    same retry does nothing."""
    try:
        _take_a_fetch_slot()
        indexed = ingest.index_subtitles(video_id, retrying=attempts)
    except ingest.FetchLater as later:
        retry_video_subtitles.send_with_options(args=(video_id, attempts), delay=_delay_ms(later))
        log.info("retry %d of %s: later, %s", attempts, video_id, later)
        return
    _index_later(video_id, indexed)
    status = indexed.status if indexed else "not needed any more"
    log.info("retry %d of %s: %s", attempts, video_id, status)


# The sliding window of SUBTITLE_FETCHES_PER_MINUTE, shared by every worker process.
FETCH_WINDOW_SECONDS = 60
FETCH_RATE_KEY = "subsearch:subtitle-fetches"


def _take_a_fetch_slot() -> None:
    """One of the minute's transcript fetches, or FetchLater when every one is taken
    (Dramatiq's window rate limiter on Redis, across all the workers). Only the real
    platform's fetches count: the fixture platform is files on this machine, with no
    address to be blocked, and the sample loads at once."""
    if get_settings().video_api_backend != "youtube":
        return
    limiter = WindowRateLimiter(
        RedisBackend(client=get_redis()),
        FETCH_RATE_KEY,
        limit=get_settings().subtitle_fetches_per_minute,
        window=FETCH_WINDOW_SECONDS,
    )
    with limiter.acquire(raise_on_failure=False) as acquired:
        if not acquired:
            # Anywhere in the next window: those held back do not come back together.
            wait = random.uniform(1, FETCH_WINDOW_SECONDS)
            raise ingest.FetchLater(wait, "SUBTITLE_FETCHES_PER_MINUTE reached")


def _delay_ms(later: ingest.FetchLater) -> int:
    """The wait, spread by up to a tenth (a minute at most): the fetches a pause held back
    do not all reach the platform in the same second when it ends."""
    spread = min(later.seconds / 10, 60.0)
    return int((later.seconds + random.uniform(0, spread)) * 1000)


def _index_later(video_id: str, indexed: ingest.Indexed | None) -> None:
    """A write the index refused goes through index_videos (which has the video embedded
    after); a video in the index now is embedded on its own queue."""
    if indexed is not None and not indexed.in_index:
        index_videos.send([video_id])
    elif indexed is not None:
        embed_later([video_id])


@actor(queue_name="channels", max_retries=3)
def retry_failed_subtitles() -> None:
    """Enqueue the retry of every failed fetch that is due; a second run sends the same
    retries again, which find them done."""
    for video_id, attempts in ingest.videos_due_for_retry():
        retry_video_subtitles.send(video_id, attempts)


@actor(queue_name="channels", max_retries=3)
def refresh_channel(channel_id: str) -> None:
    """The 24-hour refresh of one channel; the lock makes a second run within a day a
    no-op, and a quota failure releases it for the next round. A channel gone from the
    platform becomes `deleted` (a rerun finds it so and stops)."""
    result = ingest.refresh_channel(channel_id)
    for video_id in result.new_video_ids:
        fetch_video_subtitles.send(video_id)
    log.info("refresh of %s: %s", channel_id, "done" if result.refreshed else result.reason)


@actor(queue_name="channels", max_retries=3)
def refresh_due_channels() -> None:
    """Enqueue the refresh of every channel due (last refreshed 24 hours ago or more)."""
    for channel_id in ingest.due_channels():
        refresh_channel.send(channel_id)
