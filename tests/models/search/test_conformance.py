"""Search behaviours every engine must show: the embedded engine always, a real
Meilisearch too when MEILI_TEST_URL (and MEILI_TEST_KEY) are set."""

from __future__ import annotations

import os
from types import SimpleNamespace

import meilisearch
import pytest

from models.platform.base import Cue
from models.search import IndexedVideo, IndexNotReady, SearchQuery, video_documents
from models.search.embedded import EmbeddedEngine
from models.search.meili import MeilisearchEngine
from models.search.segments import build_segments

ENGINES = ["embedded"] + (["meilisearch"] if os.environ.get("MEILI_TEST_URL") else [])


@pytest.fixture(params=ENGINES)
def engine(request, tmp_path):
    if request.param == "embedded":
        engine = EmbeddedEngine(str(tmp_path / "search.db"))
        engine.apply_settings()
        yield engine
        engine.close()
        return
    url, key = os.environ["MEILI_TEST_URL"], os.environ.get("MEILI_TEST_KEY")
    engine = MeilisearchEngine(url, key, key)
    engine.apply_settings()
    index = meilisearch.Client(url, key).index("subtitles")
    index.wait_for_task(index.delete_all_documents().task_uid)
    yield engine


@pytest.fixture(params=ENGINES)
def missing(request, tmp_path):
    """An engine whose index was never set up (no apply_settings)."""
    if request.param == "embedded":
        engine = EmbeddedEngine(str(tmp_path / "fresh" / "search.db"))
        yield engine
        engine.close()
        return
    url, key = os.environ["MEILI_TEST_URL"], os.environ.get("MEILI_TEST_KEY")
    client = meilisearch.Client(url, key)
    client.wait_for_task(client.delete_index("subtitles").task_uid)  # the next set-up makes it
    yield MeilisearchEngine(url, key, key)


def channel(cid="UCaaaaaaaaaaaaaaaaaaaaaa", title="チャンネル", subscribers=100):
    return SimpleNamespace(id=cid, title=title, subscriber_count=subscribers)


def video(vid, published="2026-01-01T00:00:00.000Z", views=10, title="動画"):
    return SimpleNamespace(
        id=vid,
        title=title,
        published_at=published,
        thumbnail_url=f"https://i.ytimg.com/vi/{vid}/hqdefault.jpg",
        view_count=views,
    )


def documents(vid, cues, *, ch=None, description="", **video_fields):
    segments = build_segments([Cue(*c) for c in cues], auto=False)
    return video_documents(video(vid, **video_fields), ch or channel(), description, segments)


def index(engine, vid, cues, **fields):
    engine.replace_video_documents(vid, documents(vid, cues, **fields))


def search(engine, q, **kw):
    return engine.search(SearchQuery(q=q, **kw))


def test_a_two_character_japanese_word_is_found(engine):
    index(engine, "osaka000001", [(0, 3, "今日は大阪に来ました。"), (3, 6, "広告の話です。")])
    index(engine, "tokyo000001", [(0, 3, "東京の話です。")])
    hits = search(engine, "大阪").hits
    assert [h.video_id for h in hits] == ["osaka000001"]
    assert "<mark>大阪</mark>" in hits[0].highlight
    assert hits[0].matched_in == "subtitle"
    assert (hits[0].start, hits[0].end) == (0.0, 6.0)
    assert search(engine, "広告").total_hits == 1


def test_a_phrase_across_two_cues_is_found(engine):
    index(engine, "phrase00001", [(0, 3, "the quick brown"), (3, 6, "fox jumps over")])
    hits = search(engine, '"brown fox"').hits
    assert [h.video_id for h in hits] == ["phrase00001"]
    assert "<mark>brown fox</mark>" in hits[0].highlight


def test_a_word_does_not_match_inside_another(engine):
    index(engine, "network0001", [(0, 3, "the network is down")])
    index(engine, "workwork001", [(0, 3, "back to work now")])
    assert [h.video_id for h in search(engine, "work").hits] == ["workwork001"]


def test_html_in_subtitles_comes_back_escaped(engine):
    index(engine, "script00001", [(0, 3, "<script>alert(1)</script> is shown as text")])
    [hit] = search(engine, "alert").hits
    assert "<script>" not in hit.highlight
    assert "&lt;script&gt;" in hit.highlight
    assert "<mark>alert</mark>" in hit.highlight
    assert hit.text.startswith("<script>")


def test_targets_choose_the_fields(engine):
    index(
        engine,
        "kyoto000001",
        [(0, 3, "お寺を巡ります。")],
        title="京都の旅",
        description="京都と奈良を歩きます",
    )
    index(engine, "nara0000001", [(0, 3, "京都駅から出発します。")], title="奈良の旅")
    assert {h.video_id for h in search(engine, "京都", targets=("subtitle",)).hits} == {
        "nara0000001"
    }
    [title_hit] = search(engine, "京都", targets=("title",)).hits
    assert (title_hit.video_id, title_hit.matched_in, title_hit.start) == (
        "kyoto000001",
        "title",
        None,
    )
    [described] = search(engine, "奈良", targets=("description",)).hits
    assert described.matched_in == "description"


def test_channel_filter(engine):
    a, b = channel("UCaaaaaaaaaaaaaaaaaaaaaa"), channel("UCbbbbbbbbbbbbbbbbbbbbbb")
    index(engine, "chanA000001", [(0, 3, "ラーメンの話")], ch=a)
    index(engine, "chanB000001", [(0, 3, "ラーメンの話")], ch=b)
    hits = search(engine, "ラーメン", channels=(b.id,)).hits
    assert [h.video_id for h in hits] == ["chanB000001"]
    assert search(engine, "ラーメン", channels=(a.id, b.id)).total_hits == 2


def test_sorts(engine):
    index(
        engine,
        "old00000001",
        [(0, 3, "カレーの作り方")],
        published="2025-01-01T00:00:00.000Z",
        views=500,
    )
    index(
        engine,
        "new00000001",
        [(0, 3, "カレーの作り方")],
        published="2026-06-01T00:00:00.000Z",
        views=5,
    )
    index(
        engine,
        "mid00000001",
        [(0, 3, "カレーの作り方")],
        published="2025-09-01T00:00:00.000Z",
        views=50,
    )

    def order(sort):
        return [h.video_id for h in search(engine, "カレー", sort=sort, targets=("subtitle",)).hits]

    assert order("newest") == ["new00000001", "mid00000001", "old00000001"]
    assert order("oldest") == ["old00000001", "mid00000001", "new00000001"]
    assert order("views") == ["old00000001", "mid00000001", "new00000001"]


def test_exact_totals_and_pages(engine):
    for n in range(7):
        index(
            engine,
            f"page{n:07d}",
            [(0, 3, f"餃子 {n}")],
            published=f"2026-01-0{n + 1}T00:00:00.000Z",
        )
    first = search(engine, "餃子", per_page=3, page=1, sort="newest", targets=("subtitle",))
    last = search(engine, "餃子", per_page=3, page=3, sort="newest", targets=("subtitle",))
    assert first.total_hits == last.total_hits == 7
    assert len(first.hits) == 3 and len(last.hits) == 1
    assert last.hits[0].video_id == "page0000000"


def test_segments_read_back_in_order_and_replace_and_delete(engine):
    cues = [(i * 6.0, i * 6.0 + 6.0, f"文{i}です。") for i in range(5)]
    index(engine, "segments001", cues)
    segments = engine.video_segments("segments001")
    assert [s.start for s in segments] == sorted(s.start for s in segments)
    assert (
        "".join(s.text for s in segments).replace(" ", "")
        == "文0です。文1です。文2です。文3です。文4です。"
    )
    index(engine, "segments001", [(0, 3, "新しい字幕")])
    assert [s.text for s in engine.video_segments("segments001")] == ["新しい字幕"]
    engine.delete_video_documents("segments001")
    assert engine.video_segments("segments001") == []
    assert search(engine, "字幕").total_hits == 0


def test_partial_update_of_a_channel(engine):
    index(engine, "update00001", [(0, 3, "一"), (3, 6, "二")], ch=channel(subscribers=1))
    assert engine.update_channel_documents("UCaaaaaaaaaaaaaaaaaaaaaa", {"subscriber_count": 9}) >= 2


def test_health(engine):
    assert engine.health()["status"] == "available"


# -- results by video -------------------------------------------------------------------


def grouped(engine, q, **kw):
    return engine.search_videos(SearchQuery(q=q, **kw))


def test_grouped_results_list_each_video_once_with_at_most_three_moments(engine):
    cues = [(n * 20.0, n * 20.0 + 3, f"餃子の話 {n}") for n in range(6)]
    index(engine, "gyoza000001", cues, title="餃子の店")
    index(engine, "other000001", [(0, 3, "ラーメンの話")])
    results = grouped(engine, "餃子")
    [video] = results.videos
    assert (results.total_videos, results.more_than_cap) == (1, False)
    assert video.video_id == "gyoza000001"
    assert video.video_title == "餃子の店"
    assert set(video.matched_in) == {"subtitle", "title"}
    assert 1 <= len(video.moments) <= 3
    assert all(
        m.matched_in == "subtitle" and "<mark>餃子</mark>" in m.highlight for m in video.moments
    )


def test_a_video_found_by_its_title_alone_has_no_moments(engine):
    index(engine, "titleonly01", [(0, 3, "今日の話")], title="餃子の店")
    [video] = grouped(engine, "餃子").videos
    assert (video.video_id, video.moments, video.matched_in) == ("titleonly01", [], ("title",))


def test_grouped_pages_and_totals_count_videos(engine):
    for n in range(5):
        index(
            engine,
            f"gpage{n:06d}",
            [(0, 3, f"焼肉 {n}"), (30, 33, "また焼肉")],
            published=f"2026-02-0{n + 1}T00:00:00.000Z",
        )
    first = grouped(engine, "焼肉", per_page=2, sort="newest")
    last = grouped(engine, "焼肉", per_page=2, page=3, sort="newest")
    assert first.total_videos == last.total_videos == 5
    assert [v.video_id for v in first.videos] == ["gpage000004", "gpage000003"]
    assert [v.video_id for v in last.videos] == ["gpage000000"]
    oldest = grouped(engine, "焼肉", per_page=1, sort="oldest")
    assert [v.video_id for v in oldest.videos] == ["gpage000000"]


def test_grouped_channel_filter(engine):
    a, b = channel("UCaaaaaaaaaaaaaaaaaaaaaa"), channel("UCbbbbbbbbbbbbbbbbbbbbbb")
    index(engine, "gchanA00001", [(0, 3, "ラーメンの話")], ch=a)
    index(engine, "gchanB00001", [(0, 3, "ラーメンの話")], ch=b)
    results = grouped(engine, "ラーメン", channels=(b.id,))
    assert [v.video_id for v in results.videos] == ["gchanB00001"]
    assert results.videos[0].channel_id == b.id


# -- writing from the database --------------------------------------------------------------


def held(engine):
    return {v.video_id: v for v in engine.inventory()}


def test_inventory_lists_each_video_with_its_documents_and_fields(engine):
    # Given two videos, one with two segments
    first = documents("invent00001", [(0, 3, "一つ目。"), (30, 33, "二つ目。")], title="題")
    second = documents("invent00002", [], ch=channel(title="別", subscribers=None))
    engine.replace_videos({"invent00001": first, "invent00002": second})

    # When the inventory is read
    videos = held(engine)

    # Then each video is listed once, with its count and what its documents carry
    assert videos == {
        "invent00001": IndexedVideo(
            video_id="invent00001",
            documents=len(first),
            video_title="題",
            channel_title="チャンネル",
            title="題",
            subscriber_count=100,
            fingerprint=first[0].fingerprint,
        ),
        "invent00002": IndexedVideo(
            video_id="invent00002",
            documents=1,
            video_title="動画",
            channel_title="別",
            title="動画",
            subscriber_count=None,
            fingerprint=second[0].fingerprint,
        ),
    }
    assert len(first) >= 2 and first[0].fingerprint


def test_replace_videos_replaces_several_and_an_empty_list_removes_one(engine):
    # Given three indexed videos
    for vid in ("replace0001", "replace0002", "replace0003"):
        index(engine, vid, [(0, 3, "古い字幕")])

    # When two are given new documents, one goes and one is new, at once
    replaced = documents("replace0001", [(0, 3, "新しい字幕。"), (600, 603, "続き。")])
    engine.replace_videos(
        {
            "replace0001": replaced,
            "replace0002": [],
            "replace0004": documents("replace0004", [(0, 3, "新しい字幕")]),
        }
    )

    # Then the index holds exactly the new documents and the untouched video
    assert {v: i.documents for v, i in held(engine).items()} == {
        "replace0001": len(replaced),
        "replace0003": 2,
        "replace0004": 2,
    }
    assert [s.text for s in engine.video_segments("replace0001")] == [d.text for d in replaced[1:]]
    assert engine.video_segments("replace0002") == []
    found = {h.video_id for h in search(engine, "字幕").hits}
    assert found == {"replace0001", "replace0003", "replace0004"}


def test_writes_inside_writing_nest_and_are_kept(engine):
    # When a writer holds the lock and calls another writer that takes it again
    with engine.writing():
        index(engine, "nested00001", [(0, 3, "外側")])
        with engine.writing():
            index(engine, "nested00002", [(0, 3, "内側")])

    # Then both writes are kept
    assert set(held(engine)) == {"nested00001", "nested00002"}


def test_writing_refuses_an_index_never_set_up(missing):
    # Given an index no `db upgrade` set up
    # When a writer starts, then it is refused, naming what sets the index up
    with pytest.raises(IndexNotReady, match="subsearch db upgrade") as refused, missing.writing():
        missing.replace_videos({"missing0001": documents("missing0001", [])})  # pragma: no cover
    assert "subsearch search reindex" in str(refused.value)


def test_an_index_never_set_up_is_not_ready_to_read(missing):
    with pytest.raises(IndexNotReady):
        list(missing.inventory())
    with pytest.raises(IndexNotReady):
        search(missing, "字幕")
    with pytest.raises(IndexNotReady):
        missing.search_videos(SearchQuery(q="字幕"))


def test_apply_settings_says_whether_it_laid_the_index_out(missing):
    # Given an index never set up
    # When it is set up twice
    created = [missing.apply_settings(), missing.apply_settings()]

    # Then only the first call laid it out, and a writer may then write
    assert created == [True, False]
    with missing.writing():
        missing.replace_videos({"setup000001": documents("setup000001", [(0, 3, "字幕")])})
    assert [v.documents for v in missing.inventory()] == [2]


# -- Japanese words (issue 28) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("シミュレーション", "シュミレーション"),
        ("コンピュータ", "コンピューター"),
        ("藝術", "芸術"),
    ],
)
def test_each_spelling_of_a_word_finds_the_video_saying_the_other(engine, one, other):
    # Given a video saying the word one way and another saying it the other way
    index(engine, "spellone001", [(0, 3, f"これは{one}の話です。")])
    index(engine, "spelltwo001", [(0, 3, f"これは{other}の話です。")])

    # When either spelling is searched, then both videos are found
    for typed in (one, other):
        found = {hit.video_id for hit in search(engine, typed).hits}
        assert found == {"spellone001", "spelltwo001"}, typed


@pytest.mark.parametrize("listing", ["flat", "grouped"])
def test_a_word_lists_the_video_saying_it_before_one_holding_it_inside_another(engine, listing):
    # Given a video that only says 東京都, twice in a short line (which a count of
    # characters ranks first), newer and indexed first, and one that says 京都 once
    index(
        engine,
        "tokyoto0001",
        [(0, 3, "東京都です。東京都です。")],
        published="2026-02-01T00:00:00.000Z",
    )
    index(
        engine,
        "kyoto000002",
        [(0, 3, "京都に行った話をします。")],
        published="2026-01-01T00:00:00.000Z",
    )

    # When 京都 is searched
    if listing == "flat":
        found = [hit.video_id for hit in search(engine, "京都").hits]
    else:
        found = [video.video_id for video in grouped(engine, "京都").videos]

    # Then the video saying 京都 comes first: the 東京都 one may follow (the embedded
    # engine still finds the characters) or be absent (Meilisearch reads the word 東京都)
    assert found[0] == "kyoto000002"
