"""Moments: subtitle hits of one video folded together when their segments overlap in
time, since overlapping windows find the same words twice (docs/search.md, One hit per
moment)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from models.search.base import Hit


@dataclass
class _Moment:
    hit: Hit  # the better-ranked hit: its text and highlight are kept
    start: float  # its own range, which later hits are compared with
    end: float
    first: float  # the range of every hit folded in
    last: float


def merge_overlapping(hits: list[Hit], limit: int | None = None) -> list[Hit]:
    """Fold each subtitle hit into an earlier (better-ranked) hit of the same video whose
    own time range overlaps its range: one hit with the earlier start, the later end and
    the earlier hit's text and highlight, in the earlier hit's place. Ranges are not
    chained (a hit is compared with the kept hit's own range, not the grown one), so a
    word said throughout a video still gives one hit per moment, not one for the whole
    video. Title and description hits pass through unchanged. At most `limit` hits come
    back, when given."""
    kept: list[Hit | _Moment] = []
    by_video: dict[str, list[_Moment]] = {}
    for hit in hits:
        if hit.matched_in != "subtitle" or hit.start is None or hit.end is None:
            kept.append(hit)
            continue
        moments = by_video.setdefault(hit.video_id, [])
        into = next((m for m in moments if _overlap(m, hit.start, hit.end)), None)
        if into is None:
            moment = _Moment(hit, hit.start, hit.end, hit.start, hit.end)
            moments.append(moment)
            kept.append(moment)
        else:
            into.first, into.last = min(into.first, hit.start), max(into.last, hit.end)
    return [
        replace(item.hit, start=item.first, end=item.last) if isinstance(item, _Moment) else item
        for item in kept[:limit]
    ]


def _overlap(moment: _Moment, start: float, end: float) -> bool:
    return (start, end) == (moment.start, moment.end) or (start < moment.end and moment.start < end)
