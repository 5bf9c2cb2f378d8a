"""Stored subtitle tracks: the cues each fetch brought, kept in the database as the source
of truth (issue 25). The search documents are cut from them (search/segments.py) and the
transcript shows them cue by cue, so neither needs the platform again."""

from __future__ import annotations

import json
import zlib

from models.clock import now_iso
from models.platform.base import Cue, Subtitles
from models.search import get_engine
from models.search.base import Segment
from models.search.segments import clean_rolling_repeats
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


def video_transcript(video_id: str) -> list[Segment]:
    """What the video page and the subtitles API show: the stored cues; for a video
    fetched before tracks were kept (until the backfill reaches it), the index's
    segments read as one text."""
    track = load_track(video_id)
    if track is not None:
        return transcript_cues(track)
    return get_engine().video_segments(video_id)
