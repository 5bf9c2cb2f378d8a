"""The tokenizer, query parsing, highlighting and segment building."""

from __future__ import annotations

from models.platform.base import Cue
from models.search.segments import build_segments, clean_rolling_repeats
from models.search.text import highlight, parse_query, tokens


def test_cjk_runs_become_bigrams_and_latin_text_words():
    assert tokens("大阪の広告") == ["大阪", "阪の", "の広", "広告"]
    assert tokens("Network WORKS") == ["network", "works"]
    assert tokens("ＡＤ　２０２６年") == ["ad", "2026", "年"]


def test_a_lone_cjk_character_needs_a_scan():
    assert [t.needs_scan for t in parse_query("猫 大阪 cat")] == [True, False, False]


def test_quoted_text_is_one_phrase():
    terms = parse_query('"brown fox" 大阪城')
    assert [t.tokens for t in terms] == [("brown", "fox"), ("大阪", "阪城")]


def test_highlight_escapes_html_and_marks_whole_words_only():
    text = "<script>x</script> network work Work"
    assert highlight(text, parse_query("work")) == (
        "&lt;script&gt;x&lt;/script&gt; network <mark>work</mark> <mark>Work</mark>"
    )


def test_highlight_maps_full_width_text_back_to_the_original():
    assert highlight("ＡＤの広告", parse_query("ad 広告")) == "<mark>ＡＤ</mark>の<mark>広告</mark>"


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


def test_segments_merge_up_to_three_cues_and_keep_their_times():
    cues = [Cue(i * 2.0, i * 2.0 + 2.0, f"word{i}.") for i in range(7)]
    segments = build_segments(cues, auto=False)
    assert [s.text for s in segments] == ["word0. word1. word2.", "word3. word4. word5.", "word6."]
    assert (segments[0].start, segments[0].end) == (0.0, 6.0)
    assert (segments[2].start, segments[2].end) == (12.0, 14.0)


def test_segments_stay_near_fifteen_seconds():
    cues = [Cue(0, 10, "a long one"), Cue(10, 20, "another long one")]
    assert len(build_segments(cues, auto=False)) == 2


def test_a_phrase_across_two_cues_lands_in_one_segment():
    cues = [Cue(0, 3, "the quick brown"), Cue(3, 6, "fox jumps over the lazy dog")]
    [segment] = build_segments(cues, auto=False)
    assert "brown fox" in segment.text


def test_a_segment_closes_early_rather_than_split_a_sentence():
    cues = [
        Cue(0, 5, "They feel smooth."),
        Cue(5, 10, "The classic sentence: the quick brown"),
        Cue(10, 16, "fox jumps over the lazy dog."),
    ]
    assert [s.text for s in build_segments(cues, auto=False)] == [
        "They feel smooth.",
        "The classic sentence: the quick brown fox jumps over the lazy dog.",
    ]


def test_japanese_cues_join_without_spaces():
    [segment] = build_segments([Cue(0, 2, "大阪の"), Cue(2, 4, "広告です")], auto=False)
    assert segment.text == "大阪の広告です"
