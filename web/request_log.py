"""Each request's id and its access line: the id comes from X-Request-ID when it is a
sane value (else a new uuid4), is echoed in the answer, and is bound to every line
logged while the request runs, with the signed-in user's id and the route.

The access line names the route by its URL rule (`/api/videos/<video_id>/unlock`),
never the raw path or query string, which can carry search words and view tokens.

The ad beacons (an impression, a click) come by the thousand a second and each costs
one Redis call: their access line, at INFO, would cost about as much as the rest of the
request. They log it at DEBUG (skipped unless the level asks for it) and only a 5xx at
INFO, and look no user up for it; their figures are the HTTP metrics and
`subsearch_ad_events_total` (docs/operating.md, Logs).
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from flask import Flask, Response, g, request
from peewee import PeeweeException

from models import logs
from web.visitor import viewer_id

log = logging.getLogger(__name__)

HEADER = "X-Request-ID"
# Visible ASCII only (no spaces or control characters), as an edge or a caller would
# send: anything else could forge or break a log line, so it is replaced.
_SANE_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,128}")
# The beacon routes' endpoints, whose access line is at DEBUG (above).
QUIET_ENDPOINTS = frozenset({"api.ad_impression", "api.ad_click"})


def request_id_from(header: str | None) -> str:
    """The caller's request id when it is sane, else a new one."""
    if header is not None and _SANE_REQUEST_ID.fullmatch(header):
        return header
    return str(uuid.uuid4())


def _route() -> str | None:
    rule = request.url_rule
    return rule.rule if rule is not None else None


def _user_id() -> str | None:
    # Flask-Login loads the user on first use (one session lookup, which the
    # country backfill does on every request anyway). A lookup that fails (the database
    # is down) fails the request where it did before, not in its log line.
    try:
        return viewer_id()
    except PeeweeException:
        return None


def _quiet() -> bool:
    return request.endpoint in QUIET_ENDPOINTS


def _start() -> None:
    g.request_started = time.perf_counter()
    g.request_id = request_id_from(request.headers.get(HEADER))
    g.log_token = logs.bind(request_id=g.request_id, route=_route())
    if not _quiet():
        logs.bind(user_id=_user_id())  # after the request id: loading the user may log


def _access_line(response: Response) -> Response:
    request_id = g.get("request_id")
    if request_id is None:  # a hook before ours answered: still give it an id
        request_id = g.request_id = request_id_from(request.headers.get(HEADER))
    response.headers[HEADER] = request_id
    level = logging.INFO
    if _quiet() and response.status_code < 500:
        level = logging.DEBUG
        if not log.isEnabledFor(level):
            return response
    started = g.get("request_started")
    duration_ms = round((time.perf_counter() - started) * 1000, 1) if started else None
    user_id = None if _quiet() else _user_id()  # signed in or out by this very request
    log.log(
        level,
        "%s %s %s",
        request.method,
        _route() or "(no route)",
        response.status_code,
        extra={
            "method": request.method,
            "route": _route(),
            "status": response.status_code,
            "duration_ms": duration_ms,
            "request_id": request_id,
            "user_id": user_id,
        },
    )
    return response


def _end(_exc: BaseException | None) -> None:
    # A worker thread serves many requests: none may inherit this one's fields.
    token = g.pop("log_token", None)
    if token is not None:
        logs.reset(token)


def init_app(app: Flask) -> None:
    """Register after the per-request database connection opens (the user is loaded
    from the session row). Its after-request hook, registered early, runs last, so the
    access line has the status the client gets."""
    app.before_request(_start)
    app.after_request(_access_line)
    app.teardown_request(_end)
