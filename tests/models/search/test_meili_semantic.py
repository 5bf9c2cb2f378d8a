"""Search by meaning on the meilisearch engine, against the local stand-in of the server: the
embedder the index declares and how it is laid out anew, the vectors documents carry, what a
semantic query sends, and what comes back. A small embedder that hashes words (synonyms
sharing a concept) makes vectors whose similarities the tests can reason about; one test
takes multilingual-e5-small as it ships."""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import replace

import meilisearch
import numpy as np
import pytest
from meilisearch.errors import MeilisearchApiError

from models.search.base import SearchError, SearchQuery
from models.search.embedder import CENTRED_MODEL, E5SmallEmbedder, NoEmbedder, normalise
from models.search.meili import json_vector
from tests.models.search.engines import on_stand_in
from tests.models.search.test_meili_engine import SEARCH_DEFAULTS, SEARCHABLE, SETTINGS
from tests.models.search.test_meili_engine import subtitle as keyword_subtitle
from tests.models.search.test_meili_engine import video as keyword_video

pytestmark = pytest.mark.database_independent

# Words meaning one thing, as a model would place them close together.
CONCEPTS = {
    "noodles": "noodle",
    "ramen": "noodle",
    "soba": "noodle",
    "udon": "noodle",
    "router": "network",
    "switch": "network",
}


class ConceptEmbedder:
    """Each word (a synonym as its concept) adds one to a dimension chosen by a digest of
    it, so texts sharing concepts point alike and the similarity of two texts is the
    cosine of their concept counts."""

    loaded = True

    def __init__(self, model: str = "test-concepts", dims: int = 64) -> None:
        self.model, self.dims = model, dims
        self.queries: list[str] = []

    def _counts(self, text: str) -> np.ndarray:
        counts = np.zeros(self.dims, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            concept = CONCEPTS.get(word, word)
            digest = hashlib.blake2b(concept.encode(), digest_size=4).digest()
            counts[int.from_bytes(digest, "big") % self.dims] += 1
        return counts

    def passages(self, texts):
        return normalise(np.vstack([self._counts(text) for text in texts]))

    def query(self, text):
        self.queries.append(text)
        return normalise(self._counts(text))


@pytest.fixture
def embedder():
    return ConceptEmbedder()


def engine_with(url, embedder):
    return on_stand_in(url, embedder=embedder)


@pytest.fixture
def engine(url, embedder):
    return engine_with(url, embedder)


def declared(dims):
    return {"default": {"source": "userProvided", "dimensions": dims}}


@pytest.fixture
def ready(fake, embedder):
    """The index as apply_settings leaves it for the embedder."""
    return fake.add_index(settings={**SETTINGS, "embedders": declared(embedder.dims)})


def meant(embedder, *documents):
    """The documents with their vectors, as the write path attaches them."""
    texts = [doc.text or f"{doc.title}\n{doc.description}" for doc in documents]
    vectors = embedder.passages(texts)
    return [replace(doc, vector=vector) for doc, vector in zip(documents, vectors, strict=True)]


def subtitle(video_id, text, **fields):
    return keyword_subtitle(video_id, 0, text, **fields)


def searches(fake):
    return [body for _, path, body in fake.calls() if path == "/indexes/subtitles/search"]


def multi_searches(fake):
    return [body for _, path, body in fake.calls() if path == "/multi-search"]


def stored_vector(vector):
    return {"_vectors": {"default": vector}}


# -- the embedder the index declares ------------------------------------------------------


def test_a_new_index_declares_a_user_provided_embedder_of_the_model_s_dimensions(engine, fake):
    # Given no index
    # When the settings are applied twice
    laid_out = [engine.apply_settings(), engine.apply_settings()]

    # Then the first creates it declaring the embedder, the second finds it as it should be
    # and asks whether documents hold vectors of another model
    assert laid_out == [True, False]
    settings = {**SETTINGS, "embedders": declared(64)}
    assert fake.calls() == [
        ("GET", "/indexes/subtitles", None),
        ("POST", "/indexes", {"uid": "subtitles", "primaryKey": "id"}),
        ("PATCH", "/indexes/subtitles/settings", settings),
        ("GET", "/indexes/subtitles", None),
        ("GET", "/indexes/subtitles/settings", None),
        ("PATCH", "/indexes/subtitles/settings", settings),
        (
            "POST",
            "/indexes/subtitles/documents/fetch",
            {
                "filter": 'vectorModel EXISTS AND vectorModel != "test-concepts"',
                "fields": ["id"],
                "limit": 1,
            },
        ),
    ]
    assert fake.indexes["subtitles"]["settings"]["embedders"] == declared(64)


def test_an_index_set_up_before_meaning_declares_the_embedder_and_is_laid_out_anew(engine, fake):
    # Given an index of keyword documents, set up before search by meaning
    fake.add_index(settings={**SETTINGS, "filterableAttributes": ["videoId", "channelId", "kind"]})
    fake.seed({"id": "vid1-s0000", "videoId": "vid1", "channelId": "chan1", "kind": "subtitle"})

    # When the settings are applied
    laid_out = engine.apply_settings()

    # Then the embedder is declared and the caller is told to write every video again (with
    # its vectors), the documents kept meanwhile for keyword search
    assert laid_out is True
    assert fake.indexes["subtitles"]["settings"]["embedders"] == declared(64)
    assert list(fake.documents()) == ["vid1-s0000"]
    assert engine.apply_settings() is False


def test_without_a_model_no_embedder_is_declared_and_one_declared_goes(url, fake, embedder, ready):
    # Given an index whose documents have vectors
    engine_with(url, embedder).replace_videos({"vid1": meant(embedder, subtitle("vid1", "udon"))})
    fake.requests.clear()

    # When the settings are applied by a service whose embedder is `none`
    engine = engine_with(url, NoEmbedder())
    laid_out = [engine.apply_settings(), engine.apply_settings()]

    # Then the embedder is removed once, the documents stay for keyword search, and the
    # caller is told to write every video again (without vectors)
    assert laid_out == [True, False]
    assert fake.calls() == [
        ("GET", "/indexes/subtitles", None),
        ("GET", "/indexes/subtitles/settings", None),
        ("PATCH", "/indexes/subtitles/settings/embedders", {"default": None}),
        ("PATCH", "/indexes/subtitles/settings", SETTINGS),
        ("GET", "/indexes/subtitles", None),
        ("GET", "/indexes/subtitles/settings", None),
        ("PATCH", "/indexes/subtitles/settings", SETTINGS),
    ]
    assert fake.indexes["subtitles"]["settings"]["embedders"] == {}
    assert list(fake.documents()) == ["vid1-s0000"]


def test_a_model_of_other_dimensions_empties_the_index_and_declares_its_embedder(
    url, fake, embedder
):
    # Given an index laid out for a model of 16 dimensions, with vectors of it
    small = ConceptEmbedder(model="small-model", dims=16)
    fake.add_index(settings={**SETTINGS, "embedders": declared(16)})
    engine_with(url, small).replace_videos({"vid1": meant(small, subtitle("vid1", "udon"))})
    fake.requests.clear()

    # When the settings are applied for a model of 64
    laid_out = engine_with(url, embedder).apply_settings()

    # Then the documents go first (Meilisearch would keep the old vectors in them), the old
    # embedder next, and the new one is declared: every video is to be written again
    assert laid_out is True
    assert fake.calls() == [
        ("GET", "/indexes/subtitles", None),
        ("GET", "/indexes/subtitles/settings", None),
        ("DELETE", "/indexes/subtitles/documents", None),
        ("PATCH", "/indexes/subtitles/settings/embedders", {"default": None}),
        ("PATCH", "/indexes/subtitles/settings", {**SETTINGS, "embedders": declared(64)}),
    ]
    assert fake.documents() == {}
    assert fake.indexes["subtitles"]["settings"]["embedders"] == declared(64)


def test_another_model_of_the_same_dimensions_is_told_by_the_documents(url, fake, embedder, ready):
    # Given documents whose vectors another model of 64 dimensions made
    other = ConceptEmbedder(model="other-model", dims=64)
    engine_with(url, other).replace_videos({"vid1": meant(other, subtitle("vid1", "udon"))})

    # When the settings are applied for ours
    engine = engine_with(url, embedder)
    laid_out = engine.apply_settings()

    # Then the index is laid out anew (every video written again), its documents and its
    # embedder kept meanwhile
    assert laid_out is True
    assert list(fake.documents()) == ["vid1-s0000"]
    assert fake.indexes["subtitles"]["settings"]["embedders"] == declared(64)
    assert not [c for c in fake.calls() if c[0] == "DELETE" or c[1].endswith("/embedders")]

    # And once the video is written with our vectors, it is as it should be
    engine.replace_videos({"vid1": meant(embedder, subtitle("vid1", "udon"))})
    assert engine.apply_settings() is False


def test_vectors_a_removed_embedder_left_of_other_dimensions_empty_the_index(url, fake, embedder):
    # Given an index without embedder whose documents still hold the 16-dimension vectors
    # Meilisearch wrote back into them when their embedder was removed
    fake.add_index(settings=SETTINGS)
    fake.seed(
        {"id": "vid1-s0000", "videoId": "vid1", "channelId": "c", "kind": "subtitle"}
        | stored_vector([0.25] * 16)
    )

    # When the settings declare our embedder of 64
    laid_out = engine_with(url, embedder).apply_settings()

    # Then the server refuses those vectors, so the index is emptied and the embedder
    # declared: every video is to be written again
    assert laid_out is True
    assert [(m, p) for m, p, _ in fake.calls()][-3:] == [
        ("PATCH", "/indexes/subtitles/settings"),
        ("DELETE", "/indexes/subtitles/documents"),
        ("PATCH", "/indexes/subtitles/settings"),
    ]
    assert fake.documents() == {}
    assert fake.indexes["subtitles"]["settings"]["embedders"] == declared(64)


def test_a_settings_task_failing_otherwise_is_an_error(engine, fake, ready):
    fake.fail_next_task("No space left on device.", code="no_space_left_on_device")

    with pytest.raises(SearchError, match="No space left on device"):
        engine.apply_settings()

    assert [m for m, _, _ in fake.calls()].count("DELETE") == 0


# -- the vectors documents carry ----------------------------------------------------------


def test_documents_carry_their_vector_and_its_model_or_a_null_vector(engine, fake, embedder, ready):
    # Given a subtitle with its vector and a video document not embedded yet
    [said] = meant(embedder, subtitle("vid1", "ramen tonight"))

    # When they are written
    engine.replace_videos({"vid1": [said, keyword_video("vid1")]})

    # Then the subtitle carries its vector for the embedder `default` and the model's name,
    # the video document a null vector (Meilisearch's "none yet") and no model
    [added] = [body for method, path, body in fake.calls() if path.endswith("/documents")]
    by_id = {doc["id"]: doc for doc in added}
    sent, video_doc = by_id["vid1-s0000"], by_id["vid1-v"]
    assert set(sent["_vectors"]) == {"default"}
    assert np.allclose(sent["_vectors"]["default"], said.vector, rtol=0, atol=1e-8)
    assert all(len(repr(x)) <= 11 for x in sent["_vectors"]["default"])
    assert sent["vectorModel"] == "test-concepts"
    assert video_doc["_vectors"] == {"default": None}
    assert "vectorModel" not in video_doc


def test_without_a_model_documents_carry_no_vectors(url, fake, embedder):
    fake.add_index(settings=SETTINGS)

    engine_with(url, NoEmbedder()).replace_videos(
        {"vid1": meant(embedder, subtitle("vid1", "udon"))}
    )

    [added] = [body for method, path, body in fake.calls() if path.endswith("/documents")]
    assert "_vectors" not in added[0] and "vectorModel" not in added[0]


def test_vectors_never_come_back_from_a_search_or_a_fetch(url, engine, fake, embedder, ready):
    engine.replace_videos({"vid1": meant(embedder, subtitle("vid1", "udon noodles"))})
    index = meilisearch.Client(url, "admin-key").index("subtitles")

    [hit] = index.search("udon")["hits"]
    [fetched] = index.get_documents({"filter": 'videoId = "vid1"'}).results

    assert "_vectors" not in hit and "_vectors" not in dict(fetched)
    assert [hit.video_id for hit in engine.search(SearchQuery(q="udon")).hits] == ["vid1"]


# -- what a semantic query sends ----------------------------------------------------------


def by_meaning(vector, **fields):
    """What makes a query of a multi-search one by meaning alone."""
    return {"hybrid": {"embedder": "default", "semanticRatio": 1.0}, "vector": vector, **fields}


def test_a_semantic_query_asks_keywords_and_meaning_apart_and_weighs_them(
    engine, fake, embedder, ready
):
    engine.replace_videos({"vid1": meant(embedder, subtitle("vid1", "Noodles tonight"))})
    fake.requests.clear()

    results = engine.search(SearchQuery(q="Noodles", semantic=True, sr=0.7))

    # First the nearest video is asked for, by meaning alone; then one federation of the
    # keyword search, weighted 0.3, and the search by meaning alone, weighted 0.7
    vector = json_vector(ConceptEmbedder().query("Noodles"))
    keyword = {
        "indexUid": "subtitles",
        "q": '"noodles"',
        "attributesToSearchOn": SEARCHABLE,
        **SEARCH_DEFAULTS,
    }
    nearest, both = multi_searches(fake)
    assert nearest["queries"] == [
        {
            "indexUid": "subtitles",
            "q": '"noodles"',
            "attributesToSearchOn": SEARCHABLE,
            **by_meaning(vector, distinct="videoId", showRankingScore=True),
            "offset": 0,
            "limit": 1,
        }
    ]
    assert both == {
        "queries": [
            {**keyword, "federationOptions": {"weight": 0.3}},
            {**keyword, **by_meaning(vector), "federationOptions": {"weight": 0.7}},
        ],
        "federation": {"offset": 0, "limit": 20},
    }
    assert searches(fake) == []
    assert embedder.queries == ["Noodles"]  # embedded once, as typed
    assert results.semantic_applied is True
    assert [hit.video_id for hit in results.hits] == ["vid1"]


def test_by_meaning_alone_one_search_is_paged_by_number(engine, fake, embedder, ready):
    engine.replace_videos({"vid1": meant(embedder, subtitle("vid1", "Ramen tonight"))})
    fake.requests.clear()

    engine.search(SearchQuery(q="Ramen", semantic=True, sr=1.0))

    vector = json_vector(ConceptEmbedder().query("Ramen"))
    assert searches(fake) == [
        {
            "q": '"ramen"',
            "attributesToSearchOn": SEARCHABLE,
            "page": 1,
            "hitsPerPage": 20,
            **SEARCH_DEFAULTS,
            **by_meaning(vector),
        }
    ]


def test_a_semantic_query_embeds_its_words_without_operators(engine, fake, embedder, ready):
    # Given a query with an excluded word, a filter and an OR
    q = "Noodles OR switch -cup after:2024-01-01"

    # When it is searched by meaning
    engine.search(SearchQuery(q=q, semantic=True, sr=0.5))

    # Then what is embedded is its words as typed, sent by the search by meaning alone
    # beside the two keyword branches, which send none
    assert embedder.queries == ["Noodles switch"]
    nearest, federated = multi_searches(fake)
    vector = json_vector(ConceptEmbedder().query("Noodles switch"))
    assert [query.get("vector") for query in nearest["queries"]] == [vector]
    assert [query.get("vector") for query in federated["queries"]] == [None, None, vector]
    assert [query["federationOptions"] for query in federated["queries"]] == [{"weight": 0.5}] * 3


def test_results_by_video_send_the_same_vector_in_every_query_by_meaning(
    engine, fake, embedder, ready
):
    engine.replace_videos(
        {
            "vid1": meant(embedder, keyword_video("vid1"), subtitle("vid1", "udon")),
            "vid2": meant(embedder, subtitle("vid2", "soba")),
        }
    )
    fake.requests.clear()

    results = engine.search_videos(SearchQuery(q="noodles", semantic=True, sr=0.3))

    # The nearest videos, the page of videos, then each video's moments and its video
    # document, by keywords and by meaning apart (2 videos x 2 kinds x 2 branches), and
    # every segment each video matches, by keywords and by meaning apart (2 x 2)
    vector = json_vector(ConceptEmbedder().query("noodles"))
    nearest, page, moments = multi_searches(fake)
    assert len(moments["queries"]) == 8 + 4
    meaning = [q for body in (nearest, page, moments) for q in body["queries"] if "vector" in q]
    assert len(meaning) == 1 + 1 + 4 + 2
    assert all({k: q[k] for k in by_meaning(vector)} == by_meaning(vector) for q in meaning)
    keywords = [q for q in page["queries"] + moments["queries"] if "vector" not in q]
    assert len(keywords) == 1 + 4 + 2 and not any("hybrid" in q for q in keywords)
    assert [q["federationOptions"] for q in page["queries"]] == [{"weight": 0.7}, {"weight": 0.3}]
    assert embedder.queries == ["noodles"]  # embedded once for every query
    assert results.semantic_applied is True
    assert {video.video_id for video in results.videos} == {"vid1", "vid2"}


def test_without_a_model_a_semantic_query_is_a_keyword_search(url, fake, embedder, ready):
    engine = engine_with(url, NoEmbedder())
    engine.replace_videos({"vid1": [subtitle("vid1", "ramen tonight")]})
    fake.requests.clear()

    results = engine.search(SearchQuery(q="ramen", semantic=True))
    by_video = engine.search_videos(SearchQuery(q="ramen", semantic=True))

    assert all("hybrid" not in body and "vector" not in body for body in searches(fake))
    assert all("hybrid" not in q for body in multi_searches(fake) for q in body["queries"])
    assert (results.semantic_applied, by_video.semantic_applied) == (False, False)
    assert [hit.video_id for hit in results.hits] == ["vid1"]


@pytest.mark.parametrize(
    "embedders",
    [{}, declared(16)],
    ids=["no embedder", "an embedder of other dimensions"],
)
def test_a_server_without_our_embedder_answers_with_keywords(engine, fake, embedder, embedders):
    # Given an index not set up since the model was configured
    fake.add_index(settings={**SETTINGS, "embedders": embedders})
    engine.replace_videos({"vid1": [subtitle("vid1", "noodles tonight")]})
    fake.requests.clear()

    # When a semantic query is asked, flat and by video
    results = engine.search(SearchQuery(q="noodles", semantic=True))
    by_video = engine.search_videos(SearchQuery(q="noodles", semantic=True))

    # Then the server refused the meaning, and keywords answered
    nearest = [q for body in multi_searches(fake) for q in body["queries"] if "hybrid" in q]
    assert [q["hybrid"] for q in nearest] == [{"embedder": "default", "semanticRatio": 1.0}] * 2
    flat, videos = searches(fake)
    assert "hybrid" not in flat and "vector" not in flat
    assert "hybrid" not in videos and videos["distinct"] == "videoId"
    assert all("hybrid" not in q for q in multi_searches(fake)[-1]["queries"])
    assert (results.semantic_applied, by_video.semantic_applied) == (False, False)
    assert [hit.video_id for hit in results.hits] == ["vid1"]
    assert [video.video_id for video in by_video.videos] == ["vid1"]


def test_other_search_errors_are_raised_not_retried(engine, fake, embedder):
    fake.add_index(settings={**SETTINGS, "sortableAttributes": [], "embedders": declared(64)})

    with pytest.raises(SearchError, match="invalid_search_sort"):
        engine.search(SearchQuery(q="hello", sort="views", semantic=True))

    # The search that was refused was asked once: not again by keywords
    sorted_ = [q for body in multi_searches(fake) for q in body["queries"] if "sort" in q]
    assert len(sorted_) == 2  # its keyword and meaning branches, one federation
    assert len(multi_searches(fake)) == 2 and searches(fake) == []


# -- what comes back ----------------------------------------------------------------------


@pytest.fixture
def noodles(engine, embedder, ready):
    """A video saying "noodles", one saying soba and udon (noodles by meaning alone), one
    about a router."""
    engine.replace_videos(
        {
            "says": meant(embedder, subtitle("says", "fresh noodles every day")),
            "means": meant(embedder, subtitle("means", "a bowl of <soba> & udon")),
            "other": meant(embedder, subtitle("other", "configuring the office router")),
        }
    )
    return engine


def found(engine, sr):
    return [
        hit.video_id for hit in engine.search(SearchQuery(q="noodles", semantic=True, sr=sr)).hits
    ]


def test_a_ratio_of_0_is_keywords_only_and_1_meaning_only(noodles):
    assert found(noodles, 0.0) == ["says"]
    assert found(noodles, 1.0) == ["means", "says", "other"]
    assert found(noodles, 0.5) == ["says", "means", "other"]


# Noodles said otherwise, each less near "ramen" (cosines 0.45, 0.38, 0.33, 0.30, 0.26 with
# the concept embedder), a video saying ramen among many other words (0.12) and a router.
BOWLS = {
    "near1": "soba at the station stand",
    "near2": "udon in a bowl of hot broth",
    "near3": "soba with tempura and leeks and sesame",
    "near5": "soba cold with dipping sauce and wasabi and nori",
    "near4": "udon with curry and rice and pickles and tea",
    "says": "we talked about ramen and then the weather the trains the office the garden"
    " the guitar the news and the football",
    "other": "configuring the office router",
}


@pytest.fixture
def bowls(url, fake):
    """The bowls, embedded by a model the floor was measured for (e5-small centred: its
    name is what tells), so the engine applies MeaningFloor.CENTRED."""
    embedder = ConceptEmbedder(model=CENTRED_MODEL)
    fake.add_index(settings={**SETTINGS, "embedders": declared(embedder.dims)})
    engine = engine_with(url, embedder)
    engine.replace_videos(
        {vid: meant(embedder, subtitle(vid, text)) for vid, text in BOWLS.items()}
    )
    fake.requests.clear()
    return engine


def listed(engine, q, sr):
    flat = engine.search(SearchQuery(q=q, semantic=True, sr=sr))
    by_video = engine.search_videos(SearchQuery(q=q, semantic=True, sr=sr))
    return [hit.video_id for hit in flat.hits], [video.video_id for video in by_video.videos]


def test_when_the_nearest_is_unsure_meaning_brings_only_the_three_nearest_videos(bowls, fake):
    # When "ramen" is searched, which no bowl is near enough to answer for sure (0.45 at
    # best), by meaning alone and at the page's default
    alone = listed(bowls, "ramen", 1.0)
    fake.requests.clear()
    hybrid = listed(bowls, "ramen", 0.5)

    # Then meaning brings the three nearest videos and no other; the keyword match stays
    assert alone == (["near1", "near2", "near3"], ["near1", "near2", "near3"])
    flat, by_video = hybrid
    assert sorted(flat) == sorted(by_video) == ["near1", "near2", "near3", "says"]
    # And the floor went with each search by meaning alone (0.625: a cosine of 0.25, the
    # floor of an unsure answer), limited to those videos after the first for the nearest
    # (the one with an offset); never with the keywords
    queries = [q for body in multi_searches(fake) for q in body["queries"]]
    by_meaning = [q for q in queries if "vector" in q]
    assert {q["rankingScoreThreshold"] for q in by_meaning} == {0.625}
    nearest = [q for q in by_meaning if "offset" in q]
    assert [q["limit"] for q in nearest] == [3, 3]
    assert all(
        q["filter"].endswith('videoId IN ["near1", "near2", "near3"]')
        for q in by_meaning
        if q not in nearest
    )
    assert not any("rankingScoreThreshold" in q for q in queries if "vector" not in q)


def test_when_the_nearest_is_sure_meaning_brings_every_video_at_the_floor(bowls):
    # Given a video that says noodles three ways: sure for "ramen" (1.0)
    bowls.replace_videos({"sure": meant(ConceptEmbedder(), subtitle("sure", "ramen soba udon"))})

    flat, by_video = listed(bowls, "ramen", 1.0)

    # Then every video at the floor (0.30) or above comes, nearest first, and no other
    expected = ["sure", "near1", "near2", "near3", "near5"]
    assert flat == by_video == expected
    assert "near4" not in listed(bowls, "ramen", 0.5)[0]


def test_prefixes_and_or_keep_their_keyword_matches_beside_the_nearest_by_meaning(bowls):
    # Given questions read otherwise by keywords: words starting so (read and checked
    # here), and either of two words (a federation of branches)
    for q in ("ramen tal* wea*", "ramen OR pickles"):
        alone, hybrid = listed(bowls, q, 1.0), listed(bowls, q, 0.5)
        keywords = listed(bowls, q, 0.0)

        # Then by meaning alone a few of the nearest videos come, flat and by video; at
        # the default the keyword matches come too, and nothing else
        flat, by_video = alone
        assert 0 < len(set(flat)) <= 3 and set(flat) == set(by_video), (q, alone)
        assert set(hybrid[0]) == set(hybrid[1]) == set(flat) | set(keywords[0]), (q, hybrid)
        assert "says" in keywords[0] and "other" not in hybrid[0]


def test_a_moment_found_by_meaning_alone_is_its_text_escaped_without_marks(noodles):
    # When the video that only means noodles is found, flat and by video
    results = noodles.search(SearchQuery(q="noodles", semantic=True, sr=1.0))
    by_video = noodles.search_videos(SearchQuery(q="noodles", semantic=True, sr=1.0))

    # Then its moment shows its text, escaped, no word marked
    hit = results.hits[0]
    assert (hit.video_id, hit.text) == ("means", "a bowl of <soba> & udon")
    assert hit.highlight == html.escape("a bowl of <soba> & udon")
    video = by_video.videos[0]
    assert (video.video_id, video.matched_in) == ("means", ("subtitle",))
    assert [m.highlight for m in video.moments] == [html.escape("a bowl of <soba> & udon")]
    # And the video that says the word has it marked, found by meaning or not
    says = next(v for v in by_video.videos if v.video_id == "says")
    assert says.moments[0].highlight == "fresh <mark>noodles</mark> every day"


def test_a_video_found_by_the_meaning_of_its_title_shows_its_title(engine, embedder, ready):
    # Given a video without subtitles, titled about udon
    engine.replace_videos(
        {"tour": meant(embedder, keyword_video("tour", title="Udon tour", description="Shops."))}
    )

    # When noodles are searched by meaning, flat and by video
    [hit] = engine.search(SearchQuery(q="noodles", semantic=True, sr=1.0)).hits
    [video] = engine.search_videos(SearchQuery(q="noodles", semantic=True, sr=1.0)).videos

    # Then it is found by its title, nothing marked
    assert (hit.matched_in, hit.text, hit.highlight, hit.start) == (
        "title",
        "Udon tour",
        "Udon tour",
        None,
    )
    assert (video.video_id, video.matched_in, video.moments) == ("tour", ("title",), [])
    # And asked for descriptions only, its description is what is shown
    [described] = engine.search(
        SearchQuery(q="noodles", semantic=True, sr=1.0, targets=("description",))
    ).hits
    assert (described.matched_in, described.text) == ("description", "Shops.")


def test_the_channel_filter_and_targets_hold_for_meaning(engine, fake, embedder, ready):
    engine.replace_videos(
        {
            "a": meant(embedder, subtitle("a", "udon", channel_id="c1")),
            "b": meant(embedder, subtitle("b", "soba", channel_id="c2"), keyword_video("b")),
        }
    )

    in_c2 = engine.search(SearchQuery(q="noodles", semantic=True, sr=1.0, channels=("c2",)))
    titles = engine.search(SearchQuery(q="noodles", semantic=True, sr=1.0, targets=("title",)))

    assert {hit.channel_id for hit in in_c2.hits} == {"c2"}
    assert searches(fake)[-2]["filter"] == 'channelId IN ["c2"]'
    assert [hit.matched_in for hit in titles.hits] == ["title"]
    assert searches(fake)[-1]["filter"] == 'kind = "video"'


# -- with multilingual-e5-small -------------------------------------------------------------


def test_with_e5_small_the_index_declares_384_dimensions_and_a_paraphrase_is_found(url, fake):
    # Given the model the service ships, and three videos embedded with it
    e5 = E5SmallEmbedder()
    engine = engine_with(url, e5)
    assert engine.apply_settings() is True
    said = {
        "takoyaki": "昨日、大阪の屋台でたこ焼きを六個買いました。",
        "router": "Today I am configuring the office router.",
        "garden": "I planted tomatoes this spring.",
    }
    engine.replace_videos({vid: meant(e5, subtitle(vid, text)) for vid, text in said.items()})

    # When Kansai's flour dishes are searched by meaning alone
    results = engine.search(SearchQuery(q="関西の粉もの料理", semantic=True, sr=1.0))

    # Then the index declares 384 dimensions, and the takoyaki are found first
    assert fake.indexes["subtitles"]["settings"]["embedders"] == declared(384)
    assert results.hits[0].video_id == "takoyaki"
    assert results.semantic_applied is True


# -- the stand-in refuses what Meilisearch 1.13 refuses -------------------------------------


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"hybrid": {"embedder": "other"}, "vector": [0.1] * 4}, "invalid_search_embedder"),
        ({"hybrid": {"embedder": "default"}, "vector": [0.1] * 3}, "invalid_vector_dimensions"),
        ({"vector": [0.1] * 4}, "missing_search_hybrid"),
        ({"hybrid": {"embedder": "default", "semanticRatio": 1.0}}, "vector_embedding_error"),
        (
            {"hybrid": {"embedder": "default", "semanticRatio": 1.5}},
            "invalid_search_semantic_ratio",
        ),
        ({"retrieveVectors": True}, "bad_request"),
    ],
)
def test_the_stand_in_refuses_what_the_server_refuses(url, fake, body, code):
    fake.add_index(settings={**SETTINGS, "embedders": declared(4)})
    index = meilisearch.Client(url, "admin-key").index("subtitles")

    with pytest.raises(MeilisearchApiError) as refused:
        index.search("udon", body)

    assert refused.value.code == code


def test_the_stand_in_takes_a_ratio_of_0_as_keywords_whatever_the_embedder(url, fake):
    fake.add_index(settings=SETTINGS)
    fake.seed({"id": "a", "videoId": "a", "channelId": "c", "kind": "subtitle", "text": "udon"})
    index = meilisearch.Client(url, "admin-key").index("subtitles")

    answer = index.search("udon", {"hybrid": {"embedder": "none", "semanticRatio": 0.0}})

    assert [hit["id"] for hit in answer["hits"]] == ["a"]


def test_the_stand_in_fails_a_document_whose_vector_has_other_dimensions(engine, fake, ready):
    bad = replace(subtitle("vid1", "udon"), vector=np.ones(3, dtype=np.float32))

    with pytest.raises(SearchError, match="invalid_vector_dimensions"):
        engine.replace_videos({"vid1": [bad]})

    assert fake.documents() == {}
