"""The meilisearch engine against a local stand-in of the server: the exact requests the client
sends (paths and JSON bodies), what the engine makes of the answers, and errors mapped to ours."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import meilisearch
import pytest

from models.search import meili
from models.search.base import (
    Document,
    IndexedVideo,
    IndexNotReady,
    SearchError,
    SearchQuery,
    SearchUnavailable,
    Segment,
)
from models.search.meili import MeilisearchEngine
from tests.fakes.http import serve
from tests.models.search.engines import on_stand_in

pytestmark = pytest.mark.database_independent

# What a branch as written searches; a branch by reading searches the reading fields too.
SEARCHABLE = ["title", "text", "description", "titleWords", "textWords", "descriptionWords"]
READINGS = ["titleReading", "textReading", "descriptionReading"]
SETTINGS = {
    "searchableAttributes": [*SEARCHABLE, *READINGS],
    "filterableAttributes": [
        "videoId",
        "channelId",
        "kind",
        "vectorModel",
        "publishedAtTs",
        "durationSeconds",
        "subtitleType",
        "subtitleLanguage",
        "viewCount",
    ],
    "sortableAttributes": ["publishedAtTs", "viewCount", "start"],
    "localizedAttributes": [{"attributePatterns": [*SEARCHABLE, *READINGS], "locales": ["jpn"]}],
    "displayedAttributes": ["*"],
    # totalHits is exact only up to maxTotalHits (1000 by default); the API promises
    # exact totals and pages.
    "pagination": {"maxTotalHits": 100_000},
    "faceting": {"maxValuesPerFacet": 1001},
}
SEARCH_DEFAULTS = {
    "attributesToHighlight": ["text", "title", "description"],
    "highlightPreTag": "\u0002",
    "highlightPostTag": "\u0003",
    "attributesToCrop": ["description"],
    "cropLength": 40,
    "showMatchesPosition": True,
    "matchingStrategy": "all",
}


@pytest.fixture
def engine(url):
    return on_stand_in(url)


@pytest.fixture
def ready(fake):
    """The index as apply_settings leaves it."""
    return fake.add_index(settings=SETTINGS)


def subtitle(video_id="vid1", n=0, text="hello world", start=0.0, end=1.5, **fields):
    values = {
        "channel_id": "chan1",
        "video_title": "A video",
        "channel_title": "A channel",
        "published_at": "2026-01-02T03:04:05.000Z",
        "thumbnail_url": f"https://i.ytimg.com/vi/{video_id}/hqdefault.jpg",
        "view_count": 10,
        "subscriber_count": 100,
        **fields,
    }
    return Document(
        id=f"{video_id}-s{n:04d}",
        video_id=video_id,
        kind="subtitle",
        text=text,
        start=start,
        end=end,
        **values,
    )


def video(video_id="vid1", title="A video", description="About things", **fields):
    values = {
        "channel_id": "chan1",
        "video_title": title,
        "channel_title": "A channel",
        "published_at": "2026-01-02T03:04:05.000Z",
        "thumbnail_url": None,
        "view_count": 10,
        "subscriber_count": 100,
        **fields,
    }
    return Document(
        id=f"{video_id}-v",
        video_id=video_id,
        kind="video",
        title=title,
        description=description,
        **values,
    )


def searches(fake):
    return [body for method, path, body in fake.calls() if path == "/indexes/subtitles/search"]


def bodies_sent(fake):
    """Every search body sent: a search's, and each query of a multi-search (a term with
    readings is also asked by reading, in branches of their own)."""
    bodies = []
    for _, path, body in fake.calls():
        if path == "/indexes/subtitles/search":
            bodies.append(body)
        elif path == "/multi-search":
            bodies.extend(body["queries"])
    return bodies


# -- settings ----------------------------------------------------------------------------


def test_apply_settings_creates_the_index_then_sets_every_setting(engine, fake):
    fake.pending_polls = 2  # each task reads "enqueued" twice before "succeeded"

    engine.apply_settings()

    assert fake.calls() == [
        ("GET", "/indexes/subtitles", None),
        ("POST", "/indexes", {"uid": "subtitles", "primaryKey": "id"}),
        ("PATCH", "/indexes/subtitles/settings", SETTINGS),
    ]
    assert fake.polled() == [0, 1]
    assert fake.indexes["subtitles"]["primaryKey"] == "id"
    assert {r["headers"]["Authorization"] for r in fake.requests} == {"Bearer admin-key"}


def test_apply_settings_on_an_existing_index_reads_its_settings_then_sets_all(engine, fake):
    fake.add_index(settings={"filterableAttributes": ["old"]})

    engine.apply_settings()
    engine.apply_settings()

    assert (
        fake.calls()
        == [
            ("GET", "/indexes/subtitles", None),
            ("GET", "/indexes/subtitles/settings", None),
            ("PATCH", "/indexes/subtitles/settings", SETTINGS),
        ]
        * 2
    )
    assert (
        fake.indexes["subtitles"]["settings"]["filterableAttributes"]
        == (SETTINGS["filterableAttributes"])
    )


def test_a_failed_settings_task_raises_with_the_task_error(engine, fake):
    fake.add_index()
    fake.fail_next_task("Attribute `jpn` is not a valid locale.", code="invalid_settings")

    with pytest.raises(SearchError, match="Attribute `jpn` is not a valid locale"):
        engine.apply_settings()


def test_apply_settings_says_it_created_the_index_only_the_first_time(engine, fake):
    # Given no index
    # When the settings are applied twice
    created = [engine.apply_settings(), engine.apply_settings()]

    # Then only the call that created the index says so (its documents must be written)
    assert created == [True, False]


def test_apply_settings_on_an_index_laid_out_before_the_word_fields_says_it_is_laid_out_anew(
    engine, fake
):
    # Given an index set up before documents carried their words (`db upgrade` writes
    # every video again when told the index was laid out anew)
    fake.add_index(settings={**SETTINGS, "searchableAttributes": ["title", "text", "description"]})

    # When the settings are applied twice (a second `db upgrade`, or a second process)
    laid_out = [engine.apply_settings(), engine.apply_settings()]

    # Then only the first call says its documents must be written again, and the word
    # fields are searchable from then on
    assert laid_out == [True, False]
    assert fake.indexes["subtitles"]["settings"]["searchableAttributes"] == [*SEARCHABLE, *READINGS]


def test_apply_settings_on_an_index_created_meanwhile_did_not_create_it(engine, fake, monkeypatch):
    # Given no index when we look, but another process creating it (with our settings)
    # before our creation runs
    create = fake.create_index

    def created_meanwhile(uid, body):
        fake.add_index(uid, settings=SETTINGS)
        create(uid, body)

    monkeypatch.setattr(fake, "create_index", created_meanwhile)

    # When the settings are applied
    created = engine.apply_settings()

    # Then the other process created it, and the settings are still applied
    assert created is False
    assert fake.calls()[-1] == ("PATCH", "/indexes/subtitles/settings", SETTINGS)


# -- the write lock ----------------------------------------------------------------------


class RecordingLock:
    """A lock factory that records when the engine takes and releases the lock."""

    def __init__(self):
        self.events = []

    def __call__(self):
        @contextmanager
        def held():
            self.events.append("taken")
            try:
                yield
            finally:
                self.events.append("released")

        return held()


def test_writing_holds_the_given_lock_and_looks_up_the_index_once_inside_it(url, fake, ready):
    # Given an engine handed a shared lock
    lock = RecordingLock()
    engine = MeilisearchEngine(url, "admin-key", lock=lock)

    # When it writes
    with engine.writing():
        lock.events.append("block")
        engine.replace_videos({"vid1": [subtitle()]})

    # Then the lock is held around the block, the index looked up once inside it
    assert lock.events == ["taken", "block", "released"]
    assert [(m, p) for m, p, _ in fake.calls()] == [
        ("GET", "/indexes/subtitles"),
        ("POST", "/indexes/subtitles/documents/delete"),
        ("POST", "/indexes/subtitles/documents"),
    ]


def test_writing_nested_in_one_thread_takes_the_lock_once(url, fake, ready):
    # Given an engine handed a lock that is not re-entrant (as redis-py's is not)
    lock = RecordingLock()
    engine = MeilisearchEngine(url, "admin-key", lock=lock)

    # When a writer calls another that writes too
    with engine.writing():
        with engine.writing():
            lock.events.append("inner")
        lock.events.append("outer")

    # Then the lock is taken once and the index looked up once
    assert lock.events == ["taken", "inner", "outer", "released"]
    assert fake.calls() == [("GET", "/indexes/subtitles", None)]


def test_writing_refuses_a_missing_index_a_document_add_would_create(url, engine, fake):
    # Given no index, which Meilisearch creates without our settings on a first add
    index = meilisearch.Client(url, "admin-key").index("subtitles")
    index.wait_for_task(index.add_documents([{"id": "probe"}]).task_uid)
    assert fake.indexes["subtitles"]["settings"] == {}
    del fake.indexes["subtitles"]
    fake.requests.clear()

    # When a writer starts
    with pytest.raises(IndexNotReady) as refused, engine.writing():
        engine.replace_videos({"vid1": [subtitle()]})  # pragma: no cover

    # Then it is refused before anything is written, naming what sets the index up
    assert "subsearch db upgrade" in str(refused.value)
    assert "subsearch search reindex" in str(refused.value)
    assert fake.calls() == [("GET", "/indexes/subtitles", None)]
    assert "subtitles" not in fake.indexes


def test_writing_releases_the_lock_when_it_refuses(url, fake):
    # Given no index
    lock = RecordingLock()
    engine = MeilisearchEngine(url, "admin-key", lock=lock)

    # When a writer is refused
    with pytest.raises(IndexNotReady), engine.writing():
        pass  # pragma: no cover

    # Then the lock is free again
    assert lock.events == ["taken", "released"]


def test_writing_releases_the_lock_when_the_block_fails(url, fake, ready):
    # Given a writer holding the lock
    lock = RecordingLock()
    engine = MeilisearchEngine(url, "admin-key", lock=lock)

    # When its block fails
    with pytest.raises(RuntimeError), engine.writing():
        raise RuntimeError("database gone")

    # Then the lock is released and the next writer takes it again
    with engine.writing():
        pass
    assert lock.events == ["taken", "released", "taken", "released"]


def test_without_a_lock_given_writers_of_one_process_take_turns(engine, fake, ready):
    # Given one thread writing
    inside, later = threading.Event(), []
    release = threading.Event()

    def first():
        with engine.writing():
            inside.set()
            release.wait(5)
            later.append("first done")

    def second():
        with engine.writing():
            later.append("second in")

    one = threading.Thread(target=first)
    one.start()
    assert inside.wait(5)

    # When another thread starts writing
    two = threading.Thread(target=second)
    two.start()
    two.join(0.2)

    # Then it waits for the first to finish
    assert later == []
    release.set()
    one.join(5)
    two.join(5)
    assert later == ["first done", "second in"]


# -- writes ------------------------------------------------------------------------------


def test_replace_deletes_the_video_by_filter_then_adds_camel_case_documents(engine, fake, ready):
    engine.replace_video_documents("vid1", [subtitle(n=0), subtitle(n=1), subtitle(n=2)])
    engine.replace_video_documents("vid2", [subtitle("vid2")])
    fake.requests.clear()

    engine.replace_video_documents(
        "vid1",
        [
            video(description="Cats"),
            subtitle(
                text="new words",
                start=2.5,
                end=4.0,
                duration_seconds=600,
                subtitle_type="manual",
                subtitle_language="ja",
            ),
        ],
    )

    assert fake.calls() == [
        ("POST", "/indexes/subtitles/documents/delete", {"filter": 'videoId IN ["vid1"]'}),
        (
            "POST",
            "/indexes/subtitles/documents",
            [
                {
                    "id": "vid1-v",
                    "videoId": "vid1",
                    "channelId": "chan1",
                    "kind": "video",
                    "videoTitle": "A video",
                    "channelTitle": "A channel",
                    "publishedAt": "2026-01-02T03:04:05.000Z",
                    "publishedAtTs": 1767323045,
                    "thumbnailUrl": None,
                    "viewCount": 10,
                    "subscriberCount": 100,
                    "durationSeconds": None,
                    "subtitleType": None,
                    "subtitleLanguage": None,
                    "title": "A video",
                    "description": "Cats",
                    "titleWords": "a video",
                    "descriptionWords": "cats",
                    "titleReading": "",
                    "descriptionReading": "",
                },
                {
                    "id": "vid1-s0000",
                    "videoId": "vid1",
                    "channelId": "chan1",
                    "kind": "subtitle",
                    "videoTitle": "A video",
                    "channelTitle": "A channel",
                    "publishedAt": "2026-01-02T03:04:05.000Z",
                    "publishedAtTs": 1767323045,
                    "thumbnailUrl": "https://i.ytimg.com/vi/vid1/hqdefault.jpg",
                    "viewCount": 10,
                    "subscriberCount": 100,
                    "durationSeconds": 600,
                    "subtitleType": "manual",
                    "subtitleLanguage": "ja",
                    "text": "new words",
                    "textWords": "new words",
                    "textReading": "",
                    "start": 2.5,
                    "end": 4.0,
                },
            ],
        ),
    ]
    assert len(fake.polled()) == 2
    assert sorted(fake.documents()) == ["vid1-s0000", "vid1-v", "vid2-s0000"]


def test_a_failed_delete_task_raises_and_adds_nothing(engine, fake, ready):
    fake.fail_next_task("No space left on device.", code="no_space_left_on_device")

    with pytest.raises(SearchError, match="No space left on device"):
        engine.replace_video_documents("vid1", [subtitle()])

    assert [path for _, path, _ in fake.calls()] == ["/indexes/subtitles/documents/delete"]
    assert fake.documents() == {}


def test_replace_videos_deletes_them_in_one_task_then_adds_all_in_one(engine, fake, ready):
    # Given three indexed videos
    for vid in ("vid1", "vid2", "vid3"):
        engine.replace_videos({vid: [subtitle(vid, 0), subtitle(vid, 1)]})
    fake.requests.clear()

    # When two are replaced and one goes, at once
    engine.replace_videos(
        {"vid1": [video("vid1"), subtitle("vid1", 0)], "vid2": [], "vid4": [subtitle("vid4")]}
    )

    # Then one task deletes all three by filter and one adds every new document
    calls = fake.calls()
    assert calls[0] == (
        "POST",
        "/indexes/subtitles/documents/delete",
        {"filter": 'videoId IN ["vid1", "vid2", "vid4"]'},
    )
    assert calls[1][:2] == ("POST", "/indexes/subtitles/documents")
    assert [doc["id"] for doc in calls[1][2]] == ["vid1-v", "vid1-s0000", "vid4-s0000"]
    assert len(calls) == 2
    assert len(fake.polled()) == 2
    assert sorted(fake.documents()) == [
        "vid1-s0000",
        "vid1-v",
        "vid3-s0000",
        "vid3-s0001",
        "vid4-s0000",
    ]


def test_replace_videos_that_all_go_adds_nothing(engine, fake, ready):
    # Given an indexed video
    engine.replace_videos({"vid1": [subtitle()]})
    fake.requests.clear()

    # When it and a video never indexed go
    engine.replace_videos({"vid1": [], "vid2": []})

    # Then only the delete is sent
    assert fake.calls() == [
        (
            "POST",
            "/indexes/subtitles/documents/delete",
            {"filter": 'videoId IN ["vid1", "vid2"]'},
        )
    ]
    assert fake.documents() == {}


def test_replace_videos_of_no_video_sends_nothing(engine, fake, ready):
    engine.replace_videos({})

    assert fake.requests == []


def test_replace_videos_bounds_each_delete_filter(engine, fake, ready, monkeypatch):
    # Given deletes limited to two videos each
    monkeypatch.setattr(meili, "DELETE_CHUNK", 2)

    # When five videos are replaced
    engine.replace_videos({f"vid{n}": [subtitle(f"vid{n}")] for n in range(5)})

    # Then three deletes cover them, then one add holds every document
    calls = fake.calls()
    assert [body["filter"] for _, path, body in calls if path.endswith("/delete")] == [
        'videoId IN ["vid0", "vid1"]',
        'videoId IN ["vid2", "vid3"]',
        'videoId IN ["vid4"]',
    ]
    assert [len(body) for _, path, body in calls if path.endswith("/documents")] == [5]
    assert len(fake.documents()) == 5


def test_replace_videos_quotes_each_id(engine, fake, ready):
    # Given a video whose id holds a quote and a backslash
    odd = 'vid"1\\'
    fake.seed({"id": "a", "videoId": odd, "channelId": "c", "kind": "subtitle"})

    # When it goes
    engine.replace_videos({odd: [], "vid2": []})

    # Then the filter quotes it and it is gone
    assert fake.calls()[0][2] == {"filter": r'videoId IN ["vid\"1\\", "vid2"]'}
    assert fake.documents() == {}


def test_a_failed_add_task_raises(engine, fake, ready):
    # Given a document Meilisearch refuses
    refused = subtitle()
    refused = Document(**{**refused.__dict__, "id": "not an id!"})

    # When it is written, then the failed task is an error
    with pytest.raises(SearchError, match="invalid_document_id"):
        engine.replace_videos({"vid1": [refused]})


def test_replace_on_a_missing_index_is_not_ready_and_creates_nothing(engine, fake):
    # Given no index
    # When a video is written without writing() looking first
    with pytest.raises(IndexNotReady, match="subsearch db upgrade"):
        engine.replace_videos({"vid1": [subtitle()]})

    # Then the delete failed and no add created the index
    assert [p for _, p, _ in fake.calls()] == ["/indexes/subtitles/documents/delete"]
    assert "subtitles" not in fake.indexes


def test_a_video_document_carries_its_fingerprint(engine, fake, ready):
    # When a video document with a fingerprint and a subtitle without are written
    engine.replace_videos({"vid1": [video(fingerprint="abc123"), subtitle()]})

    # Then the video document stores it and the subtitle has no such field
    docs = fake.documents()
    assert docs["vid1-v"]["fingerprint"] == "abc123"
    assert "fingerprint" not in docs["vid1-s0000"]


def test_delete_quotes_an_id_holding_a_quote_and_a_backslash(engine, fake, ready):
    odd = 'vid"1\\'
    fake.seed(
        {"id": "a", "videoId": odd, "channelId": "c", "kind": "subtitle"},
        {"id": "b", "videoId": "vid", "channelId": "c", "kind": "subtitle"},
        {"id": "c", "videoId": "vid1", "channelId": "c", "kind": "subtitle"},
    )

    engine.delete_video_documents(odd)

    assert fake.calls() == [
        ("POST", "/indexes/subtitles/documents/delete", {"filter": r'videoId = "vid\"1\\"'})
    ]
    assert sorted(fake.documents()) == ["b", "c"]


def test_channel_update_sends_partial_updates_in_batches_of_1000(engine, fake, ready):
    fake.seed(
        *(
            {"id": f"d{n:04d}", "videoId": "v", "channelId": "chan1", "subscriberCount": 1}
            for n in range(2500)
        ),
        {"id": "other", "videoId": "w", "channelId": "chan2", "subscriberCount": 1},
        {"id": "stub", "subscriberCount": 1},  # left by an earlier update racing a delete
    )

    updated = engine.update_channel_documents("chan1", {"subscriber_count": 1234})

    assert updated == 2500
    calls = fake.calls()
    fetch = "/indexes/subtitles/documents/fetch"
    assert [(m, p, b) for m, p, b in calls if p == fetch] == [
        (
            "POST",
            fetch,
            {"filter": 'channelId = "chan1"', "fields": ["id"], "limit": 1000, "offset": offset},
        )
        for offset in (0, 1000, 2000)
    ]
    puts = [body for method, path, body in calls if method == "PUT"]
    assert [len(body) for body in puts] == [1000, 1000, 500]
    assert puts[0][0] == {"id": "d0000", "subscriberCount": 1234}
    assert all(set(doc) == {"id", "subscriberCount"} for body in puts for doc in body)
    assert [p for _, p, _ in calls if p == "/indexes/subtitles/documents"] == [
        "/indexes/subtitles/documents"
    ] * 3
    assert calls[-1] == (
        "POST",
        "/indexes/subtitles/documents/delete",
        {"filter": "channelId NOT EXISTS"},
    )
    docs = fake.documents()
    assert docs["d2499"] == {
        "id": "d2499",
        "videoId": "v",
        "channelId": "chan1",
        "subscriberCount": 1234,
    }
    assert docs["other"]["subscriberCount"] == 1
    assert "stub" not in docs


def test_channel_update_of_an_empty_channel_sends_no_update(engine, fake, ready):
    assert engine.update_channel_documents("nobody", {"channel_title": "New"}) == 0

    assert [method for method, _, _ in fake.calls()] == ["POST"]  # the fetch only


def test_channel_update_refuses_fields_a_channel_does_not_own(engine, fake, ready):
    with pytest.raises(SearchError, match="video_title"):
        engine.update_channel_documents("chan1", {"video_title": "x"})

    assert fake.requests == []


# -- search ------------------------------------------------------------------------------


def test_search_defaults_send_the_full_request(engine, fake, ready):
    engine.replace_video_documents("vid1", [subtitle(text="Hello there")])
    fake.requests.clear()

    results = engine.search(SearchQuery(q="hello"))

    # (a last word is quoted: Meilisearch would match it as a prefix)
    assert searches(fake) == [
        {
            "q": '"hello"',
            "attributesToSearchOn": SEARCHABLE,
            "page": 1,
            "hitsPerPage": 20,
            **SEARCH_DEFAULTS,
        }
    ]
    assert results.total_hits == 1
    assert results.semantic_applied is False
    hit = results.hits[0]
    assert (hit.video_id, hit.channel_id, hit.matched_in) == ("vid1", "chan1", "subtitle")
    assert (hit.video_title, hit.channel_title) == ("A video", "A channel")
    assert hit.published_at == "2026-01-02T03:04:05.000Z"
    assert hit.thumbnail_url == "https://i.ytimg.com/vi/vid1/hqdefault.jpg"
    assert (hit.start, hit.end) == (0.0, 1.5)
    assert hit.text == "Hello there"
    assert hit.highlight == "<mark>Hello</mark> there"


def test_search_with_channels_a_target_and_a_sort(engine, fake, ready):
    engine.replace_video_documents(
        "old",
        [subtitle("old", text="hello", published_at="2020-01-01T00:00:00.000Z", channel_id="c2")],
    )
    engine.replace_video_documents(
        "new",
        [subtitle("new", text="hello", published_at="2026-01-01T00:00:00.000Z", channel_id="c1")],
    )
    engine.replace_video_documents("gone", [subtitle("gone", text="hello", channel_id="c3")])
    fake.requests.clear()

    results = engine.search(
        SearchQuery(q="hello", channels=("c1", "c2"), targets=("subtitle",), sort="newest")
    )

    assert searches(fake) == [
        {
            "q": '"hello"',
            "attributesToSearchOn": ["text", "textWords"],
            "page": 1,
            "hitsPerPage": 20,
            **SEARCH_DEFAULTS,
            "filter": 'channelId IN ["c1", "c2"] AND kind = "subtitle"',
            "sort": ["publishedAtTs:desc"],
        }
    ]
    assert [h.video_id for h in results.hits] == ["new", "old"]


@pytest.mark.parametrize(
    ("sort", "rules"),
    [
        ("newest", ["publishedAtTs:desc"]),
        ("oldest", ["publishedAtTs:asc"]),
        ("views", ["viewCount:desc"]),
    ],
)
def test_each_sort_maps_to_its_rule(engine, fake, ready, sort, rules):
    engine.search(SearchQuery(q="x", sort=sort))

    assert searches(fake)[0]["sort"] == rules


def test_title_and_description_targets_search_video_documents_only(engine, fake, ready):
    engine.search(SearchQuery(q="x", targets=("description", "title")))

    body = searches(fake)[0]
    assert body["attributesToSearchOn"] == [
        "title",
        "description",
        "titleWords",
        "descriptionWords",
    ]
    assert body["filter"] == 'kind = "video"'


def test_pages_are_asked_by_number_and_the_total_is_exact(engine, fake, ready):
    engine.replace_video_documents(
        "vid1", [subtitle(n=n, text=f"hello {n}", start=float(n)) for n in range(7)]
    )
    fake.requests.clear()

    results = engine.search(SearchQuery(q="hello", page=2, per_page=5))

    assert (searches(fake)[0]["page"], searches(fake)[0]["hitsPerPage"]) == (2, 5)
    assert results.total_hits == 7
    assert [h.text for h in results.hits] == ["hello 5", "hello 6"]


def test_a_video_hit_says_whether_the_title_or_the_description_matched(engine, fake, ready):
    engine.replace_video_documents("t", [video("t", title="Cooking rice", description="Food")])
    engine.replace_video_documents("d", [video("d", title="Dinner", description="rice and fish")])
    engine.replace_video_documents("b", [video("b", title="rice", description="more rice")])

    hits = {h.video_id: h for h in engine.search(SearchQuery(q="rice")).hits}
    only_description = engine.search(SearchQuery(q="rice", targets=("description",))).hits

    assert (hits["t"].matched_in, hits["t"].text) == ("title", "Cooking rice")
    assert hits["t"].highlight == "Cooking <mark>rice</mark>"
    assert (hits["d"].matched_in, hits["d"].highlight) == (
        "description",
        "<mark>rice</mark> and fish",
    )
    assert (hits["d"].start, hits["d"].end) == (None, None)
    assert hits["b"].matched_in == "title"
    # Asked for descriptions only, a title match does not count.
    assert {h.video_id: h.matched_in for h in only_description} == {
        "d": "description",
        "b": "description",
    }


def test_a_long_description_is_shown_cropped_around_its_match(engine, fake, ready):
    words = [f"w{n}" for n in range(100)]
    words[60] = "needle"
    engine.replace_video_documents("vid1", [video(description=" ".join(words))])

    hit = engine.search(SearchQuery(q="needle")).hits[0]

    assert hit.matched_in == "description"
    assert hit.text.startswith("…") and hit.text.endswith("…")
    assert len(hit.text.strip("…").split(" ")) == 40
    assert "<mark>needle</mark>" in hit.highlight
    assert hit.highlight.replace("<mark>", "").replace("</mark>", "") == hit.text


def test_markup_in_subtitles_comes_back_escaped_with_marks_intact(engine, fake, ready):
    engine.replace_video_documents(
        "vid1", [subtitle(text='<script>alert("x")</script> hello & <mark>bye</mark>')]
    )

    hit = engine.search(SearchQuery(q="hello")).hits[0]

    assert hit.highlight == (
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; <mark>hello</mark>"
        " &amp; &lt;mark&gt;bye&lt;/mark&gt;"
    )
    assert hit.text == '<script>alert("x")</script> hello & <mark>bye</mark>'


def test_marker_characters_in_a_subtitle_are_dropped_before_indexing(engine, fake, ready):
    engine.replace_video_documents("vid1", [subtitle(text="a\u0002b\u0003c hello")])

    hit = engine.search(SearchQuery(q="hello")).hits[0]

    assert fake.documents()["vid1-s0000"]["text"] == "abc hello"
    assert hit.highlight == "abc <mark>hello</mark>"


@pytest.mark.parametrize(
    ("stored", "asked"), [("コーヒ－を", "コーヒー"), ("コーヒーを", "コーヒ―")]
)
def test_long_vowel_mark_variants_are_one_mark_in_documents_and_queries(
    engine, fake, ready, stored, asked
):
    engine.replace_video_documents("vid1", [subtitle(text=stored)])

    hits = engine.search(SearchQuery(q=asked)).hits

    assert fake.documents()["vid1-s0000"]["text"] == "コーヒーを"
    assert bodies_sent(fake)[0]["q"] == "コーヒー"
    assert [hit.highlight for hit in hits] == ["<mark>コーヒー</mark>を"]


# -- Japanese words: spelling variants meet through the word fields -----------------------


def test_documents_carry_the_normalised_forms_of_their_searchable_fields_words(engine, fake, ready):
    # When a video is written whose title, description and subtitle hold variant spellings
    # and a compound
    engine.replace_videos(
        {
            "vid1": [
                video(title="藝術の秋", description="シュミレーションの結果"),
                subtitle(text="東京国際空港に行く"),
            ]
        }
    )

    # Then each field keeps what was written, and its words field holds the dictionary's
    # forms: long units, then the short units of a compound
    meta, line = fake.documents()["vid1-v"], fake.documents()["vid1-s0000"]
    assert (meta["title"], meta["titleWords"]) == ("藝術の秋", "芸術 の 秋")
    assert (meta["description"], meta["descriptionWords"]) == (
        "シュミレーションの結果",
        "シミュレーション の 結果",
    )
    assert (line["text"], line["textWords"]) == (
        "東京国際空港に行く",
        "東京国際空港 に 行く 東京 国際 空港 に 行く",
    )
    assert "titleWords" not in line and "textWords" not in meta


def test_word_fields_are_searchable_after_the_fields_as_written_and_never_highlighted(engine, fake):
    # When the index is set up
    engine.apply_settings()

    # Then every field as written ranks before every words field (the `attribute` rule
    # prefers what was said), those before every reading field, and the search asks no
    # highlight of a words field
    searchable = fake.indexes["subtitles"]["settings"]["searchableAttributes"]
    assert searchable[:3] == ["title", "text", "description"]
    assert sorted(searchable[3:6]) == ["descriptionWords", "textWords", "titleWords"]
    assert sorted(searchable[6:]) == ["descriptionReading", "textReading", "titleReading"]
    engine.search(SearchQuery(q="x"))
    assert searches(fake)[0]["attributesToHighlight"] == ["text", "title", "description"]


@pytest.mark.parametrize(
    ("target", "fields"),
    [
        ("subtitle", ["text", "textWords"]),
        ("title", ["title", "titleWords"]),
        ("description", ["description", "descriptionWords"]),
    ],
)
def test_each_target_searches_its_field_and_that_field_s_words(engine, fake, ready, target, fields):
    engine.search(SearchQuery(q="x", targets=(target,)))

    assert searches(fake)[0]["attributesToSearchOn"] == fields


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        ("シュミレーション", "シミュレーション"),
        ("ｼｭﾐﾚｰｼｮﾝ", "シミュレーション"),  # half-width, through normalize()
        ("引越しの準備", "引っ越し の 準備"),
        ('"シュミレーション"', '"シュミレーション"'),  # a phrase is searched as written
        ("simulation", '"simulation"'),  # a Latin last word is matched whole
        ("1,200", '1 "200"'),  # a bare term goes as its words
        ("東京", "東京"),  # its form is how it was typed
        ("東京 -藝術", '-"藝術" -"芸術" 東京'),  # excluded as typed and as its forms
        ('藝術 "藝術の秋" computer 藝術', '芸術 "藝術の秋" computer 芸術'),
    ],
)
def test_a_bare_japanese_term_is_sent_as_its_words_forms(engine, fake, ready, typed, sent):
    engine.search(SearchQuery(q=typed))

    assert bodies_sent(fake)[0]["q"] == sent


def test_a_variant_spelling_finds_both_spellings_and_marks_the_word_where_meili_did_not(
    engine, fake, ready
):
    # Given one video saying シミュレーション and another saying シュミレーション
    engine.replace_video_documents("right", [subtitle("right", text="シミュレーションの結果")])
    engine.replace_video_documents("variant", [subtitle("variant", text="シュミレーションの結果")])

    # When either spelling is searched
    for typed in ("シュミレーション", "シミュレーション"):
        hits = {hit.video_id: hit for hit in engine.search(SearchQuery(q=typed)).hits}

        # Then both videos are found
        assert set(hits) == {"right", "variant"}

    # And a hit Meilisearch marked nothing in (found through its words) is marked by our
    # own highlight of what was typed
    hits = {hit.video_id: hit for hit in engine.search(SearchQuery(q="シュミレーション")).hits}
    assert hits["right"].highlight == "<mark>シミュレーション</mark>の結果"
    assert hits["variant"].highlight == "<mark>シュミレーション</mark>の結果"
    assert hits["variant"].text == "シュミレーションの結果"


def test_a_description_found_through_its_words_is_shown_cropped_around_the_word(
    engine, fake, ready
):
    # Given a long description that writes the word in its variant spelling, far in
    description = "あ" * 150 + "シュミレーションをします" + "い" * 150
    engine.replace_video_documents("vid1", [video(title="動画", description=description)])

    # When the word is searched
    [hit] = engine.search(SearchQuery(q="シュミレーション")).hits

    # Then the description is cut around the word, which is marked
    assert hit.matched_in == "description"
    assert hit.text.startswith("…") and hit.text.endswith("…")
    assert "<mark>シュミレーション</mark>をします" in hit.highlight
    assert hit.highlight.replace("<mark>", "").replace("</mark>", "") == hit.text


def test_a_title_found_through_its_words_counts_as_a_title_match(engine, fake, ready):
    # Given a video whose title writes the word in its variant spelling
    engine.replace_video_documents(
        "vid1", [video(title="シュミレーション入門", description="ゲームの話")]
    )

    # When results by video are asked for the other spelling
    [found] = engine.search_videos(SearchQuery(q="シミュレーション")).videos
    [hit] = engine.search(SearchQuery(q="シュミレーション")).hits

    # Then the title matched, though Meilisearch matched only its words
    assert found.matched_in == ("title",)
    assert (hit.matched_in, hit.highlight) == ("title", "<mark>シュミレーション</mark>入門")


def test_a_renamed_title_carries_the_words_of_its_new_title(engine, fake, ready):
    # Given an indexed video with a subtitle
    engine.replace_videos({"vid1": [video(title="旧題"), subtitle()]})

    # When its title changes to one with a variant spelling
    engine.update_video_documents("vid1", {"video_title": "藝術入門", "title": "藝術入門"})

    # Then its video document's words are the new title's, and the subtitle has none
    docs = fake.documents()
    assert (docs["vid1-v"]["title"], docs["vid1-v"]["titleWords"]) == ("藝術入門", "芸術 入門")
    assert "titleWords" not in docs["vid1-s0000"]
    assert [h.video_id for h in engine.search(SearchQuery(q="芸術", targets=("title",))).hits] == [
        "vid1"
    ]


# -- reads -------------------------------------------------------------------------------


def test_video_segments_are_every_subtitle_in_time_order(engine, fake, ready):
    fake.seed(
        *(
            {
                "id": f"s{n:04d}",
                "videoId": "vid1",
                "channelId": "c",
                "kind": "subtitle",
                "text": f"line {n}",
                "start": float(1000 - n),
                "end": float(1001 - n),
            }
            for n in range(1001)
        ),
        {"id": "vid1-v", "videoId": "vid1", "channelId": "c", "kind": "video", "title": "T"},
        {
            "id": "x",
            "videoId": "vid2",
            "channelId": "c",
            "kind": "subtitle",
            "text": "other",
            "start": 0.0,
            "end": 1.0,
        },
    )

    segments = engine.video_segments("vid1")

    fetch = "/indexes/subtitles/documents/fetch"
    assert fake.calls() == [
        (
            "POST",
            fetch,
            {
                "filter": 'videoId = "vid1" AND kind = "subtitle"',
                "fields": ["start", "end", "text"],
                "limit": 1000,
                "offset": offset,
            },
        )
        for offset in (0, 1000)
    ]
    assert len(segments) == 1001
    assert segments[:2] == [Segment(0.0, 1.0, "line 1000"), Segment(1.0, 2.0, "line 999")]
    assert segments == sorted(segments, key=lambda s: s.start)


# -- inventory ---------------------------------------------------------------------------

INVENTORY_FIELDS = [
    "id",
    "videoId",
    "kind",
    "videoTitle",
    "channelTitle",
    "title",
    "subscriberCount",
    "fingerprint",
]


def stored(video_id, n, **fields):
    return {
        "id": f"{video_id}-s{n:04d}",
        "videoId": video_id,
        "channelId": "c",
        "kind": "subtitle",
        "videoTitle": "T",
        "channelTitle": "C",
        "subscriberCount": 5,
        "text": "long text not asked for",
        **fields,
    }


def test_inventory_pages_through_every_document_asking_only_what_it_needs(engine, fake, ready):
    # Given 2,500 documents
    fake.seed(*(stored(f"v{n % 3}", n) for n in range(2500)))

    # When the inventory is read
    videos = list(engine.inventory())

    # Then every page is asked without a filter, with only the fields compared
    fetch = "/indexes/subtitles/documents/fetch"
    assert fake.calls() == [
        ("POST", fetch, {"fields": INVENTORY_FIELDS, "limit": 1000, "offset": offset})
        for offset in (0, 1000, 2000)
    ]
    assert sorted((v.video_id, v.documents) for v in videos) == [
        ("v0", 834),
        ("v1", 833),
        ("v2", 833),
    ]


def test_inventory_gives_each_video_its_fields_and_its_video_document_s(engine, fake, ready):
    # Given a video with its video document and two subtitles
    engine.replace_videos(
        {"vid1": [video(fingerprint="f1"), subtitle(n=0), subtitle(n=1)], "vid2": [video("vid2")]}
    )

    # When the inventory is read
    videos = {v.video_id: v for v in engine.inventory()}

    # Then each video is listed once with what its documents carry
    assert videos == {
        "vid1": IndexedVideo(
            video_id="vid1",
            documents=3,
            video_title="A video",
            channel_title="A channel",
            title="A video",
            subscriber_count=100,
            fingerprint="f1",
        ),
        "vid2": IndexedVideo(
            video_id="vid2",
            documents=1,
            video_title="A video",
            channel_title="A channel",
            title="A video",
            subscriber_count=100,
            fingerprint=None,
        ),
    }


def test_inventory_of_a_video_without_its_video_document_has_no_title(engine, fake, ready):
    # Given a video whose video document is gone
    fake.seed(stored("vid1", 0), stored("vid1", 1))

    # When the inventory is read
    [indexed] = engine.inventory()

    # Then it has no title and no fingerprint
    assert (indexed.documents, indexed.title, indexed.fingerprint) == (2, None, None)
    assert (indexed.video_title, indexed.subscriber_count) == ("T", 5)


def test_inventory_gives_no_value_where_a_video_s_documents_disagree(engine, fake, ready):
    # Given a rename and a subscriber update that stopped half-way through a video
    fake.seed(
        stored("vid1", 0),
        stored("vid1", 1, videoTitle="New", subscriberCount=6),
        stored("vid1", 2, videoTitle="New"),
    )

    # When the inventory is read
    [indexed] = engine.inventory()

    # Then the fields its documents disagree on have no value, the others theirs, and its
    # count matches none (stale, even where the database has no value either)
    assert (indexed.video_title, indexed.subscriber_count) == (None, None)
    assert (indexed.channel_title, indexed.documents) == ("C", -1)


def test_inventory_leaves_out_documents_of_no_video(engine, fake, ready):
    # Given a stub a partial update left (an id and the updated field only)
    fake.seed(stored("vid1", 0), {"id": "stub", "subscriberCount": 7})

    # When the inventory is read
    videos = list(engine.inventory())

    # Then only the real video is listed
    assert [(v.video_id, v.documents) for v in videos] == [("vid1", 1)]


def test_inventory_of_an_empty_index_is_empty(engine, fake, ready):
    assert list(engine.inventory()) == []
    assert len(fake.calls()) == 1


def test_inventory_of_a_missing_index_is_not_ready(engine, fake):
    with pytest.raises(IndexNotReady, match="subsearch search reindex"):
        list(engine.inventory())


def test_health_asks_without_a_key(engine, fake):
    assert engine.health() == {"status": "available"}

    request = fake.last("GET", "/health")
    assert "Authorization" not in request["headers"]


def test_keys_are_listed_with_the_master_key(engine, fake):
    keys = engine.keys()

    assert keys == [
        {"name": "Default Search API Key", "key": "search-key"},
        {"name": "Default Admin API Key", "key": "admin-key"},
    ]
    assert fake.calls() == [("GET", "/keys?limit=1000", None)]
    assert fake.last("GET", "/keys")["headers"]["Authorization"] == "Bearer master-key"


def test_keys_without_a_master_key_ask_nothing(url, fake):
    engine = MeilisearchEngine(url, "admin-key", None)

    with pytest.raises(SearchError, match="SEARCH_MASTER_KEY is not set"):
        engine.keys()

    assert fake.requests == []


# -- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.apply_settings(),
        lambda e: e.replace_video_documents("vid1", [subtitle()]),
        lambda e: e.replace_videos({"vid1": [subtitle()]}),
        lambda e: e.delete_video_documents("vid1"),
        lambda e: e.update_channel_documents("chan1", {"subscriber_count": 1}),
        lambda e: e.search(SearchQuery(q="hello", semantic=True)),
        lambda e: e.video_segments("vid1"),
        lambda e: list(e.inventory()),
        lambda e: e.writing().__enter__(),
        lambda e: e.health(),
        lambda e: e.keys(),
    ],
)
def test_nothing_listening_is_search_unavailable(call):
    engine = MeilisearchEngine("http://127.0.0.1:9", "admin-key", "master-key", timeout=2)

    with pytest.raises(SearchUnavailable):
        call(engine)


@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.search(SearchQuery(q="hello")),
        lambda e: e.search(SearchQuery(q="hello", semantic=True)),
        lambda e: e.search_videos(SearchQuery(q="hello")),
        lambda e: e.video_segments("vid1"),
        lambda e: e.update_channel_documents("chan1", {"subscriber_count": 1}),
        lambda e: e.update_video_documents("vid1", {"title": "New"}),
    ],
)
def test_a_missing_index_is_not_ready(engine, fake, call):
    # Given no index (Meilisearch answers 404 index_not_found)
    # When it is read, then the index is not ready, naming what sets it up
    with pytest.raises(IndexNotReady, match="subsearch db upgrade"):
        call(engine)

    assert "subtitles" not in fake.indexes


def test_a_wrong_key_is_an_error_not_unavailability(url, fake, ready):
    engine = MeilisearchEngine(url, "wrong-key", "master-key")

    with pytest.raises(SearchError, match="invalid_api_key") as raised:
        engine.search(SearchQuery(q="hello"))

    assert not isinstance(raised.value, SearchUnavailable)


def test_a_tunnel_answering_for_a_stopped_server_is_unavailable():
    def tunnel(environ, start_response):
        start_response("502 Bad Gateway", [("Content-Type", "text/html")])
        return [b"<html>Bad gateway</html>"]

    with serve(tunnel) as url:
        engine = MeilisearchEngine(url, "admin-key", "master-key")
        with pytest.raises(SearchUnavailable):
            engine.search(SearchQuery(q="hello"))
        with pytest.raises(SearchUnavailable):
            engine.health()


# -- results by video ---------------------------------------------------------------------


def multi_searches(fake):
    return [body for method, path, body in fake.calls() if path == "/multi-search"]


def test_grouped_search_asks_distinct_videos_then_each_video_s_moments(engine, fake, ready):
    # Given two videos, one saying the word in four segments and with it in its title
    engine.replace_video_documents(
        "vid1",
        [video("vid1", title="hello film")]
        + [
            subtitle("vid1", n, "hello there", n * 10.0, n * 10.0 + 5, video_title="hello film")
            for n in range(4)
        ],
    )
    engine.replace_video_documents("vid2", [subtitle("vid2", 0, "well hello")])
    fake.requests.clear()

    # When results grouped by video are asked
    results = engine.search_videos(SearchQuery(q="hello", per_page=5))

    # Then one search asks the page of distinct videos, ranking scores included
    assert searches(fake) == [
        {
            "q": '"hello"',
            "attributesToSearchOn": SEARCHABLE,
            "page": 1,
            "hitsPerPage": 5,
            **SEARCH_DEFAULTS,
            "distinct": "videoId",
            "showRankingScore": True,
        }
    ]
    # And one multi-search asks each video's best subtitles, then its video document
    [multi] = multi_searches(fake)
    common = {
        "indexUid": "subtitles",
        "q": '"hello"',
        "attributesToSearchOn": SEARCHABLE,
        **SEARCH_DEFAULTS,
        "showRankingScore": True,
    }
    # and every subtitle each matches, by id and times alone (its moments, counted)
    every = {
        "indexUid": "subtitles",
        "q": '"hello"',
        "attributesToSearchOn": SEARCHABLE,
        "matchingStrategy": "all",
        "showRankingScore": True,
        "attributesToRetrieve": ["id", "videoId", "channelId", "kind", "start", "end"],
        "limit": 100_000,
    }
    assert multi == {
        "queries": [
            {**common, "filter": 'videoId = "vid1" AND kind = "subtitle"', "limit": 6},
            {**common, "filter": 'videoId = "vid1" AND kind = "video"', "limit": 1},
            {**common, "filter": 'videoId = "vid2" AND kind = "subtitle"', "limit": 6},
            {**common, "filter": 'videoId = "vid2" AND kind = "video"', "limit": 1},
            {**every, "filter": 'videoId = "vid1" AND kind = "subtitle"'},
            {**every, "filter": 'videoId = "vid2" AND kind = "subtitle"'},
        ],
        "federation": None,
    }
    # And the answer is one entry per video with at most three moments
    assert (results.total_videos, results.more_than_cap) == (2, False)
    first, second = results.videos
    assert (first.video_id, first.matched_in, len(first.moments)) == (
        "vid1",
        ("subtitle", "title"),
        3,
    )
    assert (first.video_title, first.channel_title) == ("hello film", "A channel")
    assert [m.start for m in first.moments] == [0.0, 10.0, 20.0]
    assert first.moments[0].highlight == "<mark>hello</mark> there"
    assert (first.total_moments, second.total_moments) == (4, 1)
    assert (second.video_id, second.matched_in) == ("vid2", ("subtitle",))
    assert first.score > second.score


def test_grouped_search_with_a_title_target_asks_no_subtitles(engine, fake, ready):
    engine.replace_video_documents("vid1", [video("vid1", title="hello film")])
    fake.requests.clear()

    [only] = engine.search_videos(SearchQuery(q="hello", targets=("title",))).videos

    assert searches(fake)[0]["filter"] == 'kind = "video"'
    subtitles, meta, every = multi_searches(fake)[0]["queries"]
    assert (subtitles["limit"], meta["limit"], every["limit"]) == (0, 1, 0)
    assert (only.moments, only.matched_in, only.total_moments) == ([], ("title",), 0)


def test_grouped_search_counts_videos_up_to_the_cap(engine, fake, ready, monkeypatch):
    monkeypatch.setattr(meili, "TOTAL_VIDEOS_CAP", 2)
    for n in range(3):
        engine.replace_video_documents(f"vid{n}", [subtitle(f"vid{n}", 0, "hello")])

    results = engine.search_videos(SearchQuery(q="hello", per_page=1, page=2))

    assert (results.total_videos, results.more_than_cap) == (2, True)
    assert [v.video_id for v in results.videos] == ["vid1"]


def test_grouped_search_with_no_match_asks_no_moments(engine, fake, ready):
    results = engine.search_videos(SearchQuery(q="absent"))

    assert (results.total_videos, results.videos) == (0, [])
    assert multi_searches(fake) == []
