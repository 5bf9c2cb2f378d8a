"""Ingestion from the video platform: importing channels and videos, fetching and
indexing subtitles with the spec's status transitions, retrying failed fetches, and the
24-hour refresh (which also notices removed channels and changed titles)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import TypedDict

from peewee import fn

from models import platform_pause
from models.clock import iso, now_iso, parse_iso, utcnow
from models.countries import usable_country
from models.db import write_transaction
from models.indexing import refresh_channel_fields, retitle_video, write_video
from models.metrics import SUBTITLE_FETCHES
from models.platform import (
    ChannelInfo,
    NotFoundOnPlatform,
    PlatformError,
    QuotaExceeded,
    VideoInfo,
    get_platform,
)
from models.platform.base import Subtitles, SubtitlesFailed
from models.redis_client import get_redis
from models.search import SearchError
from models.search.segments import build_segments
from models.subtitles import forget_track, store_track
from models.tables import HIDDEN_STATUSES, Channel, SubtitleTrack, Video

log = logging.getLogger(__name__)

REFRESH_INTERVAL_SECONDS = 24 * 3600
REFRESH_LOCK = "subsearch:channel-refresh:{channel_id}"
# Fetching may start from these; `deleted` is final.
FETCHABLE = ("pending", "completed", "failed", "unavailable")
# A failed fetch is tried again this long after the 1st, 2nd and 3rd failure in a row;
# after the 4th the video stays `failed` (docs/search.md, Failed fetches heal).
RETRY_DELAYS = (timedelta(hours=1), timedelta(hours=6), timedelta(hours=24))
# A fetch the platform wants a proof-of-origin token for is tried again this much later,
# without counting as a failure of the video.
PO_TOKEN_RETRY_SECONDS = 3600.0


class FetchLater(Exception):
    """The fetch did not happen or did not count: the platform refuses this service for
    now (or asks for a token). Fetch the video again after `seconds`; it is not failed."""

    def __init__(self, seconds: float, reason: str) -> None:
        super().__init__(f"fetch again in {seconds:.0f} s: {reason}")
        self.seconds = seconds
        self.reason = reason


@dataclass(frozen=True)
class ChannelImport:
    channel_id: str
    new_video_ids: list[str]


class _ChannelFields(TypedDict):
    title: str
    handle: str | None
    thumbnail_url: str | None
    video_count: int
    country: str | None
    subscriber_count: int | None


def _channel_fields(info: ChannelInfo) -> _ChannelFields:
    """The fields a refresh (and a repeated import) upserts; never id or created_at."""
    return {
        "title": info.title,
        "handle": info.handle,
        "thumbnail_url": info.thumbnail_url,
        "video_count": info.video_count,
        "country": usable_country(info.country),
        "subscriber_count": info.subscriber_count,
    }


def _import_videos(channel_id: str, video_ids: list[str]) -> list[str]:
    """Insert the videos we do not have yet as `pending`; returns the ids this call
    inserted (of two imports of one channel at once, each new video is one's alone, so
    its subtitles are fetched once)."""
    known = (
        {v.id for v in Video.select(Video.id).where(Video.id.in_(video_ids))}
        if video_ids
        else set()
    )
    wanted = [v for v in video_ids if v not in known]
    if not wanted:
        return []
    infos = get_platform().get_videos(wanted)
    found = [info for info in infos.values() if not info.deleted]
    rows = [
        {
            "id": info.id,
            "channel": channel_id,
            "title": info.title,
            "thumbnail_url": info.thumbnail_url,
            "duration_seconds": info.duration_seconds,
            "view_count": info.view_count,
            "like_count": info.like_count,
            "published_at": info.published_at,
            "category_id": info.category_id,
            "description": info.description,
            "subtitle_status": "pending",
        }
        for info in found
    ]
    if not rows:
        return []
    with write_transaction():
        inserted = Video.insert_many(rows).on_conflict_ignore().returning(Video.id).execute()
        new_ids = {row.id for row in inserted}
    return [info.id for info in found if info.id in new_ids]


def import_channel(id_or_handle: str) -> ChannelImport:
    """Import a channel and its videos (new videos `pending`)."""
    info = get_platform().get_channel(id_or_handle)
    fields = _channel_fields(info)
    with write_transaction():
        (
            Channel.insert(id=info.id, subtitle_status="pending", **fields)
            .on_conflict(
                conflict_target=[Channel.id],
                update={
                    **{getattr(Channel, k): v for k, v in fields.items()},
                    Channel.updated_at: now_iso(),
                },
            )
            .execute()
        )
    new_ids = _import_videos(info.id, info.video_ids)
    if new_ids:
        Channel.update(subtitle_status="processing").where(
            (Channel.id == info.id) & Channel.subtitle_status.in_(("pending", "completed"))
        ).execute()
    else:
        _complete_channel_if_done(info.id)
    return ChannelImport(info.id, new_ids)


def _complete_channel_if_done(channel_id: str) -> None:
    pending = Video.select().where(
        (Video.channel == channel_id) & (Video.subtitle_status == "pending")
    )
    Channel.update(subtitle_status="completed").where(
        (Channel.id == channel_id)
        & Channel.subtitle_status.in_(("pending", "processing"))
        & ~fn.EXISTS(pending)
    ).execute()


def mark_deleted(video: Video) -> bool:
    """The video is gone from the platform: `deleted`, then out of the index (written from
    the row, so a fetch racing it cannot bring its documents back). False when the index
    refused: a fetch has it written again through the queue, and the daily check removes
    whatever is left."""
    Video.update(subtitle_status="deleted", next_fetch_at=None, updated_at=now_iso()).where(
        Video.id == video.id
    ).execute()
    return _write_index(video.id)


def mark_channel_deleted(channel_id: str) -> int:
    """A channel removed from the platform: `deleted` (so no longer refreshed), its videos
    `deleted` and their documents out of the index. Returns how many videos went. The
    channel is marked first, so it leaves the refresh rounds at once; a rerun finishes
    what an interrupted one left."""
    Channel.update(subtitle_status="deleted").where(Channel.id == channel_id).execute()
    videos = list(
        Video.select().where((Video.channel == channel_id) & (Video.subtitle_status != "deleted"))
    )
    for video in videos:
        mark_deleted(video)
    if videos:
        log.info("channel %s is gone from the platform; %d videos deleted", channel_id, len(videos))
    return len(videos)


@dataclass(frozen=True)
class Indexed:
    status: str  # the video's new subtitle_status
    segments: int  # subtitle documents indexed
    # False when the database was written but the index refused (not set up, or down):
    # the caller has the index written again later (tasks: index_video).
    in_index: bool = True


@dataclass(frozen=True)
class Reindexed:
    videos: int
    segments: int
    stopped_by_quota: bool = False  # the platform's quota ran out before the end
    stopped_by_pause: bool = False  # the platform refused this service before the end


def fetch_subtitles(video_id: str) -> str | None:
    """Fetch a video's subtitles and index them; returns the new status.

    `completed` (with `subtitle_type`), `unavailable` (no subtitles), `failed` (the
    fetch failed: a retry is scheduled, see RETRY_DELAYS) or `deleted` (gone from the
    platform, documents removed). The title and description are indexed in every case
    but deletion. A quota error is raised for the queue to retry later.
    """
    indexed = index_subtitles(video_id)
    return indexed.status if indexed is not None else None


def videos_due_for_retry(now_text: str | None = None) -> list[tuple[str, int]]:
    """(video id, failed fetches so far) of every `failed` video whose retry is due."""
    due = Video.select(Video.id, Video.fetch_attempts).where(
        (Video.subtitle_status == "failed") & (Video.next_fetch_at <= (now_text or now_iso()))
    )
    return [(v.id, v.fetch_attempts) for v in due.order_by(Video.next_fetch_at, Video.id)]


def retry_subtitles(video_id: str, attempts: int) -> str | None:
    """Fetch a failed video again, if it is still `failed` after `attempts` failed
    fetches: a second message for the same retry finds the count moved on (or the video
    fetched) and does nothing. Returns the new status, None when nothing was done."""
    indexed = index_subtitles(video_id, retrying=attempts)
    return indexed.status if indexed is not None else None


def index_subtitles(video_id: str, *, retrying: int | None = None) -> Indexed | None:
    """`fetch_subtitles`, also saying how many segments were indexed; None for a video
    that is unknown or deleted (or, with `retrying`, no longer waiting for that retry).

    A title, thumbnail or category changed on the platform is applied to the video (the
    spec: "a re-index applies changes"), and a changed channel title to every document
    of the channel."""
    video = Video.get_or_none(Video.id == video_id)
    if video is None or video.subtitle_status not in FETCHABLE:
        return None
    if retrying is not None and (
        video.subtitle_status != "failed" or video.fetch_attempts != retrying
    ):
        return None
    wait = platform_pause.wait_before_fetching()
    if wait:
        SUBTITLE_FETCHES.labels(outcome="waited").inc()
        raise FetchLater(wait, "fetching is paused: the platform refused this service")
    channel = Channel.get_by_id(video.channel_id)
    platform = get_platform()
    try:
        info = platform.get_videos([video_id]).get(video_id)
    except NotFoundOnPlatform:
        info = None
    except QuotaExceeded:
        raise
    except PlatformError as error:
        log.warning("video %s: %s", video_id, error)
        return Indexed(_record_failure(video), 0)
    if info is None or info.deleted:
        return Indexed("deleted", 0, mark_deleted(video))
    video, channel = _apply_changes(video, channel, info)
    subtitles: Subtitles | None = None
    segments = 0
    try:
        subtitles = platform.get_subtitles(video_id)
    except NotFoundOnPlatform:
        platform_pause.answered()
        SUBTITLE_FETCHES.labels(outcome="video_unavailable").inc()
        _note_failure(video_id, "video_unavailable")
        return Indexed("deleted", 0, mark_deleted(video))
    except QuotaExceeded:
        raise
    except SubtitlesFailed as error:
        log.warning("subtitles of %s: %s", video_id, error)
        status = _failed(video, error)
    except PlatformError as error:  # an answer that could not be read
        log.warning("subtitles of %s: %s", video_id, error)
        platform_pause.answered()
        SUBTITLE_FETCHES.labels(outcome="broken").inc()
        _note_failure(video_id, "broken")
        status = _record_failure(video)
    else:
        platform_pause.answered()
        if subtitles is not None:
            segments = len(build_segments(subtitles.cues, auto=subtitles.type == "auto"))
        status = "completed" if subtitles is not None and segments else "unavailable"
        SUBTITLE_FETCHES.labels(outcome=status).inc()
        _store(video_id, subtitles if status == "completed" else None)
    in_index = _write_index(video_id)
    _complete_channel_if_done(video.channel_id)
    return Indexed(status, segments if status == "completed" else 0, in_index)


def _failed(video: Video, error: SubtitlesFailed) -> str:
    """The outcome of a failed fetch by how it failed (CONTRACT §12.2): the new status,
    or FetchLater when the failure is not the video's."""
    SUBTITLE_FETCHES.labels(outcome=error.kind).inc()
    _note_failure(video.id, error.kind)
    if error.host_level:
        raise FetchLater(platform_pause.pause(error.kind), error.kind) from error
    platform_pause.answered()  # the platform answered about the video itself
    if error.kind == "po_token_required":
        raise FetchLater(PO_TOKEN_RETRY_SECONDS, error.kind) from error
    if error.kind == "age_restricted":
        _store(video.id, None)
        return "unavailable"
    if error.kind == "transcripts_disabled" and (
        video.subtitle_status == "failed" and video.last_failure_kind == "transcripts_disabled"
    ):
        # A second fetch agrees with the first: a blocked address has been seen to show
        # up as this, never twice in a row once the block is over.
        _store(video.id, None)
        return "unavailable"
    return _record_failure(video)


def _note_failure(video_id: str, kind: str) -> None:
    """How the video's last fetch failed, and when; its status is not touched here."""
    Video.update(last_failure_kind=kind, last_failure_at=now_iso()).where(
        Video.id == video_id
    ).execute()


def _store(video_id: str, subtitles: Subtitles | None) -> None:
    """The fetched track (None: there is none, or only blank cues) and the status it
    gives, in one transaction: a `completed` video always has its cues."""
    with write_transaction():
        if subtitles is not None:
            store_track(video_id, subtitles)
        else:
            forget_track(video_id)
        Video.update(
            subtitle_status="completed" if subtitles is not None else "unavailable",
            subtitle_type=subtitles.type if subtitles is not None else None,
            fetch_attempts=0,
            next_fetch_at=None,
            updated_at=now_iso(),
        ).where((Video.id == video_id) & (Video.subtitle_status != "deleted")).execute()


def _write_index(video_id: str) -> bool:
    """The video's documents as the database now gives them; False when the index
    refused (the caller retries through the queue)."""
    try:
        write_video(video_id)
    except SearchError as error:
        log.warning("index write of %s failed, to be retried: %s", video_id, error)
        return False
    return True


def _record_failure(video: Video) -> str:
    """Count a failed fetch and schedule the next one (none after the last delay).

    One conditional statement on the count this fetch started from: two fetches of the
    same video failing at once count once."""
    attempts = video.fetch_attempts + 1
    retry_at = iso(utcnow() + RETRY_DELAYS[attempts - 1]) if attempts <= len(RETRY_DELAYS) else None
    Video.update(
        subtitle_status="failed",
        subtitle_type=None,
        fetch_attempts=attempts,
        next_fetch_at=retry_at,
        updated_at=now_iso(),
    ).where(
        (Video.id == video.id)
        & (Video.subtitle_status != "deleted")
        & (Video.fetch_attempts == video.fetch_attempts)
    ).execute()
    if retry_at is None:
        log.warning("subtitles of %s failed %d times; no more retries", video.id, attempts)
    _complete_channel_if_done(video.channel_id)
    return "failed"


def _apply_changes(video: Video, channel: Channel, info: VideoInfo) -> tuple[Video, Channel]:
    """The video's row (and the channel's title) as the platform has them now; a changed
    channel title goes to all the channel's documents at once."""
    changed = {
        field: value
        for field, value in (
            ("title", info.title),
            ("thumbnail_url", info.thumbnail_url),
            ("category_id", info.category_id),
            ("description", info.description),
        )
        if getattr(video, field) != value and (field != "title" or value)
    }
    if changed:
        Video.update(**changed, updated_at=now_iso()).where(Video.id == video.id).execute()
        video = Video.get_by_id(video.id)
    if info.channel_title and info.channel_title != channel.title:
        rename_channel(channel.id, info.channel_title)
        channel = Channel.get_by_id(channel.id)
    return video, channel


def rename_channel(channel_id: str, title: str) -> None:
    """A new channel title on the row and on every document of the channel."""
    Channel.update(title=title).where(Channel.id == channel_id).execute()
    refresh_channel_fields(channel_id)


def rename_video(video_id: str, title: str) -> None:
    """A new video title on the row and on every document of the video."""
    Video.update(title=title, updated_at=now_iso()).where(Video.id == video_id).execute()
    retitle_video(video_id)


@dataclass(frozen=True)
class RefreshResult:
    refreshed: bool
    new_video_ids: list[str]
    reason: str = ""


def refresh_channel(channel_id: str) -> RefreshResult:
    """The 24-hour differential refresh (spec, channels refresh rules).

    A Redis lock of 24 hours keeps a channel from being refreshed twice in a day; on
    a quota failure it is released and `updated_at` kept, so the next round retries.
    A channel the platform no longer has becomes `deleted` with its videos (and is no
    longer due); a changed channel or video title reaches every document it is on.
    """
    channel = Channel.get_or_none(Channel.id == channel_id)
    if channel is None:
        return RefreshResult(False, [], "unknown channel")
    if channel.subtitle_status == "deleted":
        mark_channel_deleted(channel_id)  # finishes what an interrupted run left, if any
        return RefreshResult(False, [], "deleted from the platform")
    lock = REFRESH_LOCK.format(channel_id=channel_id)
    redis = get_redis()
    if not redis.set(lock, now_iso(), nx=True, ex=REFRESH_INTERVAL_SECONDS):
        return RefreshResult(False, [], "refreshed within 24 hours")
    try:
        info = get_platform().get_channel(channel_id)
        gone, renamed = _video_changes(channel_id, set(info.video_ids))
        new_ids = _import_videos(channel_id, info.video_ids)
    except NotFoundOnPlatform:
        mark_channel_deleted(channel_id)
        return RefreshResult(False, [], "deleted from the platform")
    except QuotaExceeded:
        redis.delete(lock)
        log.warning("refresh of %s hit the platform quota; will retry", channel_id)
        return RefreshResult(False, [], "quota exceeded")
    except Exception:
        redis.delete(lock)
        raise
    fields = _channel_fields(info)
    with write_transaction():
        Channel.update(**fields, updated_at=now_iso()).where(Channel.id == channel_id).execute()
    for video in gone:
        mark_deleted(video)
    for video_id, title in renamed.items():
        rename_video(video_id, title)
    if (fields["subscriber_count"], fields["title"]) != (channel.subscriber_count, channel.title):
        refresh_channel_fields(channel_id)
    return RefreshResult(True, new_ids)


def _video_changes(channel_id: str, listed: set[str]) -> tuple[list[Video], dict[str, str]]:
    """The channel's known videos that are gone (missing from its list and reported
    deleted), and the new titles of those renamed on the platform. One look-up of every
    live video: on YouTube one quota unit per 50, as listing them cost."""
    known = list(
        Video.select().where((Video.channel == channel_id) & (Video.subtitle_status != "deleted"))
    )
    if not known:
        return [], {}
    infos = get_platform().get_videos([v.id for v in known])
    gone, renamed = [], {}
    for video in known:
        info = infos.get(video.id)
        if info is None or info.deleted:
            if video.id not in listed:
                gone.append(video)
        elif info.title and info.title != video.title:
            renamed[video.id] = info.title
    return gone, renamed


def due_channels(now_text: str | None = None) -> list[str]:
    """Channels whose last successful refresh is 24 hours old or more."""
    cutoff = iso(parse_iso(now_text or now_iso()) - timedelta(seconds=REFRESH_INTERVAL_SECONDS))
    return [
        c.id
        for c in Channel.select(Channel.id).where(
            (Channel.updated_at <= cutoff) & Channel.subtitle_status.not_in(HIDDEN_STATUSES)
        )
    ]


def videos_to_reindex(channel_id: str | None = None) -> list[str]:
    query = Video.select(Video.id).where(Video.subtitle_status != "deleted")
    if channel_id:
        query = query.where(Video.channel == channel_id)
    return [v.id for v in query.order_by(Video.id)]


def refetch_all(channel_id: str | None = None) -> Reindexed:
    """Fetch every live video's subtitles (of one channel) from the platform again, in
    this process (`search reindex --refetch --now`). Stops at the platform's quota, saying
    how far it got; a rerun is harmless, it replaces the same documents."""
    return _fetch_each(videos_to_reindex(channel_id), "refetch")


def videos_without_track(limit: int) -> list[str]:
    """Videos fetched before tracks were kept (issue 25): `completed` without a stored
    track, or with no description kept; the oldest fetched first."""
    stored = SubtitleTrack.select(SubtitleTrack.video).where(SubtitleTrack.video == Video.id)
    missing = Video.select(Video.id).where(
        (Video.subtitle_status == "completed") & ~fn.EXISTS(stored)
        | (Video.subtitle_status.in_(("completed", "unavailable")) & Video.description.is_null())
    )
    return [v.id for v in missing.order_by(Video.updated_at, Video.id).limit(limit)]


def backfill_tracks(limit: int) -> Reindexed:
    """Fetch once more up to `limit` videos fetched before tracks were kept, stopping at
    the platform's quota. Resumable: what is done has its track and is not chosen again."""
    return _fetch_each(videos_without_track(limit), "track backfill")


def _fetch_each(video_ids: list[str], what: str) -> Reindexed:
    """index_subtitles for each video in turn, stopping at the platform's quota."""
    videos = segments = 0
    for video_id in video_ids:
        try:
            indexed = index_subtitles(video_id)
        except QuotaExceeded:
            log.warning("%s stopped by the platform quota after %d videos", what, videos)
            return Reindexed(videos, segments, stopped_by_quota=True)
        except FetchLater as later:
            log.warning("%s stopped after %d videos: %s", what, videos, later)
            return Reindexed(videos, segments, stopped_by_pause=True)
        if indexed is not None:
            videos += 1
            segments += indexed.segments
    return Reindexed(videos, segments)
