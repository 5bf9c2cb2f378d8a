"""One search reads its query once: the search page and GET /api/search (hits one by one
and by video), on both engines and by meaning too, hand the query read where the request
is read down to the engine instead of reading it again at each step."""

from __future__ import annotations

import sys

import pytest

from models import ingest, search
from models.search import query as query_language
from models.search.embedder import E5SmallEmbedder
from tests.fakes.http import serve
from tests.fakes.platform_files import manual
from tests.models.search.engines import embedded_engine, on_stand_in, stand_in

CH = "UCreadoncereadoncereado1"
# Words, a word left out, an OR and filters of every kind the page shows as chips (a
# length and a view count compared are said in words from their bounds).
QUERIES = (
    "ラーメン -カップ duration:>4m views:<100000 lang:ja",
    "ラーメン OR うどん after:2024 type:manual duration:long",
)
UNREADABLE = "ラーメン after:2024-13"
ASKED = (
    ("/search", {}),
    ("/api/search", {}),
    ("/api/search", {"groupBy": "video"}),
)


@pytest.fixture(scope="module")
def e5():
    return E5SmallEmbedder()


@pytest.fixture(params=["embedded", "meilisearch"])
def engine(request, tmp_path, e5):
    """Each engine searching by meaning too, as the service's search engine."""
    if request.param == "embedded":
        for engine in embedded_engine(tmp_path / "search.db", embedder=e5):
            with search.engine_service.swap(engine):
                yield engine
        return
    with serve(stand_in()) as url:
        engine = on_stand_in(url, embedder=e5)
        engine.apply_settings()
        with search.engine_service.swap(engine):
            yield engine


@pytest.fixture
def indexed(platform_files, engine):
    platform_files.channel(CH, ["readOnce001", "readOnce002"])
    platform_files.video(
        "readOnce001",
        CH,
        manual("ラーメンの話です。"),
        publishedAt="2024-03-01T00:00:00.000Z",
        durationSeconds=1500,
        viewCount=500,
    )
    platform_files.video(
        "readOnce002",
        CH,
        manual("うどんとカップラーメンの話です。"),
        publishedAt="2024-05-01T00:00:00.000Z",
        durationSeconds=300,
        viewCount=70,
    )
    ingest.import_channel(CH)
    for video_id in ("readOnce001", "readOnce002"):
        ingest.fetch_subtitles(video_id)


@pytest.fixture
def reads(monkeypatch):
    """Every call of the query language's reader, by the text it was asked to read,
    wherever a module took it from (a cached answer is a call too)."""
    calls: list[str] = []
    reader = query_language.parse_search

    def counted(q: str) -> query_language.Query:
        calls.append(q)
        return reader(q)

    for module in list(sys.modules.values()):
        if getattr(module, "parse_search", None) is reader:
            monkeypatch.setattr(module, "parse_search", counted)
    return calls


@pytest.mark.parametrize(("path", "params"), ASKED)
@pytest.mark.parametrize("q", QUERIES)
def test_a_search_reads_its_query_once(client, indexed, reads, path, params, q):
    answer = client.get(path, query_string={"q": q, "semantic": "1", **params})

    assert answer.status_code == 200
    assert reads == [q]


@pytest.mark.parametrize(("path", "params"), ASKED)
def test_a_query_that_cannot_be_read_is_read_once(client, indexed, reads, path, params):
    answer = client.get(path, query_string={"q": UNREADABLE, **params})

    assert answer.status_code == 400
    assert reads == [UNREADABLE]
