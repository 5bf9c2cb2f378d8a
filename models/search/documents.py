"""The documents of the index, built from our rows: one per subtitle segment of a video,
one for its title and description (base.py says what they hold)."""

from __future__ import annotations

import hashlib
import json
from typing import TypedDict

import pycountry

from models.search.base import Document, Segment
from models.tables import Channel, Video


class _VideoFields(TypedDict):
    """What every document of one video carries."""

    video_id: str
    channel_id: str
    video_title: str
    channel_title: str
    published_at: str
    thumbnail_url: str | None
    view_count: int | None
    subscriber_count: int | None
    duration_seconds: int | None
    subtitle_type: str | None
    subtitle_language: str | None


def video_documents(
    video: Video,
    channel: Channel,
    description: str,
    segments: list[Segment],
    subtitles: tuple[str, str] | None = None,
) -> list[Document]:
    """The documents of one video: one per subtitle segment, one for title and description.
    `subtitles`: the kind ("manual" or "auto") and the platform's language tag of its
    subtitle track, when it has one."""
    common: _VideoFields = {
        "video_id": video.id,
        "channel_id": channel.id,
        "video_title": video.title,
        "channel_title": channel.title,
        "published_at": video.published_at,
        "thumbnail_url": video.thumbnail_url,
        "view_count": video.view_count,
        "subscriber_count": channel.subscriber_count,
        "duration_seconds": video.duration_seconds,
        "subtitle_type": subtitles[0] if subtitles else None,
        "subtitle_language": language_code(subtitles[1]) if subtitles else None,
    }
    documents = [
        Document(
            id=f"{video.id}-s{n:04d}",
            kind="subtitle",
            text=segment.text,
            start=round(segment.start, 3),
            end=round(segment.end, 3),
            **common,
        )
        for n, segment in enumerate(segments)
    ]
    meta = Document(
        id=f"{video.id}-v",
        kind="video",
        title=video.title,
        description=description or "",
        fingerprint=fingerprint(common, description or "", documents),
        **common,
    )
    return [meta, *documents]


def language_code(tag: str | None) -> str | None:
    """The ISO 639-1 code of a platform's language tag (en-US -> en, zh-Hans -> zh), as
    `lang:` compares it; a language without one keeps its own code (fil)."""
    primary = (tag or "").split("-")[0].split("_")[0].strip().lower()
    if len(primary) == 3:
        found = pycountry.languages.get(alpha_3=primary)
        if found is not None and hasattr(found, "alpha_2"):
            return str(found.alpha_2)
    return primary or None


def fingerprint(common: _VideoFields, description: str, subtitles: list[Document]) -> str:
    """What only rewriting a video's documents changes, as a short digest: its segments,
    description, date, thumbnail, views, length, and subtitles' kind and language (titles
    and subscriber counts are updated in place and compared one by one)."""
    digest = hashlib.blake2b(digest_size=12)
    fixed = (common["channel_id"], common["published_at"], common["thumbnail_url"])
    filtered = (common["duration_seconds"], common["subtitle_type"], common["subtitle_language"])
    digest.update(json.dumps([*fixed, common["view_count"], description, *filtered]).encode())
    for doc in subtitles:
        digest.update(json.dumps([doc.start, doc.end, doc.text], ensure_ascii=False).encode())
    return digest.hexdigest()
