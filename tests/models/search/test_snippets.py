"""A moment's snippet cut back into its cues: set apart, each with its own time and the
engine's marks, opened at the first cue holding a match."""

from __future__ import annotations

import pytest

from models.search.base import Hit, Segment
from models.search.highlight import highlight
from models.search.query import parse_query
from models.search.snippets import cue_snippet, marked_spans
from models.search.text import join_texts

pytestmark = pytest.mark.database_independent

CUES = [
    Segment(1.24, 4.58, "どうも、大阪グルメ散歩です"),
    Segment(6.93, 10.42, "今日は大阪の天満に来ています"),
    Segment(12.46, 18.46, "天満は<駅>の周り"),
]


def hit(cues: list[Segment], q: str) -> Hit:
    text = join_texts([c.text for c in cues])
    return Hit(
        video_id="v",
        video_title="t",
        channel_id="c",
        channel_title="c",
        published_at="2026-01-01T00:00:00.000Z",
        thumbnail_url=None,
        matched_in="subtitle",
        start=cues[0].start,
        end=cues[-1].end,
        text=text,
        highlight=highlight(text, parse_query(q)),
    )


def test_marked_spans_read_an_engines_highlight_back():
    assert marked_spans("a &lt;b&gt; <mark>大阪</mark>の") == ("a <b> 大阪の", [(6, 8)])


def test_a_window_is_cut_into_its_cues_and_opens_at_the_first_match():
    snippet = cue_snippet(hit(CUES[1:], "天満"), CUES)
    assert [c.start for c in snippet.cues] == [6.93, 12.46]
    assert [c.html for c in snippet.cues] == [
        "今日は大阪の<mark>天満</mark>に来ています",
        "<mark>天満</mark>は&lt;駅&gt;の周り",
    ]
    assert snippet.start == 6.93
    later = cue_snippet(hit(CUES[:2], "天満"), CUES)
    assert later.start == 6.93 and not later.cues[0].matched  # not the window's 1.24


def test_a_phrase_across_two_cues_is_marked_in_both():
    snippet = cue_snippet(hit(CUES[1:], "います天満"), CUES)
    assert snippet.cues[0].html.endswith("<mark>います</mark>")
    assert snippet.cues[1].html.startswith("<mark>天満</mark>")


def test_latin_cues_joined_with_a_space_are_cut_at_the_space():
    cues = [Segment(0.5, 2, "first we mix"), Segment(2.1, 4, "the flour and water")]
    snippet = cue_snippet(hit(cues, "flour"), cues)
    assert [c.html for c in snippet.cues] == ["first we mix", "the <mark>flour</mark> and water"]
    assert snippet.start == 2.1


def test_without_the_cues_the_hit_shows_as_one_piece():
    moment = hit(CUES[1:], "天満")
    snippet = cue_snippet(moment, [])
    assert [c.html for c in snippet.cues] == [moment.highlight] and snippet.start == 6.93
