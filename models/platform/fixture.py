"""The `fixture` engine: a video platform read from JSON files (the bundled sample data by
default), offline. Files are read on every call, so a refresh sees edits; while a file
named QUOTA_EXCEEDED exists in the folder, every call fails as a quota error.

A video file may hold `"faults": [kind, ...]` (CONTRACT §12.2): each fetch of its
subtitles, by any process, takes the first kind left out of the file and fails that way;
once none is left, fetches succeed as the file says. So the refusals of the real platform
(a blocked address above all) can be seen offline, in tests and in the demo."""

from __future__ import annotations

import fcntl
import json
from pathlib import Path
from typing import Any

from models.platform.base import (
    FAILURE_KINDS,
    ChannelInfo,
    Cue,
    NotFoundOnPlatform,
    QuotaExceeded,
    Subtitles,
    SubtitlesFailed,
    VideoInfo,
)

SAMPLE_DIR = Path(__file__).resolve().parent / "sample"


class FixturePlatform:
    name = "fixture"

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder else SAMPLE_DIR

    def _read(self, kind: str, name: str) -> dict[str, Any] | None:
        if (self.folder / "QUOTA_EXCEEDED").exists():
            raise QuotaExceeded("fixture quota exceeded")
        path = self.folder / kind / f"{name}.json"
        if not path.is_file() or "/" in name or name.startswith("."):
            return None
        with path.open(encoding="utf-8") as file:
            fcntl.flock(file, fcntl.LOCK_SH)  # never half of a file a fault is taken from
            data: dict[str, Any] = json.load(file)
        return data

    def channel_ids(self) -> list[str]:
        """The channels of the sample (`sample load` imports them): every channel file
        but those marked `"sample": false`, which are on the platform for an operator to
        add (the channel that tries an alert: docs/alerts.md)."""
        return [
            path.stem
            for path in self._channel_files()
            if json.loads(path.read_text(encoding="utf-8")).get("sample", True) is not False
        ]

    def _channel_files(self) -> list[Path]:
        return sorted((self.folder / "channels").glob("*.json"))

    def example_searches(self) -> dict[str, list[str]]:
        """The searches each channel's file suggests (`exampleSearches`), for the home page
        of a fresh install: words its videos say. Not a platform call: no quota spent."""
        found = {}
        for path in self._channel_files():
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("sample", True) is False:
                continue
            words = [str(w).strip() for w in data.get("exampleSearches") or [] if str(w).strip()]
            if words:
                found[str(data.get("id") or path.stem)] = words
        return found

    def get_channel(self, id_or_handle: str) -> ChannelInfo:
        data = self._read("channels", id_or_handle)
        if data is None:
            handle = id_or_handle if id_or_handle.startswith("@") else f"@{id_or_handle}"
            for path in self._channel_files():
                candidate = self._read("channels", path.stem)
                if candidate and (candidate.get("handle") or "").lower() == handle.lower():
                    data = candidate
                    break
        if data is None or data.get("deleted"):
            # Removed from the platform: answered as the real platform does, not found.
            raise NotFoundOnPlatform(f"no channel {id_or_handle}")
        return ChannelInfo(
            id=data["id"],
            title=data["title"],
            handle=data.get("handle"),
            thumbnail_url=data.get("thumbnailUrl"),
            country=data.get("country"),
            subscriber_count=data.get("subscriberCount"),
            video_count=len(data.get("videoIds", [])),
            video_ids=list(data.get("videoIds", [])),
        )

    def get_videos(self, video_ids: list[str]) -> dict[str, VideoInfo]:
        found = {}
        channel_titles: dict[str, str | None] = {}  # one read of each channel's file
        for video_id in video_ids:
            data = self._read("videos", video_id)
            if data is None or data.get("deleted"):
                found[video_id] = VideoInfo(
                    id=video_id,
                    channel_id=(data or {}).get("channelId", ""),
                    title="",
                    description="",
                    thumbnail_url=None,
                    duration_seconds=0,
                    view_count=None,
                    like_count=None,
                    published_at="1970-01-01T00:00:00.000Z",
                    category_id=None,
                    deleted=True,
                )
                continue
            if data["channelId"] not in channel_titles:
                channel_titles[data["channelId"]] = self._channel_title(data["channelId"])
            found[video_id] = VideoInfo(
                id=data["id"],
                channel_id=data["channelId"],
                title=data["title"],
                description=data.get("description") or "",
                thumbnail_url=data.get("thumbnailUrl"),
                duration_seconds=int(data["durationSeconds"]),
                view_count=data.get("viewCount"),
                like_count=data.get("likeCount"),
                published_at=data["publishedAt"],
                category_id=data.get("categoryId"),
                channel_title=channel_titles[data["channelId"]],
            )
        return found

    def _channel_title(self, channel_id: str) -> str | None:
        """The title the channel's file holds, as the real platform names a video's channel."""
        data = self._read("channels", channel_id)
        return None if data is None or data.get("deleted") else data.get("title")

    def get_subtitles(self, video_id: str) -> Subtitles | None:
        data = self._read("videos", video_id)
        if data is None or data.get("deleted"):
            raise NotFoundOnPlatform(f"no video {video_id}")
        if data.get("faults"):
            fault = self._take_fault(video_id)
            if fault == "video_unavailable":
                raise NotFoundOnPlatform(f"video {video_id} is unavailable (fixture fault)")
            if fault is not None:
                raise SubtitlesFailed(f"subtitles of {video_id}: {fault} (fixture fault)", fault)
        subtitles = data.get("subtitles")
        if subtitles is None:
            return None
        if subtitles == "error":
            raise SubtitlesFailed(f"fetching the subtitles of {video_id} failed")
        return Subtitles(
            type=subtitles["type"],
            language=subtitles.get("language", ""),
            cues=[Cue(float(c["start"]), float(c["end"]), c["text"]) for c in subtitles["cues"]],
        )

    def _take_fault(self, video_id: str) -> str | None:
        """Take the first fault left out of the video's file, under an exclusive lock on
        it: of fetches in several processes at once, each fault fails exactly one. An
        unknown kind is the video's own failure (`broken`)."""
        path = self.folder / "videos" / f"{video_id}.json"
        with path.open("r+", encoding="utf-8") as file:
            fcntl.flock(file, fcntl.LOCK_EX)
            data = json.load(file)
            faults = list(data.get("faults") or [])
            if not faults:
                return None
            data["faults"] = faults[1:]
            file.seek(0)
            file.truncate()
            json.dump(data, file, ensure_ascii=False)
        fault = str(faults[0])
        return fault if fault in FAILURE_KINDS else "broken"
