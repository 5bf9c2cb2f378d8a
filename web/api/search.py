"""Search, search history, favorites, and public channel and video metadata."""

from __future__ import annotations

from urllib.parse import quote

from flask import Response, jsonify

from models import library, transcript_files
from models.credits import has_access
from models.errors import DomainError, NotFound
from models.subtitles import hit_snippets, video_transcript
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


@bp.get("/videos/<video_id>/moments")
@operation(
    "Every moment of a video for a search",
    path=VideoPath,
    query=catalog.MomentsParams,
    responses={200: catalog.VideoMoments},
    errors=(503,),
)
def video_moments(path: VideoPath, query: catalog.MomentsParams) -> Response:
    """The moments a grouped search counts as the video's `totalMoments`, a page of
    them: its shown moments first, then the others, best first. 404 for a video no
    search lists."""
    asked = query.search_query()
    found = library.video_moments(asked, path.video_id)
    snippets = hit_snippets(path.video_id, found.moments)
    return jsonify(catalog.VideoMoments.of(path.video_id, asked, found, snippets).as_json())


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
    "The full subtitles of an unlocked video, as JSON or as a file (SRT, WebVTT, text)",
    auth=MEMBER,
    path=VideoPath,
    query=catalog.SubtitlesParams,
    responses={200: catalog.Subtitles},
    files={200: tuple(transcript_files.MEDIA_TYPES.values())},
    errors=(403, 503),
)
def subtitles(path: VideoPath, query: catalog.SubtitlesParams) -> Response:
    """A download needs the same access as the JSON form: it is not an unlock."""
    video_id = path.video_id
    found = Video.get_or_none(Video.id == video_id)
    if found is None:
        raise NotFound("No video has this id.")
    if not has_access(member(), video_id):
        raise Locked()
    segments = video_transcript(video_id)
    if query.format == "json":
        return jsonify(catalog.Subtitles.of(video_id, segments).as_json())
    return _attachment(
        transcript_files.transcript_file(query.format, video_id, found.title, segments)
    )


# RFC 5987's attr-char, which a filename* value may hold unescaped (as werkzeug's send_file).
ATTR_CHARS = "!#$&+-.^_`|~"


def _attachment(made: transcript_files.TranscriptFile) -> Response:
    """The file as a download: a plain `filename=` every client reads, and the title's own
    name as `filename*=UTF-8''...` (RFC 6266) where ASCII cannot spell it. werkzeug's
    send_file would write the same header, but its ASCII name for a Japanese title is
    ".srt" alone; ours falls back to the video id."""
    response = Response(made.text, content_type=f"{made.media_type}; charset=utf-8")
    names = {"filename": made.ascii_name}
    if made.name != made.ascii_name:
        names["filename*"] = f"UTF-8''{quote(made.name, safe=ATTR_CHARS)}"
    response.headers.set("Content-Disposition", "attachment", **names)
    return response
