"""Alerts at production shape: members' alerts exist, channels are added at once while a
worker of 2 processes x 8 threads fetches, indexes and matches; the worker is killed
mid-way and the index written again (a reindex). Each alert hears of each video that
says its words once: in the app and in its feed, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import time
from xml.etree import ElementTree as ET

import pytest
import requests

from models.alerts import alert_matches, create_alert
from models.tables import AlertMatch, Video
from tests.factories import make_user
from tests.fakes.platform_files import PlatformFiles, manual
from tests.workers.processes import add_channels_at_once, cli, kill, wait_for

pytestmark = pytest.mark.flow

CHANNELS = 3
VIDEOS_PER_CHANNEL = 6
TOPICS = ["たこ焼き", "お好み焼き", "ramen"]
ATOM = "{http://www.w3.org/2005/Atom}"


def make_platform(folder) -> dict[str, list[str]]:
    """The channels' files; returns the videos saying each topic."""
    files = PlatformFiles(folder)
    saying: dict[str, list[str]] = {topic: [] for topic in TOPICS}
    for c in range(CHANNELS):
        channel_id = f"UCalertflow{c:02d}xxxxxxxxxxx"[:24]
        video_ids = [f"af{c:02d}v{v:02d}xxxx"[:11] for v in range(VIDEOS_PER_CHANNEL)]
        files.channel(channel_id, video_ids, title=f"通知チャンネル{c}")
        for v, video_id in enumerate(video_ids):
            topic = TOPICS[(c + v) % (len(TOPICS) + 1)] if (c + v) % 4 < 3 else None
            said = f"今日は{topic}の話です" if topic else "今日は天気の話です"
            if topic:
                saying[topic].append(video_id)
            files.video(video_id, channel_id, manual("みなさんこんにちは", said, "また来週"))
    return saying


def completed() -> int:
    return Video.select().where(Video.subtitle_status == "completed").count()


def test_each_alert_hears_of_each_new_video_once_through_a_killed_worker_and_a_reindex(
    tmp_path, start_web, start_worker, redis_client
):
    # Given a fresh install, and three members each with an alert made before any video
    saying = make_platform(tmp_path / "platform")
    env = {
        "SEARCH_BACKEND": "embedded",
        "SEARCH_EMBEDDED_PATH": str(tmp_path / "fresh" / "search.db"),
        "SEARCH_EMBEDDER": "none",  # keyword alerts; the embed queue plays no part
        "VIDEO_API_BACKEND": "fixture",
        "VIDEO_FIXTURE_DIR": str(tmp_path / "platform"),
        "RATE_LIMITS_ENABLED": "off",
    }
    upgraded = cli(env, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    members = {topic: make_user() for topic in TOPICS}
    alerts = {
        topic: create_alert(member.id, topic, frequency="daily")
        for topic, member in members.items()
    }
    time.sleep(0.01)
    web = start_web(**env)
    worker = start_worker(processes=2, threads=8, **env)

    # When every channel is added at once, and the worker is killed once news arrives
    add_channels_at_once(env, [f"UCalertflow{c:02d}xxxxxxxxxxx"[:24] for c in range(CHANNELS)])
    videos = CHANNELS * VIDEOS_PER_CHANNEL
    assert wait_for(lambda: AlertMatch.select().count() > 0, timeout=180)
    kill(worker)
    # ...a new worker picks up, and the index is written again (a reindex hands every
    # video to the matching again: what the killed worker held is matched anyway)
    start_worker(processes=2, threads=8, **env)
    assert wait_for(lambda: completed() == videos, timeout=180), completed()
    reindexed = cli(env, "search", "reindex", "--now", timeout=180)
    assert reindexed.returncode == 0, reindexed.stderr

    def heard() -> dict[str, list[str]]:
        return {
            topic: sorted(
                news.video_id for news in alert_matches(members[topic].id, alert.id, 1, 100).news
            )
            for topic, alert in alerts.items()
        }

    expected = {topic: sorted(ids) for topic, ids in saying.items()}
    assert wait_for(lambda: heard() == expected, timeout=120), (heard(), expected)
    time.sleep(2)  # whatever else was queued runs out

    # Then each alert heard of each of its videos once, in the app and in its feed
    assert heard() == expected
    assert AlertMatch.select().count() == sum(len(ids) for ids in expected.values())
    for topic, alert in alerts.items():
        feed = requests.get(f"{web}/alerts/feed/{alert.feed_token}.atom", timeout=10)
        assert feed.status_code == 200, feed.text
        entries = ET.fromstring(feed.content).findall(f"{ATOM}entry")
        links = [entry.find(f"{ATOM}link").get("href") for entry in entries]
        assert sorted(link.split("v=")[1].split("&")[0] for link in links) == expected[topic]
