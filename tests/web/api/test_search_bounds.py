"""A search costs a bounded amount: a query past a bound is a 400 naming its field (the
page says why), a search past its time budget a 503 search_busy with Retry-After (the
page says so in words), and an ordinary search is untouched."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from models.search import get_engine
from models.search.embedded import engine as embedded_engine
from models.search.embedder import Questions
from tests.models.search.test_conformance import index

pytestmark = pytest.mark.database_independent

JAPANESE = {"Accept-Language": "ja"}
ENGLISH = {"Accept-Language": "en"}
# Queries whose ORs can be taken 2 x 2 x 2 x 2 and 3 x 3 x 2 ways, at and past
# bounds.MAX_BRANCHES, in few enough words.
SIXTEEN_WAYS = "大阪+OR+京都+広告+OR+宣伝+見+OR+聞い+まし+OR+でし"
EIGHTEEN_WAYS = "大阪+OR+京都+OR+神戸+広告+OR+宣伝+OR+看板+見+OR+聞い"


@pytest.fixture
def indexed():
    index(get_engine(), "bound000001", [(0, 3, "大阪の広告を見ました。")])


@pytest.fixture
def past_budget(monkeypatch):
    """Every search has run past its budget as soon as it started."""
    readings = iter([0.0])
    monkeypatch.setattr(
        embedded_engine, "time", SimpleNamespace(monotonic=lambda: next(readings, 3600.0))
    )
    monkeypatch.setattr(embedded_engine, "BUDGET_STEPS", 1)


# -- the time budget --------------------------------------------------------------------


@pytest.mark.parametrize("grouped", ["", "&groupBy=video"])
def test_a_search_past_its_budget_answers_search_busy_with_retry_after(
    client, indexed, past_budget, grouped
):
    answer = client.get(f"/api/search?q=大阪{grouped}")

    assert answer.status_code == 503
    assert answer.get_json()["error"]["code"] == "search_busy"
    assert int(answer.headers["Retry-After"]) > 0


def test_the_search_page_says_search_is_busy_in_words(client, indexed, past_budget):
    page = client.get("/search?q=大阪", headers=JAPANESE)

    assert page.status_code == 503
    assert "検索が混み合っています" in page.get_data(as_text=True)
    assert int(page.headers["Retry-After"]) > 0


def test_an_ordinary_search_is_untouched(client, indexed):
    answer = client.get("/api/search?q=大阪")

    assert answer.status_code == 200
    assert answer.get_json()["totalHits"] == 1


# -- the bounds -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "field"),
    [
        ("/api/search?q=" + "+".join(["word"] * 11), "q"),
        ("/api/search?q=海+山+川", "q"),
        ("/api/search?q=" + EIGHTEEN_WAYS, "q"),
        ("/api/search?q=は&page=1000&perPage=100", "page"),
        ("/api/search?q=は&page=11&perPage=100", "page"),
        ("/api/search?q=は&page=51", "page"),
        ("/api/search?q=は&page=1001&perPage=1", "page"),
    ],
)
def test_a_search_past_a_bound_is_refused_naming_the_field(client, address, field):
    answer = client.get(address)

    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert list(error["fields"]) == [field]


@pytest.mark.parametrize(
    "address",
    [
        "/api/search?q=" + "+".join(["word"] * 10),
        "/api/search?q=海+山",
        "/api/search?q=" + SIXTEEN_WAYS,
        "/api/search?q=大阪&page=10&perPage=100",
        "/api/search?q=大阪&page=50&groupBy=video",
    ],
)
def test_a_search_at_a_bound_is_answered(client, indexed, address):
    assert client.get(address).status_code == 200


def test_the_search_page_says_why_a_query_is_refused(client):
    page = client.get("/search?q=海+山+川", headers=JAPANESE)

    assert page.status_code == 400
    assert "1文字の語は2つまで" in page.get_data(as_text=True)


def test_the_search_page_says_how_deep_results_go(client):
    page = client.get("/search?q=大阪&page=60", headers=JAPANESE)

    assert page.status_code == 400
    assert "1000件目まで" in page.get_data(as_text=True)


def test_the_search_page_says_how_many_ors_a_search_may_combine(client):
    japanese = client.get("/search?q=" + EIGHTEEN_WAYS, headers=JAPANESE)
    english = client.get("/search?q=" + EIGHTEEN_WAYS, headers=ENGLISH)

    assert japanese.status_code == english.status_code == 400
    assert "OR の組み合わせは16通りまで" in japanese.get_data(as_text=True)
    assert "at most 16 combinations of the sides of its ORs" in english.get_data(as_text=True)


def test_a_search_by_meaning_past_what_the_model_takes_at_once_answers_search_busy(
    client, indexed, monkeypatch
):
    # Given a process whose model has its fill of questions
    engine = get_engine()
    monkeypatch.setattr(engine, "questions", Questions(1))
    taken = engine.questions._slots.acquire(blocking=False)
    assert taken
    try:
        # When a search by meaning comes, on the API and on the page
        answer = client.get("/api/search?q=大阪&semantic=1")
        page = client.get("/search?q=大阪&semantic=1", headers=JAPANESE)
        # and a keyword search
        keywords = client.get("/api/search?q=大阪")
    finally:
        engine.questions._slots.release()

    # Then the searches by meaning are told to come back, and the keyword one is answered
    assert answer.status_code == 503 and int(answer.headers["Retry-After"]) > 0
    assert answer.get_json()["error"]["code"] == "search_busy"
    assert page.status_code == 503 and "検索が混み合っています" in page.get_data(as_text=True)
    assert keywords.status_code == 200 and keywords.get_json()["totalHits"] == 1
