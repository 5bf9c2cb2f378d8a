"""What one search may cost: a time budget on both engines (past it SearchBusy, and the
worker is free again at once) and the bounds a query is held to before it runs."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from models.search import SearchBusy, SearchQuery, meili
from models.search import bounds as search_bounds
from models.search.base import Document
from models.search.embedded import EmbeddedEngine
from models.search.embedded import engine as embedded_engine
from models.search.embedder import Questions
from models.search.meili import MeilisearchEngine
from models.search.query import parse_search
from tests.fakes.http import serve
from tests.fakes.meili_server import FakeMeilisearch
from tests.models.search.engines import embedded_engine as new_embedded
from tests.models.search.engines import on_stand_in, stand_in
from tests.models.search.test_conformance import index
from tests.models.search.test_meili_engine import SETTINGS, subtitle

pytestmark = pytest.mark.database_independent


@pytest.fixture
def clock_past_budget(monkeypatch):
    """A clock that has run past any budget as soon as the search started, looked at
    on every step of SQLite's virtual machine."""
    readings = iter([0.0])
    monkeypatch.setattr(
        embedded_engine,
        "time",
        SimpleNamespace(monotonic=lambda: next(readings, 3600.0)),
    )
    monkeypatch.setattr(embedded_engine, "BUDGET_STEPS", 1)


def many_segments(engine: EmbeddedEngine, videos: int, per_video: int = 50) -> None:
    """`videos` videos of Japanese captions without the character 鬱."""
    replaced = {}
    for n in range(videos):
        video_id = f"bud{n:08d}"
        common = {
            "video_id": video_id,
            "channel_id": "UCbudget",
            "video_title": f"動画{n}",
            "channel_title": "予算",
            "published_at": "2026-01-01T00:00:00.000Z",
        }
        replaced[video_id] = [
            Document(
                id=f"{video_id}-s{i:04d}",
                kind="subtitle",
                text=f"大阪の広告を見ました。東京は晴れです{i}",
                start=i * 5.0,
                end=i * 5.0 + 5,
                **common,
            )
            for i in range(per_video)
        ]
    engine.replace_videos(replaced)


# -- the embedded engine -------------------------------------------------------------


@pytest.mark.parametrize("answer", ["search", "search_videos"])
def test_a_search_past_its_budget_is_stopped_as_busy(embedded, clock_past_budget, answer):
    index(embedded, "busy0000001", [(0, 3, "大阪の広告を見ました")])

    with pytest.raises(SearchBusy) as stopped:
        getattr(embedded, answer)(SearchQuery(q="大阪"))

    assert stopped.value.retry_after > 0


def test_the_next_search_on_the_same_connection_runs_unhindered(embedded, monkeypatch):
    index(embedded, "busy0000002", [(0, 3, "大阪の広告を見ました")])
    readings = iter([0.0])
    monkeypatch.setattr(
        embedded_engine, "time", SimpleNamespace(monotonic=lambda: next(readings, 3600.0))
    )
    monkeypatch.setattr(embedded_engine, "BUDGET_STEPS", 1)
    with pytest.raises(SearchBusy):
        embedded.search(SearchQuery(q="大阪"))
    monkeypatch.setattr(embedded_engine, "time", time)

    assert embedded.search(SearchQuery(q="大阪")).total_hits == 1


def test_a_scan_of_a_large_index_stops_within_milliseconds_of_a_tiny_budget(tmp_path):
    engine = EmbeddedEngine(str(tmp_path / "search.db"), time_budget_ms=1)
    engine.apply_settings()
    many_segments(engine, videos=800)  # 40,000 segments: a scan takes several ms

    started = time.perf_counter()
    with pytest.raises(SearchBusy):
        engine.search_videos(SearchQuery(q="鬱"))  # a lone CJK character: a scan

    assert time.perf_counter() - started < 0.2
    engine.close()


def test_a_search_within_its_budget_is_untouched(tmp_path):
    engine = EmbeddedEngine(str(tmp_path / "search.db"), time_budget_ms=2000)
    engine.apply_settings()
    many_segments(engine, videos=20)

    assert engine.search(SearchQuery(q="晴")).total_hits == 20 * 50
    assert engine.search_videos(SearchQuery(q="大阪")).total_videos == 20
    engine.close()


def test_a_lone_character_without_a_match_answers_an_empty_page(embedded):
    index(embedded, "scan0000001", [(0, 3, "大阪の広告を見ました")])

    assert embedded.search(SearchQuery(q="鬱")).total_hits == 0
    assert embedded.search_videos(SearchQuery(q="鬱")).total_videos == 0


def test_a_lone_character_past_the_last_page_still_counts_its_matches(embedded):
    index(embedded, "scan0000002", [(0, 3, "うちの猫はかわいい")])
    index(embedded, "scan0000003", [(0, 3, "猫が好き")])

    results = embedded.search(SearchQuery(q="猫", page=5, per_page=10))

    assert (results.total_hits, results.hits) == (2, [])


# -- the meilisearch engine ------------------------------------------------------------


class SlowSearches:
    """The stand-in server, answering searches only after `delay` seconds."""

    def __init__(self, server: FakeMeilisearch, delay: float) -> None:
        self.server, self.delay = server, delay

    def __call__(self, environ, start_response):
        if environ["PATH_INFO"].endswith(("/search", "/multi-search")):
            time.sleep(self.delay)
        return self.server(environ, start_response)


@pytest.fixture
def fake():
    """The stand-in with the index as apply_settings leaves it."""
    server = stand_in()
    server.add_index(settings=SETTINGS)
    return server


def test_a_meilisearch_search_past_its_budget_is_busy_not_unavailable(fake):
    fake.seed(meili.index_document(subtitle()))
    with serve(SlowSearches(fake, delay=1.0)) as url:
        engine = MeilisearchEngine(url, "admin-key", time_budget_ms=200)
        started = time.perf_counter()
        with pytest.raises(SearchBusy):
            engine.search(SearchQuery(q="hello"))
        assert time.perf_counter() - started < 0.8


def test_a_grouped_meilisearch_search_has_one_budget_for_all_its_calls(fake):
    fake.seed(meili.index_document(subtitle()))
    # Each of its two calls fits the budget alone; together they do not.
    with serve(SlowSearches(fake, delay=0.3)) as url:
        engine = MeilisearchEngine(url, "admin-key", time_budget_ms=450)
        with pytest.raises(SearchBusy):
            engine.search_videos(SearchQuery(q="hello"))


def test_a_meilisearch_search_within_its_budget_is_untouched(fake):
    fake.seed(meili.index_document(subtitle()))
    with serve(SlowSearches(fake, delay=0.0)) as url:
        engine = MeilisearchEngine(url, "admin-key", time_budget_ms=2000)
        assert engine.search(SearchQuery(q="hello")).total_hits == 1
        assert engine.search_videos(SearchQuery(q="hello")).total_videos == 1


# -- bounds ---------------------------------------------------------------------------


def test_ten_words_may_be_searched_and_eleven_may_not():
    assert search_bounds.query_problem(parse_search(" ".join(["word"] * 10))) is None
    assert search_bounds.query_problem(parse_search(" ".join(["word"] * 11))) == "at most 10 words"


def test_a_quoted_phrase_counts_as_one_word():
    assert search_bounds.query_problem(parse_search('"' + " ".join(["word"] * 20) + '"')) is None


def test_two_single_cjk_characters_may_be_searched_and_three_may_not():
    assert search_bounds.query_problem(parse_search("海 山 大阪")) is None
    assert (
        search_bounds.query_problem(parse_search("海 山 川")) == search_bounds.TOO_MANY_SCAN_TERMS
    )


def test_a_page_reaches_at_most_the_thousandth_result():
    assert search_bounds.depth_problem(50, 20) is None
    assert search_bounds.depth_problem(10, 100) is None
    assert search_bounds.depth_problem(11, 100) == search_bounds.TOO_DEEP
    assert search_bounds.depth_problem(1000, 100) == search_bounds.TOO_DEEP


# -- the question's vector: its time counts, and so does the model's line -----------------


class SlowModel:
    """An embedder whose model takes `seconds` a question, or until `free` is set."""

    model = "slow"
    dims = 4
    loaded = True

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds
        self.free = threading.Event()
        self.asked = 0

    def passages(self, texts):
        return np.ones((len(texts), 4), dtype=np.float32) / 2

    def query(self, text):
        self.asked += 1
        self.free.wait(self.seconds)
        return np.ones(4, dtype=np.float32) / 2


@pytest.fixture
def slow_model():
    model = SlowModel()
    yield model
    model.free.set()


@pytest.mark.parametrize("sr", [0.5, 1.0])
@pytest.mark.parametrize("answer", ["search", "search_videos"])
def test_the_models_time_counts_against_the_budget_on_the_embedded_engine(
    tmp_path, slow_model, sr, answer
):
    engine = next(new_embedded(tmp_path / "s.db", time_budget_ms=200, embedder=slow_model))
    index(engine, "slow0000001", [(0, 3, "大阪の広告を見ました")])
    started = time.monotonic()

    with pytest.raises(SearchBusy):
        getattr(engine, answer)(SearchQuery(q="大阪", semantic=True, sr=sr))

    assert time.monotonic() - started < 1.0  # the budget, not the model's 5 s


def test_the_models_time_counts_against_the_budget_on_meilisearch(url, slow_model):
    engine = on_stand_in(url, time_budget_ms=200, embedder=slow_model)
    started = time.monotonic()

    with pytest.raises(SearchBusy):
        engine.search(SearchQuery(q="大阪", semantic=True))

    assert time.monotonic() - started < 1.0


def test_past_the_questions_a_process_takes_at_once_a_search_by_meaning_is_busy(
    tmp_path, slow_model
):
    # Given a process whose model takes one question at a time, busy with one
    engine = next(
        new_embedded(
            tmp_path / "s.db", time_budget_ms=5000, embedder=slow_model, questions=Questions(1)
        )
    )
    index(engine, "slow0000002", [(0, 3, "大阪の広告を見ました")])
    first = threading.Thread(target=engine.search, args=(SearchQuery(q="大阪", semantic=True),))
    first.start()
    while slow_model.asked == 0:
        time.sleep(0.01)

    # When another search by meaning comes, it is refused at once, not held in line
    started = time.monotonic()
    with pytest.raises(SearchBusy) as busy:
        engine.search(SearchQuery(q="京都", semantic=True))
    assert time.monotonic() - started < 0.1 and busy.value.retry_after > 0
    # and a keyword search goes on meanwhile
    assert engine.search(SearchQuery(q="大阪")).total_hits == 1

    # Then once the model is free, a search by meaning is taken again
    slow_model.free.set()
    first.join()
    assert engine.search(SearchQuery(q="大阪", semantic=True)).semantic_applied


def test_a_question_given_up_on_holds_its_place_until_the_model_is_done(tmp_path, slow_model):
    engine = next(
        new_embedded(
            tmp_path / "s.db", time_budget_ms=100, embedder=slow_model, questions=Questions(1)
        )
    )
    index(engine, "slow0000003", [(0, 3, "大阪の広告を見ました")])
    with pytest.raises(SearchBusy):
        engine.search(SearchQuery(q="大阪", semantic=True))
    # the model still works on the first question: the next is refused, not queued
    with pytest.raises(SearchBusy):
        engine.search(SearchQuery(q="京都", semantic=True))
    slow_model.free.set()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            engine.search(SearchQuery(q="大阪", semantic=True))
            break
        except SearchBusy:
            time.sleep(0.02)
    else:
        pytest.fail("the place was never given back")
