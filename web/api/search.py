"""Search, search history, favorites, and public channel and video metadata."""

from __future__ import annotations

from flask import jsonify
from flask_login import current_user

from models import library
from models.credits import calculate_credit_cost, has_access
from models.errors import DomainError, NotFound
from models.search import get_engine
from models.tables import Channel, Video
from web.api import bp
from web.api.operation import MEMBER, operation
from web.api.schemas import catalog
from web.api.schemas.account import VideoPath
from web.api.schemas.catalog import watch_url


class Locked(DomainError):
    code = "locked"
    status = 403
    message = "Unlock this video to read its full subtitles."


@bp.get("/search")
@operation(
    "Search what was said in videos",
    query=catalog.SearchParams,
    responses={200: catalog.SearchAnswer},
    errors=(503,),
)
def search(query):
    """Hits one by one, or with `groupBy=video` videos with their best moments."""
    asked = query.search_query()
    user_id = current_user.id if current_user.is_authenticated else None
    if query.group_by == "video":
        answer = catalog.VideoSearchResults.of(asked, library.search_videos(user_id, asked))
    else:
        answer = catalog.SearchResults.of(asked, library.search(user_id, asked))
    return jsonify(answer.as_json())


def _history_json(entry) -> dict:
    return {
        "id": entry.id,
        "query": entry.query,
        "channels": [c for c in entry.channels.split(",") if c],
        "target": entry.target.split(","),
        "sort": entry.sort,
        "semantic": bool(entry.semantic),
        "sr": entry.sr,
        "searchedAt": entry.searched_at,
        "createdAt": entry.created_at,
    }


@bp.get("/search/history")
@operation("Own search history, newest first", auth=MEMBER, responses={200: catalog.History})
def search_history():
    return jsonify(history=[_history_json(e) for e in library.history(current_user.id)])


@bp.delete("/search/history/<int:entry_id>")
@operation(
    "Delete one history entry",
    auth=MEMBER,
    path=catalog.HistoryEntryPath,
    responses={204: None},
)
def delete_search_history_entry(path):
    library.delete_history_entry(current_user.id, path.entry_id)
    return "", 204


@bp.delete("/search/history")
@operation("Clear own search history", auth=MEMBER, responses={204: None})
def clear_search_history():
    library.clear_history(current_user.id)
    return "", 204


def channel_json(channel) -> dict:
    return {
        "id": channel.id,
        "title": channel.title,
        "handle": channel.handle,
        "thumbnailUrl": channel.thumbnail_url,
        "subtitleStatus": channel.subtitle_status,
        "videoCount": channel.video_count,
        "country": channel.country,
        "subscriberCount": channel.subscriber_count,
    }


@bp.get("/favorites")
@operation("Own favorite channels", auth=MEMBER, responses={200: catalog.Favorites})
def favorites():
    return jsonify(
        favorites=[
            {**channel_json(channel), "channelId": channel.id, "createdAt": row.created_at}
            for row, channel in library.favorites(current_user.id)
        ]
    )


@bp.put("/favorites/<channel_id>")
@operation(
    "Add a favorite channel (idempotent)",
    auth=MEMBER,
    path=catalog.ChannelPath,
    responses={204: None},
)
def add_favorite(path):
    library.add_favorite(current_user.id, path.channel_id)
    return "", 204


@bp.delete("/favorites/<channel_id>")
@operation(
    "Remove a favorite channel",
    auth=MEMBER,
    path=catalog.ChannelPath,
    responses={204: None},
)
def remove_favorite(path):
    library.remove_favorite(current_user.id, path.channel_id)
    return "", 204


@bp.get("/channels/<channel_id>")
@operation(
    "A channel's public metadata", path=catalog.ChannelPath, responses={200: catalog.Channel}
)
def channel(path):
    found = Channel.get_or_none(Channel.id == path.channel_id)
    if found is None:
        raise NotFound("No channel has this id.")
    return jsonify(channel_json(found))


def video_json(video) -> dict:
    return {
        "id": video.id,
        "channelId": video.channel_id,
        "title": video.title,
        "thumbnailUrl": video.thumbnail_url,
        "durationSeconds": video.duration_seconds,
        "viewCount": video.view_count,
        "likeCount": video.like_count,
        "publishedAt": video.published_at,
        "categoryId": video.category_id,
        "subtitleStatus": video.subtitle_status,
        "subtitleType": video.subtitle_type,
        "fetchAttempts": video.fetch_attempts,
        "nextRetryAt": video.next_fetch_at,
        "creditCost": calculate_credit_cost(video.duration_seconds),
        "url": watch_url(video.id, None),
    }


@bp.get("/videos/<video_id>")
@operation("A video's public metadata", path=VideoPath, responses={200: catalog.Video})
def video(path):
    found = Video.get_or_none(Video.id == path.video_id)
    if found is None:
        raise NotFound("No video has this id.")
    return jsonify(video_json(found))


@bp.get("/videos/<video_id>/subtitles")
@operation(
    "The full subtitles of an unlocked video",
    auth=MEMBER,
    path=VideoPath,
    responses={200: catalog.Subtitles},
    errors=(403, 503),
)
def subtitles(path):
    video_id = path.video_id
    if not Video.select().where(Video.id == video_id).exists():
        raise NotFound("No video has this id.")
    if not has_access(current_user, video_id):
        raise Locked()
    segments = get_engine().video_segments(video_id)
    return jsonify(
        videoId=video_id,
        segments=[{"start": s.start, "end": s.end, "text": s.text} for s in segments],
    )
