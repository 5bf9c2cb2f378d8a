"""A video's page: its player, its transcript cue by cue (each with its own time, the
clicked moment marked) with find and the transcript's files, the unlock with its cost and
the balance, and its ads."""

from __future__ import annotations

from types import SimpleNamespace
from urllib.parse import urlencode

from flask import abort, render_template, request
from markupsafe import Markup

from models.credits import calculate_credit_cost, has_access
from models.search.base import Segment
from models.search.highlight import highlight
from models.search.query import parse_query as parse_terms
from models.subtitles import video_transcript
from models.tables import Channel, Video
from models.transcript_files import FILE_FORMATS
from models.unlocks import just_unlocked
from web.api.operation import parse_path
from web.api.schemas.account import VideoPath
from web.api.schemas.catalog import watch_url
from web.i18n import reader_filter
from web.pages.blueprint import bp
from web.pages.served_ads import ad_label, video_ads
from web.translation import gettext as _
from web.visitor import viewer

# A moment on the platform itself, at its time (templates/_platform_link.html).
bp.add_app_template_global(watch_url)


@bp.app_template_filter()
def seconds(value: float) -> str:
    """A cue's start for an address (`t=87.84`): to the hundredth, no trailing zeros, so
    the video page marks the very cue, not the one before its whole second."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


@bp.app_template_filter()
def clock(value: float) -> str:
    """A time in a video as m:ss, or h:mm:ss from an hour."""
    whole = int(value)
    hours, minutes, secs = whole // 3600, whole % 3600 // 60, whole % 60
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def duration(value: int) -> str:
    """A video's length in words, to the second: 1 分 53 秒, 1 h 2 min 5 s."""
    hours, minutes, secs = value // 3600, value % 3600 // 60, value % 60
    if hours:
        return _(
            "%(hours)s h %(minutes)s min %(seconds)s s", hours=hours, minutes=minutes, seconds=secs
        )
    if minutes and secs:
        return _("%(minutes)s min %(seconds)s s", minutes=minutes, seconds=secs)
    if minutes:
        return _("%(minutes)s min", minutes=minutes)
    return _("%(seconds)s s", seconds=secs)


bp.add_app_template_filter(reader_filter(duration), "duration")


@bp.get("/videos/<video_id>")
def video(video_id: str) -> str:
    video_id = parse_path(VideoPath, {"video_id": video_id}).video_id
    found = Video.get_or_none(Video.id == video_id)
    if found is None or found.subtitle_status == "deleted":
        abort(404)
    member = viewer()
    allowed = member is not None and has_access(member, video_id)
    start = _start_param(request.args.get("t"))
    q = (request.args.get("q") or "").strip()[:200]
    segments = video_transcript(video_id) if allowed else None
    return render_template(
        "video.html",
        video=found,
        channel=Channel.get_by_id(found.channel_id),
        segments=_marked_segments(segments, q) if segments is not None else None,
        current_start=_current_start(segments or [], start),
        q=q,
        downloads=FILE_FORMATS if segments else (),
        player_url=_player_url(video_id, int(start) if start else None),
        cost=calculate_credit_cost(found.duration_seconds),
        balance=member.credit_balance + member.bonus_credit if member else None,
        unlocked=(
            just_unlocked(member.id, video_id)
            if member is not None and allowed and request.args.get("unlocked")
            else None
        ),
        ads=video_ads(),
        ad_label=ad_label(),
    )


# The furthest a `t` may point: a day, beyond any video the platform holds.
MAX_START_SECONDS = 86400.0


def _start_param(value: str | None) -> float | None:
    """`t` as the seconds it names, to the hundredth (`t=87.84`: the very cue a moment
    opens); None when missing or not a time in a video (the page opens at the start)."""
    try:
        at = float(value) if value else 0.0
    except ValueError:
        return None
    if not 0 < at <= MAX_START_SECONDS:  # also refuses nan and inf
        return None
    return round(at, 2)


PLAYER_HOST = "https://www.youtube-nocookie.com"


def _player_url(video_id: str, start: int | None) -> str:
    """The embedded player, listening to the page's postMessage commands (static/
    video-player.js: seek on a timestamp, mark the cue being played). The player starts
    at whole seconds; the page marks the cue to the hundredth."""
    params = {"enablejsapi": "1", "origin": request.host_url.rstrip("/")}
    if start:
        params["start"] = str(start)
    return f"{PLAYER_HOST}/embed/{video_id}?{urlencode(params)}"


def _marked_segments(segments: list[Segment], q: str) -> list[SimpleNamespace]:
    """Each cue with its text as escaped HTML, the query's words in <mark>."""
    terms = parse_terms(q) if q else []
    return [
        SimpleNamespace(
            start=s.start, end=s.end, text=s.text, html=Markup(highlight(s.text, terms))
        )
        for s in segments
    ]


# `t` carries a cue's start rounded to the hundredth, which may fall just before it.
START_SLACK = 0.01


def _current_start(segments: list[Segment], start: float | None) -> float | None:
    """The start of the cue playing at `start` seconds (the last one begun by then)."""
    if start is None:
        return None
    begun = [s.start for s in segments if s.start <= start + START_SLACK]
    return begun[-1] if begun else None
