"""A poison message at production shape: a worker of 2 processes x 4 threads on the real
Redis, kept running as a process manager keeps it (started again whenever it exits). A
video whose subtitles abort the embedding process (tests/workers/poison_probe.py plays
the model's C code) is imported, then an ordinary one. The ordinary one is embedded;
the poison kills WORKER_POISON_DEATHS processes and is then dead-lettered with its
reason; once the model is fixed, `subsearch queue requeue` sends it back and it is
embedded."""

from __future__ import annotations

import time

import pytest
import redis

from models.tables import Video, VideoVectors
from tests.fakes.platform_files import PlatformFiles, manual
from tests.fixtures import TEST_REDIS_URL
from tests.workers.processes import cli, stop, wait_for
from workers import deadletters, poison
from workers.broker import build_broker, get_broker

pytestmark = pytest.mark.flow

MARKER = "zupoisonzu"
POISON_CHANNEL, POISON = "UCpoison0xxxxxxxxxxxxxxx", "poisonvid01"
ORDINARY_CHANNEL, ORDINARY = "UCordinary0xxxxxxxxxxxxx", "ordinaryv01"
DEATHS = 3  # WORKER_POISON_DEATHS's default


class Supervised:
    """A worker started again whenever it exits, as systemd or a platform does."""

    def __init__(self, start_worker, **options):
        self.start_worker = start_worker
        self.options = options
        self.process = start_worker(**options)
        self.restarts = 0

    def until(self, condition, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return True
            if self.process.poll() is not None:
                self.restarts += 1
                self.process = self.start_worker(**self.options)
            time.sleep(0.2)
        return False


def completed(video_id):
    return (
        Video.select()
        .where((Video.id == video_id) & (Video.subtitle_status == "completed"))
        .exists()
    )


def embedded(video_id):
    return VideoVectors.select().where(VideoVectors.video == video_id).exists()


@pytest.fixture
def broker(redis_client):
    broker = build_broker(TEST_REDIS_URL)
    yield broker
    broker.close()


def test_a_poison_video_is_set_aside_and_the_next_one_embedded(
    tmp_path, start_worker, redis_client, broker
):
    files = PlatformFiles(tmp_path / "platform")
    files.channel(POISON_CHANNEL, [POISON], title="毒のチャンネル")
    files.video(POISON, POISON_CHANNEL, manual("みなさんこんにちは", f"今日の言葉は {MARKER} です"))
    files.channel(ORDINARY_CHANNEL, [ORDINARY], title="普通のチャンネル")
    files.video(ORDINARY, ORDINARY_CHANNEL, manual("みなさんこんにちは", "今日はいい天気です"))
    env = {
        "SEARCH_BACKEND": "embedded",
        "SEARCH_EMBEDDED_PATH": str(tmp_path / "search.db"),
        "VIDEO_API_BACKEND": "fixture",
        "VIDEO_FIXTURE_DIR": str(tmp_path / "platform"),
    }
    upgraded = cli(env, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr

    # Given the poisoned video's embedding queued, then the ordinary one's (imported by a
    # worker that leaves `embed` alone: a process the poison kills takes whatever else it
    # runs with it, and an import killed after its commit does not fetch again)
    importer = start_worker(
        processes=1, threads=2, queues=sorted(get_broker().get_declared_queues() - {"embed"}), **env
    )
    for channel, video in ((POISON_CHANNEL, POISON), (ORDINARY_CHANNEL, ORDINARY)):
        assert cli(env, "channels", "add", channel).returncode == 0
        assert wait_for(lambda video=video: completed(video), timeout=60)
    stop(importer)

    # When a worker at production shape takes them
    worker = Supervised(
        start_worker,
        processes=2,
        threads=4,
        modules=("tests.workers.poison_probe",),
        POISON_MARKER=MARKER,
        **env,
    )

    # Then the ordinary one is embedded and the poison is dead-lettered, having killed
    # its worker process WORKER_POISON_DEATHS times (each death stops the whole worker)
    def letters():
        try:
            found = deadletters.dead_messages(broker, "embed")
        except redis.RedisError:
            # The sender's 0.25 s for Redis, met on two cores busy with the worker's
            # deaths and restarts: nothing read this time, the next look 0.2 s later.
            return []
        return [
            (message.actor_name, str(list(message.args)), deadletters.reason(message))
            for _, message in found
        ]

    assert worker.until(lambda: embedded(ORDINARY) and letters(), timeout=240), (
        embedded(ORDINARY),
        letters(),
        worker.restarts,
        {key: redis_client.get(key) for key in redis_client.keys("subsearch:queue-deaths:*")},
    )
    reason = f"killed its worker process {DEATHS} times"
    # (a worker slow to beat may have its message taken for a dead worker's and run
    # twice at once, so a poison can die twice a round and be dead-lettered twice)
    assert set(letters()) == {("embed_videos", str([[POISON]]), reason)}
    assert 1 <= worker.restarts <= DEATHS
    assert not embedded(POISON)
    status = cli(env, "queue", "status")
    assert status.returncode == 0, status.stderr
    lines = [line for line in status.stdout.splitlines() if line.startswith("dead embed ")]
    assert lines and all("embed_videos" in line and POISON in line for line in lines)
    assert all(line.endswith(f"reason: {reason}") for line in lines), lines
    logged = "".join(path.read_text() for path in tmp_path.glob("worker*.log"))
    assert f"on queue embed dead-lettered: {reason}" in logged
    # and the worker goes on: it stays up, and the queue holds nothing else
    restarts = worker.restarts
    assert not worker.until(lambda: worker.restarts > restarts, timeout=10)
    assert redis_client.llen("dramatiq:embed") == 0
    # its deaths still counted, at WORKER_POISON_DEATHS
    marks = redis_client.keys(poison.MARK.format(message_id="*"))
    assert [int(redis_client.get(mark)) >= DEATHS for mark in marks] == [True]

    # When the model is fixed (a worker without the abort) and the operator requeues it
    stop(worker.process)
    start_worker(processes=2, threads=4, **env)
    requeued = cli(env, "queue", "requeue", "--queue", "embed")
    assert requeued.returncode == 0, requeued.stderr
    assert f"requeued {len(lines)}" in requeued.stdout

    # Then it runs again from no deaths (at WORKER_POISON_DEATHS it would be set aside at
    # once), and is embedded
    assert wait_for(lambda: embedded(POISON), timeout=60)
    assert letters() == []
    assert wait_for(lambda: not redis_client.keys(poison.MARK.format(message_id="*")))
