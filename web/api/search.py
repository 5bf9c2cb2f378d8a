"""Search, search history, favorites, and public channel and video metadata."""

from __future__ import annotations

from flask import Response, jsonify

from models import library
from models.credits import has_access
from models.errors import DomainError, NotFound
from models.subtitles import video_transcript
from models.tables import Channel, Video
from web.api.blueprint import bp
from web.api.operation import MEMBER, operation
from web.api.schemas import catalog
from web.api.schemas.account import VideoPath
from web.visitor import member, viewer_id


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
def search(query: catalog.SearchParams) -> Response:
    """Hits one by one, or with `groupBy=video` videos with their best moments."""
    asked = query.search_query()
    user_id = viewer_id()
    answer: catalog.VideoSearchResults | catalog.SearchResults
    if query.group_by == "video":
        answer = catalog.VideoSearchResults.of(asked, library.search_videos(user_id, asked))
    else:
        answer = catalog.SearchResults.of(asked, library.search(user_id, asked))
    return jsonify(answer.as_json())


@bp.get("/search/history")
@operation("Own search history, newest first", auth=MEMBER, responses={200: catalog.History})
def search_history() -> Response:
    return jsonify(catalog.History.of(library.history(member().id)).as_json())


@bp.delete("/search/history/<int:entry_id>")
@operation(
    "Delete one history entry",
    auth=MEMBER,
    path=catalog.HistoryEntryPath,
    responses={204: None},
)
def delete_search_history_entry(path: catalog.HistoryEntryPath) -> tuple[str, int]:
    library.delete_history_entry(member().id, path.entry_id)
    return "", 204


@bp.delete("/search/history")
@operation("Clear own search history", auth=MEMBER, responses={204: None})
def clear_search_history() -> tuple[str, int]:
    library.clear_history(member().id)
    return "", 204


@bp.get("/favorites")
@operation("Own favorite channels", auth=MEMBER, responses={200: catalog.Favorites})
def favorites() -> Response:
    return jsonify(catalog.Favorites.of(library.favorites(member().id)).as_json())


@bp.put("/favorites/<channel_id>")
@operation(
    "Add a favorite channel (idempotent)",
    auth=MEMBER,
    path=catalog.ChannelPath,
    responses={204: None},
)
def add_favorite(path: catalog.ChannelPath) -> tuple[str, int]:
    library.add_favorite(member().id, path.channel_id)
    return "", 204


@bp.delete("/favorites/<channel_id>")
@operation(
    "Remove a favorite channel",
    auth=MEMBER,
    path=catalog.ChannelPath,
    responses={204: None},
)
def remove_favorite(path: catalog.ChannelPath) -> tuple[str, int]:
    library.remove_favorite(member().id, path.channel_id)
    return "", 204


@bp.get("/channels/<channel_id>")
@operation(
    "A channel's public metadata", path=catalog.ChannelPath, responses={200: catalog.Channel}
)
def channel(path: catalog.ChannelPath) -> Response:
    found = Channel.get_or_none(Channel.id == path.channel_id)
    if found is None:
        raise NotFound("No channel has this id.")
    return jsonify(catalog.Channel.of(found).as_json())


@bp.get("/videos/<video_id>")
@operation("A video's public metadata", path=VideoPath, responses={200: catalog.Video})
def video(path: VideoPath) -> Response:
    found = Video.get_or_none(Video.id == path.video_id)
    if found is None:
        raise NotFound("No video has this id.")
    return jsonify(catalog.Video.of(found).as_json())


@bp.get("/videos/<video_id>/subtitles")
@operation(
    "The full subtitles of an unlocked video",
    auth=MEMBER,
    path=VideoPath,
    responses={200: catalog.Subtitles},
    errors=(403, 503),
)
def subtitles(path: VideoPath) -> Response:
    video_id = path.video_id
    if not Video.select().where(Video.id == video_id).exists():
        raise NotFound("No video has this id.")
    if not has_access(member(), video_id):
        raise Locked()
    segments = video_transcript(video_id)
    return jsonify(catalog.Subtitles.of(video_id, segments).as_json())
