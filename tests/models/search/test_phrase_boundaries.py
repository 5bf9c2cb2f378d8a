"""No phrase is lost at a segment boundary: for random cue lists, the end of any cue
followed by the start of the next is found, as a quoted phrase, by both engines (the
embedded one in a file, the Meilisearch one against the local fake), at that cue's time."""

from __future__ import annotations

import string
from itertools import pairwise
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from models.platform.base import Cue
from models.search import SearchQuery, video_documents
from models.search import segments as segmentation
from models.search.moments import merge_overlapping
from models.search.segments import clean_rolling_repeats
from tests.models.search.engines import embedded_engine, stand_in_engine

pytestmark = pytest.mark.database_independent

VIDEO = "phrase00001"
LONGEST_CUE = 20.0
# A window starts at most one cue before the cue it matters for.
WINDOW = LONGEST_CUE + 2.0  # that cue plus the gap after it
JAPANESE = "今日大阪東京京都広告食事駅前商店街道頓堀川橋寺神社海山空雨雪花春夏秋冬朝昼夜"
HIRAGANA = (
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわを"
)

settings.register_profile("phrases", max_examples=50, deadline=None)

english_word = st.text(string.ascii_lowercase, min_size=3, max_size=8)
japanese_text = st.text(JAPANESE + HIRAGANA, min_size=2, max_size=10)


@st.composite
def cue_lists(draw: st.DrawFn) -> tuple[list[Cue], list[Cue], bool]:
    """(what is said, the cues as the platform gives them, auto captions?). Auto
    captions roll: each cue shows the previous line again above the new one."""
    count = draw(st.integers(1, 40))
    if draw(st.booleans()):
        words = draw(st.lists(english_word, min_size=count * 2, max_size=count * 2, unique=True))
        texts = [f"{words[2 * n]} {words[2 * n + 1]}" for n in range(count)]
    else:
        texts = draw(st.lists(japanese_text, min_size=count, max_size=count, unique=True))
    said: list[Cue] = []
    at = 0.0
    for text in texts:
        length = draw(st.integers(5, int(LONGEST_CUE * 10))) / 10
        said.append(Cue(at, round(at + length, 1), text))
        at = round(at + length + draw(st.integers(0, 20)) / 10, 1)
    auto = draw(st.booleans())
    if not auto:
        return said, said, False
    rolled = [said[0]] + [
        Cue(cue.start, cue.end, f"{before.text}\n{cue.text}") for before, cue in pairwise(said)
    ]
    return said, rolled, True


def boundary_phrase(before: str, after: str) -> str:
    if " " in before:  # English: the last word and the next cue's first word
        return f'"{before.split()[-1]} {after.split()[0]}"'
    return f'"{before[-2:]}{after[:2]}"'


def index(engine, cues: list[Cue], *, auto: bool) -> None:
    video = SimpleNamespace(
        id=VIDEO,
        title="動画",
        published_at="2026-01-01T00:00:00.000Z",
        thumbnail_url=None,
        view_count=1,
        duration_seconds=None,
    )
    channel = SimpleNamespace(id="UCaaaaaaaaaaaaaaaaaaaaaa", title="チャンネル", subscriber_count=1)
    segments = segmentation.build_segments(cues, auto=auto)
    engine.replace_video_documents(VIDEO, video_documents(video, channel, "", segments))


def check_every_boundary(engine, said: list[Cue], rolled: list[Cue], auto: bool) -> None:
    # The rolling cleanup must give back what was said for this property to be about
    # segmentation (random texts may repeat another cue's words in a way it cannot tell).
    if auto:
        assume([c.text for c in clean_rolling_repeats(rolled)] == [c.text for c in said])
    index(engine, rolled, auto=auto)
    for before, after in pairwise(said):
        q = boundary_phrase(before.text, after.text)
        answer = engine.search(SearchQuery(q=q, targets=("subtitle",), per_page=100))
        hits = merge_overlapping(answer.hits)
        assert any(
            h.video_id == VIDEO
            and before.start - WINDOW <= h.start <= before.start
            and h.end >= after.end
            for h in hits
        ), (q, [(h.start, h.end, h.text) for h in hits])


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    """One engine for every example hypothesis draws: each example replaces the one video."""
    yield from embedded_engine(tmp_path_factory.mktemp("phrases") / "search.db")


@pytest.fixture(scope="module")
def meili():
    # What is checked is which phrases are found, not how fast: a budget a loaded test
    # machine cannot miss (the budget has its own tests, test_search_budget.py).
    yield from stand_in_engine(time_budget_ms=30_000)


@settings(settings.get_profile("phrases"), suppress_health_check=[HealthCheck.too_slow])
@given(cues=cue_lists())
def test_every_boundary_phrase_is_found_by_the_embedded_engine(embedded, cues):
    check_every_boundary(embedded, *cues)


@settings(settings.get_profile("phrases"), suppress_health_check=[HealthCheck.too_slow])
@given(cues=cue_lists())
def test_every_boundary_phrase_is_found_by_the_meilisearch_engine(meili, cues):
    check_every_boundary(meili, *cues)


def test_the_issues_example_is_found_across_the_boundary(embedded):
    said = [
        Cue(0, 6, "so here it is"),
        Cue(6, 12, "and then the quick brown"),
        Cue(12, 18, "fox jumps over the lazy dog"),
    ]
    check_every_boundary(embedded, said, said, False)
    hits = embedded.search(SearchQuery(q='"quick brown fox"')).hits
    assert [(h.start, h.end) for h in merge_overlapping(hits)] == [(6.0, 18.0)]
