"""The home page people start from: example searches from what was searched (else from
the index's titles, never invented) and the indexed channels, each a way into a search."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

from models import ingest, library
from models.clock import iso, utcnow
from models.home import example_searches
from models.platform.fixture import FixturePlatform
from models.search import SearchQuery
from models.search.text import CJK_RUN
from models.tables import SearchHistory, Video
from tests.factories import make_channel, make_user, make_video
from tests.web.test_i18n import english_on


def _examples(page: str) -> list[str]:
    section = re.search(r'<ul class="example-searches">(.*?)</ul>', page, re.S)
    return [unescape(q) for q in re.findall(r">([^<]+)</a>", section.group(1))] if section else []


def test_an_empty_index_shows_the_search_box_and_says_no_channels_yet(client):
    page = client.get("/").get_data(as_text=True)
    assert 'action="/search"' in page
    assert "まだ検索できるチャンネルはありません。" in page
    assert 'class="example-searches"' not in page  # nothing invented


def test_examples_are_the_most_searched_queries_of_the_last_30_days(client):
    make_video(title="大阪 グルメ 旅")
    searched = ["京都 紅葉", "京都 紅葉", "京都 紅葉", "大阪", "大阪", "私の住所"]
    for n, words in enumerate(searched):
        library.record_search(make_user(email=f"h{n}@example.jp").id, SearchQuery(q=words))
    old = make_user(email="old@example.jp")
    library.record_search(old.id, SearchQuery(q="昔の話"))
    SearchHistory.update(searched_at=iso(utcnow() - timedelta(days=40))).where(
        SearchHistory.user == old.id
    ).execute()
    page = client.get("/").get_data(as_text=True)
    assert _examples(page) == ["京都 紅葉", "大阪"]  # one member's own search is never shown
    assert 'href="/search?q=%E4%BA%AC%E9%83%BD+%E7%B4%85%E8%91%89"' in page


def test_without_history_examples_are_words_shared_by_recent_titles(client):
    channel = make_channel(title="旅のチャンネル")
    make_video(channel, title="大阪グルメ｜夜の散歩")
    make_video(channel, title="【大阪グルメ】朝ごはん")
    make_video(channel, title="京都 散策")
    assert example_searches() == ["大阪グルメ"]


def test_a_library_of_japanese_titles_without_spaces_offers_their_nouns(client):
    """Japanese titles are long runs without spaces: split on spaces and punctuation, a
    series of them offered nothing; the analyser finds the words they share."""
    channel = make_channel(title="中華街チャンネル")
    for n in range(1, 4):
        make_video(
            channel,
            title=f"横浜中華街でぴよぴよざかなを食べ比べ 第{n}回 行列のできる名店を{n}軒",
        )
    examples = example_searches()
    assert {"横浜中華街", "行列", "名店"} <= set(examples)
    # No counters or particles
    assert not any(re.search(r"\d|回|を|の", words) for words in examples)
    page = client.get("/").get_data(as_text=True)
    assert "横浜中華街" in _examples(page)


def _search_form(page: str) -> str:
    found = re.search(
        r'<form method="get" action="/search" role="search" class="search-form">.*?</form>',
        page,
        re.S,
    )
    assert found, "the search form is on the page"
    return found.group(0)


def test_the_home_page_has_the_search_pages_form_with_meaning_help_and_filters(client):
    channel = make_channel(title="旅のチャンネル")
    make_video(channel, title="大阪グルメ")
    home = client.get("/").get_data(as_text=True)
    form = _search_form(home)
    assert 'role="switch" name="semantic" value="1" data-meaning-switch' in form
    assert 'popovertarget="search-help"' in form and 'id="search-help"' in home
    assert "data-query-panel" in form and 'name="sort"' in form
    assert f'name="channels" value="{channel.id}"' in form
    for script in ("search-query.js", "meaning.js", "search-filters.js", 'id="query-rules"'):
        assert script in home
    # The same form as the search page's, but for the words in the box
    searched = client.get("/search?q=大阪").get_data(as_text=True)
    assert _search_form(searched).replace('value="大阪"', 'value=""').replace(
        ' placeholder="例: 大阪 グルメ"', ""
    ) == form.replace(' placeholder="例: 大阪 グルメ"', "")


def test_channels_show_their_video_count_and_search_inside_them(client):
    big = make_channel(title="大きいチャンネル")
    small = make_channel(title="小さいチャンネル")
    for _ in range(3):
        make_video(big)
    make_video(small)
    make_video(make_channel(title="消えたチャンネル", subtitle_status="deleted"))
    page = client.get("/").get_data(as_text=True)
    ids = re.findall(r'<li class="home-channel" data-channel-id="([^"]+)"', page)
    assert ids == [big.id, small.id]
    assert "大きいチャンネル" in page and "動画 3 本" in page and "消えたチャンネル" not in page
    # Each channel's form searches inside it, as /search?q=…&channels=ID
    assert f'<input type="hidden" name="channels" value="{big.id}">' in page
    found = client.get(f"/search?q=動画&channels={big.id}")
    assert found.status_code == 200


def test_the_home_page_reads_in_english_for_english_readers(client):
    make_video()
    page = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Search the words spoken in videos" in page
    assert "Channels in the index" in page and "Videos: 1" in page


def test_home_and_video_pages_in_japanese_show_no_english_source_sentence(client):
    video = make_video(
        title="大阪 グルメ 旅", subtitle_status="failed", next_fetch_at="2026-11-24T03:00:00.000Z"
    )
    library.record_search(make_user(email="ja@example.jp").id, SearchQuery(q="大阪"))
    ja = {"Accept-Language": "ja"}
    home_page = client.get("/", headers=ja).get_data(as_text=True)
    assert english_on(home_page) == [] and "動画 1 本" in home_page
    video_page = client.get(f"/videos/{video.id}", headers=ja).get_data(as_text=True)
    assert english_on(video_page) == []
    # The next fetch in the reader's zone (Asia/Tokyo), not UTC
    assert "2026/11/24 12:00 ごろに自動で取得し直します。" in video_page


def test_an_empty_answer_is_not_kept_so_the_first_channel_shows_at_once(client):
    assert "まだ検索できるチャンネルはありません。" in client.get("/").get_data(as_text=True)
    make_video(make_channel(title="最初のチャンネル"))
    page = client.get("/").get_data(as_text=True)  # within the minute answers are kept
    assert "最初のチャンネル" in page
    assert "まだ検索できるチャンネルはありません。" not in page


def test_stopwords_lone_kana_and_lone_letters_are_never_examples(client):
    channel = make_channel(title="Walks")
    for title in ("Walking in Kyoto", "Eating in Osaka", "Ramen for one", "Ramen for two"):
        make_video(channel, title=title)
    assert example_searches() == ["Ramen"]  # not "in" or "for", though shared by two titles
    for n, words in enumerate(["in", "for", "の", "a", "鹿", "in kyoto", "紅葉"] * 2):
        library.record_search(make_user(email=f"w{n}@example.jp").id, SearchQuery(q=words))
    assert sorted(example_searches()) == sorted(["鹿", "紅葉"])  # a lone kanji is a word


def test_examples_in_the_readers_language_come_first(client):
    make_video(title="大阪 ramen")
    for n, words in enumerate(["ramen", "ramen", "ramen", "大阪", "大阪"]):
        library.record_search(make_user(email=f"l{n}@example.jp").id, SearchQuery(q=words))
    ja = client.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert _examples(ja) == ["大阪", "ramen"]
    en = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert _examples(en) == ["ramen", "大阪"]


def test_a_fresh_install_offers_the_sample_datas_own_examples(client):
    sample = FixturePlatform()
    for channel_id in sample.channel_ids():
        ingest.import_channel(channel_id)
    suggested = [w for words in sample.example_searches().values() for w in words]
    ja = _examples(client.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True))
    assert ja and set(ja) <= set(suggested)
    assert "たこ焼き" in ja and "in" not in ja and "for" not in ja
    japanese = [bool(CJK_RUN.search(w)) for w in ja]
    assert japanese == sorted(japanese, reverse=True)  # Japanese ones first
    en = _examples(client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True))
    assert sorted(en) == sorted(ja) and not CJK_RUN.search(en[0])


def test_every_sample_example_finds_something(client):
    sample = FixturePlatform()
    for channel_id in sample.channel_ids():
        ingest.import_channel(channel_id)
    for video in Video.select().where(Video.subtitle_status == "pending"):
        ingest.fetch_subtitles(video.id)
    for channel_id, words in sample.example_searches().items():
        for q in words:
            found = library.search_videos(None, SearchQuery(q=q, channels=(channel_id,)))
            assert found.total_videos >= 1, q
