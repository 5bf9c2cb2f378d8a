"""The search page speaks the query language (models/search/query.py): the filters and
the words left out of a query shown in words, each with a link to the search without
it; the filter panel showing the query's filters, and folded into `q` when a browser
without script sends it; a query that cannot be read answered with the page itself,
saying what is wrong and where in the reader's language; the history keeping the
operators in the query."""

from __future__ import annotations

import html as html_text
import json
import re
from dataclasses import asdict
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from models import ingest
from models.search import query as query_language
from models.search.query import PROBLEMS, SUBTITLE_TYPES, QueryError, grammar, parse_search
from models.tables import SearchHistory
from tests.factories import make_user, sign_in
from tests.fakes.platform_files import auto, manual
from web.pages import search as search_page
from web.pages.search import SUBTITLE_KINDS, control_values, fold_controls
from web.search_refusals import QUERY_PROBLEMS

JAPANESE = {"Accept-Language": "ja"}
ENGLISH = {"Accept-Language": "en"}
KITCHEN = "UCquerylanguagepage00001"


def index_kitchen(platform_files) -> None:
    """Three videos that all say 醤油, each a different kind:
    - longja00001: 30 minutes, manual Japanese subtitles, June 2024, 20,000 views
    - shortauto01: 2 minutes, auto Japanese subtitles, March 2023, 50 views
    - mediumen001: 10 minutes, manual English subtitles, February 2024, 800 views"""
    videos = {
        "longja00001": {
            "subtitles": manual("醤油ラーメンの長い話です。"),
            "durationSeconds": 1800,
            "publishedAt": "2024-06-01T00:00:00.000Z",
            "viewCount": 20000,
        },
        "shortauto01": {
            "subtitles": auto("醤油の短い話です。"),
            "durationSeconds": 120,
            "publishedAt": "2023-03-01T00:00:00.000Z",
            "viewCount": 50,
        },
        "mediumen001": {
            "subtitles": manual("醤油 is soy sauce.", language="en"),
            "durationSeconds": 600,
            "publishedAt": "2024-02-01T00:00:00.000Z",
            "viewCount": 800,
        },
    }
    platform_files.channel(KITCHEN, list(videos), title="台所")
    for video_id, fields in videos.items():
        platform_files.video(video_id, KITCHEN, fields.pop("subtitles"), **fields)
    ingest.import_channel(KITCHEN)
    for video_id in videos:
        ingest.fetch_subtitles(video_id)


@pytest.fixture
def kitchen(platform_files):
    index_kitchen(platform_files)


def search(client, q: str, headers=JAPANESE, **params):
    return client.get("/search?" + urlencode({"q": q, **params}), headers=headers)


def page_of(response) -> str:
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_data(as_text=True)


def card_ids(page: str) -> list[str]:
    return re.findall(r'<li class="result" data-video-id="([^"]+)"', page)


def chips(page: str) -> list[tuple[str, str, str]]:
    """Each filter in use: its words, its remove link's accessible name, its address."""
    found = re.findall(
        r'<li class="applied-part"><span>([^<]*)</span><a href="([^"]+)" aria-label="([^"]+)">',
        page,
    )
    unescape = html_text.unescape
    return [(unescape(words), unescape(name), unescape(to)) for words, to, name in found]


def box_value(page: str) -> str:
    return html_text.unescape(
        re.search(r'<input type="search" name="q" value="([^"]*)"', page).group(1)
    )


def control(page: str, name: str) -> str:
    """The value a control of the filter panel shows."""
    date = re.search(rf'<input type="date" name="{name}" value="([^"]*)"', page)
    if date:
        return date.group(1)
    [select] = re.findall(rf'<select name="{name}".*?</select>', page, re.S)
    chosen = re.findall(r'<option value="([^"]*)"[^>]* selected', select)
    return chosen[0] if chosen else ""


def q_of(address: str) -> str:
    return parse_qs(urlsplit(address).query)["q"][0]


# -- filters in use, in words -----------------------------------------------------------

EVERY_PART = "ラーメン -カップ after:2024-01-01 duration:>20m type:manual lang:ja views:>10000"


def test_each_filter_and_word_left_out_shows_in_words_with_a_link_without_it(client, kitchen):
    page = page_of(search(client, EVERY_PART, channels=KITCHEN, sort="newest"))
    found = chips(page)
    assert [words for words, _, _ in found] == [
        "除外: カップ",
        "2024-01-01 以降",
        "20分超",
        "手動字幕",
        "日本語",
        "再生 10,000 回超",
    ]
    assert [name for _, name, _ in found] == [f"{words} を外す" for words, _, _ in found]
    # Each link is the same search without that part, the rest as typed
    remaining = [q_of(address) for _, _, address in found]
    assert remaining[0] == EVERY_PART.replace("-カップ ", "")
    assert remaining[2] == EVERY_PART.replace("duration:>20m ", "")
    assert remaining[5] == EVERY_PART.replace(" views:>10000", "")
    for _, _, address in found:
        assert parse_qs(urlsplit(address).query)["channels"] == [KITCHEN]
        assert parse_qs(urlsplit(address).query)["sort"] == ["newest"]
    assert 'aria-label="適用中の絞り込み"' in page


def test_the_filters_in_use_speak_english_to_an_english_reader(client, kitchen):
    page = page_of(search(client, EVERY_PART, headers=ENGLISH))
    assert [words for words, _, _ in chips(page)] == [
        "Without カップ",
        "From 2024-01-01",
        "Over 20 min",
        "Manual subtitles",
        "Japanese",
        "Over 10,000 views",
    ]
    assert chips(page)[1][1] == "Remove From 2024-01-01"


@pytest.mark.parametrize(
    ("q", "ja", "en"),
    [
        ("x duration:short", "4分未満", "Under 4 min"),
        ("x duration:medium", "4分〜20分", "4 min to 20 min"),
        ("x duration:LONG", "20分超", "Over 20 min"),
        ("x duration:>=1h30m", "1時間30分以上", "1 h 30 min or longer"),
        ("x duration:<=90s", "1分30秒以下", "1 min 30 s or shorter"),
        ("x duration:<4", "4分未満", "Under 4 min"),
        ("x views:<500", "再生 500 回未満", "Under 500 views"),
        ("x views:>=1.5m", "再生 1,500,000 回以上", "1,500,000 views or more"),
        ("x type:auto", "自動字幕", "Auto-generated subtitles"),
        ("x lang:ko", "韓国語", "Korean"),
        ("x before:2024-03", "2024-03 まで", "Until 2024-03"),
        ('x -"替え玉 無料"', '除外: "替え玉 無料"', 'Without "替え玉 無料"'),
        ("x －カップ", "除外: カップ", "Without カップ"),
    ],
)
def test_every_kind_of_part_has_words_in_both_languages(client, q, ja, en):
    assert [w for w, _, _ in chips(page_of(search(client, q)))] == [ja]
    assert [w for w, _, _ in chips(page_of(search(client, q, headers=ENGLISH)))] == [en]


def test_a_query_of_words_alone_shows_no_filters_in_use(client, kitchen):
    page = page_of(search(client, "醤油 ラーメン"))
    assert chips(page) == []
    assert "applied-parts" not in page


def test_following_a_link_takes_the_part_out_and_searches_again(client, kitchen):
    page = page_of(search(client, "醤油 duration:long"))
    [(_, _, address)] = chips(page)
    again = page_of(client.get(address, headers=JAPANESE))
    assert box_value(again) == "醤油"
    assert chips(again) == []


# -- the filter panel ------------------------------------------------------------------


def test_the_panel_shows_the_filters_of_the_query(client, kitchen):
    page = page_of(search(client, "醤油 after:2024-02 before:2024 duration:long type:auto lang:ja"))
    assert control(page, "after") == "2024-02-01"
    assert control(page, "before") == "2024-12-31"  # the last day a before: takes in
    assert control(page, "duration") == "long"
    assert control(page, "type") == "auto"
    assert control(page, "lang") == "ja"
    # The query as drawn goes with the controls, for a browser without script
    assert re.search(r'<input type="hidden" name="shown" value="([^"]+)"', page).group(1) == (
        "醤油 after:2024-02 before:2024 duration:long type:auto lang:ja"
    )
    # Folded: the filters show above the results; the summary counts them, and the reset
    # takes them out of the words
    assert '<details class="search-filters">' in page
    assert re.search(r'<span class="note filter-summary">絞り込み 5 件・', page)
    reset = re.search(r'<a href="([^"]+)">条件をリセット</a>', page).group(1)
    assert q_of(html_text.unescape(reset)) == "醤油"


def test_the_panel_offers_the_usual_languages_and_the_querys_own(client, kitchen):
    usual = page_of(search(client, "醤油"))
    [select] = re.findall(r'<select name="lang".*?</select>', usual, re.S)
    assert re.findall(r'<option value="(\w*)"', select) == [
        "",
        "ja",
        "en",
        "ko",
        "zh",
        "es",
        "fr",
        "de",
        "pt",
    ]
    assert ">日本語<" in select and ">英語<" in select and ">指定なし<" in select
    italian = page_of(search(client, "醤油 lang:it"))
    assert control(italian, "lang") == "it"
    assert '<option value="it" selected>イタリア語</option>' in italian
    assert control(usual, "duration") == "" and control(usual, "after") == ""


def test_a_length_typed_otherwise_than_a_class_is_kept_as_typed(client, kitchen):
    page = page_of(search(client, "醤油 duration:>20m"))
    assert control(page, "duration") == "typed"
    assert box_value(page) == "醤油 duration:>20m"
    plain = page_of(search(client, "醤油"))
    assert re.search(r'<option value="typed" data-typed-length hidden disabled>', plain)


def test_the_controls_read_what_the_query_says():
    assert control_values("a after:2024 before:2024-02 duration:>4m duration:<10m") == {
        "after": "2024-01-01",
        "before": "2024-02-29",
        "duration": "typed",
        "type": "",
        "lang": "",
    }
    assert control_values("a duration:Medium TYPE:manual lang:EN")["duration"] == "medium"
    assert control_values("a lang:EN")["lang"] == "en"
    assert control_values("a after:2024-13-01") == dict.fromkeys(control_values("a"), "")


# -- the panel without script: folded into q ----------------------------------------------


@pytest.mark.parametrize(
    ("q", "sent", "drawn", "folded"),
    [
        # A control the reader changed writes its filter, at the end when the words hold none
        (
            "ラーメン",
            {"after": "2024-01-01", "duration": "long", "lang": "ja"},
            "ラーメン",
            "ラーメン after:2024-01-01 duration:long lang:ja",
        ),
        # ... in the place of the one typed, the rest as typed
        (
            "ラーメン lang:ja -カップ",
            {"lang": "en"},
            "ラーメン lang:ja -カップ",
            "ラーメン lang:en -カップ",
        ),
        # "any" takes it out
        ("ラーメン type:auto 替え玉", {"type": ""}, "ラーメン type:auto 替え玉", "ラーメン 替え玉"),
        # a class replaces a length given as two bounds
        (
            "x duration:>4m y duration:<10m",
            {"duration": "short"},
            "x duration:>4m y duration:<10m",
            "x duration:short y",
        ),
        # a length kept as typed changes nothing
        ("x duration:>20m", {"duration": "typed"}, "x duration:>20m", "x duration:>20m"),
        # a control left as drawn leaves what was typed in the box since
        ("ラーメン lang:en", {"lang": "ja", "type": ""}, "ラーメン lang:ja", "ラーメン lang:en"),
        # a day left as drawn leaves the month typed
        ("x before:2024-02", {"before": "2024-02-29"}, "x before:2024-02", "x before:2024-02"),
        # an address made by hand, without the query as drawn: a value is a change
        ("ラーメン", {"lang": "ko", "after": ""}, None, "ラーメン lang:ko"),
        # a query that cannot be read gets the changed filters at the end
        (
            "ラーメン after:2024-13",
            {"lang": "ja"},
            "ラーメン after:2024-13",
            "ラーメン after:2024-13 lang:ja",
        ),
    ],
)
def test_the_changed_controls_fold_into_the_query(q, sent, drawn, folded):
    assert fold_controls(q, sent, drawn) == folded
    if folded != q:
        parse_search(folded.replace("2024-13", "2024-12"))  # and the query language reads it


def test_the_form_sent_without_script_lands_on_an_address_holding_q_alone(client, kitchen):
    # Given the form as a browser without script sends it: every control, the query as drawn
    sent = client.get(
        "/search?"
        + urlencode(
            [
                ("q", "醤油 lang:ja"),
                ("shown", "醤油 lang:ja"),
                ("target", "subtitle"),
                ("target", "title"),
                ("sort", "newest"),
                ("sr", "0.5"),
                ("after", "2024-01-01"),
                ("before", ""),
                ("duration", "long"),
                ("type", ""),
                ("lang", "ja"),
                ("channels", KITCHEN),
            ]
        ),
        headers=JAPANESE,
    )
    assert sent.status_code == 302
    location = urlsplit(sent.headers["Location"])
    assert parse_qs(location.query) == {
        "q": ["醤油 lang:ja after:2024-01-01 duration:long"],
        "target": ["subtitle,title"],
        "sort": ["newest"],
        "channels": [KITCHEN],
    }
    page = page_of(client.get(f"{location.path}?{location.query}", headers=JAPANESE))
    assert box_value(page) == "醤油 lang:ja after:2024-01-01 duration:long"
    assert control(page, "duration") == "long"


# -- a query that cannot be read ---------------------------------------------------------

# One query for each problem, with the part named and where it starts.
UNREADABLE = {
    "unknown_filter": ("醤油 color:red", "color:red", 4),
    "empty_filter": ("醤油 lang:", "lang:", 4),
    "bad_date": ("醤油 after:2024-13-01", "after:2024-13-01", 4),
    "empty_range": ("醤油 after:2024-05-01 before:2024-04-01", "before:2024-04-01", 21),
    "bad_duration": ("醤油 duration:forever", "duration:forever", 4),
    "bad_type": ("醤油 type:human", "type:human", 4),
    "bad_language": ("醤油 lang:japanese", "lang:japanese", 4),
    "bad_views": ("醤油 views:many", "views:many", 4),
    "repeated_filter": ("醤油 lang:ja lang:en", "lang:en", 12),
    "lone_minus": ("醤油 - ラーメン", "-", 4),
    "dangling_or": ("醤油 OR", "OR", 4),
    "excluded_filter": ("醤油 -lang:ja", "-lang:ja", 4),
    "excluded_in_or": ("醤油 OR -ラーメン", "-ラーメン", 7),
    "filter_in_or": ("醤油 OR lang:ja", "lang:ja", 7),
    "short_prefix": ("醤油 a*", "a*", 4),
    "no_words": ("-醤油 lang:ja", "-醤油 lang:ja", 1),
    "too_large": (
        "醤油 duration:>99999999999999999999h",
        "duration:>99999999999999999999h",
        4,
    ),
}


def test_every_problem_of_the_query_language_is_said_in_the_readers_words():
    assert set(QUERY_PROBLEMS) == set(PROBLEMS) == set(UNREADABLE)
    assert set(SUBTITLE_KINDS) == set(SUBTITLE_TYPES)


def script_rules(page: str) -> dict:
    """What the page hands search-query.js."""
    raw = re.search(r'<script type="application/json" id="query-rules">(.*?)</script>', page)
    return json.loads(raw.group(1))


@pytest.mark.parametrize(("headers", "korean"), [(JAPANESE, "韓国語"), (ENGLISH, "Korean")])
def test_the_page_hands_its_script_the_query_language_as_the_server_reads_it(
    client, headers, korean
):
    read = json.loads(json.dumps(asdict(grammar())))
    for q in ("醤油 lang:ko", "醤油 lang:korean"):  # a query read, and one refused
        rules = script_rules(search(client, q, headers=headers).get_data(as_text=True))
        assert {**rules, "languages": read["languages"]} == read
        assert list(rules["languages"]) == read["languages"]
        assert rules["languages"]["ko"] == korean  # as the page names it
        assert f'<option value="ko" selected>{korean}</option>' in search(
            client, "醤油 lang:ko", headers=headers
        ).get_data(as_text=True)


def test_a_rule_changed_on_the_server_is_the_one_the_page_hands_its_script(client, monkeypatch):
    # Given the query language takes one more subtitle kind
    monkeypatch.setattr(query_language, "SUBTITLE_TYPES", ("manual", "auto", "dubbed"))
    monkeypatch.setattr(search_page, "SUBTITLE_TYPES", ("manual", "auto", "dubbed"))
    monkeypatch.setitem(SUBTITLE_KINDS, "dubbed", "Dubbed subtitles")
    # When the page is drawn for a query with it
    page = page_of(search(client, "醤油 type:dubbed", headers=ENGLISH))
    # Then the panel offers it and the script is told so
    assert control(page, "type") == "dubbed"
    assert '<option value="dubbed" selected>Dubbed subtitles</option>' in page
    assert script_rules(page)["kinds"] == ["manual", "auto", "dubbed"]


@pytest.mark.parametrize("problem", sorted(UNREADABLE))
def test_a_query_that_cannot_be_read_keeps_the_page_and_says_where(client, problem):
    q, part, at = UNREADABLE[problem]
    with pytest.raises(QueryError) as raised:
        parse_search(q)
    assert (raised.value.problem, raised.value.part, raised.value.position) == (problem, part, at)
    for headers in (JAPANESE, ENGLISH):
        answer = search(client, q, headers=headers, sort="oldest")
        page = answer.get_data(as_text=True)
        assert answer.status_code == 400
        assert box_value(page) == q  # the text as typed, to be put right
        assert '<option value="oldest" selected>' in page  # and the rest of the search
        said = re.search(r'id="query-problem" role="alert">(.*?)</div>', page, re.S).group(1)
        message = html_text.unescape(said)
        japanese = headers is JAPANESE
        if problem != "no_words":
            assert (f"{at} 文字目" if japanese else f"character {at}") in message
        if problem not in ("lone_minus", "no_words"):
            assert (f"「{part}」" if japanese else f"“{part}”") in message
        assert 'aria-invalid="true" aria-describedby="query-problem"' in page
        assert 'class="result"' not in page


def test_a_query_that_cannot_be_read_keeps_every_other_condition_even_past_a_bound(client, kitchen):
    # page x perPage is past bounds.MAX_DEPTH: the query is what is said wrong, and the
    # form keeps the rest of the search (its next search starts from the first page).
    answer = search(
        client, "醤油 -", channels=KITCHEN, target="title", semantic="1", perPage="100", page="99"
    )
    page = answer.get_data(as_text=True)

    assert answer.status_code == 400
    assert box_value(page) == "醤油 -"
    assert "文字目" in html_text.unescape(page)
    assert f'name="channels" value="{KITCHEN}" checked' in page
    assert '<input type="hidden" name="perPage" value="100">' in page
    assert 'name="target" value="title" checked' in page
    assert 'name="target" value="subtitle" checked' not in page
    assert re.search(r'name="semantic" value="1"[^>]* checked', page)
    assert 'name="page"' not in page


@pytest.mark.parametrize(
    "q",
    [
        "醤油 duration:>99999999999999999999h",
        "醤油 views:>99999999999999999999",
        "醤油 duration:<" + "9" * 150,
        "醤油 after:9999-99-99",
        "醤油 after:0000-01-01",
        "醤油 before:10000",
    ],
)
def test_a_number_out_of_range_is_said_beside_the_box(client, kitchen, q):
    answer = search(client, q, channels=KITCHEN)
    page = html_text.unescape(answer.get_data(as_text=True))
    assert answer.status_code == 400
    assert box_value(answer.get_data(as_text=True)) == q
    said = re.search(r'id="query-problem" role="alert">(.*?)</div>', page, re.S).group(1)
    assert f"「{q.split()[1]}」（4 文字目）" in said
    assert 'class="result"' not in page


def test_a_number_past_any_video_is_said_in_japanese(client, kitchen):
    ja = search(client, "醤油 views:>99999999999999999999").get_data(as_text=True)
    assert (
        "「views:>99999999999999999999」（4 文字目）の数が大きすぎます。どの動画の長さや"
        "再生回数も超えています。絞り込みに使える数は 1,000,000,000,000,000（秒または回）"
        "までです。"
    ) in html_text.unescape(ja)


def test_a_bad_date_is_said_in_japanese_and_in_english(client, kitchen):
    q = "醤油 after:2024-13-01"
    ja = search(client, q, channels=KITCHEN).get_data(as_text=True)
    assert "検索の指定を読み取れませんでした。" in ja
    assert (
        "「after:2024-13-01」（4 文字目）の日付を読み取れません。after:2024-01-01 のように、"
        "YYYY-MM-DD、YYYY-MM、YYYY のいずれかで書いてください。"
    ) in html_text.unescape(ja)
    assert f'name="channels" value="{KITCHEN}" checked' in ja
    en = html_text.unescape(search(client, q, headers=ENGLISH).get_data(as_text=True))
    assert "The search could not be read." in en
    assert (
        "“after:2024-13-01” (character 4) is not a date: write YYYY-MM-DD, YYYY-MM or YYYY,"
        " as in after:2024-01-01."
    ) in en


def test_a_query_past_a_bound_is_still_refused_in_words(client):
    answer = search(client, " ".join(["word"] * 11))
    assert answer.status_code == 400
    assert "<p>検索する語は10個までにしてください。</p>" in answer.text
    assert 'aria-describedby="query-problem"' in answer.text  # beside the box, which keeps it
    assert f'value="{" ".join(["word"] * 11)}"' in answer.text


# -- the results and the history ---------------------------------------------------------


def test_the_history_keeps_the_operators_in_the_query(client, kitchen):
    user = make_user()
    sign_in(client, user)
    page_of(search(client, "醤油 -カップ duration:long lang:ja"))
    [entry] = SearchHistory.select().where(SearchHistory.user == user.id)
    assert entry.query == "醤油 -カップ duration:long lang:ja"
    assert (entry.channels, entry.sort) == ("", "relevance")


@pytest.mark.parametrize(
    ("q", "found"),
    [
        ("醤油", ["longja00001", "mediumen001", "shortauto01"]),
        ("醤油 duration:long", ["longja00001"]),
        ("醤油 duration:short", ["shortauto01"]),
        ("醤油 duration:<15m", ["mediumen001", "shortauto01"]),
        ("醤油 type:auto", ["shortauto01"]),
        ("醤油 lang:en", ["mediumen001"]),
        ("醤油 after:2024-01-01 before:2024-03", ["mediumen001"]),
        ("醤油 views:>1000", ["longja00001"]),
        ("醤油 -ラーメン", ["mediumen001", "shortauto01"]),
    ],
)
def test_the_results_obey_the_filters(client, kitchen, q, found):
    """Needs the engine to apply the filters (models/search)."""
    assert sorted(card_ids(page_of(search(client, q)))) == found
