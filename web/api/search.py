"""Search, search history, favorites, and public channel and video metadata."""

from __future__ import annotations

import re

from flask import jsonify, request
from flask_login import current_user, login_required

from models import library
from models.credits import calculate_credit_cost, has_access
from models.errors import DomainError, NotFound, ValidationError
from models.search import (
    DEFAULT_SEMANTIC_RATIO,
    SORTS,
    TARGETS,
    SearchQuery,
    get_engine,
)
from models.tables import Channel, Video
from web.api import bp

ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_CHANNELS = 50


class Locked(DomainError):
    code = "locked"
    status = 403
    message = "Unlock this video to read its full subtitles."


def _int(name, default, low, high):
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    if not re.fullmatch(r"\d{1,7}", raw) or not low <= int(raw) <= high:
        raise ValidationError(fields={name: f"a whole number from {low} to {high}"})
    return int(raw)


def parse_search_query() -> SearchQuery:
    """The query string as a SearchQuery, with channels and targets normalised (sorted,
    unique) so one search condition is one history row."""
    args = request.args
    problems = {}
    q = (args.get("q") or "").strip()
    if not 1 <= len(q) <= 200:
        problems["q"] = "from 1 to 200 characters"
    channels = sorted({c.strip() for c in (args.get("channels") or "").split(",") if c.strip()})
    if any(not ID.match(c) for c in channels) or len(channels) > MAX_CHANNELS:
        problems["channels"] = f"up to {MAX_CHANNELS} comma-separated channel ids"
    raw_targets = {t.strip() for t in (args.get("target") or "").split(",") if t.strip()}
    if raw_targets - set(TARGETS):
        problems["target"] = f"a comma-separated subset of {', '.join(TARGETS)}"
    targets = tuple(sorted(raw_targets)) if raw_targets else TARGETS
    sort = args.get("sort") or "relevance"
    if sort not in SORTS:
        problems["sort"] = f"one of {', '.join(SORTS)}"
    semantic = args.get("semantic") or "0"
    if semantic not in ("0", "1"):
        problems["semantic"] = "0 or 1"
    sr = DEFAULT_SEMANTIC_RATIO
    if args.get("sr") not in (None, ""):
        try:
            sr = float(args["sr"])
            if not 0 <= sr <= 1:
                raise ValueError
        except ValueError:
            problems["sr"] = "a number from 0 to 1"
    try:
        page = _int("page", 1, 1, 1000)
        per_page = _int("perPage", 20, 1, 100)
    except ValidationError as error:
        problems.update(error.fields)
    if problems:
        raise ValidationError(fields=problems)
    return SearchQuery(
        q=q,
        channels=tuple(channels),
        targets=targets,
        sort=sort,
        page=page,
        per_page=per_page,
        semantic=semantic == "1",
        sr=round(sr, 4),
    )


def watch_url(video_id: str, start: float | None) -> str:
    url = f"https://www.youtube.com/watch?v={video_id}"
    return f"{url}&t={int(start)}s" if start else url


@bp.get("/search")
def search():
    query = parse_search_query()
    results = get_engine().search(query)
    if current_user.is_authenticated:
        library.record_search(current_user.id, query)
    total_pages = -(-results.total_hits // query.per_page)
    return jsonify(
        query=query.q,
        page=query.page,
        perPage=query.per_page,
        totalHits=results.total_hits,
        totalPages=total_pages,
        semantic={"requested": query.semantic, "applied": results.semantic_applied},
        hits=[
            {
                "videoId": hit.video_id,
                "videoTitle": hit.video_title,
                "channelId": hit.channel_id,
                "channelTitle": hit.channel_title,
                "publishedAt": hit.published_at,
                "thumbnailUrl": hit.thumbnail_url,
                "matchedIn": hit.matched_in,
                "start": hit.start,
                "end": hit.end,
                "text": hit.text,
                "highlight": hit.highlight,
                "url": watch_url(hit.video_id, hit.start),
            }
            for hit in results.hits
        ],
    )


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
@login_required
def search_history():
    return jsonify(history=[_history_json(e) for e in library.history(current_user.id)])


@bp.delete("/search/history/<int:entry_id>")
@login_required
def delete_search_history_entry(entry_id):
    library.delete_history_entry(current_user.id, entry_id)
    return "", 204


@bp.delete("/search/history")
@login_required
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
@login_required
def favorites():
    return jsonify(
        favorites=[
            {**channel_json(channel), "channelId": channel.id, "createdAt": row.created_at}
            for row, channel in library.favorites(current_user.id)
        ]
    )


@bp.put("/favorites/<channel_id>")
@login_required
def add_favorite(channel_id):
    library.add_favorite(current_user.id, channel_id)
    return "", 204


@bp.delete("/favorites/<channel_id>")
@login_required
def remove_favorite(channel_id):
    library.remove_favorite(current_user.id, channel_id)
    return "", 204


@bp.get("/channels/<channel_id>")
def channel(channel_id):
    found = Channel.get_or_none(Channel.id == channel_id)
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
        "creditCost": calculate_credit_cost(video.duration_seconds),
        "url": watch_url(video.id, None),
    }


@bp.get("/videos/<video_id>")
def video(video_id):
    found = Video.get_or_none(Video.id == video_id)
    if found is None:
        raise NotFound("No video has this id.")
    return jsonify(video_json(found))


@bp.get("/videos/<video_id>/subtitles")
@login_required
def subtitles(video_id):
    if not Video.select().where(Video.id == video_id).exists():
        raise NotFound("No video has this id.")
    if not has_access(current_user, video_id):
        raise Locked()
    segments = get_engine().video_segments(video_id)
    return jsonify(
        videoId=video_id,
        segments=[{"start": s.start, "end": s.end, "text": s.text} for s in segments],
    )
