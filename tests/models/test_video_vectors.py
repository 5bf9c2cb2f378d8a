"""Passage vectors (issue 29): embedded after a video is indexed, kept in the database
beside its subtitles, written to the index with its documents, found again by a reindex
without embedding, embedded anew when a text or the model changes, and checked by the
daily verification."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace

import pytest

import models.search
from models import index_check, indexing, ingest
from models.search import SearchQuery, get_engine
from models.search.embedder import CENTRED_MODEL, E5SmallEmbedder, NoEmbedder
from models.tables import VideoVectors
from tests.concurrency import at_once
from tests.fakes.platform_files import manual

CH = "UCvectorsvectorsvector01"


class Counting:
    """The real model, counting the passages it is asked to embed; `model` can be named
    otherwise to stand for another model of the same size."""

    def __init__(self, model: str = CENTRED_MODEL) -> None:
        self.e5 = E5SmallEmbedder()
        self.model = model
        self.dims = self.e5.dims
        self.loaded = True
        self.embedded: list[str] = []

    def passages(self, texts):
        self.embedded.extend(texts)
        return self.e5.passages(texts)

    def query(self, text):
        return self.e5.query(text)


@pytest.fixture
def use_embedder(monkeypatch):
    """Make `embedder` the process's embedder (the engine's too) for the test."""

    with ExitStack() as swapped:

        def use(embedder):
            swapped.enter_context(models.search.embedder_service.swap(embedder))
            # the engine takes the process's embedder when it is built: build it again
            models.search._cache.clear()
            models.search.engine_service.forget()
            return embedder

        yield use
    models.search._cache.clear()
    models.search.engine_service.forget()


@pytest.fixture
def videos(platform_files):
    platform_files.channel(CH, ["foodVideo01", "routerVideo1"])
    platform_files.video(
        "foodVideo01",
        CH,
        manual("今日は大阪の道頓堀に来ています", "たこ焼きを六個買いました", "熱くて美味しい"),
        title="大阪さんぽ",
    )
    platform_files.video(
        "routerVideo1",
        CH,
        manual("Today we configure the office router", "and the firewall rules for guests"),
        title="Office IT basics",
    )
    ingest.import_channel(CH)
    for video_id in ("foodVideo01", "routerVideo1"):
        ingest.fetch_subtitles(video_id)
    return platform_files


def meant(q: str) -> list[str]:
    found = get_engine().search_videos(SearchQuery(q=q, semantic=True, sr=1.0))
    assert found.semantic_applied
    return [video.video_id for video in found.videos]


def test_a_fetched_video_waits_for_its_vectors_then_is_found_by_meaning(videos, use_embedder):
    use_embedder(Counting())
    written = indexing.write_videos(["foodVideo01", "routerVideo1"])
    assert written.unembedded == ["foodVideo01", "routerVideo1"]
    assert meant("関西の粉もの料理") == []  # keyword search does not wait for the model

    done = indexing.embed_videos(written.unembedded)

    assert (done.videos, done.new) == (2, 4)  # a segment and a video document each
    assert meant("関西の粉もの料理")[0] == "foodVideo01"
    assert meant("ネットワーク機器の設定")[0] == "routerVideo1"
    row = VideoVectors.get_by_id("foodVideo01")
    assert (row.model, row.dims) == (CENTRED_MODEL, 384)


def test_a_second_embedding_embeds_nothing_and_a_reindex_keeps_the_vectors(videos, use_embedder):
    embedder = use_embedder(Counting())
    indexing.embed_videos(["foodVideo01", "routerVideo1"])
    embedder.embedded.clear()

    again = indexing.embed_videos(["foodVideo01", "routerVideo1"])
    rebuilt = indexing.rebuild()

    assert (again.new, embedder.embedded) == (0, [])
    assert rebuilt.unembedded == []
    assert meant("関西の粉もの料理")[0] == "foodVideo01"


def test_a_changed_line_is_the_only_passage_embedded_again(videos, use_embedder):
    embedder = use_embedder(Counting())
    indexing.embed_videos(["foodVideo01"])
    embedder.embedded.clear()
    videos.update(
        "videos",
        "foodVideo01",
        subtitles=manual(
            "今日は大阪の道頓堀に来ています", "お好み焼きを食べました", "熱くて美味しい"
        ),
    )
    ingest.fetch_subtitles("foodVideo01")

    indexing.embed_videos(["foodVideo01"])

    # The one window holding the new line; the title and description kept theirs.
    assert len(embedder.embedded) == 1
    assert "お好み焼きを食べました" in embedder.embedded[0]


def test_another_model_embeds_everything_again_and_searches_only_its_vectors(videos, use_embedder):
    use_embedder(Counting())
    indexing.embed_videos(["foodVideo01", "routerVideo1"])
    other = use_embedder(Counting(model=f"{CENTRED_MODEL}-retrained"))

    check = index_check.compare(get_engine())
    assert sorted(check.unembedded) == ["foodVideo01", "routerVideo1"]
    assert meant("関西の粉もの料理") == []  # the index holds vectors of the old model only

    indexing.embed_videos(check.unembedded)

    assert len(other.embedded) == 4
    assert meant("関西の粉もの料理")[0] == "foodVideo01"
    assert {row.model for row in VideoVectors.select()} == {f"{CENTRED_MODEL}-retrained"}


def test_the_daily_check_finds_an_index_without_the_stored_vectors_and_repairs_it(
    videos, use_embedder
):
    use_embedder(Counting())
    indexing.embed_videos(["foodVideo01", "routerVideo1"])
    engine = get_engine()
    # The index lost its vectors (written without them), the database still has them.
    with engine.writing():
        plain = indexing.expected_documents(["foodVideo01"])
        engine.replace_videos(
            {"foodVideo01": [replace(doc, vector=None) for doc in plain["foodVideo01"]]}
        )
    assert meant("関西の粉もの料理")[:1] != ["foodVideo01"]

    found = index_check.verify(repair=True)

    assert found.stale == ["foodVideo01"]
    assert found.unembedded == []
    assert meant("関西の粉もの料理")[0] == "foodVideo01"
    assert index_check.compare(engine).wrong == []


def test_with_no_embedder_nothing_waits_for_vectors_and_search_says_meaning_is_off(
    videos, use_embedder
):
    use_embedder(NoEmbedder())

    written = indexing.write_videos(["foodVideo01"])
    found = get_engine().search_videos(SearchQuery(q="たこ焼き", semantic=True, sr=0.5))

    assert written.unembedded == []
    assert indexing.embed_videos(["foodVideo01"]).videos == 0
    assert not found.semantic_applied
    assert [video.video_id for video in found.videos] == ["foodVideo01"]


def test_embeddings_of_one_video_at_once_leave_one_row_and_the_index_agreeing(videos, use_embedder):
    use_embedder(Counting())

    outcomes = at_once(lambda _: indexing.embed_videos(["foodVideo01"]), range(4))

    assert not [o for o in outcomes if isinstance(o, Exception)]
    assert VideoVectors.select().count() == 1
    assert index_check.compare(get_engine()).stale == []
    assert meant("関西の粉もの料理")[0] == "foodVideo01"
