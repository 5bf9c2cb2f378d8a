"""Merging hits of overlapping segments: one hit per moment, the earlier start, the
better-ranked highlight; and the flat search applies it."""

from __future__ import annotations

from models import ingest, library
from models.search import Hit, SearchQuery
from models.search.moments import merge_overlapping
from tests.fakes.platform_files import manual


def hit(video_id: str, start: float | None, end: float | None, text: str, kind="subtitle"):
    return Hit(
        video_id=video_id,
        video_title="t",
        channel_id="UCaaaaaaaaaaaaaaaaaaaaaa",
        channel_title="c",
        published_at="2026-01-01T00:00:00.000Z",
        thumbnail_url=None,
        matched_in=kind,
        start=start,
        end=end,
        text=text,
        highlight=f"<mark>{text}</mark>",
    )


def test_overlapping_hits_of_a_video_become_one_with_the_earlier_start():
    best, later = hit("v1", 4.0, 10.0, "best"), hit("v1", 0.0, 6.0, "second")
    [merged] = merge_overlapping([best, later])
    assert (merged.start, merged.end) == (0.0, 10.0)
    assert (merged.text, merged.highlight) == ("best", "<mark>best</mark>")


def test_hits_that_do_not_overlap_or_are_of_other_videos_stay_in_order():
    hits = [
        hit("v1", 0.0, 6.0, "a"),
        hit("v2", 0.0, 6.0, "b"),
        hit("v1", 6.0, 12.0, "c"),  # touches, does not overlap
        hit("v1", None, None, "title", kind="title"),
    ]
    assert merge_overlapping(hits) == hits


def test_ranges_are_not_chained_through_a_merged_hit():
    # Windows 0-6, 4-10, 8-14 all match: the third overlaps only the second, which was
    # folded into the first, so it stays a moment of its own.
    hits = [hit("v1", 0.0, 6.0, "a"), hit("v1", 4.0, 10.0, "b"), hit("v1", 8.0, 14.0, "c")]
    assert [(h.start, h.end, h.text) for h in merge_overlapping(hits)] == [
        (0.0, 10.0, "a"),
        (8.0, 14.0, "c"),
    ]


def test_the_flat_search_merges_hits_of_one_moment(platform_files):
    channel = "UCmomentsmomentsmoments1"
    platform_files.channel(channel, ["moments0001"])
    # 6-second cues: windows of two cues, each sharing one with the next
    cues = [
        {"start": 6.0 * n, "end": 6.0 * n + 6.0, "text": text}
        for n, text in enumerate(["はじめに", "大阪の夜景です", "おわりに"])
    ]
    platform_files.video("moments0001", channel, {**manual(), "cues": cues})
    ingest.import_channel(channel)
    ingest.fetch_subtitles("moments0001")

    results = library.search(None, SearchQuery(q="夜景", targets=("subtitle",)))

    assert [(h.start, h.end) for h in results.hits] == [(0.0, 18.0)]
    assert results.hits[0].highlight.count("<mark>夜景</mark>") == 1
