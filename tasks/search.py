"""The search index: writes the database asked for and could not make at once, rebuilds,
the backfill of tracks fetched before they were kept, and the daily check of the index
against the database."""

from __future__ import annotations

import logging

from models import index_check, indexing, ingest
from workers.actors import actor

log = logging.getLogger(__name__)

# An index that refuses (not set up yet, or down) is tried again for about a day.
INDEX_RETRIES = 30
INDEX_MAX_BACKOFF_MS = 60 * 60_000
# Videos fetched again per round of the backfill (each costs a little platform quota).
BACKFILL_PER_ROUND = 200


@actor(queue_name="index", max_retries=INDEX_RETRIES, max_backoff=INDEX_MAX_BACKOFF_MS)
def index_videos(video_ids: list[str]) -> None:
    """Write these videos' documents as the database gives them now, from stored cues.
    Retried while the index refuses; a second run writes the same documents."""
    documents = indexing.write_videos(video_ids)
    log.info("indexed %d video(s), %d document(s)", len(video_ids), documents)


@actor(queue_name="channels", max_retries=3)
def backfill_subtitle_tracks() -> None:
    """Fetch once more the videos fetched before tracks were kept, a round at a time,
    stopping at the platform's quota; a rerun picks up what is still missing."""
    done = ingest.backfill_tracks(BACKFILL_PER_ROUND)
    if done.videos or done.stopped_by_quota:
        log.info(
            "track backfill: %d video(s)%s",
            done.videos,
            ", stopped by the quota" if done.stopped_by_quota else "",
        )


@actor(queue_name="maintenance", max_retries=3, time_limit=6 * 3600 * 1000)
def verify_search_index() -> None:
    """Compare the index with the database, repair what differs and record the result;
    a rerun finds nothing left to repair."""
    result = index_check.verify(repair=True)
    log.info(
        "search index check: %d missing, %d extra, %d stale of %d video(s)",
        result.missing_count,
        result.extra_count,
        result.stale_count,
        result.videos,
    )
