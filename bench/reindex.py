"""Benchmark of the rebuild from stored subtitles and of the index check (issue 25).

Makes a throwaway SQLite database and embedded index in a temporary folder, stores
synthetic subtitle tracks for N videos (40 cues each, 70 % Japanese), then times
`indexing.rebuild()` (what `subsearch search reindex --now` and `db upgrade` run: every
video's documents cut from its stored cues, no platform) and `index_check.verify()`
(what the daily check runs), and prints videos/s and documents/s. Target (docs/
search-index.md): a rebuild at 200 videos/s or more, so 50,000 videos take under five
minutes, and a check at least as quick.

    .venv/bin/python bench/reindex.py [--videos 5000]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models import index_check, indexing, migrations
from models.db import db, init_db, write_transaction
from models.platform.base import Cue
from models.search import get_engine
from models.settings import load_settings, use_settings
from models.subtitles import pack
from models.tables import Channel, SubtitleTrack, Video

CHANNEL = "UCbenchbenchbenchbench01"

REBUILD_TARGET = 200  # videos a second
WORDS_JA = ["大阪", "たこ焼き", "東京都", "京都", "新幹線", "ラーメン", "会議", "設定", "天気"]
WORDS_EN = ["router", "office", "network", "quick", "brown", "meeting", "travel", "video"]


def cue_text(rng: random.Random) -> str:
    if rng.random() < 0.7:
        return "".join(rng.choice(WORDS_JA) for _ in range(4)) + "です"
    return " ".join(rng.choice(WORDS_EN) for _ in range(6))


def fill(videos: int, rng: random.Random) -> None:
    Channel.insert(id=CHANNEL, title="ベンチ", subtitle_status="completed").execute()
    for first in range(0, videos, 500):
        ids = [f"bench{n:06d}" for n in range(first, min(first + 500, videos))]
        with write_transaction():
            Video.insert_many(
                [
                    {
                        "id": video_id,
                        "channel": CHANNEL,
                        "title": f"動画 {video_id}",
                        "description": "説明文です",
                        "duration_seconds": 600,
                        "published_at": "2026-01-01T00:00:00.000Z",
                        "subtitle_status": "completed",
                        "subtitle_type": "manual",
                    }
                    for video_id in ids
                ]
            ).execute()
            SubtitleTrack.insert_many(
                [
                    {
                        "video": video_id,
                        "language": "ja",
                        "type": "manual",
                        "cues": pack(
                            [Cue(n * 4.0, n * 4.0 + 4.0, cue_text(rng)) for n in range(40)]
                        ),
                        "cue_count": 40,
                        "fetched_at": "2026-01-01T00:00:00.000Z",
                    }
                    for video_id in ids
                ]
            ).execute()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--videos", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="subsearch-bench-") as folder:
        os.environ.update(
            {
                "APP_ENV": "test",
                "DATABASE_URL": f"sqlite:///{folder}/bench.db",
                "SEARCH_EMBEDDED_PATH": f"{folder}/search.db",
                "SEARCH_BACKEND": "embedded",
            }
        )
        use_settings(load_settings(read_dotenv=False))
        init_db(os.environ["DATABASE_URL"])
        migrations.upgrade()
        get_engine().apply_settings()
        with db.connection_context():
            fill(args.videos, random.Random(0))
            done = indexing.rebuild()
            rate = done.videos_per_second
            print(
                f"rebuild from stored cues: {done.videos:,} videos, {done.documents:,}"
                f" documents in {done.seconds:.1f} s: {rate:,.0f} videos/s,"
                f" {done.documents / done.seconds:,.0f} documents/s"
                f" ({'meets' if rate >= REBUILD_TARGET else 'MISSES'} the"
                f" {REBUILD_TARGET} videos/s target)"
            )
            started = time.perf_counter()
            result = index_check.verify()
            seconds = time.perf_counter() - started
            print(
                f"index check: {result.videos:,} videos in {seconds:.1f} s"
                f" ({result.videos / seconds:,.0f} videos/s), {len(result.wrong)} differing"
            )


if __name__ == "__main__":
    main()
