"""The search page does what the API does: channels, targets and sort chosen on the page,
held in the address under the API's names, restored by a history link; and a favourite
toggle on each channel shown."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import render_template_string
from flask_login import login_user

from models import ingest, library
from models.tables import Channel, SearchHistory
from tests.factories import make_user, sign_in
from tests.fakes.platform_files import manual
from web.urls import history_search_url

RAMEN = "UCfilterfilterfilter0001"
UDON = "UCfilterfilterfilter0002"
QUIET = "UCfilterfilterfilter0003"


def index_two_channels(platform_files) -> None:
    """Two channels that both talk about 醤油 (and a third that never does):
    - ramen01 (ラーメン研究所): said in its subtitles, oldest, 10 views
    - ramen02 (ラーメン研究所): in its title only, newest, 500 views
    - udon001 (うどん通信): said in its subtitles and its description, 50 views"""
    platform_files.channel(RAMEN, ["ramen01xxxx", "ramen02xxxx"], title="ラーメン研究所")
    platform_files.channel(UDON, ["udon001xxxx"], title="うどん通信")
    platform_files.channel(QUIET, ["quiet01xxxx"], title="静かな部屋")
    platform_files.video(
        "ramen01xxxx",
        RAMEN,
        manual("醤油ラーメンの話です。"),
        title="朝の動画",
        publishedAt="2026-01-01T00:00:00.000Z",
        viewCount=10,
    )
    platform_files.video(
        "ramen02xxxx",
        RAMEN,
        manual("今日は別の話です。"),
        title="醤油ラーメン決定版",
        publishedAt="2026-03-01T00:00:00.000Z",
        viewCount=500,
    )
    platform_files.video(
        "udon001xxxx",
        UDON,
        manual("醤油ラーメンも食べました。"),
        title="うどんの旅",
        description="醤油の歴史について",
        publishedAt="2026-02-01T00:00:00.000Z",
        viewCount=50,
    )
    platform_files.video("quiet01xxxx", QUIET, manual("何もない日です。"), title="静けさ")
    for channel_id in (RAMEN, UDON, QUIET):
        ingest.import_channel(channel_id)
    for video_id in ("ramen01xxxx", "ramen02xxxx", "udon001xxxx", "quiet01xxxx"):
        ingest.fetch_subtitles(video_id)


@pytest.fixture
def channels(platform_files):
    index_two_channels(platform_files)


def html(response) -> str:
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_data(as_text=True)


def card_ids(page: str) -> list[str]:
    return re.findall(r'<li class="result" data-video-id="([^"]+)"', page)


def checked_values(page: str, name: str) -> set[str]:
    return set(re.findall(rf'name="{name}" value="([^"]+)" checked', page))


def test_the_page_offers_targets_sort_and_every_channel_with_favourites_first(client, channels):
    user = make_user()
    sign_in(client, user)
    library.add_favorite(user.id, UDON)
    page = html(client.get("/search?q=醤油"))
    # Targets: the three, all on by default; sort: the four, relevance chosen
    for value, label in (("subtitle", "字幕"), ("title", "タイトル"), ("description", "説明")):
        assert re.search(rf'name="target" value="{value}" checked> {label}', page)
    [sort] = re.findall(r'<select name="sort".*?</select>', page, re.S)
    assert re.findall(r'<option value="(\w+)"', sort) == ["relevance", "newest", "oldest", "views"]
    assert '<option value="relevance" selected>' in page
    # Channels: the favourite in its own group first, then the others by title
    favourites = page.index('data-channel-group="favourites"')
    others = page.index('data-channel-group="all"')
    assert favourites < page.index(f'value="{UDON}"') < others
    assert others < page.index(f'value="{RAMEN}"') < page.index(f'value="{QUIET}"')
    assert page.count(f'name="channels" value="{UDON}"') == 1
    # The box that narrows the list as one types is there for the script, hidden without it
    assert "data-channel-search-label hidden" in page
    assert "search-filters.js" in page


def test_a_signed_out_visitor_gets_the_channel_list_without_a_favourites_group(client, channels):
    page = html(client.get("/search?q=醤油"))
    assert 'data-channel-group="favourites"' not in page
    for channel_id in (RAMEN, UDON, QUIET):
        assert f'name="channels" value="{channel_id}"' in page


def test_the_address_chooses_channels_targets_and_sort_and_the_results_obey(client, channels):
    only_titles = html(client.get("/search?q=醤油&target=title"))
    assert card_ids(only_titles) == ["ramen02xxxx"]
    assert checked_values(only_titles, "target") == {"title"}
    assert html(client.get(f"/search?q=醤油&channels={UDON}"))
    one_channel = html(client.get(f"/search?q=醤油&channels={UDON}"))
    assert card_ids(one_channel) == ["udon001xxxx"]
    assert checked_values(one_channel, "channels") == {UDON}
    by_views = html(client.get("/search?q=醤油&sort=views"))
    assert card_ids(by_views) == ["ramen02xxxx", "udon001xxxx", "ramen01xxxx"]
    assert '<option value="views" selected>' in by_views
    oldest_subtitles = html(
        client.get(f"/search?q=醤油&target=subtitle&sort=oldest&channels={RAMEN},{UDON}")
    )
    assert card_ids(oldest_subtitles) == ["ramen01xxxx", "udon001xxxx"]
    assert checked_values(oldest_subtitles, "channels") == {RAMEN, UDON}
    # The filters are open when they narrow the search, and say what is chosen
    assert '<details class="search-filters" open>' in oldest_subtitles
    assert "チャンネル 2 件・字幕・古い順" in oldest_subtitles
    assert "字幕/タイトル/説明・再生回数" in by_views


def test_the_form_sent_without_script_lands_on_the_apis_comma_separated_address(client, channels):
    # Given the form's checkboxes as a browser without script sends them (one parameter
    # per chosen channel and target)
    sent = client.get(
        f"/search?q=醤油&target=subtitle&target=description&sort=newest"
        f"&channels={RAMEN}&channels={UDON}"
    )
    # Then the page moves to the address the API takes, which restores everything
    assert sent.status_code == 302
    location = urlsplit(sent.headers["Location"])
    assert location.path == "/search"
    assert f"channels={RAMEN},{UDON}" in location.query
    assert parse_qs(location.query) == {
        "q": ["醤油"],
        "target": ["description,subtitle"],
        "sort": ["newest"],
        "channels": [f"{RAMEN},{UDON}"],
    }
    page = html(client.get(f"{location.path}?{location.query}"))
    assert card_ids(page) == ["udon001xxxx", "ramen01xxxx"]
    assert checked_values(page, "target") == {"subtitle", "description"}
    assert checked_values(page, "channels") == {RAMEN, UDON}
    assert '<option value="newest" selected>' in page
    # The same address answers the API the same videos
    api = client.get(f"/api/search?{location.query}&groupBy=video").get_json()
    assert [v["videoId"] for v in api["videos"]] == ["udon001xxxx", "ramen01xxxx"]


def test_page_links_keep_every_condition(client, channels):
    page = html(
        client.get(
            f"/search?q=醤油&channels={RAMEN},{UDON}&target=subtitle,title&sort=views&perPage=1"
        )
    )
    assert card_ids(page) == ["ramen02xxxx"]
    # The form keeps what it does not show (a new search starts again at page 1)
    assert '<input type="hidden" name="perPage" value="1">' in page
    assert 'name="page"' not in page
    following = re.search(r'<a href="([^"]+)" rel="next">', page).group(1).replace("&amp;", "&")
    assert parse_qs(urlsplit(following).query) == {
        "q": ["醤油"],
        "channels": [f"{RAMEN},{UDON}"],
        "target": ["subtitle,title"],
        "sort": ["views"],
        "perPage": ["1"],
        "page": ["2"],
    }
    assert card_ids(html(client.get(following))) == ["udon001xxxx"]


def test_a_history_link_restores_every_condition_of_the_search(client, app, channels):
    user = make_user()
    sign_in(client, user)
    searched = f"/search?q=醤油&channels={UDON},{RAMEN}&target=title,subtitle&sort=oldest"
    first = card_ids(html(client.get(searched)))
    entry = SearchHistory.get(SearchHistory.user == user.id)
    with app.test_request_context():
        link = history_search_url(entry)
    assert parse_qs(urlsplit(link).query) == {
        "q": ["醤油"],
        "channels": [f"{RAMEN},{UDON}"],
        "target": ["subtitle,title"],
        "sort": ["oldest"],
    }
    # Followed, the link shows the same results and is the same history entry
    assert (
        card_ids(html(client.get(link))) == first == ["ramen01xxxx", "udon001xxxx", "ramen02xxxx"]
    )
    assert SearchHistory.select().where(SearchHistory.user == user.id).count() == 1


def test_a_history_link_of_a_plain_search_is_plain_and_keeps_semantic_settings(app):
    user = make_user()
    plain = SearchHistory.create(user=user.id, query="夜景 と 朝")
    semantic = SearchHistory.create(user=user.id, query="夜景", semantic=1, sr=0.8, sort="views")
    with app.test_request_context():
        assert history_search_url(plain) == "/search?q=%E5%A4%9C%E6%99%AF+%E3%81%A8+%E6%9C%9D"
        assert parse_qs(urlsplit(history_search_url(semantic)).query) == {
            "q": ["夜景"],
            "sort": ["views"],
            "semantic": ["1"],
            "sr": ["0.8"],
        }


def test_each_result_and_chosen_channel_has_a_favourite_toggle_for_members_only(client, channels):
    page = html(client.get(f"/search?q=醤油&channels={UDON}"))
    assert "data-favourite-channel" not in page
    assert "favourite.js" not in page
    user = make_user()
    sign_in(client, user)
    library.add_favorite(user.id, UDON)
    page = html(client.get("/search?q=醤油"))
    ramen = re.findall(rf'data-favourite-channel="{RAMEN}"\s+aria-pressed="(\w+)"', page)
    udon = re.findall(rf'data-favourite-channel="{UDON}"\s+aria-pressed="(\w+)"', page)
    assert ramen == ["false", "false"]  # two ramen cards
    assert udon == ["true"]
    assert 'aria-label="うどん通信 をお気に入りから外す"' in page
    assert 'aria-label="ラーメン研究所 をお気に入りに追加"' in page
    assert "favourite.js" in page
    # A search narrowed to channels shows each of them as a header with its toggle
    narrowed = html(client.get(f"/search?q=醤油&channels={UDON},{RAMEN}"))
    headers = re.findall(
        r'<li class="channel-header" data-channel-id="(\w+)">'
        r'<span class="channel-name">([^<]+)</span>'
        r'<button type="button" class="favourite-toggle" data-favourite-channel="\w+"\s+'
        r'aria-pressed="(\w+)"',
        narrowed,
    )
    assert headers == [(RAMEN, "ラーメン研究所", "false"), (UDON, "うどん通信", "true")]


# The lines the account page and the video page take in (templates they own; README of
# this change): the macro and the history link work in any page's template.
IMPORT = '{% from "_favourite.html" import favourite_toggle, favourite_script with context %}'
ACCOUNT_LINES = (
    IMPORT
    + """{% for entry in history %}
<a href="{{ history_search_url(entry) }}">{{ entry.query }}</a>{% endfor %}
<ul class="favorites">{% for favorite, channel in favorites %}
<li data-channel-id="{{ channel.id }}">{{ channel.title }}
  {{- favourite_toggle(channel.id, channel.title, true) }}</li>
{% endfor %}</ul>
{{ favourite_script() }}"""
)
VIDEO_LINES = (
    IMPORT
    + """
<p class="meta">{{ channel.title }}{{ favourite_toggle(channel.id, channel.title) }} · x</p>
{{ favourite_script() }}"""
)


def test_the_toggle_and_the_history_link_work_on_the_account_and_video_pages(app, channels):
    user = make_user()
    library.add_favorite(user.id, UDON)
    entry = SearchHistory.create(user=user.id, query="醤油", channels=UDON, target="title")
    ramen = Channel.get_by_id(RAMEN)
    with app.test_request_context():
        login_user(user)
        account = render_template_string(
            ACCOUNT_LINES, history=[entry], favorites=library.favorites(user.id)
        )
        video = render_template_string(VIDEO_LINES, channel=ramen)
        favourite_video = render_template_string(VIDEO_LINES, channel=Channel.get_by_id(UDON))
    assert (
        f'<a href="/search?q=%E9%86%A4%E6%B2%B9&amp;channels={UDON}&amp;target=title">' in account
    )
    assert re.search(
        rf'<li data-channel-id="{UDON}">うどん通信<button type="button" '
        rf'class="favourite-toggle" data-favourite-channel="{UDON}"\s+aria-pressed="true" '
        r'aria-label="うどん通信 をお気に入りから外す"',
        account,
    )
    assert "/static/favourite.js" in account and "data-favourite-error" in account
    assert 'aria-pressed="false" aria-label="ラーメン研究所 をお気に入りに追加"' in video
    assert '<span class="favourite-star" aria-hidden="true">☆</span>' in video
    assert 'aria-pressed="true"' in favourite_video
    assert "★" in favourite_video
    with app.test_request_context():  # signed out: neither toggle nor script
        signed_out = render_template_string(VIDEO_LINES, channel=ramen)
    assert "favourite" not in signed_out
