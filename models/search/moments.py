"""Moments: subtitle hits of one video folded together when their segments overlap in
time, since overlapping windows find the same words twice (docs/search.md, One hit per
moment): a page of hits folded in rank order, and every moment of one video, which both
engines make, count and rank by the rules below (docs/search.md, Every moment)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Final

from models.search.base import MOMENTS_PER_VIDEO, Hit


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


# -- every moment of one video ------------------------------------------------------------
#
# A grouped answer shows a video's best MOMENTS_PER_VIDEO moments and counts them all
# (totalMoments), and GET /api/videos/{id}/moments lists them all (docs/api.md, Search).
# So that the count never depends on how the segments rank, a video's moments are made
# from its matching segments in time order, not in rank order as merge_overlapping does
# for a page of hits: reading their times alone, an engine counts them.


# A subtitle segment that matches a search: the engine's id for it (a rowid, a document
# id), its start and its end. A plain tuple, as a database row reads: a page of long
# videos makes thousands of them.
Span = tuple[int | str, float, float]
REF: Final = 0
START: Final = 1
END: Final = 2


@dataclass(frozen=True)
class VideoMoment:
    """One moment of a video: its matching segments in time order (the first is the one
    the others overlap), and which of them shows it (the best ranked)."""

    spans: tuple[Span, ...]
    shown: Span

    @property
    def start(self) -> float:
        return self.spans[0][START]

    @property
    def end(self) -> float:
        return max(span[END] for span in self.spans)


def group_spans(spans: list[Span]) -> list[tuple[Span, ...]]:
    """A video's matching segments as moments, in time order: each segment joins the
    first moment whose first segment's own range overlaps its range (as merge_overlapping
    compares), else it starts one. Ranges are not chained, so a word said all through a
    video is one moment every other window, not one for the whole video. Segments are
    taken by start, then end, then id, so the moments are the same whichever order the
    engine read them in."""
    groups: list[list[Span]] = []
    # The moments whose first segment may still overlap a later one: a later segment
    # starts no earlier, so a first segment ending before it starts is done with.
    reaching: list[list[Span]] = []
    for span in sorted(spans, key=_TIME_ORDER):
        _, start, end = span
        joined = False
        alive = []
        for group in reaching:
            _, first_start, first_end = group[0]
            if first_end > start or first_start == start:
                alive.append(group)
                if not joined and (
                    (start < first_end and first_start < end)
                    or (start == first_start and end == first_end)
                ):
                    group.append(span)
                    joined = True
        if not joined:
            group = [span]
            groups.append(group)
            alive.append(group)
        reaching = alive
    return [tuple(group) for group in groups]


_TIME_ORDER = itemgetter(START, END, REF)


def rank_moments(
    groups: list[tuple[Span, ...]], ranked: Sequence[int | str], limit: int | None = None
) -> list[VideoMoment]:
    """The moments best first (the first `limit` of them, when given): each at the place
    of its best segment in `ranked` (the engine's ids, best first), shown by that
    segment; moments none of whose segments is ranked follow in time order, each shown
    by its first segment."""
    wanted = len(groups) if limit is None else min(limit, len(groups))
    group_of = {span[REF]: (n, span) for n, group in enumerate(groups) for span in group}
    chosen: list[VideoMoment] = []
    taken: set[int] = set()
    for ref in ranked:
        if len(chosen) >= wanted:
            return chosen
        found = group_of.get(ref)
        if found is not None and found[0] not in taken:
            taken.add(found[0])
            chosen.append(VideoMoment(groups[found[0]], found[1]))
    for n, group in enumerate(groups):
        if len(chosen) >= wanted:
            break
        if n not in taken:
            chosen.append(VideoMoment(group, group[0]))
    return chosen


def list_moments(
    groups: list[tuple[Span, ...]],
    shown: Sequence[int | str],
    every: Sequence[int | str] | None = None,
) -> list[VideoMoment]:
    """Every moment of a video in the order the API lists them: the MOMENTS_PER_VIDEO a
    grouped answer shows, ranked by `shown` (the segments an engine ranks for a page of
    videos), then the others ranked by `every` (all of them, where the engine ranks more
    for one video; by default `shown`). So the list starts with the card's moments."""
    if every is None:
        return rank_moments(groups, shown)
    first = rank_moments(groups, shown, MOMENTS_PER_VIDEO)
    taken = {moment.spans for moment in first}
    return [*first, *(m for m in rank_moments(groups, every) if m.spans not in taken)]


def moment_hit(moment: VideoMoment, hit: Hit) -> Hit:
    """The moment as a hit: `hit` (its shown segment's, highlighted) over its whole range."""
    return replace(hit, start=moment.start, end=moment.end)
