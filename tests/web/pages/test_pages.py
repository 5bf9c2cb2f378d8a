"""The pages people read: search results, a video with its subtitles, the account."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from models import ingest, library
from models.credits import unlock_video
from tests.factories import make_admin, make_reservation, make_user, sign_in
from tests.fakes.platform_files import manual

CH = "UCpagetestpagetestpage01"


@pytest.fixture
def indexed(platform_files):
    platform_files.channel(CH, ["pageVideo01"], title="ページのチャンネル")
    platform_files.video(
        "pageVideo01", CH, manual("大阪の<b>夜景</b>です。", "きれいですね。"), title="大阪の夜"
    )
    ingest.import_channel(CH)
    ingest.fetch_subtitles("pageVideo01")


def test_search_page_shows_one_card_per_video_with_escaped_highlights(client, indexed):
    page = client.get("/search?q=大阪").get_data(as_text=True)
    # The subtitle and the title both match: one video, one card, one moment
    assert page.count('<li class="result" data-video-id="pageVideo01"') == 1
    assert 'data-total-videos="1"' in page
    assert ">1 件</p>" in page
    [moment] = re.findall(r'<li class="moment"[^>]*>(.*?)</li>', page, re.S)
    # The moment's link carries the query, so the video page can highlight it
    assert 'href="/videos/pageVideo01?q=%E5%A4%A7%E9%98%AA">0:00</a>' in moment
    assert "<mark>大阪</mark>の&lt;b&gt;夜景&lt;/b&gt;" in moment


MOMENTS = "UCpagetestpagetestpage02"


@pytest.fixture
def moments(platform_files):
    """Four moments of 夜景, a minute apart, and a video with it only in its title."""
    said = [(f"夜景 {n} です。", "それから。", "歩きました。") for n in range(4)]
    cues = [
        {"start": 20.0 * i + 2, "end": 20.0 * i + 5, "text": text}
        for i, text in enumerate(text for three in said for text in three)
    ]
    platform_files.channel(MOMENTS, ["momentVid01", "titleOnly01"], title="夜のチャンネル")
    platform_files.video(
        "momentVid01",
        MOMENTS,
        {"type": "manual", "language": "ja", "cues": cues},
        title="散歩",
        publishedAt="2026-03-01T00:00:00.000Z",
    )
    platform_files.video(
        "titleOnly01",
        MOMENTS,
        manual("きれいですね。"),
        title="夜景の旅",
        publishedAt="2026-02-01T00:00:00.000Z",
    )
    ingest.import_channel(MOMENTS)
    ingest.fetch_subtitles("momentVid01")
    ingest.fetch_subtitles("titleOnly01")


def _cards(page):
    return dict(
        re.findall(r'<li class="result" data-video-id="([^"]+)">(.*?)\n  </li>', page, re.S)
    )


def test_a_video_card_shows_up_to_three_moments_with_their_times(client, moments):
    page = client.get("/search?q=夜景&sort=newest").get_data(as_text=True)
    cards = _cards(page)
    assert list(cards) == ["momentVid01", "titleOnly01"]
    card = cards["momentVid01"]
    assert "<strong>散歩</strong>" in card and "夜のチャンネル · 2026年3月1日" in card
    times = re.findall(
        r'href="/videos/momentVid01\?(?:t=(\d+)&amp;)?q=%E5%A4%9C%E6%99%AF">(\d+):(\d\d)</a>', card
    )
    assert len({start for start, _m, _s in times}) == 3
    assert all(int(start or 0) == int(m) * 60 + int(s) for start, m, s in times)
    assert card.count("<mark>夜景</mark>") == 3
    # A video found by its title alone: its card, no moments
    title_only = cards["titleOnly01"]
    assert 'class="moments"' not in title_only
    assert "タイトルに一致" in title_only


def test_search_pages_count_videos(client, moments):
    first = client.get("/search?q=夜景&sort=newest&perPage=1").get_data(as_text=True)
    assert list(_cards(first)) == ["momentVid01"]
    assert "<span>1 / 2</span>" in first and 'rel="next"' in first
    second = client.get("/search?q=夜景&sort=newest&perPage=1&page=2").get_data(as_text=True)
    assert list(_cards(second)) == ["titleOnly01"]
    assert ">2 件</p>" in second
    english = client.get("/search?q=夜景", headers={"Accept-Language": "en"})
    assert ">2 videos</p>" in english.get_data(as_text=True)


def test_more_videos_than_the_cap_read_as_1000_plus(client, moments, monkeypatch):
    real = library.search_videos

    def capped(user_id, query):
        return replace(real(user_id, query), total_videos=1000, more_than_cap=True)

    monkeypatch.setattr(library, "search_videos", capped)
    page = client.get("/search?q=夜景").get_data(as_text=True)
    assert ">1,000+ 件</p>" in page
    assert 'data-capped="true"' in page
    assert "<span>1 / 50+</span>" in page


def test_search_page_without_hits_and_without_a_query(client, indexed):
    assert "見つかりませんでした" in client.get("/search?q=存在しない言葉").get_data(as_text=True)
    assert client.get("/search").status_code == 302
    assert client.get("/search?q=a&sort=best").status_code == 400


def test_video_page_locks_then_shows_subtitles_after_unlock(client, indexed):
    user = make_user()
    assert "ログイン" in client.get("/videos/pageVideo01").get_data(as_text=True)
    sign_in(client, user)
    locked = client.get("/videos/pageVideo01").get_data(as_text=True)
    assert "1 クレジットで解除" in locked
    assert "きれいですね" not in locked
    unlock_video(user.id, "pageVideo01")
    opened = client.get("/videos/pageVideo01").get_data(as_text=True)
    assert "きれいですね" in opened
    assert "&lt;b&gt;夜景&lt;/b&gt;" in opened
    assert client.get("/videos/unknown0000").status_code == 404


def test_account_page_lists_history_and_favorites(client, indexed):
    sign_in(client, make_user())
    client.get("/search?q=大阪")
    client.put(f"/api/favorites/{CH}", content_type="application/json")
    page = client.get("/account").get_data(as_text=True)
    assert "大阪</a>" in page
    assert f'data-channel-id="{CH}"' in page


def test_purchase_form_and_admin_pages_render(client, app):
    assert client.get("/ads/new").status_code == 302  # sign in first
    sign_in(client, make_user())
    form = client.get("/ads/new").get_data(as_text=True)
    assert 'name="consent"' in form and "disabled" in form
    assert "最大 2 回" in form
    assert client.get("/admin/ads").status_code == 403
    admin = app.test_client()
    sign_in(admin, make_admin())
    assert "タイムライン" in admin.get("/admin/ads").get_data(as_text=True)
    assert "広告の売上" in admin.get("/admin/revenue").get_data(as_text=True)


def test_advertiser_and_report_pages(client, app):
    owner = make_user()
    reservation = make_reservation(owner, status="active")
    sign_in(client, owner)
    listing = client.get("/ads").get_data(as_text=True)
    assert f'data-reservation-id="{reservation.id}"' in listing
    detail = client.get(f"/ads/{reservation.id}").get_data(as_text=True)
    assert "まだデータがありません" in detail and "プレビュー" in detail
    other = app.test_client()
    sign_in(other, make_user())
    assert other.get(f"/ads/{reservation.id}").status_code == 404
    admin = app.test_client()
    sign_in(admin, make_admin())
    report = admin.get("/admin/ads/report?startDate=2027-01-01&endDate=2027-01-31")
    assert report.status_code == 200
    assert reservation.advertiser_name in report.get_data(as_text=True)
    assert admin.get("/admin/ads/report?startDate=2027-02-01&endDate=2027-01-01").status_code == 400


def test_video_page_marks_the_query_words_and_the_cue_of_t(client, indexed):
    user = make_user()
    sign_in(client, user)
    unlock_video(user.id, "pageVideo01")
    page = client.get("/videos/pageVideo01?t=1&q=夜景").get_data(as_text=True)
    # The query's words in <mark>, the text around them still escaped
    assert "&lt;b&gt;<mark>夜景</mark>&lt;/b&gt;" in page
    first, *others = re.findall(r"<li data-start=[^>]*>", page)
    # ?t=1 falls inside the first cue (it starts at 0): it is the current one, alone
    assert 'class="current-cue" aria-current="true"' in first
    assert others and not any("current-cue" in cue for cue in others)
    # Timestamps keep the query and seek the player; the player takes commands
    assert re.search(r'href="\?t=\d+&amp;q=%E5%A4%9C%E6%99%AF" data-seek="\d+"', page)
    assert "youtube-nocookie.com/embed/pageVideo01?enablejsapi=1&amp;origin=http" in page
    assert "&amp;start=1" in page
    # Without q nothing is marked and links stay plain
    plain = client.get("/videos/pageVideo01").get_data(as_text=True)
    assert "<mark>" not in plain and 'href="?t=0"' in plain and "current-cue" not in plain


def test_the_current_cue_is_the_last_one_begun_by_t(client, moments):
    user = make_user()
    sign_in(client, user)
    unlock_video(user.id, "momentVid01")
    page = client.get("/videos/momentVid01?t=65&q=夜景").get_data(as_text=True)
    cues = re.findall(r'<li data-start="([^"]+)"([^>]*)>', page)
    assert len(cues) > 2
    current = [float(start) for start, attrs in cues if "current-cue" in attrs]
    assert len(current) == 1 and current[0] <= 65
    assert all(float(start) > 65 for start, _ in cues if float(start) > current[0])
    assert page.count("<mark>夜景</mark>") >= 3


def test_a_card_without_a_thumbnail_shows_the_drawn_placeholder(client, platform_files):
    platform_files.channel(CH, ["noThumb0001"], title="ページのチャンネル")
    platform_files.video(
        "noThumb0001", CH, manual("大阪です。"), title="【大阪】食べ歩き", thumbnailUrl=None
    )
    ingest.import_channel(CH)
    ingest.fetch_subtitles("noThumb0001")
    card = _cards(client.get("/search?q=大阪").get_data(as_text=True))["noThumb0001"]
    assert "<img" not in card
    assert '<span class="thumb-initials">大阪</span>' in card


def test_search_and_video_pages_read_in_english_for_english_readers(client, indexed):
    en = {"Accept-Language": "en"}
    page = client.get("/search?q=大阪", headers=en).get_data(as_text=True)
    assert "Results for “大阪”" in page and "Filters and order" in page
    assert ">1 video</p>" in page and "February 1, 2026" in page
    for japanese in ("絞り込み", "検索語", "件", "字幕"):
        assert japanese not in page
    video = client.get("/videos/pageVideo01", headers=en).get_data(as_text=True)
    assert "takes 1 credit (valid for 4 weeks)" in video
    assert "Sign in</a> to read them with credits." in video
    sign_in(client, make_user())
    locked = client.get("/videos/pageVideo01", headers=en).get_data(as_text=True)
    assert "takes 1 credit (valid" in locked and ">Unlock for 1 credit</button>" in locked
    # The ads' label in the reader's language
    shown = {"Edge-IPCountry": "JP"}
    en_ads = client.get("/videos/pageVideo01", headers=en | shown).get_data(as_text=True)
    assert '<span class="ad-label">Advertisement</span>' in en_ads
    ja_ads = client.get("/videos/pageVideo01", headers=shown).get_data(as_text=True)
    assert '<span class="ad-label">広告</span>' in ja_ads


@pytest.mark.parametrize("t", ["abc", "nan", "inf", "-5", "0", "1e9", ""])
def test_a_start_that_is_not_a_time_in_a_video_opens_the_video_at_its_start(client, indexed, t):
    page = client.get(f"/videos/pageVideo01?t={t}")
    assert page.status_code == 200
    assert (
        "start="
        not in page.get_data(as_text=True).split('src="https://www.youtube-nocookie')[1][:200]
    )
