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
# Videos embedded per message: a minute or two of the model's time on two cores. They
# have a queue (and a worker, Procfile `embedder`) of their own.
EMBED_BATCH = 20
EMBED_QUEUE = "embed"


def embed_later(video_ids: list[str]) -> None:
    """Have these videos embedded on the `embed` queue, EMBED_BATCH a message."""
    for first in range(0, len(video_ids), EMBED_BATCH):
        embed_videos.send(video_ids[first : first + EMBED_BATCH])


@actor(queue_name="index", max_retries=INDEX_RETRIES, max_backoff=INDEX_MAX_BACKOFF_MS)
def index_videos(video_ids: list[str]) -> None:
    """Write these videos' documents as the database gives them now, from stored cues.
    Retried while the index refuses; a second run writes the same documents."""
    written = indexing.write_videos(video_ids)
    log.info("indexed %d video(s), %d document(s)", len(video_ids), written.documents)
    embed_later(written.unembedded)


@actor(
    queue_name=EMBED_QUEUE,
    max_retries=INDEX_RETRIES,
    max_backoff=INDEX_MAX_BACKOFF_MS,
    time_limit=30 * 60_000,
)
def embed_videos(video_ids: list[str]) -> None:
    """Embed these videos' passages that have no vector yet (on their own queue, so
    keyword search never waits for the model), store them and write the videos to the
    index with them. A rerun finds them embedded and does nothing."""
    done = indexing.embed_videos(video_ids)
    if done.new:
        log.info("embedded %d passage(s) of %d video(s)", done.new, done.videos)


@actor(queue_name="channels", max_retries=3)
def backfill_subtitle_tracks() -> None:
    """Fetch once more the videos fetched before tracks were kept, a round at a time,
    stopping at the platform's quota; a rerun picks up what is still missing."""
    done = ingest.backfill_tracks(BACKFILL_PER_ROUND)
    if done.videos or done.stopped_by_quota or done.stopped_by_pause:
        log.info(
            "track backfill: %d video(s)%s%s",
            done.videos,
            ", stopped by the quota" if done.stopped_by_quota else "",
            ", stopped while fetching is paused" if done.stopped_by_pause else "",
        )


@actor(queue_name="maintenance", max_retries=3, time_limit=3600 * 1000)
def compact_search_vectors() -> None:
    """Fold the vectors written since the last snapshot of the nearest-neighbour index
    into a new one, once there are enough of them, and merge the full-text index's
    segments that writes left (the embedded engine; Meilisearch keeps its own). A rerun
    finds too few vectors and nothing to merge, and does nothing."""
    held = indexing.compact_vectors()
    if held:
        log.info("nearest-neighbour snapshot of %d vector(s) written", held)
    merged = indexing.merge_full_text()
    if merged:
        log.info("full-text index: %d merge step(s)", merged)


@actor(queue_name="maintenance", max_retries=3, time_limit=6 * 3600 * 1000)
def verify_search_index() -> None:
    """Compare the index with the database, repair what differs and record the result;
    a rerun finds nothing left to repair."""
    result = index_check.verify(repair=True)
    log.info(
        "search index check: %d missing, %d extra, %d stale, %d without vectors of %d video(s)",
        result.missing_count,
        result.extra_count,
        result.stale_count,
        len(result.unembedded),
        result.videos,
    )
    embed_later(result.unembedded)
