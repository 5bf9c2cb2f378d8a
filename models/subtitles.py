"""Stored subtitle tracks: the cues each fetch brought, kept in the database as the source
of truth (issue 25). The search documents are cut from them (search/segments.py) and the
transcript shows them cue by cue, so neither needs the platform again."""

from __future__ import annotations

import json
import zlib
from bisect import bisect_left, bisect_right
from typing import Any

from models.clock import now_iso
from models.platform.base import Cue, Subtitles
from models.search import get_engine
from models.search.base import Hit, Segment, VideoHit
from models.search.segments import clean_rolling_repeats
from models.search.snippets import Snippet, cue_snippet
from models.tables import SubtitleTrack

# zlib's default level: within a few percent of the best for short JSON, several times
# quicker to write.
LEVEL = 6


def pack(cues: list[Cue]) -> bytes:
    """Cues as zlib-compressed JSON: `[[start, end, text], ...]`."""
    rows = [[cue.start, cue.end, cue.text] for cue in cues]
    return zlib.compress(json.dumps(rows, ensure_ascii=False).encode(), LEVEL)


def unpack(blob: bytes | memoryview) -> list[Cue]:
    rows = json.loads(zlib.decompress(bytes(blob)))
    return [Cue(start=float(start), end=float(end), text=str(text)) for start, end, text in rows]


def store_track(video_id: str, subtitles: Subtitles) -> None:
    """Keep the video's track (the one fetched last replaces any before), in the caller's
    transaction: the one that marks the video `completed`."""
    fields = {
        SubtitleTrack.language: subtitles.language,
        SubtitleTrack.type: subtitles.type,
        SubtitleTrack.cues: pack(subtitles.cues),
        SubtitleTrack.cue_count: len(subtitles.cues),
        SubtitleTrack.fetched_at: now_iso(),
    }
    SubtitleTrack.insert({SubtitleTrack.video: video_id, **fields}).on_conflict(
        conflict_target=[SubtitleTrack.video],
        update={**fields, SubtitleTrack.updated_at: now_iso()},
    ).execute()


def forget_track(video_id: str) -> None:
    """The platform has no subtitles for the video any more."""
    SubtitleTrack.delete().where(SubtitleTrack.video == video_id).execute()


def load_track(video_id: str) -> Subtitles | None:
    row = SubtitleTrack.get_or_none(SubtitleTrack.video == video_id)
    return to_subtitles(row) if row is not None else None


def to_subtitles(row: SubtitleTrack) -> Subtitles:
    return Subtitles(type=row.type, language=row.language, cues=unpack(row.cues))


def transcript_cues(subtitles: Subtitles) -> list[Segment]:
    """The track as a reader follows it: each cue with its own time and text, blank ones
    left out, the lines automatic captions roll up again shown once."""
    cues = sorted((c for c in subtitles.cues if c.text.strip()), key=lambda c: c.start)
    if subtitles.type == "auto":
        cues = clean_rolling_repeats(cues)
    return [Segment(start=c.start, end=c.end, text=c.text.replace("\n", " ").strip()) for c in cues]


# Cues read before a moment's first one when it is cut back into cues: automatic
# captions are cleaned against the cue before (clean_rolling_repeats), and a cleaned
# cue may start where the one before it ended.
CONTEXT_CUES = 3


class StoredCues:
    """A stored track decoded only as far as JSON (`[[start, end, text], ...]`, sorted by
    start), so a page of results can take each moment's few cues without building the
    whole transcript of every video on it."""

    def __init__(self, row: SubtitleTrack):
        self.type = row.type
        self.language = row.language
        rows = json.loads(zlib.decompress(bytes(row.cues)))
        self.rows: list[list[Any]] = sorted(rows, key=lambda r: float(r[0]))
        self.starts = [float(r[0]) for r in self.rows]

    def around(self, start: float, end: float) -> list[Segment]:
        """The transcript's cues from `start` to `end` seconds, as transcript_cues reads
        them, with the context they are cleaned against left out again."""
        first = max(0, bisect_left(self.starts, start - 0.01) - CONTEXT_CUES)
        last = bisect_right(self.starts, end)
        cues = [
            Cue(start=float(a), end=float(b), text=str(text))
            for a, b, text in self.rows[first : last + 1]
        ]
        window = transcript_cues(Subtitles(self.type, self.language, cues))
        return [cue for cue in window if cue.start >= start - 0.01 and cue.start <= end]


def stored_cues(video_ids: list[str]) -> dict[str, StoredCues]:
    """The stored tracks of several videos at once (a page of results), by video id."""
    if not video_ids:
        return {}
    rows = SubtitleTrack.select().where(SubtitleTrack.video.in_(video_ids))
    return {row.video_id: StoredCues(row) for row in rows}


def moment_snippets(videos: list[VideoHit]) -> dict[str, list[Snippet]]:
    """Each result's moments cut back into their cues (search/snippets.py), by video id:
    one read of the page's tracks, and of each track only the moments' cues."""
    tracks = stored_cues([video.video_id for video in videos if video.moments])
    snippets = {}
    for video in videos:
        track = tracks.get(video.video_id)
        snippets[video.video_id] = [
            cue_snippet(hit, _cues_of(track, hit.start, hit.end)) for hit in video.moments
        ]
    return snippets


def hit_snippets(video_id: str, hits: list[Hit]) -> list[Snippet]:
    """One video's moments (a page of its moments for a search) cut back into their cues,
    as moment_snippets cuts a page of results': one read of its track."""
    track = stored_cues([video_id]).get(video_id) if hits else None
    return [cue_snippet(hit, _cues_of(track, hit.start, hit.end)) for hit in hits]


def _cues_of(track: StoredCues | None, start: float | None, end: float | None) -> list[Segment]:
    if track is None or start is None:
        return []
    return track.around(start, end if end is not None else start)


def video_transcript(video_id: str) -> list[Segment]:
    """What the video page and the subtitles API show: the stored cues; for a video
    fetched before tracks were kept (until the backfill reaches it), the index's
    segments read as one text."""
    track = load_track(video_id)
    if track is not None:
        return transcript_cues(track)
    return get_engine().video_segments(video_id)
