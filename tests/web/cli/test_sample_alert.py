"""An alert on the sample data `make run` loads (issue 49, Done when): a member saves
たこ焼き; the videos already in the sample that say it are not news; an operator adds the
channel the sample keeps aside for this (`"sample": false`, docs/alerts.md), and its
videos that say たこ焼き are news on /account, in the API and in the private feed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

from click.testing import CliRunner

from models import ingest
from models.platform.fixture import FixturePlatform
from models.tables import Video
from tests.factories import make_user, sign_in
from tests.fixtures import drain
from web.cli import main

ATOM = "{http://www.w3.org/2005/Atom}"
ASIDE = "UCn6KonamonKansai-w2Pq8L"  # 関西こなもん日記: on the platform, not in the sample


def test_the_sample_keeps_one_channel_aside_for_the_operator_to_add():
    sample = FixturePlatform()
    assert ASIDE not in sample.channel_ids()
    assert sample.get_channel(ASIDE).title == "関西こなもん日記"
    assert sample.get_channel("@konamon_kansai").id == ASIDE
    assert ASIDE not in sample.example_searches()


def test_a_saved_takoyaki_hears_of_the_channel_an_operator_adds(
    client, app, stub_broker, stub_worker
):
    # Given the sample as `make run` loads it, and a member's alert for たこ焼き
    for channel_id in FixturePlatform().channel_ids():
        ingest.import_channel(channel_id)
    for video in Video.select().where(Video.subtitle_status == "pending"):
        ingest.fetch_subtitles(video.id)
    drain(stub_broker, stub_worker, queues=("index",))
    sign_in(client, make_user(email="takoyaki@example.jp"))
    saved = client.post("/api/alerts", json={"query": "たこ焼き", "frequency": "instant"})
    assert saved.status_code == 201, saved.get_json()
    alert = saved.get_json()["alert"]

    # When an operator adds the channel kept aside, and the queue runs
    added = CliRunner().invoke(main, ["channels", "add", "@konamon_kansai"])
    assert added.exit_code == 0, added.output
    drain(stub_broker, stub_worker, queues=("channels", "subtitles", "index"))

    # Then its video that says たこ焼き is news (the sample's own Osaka ones, indexed
    # before the alert, are not), with the moment marked
    matches = client.get(f"/api/alerts/{alert['id']}/matches").get_json()["matches"]
    assert {m["videoId"] for m in matches} == {"kNm4Tako01x", "kNm4Okono2y"}
    assert all("<mark>たこ焼き</mark>" in m["highlight"] for m in matches)
    # on the account page
    page = client.get("/account").get_data(as_text=True)
    assert "家でたこ焼きパーティー！鉄板ひとつで40個" in page
    # and in the feed, read without signing in
    feed = app.test_client().get(urlsplit(alert["feedUrl"]).path)
    assert feed.status_code == 200 and feed.mimetype == "application/atom+xml"
    titles = {
        e.find(f"{ATOM}title").text for e in ET.fromstring(feed.get_data()).iter(f"{ATOM}entry")
    }
    assert "家でたこ焼きパーティー！鉄板ひとつで40個" in titles
