"""`subsearch search verify`: the index compared with the database (issue 25).

Every video the database holds as searchable must be in the index with the documents its
stored cues give (their count and fingerprint) and its current title, channel title and
subscriber count; the index must hold no other video. Each check is recorded
(`index_checks`) for the admin queue page and the metrics; `--repair` rewrites exactly
the videos found wrong, from the database.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from models import indexing, vectors
from models.clock import now_iso
from models.search import Document, IndexedVideo, SearchEngine, get_embedder, get_engine
from models.tables import IndexCheck

# Video ids of each kind kept with a check, for a person to look at.
EXAMPLES = 10


@dataclass(frozen=True)
class CheckResult:
    engine: str
    videos: int  # videos the database holds as searchable
    missing: list[str] = field(default_factory=list)  # searchable, not in the index
    extra: list[str] = field(default_factory=list)  # in the index, not searchable
    stale: list[str] = field(default_factory=list)  # in the index with other documents
    repaired: bool = False
    # Searchable videos some of whose documents have no vector of the current model yet
    # (new, or a change of model): the daily check has them embedded.
    unembedded: list[str] = field(default_factory=list)

    @property
    def missing_count(self) -> int:
        return len(self.missing)

    @property
    def extra_count(self) -> int:
        return len(self.extra)

    @property
    def stale_count(self) -> int:
        return len(self.stale)

    @property
    def wrong(self) -> list[str]:
        return [*self.missing, *self.extra, *self.stale]


def holds(indexed: IndexedVideo, documents: list[Document]) -> bool:
    """Whether the index holds the video as `documents` (its expected documents, the video
    document first) say."""
    meta = documents[0]
    return (
        indexed.documents == len(documents)
        and indexed.fingerprint == meta.fingerprint
        and indexed.video_title == meta.video_title
        and indexed.channel_title == meta.channel_title
        and indexed.subscriber_count == meta.subscriber_count
        and (
            indexed.vectors is None
            or indexed.vectors == sum(doc.vector is not None for doc in documents)
        )
    )


def compare(engine: SearchEngine) -> CheckResult:
    """What differs between the index and the database, without changing either."""
    held = {video.video_id: video for video in engine.inventory()}
    missing: list[str] = []
    stale: list[str] = []
    unembedded: list[str] = []
    embedder = get_embedder()
    videos = 0
    ids = indexing.indexed_video_ids()
    for first in range(0, len(ids), indexing.BATCH):
        expected = indexing.expected_documents(ids[first : first + indexing.BATCH])
        unembedded += vectors.unembedded(expected, embedder)
        for video_id, documents in expected.items():
            if not documents:  # no longer searchable since the ids were read
                continue
            videos += 1
            indexed = held.pop(video_id, None)
            if indexed is None:
                missing.append(video_id)
            elif not holds(indexed, documents):
                stale.append(video_id)
    return CheckResult(engine.name, videos, missing, sorted(held), stale, unembedded=unembedded)


def verify(*, repair: bool = False, engine: SearchEngine | None = None) -> CheckResult:
    """Compare, rewrite what differs when `repair`, and record the check."""
    engine = engine or get_engine()
    started = now_iso()
    result = compare(engine)
    if repair and result.wrong:
        indexing.write_videos(result.wrong, engine)
        result = replace(result, repaired=True)
    prune = getattr(engine, "prune_orphans", None)
    if repair and prune is not None:
        prune()  # documents whose video row was deleted by hand (embedded engine)
    record(result, started)
    return result


def record(result: CheckResult, started: str) -> None:
    IndexCheck.create(
        engine=result.engine,
        started_at=started,
        finished_at=now_iso(),
        videos=result.videos,
        missing=result.missing_count,
        extra=result.extra_count,
        stale=result.stale_count,
        repaired=result.repaired,
        examples=json.dumps(
            {
                "missing": result.missing[:EXAMPLES],
                "extra": result.extra[:EXAMPLES],
                "stale": result.stale[:EXAMPLES],
            }
        ),
    )


def last_check() -> IndexCheck | None:
    found: IndexCheck | None = IndexCheck.select().order_by(IndexCheck.id.desc()).first()
    return found
