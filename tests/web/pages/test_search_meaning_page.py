"""Search by meaning on the search page: the switch and its strength drawn from the
address (and so from a history link), the notice when meaning was asked for and could
not be used, moments found by meaning shown without marked words, an address the API
refuses refused here too; and the API document saying how search by meaning behaves."""

from __future__ import annotations

import html as html_text
import re
from dataclasses import replace
from urllib.parse import parse_qs, urlsplit

import pytest
from openapi_spec_validator import validate

from models import library
from models.search import get_engine
from models.search.snippets import MARK
from models.tables import SearchHistory
from tests.factories import make_user, sign_in
from tests.web.pages.test_search_page_filters import RAMEN, UDON, card_ids, html, index_two_channels
from web.urls import history_search_url


@pytest.fixture
def channels(platform_files):
    index_two_channels(platform_files)


class AnsweredByMeaning:
    """The engine as it answers once search by meaning runs: `applied` as the answer
    says, and the videos in `unmarked` found by meaning alone: their moments the same
    text with no word marked, and no field matched by its words when they have no
    moment. The page must show such answers whatever the engine."""

    def __init__(self, applied: bool, unmarked: frozenset[str] = frozenset()) -> None:
        self.engine = get_engine()
        self.applied = applied
        self.unmarked = unmarked

    def search_videos(self, query):
        found = self.engine.search_videos(query)
        videos = [
            replace(
                video,
                moments=[replace(h, highlight=MARK.sub(r"\1", h.highlight)) for h in video.moments],
                matched_in=video.matched_in if video.moments else (),
            )
            if video.video_id in self.unmarked
            else video
            for video in found.videos
        ]
        return replace(found, videos=videos, semantic_applied=self.applied)


@pytest.fixture
def answer(monkeypatch):
    """answer(applied, unmarked=()) -> the page's searches answered so."""

    def set_up(applied: bool, unmarked=()) -> None:
        engine = AnsweredByMeaning(applied, frozenset(unmarked))
        monkeypatch.setattr(library, "get_engine", lambda: engine)

    return set_up


def switch(page: str) -> str:
    [tag] = re.findall(r'<input type="checkbox" role="switch" name="semantic"[^>]*>', page)
    return tag


def strength(page: str) -> str:
    [tag] = re.findall(r'<input type="range" name="sr"[^>]*>', page, re.S)
    return tag


def attribute(tag: str, name: str) -> str:
    return html_text.unescape(re.search(rf'\s{name}="([^"]*)"', tag).group(1))


def card(page: str, video_id: str) -> str:
    """One result card's HTML: from its start to the next card or the pages' links."""
    start = page.index(f'<li class="result" data-video-id="{video_id}">')
    ends = [
        page.find(mark, start + 1) for mark in ('<li class="result"', '<nav class="pagination"')
    ]
    return page[start : min(end for end in ends if end != -1)]


def said(page: str) -> str:
    """The strength in words as the page shows it beside the control."""
    return re.search(r"data-meaning-value>([^<]*)<", page).group(1)


def test_a_plain_search_draws_the_switch_off_and_the_strength_at_its_default(client, channels):
    page = html(client.get("/search?q=醤油"))
    assert " checked" not in switch(page)
    assert 'value="1"' in switch(page)
    assert "意味で探す</span></label>" in page
    range_tag = strength(page)
    assert (attribute(range_tag, "min"), attribute(range_tag, "max")) == ("0", "1")
    assert (attribute(range_tag, "step"), attribute(range_tag, "value")) == ("0.1", "0.5")
    assert attribute(range_tag, "aria-label") == "キーワードと意味の比重"
    assert attribute(range_tag, "aria-valuetext") == said(page) == "キーワード 50%・意味 50%"
    # The ends are named on the page; the old hidden fields are gone
    assert re.search(r'aria-hidden="true">キーワード</span>\s*<input type="range"', page)
    assert re.search(
        r'data-mix="[^"]*">\s*<span class="meaning-end" aria-hidden="true">意味<', page
    )
    assert 'type="hidden" name="semantic"' not in page and 'type="hidden" name="sr"' not in page
    assert "/static/meaning.js" in page


@pytest.mark.parametrize(
    ("address", "value", "words"),
    [
        ("semantic=1", "0.5", "キーワード 50%・意味 50%"),
        ("semantic=1&sr=0.8", "0.8", "キーワード 20%・意味 80%"),
        ("semantic=1&sr=0", "0.0", "キーワードだけ"),
        ("semantic=1&sr=1", "1.0", "意味だけ"),
    ],
)
def test_the_address_turns_the_switch_on_and_sets_the_strength(
    client, channels, address, value, words
):
    page = html(client.get(f"/search?q=醤油&{address}"))
    assert switch(page).endswith(" checked>")
    assert attribute(strength(page), "value") == value
    assert attribute(strength(page), "aria-valuetext") == said(page) == words


def test_the_script_gets_the_same_sentences_and_the_default(client, channels):
    tag = strength(html(client.get("/search?q=醤油&semantic=1&sr=0.3")))
    assert attribute(tag, "data-default") == "0.5"
    assert attribute(tag, "data-words-only") == "キーワードだけ"
    assert attribute(tag, "data-meaning-only") == "意味だけ"
    assert attribute(tag, "data-mix") == "キーワード {words}%・意味 {meaning}%"


def test_an_english_reader_gets_the_controls_in_english(client, channels):
    page = html(client.get("/search?q=醤油&semantic=1&sr=0.7", headers={"Accept-Language": "en"}))
    assert "Search by meaning</span></label>" in page
    assert attribute(strength(page), "aria-label") == "Weight of keywords and meaning"
    assert said(page) == "Keywords 30%, meaning 70%"


def test_a_history_link_draws_the_switch_and_strength_as_they_were(client, app, channels):
    user = make_user()
    sign_in(client, user)
    html(client.get("/search?q=醤油&semantic=1&sr=0.8&sort=views"))
    entry = SearchHistory.get(SearchHistory.user == user.id)
    assert (entry.semantic, entry.sr) == (1, 0.8)
    with app.test_request_context():
        link = history_search_url(entry)
    page = html(client.get(link))
    assert switch(page).endswith(" checked>")
    assert attribute(strength(page), "value") == "0.8"
    assert '<option value="views" selected>' in page
    # Followed, the link is the same history entry, not a new one
    assert SearchHistory.select().where(SearchHistory.user == user.id).count() == 1


def test_resetting_the_filters_keeps_search_by_meaning(client, channels):
    page = html(client.get(f"/search?q=醤油&channels={RAMEN}&semantic=1&sr=0.7"))
    reset = re.search(r'<a href="([^"]+)">条件をリセット</a>', page).group(1)
    assert parse_qs(urlsplit(html_text.unescape(reset)).query) == {
        "q": ["醤油"],
        "semantic": ["1"],
        "sr": ["0.7"],
    }


def test_meaning_asked_for_and_not_applied_is_said(client, channels, answer):
    answer(applied=False)
    page = html(client.get("/search?q=醤油&semantic=1"))
    assert re.search(
        r'<p class="note meaning-off" role="status" data-meaning-off>'
        r"意味での検索は現在使えません。キーワードに合う結果を表示しています。</p>",
        page,
    )
    # The results are still there, found by their keywords
    assert sorted(card_ids(page)) == ["ramen01xxxx", "ramen02xxxx", "udon001xxxx"]


def test_nothing_is_said_when_meaning_was_applied_or_not_asked_for(client, channels, answer):
    answer(applied=True)
    assert "data-meaning-off" not in html(client.get("/search?q=醤油&semantic=1"))
    answer(applied=False)
    assert "data-meaning-off" not in html(client.get("/search?q=醤油"))


def test_a_moment_found_by_meaning_shows_its_words_unmarked_and_says_why(client, channels, answer):
    # Given udon's moment found by meaning alone, and ramen's by its words
    answer(applied=True, unmarked={"udon001xxxx"})
    page = html(client.get("/search?q=醤油&semantic=1"))
    udon, ramen = card(page, "udon001xxxx"), card(page, "ramen01xxxx")
    # Then udon's moment reads whole, nothing marked, with a word on why it is there
    assert "<mark>" not in udon
    assert re.search(r'<li class="moment" data-start="[\d.]+" data-by-meaning>', udon)
    assert '<span class="moment-kind">意味が近い</span>' in udon
    assert "醤油ラーメンも食べました。" in re.sub(r"<[^>]+>", "", udon)
    # And a moment found by its words keeps its marks and no such word
    assert "<mark>醤油</mark>" in ramen
    assert "data-by-meaning" not in ramen and "moment-kind" not in ramen
    # A video matched by its title's words says so
    assert '<div class="meta matched-in">タイトルに一致</div>' in card(page, "ramen02xxxx")


def test_a_video_found_by_meaning_without_a_moment_says_why_it_is_there(client, channels, answer):
    # Given ramen02 (its title says 醤油) found by meaning alone: no field matched by words
    answer(applied=True, unmarked={"ramen02xxxx"})
    page = html(client.get("/search?q=醤油&semantic=1"))
    # Then its card says it is close in meaning, not "matches in" nothing
    assert '<div class="meta matched-in">意味が近い</div>' in card(page, "ramen02xxxx")


def test_without_meaning_applied_an_unmarked_moment_is_not_called_one_found_by_meaning(
    client, channels, answer
):
    answer(applied=False, unmarked={"udon001xxxx"})
    page = html(client.get("/search?q=醤油"))
    assert "醤油ラーメンも食べました。" in re.sub(r"<[^>]+>", "", page)
    assert "data-by-meaning" not in page and "moment-kind" not in page


@pytest.mark.parametrize(
    ("address", "field", "message"),
    [
        ("sr=1.5", "sr", "キーワードと意味の比重（sr）は 0 から 1 までの数で指定してください。"),
        ("sr=-0.1", "sr", "キーワードと意味の比重（sr）は 0 から 1 までの数で指定してください。"),
        ("sr=x", "sr", "キーワードと意味の比重（sr）は 0 から 1 までの数で指定してください。"),
        ("sr=nan", "sr", "キーワードと意味の比重（sr）は 0 から 1 までの数で指定してください。"),
        ("sr=inf", "sr", "キーワードと意味の比重（sr）は 0 から 1 までの数で指定してください。"),
        (
            "semantic=2",
            "semantic",
            "意味で探すかどうか（semantic）は、探すなら 1、探さないなら 0 で指定してください。",
        ),
        (
            "semantic=yes",
            "semantic",
            "意味で探すかどうか（semantic）は、探すなら 1、探さないなら 0 で指定してください。",
        ),
    ],
)
def test_an_address_the_api_refuses_is_refused_by_the_page_in_the_readers_words(
    client, address, field, message
):
    # Given the API's answer to the address: 400 naming the field
    api = client.get(f"/api/search?q=醤油&{address}")
    assert api.status_code == 400
    assert field in api.get_json()["error"]["fields"]
    # Then the page refuses it too, says why in Japanese beside the box, which keeps
    # the words
    page = client.get(f"/search?q=醤油&{address}")
    assert page.status_code == 400
    text = page.get_data(as_text=True)
    problem = text[text.index('id="query-problem"') :]
    assert f"<p>{message}</p>" in problem[: problem.index("</div>")]
    assert '<input type="search" name="q" value="醤油"' in text


def test_an_empty_strength_from_a_form_is_read_as_the_default(client, channels):
    # A page's address may carry the form's empty fields (test_api_conformance)
    page = html(client.get("/search?q=醤油&semantic=1&sr="))
    assert switch(page).endswith(" checked>")
    assert attribute(strength(page), "value") == "0.5"


def test_a_search_by_meaning_lands_in_the_history_with_its_strength(client, channels):
    user = make_user()
    sign_in(client, user)
    html(client.get(f"/search?q=醤油&channels={UDON}&semantic=1&sr=0.2"))
    entry = SearchHistory.get(SearchHistory.user == user.id)
    assert (entry.query, entry.channels, entry.semantic, entry.sr) == ("醤油", UDON, 1, 0.2)


@pytest.mark.parametrize(
    ("sent", "lands_on"),
    [
        ("q=醤油&sr=0.7", {"q": ["醤油"]}),
        ("q=醤油&semantic=1&sr=0.5", {"q": ["醤油"], "semantic": ["1"]}),
        (
            "q=醤油&semantic=1&sr=0.5&target=title&target=subtitle",
            {"q": ["醤油"], "semantic": ["1"], "target": ["subtitle,title"]},
        ),
    ],
)
def test_a_strength_sent_where_it_counts_for_nothing_leaves_the_address(
    client, channels, sent, lands_on
):
    # Given the form as a browser without script sends it: the strength always goes
    response = client.get(f"/search?{sent}")
    # Then the page moves to the address its links write, one history row per search
    assert response.status_code == 302
    assert parse_qs(urlsplit(response.headers["Location"]).query) == lands_on


def test_a_strength_that_counts_stays_in_the_address(client, channels):
    assert client.get("/search?q=醤油&semantic=1&sr=0.7").status_code == 200
    assert client.get("/search?q=醤油&semantic=1&sr=0").status_code == 200


def test_the_api_document_says_how_search_by_meaning_behaves(client):
    document = client.get("/api/openapi.json").get_json()
    validate(document)
    [tag] = [tag for tag in document["tags"] if tag["name"] == "search"]
    said_there = tag["description"]
    for words in (
        "`semantic=1`",
        "from 0 (keywords only) to 1 (meaning only), 0.5 by default",
        "Without `semantic=1`, `sr` counts for nothing",
        "`applied` is true when the server's embedding model is loaded",
        "without `<mark>`",
    ):
        assert words in said_there, words
    # The search calls are under that tag
    assert document["paths"]["/api/search"]["get"]["tags"] == ["search"]
