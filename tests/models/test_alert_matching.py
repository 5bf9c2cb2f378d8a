"""What counts as news to an alert (models/alert_matching.py), on the embedded engine as
the service runs it: videos fetched and indexed through ingestion, matched by the actor
the index write queues through the outbox."""

from __future__ import annotations

import time

import pytest

from models import alert_matching, indexing, ingest
from models.alerts import alert_matches, create_alert, delete_alert, search_of
from models.search import SearchQuery, SearchUnavailable, get_engine
from models.tables import Alert, AlertMatch, OutboxMessage, Video
from tests.concurrency import at_once
from tests.factories import make_user
from tests.fakes.platform_files import manual
from tests.fixtures import drain

CH = "UCalertsalertsalertsal01"
OTHER = "UCalertsalertsalertsal02"


@pytest.fixture
def platform(platform_files):
    platform_files.channel(CH, [], title="たこ焼きチャンネル")
    platform_files.channel(OTHER, [], title="ほかのチャンネル")
    return platform_files


def arrive(platform, video_id, *cues, channel=CH, **fields):
    """A new video reaches the service: on the platform, imported, fetched, indexed."""
    platform.video(
        video_id, channel, manual(*cues, language=fields.pop("language", "ja")), **fields
    )
    known = [v.id for v in Video.select(Video.id).where(Video.channel == channel)]
    platform.channel(channel, [*known, video_id])
    ingest.import_channel(channel)
    ingest.fetch_subtitles(video_id)


def run_matching(stub_broker, stub_worker):
    drain(stub_broker, stub_worker, queues=("index",))


def news_of(alert, member):
    return [news.video_id for news in alert_matches(member.id, alert.id, 1, 100).news]


def save(member, query, **options):
    alert = create_alert(member.id, query, frequency=options.pop("frequency", "daily"), **options)
    time.sleep(0.002)  # what arrives from now on is after it, to the millisecond
    return alert


def test_a_new_video_that_says_it_is_news_with_its_moment(platform, stub_broker, stub_worker):
    # Given a member's alert for たこ焼き
    member = make_user()
    alert = save(member, "たこ焼き")
    # When two videos arrive, one saying it
    arrive(platform, "alrVideo001", "今日は晴れです。", "大阪でたこ焼きを食べました。")
    arrive(platform, "alrVideo002", "うどんの話です。")
    run_matching(stub_broker, stub_worker)
    # Then the alert heard of that one, at the moment that says it
    page = alert_matches(member.id, alert.id)
    assert [news.video_id for news in page.news] == ["alrVideo001"]
    [news] = page.news
    assert "<mark>たこ焼き</mark>" in news.highlight
    assert news.start is not None and news.start <= 3.0 < news.end
    assert news.title == "動画 alrVideo001"


def test_a_video_indexed_before_the_alert_is_never_news(platform, stub_broker, stub_worker):
    # Given a video indexed before the alert was made
    arrive(platform, "alrVideo003", "たこ焼きの屋台。")
    time.sleep(0.002)
    member = make_user()
    alert = save(member, "たこ焼き")
    # When it is indexed again (a reindex, a repair, a refetch)
    indexing.rebuild()
    indexing.write_videos(["alrVideo003"])
    ingest.fetch_subtitles("alrVideo003")
    run_matching(stub_broker, stub_worker)
    alert_matching.match_videos(["alrVideo003"])
    # Then it is not news to the alert
    assert news_of(alert, member) == []


def test_a_video_is_news_once_however_often_it_is_indexed(platform, stub_broker, stub_worker):
    member = make_user()
    alert = save(member, "たこ焼き", frequency="instant")
    arrive(platform, "alrVideo004", "たこ焼きの屋台。")
    run_matching(stub_broker, stub_worker)
    [first] = AlertMatch.select().where(AlertMatch.alert == alert.id)
    # When it is indexed again, and matched again directly
    indexing.rebuild()
    ingest.fetch_subtitles("alrVideo004")
    indexing.write_videos(["alrVideo004"])
    run_matching(stub_broker, stub_worker)
    assert alert_matching.match_videos(["alrVideo004"]) == 0
    # Then the alert holds it once, as first found, and one mail was queued for it
    [again] = AlertMatch.select().where(AlertMatch.alert == alert.id)
    assert (again.video_id, again.found_at) == (first.video_id, first.found_at)
    mails = OutboxMessage.select().where(OutboxMessage.actor == "send_alert_mail")
    assert [(m.args) for m in mails] == [f'["{alert.id}"]']


def test_the_query_languages_exclusions_and_filters_hold(platform, stub_broker, stub_worker):
    member = make_user()
    excluded = save(member, "たこ焼き -冷凍")
    long_only = make_user()
    long_alert = save(long_only, "たこ焼き duration:long")
    english = make_user()
    english_alert = save(english, "takoyaki lang:en")
    arrive(platform, "alrVideo005", "冷凍のたこ焼きです。", durationSeconds=1800)
    arrive(platform, "alrVideo006", "屋台のたこ焼きです。", durationSeconds=120)
    arrive(platform, "alrVideo007", "I ate takoyaki in Osaka.", language="en")
    run_matching(stub_broker, stub_worker)
    assert news_of(excluded, member) == ["alrVideo006"]
    assert news_of(long_alert, long_only) == ["alrVideo005"]
    assert news_of(english_alert, english) == ["alrVideo007"]


def test_an_alert_on_channels_hears_only_of_their_videos(platform, stub_broker, stub_worker):
    ingest.import_channel(OTHER)  # known, so it can be chosen
    member = make_user()
    alert = save(member, "たこ焼き", channels=[OTHER])
    arrive(platform, "alrVideo008", "たこ焼きです。")
    arrive(platform, "alrVideo009", "たこ焼きです。", channel=OTHER)
    run_matching(stub_broker, stub_worker)
    assert news_of(alert, member) == ["alrVideo009"]


def test_a_deleted_alert_hears_nothing(platform, stub_broker, stub_worker):
    member = make_user()
    alert = save(member, "たこ焼き")
    delete_alert(member.id, alert.id)
    arrive(platform, "alrVideo010", "たこ焼きです。")
    run_matching(stub_broker, stub_worker)
    assert AlertMatch.select().count() == 0
    assert OutboxMessage.select().where(OutboxMessage.actor == "match_alerts").count() == 0


def test_without_live_alerts_an_index_write_queues_no_matching(platform):
    arrive(platform, "alrVideo011", "たこ焼きです。")
    assert Video.get_by_id("alrVideo011").first_indexed_at is not None
    assert OutboxMessage.select().count() == 0


def test_first_indexed_at_is_set_once(platform):
    arrive(platform, "alrVideo012", "たこ焼きです。")
    first = Video.get_by_id("alrVideo012").first_indexed_at
    time.sleep(0.002)
    indexing.rebuild()
    ingest.fetch_subtitles("alrVideo012")
    assert Video.get_by_id("alrVideo012").first_indexed_at == first


def test_a_search_by_meaning_hears_of_a_paraphrase_once_the_video_is_embedded(
    platform, stub_broker, stub_worker
):
    # Given an alert by meaning alone whose words the video never says
    member = make_user()
    alert = save(member, "近畿地方の観光", semantic=True, sr=1.0)
    arrive(platform, "alrVideo013", "大阪の広告を見ました。", title="大阪の旅")
    run_matching(stub_broker, stub_worker)
    assert news_of(alert, member) == []  # no vectors yet
    # When its vectors arrive (the embed actor writes the video again)
    indexing.embed_videos(["alrVideo013"])
    run_matching(stub_broker, stub_worker)
    # Then the alert heard of it, as the search page finds it
    assert news_of(alert, member) == ["alrVideo013"]
    found = get_engine().video_moments(search_of(Alert.get_by_id(alert.id)), "alrVideo013")
    assert found.moments


QUERIES = [
    "たこ焼き",
    "たこやき",  # kana: by reading
    "takoyaki",  # romaji
    "タコヤキ",
    "大阪",
    "おおさか",
    "osaka",
    "屋台 たこ焼き",
    '"たこ焼き を"',
    "たこ焼き OR うどん",
    "udon OR takoyaki",
    "take*",
    "焼",  # one character: a scan
    "食べる",  # a dictionary form of 食べました
    "美味しい",
    "ate",
    "Osaka takoyaki",
    "たこ焼き -冷凍",
]


def test_the_cheap_test_never_turns_away_what_the_engine_finds(platform):
    # Given videos saying the same things in several ways
    cues = [
        ("alrVideo020", ["大阪でたこ焼きを食べました。", "屋台のタコヤキは美味しい。"]),
        ("alrVideo021", ["おおさかで たこやき を たべた。"]),
        ("alrVideo022", ["I ate takoyaki in Osaka, then udon.", "Taken at night."]),
        ("alrVideo023", ["冷凍のたこ焼きと焼きそば。"]),
        ("alrVideo024", ["今日は晴れです。"]),
    ]
    for video_id, said in cues:
        arrive(platform, video_id, *said)
    ids = [video_id for video_id, _ in cues]
    texts = alert_matching.video_texts(ids)
    videos = [Video.get_by_id(video_id) for video_id in ids]
    searches = [SearchQuery(q=q, per_page=1) for q in QUERIES]
    # (the index of the alerts by their rarest terms proposes the videos, the test
    # checks each one)
    index = alert_matching.AlertIndex([(search, search.read) for search in searches])
    proposed = index.proposed([(video, texts[video.id]) for video in videos])
    engine = get_engine()
    turned_away = []
    asked = found = 0
    for search, candidates in zip(searches, proposed, strict=True):
        for video_id in ids:
            says = bool(engine.video_moments(search, video_id).moments)
            may = video_id in {v.id for v in candidates} and texts[video_id].may_say(search.read)
            found += says
            asked += may
            if says and not may:
                turned_away.append((search.q, video_id))
    # Then nothing the engine finds is turned away, and most pairs that say nothing are
    assert turned_away == []
    assert found > 20
    assert asked < len(QUERIES) * len(ids)
    assert index.always == [QUERIES.index("take*"), QUERIES.index("焼")]


def test_a_run_that_fails_half_way_loses_and_doubles_nothing(platform, monkeypatch):
    # Given two alerts and a video saying both, and an engine that fails the second ask
    member = make_user()
    first, second = save(member, "たこ焼き"), save(member, "屋台")
    arrive(platform, "alrVideo030", "屋台のたこ焼きです。")
    engine = get_engine()
    real = engine.video_moments
    calls = []

    def failing_once(search, video_id):
        calls.append(search.q)
        if len(calls) == 2:
            raise SearchUnavailable("the engine went away")
        return real(search, video_id)

    monkeypatch.setattr(engine, "video_moments", failing_once)
    # When the run fails, and runs again (the actor's retry)
    with pytest.raises(SearchUnavailable):
        alert_matching.match_videos(["alrVideo030"], engine)
    kept = [m.alert_id for m in AlertMatch.select()]
    assert kept == [first.id]  # what was found before the failure is kept
    assert alert_matching.match_videos(["alrVideo030"], engine) == 1
    assert alert_matching.match_videos(["alrVideo030"], engine) == 0
    # Then each alert holds the video once
    assert news_of(first, member) == news_of(second, member) == ["alrVideo030"]


def test_runs_at_once_on_the_same_video_write_its_news_and_queue_its_mail_once(platform):
    # Given an instant alert and a video saying it, matched by four runs at once (the
    # message redriven while the first delivery still runs, a reindex's own message...)
    member = make_user()
    alert = save(member, "たこ焼き", frequency="instant")
    arrive(platform, "alrVideo040", "屋台のたこ焼きです。")
    outcomes = at_once(lambda _: alert_matching.match_videos(["alrVideo040"]), [0, 1, 2, 3])
    # Then one of them wrote the news and queued the mail
    assert sorted(outcomes) == [0, 0, 0, 1], outcomes
    assert news_of(alert, member) == ["alrVideo040"]
    mails = OutboxMessage.select().where(OutboxMessage.actor == "send_alert_mail")
    assert mails.count() == 1
