"""Write a fixture video platform (the files `VIDEO_API_BACKEND=fixture` reads:
docs/search.md, Video platform) into a folder, for tests."""

from __future__ import annotations

import json
import time
from pathlib import Path

from models import platform_pause
from models.redis_client import get_redis


class PlatformFiles:
    def __init__(self, folder: Path):
        self.folder = folder
        (folder / "channels").mkdir(parents=True, exist_ok=True)
        (folder / "videos").mkdir(parents=True, exist_ok=True)

    def channel(self, channel_id, video_ids, **fields):
        data = {
            "id": channel_id,
            "title": fields.pop("title", "テストチャンネル"),
            "handle": fields.pop("handle", "@test_channel"),
            "thumbnailUrl": "https://yt3.example/c.jpg",
            "country": "JP",
            "subscriberCount": 1000,
            "videoIds": list(video_ids),
        }
        data.update(fields)
        self._write("channels", channel_id, data)
        return data

    def video(self, video_id, channel_id, subtitles, **fields):
        data = {
            "id": video_id,
            "channelId": channel_id,
            "title": fields.pop("title", f"動画 {video_id}"),
            "description": fields.pop("description", "説明文です"),
            "thumbnailUrl": f"https://i.ytimg.com/vi/{video_id}/hqdefault.jpg",
            "durationSeconds": 300,
            "viewCount": 100,
            "likeCount": 10,
            "publishedAt": "2026-02-01T00:00:00.000Z",
            "categoryId": "22",
            "deleted": False,
            "subtitles": subtitles,
        }
        data.update(fields)
        self._write("videos", video_id, data)
        return data

    def update(self, kind, name, **fields):
        path = self.folder / kind / f"{name}.json"
        data = json.loads(path.read_text())
        data.update(fields)
        path.write_text(json.dumps(data, ensure_ascii=False))

    def remove_channel(self, channel_id):
        """The channel is gone from the platform (deleted or terminated): its file too."""
        (self.folder / "channels" / f"{channel_id}.json").unlink()

    def quota_exceeded(self, on=True):
        marker = self.folder / "QUOTA_EXCEEDED"
        if on:
            marker.write_text("")
        else:
            marker.unlink(missing_ok=True)

    def _write(self, kind, name, data):
        (self.folder / kind / f"{name}.json").write_text(json.dumps(data, ensure_ascii=False))


def manual(*texts, language="ja"):
    return {
        "type": "manual",
        "language": language,
        "cues": [{"start": i * 3.0, "end": i * 3.0 + 3.0, "text": t} for i, t in enumerate(texts)],
    }


def auto(*texts, language="ja"):
    return {**manual(*texts, language=language), "type": "auto"}


def pause_runs_out():
    """The time of the platform's pause on fetching passes (models/platform_pause.py)."""
    get_redis().hset(platform_pause.KEY, "until", str(time.time() - 1))
