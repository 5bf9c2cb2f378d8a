"""Segment building: rolling auto-caption repeats removed, cues cut into overlapping
windows so that every pair of adjacent cues shares one, and the transcript read back
without the repeated cue."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.platform.base import Cue
from models.search.base import Segment
from models.search.segments import build_segments, clean_rolling_repeats, transcript
from models.search.text import join_texts

pytestmark = pytest.mark.database_independent


def test_rolling_auto_captions_keep_only_new_words():
    cues = [
        Cue(0.0, 2.0, "今日は大阪に"),
        Cue(1.8, 4.0, "今日は大阪に\n来ています"),
        Cue(3.9, 6.0, "来ています\nまずは道頓堀から"),
    ]
    assert [c.text for c in clean_rolling_repeats(cues)] == [
        "今日は大阪に",
        "来ています",
        "まずは道頓堀から",
    ]


def test_growing_single_line_captions_keep_only_the_growth():
    cues = [Cue(0, 1, "hello"), Cue(1, 2, "hello there"), Cue(2, 3, "hello there friend")]
    assert [c.text for c in clean_rolling_repeats(cues)] == ["hello", "there", "friend"]


def test_windows_of_three_short_cues_share_their_last_cue_with_the_next():
    cues = [Cue(i * 2.0, i * 2.0 + 2.0, f"word{i}.") for i in range(7)]
    segments = build_segments(cues, auto=False)
    assert [s.text for s in segments] == [
        "word0. word1. word2.",
        "word2. word3. word4.",
        "word4. word5. word6.",
    ]
    assert [(s.start, s.end) for s in segments] == [(0.0, 6.0), (4.0, 10.0), (8.0, 14.0)]


def test_a_window_takes_a_third_cue_only_within_fifteen_seconds():
    cues = [Cue(0, 6, "one"), Cue(6, 12, "two"), Cue(12, 18, "three"), Cue(18, 24, "four")]
    assert [s.text for s in build_segments(cues, auto=False)] == [
        "one two",
        "two three",
        "three four",
    ]


def test_two_long_cues_still_share_a_window():
    cues = [Cue(0, 20, "a long one"), Cue(20, 40, "another long one"), Cue(40, 41, "end")]
    segments = build_segments(cues, auto=False)
    assert [s.text for s in segments] == ["a long one another long one", "another long one end"]
    assert [(s.start, s.end) for s in segments] == [(0, 40), (20, 41)]


def test_a_single_cue_is_a_single_window():
    assert build_segments([Cue(0, 3, "only")], auto=False) == [Segment(0, 3, "only")]
    assert build_segments([], auto=False) == []


def test_the_issues_phrase_across_a_boundary_lands_in_one_window():
    cues = [
        Cue(0, 4, "so here it is"),
        Cue(4, 8, "and then the quick brown"),
        Cue(8, 12, "fox jumps over the lazy dog"),
        Cue(12, 16, "and that is all"),
    ]
    assert any("quick brown fox" in s.text for s in build_segments(cues, auto=False))


def test_auto_captions_are_cleaned_before_the_windows_are_cut():
    cues = [
        Cue(0.0, 2.0, "今日は大阪に"),
        Cue(2.0, 4.0, "今日は大阪に\n来ています"),
        Cue(4.0, 6.0, "来ています\nまずは道頓堀から"),
    ]
    assert [s.text for s in build_segments(cues, auto=True)] == [
        "今日は大阪に来ていますまずは道頓堀から"
    ]


def test_japanese_cues_join_without_spaces():
    [segment] = build_segments([Cue(0, 2, "大阪の"), Cue(2, 4, "広告です")], auto=False)
    assert segment.text == "大阪の広告です"


def test_the_transcript_drops_the_cue_each_window_repeats():
    cues = [Cue(i * 6.0, i * 6.0 + 6.0, f"文{i}です。") for i in range(4)]
    assert transcript(build_segments(cues, auto=False)) == [
        Segment(0.0, 12.0, "文0です。文1です。"),
        Segment(12.0, 18.0, "文2です。"),
        Segment(18.0, 24.0, "文3です。"),
    ]


def test_the_transcript_keeps_segments_that_do_not_overlap():
    # An index cut before overlapping windows: the same words on both sides stay.
    segments = [Segment(0, 5, "はい、はい"), Segment(5, 9, "はい、そうです")]
    assert transcript(segments) == segments


def test_the_transcript_never_cuts_inside_a_latin_word():
    segments = [Segment(0, 6, "a cat"), Segment(4, 9, "catalogue here")]
    assert transcript(segments) == segments


words = st.lists(st.text("abcdefghij", min_size=2, max_size=6), min_size=2, unique=True)


@settings(max_examples=50, deadline=None)
@given(words=words, lengths=st.lists(st.integers(5, 200), min_size=60, max_size=60))
def test_the_transcript_reads_every_cue_once(words, lengths):
    at, cues = 0.0, []
    for word, length in zip(words, lengths, strict=False):
        cues.append(Cue(at, at + length / 10, word))
        at += length / 10
    read = transcript(build_segments(cues, auto=False))
    assert join_texts([s.text for s in read]) == join_texts([c.text for c in cues])
    assert [s.start for s in read] == sorted(s.start for s in read)
