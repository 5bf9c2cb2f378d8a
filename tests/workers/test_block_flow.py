"""A block costs time, never a video (issue 44), at production shape: a worker of 2
processes x 8 threads and the scheduler running import a channel of 200 videos while the
platform refuses the service's address on the first fetches. Afterwards every video is
`completed` and none was `failed` on the way; the pause was taken and ended. Then a video
whose probes the platform keeps refusing makes the pause grow, to its longest, and reset
when it is answered."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
import redis

from models import platform_pause
from models.tables import Video
from tests.fakes.platform_files import PlatformFiles, manual
from tests.workers.processes import ROOT, flow_env, stop, wait_for
from tests.workers.test_index_flow import cli

pytestmark = pytest.mark.flow

CHANNEL = "UCblock0block0block0blo1"
LATER = "UCblock0block0block0blo2"
VIDEOS = [f"blk{n:03d}xxxxx"[:11] for n in range(200)]
BLOCKED = VIDEOS[:8]  # the first fetches: refused once each
PROBED = "blkprobedxx"  # alone in its import: every probe is its fetch


def statuses() -> dict[str, int]:
    rows = Video.select(Video.subtitle_status, Video.id)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.subtitle_status] = counts.get(row.subtitle_status, 0) + 1
    return counts


class PauseWatch:
    """The pause's length, read from Redis as the workers set it, every 20 ms."""

    def __init__(self):
        self.lengths: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self):
        while not self._stop.wait(0.02):
            try:
                pause = platform_pause.state()
            except redis.RedisError:
                # The web's 0.25 s for Redis, met on two cores running sixteen worker
                # threads: a reading missed, the next one 20 ms later.
                continue
            if pause is not None:
                self.lengths.add(pause.seconds)

    def close(self):
        self._stop.set()
        self._thread.join()


@pytest.fixture
def scheduler():
    started = []

    def start(**env):
        process = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "scheduler"],
            cwd=ROOT,
            env={**flow_env(), **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(process)

    yield start
    for process in started:
        stop(process)


def test_a_block_through_an_import_of_200_videos_costs_time_never_a_video(
    tmp_path, start_worker, scheduler, redis_client
):
    files = PlatformFiles(tmp_path / "platform")
    files.channel(CHANNEL, VIDEOS, title="封鎖の中のチャンネル")
    for n, video_id in enumerate(VIDEOS):
        faults = ["ip_blocked"] if video_id in BLOCKED else []
        files.video(video_id, CHANNEL, manual(f"第{n}回の話です"), faults=faults)
    files.channel(LATER, [PROBED], title="後から")
    files.video(PROBED, LATER, manual("最後の話です"), faults=["ip_blocked"] * 3)
    env = {
        "SEARCH_BACKEND": "embedded",
        "SEARCH_EMBEDDED_PATH": str(tmp_path / "search.db"),
        "VIDEO_API_BACKEND": "fixture",
        "VIDEO_FIXTURE_DIR": str(tmp_path / "platform"),
        "PLATFORM_BACKOFF_SECONDS": "1",
        "PLATFORM_BACKOFF_MAX_SECONDS": "4",
        # A block is the fetch's: embedding 400 passages would only take the two cores
        # from the import under test.
        "SEARCH_EMBEDDER": "none",
    }
    assert cli(env, "db", "upgrade").returncode == 0
    start_worker(processes=2, threads=8, **env)
    scheduler(**env)
    watch = PauseWatch()
    try:
        # When the channel is imported through the block
        assert cli(env, "channels", "add", CHANNEL).returncode == 0
        assert wait_for(lambda: statuses().get("completed") == 200, timeout=180), statuses()

        # Then every video is completed, none was failed on the way, the block was noted
        # on the videos it met, and the pause was taken and is over
        assert statuses() == {"completed": 200}
        assert Video.select().where(Video.fetch_attempts > 0).count() == 0
        noted = Video.select().where(Video.last_failure_kind == "ip_blocked").count()
        assert noted == len(BLOCKED)
        assert 1 in watch.lengths
        assert wait_for(lambda: platform_pause.state() is None, timeout=10)

        # When the probes keep being refused, the pause grows to its longest, and the
        # first answer ends it
        assert cli(env, "channels", "add", LATER).returncode == 0
        assert wait_for(
            lambda: (
                Video.get_or_none(Video.id == PROBED) is not None
                and Video.get_by_id(PROBED).subtitle_status == "completed"
            ),
            timeout=60,
        )
    finally:
        watch.close()
    assert {1, 2, 4} <= watch.lengths, watch.lengths
    assert platform_pause.state() is None
    assert Video.get_by_id(PROBED).fetch_attempts == 0
