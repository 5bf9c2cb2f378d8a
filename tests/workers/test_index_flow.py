"""The index at production shape: a fresh install, the web front open, a worker of 2
processes x 8 threads importing several channels at once. Every video the database holds
as searchable is found by a word only it says, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest
import requests

from models.tables import Video, VideoVectors
from tests.fakes.platform_files import PlatformFiles, manual
from tests.workers.processes import add_channels_at_once, cli, wait_for

pytestmark = pytest.mark.flow

CHANNELS = 4
VIDEOS_PER_CHANNEL = 16
# Latin words a tokenizer keeps whole and no other video says.
LETTERS = "bcdfghjklmnpqrstvwxz"


def own_word(channel: int, video: int) -> str:
    return f"zu{LETTERS[channel]}{LETTERS[video]}{LETTERS[(channel + video) % 20]}ko"


def make_platform(folder) -> dict[str, str]:
    """The channels' files; returns each video's own word by video id."""
    files = PlatformFiles(folder)
    words = {}
    for c in range(CHANNELS):
        channel_id = f"UCflow{c:02d}xxxxxxxxxxxxxxxx"[:24]
        video_ids = [f"fl{c:02d}v{v:02d}xxxx"[:11] for v in range(VIDEOS_PER_CHANNEL)]
        files.channel(channel_id, video_ids, title=f"並行チャンネル{c}")
        for v, video_id in enumerate(video_ids):
            word = own_word(c, v)
            words[video_id] = word
            files.video(
                video_id,
                channel_id,
                manual(
                    "みなさんこんにちは",
                    f"今日の言葉は {word} です",
                    "それではまた来週",
                ),
            )
    return words


def completed() -> int:
    return Video.select().where(Video.subtitle_status == "completed").count()


def embedded() -> int:
    return VideoVectors.select().count()


@pytest.mark.parametrize("round_", [1, 2, 3])
def test_every_video_of_a_concurrent_import_is_found_by_its_own_word(
    round_, tmp_path, start_web, start_worker, redis_client
):
    # Given a fresh install: a new index file, the schema upgraded as
    # docs/search-index.md says
    words = make_platform(tmp_path / "platform")
    env = {
        "SEARCH_BACKEND": "embedded",
        "SEARCH_EMBEDDED_PATH": str(tmp_path / "fresh" / "search.db"),
        "VIDEO_API_BACKEND": "fixture",
        "VIDEO_FIXTURE_DIR": str(tmp_path / "platform"),
        # The test asks for every video's word many times a second while it waits.
        "RATE_LIMITS_ENABLED": "off",
    }
    upgraded = cli(env, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    web = start_web(**env)
    start_worker(processes=2, threads=8, **env)

    # When every channel is imported at once
    add_channels_at_once(env, [f"UCflow{c:02d}xxxxxxxxxxxxxxxx"[:24] for c in range(CHANNELS)])
    assert wait_for(lambda: completed() == len(words), timeout=180), completed()

    # Then each video is found by its own word, through the web front (the index is
    # written just after the database says `completed`: within moments, and for good)
    def lost():
        missing = []
        for video_id, word in words.items():
            answer = requests.get(f"{web}/api/search", params={"q": word}, timeout=10)
            assert answer.status_code == 200, answer.text
            found = [hit["videoId"] for hit in answer.json()["hits"]]
            if found != [video_id]:
                missing.append((video_id, word, found))
        return missing

    wait_for(lambda: not lost(), timeout=15)
    missing = lost()
    assert missing == [], f"{len(missing)} of {len(words)} videos not found by their own word"

    # and once the embedder has had every video (its own queue, after the index), the
    # index agrees with the database video by video, vectors included (a video being
    # written while the check reads may be told stale that once: the check is run
    # until the work is done, and must then find nothing)
    agreed = f"{len(words)} searchable video(s): 0 missing, 0 extra, 0 stale, 0 without vectors"
    assert wait_for(lambda: embedded() == len(words), timeout=180), embedded()
    assert wait_for(lambda: agreed in cli(env, "search", "verify").stdout, timeout=60)
    verified = cli(env, "search", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert agreed in verified.stdout
