"""Hits one by one from the embedded engine, the way a client pages through them: every
match exactly once, in the order asked, whether the engine sorts the matching videos or
walks every video (many match), and whether relevance scores every match or only the
latest (a common word)."""

from __future__ import annotations

import pytest

from models.search import SearchQuery, Segment, video_documents
from models.search.embedded import EmbeddedEngine, matching
from tests.models.search.test_conformance import channel, video

pytestmark = pytest.mark.database_independent

VIDEOS = 9


@pytest.fixture
def engine(embedded):
    for n in range(VIDEOS):
        # Up to three moments saying 餃子 per video, and one video saying it nowhere
        said = [
            Segment(m * 20.0, m * 20.0 + 3, f"餃子の話 {n} {m}" if n < VIDEOS - 1 else "別の話")
            for m in range(1 + n % 3)
        ]
        embedded.replace_video_documents(
            f"flat{n:07d}",
            video_documents(
                video(
                    f"flat{n:07d}",
                    published=f"2026-01-{1 + (n * 5) % VIDEOS:02d}T00:00:00.000Z",
                    views=(n * 7) % 5,
                ),
                channel(),
                "",
                said,
            ),
        )
    return embedded


def every_page(engine, q, sort, per_page=2):
    """(video id, start) of every hit, page after page, and the totals each page said."""
    found, totals, page = [], set(), 1
    while True:
        results = engine.search(SearchQuery(q=q, sort=sort, page=page, per_page=per_page))
        totals.add(results.total_hits)
        if not results.hits:
            return found, totals
        found.extend((hit.video_id, hit.start) for hit in results.hits)
        page += 1


def matches(engine):
    return {(h.video_id, h.start) for h in engine.search(SearchQuery(q="餃子", per_page=100)).hits}


# How the engine finds the matching videos in order (matching.py, Matching.in_order)
WAYS = {
    "sorted": {},
    "walked": {"WALK_FROM": 0},
    "walk-then-sorted": {"WALK_FROM": 0, "WALK_PROBES": 2, "WALK_SPARSE": 100},
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("sort", ["newest", "oldest", "views"])
def test_pages_in_an_order_hold_every_match_once_in_that_order(engine, monkeypatch, sort, way):
    expected = matches(engine)
    for name, value in WAYS[way].items():
        monkeypatch.setattr(matching, name, value)
    found, totals = every_page(engine, "餃子", sort)
    assert totals == {len(expected)} == {15}
    assert sorted(found) == sorted(expected)
    order = [vid for vid, _ in found]
    dates = [f"2026-01-{1 + (int(vid[4:]) * 5) % VIDEOS:02d}" for vid in order]
    views = [(int(vid[4:]) * 7) % 5 for vid in order]
    if sort == "newest":
        assert dates == sorted(dates, reverse=True)
    elif sort == "oldest":
        assert dates == sorted(dates)
    else:
        assert views == sorted(views, reverse=True)
    # a video's moments come together, in time order
    for vid in set(order):
        starts = [start for v, start in found if v == vid]
        assert starts == sorted(starts)
        first = order.index(vid)
        assert order[first : first + len(starts)] == [vid] * len(starts)


@pytest.mark.parametrize("ranked", [1000, 3])
def test_relevance_pages_hold_every_match_once(engine, monkeypatch, ranked):
    # Given fewer matches scored than there are (a common word), or all of them, and
    # the rest walked in order
    monkeypatch.setattr(matching, "RANKED", ranked)
    monkeypatch.setattr(matching, "WALK_FROM", 0)
    expected = matches(engine)
    found, totals = every_page(engine, "餃子", "relevance", per_page=5)
    # Then the pages still hold every match once, and say the same total
    assert totals == {len(expected)}
    assert sorted(found) == sorted(expected)


def test_relevance_puts_the_exact_phrase_first(tmp_path):
    engine = EmbeddedEngine(str(tmp_path / "search.db"))
    engine.apply_settings()
    for vid, text in [("apart000001", "quick thinking and a fox"), ("phrase00001", "a quick fox")]:
        engine.replace_video_documents(
            vid, video_documents(video(vid), channel(), "", [Segment(0, 3, text)])
        )
    hits = engine.search(SearchQuery(q="quick fox")).hits
    assert [hit.video_id for hit in hits] == ["phrase00001", "apart000001"]
    engine.close()
