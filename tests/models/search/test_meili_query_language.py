"""The query language on the meilisearch engine, by what it sends (the stand-in server
records every request): the `q` of each branch, the filters on every query, OR as a
federated multi-search, and a query of several prefix terms read and checked here. What
each operator finds on both engines is tests/models/search/test_query_language.py."""

from __future__ import annotations

import meilisearch
import pytest
from meilisearch.errors import MeilisearchApiError

from models.search import meili, meili_request
from models.search.base import Document, SearchQuery
from models.search.meili_fields import QUERY_FILTERS
from tests.models.search.engines import on_stand_in
from tests.models.search.test_meili_engine import SEARCH_DEFAULTS, SEARCHABLE, SETTINGS

pytestmark = pytest.mark.database_independent

SUBTITLE_FIELDS = ["text", "textWords"]


@pytest.fixture
def engine(url, fake):
    fake.add_index(settings=SETTINGS)
    return on_stand_in(url)


def said(video_id, *texts, title="A video", **fields):
    """A video's documents: its video document and one subtitle per text."""
    common = {
        "video_id": video_id,
        "channel_id": "chan1",
        "video_title": title,
        "channel_title": "A channel",
        "published_at": "2024-06-01T00:00:00.000Z",
        "view_count": 100,
        "duration_seconds": 600,
        "subtitle_type": "manual",
        "subtitle_language": "ja",
        **fields,
    }
    meta = Document(id=f"{video_id}-v", kind="video", title=title, description="", **common)
    subtitles = [
        Document(
            id=f"{video_id}-s{n:04d}",
            kind="subtitle",
            text=text,
            start=n * 10.0,
            end=n * 10.0 + 3,
            **common,
        )
        for n, text in enumerate(texts)
    ]
    return [meta, *subtitles]


def add(engine, fake, *videos):
    engine.replace_videos({docs[0].video_id: docs for docs in videos})
    fake.requests.clear()


def searches(fake):
    return [body for _, path, body in fake.calls() if path == "/indexes/subtitles/search"]


def multi_searches(fake):
    return [body for _, path, body in fake.calls() if path == "/multi-search"]


# -- q ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        # excluded terms go first, so nothing they add follows a prefix
        ("ramen -cup", '-cup "ramen"'),
        ('noodles -"cup noodles"', '-"cup noodles" "noodles"'),
        # a `-` excludes one word: Japanese goes as a phrase, and as its forms when they differ
        ("ラーメン -カップ", '-"カップ" ラーメン'),  # (カップ is its own reading)
        ("東京 -藝術", '-"藝術" -"芸術" 東京'),
        # a prefix goes last, whatever its place as typed, and is not quoted
        ("prog* fast", "fast prog"),
        ("fast prog* -slow", "-slow fast prog"),
        # a Latin last word is quoted (matched whole); a phrase or Japanese is left as it is
        ("cheap ramen", 'cheap "ramen"'),
        ('"cup noodles"', '"cup noodles"'),
        ("ramen 東京", "ramen 東京"),
        # a phrase keeps its words together; a bare term with punctuation goes as its words
        ('"冷たいそば" 熱い', '"冷たいそば" 熱い'),
        ("12:30", '12 "30"'),
        # filters never reach q
        ("ramen after:2024-01-01 lang:ja", '"ramen"'),
    ],
)
def test_q_is_built_from_the_parsed_query(engine, fake, typed, sent):
    engine.search(SearchQuery(q=typed))

    # (the first branch is the query as written: a term with readings adds branches after it)
    [first, *_] = [
        *searches(fake),
        *(q for multi in multi_searches(fake) for q in multi["queries"]),
    ]
    assert first["q"] == sent


def test_a_phrase_is_a_part_typed_in_quotes_not_a_text_that_was_quoted_elsewhere(engine, fake):
    # Given the same words typed once in quotes and once bare, cut apart by punctuation
    engine.search(SearchQuery(q='"1,200" 1,200'))

    # Then the quoted part is a phrase (its words in a row) and the bare one its words
    assert searches(fake)[0]["q"] == '"1 200" 1 "200"'


def test_every_query_asks_that_every_word_matches(engine, fake):
    add(engine, fake, said("vid1", "cheap noodles"))

    # (words without readings: no branch by reading)
    engine.search(SearchQuery(q="cheap noodles"))
    engine.search_videos(SearchQuery(q="cheap noodles"))
    engine.search(SearchQuery(q="cheap OR noodles"))

    # (grouped: the page, then the video's best subtitles, its video document and every
    # subtitle it matches)
    bodies = [*searches(fake), *(q for multi in multi_searches(fake) for q in multi["queries"])]
    assert len(bodies) == 7
    assert {body["matchingStrategy"] for body in bodies} == {"all"}


def test_a_word_is_not_found_by_a_longer_one_nor_a_prefix_by_a_shorter_one(engine, fake):
    add(engine, fake, said("program1", "my program"), said("programm", "programming"))

    assert [h.video_id for h in engine.search(SearchQuery(q="program")).hits] == ["program1"]
    assert {h.video_id for h in engine.search(SearchQuery(q="program*")).hits} == {
        "program1",
        "programm",
    }


def test_a_prefix_marks_the_whole_word_it_starts(engine, fake):
    add(engine, fake, said("vid1", "Programming is fun"))

    [hit] = engine.search(SearchQuery(q="prog*")).hits

    assert hit.highlight == "<mark>Programming</mark> is fun"


# -- filters --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "clauses"),
    [
        ("x after:2024-01-01", ["publishedAtTs >= 1704067200"]),
        ("x before:2024-01-01", ["publishedAtTs < 1704153600"]),  # the day included
        ("x duration:medium", ["durationSeconds >= 240", "durationSeconds <= 1200"]),
        ("x duration:>20m", ["durationSeconds >= 1201"]),
        ("x type:auto", ['subtitleType = "auto"']),
        ("x lang:EN", ['subtitleLanguage = "en"']),
        ("x views:>=10k views:<1m", ["viewCount >= 10000", "viewCount <= 999999"]),
    ],
)
def test_each_filter_is_a_filter_expression(engine, fake, typed, clauses):
    engine.search(SearchQuery(q=typed))

    assert searches(fake)[0]["filter"] == " AND ".join(clauses)


def test_filters_follow_the_channel_and_kind_clauses_on_every_query(engine, fake):
    add(engine, fake, said("vid1", "noodles", published_at="2025-01-01T00:00:00.000Z"))
    asked = {"channels": ("chan1",), "targets": ("subtitle",)}

    # (words without readings: no branch by reading)
    engine.search(SearchQuery(q="noodles after:2024-01-01", **asked))
    engine.search_videos(SearchQuery(q="noodles after:2024-01-01", **asked))
    engine.search_videos(SearchQuery(q="noodles OR pasta after:2024-01-01", **asked))

    wanted = 'channelId IN ["chan1"] AND kind = "subtitle" AND publishedAtTs >= 1704067200'
    flat, distinct = searches(fake)
    assert flat["filter"] == distinct["filter"] == wanted
    moments, federated, federated_moments = multi_searches(fake)
    assert {q["filter"] for q in federated["queries"]} == {wanted}
    # each video's queries: that video, the kind asked, and the query's filters (and the
    # channels for every subtitle it matches, as the list of its moments asks them)
    for body in (moments, federated_moments):
        assert {q["filter"] for q in body["queries"]} == {
            'videoId = "vid1" AND kind = "subtitle" AND publishedAtTs >= 1704067200',
            'videoId = "vid1" AND kind = "video" AND publishedAtTs >= 1704067200',
            (
                'videoId = "vid1" AND kind = "subtitle" AND channelId IN ["chan1"]'
                " AND publishedAtTs >= 1704067200"
            ),
        }


def test_a_filter_leaves_out_a_video_without_the_value(engine, fake):
    add(
        engine,
        fake,
        said("known", "ramen", view_count=5),
        said("hidden", "ramen", view_count=None, subtitle_type=None, subtitle_language=None),
    )

    assert [h.video_id for h in engine.search(SearchQuery(q="ramen views:<10")).hits] == ["known"]
    assert [h.video_id for h in engine.search(SearchQuery(q="ramen type:manual")).hits] == ["known"]


# -- OR -----------------------------------------------------------------------------------


def test_or_is_one_federated_query_per_branch_paged_by_the_federation(engine, fake):
    add(
        engine,
        fake,
        said("curry", "激辛牛丼"),
        said("sushi", "激辛寿司"),
        said("rice", "激辛ご飯"),
    )

    # (words in kanji alone: no branch by reading)
    results = engine.search(SearchQuery(q="激辛 牛丼 OR 寿司 -冷凍", page=2, per_page=1))

    [federated] = multi_searches(fake)
    common = {
        "indexUid": "subtitles",
        "attributesToSearchOn": SEARCHABLE,
        **SEARCH_DEFAULTS,
    }
    assert federated == {
        "queries": [
            {**common, "q": '-"冷凍" 激辛 牛丼'},
            {**common, "q": '-"冷凍" 激辛 寿司'},
        ],
        "federation": {"offset": 1, "limit": 1},
    }
    assert results.total_hits == 2
    assert [h.video_id for h in results.hits] == ["sushi"]


def test_each_combination_of_the_groups_is_a_branch(engine, fake):
    engine.search(SearchQuery(q="a OR b c OR d"))

    [federated] = multi_searches(fake)
    assert [q["q"] for q in federated["queries"]] == [
        'a "c"',
        'a "d"',
        'b "c"',
        'b "d"',
    ]


def test_or_hits_are_each_document_once_with_both_sides_marked(engine, fake):
    add(engine, fake, said("both", "うどんとそばの店"))

    results = engine.search(SearchQuery(q="うどん OR そば"))

    [hit] = [h for h in results.hits if h.matched_in == "subtitle"]
    assert hit.highlight == "<mark>うどん</mark>と<mark>そば</mark>の店"
    assert results.total_hits == 1


def test_grouped_or_asks_distinct_videos_counts_them_by_facet_and_merges_moments(engine, fake):
    add(
        engine,
        fake,
        said("curry", "牛丼の話", "牛丼と寿司"),
        said("sushi", "寿司の話"),
    )

    # (words in kanji alone: no branch by reading)
    results = engine.search_videos(SearchQuery(q="牛丼 OR 寿司", per_page=5))

    federated, moments = multi_searches(fake)
    assert [(q["q"], q["distinct"], q["showRankingScore"]) for q in federated["queries"]] == [
        ("牛丼", "videoId", True),
        ("寿司", "videoId", True),
    ]
    assert federated["federation"] == {
        "offset": 0,
        "limit": 10,
        "facetsByIndex": {"subtitles": ["videoId"]},
    }
    # each video's moments and video document asked once per branch
    assert [(q["filter"].split(" AND ")[:2], q["q"], q["limit"]) for q in moments["queries"]] == [
        (['videoId = "curry"', 'kind = "subtitle"'], "牛丼", 6),
        (['videoId = "curry"', 'kind = "subtitle"'], "寿司", 6),
        (['videoId = "curry"', 'kind = "video"'], "牛丼", 1),
        (['videoId = "curry"', 'kind = "video"'], "寿司", 1),
        (['videoId = "sushi"', 'kind = "subtitle"'], "牛丼", 6),
        (['videoId = "sushi"', 'kind = "subtitle"'], "寿司", 6),
        (['videoId = "sushi"', 'kind = "video"'], "牛丼", 1),
        (['videoId = "sushi"', 'kind = "video"'], "寿司", 1),
        # then every subtitle each video matches, per branch: its moments, counted
        (['videoId = "curry"', 'kind = "subtitle"'], "牛丼", meili_request.EVERY_MATCH),
        (['videoId = "curry"', 'kind = "subtitle"'], "寿司", meili_request.EVERY_MATCH),
        (['videoId = "sushi"', 'kind = "subtitle"'], "牛丼", meili_request.EVERY_MATCH),
        (['videoId = "sushi"', 'kind = "subtitle"'], "寿司", meili_request.EVERY_MATCH),
    ]
    # one entry per video, its moments of either side each once
    assert (results.total_videos, [v.video_id for v in results.videos]) == (2, ["curry", "sushi"])
    curry = results.videos[0]
    assert [m.text for m in curry.moments] == ["牛丼の話", "牛丼と寿司"]
    assert curry.moments[1].highlight == "<mark>牛丼</mark>と<mark>寿司</mark>"


def test_grouped_or_reads_further_when_videos_repeat_across_branches(engine, fake):
    # Given videos each saying every side of the OR in a moment of its own, so each
    # branch's best document of a video is another one: the merged list holds each
    # video four times
    words = ("alpha", "beta", "gamma", "delta")
    add(engine, fake, *(said(f"vid{n}", *words) for n in range(3)))

    # When the second page of one video is asked
    results = engine.search_videos(SearchQuery(q=" OR ".join(words), page=2, per_page=1))

    # Then the first read (twice the videos needed: 4 entries, all the first video's) is
    # not enough, and a longer one (up to page x perPage x branches) finds the page
    reads = [body for body in multi_searches(fake) if body["federation"] is not None]
    assert [body["federation"]["limit"] for body in reads] == [4, 8]
    assert [v.video_id for v in results.videos] == ["vid1"]
    assert results.total_videos == 3


def test_grouped_or_counts_videos_up_to_the_cap(engine, fake, monkeypatch):
    monkeypatch.setattr(meili, "TOTAL_VIDEOS_CAP", 2)
    add(engine, fake, *(said(f"vid{n}", "うどん") for n in range(3)))

    results = engine.search_videos(SearchQuery(q="うどん OR そば", per_page=1))

    assert (results.total_videos, results.more_than_cap) == (2, True)


# -- several prefix terms --------------------------------------------------------------------


def test_several_prefixes_keep_one_in_q_and_check_the_others_here(engine, fake):
    add(
        engine,
        fake,
        said("both", "programming at work"),
        said("inflected", "programs keep working"),
        said("nopro", "working hard"),
        said("nowork", "programming alone"),
    )

    # When a query of two prefixes is searched, hits and by video
    results = engine.search(SearchQuery(q="prog* work*"))
    grouped = engine.search_videos(SearchQuery(q="prog* work*"))

    # Then each search reads the documents of q `work` (its last prefix) as far as
    # SCAN_DEPTH, and keeps those holding a word starting with `prog`
    scan, grouped_scan, every = multi_searches(fake)
    assert scan == grouped_scan
    [query] = scan["queries"]
    assert (query["q"], query["offset"], query["limit"]) == ("work", 0, meili.SCAN_DEPTH)
    assert scan["federation"] is None
    assert {h.video_id for h in results.hits} == {"both", "inflected"}
    assert results.total_hits == 2
    assert {v.video_id for v in grouped.videos} == {"both", "inflected"}
    assert grouped.total_videos == 2
    # And each video's moments are every subtitle of q `work` it has, checked alike
    assert [(q["q"], q["limit"]) for q in every["queries"]] == [
        ("work", meili_request.EVERY_MATCH)
    ] * 2
    assert all(v.total_moments == 1 and v.moments for v in grouped.videos)
    inflected = next(h for h in results.hits if h.video_id == "inflected")
    assert inflected.highlight == "<mark>programs</mark> keep <mark>working</mark>"


# -- settings -------------------------------------------------------------------------------


def test_an_index_without_the_filters_fields_is_laid_out_anew_once(url, fake):
    fake.add_index(settings={**SETTINGS, "filterableAttributes": ["videoId", "channelId", "kind"]})
    engine = on_stand_in(url)

    assert [engine.apply_settings(), engine.apply_settings()] == [True, False]
    assert set(QUERY_FILTERS) <= set(fake.indexes["subtitles"]["settings"]["filterableAttributes"])


# -- the stand-in ---------------------------------------------------------------------------


@pytest.fixture
def client(url, engine):
    return meilisearch.Client(url, "admin-key")


def test_the_stand_in_refuses_paging_inside_a_federated_query(client):
    with pytest.raises(MeilisearchApiError, match="pagination"):
        client.multi_search([{"indexUid": "subtitles", "q": "x", "limit": 5}], federation={})


def test_the_stand_in_refuses_a_filter_on_an_attribute_not_filterable(client):
    with pytest.raises(MeilisearchApiError, match="not filterable"):
        client.index("subtitles").search("x", {"filter": "text = x"})


def test_the_stand_in_federation_marks_hits_and_counts_every_query_s_documents(
    engine, fake, client
):
    add(engine, fake, said("udon", "うどんとそば"), said("soba", "そば"))

    answer = client.multi_search(
        [
            {"indexUid": "subtitles", "q": "うどん", "filter": 'kind = "subtitle"'},
            {"indexUid": "subtitles", "q": "そば", "filter": 'kind = "subtitle"'},
        ],
        federation={"limit": 5},
    )

    assert [(h["id"], h["_federation"]["queriesPosition"]) for h in answer["hits"]] == [
        ("udon-s0000", 0),
        ("soba-s0000", 1),
    ]
    assert answer["estimatedTotalHits"] == 2
    assert (answer["offset"], answer["limit"]) == (0, 5)
