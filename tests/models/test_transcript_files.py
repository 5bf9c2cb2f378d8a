"""The transcript as SubRip, WebVTT and text (models/transcript_files.py): times, order,
the text made safe for each format, and the file's name from the title."""

from __future__ import annotations

import pytest

from models.search.base import Segment
from models.transcript_files import (
    LONGEST_NAME,
    file_cues,
    file_names,
    plain_text,
    srt,
    timestamp,
    transcript_file,
    webvtt,
)

pytestmark = pytest.mark.database_independent


def cue(start, end, text):
    return Segment(start=start, end=end, text=text)


@pytest.mark.parametrize(
    ("ms", "srt_time", "vtt_time"),
    [
        (0, "00:00:00,000", "00:00:00.000"),
        (61_001, "00:01:01,001", "00:01:01.001"),
        (3_725_250, "01:02:05,250", "01:02:05.250"),
        (360_000_000, "100:00:00,000", "100:00:00.000"),
    ],
)
def test_timestamps_past_an_hour_and_past_99_hours(ms, srt_time, vtt_time):
    assert timestamp(ms, ",") == srt_time
    assert timestamp(ms, ".") == vtt_time


def test_seconds_round_to_the_millisecond_without_a_60th_second():
    # 59.9996 s is 60.000 s, written as a minute, never as 00:00:59,1000
    [only] = file_cues([cue(59.9996, 61.0004, "a")])
    assert timestamp(only.start_ms, ",") == "00:01:00,000"
    assert timestamp(only.end_ms, ",") == "00:01:01,000"


def test_srt_numbers_its_cues_and_separates_them_by_a_blank_line():
    cues = file_cues([cue(0, 1.5, "一"), cue(1.5, 3, "二")])
    assert srt(cues) == (
        "1\n00:00:00,000 --> 00:00:01,500\n一\n\n2\n00:00:01,500 --> 00:00:03,000\n二\n"
    )


def test_webvtt_starts_with_its_header_and_escapes_what_would_be_markup():
    cues = file_cues([cue(0, 1, "a & b <i>c</i> --> d")])
    assert webvtt(cues) == (
        "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\na &amp; b &lt;i&gt;c&lt;/i&gt; --&gt; d\n"
    )
    assert "-->" not in webvtt(cues).split("\n")[3]


def test_lines_of_a_cue_stay_lines_and_blank_lines_inside_are_dropped():
    # A blank line would end the cue in both formats; a tab or control character has no
    # place in a line
    cues = file_cues([cue(0, 2, "  上の行 \r\n\n\n下の\t行\x07  \n ")])
    assert cues[0].lines == ("上の行", "下の 行")
    assert srt(cues).split("\n")[2:4] == ["上の行", "下の 行"]
    assert webvtt(cues).split("\n")[3:5] == ["上の行", "下の 行"]
    # The text file keeps one cue a line
    assert plain_text(cues) == "上の行 下の 行\n"


def test_empty_cues_are_left_out_and_numbering_has_no_gap():
    cues = file_cues([cue(0, 1, "一"), cue(1, 2, ""), cue(2, 3, " \n\t "), cue(3, 4, "二")])
    assert [c.lines for c in cues] == [("一",), ("二",)]
    assert "\n2\n00:00:03,000 --> 00:00:04,000\n二\n" in srt(cues)


def test_nothing_said_is_an_empty_file_of_each_format():
    assert srt([]) == ""
    assert webvtt([]) == "WEBVTT\n"
    assert plain_text([]) == ""


def test_cues_are_written_in_order_of_their_start_and_overlaps_are_kept():
    # Given cues out of order, two of them overlapping (both shown at once is allowed)
    cues = file_cues([cue(5, 9, "三"), cue(0, 6, "一"), cue(4, 8, "二")])
    # Then ordered by start, each with its own end
    assert [(c.start_ms, c.end_ms, c.lines) for c in cues] == [
        (0, 6000, ("一",)),
        (4000, 8000, ("二",)),
        (5000, 9000, ("三",)),
    ]


def test_equal_starts_keep_the_order_they_were_said_in():
    cues = file_cues([cue(1, 2, "first"), cue(1, 3, "second")])
    assert [c.lines[0] for c in cues] == ["first", "second"]


def test_a_cue_without_length_lasts_until_the_next_starts_or_five_seconds():
    cues = file_cues([cue(0, 0, "a"), cue(2, 1, "b"), cue(30, 30, "c"), cue(40, 40, "d")])
    assert [(c.start_ms, c.end_ms) for c in cues] == [
        (0, 2000),  # to the next start
        (2000, 7000),  # the next is far: five seconds
        (30_000, 35_000),
        (40_000, 45_000),  # the last: five seconds
    ]


def test_a_negative_start_is_zero_and_every_end_is_after_its_start():
    cues = file_cues([cue(-3, -1, "a"), cue(1.0001, 1.0002, "b")])
    assert [(c.start_ms, c.end_ms) for c in cues] == [(0, 1000), (1000, 1001)]


def test_text_file_starts_a_paragraph_at_a_long_pause_only():
    # Given a pause of 3 s (a paragraph), one of 2.9 s and an overlap (none)
    cues = file_cues(
        [
            cue(0, 2, "一"),
            cue(5, 6, "二"),  # 3 s after the end of 一
            cue(8.9, 12, "三"),  # 2.9 s
            cue(11, 20, "四"),  # overlapping 三
            cue(19, 21, "五"),  # inside 四, which ends at 20
        ]
    )
    assert plain_text(cues) == "一\n\n二\n三\n四\n五\n"


def test_a_whole_file_has_its_media_type_and_names():
    made = transcript_file("vtt", "abcDEF12345", "大阪の旅", [cue(0, 1, "やあ")])
    assert (made.name, made.ascii_name, made.media_type) == (
        "大阪の旅.vtt",
        "abcDEF12345.vtt",
        "text/vtt",
    )
    assert made.text.startswith("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nやあ\n")


@pytest.mark.parametrize(
    ("title", "name", "ascii_name"),
    [
        ("大阪の旅", "大阪の旅.srt", "vid.srt"),
        ("Osaka walk", "Osaka walk.srt", "Osaka walk.srt"),
        ("Café ＴＯＫＹＯ", "Café ＴＯＫＹＯ.srt", "Cafe TOKYO.srt"),
        ("大阪 Osaka", "大阪 Osaka.srt", "vid.srt"),  # ASCII would say half of it
        ('a/b\\c:d*e?f"g<h>i|j', "a b c d e f g h i j.srt", "a b c d e f g h i j.srt"),
        ("  ..hidden.  ", "hidden.srt", "hidden.srt"),  # no leading dot: not a hidden file
        ("line\nbreak\ttab", "line break tab.srt", "line break tab.srt"),
        ("", "vid.srt", "vid.srt"),
        ("///", "vid.srt", "vid.srt"),
        ("con", "vid.srt", "vid.srt"),  # a device name on Windows
        ("Ｃ／Ｄ", "Ｃ／Ｄ.srt", "C D.srt"),  # full-width slash: a slash in ASCII
    ],
)
def test_the_file_name_comes_from_the_title(title, name, ascii_name):
    assert file_names(title, "vid", "srt") == (name, ascii_name)


def test_a_long_title_is_cut_to_a_name_every_file_system_takes():
    name, _ascii = file_names("字" * 300, "vid", "txt")
    assert name == "字" * LONGEST_NAME + ".txt"
    assert len(name.encode()) <= 255
