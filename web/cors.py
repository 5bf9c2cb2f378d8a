"""Cross-origin reads (CORS_ORIGINS; docs/api.md, Calling the API from another site):
which calls a page of another site may read (PUBLIC_READS, the one list), and the
headers that let a browser hand it their answers.

Such a page reads the anonymous answer only. A call from another origin to a public read
is stripped of its cookies and Authorization before the app sees it, so it is answered
as to a visitor who is not signed in (no search history written, counted against its
address), and, having carried credentials, it gets no CORS headers: a signed-in member's
browser never lets another site read an answer of theirs. Credentials are never allowed
(no Access-Control-Allow-Credentials), and only the origins configured, matched exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map
from werkzeug.wsgi import get_host

from models.settings import ANY_ORIGIN, Settings

# The public read API another site's page may call: URL rules as the app declares them
# (the names of their variables aside). Each answers the same to every visitor; calls
# that write, or answer a member's own data, are not here. `/api/ads/serve` is not
# either: ads are shown on this service's own pages only (spec, Direct ads: pages).
PUBLIC_READS = (
    "/api/search",
    "/api/videos/<video_id>",
    "/api/videos/<video_id>/moments",
    "/api/channels/<channel_id>",
    "/api/ads/slots",
)
# What a page of another site may send besides a simple request's own headers.
ALLOWED_HEADERS = ("Accept", "Accept-Language")
# What its script may read besides the simple response headers (a 429's wait).
EXPOSED_HEADERS = ("Retry-After",)
# How long a browser may keep a preflight's answer (Chromium keeps it 2 h at most).
MAX_AGE_SECONDS = 600

# Set in the WSGI environment of a call whose credentials were taken off.
CREDENTIALS_DROPPED = "subsearch.cors.credentials_dropped"
_CREDENTIALS = ("HTTP_COOKIE", "HTTP_AUTHORIZATION")
_VARIABLE = re.compile(r"<[^<>]*>")


def _shape(rule: str) -> str:
    return _VARIABLE.sub("<>", rule)


_PUBLIC_SHAPES = frozenset(_shape(rule) for rule in PUBLIC_READS)


def is_public_read(rule: str | None) -> bool:
    return rule is not None and _shape(rule) in _PUBLIC_SHAPES


class AnonymousCrossOriginReads:
    """WSGI: a call to a public read whose Origin is another site's loses its cookies
    and Authorization before Flask opens the session, and is marked so."""

    def __init__(self, wsgi_app: WSGIApplication, url_map: Map, public_base_url: str):
        self.wsgi_app = wsgi_app
        self.url_map = url_map
        self.own_origin = _origin_of(public_base_url)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if any(name in environ for name in _CREDENTIALS) and self._foreign_public_read(environ):
            for name in _CREDENTIALS:
                environ.pop(name, None)
            environ[CREDENTIALS_DROPPED] = True
        return self.wsgi_app(environ, start_response)

    def _foreign_public_read(self, environ: WSGIEnvironment) -> bool:
        origin = environ.get("HTTP_ORIGIN")
        if origin is None or origin == self.own_origin:
            return False
        scheme = environ.get("wsgi.url_scheme", "http")
        if origin == _origin_of(f"{scheme}://{get_host(environ)}"):
            return False  # this site reached under another name (development)
        try:
            rule, _arguments = self.url_map.bind_to_environ(environ).match(return_rule=True)
        except HTTPException:  # no such call, or not with this method
            return False
        return is_public_read(rule.rule)


def _origin_of(url: str) -> str:
    """scheme://host[:port] as a browser writes it in Origin (default port left out)."""
    match = re.match(r"^([a-z][a-z0-9+.-]*)://([^/?#]*)", url.strip(), re.IGNORECASE)
    if match is None:
        return ""
    scheme, netloc = match.group(1).lower(), match.group(2).lower()
    default = {"http": ":80", "https": ":443"}.get(scheme)
    if default and netloc.endswith(default):
        netloc = netloc[: -len(default)]
    return f"{scheme}://{netloc}"


class Cors:
    """The headers of cross-origin reads, for the configured origins."""

    def __init__(self, origins: tuple[str, ...]):
        self.any = origins == (ANY_ORIGIN,)
        self.origins = frozenset(origins)

    def allowed_origin(self) -> str | None:
        """What Access-Control-Allow-Origin says to this request, None for nothing: an
        Origin configured (exactly), on a call without credentials."""
        origin = request.headers.get("Origin")
        if origin is None or request.environ.get(CREDENTIALS_DROPPED):
            return None
        if "Authorization" in request.headers or request.cookies:
            return None  # a call of this site's own pages, or a member's own client
        if self.any:
            return ANY_ORIGIN
        return origin if origin in self.origins else None

    def preflight(self) -> Response | None:
        """before_request: a preflight of an allowed origin for a public read, answered
        here, before any limit or check of the call itself."""
        if request.method != "OPTIONS" or not self._public_read():
            return None
        if self.allowed_origin() is None:
            return None  # Flask's own answer, without CORS headers: the browser refuses
        response = Response(status=204)
        response.headers["Access-Control-Allow-Methods"] = "GET"
        response.headers["Access-Control-Allow-Headers"] = ", ".join(ALLOWED_HEADERS)
        response.headers["Access-Control-Max-Age"] = str(MAX_AGE_SECONDS)
        return response

    def add_headers(self, response: Response) -> Response:
        """after_request: the answer of a public read says to which origin it may be
        handed, and that it depends on Origin (for caches)."""
        if not self._public_read():
            return response
        response.vary.add("Origin")
        origin = self.allowed_origin()
        if origin is not None:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = ", ".join(EXPOSED_HEADERS)
        return response

    @staticmethod
    def _public_read() -> bool:
        rule = request.url_rule
        return rule is not None and is_public_read(rule.rule)


def init_app(app: Flask, settings: Settings) -> None:
    """Before the rate limits (a preflight is never counted) and before the middleware
    that wraps the app from outside (the client address behind proxies)."""
    app.wsgi_app = AnonymousCrossOriginReads(  # type: ignore[method-assign]
        app.wsgi_app, app.url_map, settings.public_base_url
    )
    if not settings.cors_origins:
        return
    cors = Cors(settings.cors_origins)
    app.before_request(cors.preflight)
    app.after_request(cors.add_headers)
