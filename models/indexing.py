"""The search index written from the database (issue 25): a video's documents are built
from its row, its channel's and its stored subtitle track, inside the index's write lock
(`engine.writing()`), so whichever writer comes last writes what the database says last.
Ingestion, renames, deletions, the reindex and `search verify --repair` all write
through here."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from peewee import Select

from models import alert_matching, vectors
from models.search import Document, SearchEngine, get_embedder, get_engine, video_documents
from models.search.segments import build_segments
from models.subtitles import to_subtitles
from models.tables import Channel, SubtitleTrack, Video

log = logging.getLogger(__name__)

# A video has search documents in these states: its title and description always, its
# subtitles when `completed`. A `pending` video is not fetched yet; `deleted` is gone.
INDEXED_STATUSES = ("completed", "unavailable", "failed")
# Videos read and written per transaction of a reindex or a repair.
BATCH = 200


def is_indexed(video: Video) -> bool:
    return video.subtitle_status in INDEXED_STATUSES


def documents_for(video: Video, channel: Channel, track: SubtitleTrack | None) -> list[Document]:
    """The documents the database gives for a video in INDEXED_STATUSES."""
    segments = []
    kind = None
    if video.subtitle_status == "completed" and track is not None:
        subtitles = to_subtitles(track)
        segments = build_segments(subtitles.cues, auto=subtitles.type == "auto")
        kind = (subtitles.type, subtitles.language)
    return video_documents(video, channel, video.description or "", segments, kind)


def expected_documents(video_ids: Iterable[str]) -> dict[str, list[Document]]:
    """For each id: the documents the database gives now, each with its stored vector
    when its passage has one (models/vectors.py), [] for a video that should have none
    (pending, deleted, unknown)."""
    wanted = list(dict.fromkeys(video_ids))
    found: dict[str, list[Document]] = {video_id: [] for video_id in wanted}
    for first in range(0, len(wanted), BATCH):
        chunk = wanted[first : first + BATCH]
        videos = list(
            Video.select(Video, Channel)
            .join(Channel)
            .where(Video.id.in_(chunk) & Video.subtitle_status.in_(INDEXED_STATUSES))
        )
        tracks = {
            t.video_id: t
            for t in SubtitleTrack.select().where(
                SubtitleTrack.video.in_([v.id for v in videos if v.subtitle_status == "completed"])
            )
        }
        for video in videos:
            found[video.id] = documents_for(video, video.channel, tracks.get(video.id))
    return vectors.attach(found, get_embedder())


@dataclass(frozen=True)
class Written:
    documents: int
    # Videos written with some documents still without a vector: tasks/search.py has
    # them embedded on their own queue.
    unembedded: list[str] = field(default_factory=list)


def write_videos(video_ids: Iterable[str], engine: SearchEngine | None = None) -> Written:
    """Make the index hold what the database gives for these videos (none for a video
    that should have none), reading the database inside the index's write lock; how many
    documents were written, and which videos wait for vectors."""
    engine = engine or get_engine()
    written = 0
    unembedded: list[str] = []
    ids = list(dict.fromkeys(video_ids))
    for first in range(0, len(ids), BATCH):
        with engine.writing():
            replaced = expected_documents(ids[first : first + BATCH])
            engine.replace_videos(replaced)
        # First reaching the index makes a video news to the alerts made before it.
        alert_matching.note_indexed([video_id for video_id, docs in replaced.items() if docs])
        written += sum(len(documents) for documents in replaced.values())
        unembedded += vectors.unembedded(replaced, get_embedder())
    return Written(written, unembedded)


def write_video(video_id: str) -> Written:
    return write_videos([video_id])


def embed_videos(video_ids: Iterable[str], engine: SearchEngine | None = None) -> vectors.Embedded:
    """Embed what these videos' documents still lack, store the vectors, and write the
    videos to the index with them (from the database, inside the write lock, as any
    write). A rerun finds nothing to embed and writes nothing."""
    embedder = get_embedder()
    ids = list(dict.fromkeys(video_ids))
    if not embedder.loaded or not ids:
        return vectors.Embedded(0, 0, 0)
    expected = expected_documents(ids)
    waiting = {video_id: expected[video_id] for video_id in vectors.unembedded(expected, embedder)}
    done = vectors.embed(waiting, embedder)
    if waiting:
        write_videos(list(waiting), engine)
    return done


def retitle_video(video_id: str) -> int:
    """Put the video's current title (from the database) on its documents."""
    engine = get_engine()
    with engine.writing():
        video = Video.get_or_none(Video.id == video_id)
        if video is None:
            return 0
        return engine.update_video_documents(
            video_id, {"video_title": video.title, "title": video.title}
        )


def refresh_channel_fields(channel_id: str) -> int:
    """Put the channel's current title and subscriber count (from the database) on every
    document of its videos."""
    engine = get_engine()
    with engine.writing():
        channel = Channel.get_or_none(Channel.id == channel_id)
        if channel is None:
            return 0
        return engine.update_channel_documents(
            channel_id,
            {"channel_title": channel.title, "subscriber_count": channel.subscriber_count},
        )


@dataclass(frozen=True)
class Rebuilt:
    videos: int
    documents: int
    seconds: float
    unembedded: list[str] = field(default_factory=list)  # videos waiting for vectors

    @property
    def videos_per_second(self) -> float:
        return self.videos / self.seconds if self.seconds > 0 else float(self.videos)


def _indexed_query(channel_id: str | None = None) -> Select:
    query = Video.select(Video.id).where(Video.subtitle_status.in_(INDEXED_STATUSES))
    return query.where(Video.channel == channel_id) if channel_id else query


def indexed_video_ids(channel_id: str | None = None) -> list[str]:
    """Every video that should have documents (of one channel), in id order; read whole,
    so the caller's writes never run under an open read."""
    return [video.id for video in _indexed_query(channel_id).order_by(Video.id)]


def has_indexed_videos() -> bool:
    return bool(_indexed_query().exists())


def rebuild(channel_id: str | None = None) -> Rebuilt:
    """Rebuild every searchable video's documents (of one channel) from the database and
    its stored cues, without the platform; a video the index holds that should have none
    goes. A rerun writes the same documents."""
    engine = get_engine()
    started = time.monotonic()
    ids = indexed_video_ids(channel_id)
    written = write_videos(ids, engine)
    if channel_id is None:
        wanted = set(ids)
        extra = [v.video_id for v in engine.inventory() if v.video_id not in wanted]
        write_videos(extra, engine)
    merge = getattr(engine, "merge_full_text", None)
    while merge is not None and merge():
        pass  # a rebuilt index is searched at once: merged whole, not ten minutes a step
    return Rebuilt(len(ids), written.documents, time.monotonic() - started, written.unembedded)


def merge_full_text(steps: int = 50) -> int:
    """Have the engine merge its full-text index's segments, where it keeps them (the
    embedded engine); how many merge steps did work (0: merged already)."""
    merge = getattr(get_engine(), "merge_full_text", None)
    return int(merge(steps)) if merge is not None else 0


def compact_vectors(*, force: bool = False) -> int:
    """Have the engine fold new vectors into its nearest-neighbour snapshot, where it
    keeps one (the embedded engine); how many vectors the new snapshot holds (0: none
    was written)."""
    compact = getattr(get_engine(), "compact_vectors", None)
    return int(compact(force=force)) if compact is not None else 0
