"""`subsearch search|channels|sample`: what each command does or enqueues."""

from __future__ import annotations

from click.testing import CliRunner

from models import ingest
from tests.fakes.platform_files import manual
from tests.fixtures import take_messages
from web.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_search_health_setup_and_keys_on_the_embedded_engine():
    health = run("search", "health")
    assert health.exit_code == 0, health.output
    assert '"status": "available"' in health.output
    assert run("search", "setup").exit_code == 0
    keys = run("search", "keys")
    assert keys.exit_code == 0
    assert "no keys" in keys.output


def test_reindex_enqueues_every_searchable_video_of_a_channel_from_stored_cues(
    platform_files, stub_broker
):
    channel = "UCclitestclitestclitest1"
    platform_files.channel(channel, ["cliVideo001", "cliVideo002"])
    platform_files.video("cliVideo001", channel, manual("一"))
    platform_files.video("cliVideo002", channel, manual("二"))
    for video_id in ingest.import_channel(channel).new_video_ids:
        ingest.fetch_subtitles(video_id)
    result = run("search", "reindex", "--channel", channel)
    assert result.exit_code == 0, result.output
    assert "enqueued 2 video(s) for indexing from stored subtitles" in result.output
    [sent] = take_messages(stub_broker, "index")
    assert (sent["actor_name"], sent["args"]) == ("index_videos", [["cliVideo001", "cliVideo002"]])


def test_reindex_refetch_enqueues_a_fetch_of_every_live_video(platform_files, stub_broker):
    channel = "UCclitestclitestclitest1"
    platform_files.channel(channel, ["cliVideo001", "cliVideo002"])
    platform_files.video("cliVideo001", channel, manual("一"))
    platform_files.video("cliVideo002", channel, manual("二"))
    ingest.import_channel(channel)
    result = run("search", "reindex", "--refetch", "--channel", channel)
    assert result.exit_code == 0, result.output
    assert "2 video(s)" in result.output
    sent = take_messages(stub_broker, "subtitles")
    assert sorted(m["args"][0] for m in sent) == ["cliVideo001", "cliVideo002"]


def test_channel_commands_enqueue(stub_broker):
    assert run("channels", "add", "@osaka_gourmet").exit_code == 0
    assert run("channels", "refresh", "UCx").exit_code == 0
    assert run("channels", "refresh", "--all").exit_code == 0
    sent = [(m["actor_name"], m["args"]) for m in take_messages(stub_broker, "channels")]
    assert sent == [
        ("import_channel", ["@osaka_gourmet"]),
        ("refresh_channel", ["UCx"]),
        ("refresh_due_channels", []),
    ]
    assert run("channels", "refresh").exit_code == 2


def test_sample_load_enqueues_every_sample_channel(stub_broker):
    assert "enqueued import of 4 channel(s)" in run("sample", "load").output
    assert len(take_messages(stub_broker, "channels")) == 4
