"""The alerts API and the alert's Atom feed as a member and a feed reader use them
(CONTRACT §12.6; docs/alerts.md)."""

from __future__ import annotations

import time
from urllib.parse import urlsplit
from xml.etree import ElementTree as ET

import pytest

from models import ingest
from models.tables import Alert
from tests.factories import (
    make_alert,
    make_alert_match,
    make_subscription,
    make_user,
    make_video,
    sign_in,
)
from tests.fakes.platform_files import manual
from tests.fixtures import drain

CH = "UCalertapialertapialert1"
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def member(client):
    user = make_user()
    sign_in(client, user)
    return user


def save(client, **body):
    return client.post("/api/alerts", json={"query": "たこ焼き", "frequency": "instant", **body})


def test_a_saved_alert_answers_the_contract(client, member):
    response = save(client, query="たこ焼き -冷凍", semantic=True, sr=0.7, frequency="daily")
    assert response.status_code == 201, response.get_json()
    alert = response.get_json()["alert"]
    assert set(alert) == {
        "id",
        "query",
        "semantic",
        "sr",
        "channels",
        "frequency",
        "feedUrl",
        "createdAt",
    }
    assert (alert["query"], alert["semantic"], alert["sr"], alert["frequency"]) == (
        "たこ焼き -冷凍",
        True,
        0.7,
        "daily",
    )
    assert alert["channels"] == []
    assert alert["feedUrl"].startswith("http") and alert["feedUrl"].endswith(".atom")
    listed = client.get("/api/alerts").get_json()["alerts"]
    assert [a["id"] for a in listed] == [alert["id"]]
    assert (listed[0]["matchCount"], listed[0]["latestMatches"], listed[0]["pausedReason"]) == (
        0,
        [],
        None,
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "foo:bar"}, "query"),
        ({"query": "-"}, "query"),
        ({"query": "after:2024-13-01 たこ焼き"}, "query"),
        ({"query": "あ" * 201}, "query"),
        ({"frequency": "weekly"}, "frequency"),
        ({"frequency": None}, "frequency"),
        ({"channels": ["bad id"]}, "channels.0"),
        ({"channels": ["UCunknownunknownunknown1"]}, "channels"),
        ({"sr": 2}, "sr"),
        ({"semantic": "yes"}, "semantic"),
        ({"color": "red"}, "color"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, member, body, field):
    response = save(client, **body)
    assert response.status_code == 400, response.get_json()
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert field in error["fields"], error
    assert Alert.select().count() == 0


def test_without_a_frequency_the_field_is_named(client, member):
    response = client.post("/api/alerts", json={"query": "たこ焼き"})
    assert response.status_code == 400
    assert "frequency" in response.get_json()["error"]["fields"]


def test_signed_out_the_calls_are_401(client):
    assert save(client).status_code == 401
    assert client.get("/api/alerts").status_code == 401


def test_past_the_plan_the_answer_is_403_plan_limit(client, member):
    for n in range(3):
        assert save(client, query=f"word{n}").status_code == 201
    refused = save(client, query="one more")
    assert refused.status_code == 403
    assert refused.get_json()["error"]["code"] == "plan_limit"
    # A larger plan holds more
    make_subscription(member, plan="plus")
    assert save(client, query="one more").status_code == 201


def test_another_members_or_a_deleted_alert_is_404(client, app, member):
    alert_id = save(client).get_json()["alert"]["id"]
    other = app.test_client()
    sign_in(other, make_user())
    assert other.get("/api/alerts").get_json()["alerts"] == []
    assert other.delete(f"/api/alerts/{alert_id}", json={}).status_code == 404
    assert other.get(f"/api/alerts/{alert_id}/matches").status_code == 404
    assert other.post(f"/api/alerts/{alert_id}/feed-token", json={}).status_code == 404
    # Deleted by its member: 204, then 404 everywhere
    assert client.delete(f"/api/alerts/{alert_id}", json={}).status_code == 204
    assert client.delete(f"/api/alerts/{alert_id}", json={}).status_code == 404
    assert client.get(f"/api/alerts/{alert_id}/matches").status_code == 404
    assert client.get("/api/alerts").get_json()["alerts"] == []
    assert client.get("/api/alerts/not-an-id/matches").status_code == 404


@pytest.fixture
def news(client, member, platform_files, stub_broker, stub_worker):
    """An instant alert for たこ焼き, then two videos arriving that say it, one that
    does not; matched by the queue's worker."""
    alert = save(client).get_json()["alert"]
    time.sleep(0.002)
    ids = ["apiAlert001", "apiAlert002", "apiAlert003"]
    platform_files.channel(CH, ids, title="たこ焼きチャンネル")
    said = {
        "apiAlert001": "大阪のたこ焼き & <b>ソース</b>",
        "apiAlert002": "うどんの話です。",
        "apiAlert003": "屋台のたこ焼きです。",
    }
    for video_id, text in said.items():
        platform_files.video(video_id, CH, manual("こんにちは。", text), title=f"旅 {video_id}")
    ingest.import_channel(CH)
    for video_id in ids:
        ingest.fetch_subtitles(video_id)
        time.sleep(0.002)  # found one after the other
    drain(stub_broker, stub_worker, queues=("index",))
    return alert


def test_the_matches_are_newest_first_and_paged(client, news):
    body = client.get(f"/api/alerts/{news['id']}/matches?perPage=1").get_json()
    assert (body["total"], body["totalPages"], body["page"], body["perPage"]) == (2, 2, 1, 1)
    [match] = body["matches"]
    assert set(match) == {"videoId", "title", "start", "end", "highlight", "url", "foundAt"}
    second = client.get(f"/api/alerts/{news['id']}/matches?perPage=1&page=2").get_json()
    videos = [match["videoId"], second["matches"][0]["videoId"]]
    assert sorted(videos) == ["apiAlert001", "apiAlert003"]
    assert match["foundAt"] >= second["matches"][0]["foundAt"]
    assert "<mark>たこ焼き</mark>" in match["highlight"]
    assert match["url"].startswith(f"https://www.youtube.com/watch?v={match['videoId']}")
    listed = client.get("/api/alerts").get_json()["alerts"][0]
    assert listed["matchCount"] == 2
    assert [m["videoId"] for m in listed["latestMatches"]] == videos


def feed_of(client, url):
    return client.get(urlsplit(url).path)


def test_the_feed_is_valid_atom_readable_without_signing_in(client, app, news):
    reader = app.test_client()  # a feed reader: no session
    response = feed_of(reader, news["feedUrl"])
    assert response.status_code == 200
    assert response.mimetype == "application/atom+xml"
    root = ET.fromstring(response.get_data())
    assert root.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated", "author"):
        assert root.find(f"{ATOM}{required}") is not None, required
    self_links = [link for link in root.findall(f"{ATOM}link") if link.get("rel") == "self"]
    assert [link.get("href") for link in self_links] == [news["feedUrl"]]
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == 2
    for entry in entries:
        for required in ("id", "title", "updated", "link", "summary"):
            assert entry.find(f"{ATOM}{required}") is not None, required
        assert entry.find(f"{ATOM}summary").get("type") == "html"
    assert len({entry.find(f"{ATOM}id").text for entry in entries}) == 2
    titles = {entry.find(f"{ATOM}title").text for entry in entries}
    assert titles == {"旅 apiAlert001", "旅 apiAlert003"}
    # The highlight's markup travels escaped as the html summary; the video's own text
    # stays escaped inside it
    summaries = " ".join(entry.find(f"{ATOM}summary").text for entry in entries)
    assert "<mark>たこ焼き</mark>" in summaries
    assert "&lt;b&gt;" in summaries


def test_a_renewed_or_deleted_feed_answers_404(client, app, news):
    reader = app.test_client()
    renewed = client.post(f"/api/alerts/{news['id']}/feed-token", json={})
    assert renewed.status_code == 200
    new_url = renewed.get_json()["feedUrl"]
    assert new_url != news["feedUrl"]
    assert feed_of(reader, news["feedUrl"]).status_code == 404
    assert feed_of(reader, new_url).status_code == 200
    client.delete(f"/api/alerts/{news['id']}", json={})
    assert feed_of(reader, new_url).status_code == 404
    assert reader.get("/alerts/feed/unknown-token.atom").status_code == 404


def test_a_paused_alert_mails_again_once_resumed_starting_with_what_waited(
    client, member, smtp_server, stub_broker, stub_worker
):
    # Given an alert whose mail was paused after refusals, with news that waited
    alert = make_alert(member, paused_at="2026-11-28T00:00:00.000Z", paused_reason="550 no")
    make_alert_match(alert, make_video(title="待っていた新着"))
    listed = client.get("/api/alerts").get_json()["alerts"][0]
    assert listed["pausedReason"] == "550 no"
    # When the member resumes it
    answer = client.post(f"/api/alerts/{alert.id}/resume", json={})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["alert"]["id"] == alert.id
    drain(stub_broker, stub_worker, queues=("mail",))
    # Then it is no longer paused, and the news that waited is mailed
    assert client.get("/api/alerts").get_json()["alerts"][0]["pausedReason"] is None
    [mail] = smtp_server.inbox.messages
    assert "待っていた新着" in mail.get_content()
    assert Alert.get_by_id(alert.id).mail_failures == 0
    # Resuming again changes nothing and sends nothing more
    assert client.post(f"/api/alerts/{alert.id}/resume", json={}).status_code == 200
    drain(stub_broker, stub_worker, queues=("mail",))
    assert len(smtp_server.inbox.messages) == 1


def test_nobody_else_resumes_an_alert(client, member):
    others = make_alert(make_user(), paused_at="2026-11-28T00:00:00.000Z", paused_reason="550")
    assert client.post(f"/api/alerts/{others.id}/resume", json={}).status_code == 404
    assert Alert.get_by_id(others.id).paused_at is not None
