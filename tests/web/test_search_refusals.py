"""Why a search is refused is worded once (web/search_refusals.py): every problem of the
query language and every bound of a search has its words, in Japanese too, and the API's
message and the search page both say what that one table says."""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode

import pytest

from models.search import bounds
from models.search.query import PROBLEMS, QueryError, parse_search
from web import search_refusals
from web.search_refusals import BOUNDS, QUERY_PROBLEMS, Refusal
from web.translation import lazy_gettext


def test_every_problem_of_a_query_has_words():
    assert set(QUERY_PROBLEMS) == set(PROBLEMS)


def test_every_bound_of_a_search_has_words():
    assert set(BOUNDS) == {
        bounds.TOO_DEEP,
        bounds.TOO_MANY_TERMS,
        bounds.TOO_MANY_SCAN_TERMS,
        bounds.TOO_MANY_BRANCHES,
    }
    assert set(search_refusals.BOUND_NUMBERS) == set(BOUNDS)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_each_problem_is_said_in_japanese_and_in_english(app, problem):
    error = QueryError(problem, "x", 3)
    with app.test_request_context("/", headers={"Accept-Language": "ja"}):
        japanese = search_refusals.problem_words(error)
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        english = search_refusals.problem_words(error)
        message = search_refusals.problem_message(error)
    assert japanese != english
    assert re.search(r"[ぁ-んァ-ン一-龥]", japanese), japanese
    assert not re.search(r"[ぁ-んァ-ン一-龥]", english + message)
    if problem != "no_words":
        assert "3 文字目" in japanese
        assert "character 3" in english
        assert "at character 3" in message


@pytest.mark.parametrize("problem", list(BOUNDS))
def test_each_bound_is_said_in_japanese_and_in_english(app, problem):
    number = str(search_refusals.BOUND_NUMBERS[problem])
    with app.test_request_context("/", headers={"Accept-Language": "ja"}):
        japanese = search_refusals.bound_words(problem)
        message = search_refusals.bound_message(problem)  # English whoever asks
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        english = search_refusals.bound_words(problem)
    assert re.search(r"[ぁ-んァ-ン一-龥]", japanese), japanese
    assert not re.search(r"[ぁ-んァ-ン一-龥]", english + message)
    assert number in japanese and number in english and number in message


def test_the_api_says_the_pages_english_where_it_published_no_other(app):
    # Given a bound whose API message was never worded apart from the page's
    with app.test_request_context("/", headers={"Accept-Language": "ja"}):
        message = search_refusals.bound_message(bounds.TOO_MANY_TERMS)
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        english = search_refusals.bound_words(bounds.TOO_MANY_TERMS)
    assert message == english == f"Search with at most {bounds.MAX_TERMS} words."


# -- one table: what it says is what the API and the page say ----------------------------


def _page_problem(answer) -> str:
    said = re.search(r'id="query-problem" role="alert">(.*?)</div>', answer.text, re.S)
    return html.unescape(said.group(1))


def test_a_problem_worded_otherwise_in_the_table_is_said_so_by_the_api_and_the_page(
    client, monkeypatch
):
    # Given the table words a problem otherwise
    monkeypatch.setitem(
        QUERY_PROBLEMS,
        "bad_type",
        Refusal(
            lazy_gettext("%(part)s, character %(at)s: choose a kind."),
            api="%(part)s, character %(at)s: type:manual or type:auto.",
        ),
    )
    q = "猫 type:human"
    with pytest.raises(QueryError):
        parse_search(q)

    # When the API and the page are asked
    api = client.get("/api/search?" + urlencode({"q": q}))
    page = client.get("/search?" + urlencode({"q": q}), headers={"Accept-Language": "en"})

    # Then both say the table's words
    assert api.status_code == page.status_code == 400
    assert api.get_json()["error"]["message"] == (
        "type:human, character 3: type:manual or type:auto."
    )
    assert "type:human, character 3: choose a kind." in _page_problem(page)


def test_a_bound_worded_otherwise_in_the_table_is_said_so_by_the_api_and_the_page(
    client, monkeypatch
):
    monkeypatch.setitem(
        BOUNDS, bounds.TOO_MANY_TERMS, Refusal(lazy_gettext("No more than %(n)s words."))
    )
    q = " ".join(["word"] * (bounds.MAX_TERMS + 1))

    api = client.get("/api/search?" + urlencode({"q": q}))
    page = client.get("/search?" + urlencode({"q": q}), headers={"Accept-Language": "en"})

    assert api.get_json()["error"]["message"] == f"No more than {bounds.MAX_TERMS} words."
    assert f"No more than {bounds.MAX_TERMS} words." in page.text


# -- a refused search keeps the search box ----------------------------------------------


def _box_value(answer) -> str:
    found = re.search(r'<input type="search" name="q" value="([^"]*)"', answer.text)
    assert found, "the search box is on the page"
    return html.unescape(found.group(1))


@pytest.mark.parametrize(
    ("q", "ja", "en"),
    [
        (
            "鹿 猫 犬",
            "1文字の語は2つまでにしてください。2文字以上の語のほうが速く見つかります。",
            "Search with at most 2 words of a single kanji or kana",
        ),
        ("あ" * 201, "200文字以内で検索してください。", "Search with at most 200 characters."),
    ],
)
def test_a_refused_search_answers_on_the_search_page_with_the_box_and_the_reason(client, q, ja, en):
    """Refused before its words are read, a search once showed a bare 「エラー 400」 page
    with no box; and the API's English for a query too long on a Japanese page."""
    for language, reason in (("ja", ja), ("en", en)):
        answer = client.get(
            "/search?" + urlencode({"q": q, "semantic": "1"}),
            headers={"Accept-Language": language},
        )
        assert answer.status_code == 400
        assert _box_value(answer) == q
        assert reason in _page_problem(answer)
        assert 'aria-describedby="query-problem"' in answer.text
        assert re.search(r'name="semantic" value="1" data-meaning-switch checked', answer.text)
        assert "Some fields are not valid." not in answer.text
